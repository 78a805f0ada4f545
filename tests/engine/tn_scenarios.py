"""Games for the 18TN operating-round tests: fresh openings and the recorded game 7818.

Every scenario is played through `Game.apply` with real actions. Two sources:

* fresh four-player games (Ann, Bob, Cy, Di; Ann holds the Priority Deal) whose first
  stock round is scripted so the companies, pars and holdings a test needs exist;
* prefixes of the recorded game shared/fixtures/18TN/7818.json (Game(setup, log[:n]))
  to reach mid-game positions: phase 3, the Civil War, phase 5, phase 6½, the bank
  breaking. The move numbers below were read off that record.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from scenario_moves import entity_to_act, play

from engine.actions import (
    Accept,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    Done,
    LayTile,
    Par,
    Pass,
    RunRoutes,
    SellPrivate,
)
from engine.errors import GameError
from engine.game import Game, Move, Setup
from engine.records import import_record
from engine.rounds.operating import OperatingRound

SEATS = ("Ann", "Bob", "Cy", "Di")
P1, P2, P3, P4 = "Player 1", "Player 2", "Player 3", "Player 4"
RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"

# Move numbers in the record 7818 (positions *before* that move is applied).
OR_2_1_LN_TOKEN_STEP = 54  # L&N has laid 6 on Nashville F11 (TC's home) and 4 on F13
OR_3_1_LN = 75  # L&N, two 2-trains, phase 2
OR_3_1_IC_PRIVATES = 90  # IC may buy a private (phase 3 has begun)
SR_4_LAST_PASS = 127  # the last pass of Stock Round 4; IC owns MCR
OR_4_1_LN_TOKEN = 130  # L&N after upgrading F11 to TN2, before its token
OR_4_1_SR_BUYS_ETWCR = 137
OR_4_1_SR_USES_ETWCR = 138
OR_4_1_SR_DIVIDEND = 142  # SR has run for $160 and pays
OR_4_1_IC_USES_MCR = 146
OR_4_2_LN = 160  # L&N owns TCC; phase 3
OR_4_2_SR_UPGRADE = 168  # SR's turn; it upgrades F17 to 14 (green)
OR_4_2_SR_BUYS_4TH_3 = 172  # SR buys the fourth 3-train: the Civil War
OR_4_2_IC_RUN = 177
OR_4_2_GMO_RUN = 184  # GMO, one 3-train, runs under the Civil War
OR_5_1_LN_TOKEN = 263
OR_5_1_LN_BUYS_FIRST_4 = 266
OR_5_1_SR_RUN = 270  # SR, one 3-train, under the Civil War (it triggered it)
OR_5_1_TC_TRAINS = 274  # TC's train step in phase 4
OR_5_1_NCSTL_BUYS_4 = 279
OR_5_2_LN = 288  # phase 5 (brown off-board values)
OR_5_2_GMO = 308
OR_6_3_GMO_TRAIN = 402  # GMO: no train, $540; the second 6-train makes phase 6½
OR_7_1_SR = 437  # SR with an obsolete 4-train
OR_7_1_NCSTL = 441
OR_7_2_SR = 464
SR_8_START = 514
OR_8_1_SR = 530
OR_8_1_LN_RUN = 540
OR_8_2_BANK_BREAKS = 566  # L&N's payout breaks the bank
RECORD_END = 578


@functools.lru_cache(maxsize=1)
def _record() -> tuple[Setup, tuple[Move, ...]]:
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    replay = import_record(json.loads(RECORD.read_text()))
    return replay.game.setup, tuple(replay.game.log)


# Positions already reached, per (moves, options): a test gets a deep copy (replaying
# 500 moves for every test would make the files slow).
_POSITIONS: dict[tuple[int, frozenset[str] | None], Game] = {}


def record_game(n: int, options: frozenset[str] | None = None) -> Game:
    """The recorded game 7818 after its first `n` moves (optionally with game options)."""
    setup, log = _record()
    if options is not None:
        setup = replace(setup, options=options)
    key = (n, options)
    if key not in _POSITIONS:
        start = max((k for k, o in _POSITIONS if o == options and k <= n), default=None)
        if start is None:
            game = Game(setup, log[:n])
        else:
            game = _copy(_POSITIONS[(start, options)])
            replay_moves(game, start, n)
        _POSITIONS[key] = game
    return _copy(_POSITIONS[key])


def _copy(game: Game) -> Game:
    """An independent copy of a game (the title data and the rules are shared)."""
    return copy.deepcopy(game, {id(game.rules): game.rules, id(game.state.title): game.state.title})


def record_move(n: int) -> Move:
    return _record()[1][n]


def replay_moves(g: Game, start: int, stop: int) -> None:
    """Apply the record's moves start..stop-1 to `g`."""
    for move in _record()[1][start:stop]:
        g.apply(move.seat, move.action)


