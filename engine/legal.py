"""Every concrete action the acting player may take now.

`legal_actions(game)` lists candidate actions for the current turn (tile lays with
their rotations, token cities, purchases, bids, sales, ...) and keeps those the game
accepts when tried on a copy, so the list is exactly as strict as the rules. Reports
use the shorter `Game.legal()` texts; this list serves deadline defaults, tools and
tests that play games out.

Trying each candidate on its own copy is the definition, not the method: a copy costs
as much as a small action and most candidates are refused, so the rounds' own checks
that refuse on sight are asked first (`Judge`), tile lays are judged as `_Lays` says,
and only what is left is tried on a copy. The tests compare the list with trying every
candidate on a copy, at every position of record 7818 and of random and driven games
(tests/engine/test_legal_equivalence.py); `moderator bench legal` times it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine import board, routes, tiles, track, trains
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    LeaseTrain,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    RunRoutes,
    SellShares,
    StartAuction,
    UsePrivate,
)
from engine.errors import GameError
from engine.game import Game
from engine.geometry import opposite
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.merger import MergerRound
from engine.rounds.operating import STEP_OF, STEPS, OperatingRound
from engine.rounds.stock import StockRound
from engine.rules import Rules
from engine.shares import check_can_hold, next_certificate, price_per_share
from engine.state import IPO, POOL, TREASURY, Corporation, GameState
from engine.title import HexSpec, TileSpec


def legal_actions(game: Game) -> list[Action]:
    """The actions the acting player may take now (each one tried on a copy, but for
    the shortcuts `Judge` gives reasons for; tile lays as `_Lays` says; none of a step
    the company may no longer enter)."""
    turn = game.turn()
    if turn is None:
        return []
    judge = Judge(game, turn.seat)
    return [action for action in candidates(game) if judge.accepts(action)]


def legal_tile_lays(game: Game) -> list[LayTile]:
    """The tile lays among `legal_actions` (in their order), judged alone: a report
    for the player laying track lists them, and judging every other candidate too
    took more than half the time (issue 14)."""
    return list(_judged_tile_lays(game))


def _judged_tile_lays(game: Game) -> Iterator[LayTile]:
    """The legal tile lays, judged one at a time (`_any_tile_lay` stops at the first)."""
    turn = game.turn()
    if turn is None:
        return
    judge = Judge(game, turn.seat)  # answers each as a try on a copy: in any order
    yield from (action for action in candidates(game)
                if isinstance(action, LayTile) and judge.accepts(action))


def legal_token_places(game: Game) -> list[PlaceToken | PlaceEdgeToken]:
    """The station placements among `legal_actions` (a city of each hex where the
    company may place its next station, an 1850 edge token), judged alone: the reports
    list each with its price (issue 30)."""
    return list(_judged_token_places(game))


def _judged_token_places(game: Game) -> Iterator[PlaceToken | PlaceEdgeToken]:
    """The legal station placements, judged one at a time (`orders_listed` stops at
    the first: it asks only whether there is one)."""
    turn = game.turn()
    rnd = game.round
    if turn is None or not isinstance(rnd, OperatingRound) or rnd.current is None \
            or rnd.offer is not None or rnd.discards or rnd.protecting \
            or game.rules.pending_decision(game.state) is not None:
        return
    judge = Judge(game, turn.seat)
    yield from (action for action in _token_candidates(game, rnd)
                if judge.accepts(action))


#: The order forms `Game.legal` lists at a track and a token step whatever the map.
LAY_FORM = "lay TILE at HEX rot N"
TOKEN_FORM = "token HEX"


def orders_listed(game: Game) -> list[str]:
    """`Game.legal`'s order forms, less the tile lay and the station when none is
    legal now: the round lists them while the company has a lay or a station left,
    but a map without a legal lay (or a reachable city with room) would have the
    player spend a round trip on an order that must be refused."""
    lines = game.legal()
    if LAY_FORM in lines and not _any_tile_lay(game):
        lines.remove(LAY_FORM)
    token = next((line for line in lines if line.startswith(TOKEN_FORM + " (")), None)
    if token is not None and next(_judged_token_places(game), None) is None:
        lines.remove(token)
    return lines


def _any_tile_lay(game: Game) -> bool:
    """Whether `legal_tile_lays` would list one: stopped at the first."""
    return next(_judged_tile_lays(game), None) is not None


def _token_candidates(game: Game, rnd: OperatingRound
                      ) -> Iterator[PlaceToken | PlaceEdgeToken]:
    """The operating company's candidate station placements: its edge token, and each
    city its track reaches."""
    state = game.state
    corp = rnd.company()
    t = rnd.current
    assert t is not None
    if t.step > STEPS.index("token"):
        return
    if corp.spec.edge_token is not None:
        yield PlaceEdgeToken(corp.spec.edge_token.hex)
    nodes, _ = track.reachable(state, track.build_track(state), corp.sym)
    for node in sorted(nodes, key=str):
        if node.kind == "c":
            yield PlaceToken(node.hex, node.index)


class Judge:
    """Decides each candidate as trying it on a copy of the game would.

    A copy costs as much as a small action, and a position has dozens of candidates,
    most of them refused. So a candidate is tried on a copy only when no shortcut
    decides it; each shortcut answers only where the round's own checks make the
    answer certain (see `refused_on_sight` and `accepts`). The tests compare the result with
    trying every candidate on a copy, at every position of recorded and random games.
    """

    def __init__(self, game: Game, seat: str) -> None:
        self.game = game
        self.seat = seat
        self.lays: _Lays | None = None
        self.steps: dict[str, bool] = {}
        self.entered: dict[str, Judge | None] = {}  # by step: see `_entered_judge`
        self.tried: dict[Action, bool] = {}
        self.reasons: dict[tuple[str, str], str | None] = {}
        self.families: dict[tuple[str, str], bool] = {}
        self.pars: dict[str, bool] = {}
        # A decision asked first (1825: a minor's home city, a vote) is what the round
        # answers, whatever the step: no shortcut of the operating company's applies.
        self.pending = game.rules.pending_decision(game.state) is not None

    def accepts(self, action: Action) -> bool:
        game = self.game
        if isinstance(action, LayTile) and isinstance(game.round, OperatingRound):
            self.lays = self.lays or _Lays(game, self.seat)
            return self.lays.accepts(action)
        if self.pending:
            return self.attempt(action)
        step = _step_of(game, action)
        if step is not None:
            if step not in self.steps:
                self.steps[step], probe = _may_enter(game, step)
                self.entered[step] = None if probe is None else \
                    _entered_judge(game, probe, self.seat)
            if not self.steps[step]:
                return False
            entered = self.entered[step]
            if entered is not None and isinstance(action, BuyTrain):
                return entered.accepts(action)
        if refused_on_sight(game, action) or self.refused_in_stock_round(action):
            return False
        proposal = self.proposal(action)
        if proposal is None:
            proposal = self.auction_bid(action)
        if proposal is not None:
            return proposal
        if isinstance(action, PlaceToken) and getattr(action, "company", None) is None \
                and _token_decided(game, self.seat):
            # Judged by the round's checks of a station, which it makes before
            # anything changes; past them nothing refuses it (see `_token_decided`).
            rnd = game.round
            assert isinstance(rnd, OperatingRound) and rnd.current is not None
            corp = rnd.company()
            return not rnd.current.token_placed and \
                game.rules.why_not_place_token(game.state, corp) is None and \
                not board.token_refused(game.rules, game.state, corp, action.hex,
                                        action.city)
        # `run auto` is the best run found, declared. Declared routes a train can run
        # pass `check_run`, and so does running none; past `check_run`, a run earning
        # something goes on to the dividend step and nothing more can refuse it. So
        # where running none is accepted, `run auto` is too: the search for the best
        # run is spared (the tests try `run auto` itself on a copy).
        if isinstance(action, RunRoutes) and action.auto and self.attempt(
                RunRoutes(company=action.company)):
            return True
        family = self.family(action)
        if family is not None:
            # Past the checks that refused on sight, what the round still checks of a
            # sale, a share purchase, a par or a train bought from a company depends on
            # the company alone, not on the count, source or price (their own checks
            # are all among those), and a stock round handles `done` as `pass`: the
            # first of each family is tried on a copy and its answer stands for the
            # others, as one lay of each kind does for tile lays.
            if family not in self.families:
                self.families[family] = self.attempt(action)
            return self.families[family]
        return self.attempt(action)

    def family(self, action: Action) -> tuple[str, str] | None:
        """The family of a candidate that `refused_on_sight` and `refused_in_stock_round`
        checked in full (None: none)."""
        rnd = self.game.round
        if isinstance(rnd, StockRound):
            if isinstance(action, Pass | Done) and _regular_stock_turn(rnd):
                return "pass", ""  # the stock round takes `done` as `pass` (3.2)
            whole = isinstance(action, SellShares | Par) or (isinstance(
                action, BuyShares) and action.count == 1 and action.source is not None)
            if whole and _regular_stock_turn(rnd):
                assert isinstance(action, SellShares | BuyShares | Par)
                if isinstance(action, BuyShares) and rnd.s.turn.bought:
                    # After a purchase only more brown Open Market shares may follow
                    # (1850 5.1.1): the source decides.
                    return "BuyShares", f"{action.corporation} {action.source}"
                return type(action).__name__, action.corporation
            return None
        if isinstance(action, BuyPrivate) and isinstance(rnd, OperatingRound) and \
                rnd.current is not None and rnd.offer is None and not rnd.discards and \
                not rnd.protecting and action.company is None and \
                self.game.rules.pending_decision(self.game.state) is None:
            # Past `refused_on_sight` (the private, its owner, the price's range and the
            # company's cash), the round checks the seller and moves the money: the
            # price changes who holds how much, which nothing after it reads.
            return "BuyPrivate", f"{action.private} {action.seller}"
        if isinstance(action, BuyTrain) and isinstance(rnd, OperatingRound) and \
                rnd.current is not None and rnd.offer is None and not rnd.discards and \
                action.source in self.game.state.corporations and \
                _enters_quietly(rnd, "train"):
            return "BuyTrain", action.source
        return None

    def refused_in_stock_round(self, action: Action) -> bool:
        """A refusal that the stock round's checks of a regular turn make certain
        (3.2, 3.3): each is made before the action changes anything (False: try it)."""
        rnd = self.game.round
        if not isinstance(action, SellShares | BuyShares | Par) or not isinstance(
                rnd, StockRound) or not _regular_stock_turn(rnd):
            return False
        state = self.game.state
        corp = state.corporations.get(action.corporation)
        if corp is None:
            return True
        if isinstance(action, SellShares):
            percent = action.percent if action.percent is not None else \
                10 * (action.count or 1)
            try:
                self.game.rules.check_sale(state, self.seat, corp, percent)
            except GameError:
                return True
            return self.why_not(rnd._why_not_sell, corp) is not None
        rules = self.game.rules
        if isinstance(action, Par) and (corp.par_price is not None
                                        or not self.may_par(corp)):
            return True
        if isinstance(action, BuyShares) and corp.par_price is None:
            return True
        if self.why_not(rnd._why_not_buy, corp) is not None:
            return True
        cash = state.player(self.seat).cash
        if isinstance(action, Par):
            # `StockRound._par`: the market's par space, the price, the holding limits.
            percent = corp.certificates[0].percent
            if state.market.par_cell(action.price) is None or \
                    cash - rnd.reserved(self.seat) < action.price * percent // 10:
                return True
        elif action.count == 1 and action.source is not None:
            # `shares.buy_certificate`: a certificate there, the price, the limits.
            if action.source == TREASURY and not rules.treasury_shares_for_sale:
                return True
            cert = next_certificate(corp, action.source)
            if cert is None or cert.president:
                return True
            percent = cert.percent
            if cash < price_per_share(rules, state, corp, action.source) * percent // 10:
                return True
        else:
            return False
        try:
            check_can_hold(rules, state, self.seat, corp, percent)
        except GameError:
            return True
        return False

    def proposal(self, action: Action) -> bool | None:
        """Whether an auction proposal (1861 9.2) is accepted, decided by
        `AuctionStockRound.check_proposal` (None: not a proposal here). The round makes
        those checks before the proposal changes anything; past them `_open` only sets
        up the lot, which no one wins while two or more players are in it, the round
        is not over while a lot is open, and `Rules.check_end` never refuses."""
        rnd = self.game.round
        if not isinstance(action, StartAuction | Bid) or action.target is None or \
                not isinstance(rnd, AuctionStockRound) or self.game.state.game_over or \
                len(self.game.state.seats) < 2 or not rnd.routes_to_proposal(action):
            return None
        try:
            rnd.check_proposal(self.seat, action.target, action.amount)
        except GameError:
            return False
        return True

    def auction_bid(self, action: Action) -> bool | None:
        """Whether a bid in an auction of 1861's stock round (a lot under way, or the
        Nikolaev's opening, 9.4) is accepted, decided by the round's checks of it (None:
        not such a bid, or a lot with one bidder left: tried). The round checks the
        target and `_check_bid` before anything changes; past them the bidder leads
        a lot that two or more players are still in, which nobody wins yet, and the
        round is not over while a lot is open."""
        rnd = self.game.round
        state = self.game.state
        if not isinstance(action, Bid) or not isinstance(rnd, AuctionStockRound) or \
                state.game_over or rnd.home_pending is not None:
            return None
        lot = rnd.lot
        if lot is not None:
            if len(lot.bidders) < 2 or self.seat not in lot.bidders:
                return None
            if action.target not in (None, lot.target):
                return False
            target, least = lot.target, lot.high_bid + self.game.rules.auction_increment
        else:
            item = rnd.opening()
            if item is None or len(state.seats) < 2:
                return None
            target = action.target if action.target is not None else item
            if target != item:
                return False
            least = self.game.rules.auction_minimum(state, item)
        try:
            rnd._check_bid(self.seat, target, action.amount, least)
        except GameError:
            return False
        return True

    def why_not(self, check: Callable[[str, Corporation], str | None], corp: Corporation
                ) -> str | None:
        """`check(seat, corp)` of the stock round, asked once a position."""
        key = (check.__name__, corp.sym)
        if key not in self.reasons:
            self.reasons[key] = check(self.seat, corp)
        return self.reasons[key]

    def may_par(self, corp: Corporation) -> bool:
        """`Rules.may_par`, asked once a position for each company: the same for every
        par price (1861 looks for a free home city, 9.3)."""
        if corp.sym not in self.pars:
            self.pars[corp.sym] = self.game.rules.may_par(self.game.state, corp)
        return self.pars[corp.sym]

    def attempt(self, action: Action) -> bool:
        found = self.tried.get(action)
        if found is None:
            found = self.tried[action] = self.game.clone().attempt(self.seat, action)
        return found


def _regular_stock_turn(rnd: StockRound) -> bool:
    """A player's turn of buying and selling (3.2, 3.3): no answer, par, auction or
    private sale is pending."""
    return rnd.s.proposal is None and rnd.s.par_pending is None and rnd.s.auction is None \
        and rnd.cheapest() is None and (not isinstance(rnd, AuctionStockRound) or (
            rnd.lot is None and rnd.opening() is None))


def refused_on_sight(game: Game, action: Action) -> bool:
    """A refusal that the operating round's checks make certain without trying the
    action: each test is a check the round makes, on what the action finds unchanged
    when it gets there (False: try it)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer is not None \
            or rnd.discards:
        return False
    state = game.state
    corp = rnd.company()
    if isinstance(action, Done):
        # `done` passes every step before the train step, the run step among them.
        return _must_run(game, rnd, rnd.steps.index("train"))
    if isinstance(action, SellShares):
        # The first check of a sale in an operating round (4.2.5.2(d)).
        return bool(corp.trains) or not routes.has_route(game.rules, state, corp)
    if isinstance(action, BuyPrivate):
        # Checked before anything changes (4.2.6); the step is not entered.
        private = state.privates.get(action.private)
        if private is None or private.closed or private.owner not in state.players:
            return True
        price = action.price if action.price is not None else private.spec.value
        return corp.cash < price or game.rules.why_not_buy_private(
            state, corp, private, price, rnd) is not None
    if isinstance(action, BuyTrain) and _enters_quietly(rnd, "train"):
        # `OperatingRound._buy_train`'s first checks (4.2.5), on the state entering the
        # step leaves: the train limit, and for a train of another company, the train,
        # the price and the money.
        if len(corp.trains) - (action.trade_in is not None) >= trains.train_limit(
                game.rules, state, corp):
            return True
        seller = state.corporations.get(action.source)
        if seller is None:
            return False  # the bank or the pool: tried
        train = next((t for t in seller.trains if t.name == action.train
                      and not t.obsolete), None)
        assert rnd.current is not None
        return (seller.sym == corp.sym or train is None or action.price is None
                or action.price < 1 or corp.cash < action.price or rnd.current.emergency
                or game.rules.why_not_train_price(state, corp, seller, train, action.price)
                is not None)
    if isinstance(action, PlaceToken) and _enters_quietly(rnd, "token"):
        # `board.place_token`'s checks (4.2.2), on the state entering the step leaves.
        assert rnd.current is not None
        if rnd.current.token_placed or not corp.token_costs or action.hex not in \
                state.title.hexes or board.has_token_in(state, corp.sym, action.hex):
            return True
        if action.city is not None and 0 <= action.city < board.city_count(
                state, action.hex):
            return board.free_slots(state, action.hex, action.city) - board.reserved_slots(
                state, action.hex, action.city, corp.sym) <= 0
    return False


