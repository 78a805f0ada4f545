"""Games for the 1861 rule tests, played through `Game.apply` with real actions.

Four players, Ann, Bob, Cy and Dee, Ann holding the Priority Deal: each starts with
R315 (3). `privates_at_minimum` sells the five privates in the order of Table 1 at
their minimum bids, each to the player whose turn it is (Ann TSR R20, Bob BSS R30, Cy
MYR R40, Dee MRR R50, Ann WVR R60); `sell_minor` auctions a minor to its proposer at
his opening bid (everyone else passes).
"""

from __future__ import annotations

import json
from pathlib import Path

from scenario_moves import seat_to_act

from engine.actions import Bid, Done, Pass, StartAuction
from engine.game import Game, Setup
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.operating import OperatingRound

SEATS = ("Ann", "Bob", "Cy", "Dee")
RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "1861" / "167259.json"


def new_game(seats: tuple[str, ...] = SEATS, options: frozenset[str] = frozenset()) -> Game:
    return Game(Setup("1861", seats, 0, options, priority=seats[0]))


now = seat_to_act


def win_lot(g: Game) -> None:
    """Everyone but the high bidder passes in the auction under way."""
    rnd = g.round
    assert isinstance(rnd, AuctionStockRound)
    while rnd.lot is not None:
        g.apply(now(g), Pass())


def privates_at_minimum(g: Game) -> None:
    """9.4: each private goes to the player whose turn it is, at its minimum bid."""
    for sym, price in (("TSR", 20), ("BSS", 30), ("MYR", 40), ("MRR", 50), ("WVR", 60)):
        g.apply(now(g), Bid(price, sym))
        win_lot(g)


def sell_minor(g: Game, minor: str, price: int) -> str:
    """The player whose turn it is proposes `minor` at `price` and wins it."""
    seat = now(g)
    g.apply(seat, StartAuction(minor, price))
    win_lot(g)
    return seat


def pass_round(g: Game) -> None:
    """Every player passes: the stock round ends."""
    while isinstance(g.round, AuctionStockRound):
        g.apply(now(g), Pass())


def finish_turn(g: Game) -> None:
    """The operating company ends its turn (`done`)."""
    g.apply(now(g), Done())


def finish_round(g: Game) -> None:
    """Every company ends its turn at once; merger rounds are passed."""
    kind = type(g.round)
    while type(g.round) is kind and g.turn() is not None:
        g.apply(now(g), Done() if isinstance(g.round, OperatingRound) else Pass())


def first_operating_round() -> Game:
    """Privates at their minimums; then Bob N R140 (R70), Cy M-K R120 (R60), Dee K-B
    R100 (R50), Ann SP-W R100 (R50); everyone passes. Cash afterwards: Ann 135, Bob
    145, Cy 155, Dee 165; OR 1.1 begins and the privates pay (Ann 175, Bob 160, Cy
    175, Dee 190); N operates first (R70)."""
    g = new_game()
    privates_at_minimum(g)
    assert now(g) == "Bob"
    sell_minor(g, "N", 140)
    sell_minor(g, "M-K", 120)
    sell_minor(g, "K-B", 100)
    sell_minor(g, "SP-W", 100)
    pass_round(g)
    assert isinstance(g.round, OperatingRound)
    return g


def record() -> dict[str, object]:
    data: dict[str, object] = json.loads(RECORD.read_text())
    return data


def record_game(stop_before_id: int) -> Game:
    """Record 167259 replayed up to (not including) the site action `stop_before_id`,
    with the moves the site makes unrecorded that come before it."""
    from engine.records import (
        RecordMapper,
        expanded,
        folded_actions,
        replay_action,
        setup_of,
    )

    data = record()
    setup, names = setup_of(data)
    g = Game(setup)
    mapper = RecordMapper(g, names)
    actions = folded_actions(data["actions"])  # type: ignore[arg-type]
    with g.reading_log():  # no copy of the position before each action (engine.game)
        for index, raw in enumerate(expanded(actions)):
            if raw.get("id") == stop_before_id:
                break
            replay_action(g, mapper, index, raw)
    return g
