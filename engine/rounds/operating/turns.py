"""The operating round's sequence (18TN 4): the companies in order, each one's turn through
its steps (4.2), and the protection of a finished turn's forced sales (1850 5.9)."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import routes, trains
from engine.actions import (
    Action,
    BuyTrain,
    Dividend,
    IssueShares,
    LayTile,
    LeaseTrain,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    RedeemShares,
    RunRoutes,
    UsePrivate,
)
from engine.errors import GameError
from engine.rounds import protection
from engine.rounds.base import Round
from engine.state import Corporation, GameState, money
from engine.walks import Run

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
    run: Run | None = None
    dividend_done: bool = False
    bank_trains_bought: int = 0
    emergency: bool = False  # the president is raising cash for a forced purchase
    # Prices when the forced purchase began: 1851 pays every forced sale at these.
    emergency_prices: dict[str, int] = field(default_factory=dict)
    # Companies whose shares the president sold for it (1850 5.3.3: one block each).
    emergency_sold: tuple[str, ...] = ()



class CompanyTurns(Round):
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

    def lays_left(self, corp: Corporation) -> bool:
        t = self.current
        assert t is not None
        return any(self.rules.why_not_lay_count(self.state, corp, kind, "", t.yellow_lays,
                                                t.upgrades, t.lay_hexes) is None
                   for kind in ("yellow", "upgrade"))

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

    # Defined by the steps that settle them (earnings, train_step), asked here.
    @abstractmethod
    def _settle_dividend(self, corp: Corporation, choice: str) -> None: ...

    @abstractmethod
    def _leave_train_step(self, corp: Corporation, declare: bool = True) -> None: ...