def _orders_its_own_way(rules: Rules) -> bool:
    """Whether the title adds an order, a vote or a resolution of its own to an operating
    company's action (1825's), which the round's plain checks do not show."""
    return type(rules).company_action is not Rules.company_action or \
        type(rules).hold_for_vote is not Rules.hold_for_vote or \
        type(rules).resolve_order is not Rules.resolve_order


def _token_decided(game: Game, seat: str) -> bool:
    """Whether a station (not an edge token) is accepted exactly when the checks of
    `OperatingRound._token` and `board.place_token` pass: in a regular turn of the
    operating company (no decision, offer, discards or protection pending; whose turn
    and the step `accepts` has checked), where the title has no order, vote or
    resolution of its own, the token step is entered quietly, and after the station the
    turn stays before the train step (so `_finish_if_nothing_left` ends nothing): then
    the station only takes the company's money to the bank and marks the step done,
    which neither the game's end (the bank only gains) nor the round's end reads."""
    rnd, rules = game.round, game.rules
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer is not None \
            or rnd.discards or rnd.protecting or "token" not in rnd.steps or \
            game.state.game_over or rules.pending_decision(game.state) is not None or \
            rnd.company().president != seat:
        return False
    if _orders_its_own_way(rules):
        return False
    return _enters_quietly(rnd, "token") and \
        rnd.steps.index("token") + 1 < rnd.steps.index("train")


