"""The train step (18TN 4.2.5): buying from the bank, the Open Market or another company,
offers between companies, discards over the limit."""

from __future__ import annotations

from engine import trains
from engine.actions import (
    Accept,
    Action,
    BuyTrain,
    Decline,
    DiscardTrain,
)
from engine.errors import GameError, require
from engine.rounds.operating.earnings import Earnings
from engine.rounds.operating.forced_purchase import ForcedPurchase
from engine.rounds.operating.turns import TrainOffer
from engine.state import BANK, POOL, Corporation, Train, money


class TrainStep(Earnings, ForcedPurchase):
    def _train_options(self, corp: Corporation, forced: bool) -> list[str]:
        """The train purchases open to the company (4.2.5; forced: 4.2.5.2(a))."""
        state = self.state
        t = self.current
        assert t is not None
        out: list[str] = []
        if len(corp.trains) >= trains.train_limit(self.rules, state, corp):
            return self._trade_in_options(corp)
        cheapest = self.rules.cheapest_train(state)
        president = state.player(corp.president or "")
        may_buy_new = self.rules.may_buy_another_bank_train(state, t.bank_trains_bought)
        purse = self.rules.train_budget(state, corp)
        if may_buy_new:
            # The next train, and any other the title offers beside it (1861 phase 8,
            # 1850 16.2's diesels), with the trades-in a title allows.
            for offer in self.rules.offered_trains(state):
                price = state.title.train(offer.name).price
                helped = forced and cheapest is not None and cheapest[0] is offer
                if purse >= price or (helped and corp.cash + president.cash >= price):
                    out.append(f"buy train {offer.name} ({money(state, price)}"
                               f"{self._paid_how(corp, price, purse)})")
            out += self._trade_in_options(corp)
        if may_buy_new or not self.rules.pool_trains_count_as_new:
            for name in sorted({tr.name for tr in state.trains_pool}):
                if self.rules.why_not_buy_train(state, corp, POOL, name, None):
                    continue
                price = state.title.train(name).price
                helped = forced and cheapest is not None and cheapest[0].name == name \
                    and cheapest[2] == POOL
                if purse >= price or (helped and corp.cash + president.cash >= price):
                    out.append(f"buy train {name} from pool ({money(state, price)}"
                               f"{self._paid_how(corp, price, purse)})")
        if t.emergency or corp.cash < 1:
            return out
        for other in state.corporations.values():
            if other.sym == corp.sym:
                continue
            for name in sorted({tr.name for tr in other.trains if not tr.obsolete}):
                if self.rules.why_not_buy_train(state, corp, other.sym, name, None):
                    continue  # (1825: a minor's own train; a receiver's limits, 6.4.4)
                sample = next(tr for tr in other.trains if tr.name == name and not tr.obsolete)
                face = state.title.train(name).price
                least = self.rules.least_train_price
                prices = [p for p in sorted({least, face, corp.cash}) if 1 <= p <= corp.cash
                          and self.rules.why_not_train_price(state, corp, other, sample, p)
                          is None]
                if not prices:
                    continue
                agree = "" if other.president == corp.president else \
                    f", if {other.president} agrees"
                span = money(state, prices[0]) if len(prices) == 1 else \
                    f"{money(state, prices[0])} to {money(state, prices[-1])}"
                out.append(f"buy train {name} from {other.sym} for PRICE ({span}{agree})")
        return out

    def _finish_if_nothing_left(self) -> None:
        """Once the revenue is settled and no train can be bought, the turn is over:
        a president is not asked for a `done` that changes nothing."""
        t = self.current
        if t is None or self.discards or t.step < self.steps.index("train"):
            return
        corp = self.company()
        if t.step == self.steps.index("train") and self.can_buy_train(corp):
            return
        if any(self.step_available(corp, self.steps[i])
               for i in range(max(t.step, self.steps.index("train")) + 1, len(self.steps))):
            return
        if t.step > self.steps.index("train") and self.step_available(
                corp, self.steps[t.step]):
            return
        self._finish_company()

    def _trade_in_options(self, corp: Corporation) -> list[str]:
        """Purchases from the bank with a train traded in (1850 16.2), which a company at
        its train limit may make too."""
        state, t = self.state, self.current
        assert t is not None
        if not self.rules.may_buy_another_bank_train(state, t.bank_trains_bought):
            return []
        out: list[str] = []
        for offer in self.rules.offered_trains(state):
            price = state.title.train(offer.name).price
            for old, credit in self.rules.trade_ins(state, corp, offer.name).items():
                if corp.cash >= price - credit:
                    out.append(f"buy train {offer.name} trade in {old} "
                               f"({money(state, price - credit)})")
        return out

    def can_buy_train(self, corp: Corporation) -> bool:
        state = self.state
        if self._trade_in_options(corp):
            return True
        if len(corp.trains) >= trains.train_limit(self.rules, state, corp):
            return False
        cheapest = self.rules.cheapest_train(state)
        t = self.current
        assert t is not None
        if cheapest is not None and self.rules.may_buy_another_bank_train(
                state, t.bank_trains_bought):
            if corp.cash >= cheapest[1]:
                return True
            # A forced purchase (4.2.5.2), which 1861 10.10 makes with loans, route or
            # none, when the loans can pay for it (else the company is nationalised).
            if not corp.trains and self.must_buy(corp) and (
                    self.rules.must_buy_train(state, corp) is None
                    or self.rules.train_budget(state, corp) >= cheapest[1]):
                return True
        return corp.cash >= 1 and any(
            other.sym != corp.sym and any(not t.obsolete for t in other.trains)
            for other in state.corporations.values()
        )

    def _buy_train(self, corp: Corporation, action: BuyTrain) -> None:
        t = self.current
        assert t is not None
        state = self.state
        why = self.rules.why_not_buy_train(state, corp, action.source, action.train,
                                           action.price)
        if why:
            raise GameError(why, tuple(self.legal()))
        limit = trains.train_limit(self.rules, state, corp)
        # (A train traded in leaves before the new one comes: the count stays.)
        require(len(corp.trains) - (action.trade_in is not None) < limit,
                f"{corp.sym} owns {len(corp.trains)} trains, the limit in this phase")
        if action.source == "bank":
            self._buy_from_offering(corp, action)
        elif action.source == POOL:
            self._buy_from_pool(corp, action)
        else:
            self._buy_from_company(corp, action)
        self.discards = [c.sym for c in trains.over_limit(self.rules, state)]

    def _buy_from_offering(self, corp: Corporation, action: BuyTrain) -> None:
        t = self.current
        assert t is not None
        state = self.state
        offer = trains.next_offered(state)
        require(offer is not None, f"the {self.rules.word('offering')} has no trains left")
        assert offer is not None
        # Besides the next train, a title may offer others (1861 10.10: in phase 8 the
        # 5+5E and 2+2 trains too).
        choice = next((tr for tr in self.rules.offered_trains(state) if tr.name == action.train),
                      None)
        require(choice is not None,
                f"the next train of the {self.rules.word('offering')} is a {offer.name}-train",
                (f"buy train {offer.name}",))
        assert choice is not None
        offer = choice
        price = state.title.train(offer.name).price
        require(action.price in (None, price),
                f"a {offer.name}-train from the bank costs {money(state, price)}")
        self._check_bank_limit(corp)
        if action.trade_in is not None:
            # 1850 16.2: a train traded in lowers the price; the company pays the rest.
            price -= self.rules.trade_in(state, corp, offer.name, action.trade_in)
        self.rules.afford(state, corp, price, "train")
        self._pay_for_train(corp, price, offer.name)
        trains.take_from_offering(self.rules, state, corp, price, offer)
        t.bank_trains_bought += 1

    def _check_bank_limit(self, corp: Corporation) -> None:
        """18TN 4.2.5(f): one train from the bank (either display) per turn, at first."""
        t = self.current
        assert t is not None
        require(self.rules.may_buy_another_bank_train(self.state, t.bank_trains_bought),
                self.rules.cite("bank_train_limit", corp=corp.sym))

    def _buy_from_pool(self, corp: Corporation, action: BuyTrain) -> None:
        state = self.state
        match = [tr for tr in state.trains_pool if tr.name == action.train]
        require(bool(match), f"the {self.rules.word('market')} has no {action.train}-train",
                tuple(f"buy train {tr.name} from pool" for tr in state.trains_pool))
        train = match[0]
        price = state.title.train(train.name).price
        require(action.price in (None, price),
                f"a {train.name}-train from the {self.rules.word('market')} costs "
                f"{money(state, price)}")
        if self.rules.pool_trains_count_as_new:
            self._check_bank_limit(corp)
        self.rules.afford(state, corp, price, "train")
        self._pay_for_train(corp, price, train.name)
        state.trains_pool.remove(train)
        state.transfer_cash(corp.sym, BANK, price)
        corp.trains.append(train)
        state.say(f"{corp.sym} buys a {train.name}-train from the {self.rules.word('market')} for "
                  f"{money(state, price)}")
        assert self.current is not None
        if self.rules.pool_trains_count_as_new:
            self.current.bank_trains_bought += 1

    def _buy_from_company(self, corp: Corporation, action: BuyTrain) -> None:
        state = self.state
        require(action.source in state.corporations, f"there is no company {action.source}")
        seller = state.corporation(action.source)
        require(seller.sym != corp.sym, f"{corp.sym} cannot buy its own train")
        match = [tr for tr in seller.trains if tr.name == action.train]
        require(bool(match), f"{seller.sym} owns no {action.train}-train")
        train = next((tr for tr in match if not tr.obsolete), None)
        require(train is not None, self.rules.cite("obsolete_train"))
        assert train is not None
        require(action.price is not None and action.price >= 1,
                f"name the price: buy train {action.train} from {seller.sym} for N "
                f"(at least {money(state, 1)})")
        assert action.price is not None
        require(corp.cash >= action.price,
                f"{corp.sym} has {money(state, corp.cash)}; the price is "
                f"{money(state, action.price)}")
        require(self.current is not None and not self.current.emergency,
                self.rules.cite("contribution", president=corp.president, corp=corp.sym))
        why = self.rules.why_not_train_price(state, corp, seller, train, action.price)
        if why:
            raise GameError(why)
        if seller.president != corp.president and not self.rules.train_sale_agreed(
                state, corp, seller, train.name, action.price):
            # The other company's president must agree to the sale.
            self.offer = TrainOffer(corp.sym, seller.sym, train.id, action.price,
                                    seller.president or "")
            state.say(f"{corp.sym} offers {money(state, action.price)} for {seller.sym}'s "
                      f"{train.name}-train; {seller.president} may accept or decline")
            return
        self._transfer_train(corp, seller, train, action.price)

    def _transfer_train(self, corp: Corporation, seller: Corporation, train: Train,
                        price: int) -> None:
        state = self.state
        seller.trains.remove(train)
        corp.trains.append(train)
        state.transfer_cash(corp.sym, seller.sym, price)
        state.say(f"{corp.sym} buys a {train.name}-train from {seller.sym} for "
                  f"{money(state, price)}")

    def _answer_offer(self, seat: str, action: Action) -> None:
        offer = self.offer
        assert offer is not None
        require(seat == offer.responder,
                f"{offer.responder} must first answer {offer.buyer}'s offer for a train of "
                f"{offer.seller}", ("accept", "decline"))
        self.offer = None
        buyer = self.state.corporation(offer.buyer)
        seller = self.state.corporation(offer.seller)
        if isinstance(action, Accept):
            train = next(t for t in seller.trains if t.id == offer.train)
            self._transfer_train(buyer, seller, train, offer.price)
            self.discards = [c.sym for c in trains.over_limit(self.rules, self.state)]
        elif isinstance(action, Decline):
            self.state.say(f"{seat} declines to sell {seller.sym}'s train")
        else:
            self.offer = offer
            raise GameError(f"{seat} must answer the offer for {seller.sym}'s train: accept "
                            "or decline", ("accept", "decline"))
        self._finish_if_nothing_left()

    def _discard(self, seat: str, action: Action) -> None:
        corp = self.state.corporation(self.discards[0])
        director = self.rules.director_of(self.state, corp)
        require(seat == director, f"{director} must first discard a train of {corp.sym}")
        if not isinstance(action, DiscardTrain):
            raise GameError(f"{corp.sym} is over its train limit and must discard a train",
                            tuple(self.legal()))
        assert isinstance(action, DiscardTrain)
        match = [t for t in corp.trains if t.name == action.train]
        require(bool(match), f"{corp.sym} owns no {action.train}-train")
        corp.trains.remove(match[0])
        self.state.trains_pool.append(match[0])
        self.state.say(f"{corp.sym} discards a {action.train}-train to the "
                       f"{self.rules.word('market')}")
        self.discards = [c.sym for c in trains.over_limit(self.rules, self.state)]

    def _leave_train_step(self, corp: Corporation, declare: bool = True) -> None:
        """4.2.5.2: a company with a route but no train may not leave the train step
        without buying one; a president who cannot get one is bankrupt (`declare`:
        the action may say so, `done` or `pass`; any other action is refused)."""
        if not self.must_buy(corp):
            return
        if self._train_within_reach(corp):
            raise GameError(self.rules.cite("forced_train", corp=corp.sym),
                            tuple(self._train_options(corp, True)
                                  + self._forced_sale_options(corp)))
        president = corp.president or ""
        if not declare:
            raise GameError(self.rules.cite("forced_train_bankrupt", corp=corp.sym,
                                            president=president), ("done",))
        self._sell_everything(president, corp)
        self.rules.bankruptcy(self.state, president, corp)