def new_game(options: frozenset[str] = frozenset()) -> Game:
    return Game(Setup("18TN", SEATS, seed=7, priority="Ann", options=options))


now = entity_to_act


def president(g: Game) -> str:
    turn = g.turn()
    assert turn is not None
    return turn.seat


def pass_stock_round(g: Game) -> None:
    """Everyone passes until the stock round is over."""
    while g.round_name.startswith("Stock Round"):
        g.apply(president(g), Pass())


def operating(g: Game) -> OperatingRound:
    rnd = g.round
    assert isinstance(rnd, OperatingRound)
    return rnd


def revenue(g: Game) -> int | None:
    """What the operating company's trains earned this turn (None: not run yet)."""
    current = operating(g).current
    assert current is not None
    return current.revenue


def operate_plainly(g: Game) -> None:
    """Play the operating company's turn: its best run paid out; a train from the bank
    only when the company must have one (4.2.5.2)."""
    corp = now(g)
    seat = president(g)
    if g.state.corporation(corp).trains:
        g.apply(seat, RunRoutes(auto=True))
        if still_operating(g, corp) and revenue(g):
            g.apply(seat, Dividend("payout"))
    if still_operating(g, corp):
        try:
            g.apply(seat, Done())
        except GameError:
            g.apply(seat, BuyTrain(g.state.trains_offered[0].name))
            if still_operating(g, corp):
                g.apply(seat, Done())


def still_operating(g: Game, corp: str) -> bool:
    return not g.state.game_over and g.turn() is not None and now(g) == corp


def play_operating_round(g: Game, turn: Callable[[Game], None] = operate_plainly) -> list[str]:
    """Play the rest of the current operating round, each company by `turn`; returns the
    companies in the order they operated."""
    label = g.round_name
    order: list[str] = []
    while g.round_name == label and not g.state.game_over:
        order.append(now(g))
        turn(g)
    return order


def sell_privates(g: Game) -> None:
    """SR1 private sale: Ann TCC, Bob ETWCR, Cy MCR, Di OWR, Ann LNR (L&N par set after)."""
    play(g, ("Ann", BuyPrivate("TCC")), ("Bob", BuyPrivate("ETWCR")),
         ("Cy", BuyPrivate("MCR")), ("Di", BuyPrivate("OWR")), ("Ann", BuyPrivate("LNR")))


