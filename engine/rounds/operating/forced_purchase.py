"""The forced purchase of a train (18TN 4.2.5.2): the president's money, emergency sales
and bankruptcy."""

from __future__ import annotations

from engine import routes, trains
from engine.actions import SellShares
from engine.errors import GameError, require
from engine.rounds.operating.turns import CompanyTurns
from engine.shares import check_sale, sell_shares
from engine.state import BANK, Corporation, money


class ForcedPurchase(CompanyTurns):
    def _forced_sale_options(self, corp: Corporation) -> list[str]:
        """The president's sales for a forced purchase (4.2.5.2(d)), while money is
        short."""
        state = self.state
        seat = corp.president or ""
        cheapest = self.rules.cheapest_train(state)
        assert cheapest is not None
        if cheapest[1] - corp.cash - state.player(seat).cash <= 0:
            return []
        prices = self._sale_prices()
        return [f"sell N {sym} (up to {pct // 10}, at {money(state, prices[sym])} a share, "
                "to pay for the train)"
                for sym, pct in self._sellable_percents(seat, corp).items()]

    def _pay_for_train(self, corp: Corporation, price: int, name: str) -> None:
        """4.2.5.2: when the company cannot pay, its president must make up the rest."""
        state = self.state
        if corp.cash >= price:
            return
        t = self.current
        assert t is not None
        require(self.rules.president_contributes and not corp.trains
                and self.rules.train_purchase_forced(state, corp)
                and routes.has_route(self.rules, state, corp),
                f"{corp.sym} has {money(state, corp.cash)}; the {name}-train costs "
                f"{money(state, price)}")
        cheapest = self.rules.cheapest_train(state)
        assert cheapest is not None
        require(cheapest[1] == price and cheapest[0].name == name,
                self.rules.cite("cheapest_with_president", train=cheapest[0].name,
                                price=money(state, cheapest[1])))
        president = state.player(corp.president or "")
        need = price - corp.cash
        require(president.cash >= need,
                f"{corp.sym} has {money(state, corp.cash)} and {president.name} "
                f"{money(state, president.cash)}; the train costs {money(state, price)}: "
                f"{president.name} must sell shares first (`sell N SYM`)")
        state.transfer_cash(president.name, corp.sym, need)
        state.say(f"{president.name} contributes {money(state, need)} to {corp.sym}")
        t.emergency = True

    def _emergency_sale(self, seat: str, corp: Corporation, action: SellShares) -> None:
        """4.2.5.2(d): the president sells just enough to pay for the forced train."""
        state = self.state
        t = self.current
        assert t is not None
        require(self.rules.president_contributes,
                self.rules.cite("no_president_money", corp=corp.sym))
        require(not corp.trains and self.rules.train_purchase_forced(state, corp)
                and routes.has_route(self.rules, state, corp),
                "shares may be sold in an operating round only to raise money for a "
                "forced train purchase")
        require(t.dividend_done or bool(t.revenue)
                or not self.rules.closes_on_withholding(state, corp),
                self.rules.cite("closes_on_withholding", corp=corp.sym))
        # The sale belongs to the train purchase: move to that step (passing the others).
        self._enter_step(corp, self.steps.index("train"))
        cheapest = self.rules.cheapest_train(state)
        require(cheapest is not None, "no train is left to buy")
        assert cheapest is not None
        need = cheapest[1] - corp.cash - state.player(seat).cash
        require(need > 0, f"{seat} already has enough to buy the "
                f"{cheapest[0].name}-train")
        target = state.corporation(action.corporation)
        percent = action.percent if action.percent is not None else 10 * (action.count or 1)
        why = self.rules.may_sell(state, target, state.stock_round_number + 1)
        if why:
            raise GameError(why)
        # 1850 5.3.3 is not limited to stock rounds: a second, separate sale of the
        # same company is refused here too.
        require(not (self.rules.sell_in_blocks and target.sym in t.emergency_sold),
                self.rules.cite("one_block", seat=seat, corp=target.sym,
                                when="for this train"))
        check_sale(self.rules, state, seat, target, percent)
        if target.sym == corp.sym:
            others = max(target.percent_held_by(s) for s in state.seats if s != seat)
            require(target.percent_held_by(seat) - percent >= others,
                    f"{seat} may not sell so much {corp.sym} that its "
                    f"{self.rules.word('head')} changes")
        # The sales stop as soon as the money is there: no share beyond the last one
        # needed, counted at the price the sale pays (1851: the price at the start),
        # unless the smaller sale is not allowed (1850 10.7.2: down to 60%).
        unit = self._sale_prices()[target.sym]
        least = self.rules.least_sale_percent(state, seat, target)
        require(unit * (percent - 10) // 10 < need or percent - 10 < least,
                self.rules.cite("forced_sale", seat=seat, need=money(state, need)))
        self._sell_for_train(seat, target, percent)
        t.emergency_sold = (*t.emergency_sold, target.sym)
        if target.sym == corp.sym and self._own_sale_falls(seat, corp):
            return  # (the company closed: its turn is over)
        # A sale is the president's contribution to the cheapest train: the company
        # may no longer buy one from another company (18TN 4.2.5.2(a)).
        if self.rules.sale_is_contribution:
            t.emergency = True

    def _own_sale_falls(self, seat: str, corp: Corporation) -> bool:
        """1850 10.7.2: the president's sale of the company that needs the train, which
        nobody may protect (5.9: the president buys the shares from the seller), moves
        its price at once: "They may cause closure of the company that needs the train"
        (5.1.1's black area), and then "all money including that for all share sales
        and the president's personal funds are lost" and the company's turn is over.
        Returns whether it closed."""
        state = self.state
        sale = next((s for s in reversed(state.pending_sales)
                     if s.corporation == corp.sym and s.seller == seat == s.president),
                    None)
        if sale is None:
            return False
        state.pending_sales.remove(sale)
        state.say(self.rules.cite("own_sale_stands", seat=seat, percent=sale.percent,
                                  corp=corp.sym))
        self.rules.move_price_after_sale(state, corp, sale.percent // 10)
        if not corp.closed:
            return False
        lost = state.player(seat).cash
        state.transfer_cash(seat, BANK, lost)
        state.say(self.rules.cite("own_sale_closes", seat=seat, lost=money(state, lost),
                                  corp=corp.sym))
        self._finish_company()
        return True

    def must_buy(self, corp: Corporation) -> bool:
        """Whether `corp` must buy a train now: a route, no train and a train left in
        the bank (4.2.5.2; 1851 PURCHASE TRAINS), unless the title says otherwise."""
        own = self.rules.must_buy_train(self.state, corp)
        if own is not None:
            return own
        return (not corp.trains and self.rules.cheapest_train(self.state) is not None
                and self.rules.train_purchase_forced(self.state, corp)
                and routes.has_route(self.rules, self.state, corp))

    def _train_within_reach(self, corp: Corporation) -> bool:
        """Whether a company that must buy a train can: the cheapest train from its
        treasury, its president's cash and what he may sell (at the prices the sales
        pay), or, where the title counts it, a train of a company with the same
        president for what its treasury holds."""
        state = self.state
        cheapest = self.rules.cheapest_train(state)
        assert cheapest is not None
        if not self.rules.president_contributes:  # 1861 10.10: loans, not the Director
            return self.rules.train_budget(state, corp) >= cheapest[1]
        seat = corp.president or ""
        raised = corp.cash + state.player(seat).cash + self._saleable_value(seat, corp)
        if raised >= cheapest[1]:
            return True
        return self.rules.sister_train_averts_bankruptcy and self._sister_train(corp)

    def _sister_train(self, corp: Corporation) -> bool:
        """A train the company may buy from a company with the same president."""
        state = self.state
        t = self.current
        assert t is not None
        if t.emergency or corp.cash < 1 or \
                len(corp.trains) >= trains.train_limit(self.rules, state, corp):
            return False
        return any(other.sym != corp.sym and other.president == corp.president
                   and self.rules.why_not_train_price(state, corp, other, train, 1) is None
                   for other in state.corporations.values()
                   for train in other.trains if not train.obsolete)

    def _sale_prices(self) -> dict[str, int]:
        """The price a forced sale pays per share: the price of the moment (4.2.5.2(d)),
        or in 1851 the price at the start of the train purchase."""
        state = self.state
        t = self.current
        assert t is not None
        now = {sym: state.market.price(sym) for sym in state.market.positions}
        if not self.rules.forced_sales_at_start_prices:
            return now
        return {sym: t.emergency_prices.get(sym, price) for sym, price in now.items()}

    def _sell_for_train(self, seat: str, target: Corporation, percent: int) -> None:
        t = self.current
        assert t is not None
        state = self.state
        if not t.emergency_prices:
            t.emergency_prices = {sym: state.market.price(sym) for sym in state.market.positions}
        fixed = t.emergency_prices.get(target.sym) \
            if self.rules.forced_sales_at_start_prices else None
        sell_shares(self.rules, state, seat, target, percent, fixed)

    def _sellable_percents(self, seat: str, operating: Corporation) -> dict[str, int]:
        """What the president may sell under 4.2.5.2(d), per company: whatever may go to
        the pool, keeping the operating company's presidency and its president's
        certificate."""
        state = self.state
        out: dict[str, int] = {}
        for corp in state.corporations.values():
            held = corp.percent_held_by(seat)
            if not held or corp.sym not in state.market.positions:
                continue
            if self.rules.may_sell(state, corp, state.stock_round_number + 1):
                continue
            t = self.current
            if self.rules.sell_in_blocks and t is not None and corp.sym in t.emergency_sold:
                continue  # 1850 5.3.3: sold in one block already
            room = max(0, self.rules.pool_limit_percent - corp.pool_percent)
            sellable = min(held, room)
            others = max(corp.percent_held_by(s) for s in state.seats if s != seat)
            pres = corp.certificates[0].percent
            if corp.sym == operating.sym:
                sellable = min(sellable, max(0, held - max(others, pres)))
            elif corp.president == seat and others < pres:
                sellable = min(sellable, held - pres)
            if sellable >= 10:
                out[corp.sym] = sellable // 10 * 10
        return out

    def _saleable_value(self, seat: str, operating: Corporation) -> int:
        """What those sales raise: each company's shares sold at once, at the price
        the sale pays (a sale drops only its own company's price)."""
        prices = self._sale_prices()
        return sum(prices[sym] * pct // 10
                   for sym, pct in self._sellable_percents(seat, operating).items())

    def _sell_everything(self, seat: str, operating: Corporation) -> None:
        """Before a bankruptcy the president sells all he may (4.2.5.2(d), 6.1), at the
        prices forced sales pay."""
        for sym, percent in self._sellable_percents(seat, operating).items():
            corp = self.state.corporation(sym)
            for pct in range(percent, 0, -10):
                try:
                    check_sale(self.rules, self.state, seat, corp, pct)
                except GameError:
                    continue
                self._sell_for_train(seat, corp, pct)
                break
