"""1850 5.3.3 with 10.7.2: a president's sale for a train is one block a company, so
the list of legal actions holds the sale of each size he may make, on positions of the
recorded game 115810 (the moves before a given one of its actions)."""

from __future__ import annotations

import functools
import json

import pytest
from scenarios_1850 import RECORD

from engine import legal
from engine.actions import BuyTrain, Dividend, Pass, PlaceToken, SellShares
from engine.errors import GameError
from engine.game import Game, Move
from engine.records import import_record
from engine.rounds.operating import OperatingRound


@functools.cache
def _log() -> tuple[Game, tuple[Move, ...]]:
    replay = import_record(json.loads(RECORD.read_text()))
    return replay.game, tuple(replay.game.log)


def _first(kind: type, after: int = 0, **fields: object) -> int:
    return next(i for i, m in enumerate(_log()[1]) if i >= after and isinstance(
        m.action, kind) and all(getattr(m.action, k) == v for k, v in fields.items()))


def _before(n: int) -> Game:
    game, log = _log()
    return Game(game.setup, log[:n])


def _sales(g: Game) -> set[tuple[str, int]]:
    return {(a.corporation, a.count or 0) for a in legal.legal_actions(g)
            if isinstance(a, SellShares)}


def test_5_3_3_the_legal_sales_for_a_train_are_whole_blocks() -> None:
    """5.3.3: "If a player sells more than one share in a company he must sell them in
    one block." In the record Player 1 raises UP's 8-train by selling 30% of KATY, 20%
    of UP and 10% of SOO. A second sale of KATY is refused, so 30% of it is one
    order: the legal actions list it (and each block he may sell), and the record's
    sale of 30% is among them."""
    n = _first(SellShares, corporation="KATY", percent=30)
    g = _before(n)
    assert isinstance(g.round, OperatingRound) and g.round.company().sym == "UP"
    sales = _sales(g)
    assert {("KATY", 1), ("KATY", 2), ("KATY", 3)} <= sales
    g.apply("Player 1", SellShares("KATY", 3))
    assert g.state.corporation("KATY").percent_held_by("Player 1") == \
        _before(n).state.corporation("KATY").percent_held_by("Player 1") - 30
    assert not any(sym == "KATY" for sym, _ in _sales(g))
    with pytest.raises(GameError, match=r"one block \(5\.3\.3\)"):
        g.clone().apply("Player 1", SellShares("KATY", 1))


def test_10_7_2_a_sale_that_must_be_20_percent_is_listed() -> None:
    """10.7.2: "if the president is forced to sell a share in a company that he owns
    more than 60% of and the stock is not in the coloured portion of the stock market
    (green or brown), he must sell down to the 60% limit." A position of our own from
    the record's: CBQ buys RI's 5-train for $1 in OR 6.3 (Player 2 presides over both),
    and RI opens OR 7.1 without a train; after its station ($100) the 10-train ($950)
    lacks $34. Player 2 holds 80% of RI in the white area: RI's only sale is 20%, listed
    as a legal action, and 10% is not."""
    soo = _first(SellShares, corporation="SOO")
    n = _first(Dividend, after=_first(Dividend, after=soo) + 1) + 1
    _, log = _log()
    assert log[n] == Move("Player 2", Pass())
    g = _before(n)
    g.apply("Player 2", BuyTrain("5", "RI", 1))
    for m in log[n + 1:]:
        if isinstance(g.round, OperatingRound) and g.state.stock_round_number == 7:
            break
        g.apply(m.seat, m.action)
    assert isinstance(g.round, OperatingRound) and g.round.company().sym == "RI"
    g.apply("Player 2", PlaceToken("K14", 0))
    assert g.state.corporation("RI").percent_held_by("Player 2") == 80
    sales = _sales(g)
    assert ("RI", 2) in sales and ("RI", 1) not in sales
    g.apply("Player 2", SellShares("RI", 2))
    assert g.state.corporation("RI").percent_held_by("Player 2") == 60
