"""The operating round (18TN 4): privates pay, then each floated corporation operates.

A corporation's turn is a sequence of steps (4.2): track, station token, run trains,
dividend, train purchase. Each step is optional unless the rules make it required;
doing a later step passes the earlier ones. Buying a private from a player may happen
at any time of the turn (4.2(h)). When a phase change leaves companies over their
train limit, their presidents discard before play goes on (4.2.5(g)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import board, loans, optimizer, routes, trains
from engine.actions import (
    Accept,
    Action,
    BuyPrivate,
    BuyTrain,
    Decline,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    LeaseTrain,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    RedeemShares,
    RepayLoan,
    RunRoutes,
    SellShares,
    TakeLoan,
    UsePrivate,
)
from engine.errors import GameError, require
from engine.rounds import protection
from engine.rounds.base import Round, Turn, not_here
from engine.shares import check_sale, money, move_token, sell_shares
from engine.state import BANK, IPO, POOL, TREASURY, Corporation, GameState, Train

if TYPE_CHECKING:
    from engine.rules import Rules

# The 1830 family's steps; a title may add its own after "train" (Rules.operating_steps).
STEPS = ("track", "token", "route", "dividend", "train", "privates")
STEP_OF: dict[type[Action], str] = {
    LayTile: "track",
    UsePrivate: "track",
    PlaceToken: "token",
    PlaceEdgeToken: "token",
    PayMesabi: "track",
    RunRoutes: "route",
    LeaseTrain: "route",  # 1825 6.4.3: a receiver leases before running
    Dividend: "dividend",
    BuyTrain: "train",
    IssueShares: "issue",
    RedeemShares: "issue",
}


@dataclass(frozen=True)
class TrainOffer:
    """A company's offer for another company's train, waiting for that president."""

    buyer: str
    seller: str
    train: str  # the train's id
    price: int
    responder: str


@dataclass
class CompanyTurn:
    """What the operating corporation has done so far this turn."""

    corporation: str
    step: int = 0
    yellow_lays: int = 0
    upgrades: int = 0
    lay_hexes: tuple[str, ...] = ()  # hexes laid on this turn, in order
    token_placed: bool = False
    revenue: int | None = None  # set once trains have run
    run: routes.Run | None = None
    dividend_done: bool = False
    bank_trains_bought: int = 0
    emergency: bool = False  # the president is raising cash for a forced purchase
    # Prices when the forced purchase began: 1851 pays every forced sale at these.
    emergency_prices: dict[str, int] = field(default_factory=dict)
    # Companies whose shares the president sold for it (1850 5.3.3: one block each).
    emergency_sold: tuple[str, ...] = ()


class OperatingRound(Round):
    def __init__(self, state: GameState, rules: Rules, number: int) -> None:
        super().__init__(state)
        self.rules = rules
        self.number = number
        state.operating_round_number = number
        self.done: set[str] = set()
        self.current: CompanyTurn | None = None
        self.discards: list[str] = []  # corporations that must discard, in order
        self.private_purchases: list[tuple[str, str]] = []  # (company, selling player)
        self.steps: tuple[str, ...] = rules.operating_steps
        self.offer: TrainOffer | None = None
        # What a title's own steps noted this round, by company (1851: issued or redeemed).
        self.title_notes: dict[str, str] = {}
        # 1850 5.9: presidents answer a finished turn's forced sales before the next
        # company operates.
        self.protecting = False
        state.say(f"Operating Round {self.label} begins")
        rules.pay_privates(state)
        rules.start_of_operating_round(state, self)
        self._next_company()

    @property
    def label(self) -> str:
        return f"{self.state.stock_round_number}.{self.number}"

    @property
    def name(self) -> str:
        return f"Operating Round {self.label}"

    # --- sequencing --------------------------------------------------------------------
    def over(self) -> bool:
        # (A decision the last turn left, 1861 11's at a phase its RSR's purchase began,
        # is asked before the next round.)
        return self.current is None and not self.discards and not self.protecting \
            and self.rules.pending_decision(self.state) is None

    def _next_company(self) -> None:
        sym = self.rules.operating_order(self.state, self.done)
        if sym is None:
            self.current = None
            self.rules.end_of_operating_round(self.state, self)
            return
        corp = self.state.corporation(sym)
        self.current = CompanyTurn(sym)
        self.state.say(f"{sym} operates ({corp.president or 'no director'})")
        self.rules.start_of_company_turn(self.state, corp, self)
        idle = self.rules.idle_turn(self.state, corp)
        if idle is not None:
            # Nothing to decide: the turn's nil income settles at once.
            self.state.say(idle)
            self.current.revenue = 0
            self._settle_dividend(corp, self.rules.automatic_dividend(self.state, corp)
                                  or "withhold")
            if self.current is not None and self.current.corporation == sym:
                self._finish_company()

    def _finish_company(self) -> None:
        turn = self.current
        assert turn is not None
        corp = self.state.corporation(turn.corporation)
        corp.operated = True
        self.done.add(corp.sym)
        self.rules.end_of_company_turn(self.state, corp, self)
        # Any title: a train bought at a turn's end (1861 10.10: the RSR's) may start a
        # phase that lowers other companies' train limits; their excess goes at once.
        self.discards = [c.sym for c in trains.over_limit(self.rules, self.state)]
        if self.state.pending_sales:
            self.current = None
            self.protecting = True
            self._settle_protection()
            return
        self._next_company()

    def _settle_protection(self) -> None:
        protection.settle_impossible(self.rules, self.state)
        if not self.state.pending_sales:
            self.protecting = False
            self._next_company()

    def _protection_action(self, seat: str, action: Action) -> None:
        protection.answer(self.rules, self.state, seat, action)
        self._settle_protection()

    def company(self) -> Corporation:
        assert self.current is not None
        return self.state.corporation(self.current.corporation)

    def turn(self) -> Turn | None:
        pending = self.rules.pending_decision(self.state)
        if pending is not None:
            return pending
        if self.offer is not None:
            return Turn(self.offer.responder, self.offer.seller,
                        f"answer {self.offer.buyer}'s offer for a train")
        if self.discards:
            corp = self.state.corporation(self.discards[0])
            return Turn(self.rules.director_of(self.state, corp), corp.sym, "discard a train")
        if self.protecting:
            sale = self.state.pending_sales[0]
            president = protection.protector(self.state, sale)
            return Turn(president, president,
                        f"protect {sale.corporation}'s price or let {sale.seller}'s sale "
                        "stand")
        if self.current is None:
            return None
        corp = self.company()
        step = self.steps[self.current.step] if self.current.step < len(self.steps) else "done"
        return Turn(corp.president or "", corp.sym, step)

    # --- legal actions -----------------------------------------------------------------
    def legal(self) -> list[str]:
        """What the acting player may do now, as order texts: each is accepted by
        `process` (a text with a placeholder, by some action of its kind; "lay" and
        "token" say only that the step is open)."""
        if self.rules.pending_decision(self.state) is not None:
            return self.rules.decision_options(self.state)
        if self.offer is not None:
            return ["accept", "decline"]
        if self.discards:
            corp = self.state.corporation(self.discards[0])
            return [f"discard train {t.name}" for t in corp.trains]
        if self.protecting:
            return protection.options(self.state, self.state.pending_sales[0])
        if self.current is None:
            return []
        corp = self.company()
        t = self.current
        state = self.state
        out: list[str] = []
        step = t.step
        train = self.steps.index("train")
        if step <= 0 and self.lays_left(corp):
            out.append("lay TILE at HEX rot N")
        if step <= 0:
            out += [f"use {p.sym} lay TILE at HEX rot N (its free tile lay)"
                    for p in state.privates.values()
                    if p.owner == corp.sym and not p.closed and not p.ability_used
                    and p.spec.tiles
                    and any(h not in state.board.tiles for h in p.spec.hexes)]
        if step <= 0:
            out += self.rules.step_extras(state, corp, "track", self)
        if step <= 1 and not t.token_placed and corp.token_costs and \
                self.rules.why_not_place_token(state, corp) is None:
            out.append(f"token HEX ({self.rules.token_price_text(state, corp)})")
        if step <= 1 and not t.token_placed:
            out += self.rules.step_extras(state, corp, "token", self)
        if step <= 2 and t.revenue is None:
            out += self.rules.route_step_extras(state, corp)
        if step <= 2 and corp.trains and t.revenue is None:
            out.append("run auto | run TRAIN: HEX HEX ...")
        if t.revenue is not None and not t.dividend_done:
            out += self.rules.dividend_choices(state, corp, t.revenue)
        forced = self.must_buy(corp)
        reach = not forced or self._train_within_reach(corp)
        # A company whose withholding closes it (1850's black area) never reaches its
        # train step.
        closes = not t.dividend_done and not t.revenue and \
            self.rules.closes_on_withholding(state, corp)
        if step <= train and self._may_pass_to(corp, train) and not closes:
            if self.can_buy_train(corp):
                out += self._train_options(corp, forced)
            if forced:
                out += self._forced_sale_options(corp)
        if not forced:
            for extra in self.steps[train + 1:]:
                index = self.steps.index(extra)
                if (extra not in STEPS and self._may_pass_to(corp, index)
                        and self.step_available(corp, extra)):
                    out += self.rules.step_options(state, corp, extra, self)
        out += self.rules.turn_extras(state, corp, self)
        out += self._private_options(corp)
        if step < train and self._may_pass_to(corp, step + 1):
            out.append(f"pass (skips the {self.steps[step]} step)")
        if (not forced or closes) and (step >= train or self._may_pass_to(corp, train)):
            out.append("done")
        elif forced and not reach:
            out.append(f"done ({corp.president} cannot raise the money for a train and "
                       "is bankrupt)")
        return out

    def _may_pass_to(self, corp: Corporation, index: int) -> bool:
        """Whether the turn may move on to step `index` now (see `_check_skippable`)."""
        t = self.current
        assert t is not None
        if index < t.step:
            return False
        for skipped in self.steps[t.step:index]:
            if skipped == "route" and t.revenue is None and corp.trains and \
                    routes.has_route(self.rules, self.state, corp):
                return False
            if skipped == "route" and t.revenue is None and \
                    self.rules.why_not_run(self.state, corp):
                return False
            if skipped == "dividend" and not t.dividend_done and t.revenue:
                return False
        return True

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

    def _paid_how(self, corp: Corporation, price: int, purse: int) -> str:
        """How a train the treasury alone cannot pay for is paid: with loans (1861
        10.2), or with the president's money (4.2.5.2(c))."""
        state = self.state
        short = price - corp.cash
        if short <= 0:
            return ""
        if purse >= price:
            value, _ = self.rules.loan_terms(state)
            count = loans.needed_for(self.rules, state, corp, price)
            return (f": {corp.sym}'s {money(state, corp.cash)} and {count} "
                    f"loan{'s' if count > 1 else ''} of {money(state, value)}")
        return (f": {corp.sym}'s {money(state, corp.cash)} and {money(state, short)} from "
                f"its president {corp.president}")

    def _private_options(self, corp: Corporation) -> list[str]:
        """Privates the company may buy from players now (18TN 4.2.6)."""
        state = self.state
        out: list[str] = []
        for private in state.privates.values():
            if private.closed or private.owner not in state.players:
                continue
            value = private.spec.value
            prices = [p for p in sorted({1, (value + 1) // 2, value, value * 3 // 2})
                      if p <= corp.cash and self.rules.why_not_buy_private(
                          state, corp, private, p, self) is None]
            if prices:
                span = money(state, prices[0]) if len(prices) == 1 else \
                    f"{money(state, prices[0])} to {money(state, prices[-1])}"
                out.append(f"buy private {private.sym} from {private.owner} for N ({span})")
        return out

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

    def lays_left(self, corp: Corporation) -> bool:
        t = self.current
        assert t is not None
        return any(self.rules.why_not_lay_count(self.state, corp, kind, "", t.yellow_lays,
                                                t.upgrades, t.lay_hexes) is None
                   for kind in ("yellow", "upgrade"))

    # --- processing --------------------------------------------------------------------
    def process(self, seat: str, action: Action) -> None:
        pending = self.rules.pending_decision(self.state)
        if pending is not None:
            if seat != pending.seat:  # (the alternatives only on a refusal: they cost)
                raise GameError(f"{pending.seat} must first decide: {pending.step}",
                                tuple(self.legal()))
            acting = self.company() if self.current is not None else None
            self.rules.decide(self.state, seat, action, self)
            if acting is not None and not acting.floated and acting.spec.kind != "national":
                # The company operating is gone (nationalised); the RSR never floats
                # (1861 7.4) and its turn goes on after the Directors' choices (11).
                self.done.add(acting.sym)
                self._next_company()
            return
        if self.offer is not None:
            self._answer_offer(seat, action)
            return
        if self.discards:
            self._discard(seat, action)
            return
        if self.protecting:
            self._protection_action(seat, action)
            return
        require(self.current is not None, "the operating round is over")
        corp = self.company()
        require(seat == corp.president,
                f"{corp.sym} is operating; its president {corp.president} gives its orders")
        company = getattr(action, "company", None)
        require(company in (None, corp.sym),
                f"{company} is not the company operating now; {corp.sym} is")
        if self.rules.company_action(self.state, corp, seat, action, self):
            return
        if self.rules.hold_for_vote(self.state, corp, seat, action, self):
            return
        if isinstance(action, BuyPrivate):
            self._buy_private(corp, action)
            return
        if isinstance(action, SellShares):
            self._emergency_sale(seat, corp, action)
            return
        if isinstance(action, Done):
            self._done(corp)
            return
        if isinstance(action, Pass):
            self._pass_step(corp)
            return
        if isinstance(action, DiscardTrain):
            raise GameError(f"{corp.sym} is not over its train limit")
        if isinstance(action, TakeLoan | RepayLoan):
            raise GameError(self.rules.loan_answer(self.state, corp, action),
                            tuple(self.legal()))
        if isinstance(action, RedeemShares) and self.rules.redeems_at_turn_start:
            t = self.current
            assert t is not None
            if t.step != 0 or t.lay_hexes:
                raise GameError(f"{corp.sym} redeems shares first in its turn, before it "
                                "lays track", tuple(self.legal()))
            self.rules.redeem_in_turn(self.state, corp, action.count)
            return
        step = STEP_OF.get(type(action))
        if step is None or step not in self.steps:
            raise not_here(action, self.name, self.state.title.name, self.legal())
        self._enter_step(corp, self.steps.index(step))
        if self.current is None or self.current.corporation != corp.sym:
            # (`legal` only on a refusal: it traces routes, and this runs every action)
            raise GameError(self.rules.cite("nationalised_for_interest", corp=corp.sym,
                                            step=step), tuple(self.legal()))
        if step not in STEPS:
            self.rules.step_action(self.state, corp, step, action, self)
            self._finish_if_nothing_left()
            return
        if isinstance(action, LayTile | UsePrivate):
            self._lay(corp, action)
        elif isinstance(action, PayMesabi):
            self._pay_mesabi(corp)
        elif isinstance(action, PlaceToken | PlaceEdgeToken):
            self._token(corp, action)
        elif isinstance(action, RunRoutes):
            self._run(corp, action)
        elif isinstance(action, LeaseTrain):
            self.rules.lease_train(self.state, corp, self.current is not None
                                   and self.current.revenue is not None)
        elif isinstance(action, Dividend):
            self._dividend(corp, action)
        elif isinstance(action, BuyTrain):
            self._buy_train(corp, action)
        self._finish_if_nothing_left()

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

    def _enter_step(self, corp: Corporation, index: int) -> None:
        """Move forward to step `index`, refusing to skip a required step."""
        t = self.current
        assert t is not None
        if index < t.step:  # the alternatives only when refused: `legal` traces routes
            raise GameError(f"{corp.sym} has passed the {self.steps[index]} step this turn",
                            tuple(self.legal()))
        for skipped in range(t.step, index):
            self._check_skippable(corp, self.steps[skipped])
            if self.current is not t:
                return  # 1861 10.8: nationalised; the next company's turn has begun
        train = self.steps.index("train")
        if t.step <= train < index:
            self._leave_train_step(corp, declare=False)
        if index > t.step:
            t.step = index

    def _check_skippable(self, corp: Corporation, step: str) -> None:
        """Pass `step`, or refuse when the rules require it (4.2(d), (e))."""
        t = self.current
        assert t is not None
        if step == "route" and t.revenue is None:
            why = self.rules.why_not_run(self.state, corp)
            if why:
                raise GameError(why, tuple(self.legal()))
            if corp.trains and routes.has_route(self.rules, self.state, corp):
                raise GameError(f"{corp.sym} must run its trains first (`run auto`)",
                                ("run auto",))
            t.revenue = 0  # no train runs: the company earns nothing
            t.run = None
            self.state.say(f"{corp.sym} does not run")
        if step == "dividend" and not t.dividend_done:
            if t.revenue:
                raise GameError(f"{corp.sym} must first pay or withhold its "
                                f"{money(self.state, t.revenue)}", ("pay", "withhold"))
            # 4.2.4: no run moves left (1861 10.7: a minor's nil earnings, too).
            self._settle_dividend(corp, self.rules.automatic_dividend(self.state, corp)
                                  or "withhold")

    # --- track and tokens --------------------------------------------------------------
    def _lay(self, corp: Corporation, action: LayTile | UsePrivate) -> None:
        t = self.current
        assert t is not None
        if isinstance(action, UsePrivate):
            self.rules.use_private(self.state, corp, action, self)
            return
        kind = board.lay_kind(self.rules, self.state, action.hex, action.tile)
        kind = self.rules.tile_lay_kind(self.state, action.hex, kind)
        why = self.rules.why_not_lay_count(self.state, corp, kind, action.hex, t.yellow_lays,
                                           t.upgrades, t.lay_hexes) \
            or self.rules.why_not_lay_in_turn(self.state, corp, action.hex, kind, t.lay_hexes)
        if why:
            raise GameError(why)
        fee = self.rules.lay_fee(self.state, corp, len(t.lay_hexes))
        tile = self.state.title.tiles.get(action.tile)
        extra = self.rules.upgrade_cost(self.state, action.hex, tile) if tile else 0
        cost = fee + extra + board.terrain_cost(self.rules, self.state, action.hex)
        self.rules.afford(self.state, corp, cost, "track")
        # The fee and the terrain together: loans (1861 10.2) may cover one but not both.
        require(corp.cash >= cost or not fee, f"{corp.sym} has "
                f"{money(self.state, corp.cash)}; this lay costs {money(self.state, cost)} "
                f"({money(self.state, fee)} of it for the extra lay)")
        board.lay_tile(self.rules, self.state, corp, action.hex, action.tile, action.rotation)
        self.rules.after_lay(self.state, corp, action.hex, action.tile)
        if fee:
            self.state.transfer_cash(corp.sym, BANK, fee)
            self.state.say(f"{corp.sym} pays {money(self.state, fee)} for its extra tile lay")
        t.lay_hexes += (action.hex,)
        if kind == "yellow":
            t.yellow_lays += 1
        else:
            t.upgrades += 1

    def _pay_mesabi(self, corp: Corporation) -> None:
        """1850 6.5.1: buying the Mesabi Range rights counts as a yellow tile lay."""
        t = self.current
        assert t is not None
        yellow, _ = self.rules.tile_lays(self.state, corp)
        require(t.upgrades == 0 and t.yellow_lays < yellow,
                f"{corp.sym} has used its tile lays; the Mesabi rights take a yellow lay")
        self.rules.pay_mesabi(self.state, corp)
        t.yellow_lays += 1

    def _token(self, corp: Corporation, action: PlaceToken | PlaceEdgeToken) -> None:
        t = self.current
        assert t is not None
        require(not t.token_placed, f"{corp.sym} has placed its station token this turn")
        why = self.rules.why_not_place_token(self.state, corp)
        if why:
            raise GameError(why, tuple(self.legal()))
        if isinstance(action, PlaceEdgeToken):
            self.rules.place_edge_token(self.state, corp, action.hex)
        else:
            board.place_token(self.rules, self.state, corp, action.hex, action.city)
        t.token_placed = True
        t.step = max(t.step, self.steps.index("token") + 1)

    # --- running and dividends ---------------------------------------------------------
    def _run(self, corp: Corporation, action: RunRoutes) -> None:
        t = self.current
        assert t is not None
        require(t.revenue is None, f"{corp.sym} has already run its trains")
        why = self.rules.why_not_run(self.state, corp)
        if why:
            raise GameError(why, tuple(self.legal()))
        run = optimizer.run_for(self.rules, self.state, corp, action)
        t.run = run
        t.revenue = run.revenue
        t.step = self.steps.index("dividend")
        self.state.say(f"{corp.sym} runs for {money(self.state, run.revenue)}: {run.describe()}")
        auto = self.rules.automatic_dividend(self.state, corp)
        if run.revenue == 0 or auto is not None:
            self._settle_dividend(corp, auto or "withhold")

    def _dividend(self, corp: Corporation, action: Dividend) -> None:
        t = self.current
        assert t is not None
        require(t.revenue is not None, f"{corp.sym} must run its trains first",
                ("run auto", "run none"))
        require(not t.dividend_done, f"{corp.sym} has settled its revenue this turn")
        require(action.choice != "half" or self.rules.half_dividends,
                "this title has no half dividends")
        self._settle_dividend(corp, action.choice)

    def _settle_dividend(self, corp: Corporation, choice: str) -> None:
        t = self.current
        assert t is not None
        revenue = t.revenue or 0
        self.rules.pay_dividend(self.state, corp, revenue, choice, self)
        t.dividend_done = True
        self.rules.after_dividend(self.state, corp, self)
        if corp.president is None and self.rules.loan_terms(self.state)[0]:
            # 1861 10.8: nationalised for the loan interest it could not pay
            self.done.add(corp.sym)
            self._next_company()
            return
        t.step = self.steps.index("train")
        trains.remove_obsolete(self.state, corp)

    # --- trains ------------------------------------------------------------------------
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
        require(offer is not None, "the Initial Offering has no trains left")
        assert offer is not None
        # Besides the next train, a title may offer others (1861 10.10: in phase 8 the
        # 5+5E and 2+2 trains too).
        choice = next((tr for tr in self.rules.offered_trains(state) if tr.name == action.train),
                      None)
        require(choice is not None,
                f"the next train of the Initial Offering is a {offer.name}-train",
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
        require(bool(match), f"the Open Market has no {action.train}-train",
                tuple(f"buy train {tr.name} from pool" for tr in state.trains_pool))
        train = match[0]
        price = state.title.train(train.name).price
        require(action.price in (None, price),
                f"a {train.name}-train from the Open Market costs {money(state, price)}")
        if self.rules.pool_trains_count_as_new:
            self._check_bank_limit(corp)
        self.rules.afford(state, corp, price, "train")
        self._pay_for_train(corp, price, train.name)
        state.trains_pool.remove(train)
        state.transfer_cash(corp.sym, BANK, price)
        corp.trains.append(train)
        state.say(f"{corp.sym} buys a {train.name}-train from the Open Market for "
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
                    f"{seat} may not sell so much {corp.sym} that its presidency changes")
        # The sales stop as soon as the money is there: no share beyond the last one
        # needed, counted at the price the sale pays (1851: the price at the start),
        # unless the smaller sale is not allowed (1850 10.7.2: down to 60%).
        unit = self._sale_prices()[target.sym]
        least = self.rules.least_sale_percent(state, seat, target)
        require(unit * (percent - 10) // 10 < need or percent - 10 < least,
                self.rules.cite("forced_sale", seat=seat, need=money(state, need)))
        self._sell_for_train(seat, target, percent)
        t.emergency_sold = (*t.emergency_sold, target.sym)
        # A sale is the president's contribution to the cheapest train: the company
        # may no longer buy one from another company (18TN 4.2.5.2(a)).
        if self.rules.sale_is_contribution:
            t.emergency = True

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
        self.state.say(f"{corp.sym} discards a {action.train}-train to the Open Market")
        self.discards = [c.sym for c in trains.over_limit(self.rules, self.state)]

    # --- privates ------------------------------------------------------------------------
    def _buy_private(self, corp: Corporation, action: BuyPrivate) -> None:
        state = self.state
        require(action.private in state.privates, f"there is no private {action.private}")
        private = state.privates[action.private]
        require(not private.closed, f"{private.sym} is closed")
        require(private.owner in state.players,
                f"{private.sym} is not owned by a player")
        owner = private.owner or ""
        require(action.seller in (None, owner), f"{private.sym} belongs to {owner}")
        price = action.price if action.price is not None else private.spec.value
        why = self.rules.why_not_buy_private(state, corp, private, price, self)
        if why:
            raise GameError(why)
        require(corp.cash >= price,
                f"{corp.sym} has {money(state, corp.cash)}; the price is {money(state, price)}")
        state.transfer_cash(corp.sym, owner, price)
        private.owner = corp.sym
        self.private_purchases.append((corp.sym, owner))
        state.say(f"{corp.sym} buys {private.sym} from {owner} for {money(state, price)}")
        self.rules.after_private_sold(state, private, corp.sym)

    # --- ending the turn -----------------------------------------------------------------
    def _pass_step(self, corp: Corporation) -> None:
        """`pass` skips the current step; past the train step it moves to the next step
        that has something to offer, or ends the turn."""
        t = self.current
        assert t is not None
        train = self.steps.index("train")
        if t.step < train:
            self._enter_step(corp, t.step + 1)
            return
        later = [i for i in range(t.step + 1, len(self.steps))
                 if self.step_available(corp, self.steps[i])]
        if later:
            if t.step == train:
                self._leave_train_step(corp)
                if self.state.game_over:
                    return
            t.step = later[0]
            return
        self._done(corp)

    def step_available(self, corp: Corporation, step: str) -> bool:
        """Whether an end-of-turn step has anything to offer (else it is passed)."""
        if step == "privates":
            return self._may_buy_a_private(corp) and \
                self.rules.offer_privates_at_end_of_turn(self.state, corp)
        return self.rules.step_available(self.state, corp, step, self)

    def _may_buy_a_private(self, corp: Corporation) -> bool:
        state = self.state
        for private in state.privates.values():
            if private.closed or private.owner not in state.players:
                continue
            value = private.spec.value
            if corp.cash >= (value + 1) // 2 and self.rules.why_not_buy_private(
                    state, corp, private, value, self) is None:
                return True
        return False

    def _done(self, corp: Corporation) -> None:
        t = self.current
        assert t is not None
        for step in range(t.step, self.steps.index("train")):
            self._check_skippable(corp, self.steps[step])
            if self.current is not t:
                return  # 1861 10.8: nationalised; the next company's turn has begun
        if t.step <= self.steps.index("train"):
            self._leave_train_step(corp)
        if self.current is not None and not self.state.game_over:
            self._finish_company()

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


def pay_out(state: GameState, corp: Corporation, revenue: int,
            pool_pays_company: bool = True, ipo_pays_company: bool = False) -> None:
    """4.2.4(a): each 10% share earns a tenth of `revenue`. Shares in the treasury pay the
    company; shares in the pool pay the company (18TN) or nobody (1851, 1850); shares in
    the Initial Offering pay the company in 1850, else nobody."""
    for seat in state.seats:
        pct = corp.percent_held_by(seat)
        if pct:
            state.transfer_cash(BANK, seat, revenue * pct // 100)
    to_company = corp.percent_held_by(TREASURY)
    if ipo_pays_company:  # 1850 9.1.1
        to_company += corp.percent_held_by(IPO)
    if pool_pays_company:
        to_company += corp.pool_percent
    if to_company:
        state.transfer_cash(BANK, corp.sym, revenue * to_company // 100)
    state.say(f"{corp.sym} pays {money(state, revenue // 10)} per share")


def withhold(state: GameState, corp: Corporation, revenue: int) -> None:
    if revenue:
        state.transfer_cash(BANK, corp.sym, revenue)
        state.say(f"{corp.sym} withholds {money(state, revenue)}")


__all__ = ["OperatingRound", "move_token", "pay_out", "withhold"]
