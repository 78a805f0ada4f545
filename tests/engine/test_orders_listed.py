"""The order forms a report lists ("What X may do now") offer a tile lay or a station
only when one is legal: a form listed for a map with no legal lay (1861's M-V, forced
to buy a train, was told `lay TILE at HEX rot N` above "The tiles M-V may lay now:
none") costs the player a round trip on an order that must be refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.game import Game
from engine.legal import LAY_FORM, TOKEN_FORM, legal_tile_lays, legal_token_places, orders_listed
from engine.records import import_record
from engine.rounds.operating import OperatingRound

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


@pytest.mark.slow  # (every third track or token step of two recorded games, judged whole)
@pytest.mark.parametrize("record", ["18TN/7818.json", "1861/167259.json"])
def test_a_lay_or_station_is_listed_exactly_when_one_is_legal(record: str) -> None:
    replayed = import_record(json.loads((FIXTURES / record).read_text())).game
    game = Game(replayed.setup)
    dropped = {"lay": 0, "token": 0}
    kept = {"lay": 0, "token": 0}
    for number, move in enumerate(replayed.log):
        turn = game.turn()
        if number % 3 == 0 and turn is not None and turn.step in ("track", "token") \
                and isinstance(game.round, OperatingRound):
            forms = game.legal()
            listed = orders_listed(game)
            if LAY_FORM in forms:
                has = bool(legal_tile_lays(game))
                assert (LAY_FORM in listed) == has, (number, listed)
                (kept if has else dropped)["lay"] += 1
            if any(line.startswith(TOKEN_FORM + " (") for line in forms):
                has = bool(legal_token_places(game))
                assert any(line.startswith(TOKEN_FORM + " (") for line in listed) == has
                (kept if has else dropped)["token"] += 1
            # Nothing else is taken away.
            assert [line for line in forms if line in listed] == listed
        game.apply(move.seat, move.action)
    assert kept["lay"] and dropped["lay"] + dropped["token"], (kept, dropped)