def three_company_opening(options: frozenset[str] = frozenset(),
                          end_stock_round: bool = True) -> Game:
    """Stock Round 1 ends with three companies floated; the game is at the start of OR 1.

    L&N par $70 (Ann, via LNR). TC par $90 (Bob 30%, Di, Ann, Cy 10% each), SR par $90
    (Cy 30%, Bob, Di, Ann 10% each): TC and SR share the $90 space, TC parred first so
    its token lies on top. Privates: Ann TCC, Bob ETWCR, Cy MCR, Di OWR.
    Cash after SR 1: Ann 75, Bob 50, Cy 20, Di 170; TC and SR $900, L&N $700.
    With `end_stock_round` False the game stays in Stock Round 1, all shares bought.
    """
    g = new_game(options)
    sell_privates(g)
    play(g, ("Ann", Par("L&N", 70)),
         ("Bob", Par("TC", 90)), ("Cy", Par("SR", 90)),
         ("Di", BuyShares("TC")), ("Ann", BuyShares("TC")),
         ("Bob", BuyShares("SR")), ("Cy", BuyShares("TC")),
         ("Di", BuyShares("SR")), ("Ann", BuyShares("SR")),
         ("Bob", BuyShares("TC")), ("Cy", BuyShares("SR")))
    if end_stock_round:
        pass_stock_round(g)
        assert g.round_name == "Operating Round 1.1"
    return g


def four_company_opening() -> Game:
    """Stock Round 1 ends with four companies floated; the game is at the start of OR 1.

    Privates: Ann TCC and LNR (so Ann presides the L&N, par $90), Cy ETWCR and MCR, Di OWR;
    Bob owns none. TC par $80: Bob 20% (president), Ann 20%, Cy 10%, Di 10%.
    GMO par $65: Cy 20% (president), Bob 20%, Di 10%, Ann 10%. NC&StL par $65: Di 30%
    (president), Bob 20%, Cy 10%; GMO was parred first, so its token lies on top.
    Cash after SR 1: Ann 30, Bob 30, Cy 65, Di 10.
    """
    g = new_game()
    play(g, ("Ann", BuyPrivate("TCC")), ("Bob", Pass()), ("Cy", BuyPrivate("ETWCR")),
         ("Di", Pass()), ("Ann", Pass()), ("Bob", Pass()), ("Cy", BuyPrivate("MCR")),
         ("Di", BuyPrivate("OWR")), ("Ann", BuyPrivate("LNR")), ("Ann", Par("L&N", 90)))
    play(g, ("Bob", Par("TC", 80)), ("Cy", Par("GMO", 65)), ("Di", Par("NC&StL", 65)),
         ("Ann", BuyShares("TC")),
         ("Bob", BuyShares("GMO")), ("Cy", BuyShares("TC")), ("Di", BuyShares("TC")),
         ("Ann", BuyShares("TC")),
         ("Bob", BuyShares("GMO")), ("Cy", BuyShares("NC&StL")), ("Di", BuyShares("GMO")),
         ("Ann", BuyShares("GMO")),
         ("Bob", BuyShares("NC&StL")), ("Cy", Pass()), ("Di", BuyShares("NC&StL")),
         ("Ann", Pass()), ("Bob", BuyShares("NC&StL")))
    pass_stock_round(g)
    assert g.round_name == "Operating Round 1.1"
    return g


def to_train_step(g: Game) -> None:
    """Pass the operating company's optional steps up to its train purchase."""
    corp = now(g)
    while g.turn() is not None and now(g) == corp and g.turn().step in (  # type: ignore[union-attr]
            "track", "token", "route", "dividend"):
        g.apply(president(g), Pass())


def buy_train_from(g: Game, seller: str, train: str, price: int) -> None:
    """The operating company buys `seller`'s train; the seller's president agrees (4.2.5(d))."""
    g.apply(president(g), BuyTrain(train, source=seller, price=price))
    turn = g.turn()
    if turn is not None and turn.step.startswith("answer"):
        g.apply(turn.seat, Accept())


def forced_purchase_position() -> Game:
    """OR 2.1 of `four_company_opening`, TC at its train step with $1, a route, no train.

    OR 1: the L&N buys a 2-train; TC lays 57 on Nashville and 4 on Lebanon (route F11-F13)
    and spends all its cash on the L&N's 2-train ($760). GMO and NC&StL do nothing.
    OR 2: the L&N buys the train back for $1. TC ($1) must now buy the cheapest train, a
    2-train for $80, and its president Bob has $30: he must sell stock (4.2.5.2).
    """
    return _tc_left_without_a_train(four_company_opening())


