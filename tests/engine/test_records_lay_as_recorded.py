"""A lay the site accepted and ours refuses for its connection alone is replayed as the
record has it (`LayTile.as_recorded`).

18xx.games accepts a tile when any exit of it lies on a hex edge its graph of the
company reaches; the rulebooks ask that a route of the company reach the new track
(docs/site-differences.md, 1861 10.4). Since our reach became what some route reaches
(no track used twice), four of fifteen random 1825 games of seed 3601 held such a lay,
which the site had accepted: e.g. seed 3601 game 20 (tests/fixtures/1825), LNWR's
promotion of T18 at record action 577. The importer replays those as recorded, so a
real game keeps importing; a player's order is never marked so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.actions import LayTile, from_json, to_json
from engine.errors import GameError
from engine.game import Game
from engine.records.reading import import_record
from grammar.errors import OrderError
from grammar.names import names_for_title
from grammar.parser import parse_line

RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "1825" / "random-3601-20.json"


@pytest.fixture(scope="module")
def replayed() -> Game:
    return import_record(json.loads(RECORD.read_text())).game


def test_the_sites_lay_is_replayed_as_recorded_and_ours_would_refuse_it(replayed: Game
                                                                       ) -> None:
    marked = [i for i, move in enumerate(replayed.log)
              if isinstance(move.action, LayTile) and move.action.as_recorded]
    assert marked, "the record's promotion of T18 is replayed as recorded"
    first = replayed.log[marked[0]]
    assert isinstance(first.action, LayTile) and first.action.hex == "T18"
    # The same lay as a player's order, at the same position: refused for its reach.
    before = Game(replayed.setup, replayed.log[:marked[0]])
    plain = LayTile(first.action.tile, first.action.hex, first.action.rotation)
    with pytest.raises(GameError, match=r"adds no track LNWR reaches \(5\.2\.4\.a\)"):
        before.apply(first.seat, plain)
    # Every other lay of the record is ours to accept as it stands.
    assert all(not m.action.as_recorded for i, m in enumerate(replayed.log)
               if isinstance(m.action, LayTile) and i not in marked)


def test_a_game_with_such_a_lay_loads_again_from_its_log(replayed: Game) -> None:
    # The mark goes with the move into the store and back (`import` keeps the game).
    moves = [type(m)(m.seat, from_json(to_json(m.action))) for m in replayed.log]
    again = Game(replayed.setup, moves)
    assert again.scores() == replayed.scores()
    assert again.state.board.tiles == replayed.state.board.tiles


def test_no_order_of_a_player_carries_the_mark(replayed: Game) -> None:
    # The order language has no word for it: a lay read from a mail is a plain lay.
    names = names_for_title(replayed.rules.title, replayed.setup.seats)
    (lay,) = parse_line("lay 55 at T18 rot 2", names)
    assert lay == LayTile("55", "T18", 2) and not lay.as_recorded
    with pytest.raises(OrderError):
        parse_line("lay 55 at T18 rot 2 as recorded", names)