def _enters_quietly(rnd: OperatingRound, step: str) -> bool:
    """Whether entering `step` now changes nothing: `OperatingRound._enter_step` acts
    only on passing the run and dividend steps (settling them) and on leaving the
    train step; every other step passed is left as it is."""
    t = rnd.current
    assert t is not None
    index = rnd.steps.index(step)
    return index >= t.step and not any(
        s in ("route", "dividend", "train") for s in rnd.steps[t.step:index])


def _must_run(game: Game, rnd: OperatingRound, until: int) -> bool:
    """Whether passing the steps before `until` is refused at the run step, before
    anything changes: the company has trains and a route and has not run (4.2(d));
    only steps that change nothing when passed come before the run step."""
    t = rnd.current
    assert t is not None
    corp = rnd.company()
    return ("route" in rnd.steps[t.step:until] and t.revenue is None and bool(corp.trains)
            and routes.has_route(game.rules, game.state, corp))


def _step_of(game: Game, action: Action) -> str | None:
    """The step of the company's turn an action belongs to, where the operating round
    enters that step before it looks at the action itself."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer is not None \
            or rnd.discards:
        return None
    step = STEP_OF.get(type(action))
    return step if step in rnd.steps else None


def _may_enter(game: Game, step: str) -> tuple[bool, Game | None]:
    """Whether the operating company may still enter `step` (on a copy, where neither
    `_enters_quietly` nor `_must_run` tells): where it may not, every action of that
    step is refused, whatever it is (4.2(d), (e)). With the copy, when one was made,
    the step entered on it."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    if _enters_quietly(rnd, step):
        return True, None
    index = rnd.steps.index(step)
    if index < rnd.current.step or _must_run(game, rnd, index):
        return False, None
    probe = game.clone()
    rnd = probe.round
    assert isinstance(rnd, OperatingRound)
    try:
        rnd._enter_step(rnd.company(), rnd.steps.index(step))
    except GameError:
        return False, None
    return True, probe