def bankruptcy_position() -> Game:
    """A president who cannot raise the money for a forced purchase (4.2.5.2, 6(c)).

    SR 1: Ann takes TCC and LNR (L&N par $90), Cy ETWCR and MCR, Di OWR. Bob pars TC at
    $80, buys Di's OWR for $210 and one more TC share: Bob 30% of TC and no cash; Ann
    30% of TC. Cy pars GMO at $65; Di buys 40% and presides it. As in
    `forced_purchase_position`, TC spends everything on the L&N's train and the L&N buys
    it back for $1 in OR 2. TC then has $1, a route and no train; Bob has only OWR's
    revenue ($40) and may not sell TC without handing its presidency to Ann. GMO operates
    after TC.
    """
    g = new_game()
    play(g, ("Ann", BuyPrivate("TCC")), ("Bob", Pass()), ("Cy", BuyPrivate("ETWCR")),
         ("Di", Pass()), ("Ann", Pass()), ("Bob", Pass()), ("Cy", BuyPrivate("MCR")),
         ("Di", BuyPrivate("OWR")), ("Ann", BuyPrivate("LNR")), ("Ann", Par("L&N", 90)))
    play(g, ("Bob", Par("TC", 80)), ("Cy", Par("GMO", 65)),
         ("Di", SellPrivate("OWR", "Bob", 210)), ("Bob", Accept()), ("Di", Done()),
         ("Ann", BuyShares("TC")), ("Bob", BuyShares("TC")), ("Cy", Pass()),
         ("Di", BuyShares("GMO")), ("Ann", BuyShares("TC")), ("Bob", Pass()), ("Cy", Pass()),
         ("Di", BuyShares("GMO")), ("Ann", BuyShares("TC")), ("Bob", Pass()), ("Cy", Pass()),
         ("Di", BuyShares("GMO")), ("Ann", Pass()), ("Bob", Pass()), ("Cy", Pass()),
         ("Di", BuyShares("GMO")))
    pass_stock_round(g)
    return _tc_left_without_a_train(g)


def bankruptcy_with_a_saleable_share() -> Game:
    """As `bankruptcy_position`, but Bob bought Ann's TCC ($5 a round) for $145 instead
    of OWR, and one GMO share: in OR 2 he has $10 and a GMO share worth $55 that he may
    sell, still $14 short of the $79 TC lacks."""
    g = new_game()
    play(g, ("Ann", BuyPrivate("TCC")), ("Bob", Pass()), ("Cy", BuyPrivate("ETWCR")),
         ("Di", Pass()), ("Ann", Pass()), ("Bob", Pass()), ("Cy", BuyPrivate("MCR")),
         ("Di", BuyPrivate("OWR")), ("Ann", BuyPrivate("LNR")), ("Ann", Par("L&N", 90)))
    play(g, ("Bob", Par("TC", 80)), ("Cy", Par("GMO", 65)), ("Di", BuyShares("GMO")),
         ("Ann", SellPrivate("TCC", "Bob", 145)), ("Bob", Accept()),
         ("Ann", BuyShares("TC")), ("Bob", BuyShares("TC")), ("Cy", Pass()),
         ("Di", BuyShares("GMO")), ("Ann", BuyShares("TC")), ("Bob", BuyShares("GMO")),
         ("Cy", Pass()), ("Di", BuyShares("GMO")), ("Ann", BuyShares("TC")))
    pass_stock_round(g)
    return _tc_left_without_a_train(g)


