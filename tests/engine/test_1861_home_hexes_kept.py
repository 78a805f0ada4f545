"""1861 9.3: the cities free for a public company's home are kept on the map's track
graph (`t1861_auctions._home_hexes`), keyed by the stations, the closed companies and
the RSR's reservations. At every position of the recorded game and of two kept random
games, the kept answer for every public company equals the one worked out afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import routes
from engine.game import Game
from engine.records import import_record
from engine.titles import t1861_auctions

ROOT = Path(__file__).resolve().parents[2]
RECORDS = (ROOT.parent / "shared" / "fixtures" / "1861" / "167259.json",
           ROOT / "tests" / "fixtures" / "1861" / "random-5-0.json",
           ROOT / "tests" / "fixtures" / "1861" / "random-9-3.json")


def afresh(game: Game, sym: str) -> tuple[str, ...]:
    state = game.state
    if any(sym in c for cities in state.board.tokens.values() for c in cities.values()):
        return ()
    graph = routes.route_track(game.rules, state)
    return tuple(h for h in state.title.hexes
                 if t1861_auctions._home_city(game.rules, state, sym, h, graph) is not None)


@pytest.mark.slow
@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.name)
def test_the_kept_home_cities_equal_those_worked_out_afresh(record: Path) -> None:
    whole = import_record(json.loads(record.read_text())).game
    game = Game(whole.setup)
    majors = [c.sym for c in game.state.corporations.values() if c.spec.kind == "major"]
    asked = 0
    for move in whole.log:
        for sym in majors:
            kept = t1861_auctions._home_hexes(game.rules, game.state, sym)
            assert kept == afresh(game, sym), (record.name, game.next_move, sym)
            asked += 1
        game.apply(move.seat, move.action)
    assert asked > 1000
