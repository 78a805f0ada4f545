"""4.2.3.1: a declared run below the maximum stands, and the players are told the
maximum and the routes that reach it (in the order language, so a shareholder can quote
it back)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.actions import RunRoutes
from engine.game import Game
from engine.records import import_record
from grammar.names import names_for_title
from grammar.parser import parse_line

FIXTURE = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"


def test_a_lower_declared_run_stands_and_the_best_run_is_named() -> None:
    record = import_record(json.loads(FIXTURE.read_text()))
    game = Game(record.game.setup)
    names = names_for_title(game.rules.title, game.setup.seats)
    told = 0
    for move in record.game.log:
        said = game.apply(move.seat, move.action)
        notes = [line for line in said if line.startswith("the best run for ")]
        if not isinstance(move.action, RunRoutes):
            assert notes == []
            continue
        if not notes:
            continue
        told += 1
        # The declared run was applied as declared, not replaced by the better one.
        assert any(" runs for $" in line for line in said)
        best = notes[0]
        total = int(best.split(" earns $")[1].split(":")[0])
        declared = int(next(line for line in said if " runs for $" in line)
                       .split(" runs for $")[1].split(":")[0])
        assert total > declared
        order = "run " + best.split(": run ", 1)[1].split(" - ")[0]
        (parsed,) = parse_line(order, names)
        assert isinstance(parsed, RunRoutes) and len(parsed.routes) >= 1
    assert told == 15  # the runs the bench finds beaten in this record (4.2.3(b))