def _tc_left_without_a_train(g: Game, train_step: bool = True) -> Game:
    """From OR 1: the L&N buys a 2-train, TC builds F11-F13 and buys that train for $760,
    the others pass; OR 2: the L&N buys it back for $1. TC ($1, a route, no train) is
    left at its train step, or at the start of its turn (`train_step` False)."""
    assert g.round_name == "Operating Round 1.1"
    play(g, ("Ann", BuyTrain("2")))
    play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("4", "F13", 1)))
    buy_train_from(g, "L&N", "2", 760)
    play_operating_round(g, lambda g: g.apply(president(g), Done()))
    pass_stock_round(g)
    to_train_step(g)
    buy_train_from(g, "TC", "2", 1)
    if still_operating(g, "L&N"):
        g.apply("Ann", Done())
    assert now(g) == "TC"
    if train_step:
        to_train_step(g)
    return g


def tc_turn_begins_without_a_train() -> Game:
    """`forced_purchase_position`, but at the very start of TC's turn in OR 2.1."""
    return _tc_left_without_a_train(four_company_opening(), train_step=False)


def phase_4_three_trains() -> Game:
    """Game 7818, OR 5.1, phase 4 (train limit 3): TC buys the recorded 4-train and IC's
    3-train, then GMO's 3-train for $1 (TC: 4, 3, 3), which ends its turn."""
    g = record_game(OR_5_1_TC_TRAINS)
    replay_moves(g, OR_5_1_TC_TRAINS, OR_5_1_TC_TRAINS + 2)
    buy_train_from(g, "GMO", "3", 1)
    assert [t.name for t in g.state.corporations["TC"].trains] == ["4", "3", "3"]
    return g


def phase_5_discards() -> Game:
    """`phase_4_three_trains`, then NC&StL buys the recorded 4-train, GMO's other 3-train
    for $1 and the first 5-train: phase 5 (limit 2) leaves NC&StL (4, 3, 5) and TC
    (4, 3, 3) over the limit. The game stops where the discards are due."""
    g = phase_4_three_trains()
    if still_operating(g, "TC"):
        g.apply(P1, Done())
    replay_moves(g, 277, OR_5_1_NCSTL_BUYS_4 + 1)  # TN1 on Chattanooga, token, a 4-train
    buy_train_from(g, "GMO", "3", 1)
    g.apply(P2, BuyTrain("5"))
    return g


def discard(g: Game, choice: dict[str, str]) -> list[str]:
    """Make every discard that is due, `choice` naming each company's train; returns the
    companies in the order they were asked."""
    asked: list[str] = []
    while g.turn() is not None and g.turn().step == "discard a train":  # type: ignore[union-attr]
        corp = now(g)
        asked.append(corp)
        g.apply(president(g), DiscardTrain(choice[corp]))
    return asked


def civil_war_without_a_route() -> Game:
    """`three_company_opening` played until the fourth 3-train: TC and the L&N build,
    run, pay out and buy the next train every turn; SR buys one 2-train and never lays
    track (a train but no route). The L&N buys the fourth 3-train in OR 4.1 (phase 3½);
    SR operates next."""
    g = three_company_opening()

    def turn(g: Game) -> None:
        corp, seat = now(g), president(g)
        if corp == "SR":
            if not g.state.corporations["SR"].trains:
                g.apply(seat, BuyTrain("2"))
            if still_operating(g, corp):
                g.apply(seat, Done())
            return
        if corp == "TC" and "F11" not in g.state.board.tiles:
            play(g, (seat, LayTile("57", "F11", 1)), (seat, LayTile("4", "F13", 1)))
        if g.state.corporations[corp].trains:
            g.apply(seat, RunRoutes(auto=True))
            if still_operating(g, corp) and revenue(g):
                g.apply(seat, Dividend("payout"))
        if still_operating(g, corp):
            g.apply(seat, BuyTrain(g.state.trains_offered[0].name))
        if still_operating(g, corp):
            g.apply(seat, Done())

    while g.rules.phase(g.state).name != "3½":
        if g.round_name.startswith("Stock Round"):
            pass_stock_round(g)
        else:
            turn(g)
    assert g.round_name == "Operating Round 4.1" and now(g) == "SR"
    return g