def _entered_judge(game: Game, probe: Game, seat: str) -> Judge | None:
    """A judge of a train purchase on `probe`, the game with the train step entered
    (None: judge it here, by a try).

    `OperatingRound.process` takes a train purchase through checks that change
    nothing (a pending decision, an offer, discards, a protection, whose turn, the
    company named; a title's own order or vote, when the title has one), then enters
    the step and buys. On the probe the same checks meet the state entering left and
    entering again changes nothing, so trying the purchase on a copy of the probe is
    trying it on a copy of the game, wherever those checks answer alike on both: the
    title has no order, vote or resolution of its own, and entering changed none of
    what they read (no decision, offer, discards or protection arose, the company is
    still operating with the same president, the game goes on). On the probe the step
    is entered quietly, so the shortcuts of a quiet step judge the purchases there."""
    rules = game.rules
    if _orders_its_own_way(rules):
        return None
    rnd, entered = game.round, probe.round
    assert isinstance(rnd, OperatingRound) and isinstance(entered, OperatingRound)
    if rnd.current is None or entered.current is None or \
            entered.current.corporation != rnd.current.corporation or \
            entered.offer is not None or entered.discards or entered.protecting or \
            probe.state.game_over or rules.pending_decision(probe.state) is not None or \
            rules.pending_decision(game.state) is not None or \
            entered.company().president != rnd.company().president:
        return None
    return Judge(probe, seat)


