"""1861 10.2: a company short of money for a tile lay takes loans for it, so the lay is
legal, and the tile lays listed for it (report, `legal`, the random players) include it.

The listing's money check compared the company's cash with the terrain alone: a lay
paid with a loan, or a second lay whose R20 fee (10.4) and terrain needed one, was
accepted when written but never listed (found by the differential check, 1861 seed
3501 game 201 move 196: K-K with R31 laying 7 at E15, R40 terrain and the R20 fee).

Positions are those of the recorded 1861 game 167259 at its tile lays, with the
operating company's treasury cut so that some lays need loans: what is listed must be
exactly what the round accepts, tried one by one on copies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import board, loans
from engine.actions import LayTile
from engine.game import Game
from engine.legal import legal_tile_lays
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from engine.state import BANK, Corporation

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "1861" / "167259.json"


def lay_positions() -> Iterator[tuple[Game, str]]:
    """The game just before each recorded tile lay whose company may still take a loan,
    with the seat laying (one game, advanced in place)."""
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    recorded = import_record(json.loads(RECORD.read_text())).game
    game = Game(recorded.setup)
    for move in recorded.log:
        rnd = game.round
        if isinstance(move.action, LayTile) and isinstance(rnd, OperatingRound) and \
                loans.room(game.rules, game.state, rnd.company()) > 0:
            yield game, move.seat
        game.apply(move.seat, move.action)


def company(game: Game) -> Corporation:
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    return rnd.company()


def with_cash(game: Game, cash: int) -> Game:
    """A copy of GAME whose operating company has CASH (the difference to or from the
    bank)."""
    copy = game.clone()
    corp = company(copy)
    if cash < corp.cash:
        copy.state.transfer_cash(corp.sym, BANK, corp.cash - cash)
    else:
        copy.state.transfer_cash(BANK, corp.sym, cash - corp.cash)
    return copy


def cost_of(game: Game, lay: LayTile) -> int:
    """What the round charges for LAY: the further lay's fee, terrain and upgrade."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    corp, rules, state = rnd.company(), game.rules, game.state
    return rules.lay_fee(state, corp, len(rnd.current.lay_hexes)) + \
        board.terrain_cost(rules, state, lay.hex) + \
        rules.upgrade_cost(state, lay.hex, state.title.tile(lay.tile))


@pytest.mark.slow
def test_a_lay_paid_with_a_loan_is_listed_exactly_when_the_round_accepts_it() -> None:
    needing_loans = checked = 0
    for number, (game, seat) in enumerate(lay_positions()):
        if number % 3:
            continue  # every third recorded lay: enough positions, a minute's work
        candidates = legal_tile_lays(with_cash(game, 10_000))  # all money could buy
        for cash in (0, 15, 35):
            short = with_cash(game, min(cash, company(game).cash))
            corp_cash = company(short).cash
            listed = set(legal_tile_lays(short))
            accepted = {lay for lay in candidates if short.clone().attempt(seat, lay)}
            assert listed == accepted, (number, cash, listed ^ accepted)
            needing_loans += sum(cost_of(short, lay) > corp_cash for lay in listed)
            checked += 1
    assert checked >= 20
    assert needing_loans > 0  # the positions hold lays only a loan pays for