def candidates(game: Game, prune: bool = True) -> Iterator[Action]:
    """The actions to try; `prune` leaves out tile lays no train could reach (the tests
    compare with the full list)."""
    rnd = game.round
    if isinstance(rnd, StockRound):
        yield from _stock_candidates(game, rnd)
    elif isinstance(rnd, OperatingRound):
        yield from _operating_candidates(game, rnd, prune)
    elif isinstance(rnd, MergerRound):
        yield Pass()
        yield from rnd.candidates()


def _stock_candidates(game: Game, rnd: StockRound) -> Iterator[Action]:
    state = game.state
    s = rnd.s
    yield Pass()
    if isinstance(rnd, AuctionStockRound):
        if rnd.home_pending is not None:
            for hex_id in game.rules.home_choices(state, rnd.home_pending):
                yield PlaceToken(hex_id)
            return
        if rnd.lot is not None:
            yield Bid(rnd.lot.high_bid + game.rules.auction_increment)
            return
        item = rnd.opening()
        if item is not None:
            yield Bid(game.rules.auction_minimum(state, item), item)
            return
        if s.proposal is None and s.par_pending is None:
            for target in game.rules.auction_items(state):
                yield StartAuction(target, game.rules.auction_minimum(state, target))
    if s.proposal is not None or s.redemption is not None:
        yield Accept()
        yield Decline()
        return
    if s.protection_seller is not None and state.pending_sales:
        yield Protect(state.pending_sales[0].corporation)
        yield DeclineProtection()
        return
    if s.par_pending is not None:
        corp = state.corporation(s.par_pending.corporation)
        for value in game.rules.par_values(corp):
            yield Par(corp.sym, value)
        return
    if s.auction is not None:
        yield Bid(s.auction.high_bid + 5)
        return
    cheapest = rnd.cheapest()
    if cheapest is not None:
        yield BuyPrivate(cheapest.sym)
        for private in rnd.unsold_privates()[1:]:
            floor = max([private.spec.value, *s.bids.get(private.sym, {}).values()])
            yield Bid(floor + 5, private.sym)
        return
    seat = s.current
    yield Done()
    yield from game.rules.stock_candidates(state, seat)
    for corp in state.corporations.values():
        if corp.president == seat and rnd.rules.companies_act_in_stock_rounds:
            yield RedeemShares(company=corp.sym)
            for holder in state.seats:
                yield RedeemShares(company=corp.sym, holder=holder)
            yield ReissueShares(company=corp.sym)
    for corp in state.corporations.values():
        held = corp.percent_held_by(seat)
        for count in range(1, held // 10 + 1):
            yield SellShares(corp.sym, count)
        if corp.par_price is None:
            for value in game.rules.par_values(corp):
                yield Par(corp.sym, value)
        else:
            for source in (IPO, POOL, TREASURY):
                if source == TREASURY and not game.rules.treasury_shares_for_sale:
                    continue
                if corp.certificates_of(source):
                    yield BuyShares(corp.sym, 1, source)  # type: ignore[arg-type]


def _operating_candidates(game: Game, rnd: OperatingRound, prune: bool = True
                          ) -> Iterator[Action]:
    state = game.state
    pending = game.rules.pending_decision(state)
    if pending is not None:
        yield from game.rules.decision_candidates(state)
        return
    if rnd.offer is not None:
        yield Accept()
        yield Decline()
        return
    if rnd.discards:
        corp = state.corporation(rnd.discards[0])
        for name in sorted({t.name for t in corp.trains}):
            yield DiscardTrain(name)
        return
    if rnd.protecting:
        yield Protect(state.pending_sales[0].corporation)
        yield DeclineProtection()
        return
    if rnd.current is None:
        return
    corp = rnd.company()
    t = rnd.current
    yield Done()
    yield Pass()
    if t.step <= STEPS.index("track"):
        yield from tile_lays(game, corp, prune=prune)
        for private in state.privates.values():
            if private.owner == corp.sym and not private.closed:
                hexes = game.rules.private_lay_hexes(state, private)
                if hexes is None:
                    lays = tile_lays(game, corp, prune=prune)
                else:
                    lays = tile_lays(game, corp, hexes=set(hexes), any_hex=True)
                for lay in lays:
                    yield UsePrivate(private.sym, lay)
        if type(game.rules).pay_mesabi is not Rules.pay_mesabi:  # 1850 6.5.1
            yield PayMesabi()
    yield from _token_candidates(game, rnd)
    if t.step <= STEPS.index("route") and t.revenue is None and \
            game.rules.route_step_extras(state, corp):  # 1825 6.4.3
        yield LeaseTrain()
    if t.step <= STEPS.index("route") and corp.trains:
        yield RunRoutes(auto=True)
        yield RunRoutes()
    if t.revenue is not None and not t.dividend_done:
        auto = game.rules.automatic_dividend(state, corp)
        if auto is not None and game.rules.offers_only_automatic_dividend:
            yield Dividend("payout" if auto == "payout" else "withhold")  # (1861 10.7)
        else:
            yield Dividend("payout")
            yield Dividend("withhold")
            if game.rules.half_dividends:
                yield Dividend("half")
    for offer in game.rules.offered_trains(state):
        yield BuyTrain(offer.name)
        for old in game.rules.trade_ins(state, corp, offer.name):
            yield BuyTrain(offer.name, trade_in=old)
    for name in sorted({tr.name for tr in state.trains_pool}):
        yield BuyTrain(name, POOL)
    for other in state.corporations.values():
        if other.sym != corp.sym:
            for name in sorted({tr.name for tr in other.trains}):
                yield BuyTrain(name, other.sym, game.rules.least_train_price)
                yield BuyTrain(name, other.sym, state.title.train(name).price)
    for private in state.privates.values():
        if private.owner in state.players and not private.closed:
            value = private.spec.value
            for price in sorted({1, (value + 1) // 2, value, value * 3 // 2}):
                yield BuyPrivate(private.sym, private.owner, price)
    if "issue" in rnd.steps:
        for count in range(1, 6):
            yield IssueShares(count)
            yield RedeemShares(count)
    president = corp.president or ""
    for other in state.corporations.values():
        if other.percent_held_by(president):
            yield SellShares(other.sym, 1)
    yield from game.rules.turn_candidates(state, corp)  # 1825 5.6.5


def tile_lays(game: Game, corp: Corporation, hexes: set[str] | None = None,
               any_hex: bool = False, prune: bool = True) -> Iterator[LayTile]:
    """Tile lays near the company's track (a lay must connect to a station)."""
    state = game.state
    title = state.title
    reach: _Reach | None = None
    if hexes is None:
        graph = track.build_track(state)
        nodes, segments = track.reachable(state, graph, corp.sym)
        near = {n.hex for n in nodes} | {graph.segments[s].hex for s in segments}
        hexes = set(near)
        for hex_id in near:
            for edge in range(6):
                hexes.add(track.neighbour_of(title, hex_id, edge))
        reach = _reach(state, corp.sym) if prune else None
    colours = game.rules.phase(state).tiles
    supply = state.board.supply
    for hex_id in sorted(h for h in hexes if h in title.hexes):
        if not title.hexes[hex_id].buildable and not any_hex:
            continue
        edges = None if reach is None or hex_id in reach.stations else \
            reach.entries.get(hex_id, set())
        if edges is not None and not edges:
            continue  # no train of the company can enter this hex: no lay can connect
        if not prune:
            for name, tile in title.tiles.items():
                left = supply.get(name, 0)
                if tile.color in colours and (left is None or left > 0):
                    for rotation in board.legal_rotations(game.rules, state, hex_id, name):
                        yield LayTile(name, hex_id, rotation)
            continue
        for option in _hex_options(game, hex_id):
            left = supply.get(option.tile, 0)
            if option.color not in colours or (left is not None and left <= 0):
                continue
            for rotation, exits in option.rotations:
                if edges is None or not edges.isdisjoint(exits):
                    yield LayTile(option.tile, hex_id, rotation)


_TILE_ROTATIONS: dict[tuple[object, ...], tuple[int, ...]] = {}


def _tile_rotations(old: TileSpec | HexSpec, old_rotation: int, tile: TileSpec,
                    spec: HexSpec) -> tuple[int, ...]:
    """`tiles.legal_rotations(old, old_rotation, tile, on_hex=spec)`, kept by all it
    reads: what is replaced (a laid tile, or what the printed hex stands for), at which
    rotation, the new tile, and the label the hex asks of the tile's colour. Hexes
    holding the same tile share the answer."""
    replaced, _ = tiles.replaced(old, spec)
    key = (replaced, old_rotation, tile, spec.label_for(tile.color))
    found = _TILE_ROTATIONS.get(key)
    if found is None:
        if len(_TILE_ROTATIONS) >= 50_000:
            _TILE_ROTATIONS.clear()
        found = _TILE_ROTATIONS[key] = tuple(
            tiles.legal_rotations(old, old_rotation, tile, on_hex=spec))
    return found


@dataclass(frozen=True, slots=True)
class _Option:
    """A tile that fits a hex as it stands, at `board.legal_rotations` (with the exits
    at each)."""

    tile: str
    color: str
    rotations: tuple[tuple[int, frozenset[int]], ...]


_OPTIONS: dict[tuple[int, str, str | None, int], tuple[object, tuple[_Option, ...]]] = {}


def _hex_options(game: Game, hex_id: str) -> tuple[_Option, ...]:
    """The tiles of the title that fit `hex_id` at some rotation, in the title's order,
    kept by what lies on the hex (`board.legal_rotations` depends on nothing else: the
    tile, the hex, what it replaces, and the printed map around it)."""
    state = game.state
    title = state.title
    placed = state.board.tiles.get(hex_id)
    key = (id(title), hex_id, placed.name if placed else None, placed.rotation if placed else 0)
    found = _OPTIONS.get(key)
    if found is None or found[0] is not title:
        if len(_OPTIONS) >= 5_000:
            _OPTIONS.clear()
        # The colour of what lies there, as `tiles.upgrade_problems` reads it: its first
        # check, one colour at a time, spares tracing the rest for most tiles.
        spec = title.hexes[hex_id]
        colour = title.tile(placed.name).color if placed else \
            spec.tile.color if spec.tile is not None else spec.color
        old, old_rotation, _ = board.current(state, hex_id)
        options = []
        for name, tile in title.tiles.items():
            if not tiles.color_step_ok(colour, tile.color):
                continue
            # `board.legal_rotations`: the tile's own rotations, then the map's exits.
            rotations = [r for r in _tile_rotations(old, old_rotation, tile, spec)
                         if all(board.exit_problem(state, hex_id, e) is None
                                for e in tiles.exits(tile, r))]
            if rotations:
                options.append(_Option(name, tile.color, tuple(
                    (r, tiles.exits(tile, r)) for r in rotations)))
        found = _OPTIONS[key] = (title, tuple(options))
    return found[1]


# --- judging tile lays ----------------------------------------------------------------------
# Trying each of a hundred lays on its own copy of the game costs a copy and a tracing of
# the map per lay. A lay is refused for its own sake only by `board.check_lay` (the tile,
# the map, the supply, terrain money, the connection); everything else the round checks
# (whose turn, the step, lays left of the kind: yellow or upgrade) is the same for every
# lay of a kind. So each lay is checked with `check_lay`, its connection decided from one
# tracing of the map where that tells (`_Lays.connects`), and one lay of each kind is
# tried on a copy of the game: its answer stands for its kind. The tests compare this
# with trying every candidate on a copy.


@dataclass
class _Reach:
    """What the company's routes reach on the map as it stands (`track.reach_of`): by
    hex, the edges by which a train can cross into it, and the revenue centres and
    junctions it reaches there."""

    entries: dict[str, set[int]]
    nodes: dict[str, set[track.Node]]
    stations: set[str]  # hexes with a station of the company: entered from within


def _reach(state: GameState, corp: str) -> _Reach:
    """The tracing of `corp`'s trains on the map as it stands, kept on the graph (as
    `track.reachable` is) by the stations on the map; callers must not change it."""
    graph = track.build_track(state)
    key = ("legal reach", corp, track.tokens_key(state))
    found: _Reach | None = graph.traced.get(key)
    if found is None:
        found = graph.traced[key] = _trace_reach(state, graph, corp)
    return found


def _trace_reach(state: GameState, graph: track.Track, corp: str) -> _Reach:
    title = state.title
    starts = track.token_nodes(state, corp)
    seen = track.reach_of(state, graph, corp).steps
    entries: dict[str, set[int]] = {}
    nodes: dict[str, set[track.Node]] = {}
    for _, point in seen:
        if isinstance(point, track.Node):
            nodes.setdefault(point.hex, set()).add(point)
        elif point.edge not in title.hexes[point.hex].borders:
            # A train at this side crosses into the neighbour, if track is there.
            into = track.neighbour_of(title, point.hex, point.edge)
            entries.setdefault(into, set()).add(opposite(point.edge))
    for node in starts:
        nodes.setdefault(node.hex, set()).add(node)
    return _Reach(entries, nodes, {n.hex for n in starts})


@dataclass(frozen=True, slots=True)
class _Change:
    """What a tile at a rotation does to the track of a hex: whether it keeps every
    old path, and its new paths."""

    keeps: bool
    added: tuple[frozenset[track.Point], ...]
    exits: frozenset[int]


_CHANGES: dict[tuple[int, str, str | None, int, str, int], tuple[object, _Change]] = {}


def _change(state: GameState, hex_id: str, tile: TileSpec, rotation: int) -> _Change:
    """`_Change` of a lay, kept by what lies on the hex."""
    title = state.title
    placed = state.board.tiles.get(hex_id)
    key = (id(title), hex_id, placed.name if placed else None,
           placed.rotation if placed else 0, tile.name, rotation)
    found = _CHANGES.get(key)
    if found is None or found[0] is not title:
        if len(_CHANGES) >= 50_000:
            _CHANGES.clear()
        old_tile, old_rotation = track.tile_on(state, hex_id)
        old = set() if old_tile is None else {
            frozenset(p) for p in track.rotated_paths(old_tile, old_rotation, hex_id)}
        new = {frozenset(p) for p in track.rotated_paths(tile, rotation, hex_id)}
        added = tuple(p for p in (frozenset(p) for p in track.rotated_paths(
            tile, rotation, hex_id)) if p not in old)
        found = _CHANGES[key] = (title, _Change(old <= new, added,
                                                tiles.exits(tile, rotation)))
    return found[1]


def _lay_checks(game: Game, corp: Corporation, lay: LayTile, tile: TileSpec,
                colours: frozenset[str], budget: int) -> bool:
    """Whether `board.check_lay` accepts the lay, the connection aside (a title's own
    rule of what a lay must reach, `Rules.why_not_reached`, included). A lay that
    `tile_lays` makes (a buildable hex, a tile of the phase's colours left in the
    supply, at a rotation `board.legal_rotations` gives, so no upgrade or exit problem)
    has only the title's own restrictions and the terrain cost left to meet, out of
    BUDGET (`_lay_budget`)."""
    rules, state = game.rules, game.state
    left = state.board.supply.get(lay.tile, 0)
    spec = state.title.hexes.get(lay.hex)
    if spec is not None and spec.buildable and tile.color in colours \
            and (left is None or left > 0) and any(
                option.tile == lay.tile and any(r == lay.rotation for r, _ in option.rotations)
                for option in _hex_options(game, lay.hex)):
        return rules.why_not_lay(state, corp, lay.hex, tile, lay.rotation) is None and \
            rules.why_not_reached(state, corp, lay.hex, tile, lay.rotation) is None and \
            budget >= board.terrain_cost(rules, state, lay.hex) + \
            rules.upgrade_cost(state, lay.hex, tile)
    try:  # without the connection, check_lay only reads the game
        board.check_lay(rules, state, corp, lay.hex, lay.tile, lay.rotation,
                        need_connection=False, budget=budget)
    except GameError:
        return False
    return rules.why_not_reached(state, corp, lay.hex, tile, lay.rotation) is None


def _lay_budget(game: Game, corp: Corporation, lays_made: int) -> int:
    """What the company may spend on a lay's terrain and upgrade: what the round lets it
    pay before the lay (`OperatingRound._lay`: with the loans the title lends for track,
    1861 10.2, so a lay paid with a loan is legal and listed) less a further lay's fee."""
    rules, state = game.rules, game.state
    return rules.track_budget(state, corp) - rules.lay_fee(state, corp, lays_made)


class _Lays:
    """Judges the tile lays of the operating company (see above).

    The game does not change while its lays are judged (a lay is tried on a copy, and
    `connected_after` lays its tile on a scratch copy), so what a lay's checks read of
    the position alone (the tracing of the map, a hex's kind of lay, the phase's
    colours, the terrain) is found once an instance and kept on it."""

    def __init__(self, game: Game, seat: str) -> None:
        self.game = game
        self.seat = seat
        self.scratch: Game | None = None  # connected_after lays the tile for a moment
        # (lay kind, in a hex laid in this turn) -> whether its first lay was accepted:
        # the count rules answer by kind and by whether the hex has had a lay this
        # turn (1861 10.4: the second tile goes in another hex).
        self.kinds: dict[tuple[str, bool], bool] = {}
        self.hex_kinds: dict[str, tuple[str, bool]] = {}
        self.refused_hexes: dict[tuple[str, str], bool] = {}
        self.reach: dict[str, _Reach] = {}
        self.colours: frozenset[str] | None = None
        self.budget: int | None = None  # `_lay_budget`, once a position

    def accepts(self, lay: LayTile) -> bool:
        if lay.company is not None:
            return self.game.clone().attempt(self.seat, lay)
        game = self.game
        rules, state = game.rules, game.state
        rnd = game.round
        assert isinstance(rnd, OperatingRound)
        if rnd.current is None:
            return False
        kind = self.hex_kinds.get(lay.hex)
        if kind is None or lay.tile not in state.title.tiles:
            # `board.lay_kind` reads the hex alone (and refuses a tile not in the title).
            kind = (rules.tile_lay_kind(state, lay.hex, board.lay_kind(rules, state, lay.hex,
                                                                       lay.tile)),
                    lay.hex in rnd.current.lay_hexes)
            self.hex_kinds[lay.hex] = kind
        if self.kinds.get(kind) is False:
            return False  # the round refuses a lay of this kind, whichever it is
        corp = rnd.company()
        refused = self.refused_hexes.get((lay.hex, kind[0]))
        if refused is None:
            refused = self.refused_hexes[(lay.hex, kind[0])] = bool(rules.why_not_lay_in_turn(
                state, corp, lay.hex, kind[0], rnd.current.lay_hexes))
        if refused:
            return False  # a refusal by hex (1825 5.2.1), before the kind's answer
        tile = state.title.tile(lay.tile)
        connected = self.connects(corp.sym, lay.hex, tile, lay.rotation)
        if connected is False:
            return False  # refused by check_lay, whatever else it finds
        if self.colours is None:
            self.colours = frozenset(rules.phase(state).tiles)
        if self.budget is None:
            self.budget = _lay_budget(game, corp, len(rnd.current.lay_hexes))
        if not _lay_checks(game, corp, lay, tile, self.colours, self.budget):
            return False
        if connected is None:
            self.scratch = self.scratch or game.clone()
            scratch = self.scratch.state
            connected = board.connected_after(scratch, scratch.corporation(corp.sym),
                                              lay.hex, tile, lay.rotation)
        if not connected:
            return False
        if kind not in self.kinds:
            self.kinds[kind] = game.clone().attempt(self.seat, lay)
        return self.kinds[kind]

    def connects(self, corp: str, hex_id: str, tile: TileSpec, rotation: int
                 ) -> bool | None:
        """What `board.connected_after` answers (new track or a city of the new tile
        reached from a station), from one tracing of the map as it stands; None when
        the lay does not keep every path of the hex as it was (then trace it).

        When every old path stays, every walk on the map now is a walk after the lay
        too, and the first new segment a train takes starts where such a walk stands
        in the hex: at an edge it crossed into, or at a node it reached. So the lay
        connects exactly when a train reaches a city of the hex now, or stands at an
        edge of the new tile or at a node of the hex where a new segment starts."""
        state = self.game.state
        reach = self.reach.get(corp)
        if reach is None:
            reach = self.reach[corp] = _reach(state, corp)
        if hex_id in reach.stations:
            return True  # the station's city is reached
        change = _change(state, hex_id, tile, rotation)
        if not change.keeps:
            return None
        reached = reach.nodes.get(hex_id, set())
        if any(n.kind == "c" for n in reached):
            return True
        starts: set[track.Point] = {track.Side(hex_id, e) for e in
                                    reach.entries.get(hex_id, set()) & change.exits}
        starts |= reached
        return any(not starts.isdisjoint(path) for path in change.added)
