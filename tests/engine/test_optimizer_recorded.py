"""An oracle for the route model that does not share it: every run in every recorded
game of a playable title.

A record's runs were accepted by the 18xx.games engine, and replaying the record
reaches the record's final scores (tests/engine/test_import_records.py), so each
recorded run is legal and earns what we value it at. Our model must therefore accept
every recorded run (`routes.check_run` on the declared hexes), and the best run
(`optimize`, exhaustive `routes.best_run`) must earn at least as much. Records come
from the shared fixtures and from the suite's own `tests/fixtures/` (games of ours
exported and replayed by the site).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from legal_check import edges_crossed_twice
from site_results import accepted_part

from engine import routes
from engine.actions import RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.optimizer import optimize
from engine.records import import_record, our_options
from engine.rounds.operating import OperatingRound
from engine.titles import rules_for

SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
OURS = Path(__file__).resolve().parents[1] / "fixtures"


def playable_records() -> list[Path]:
    """Every record whose title our engine plays."""
    out = []
    for folder in (SHARED, OURS):
        for path in sorted(folder.glob("*/*.json")):
            record = json.loads(path.read_text())
            title = str(record.get("title"))
            options = our_options(title, record.get("settings", {}).get("optional_rules") or ())
            try:
                rules_for(title, options)  # (1825 with the Regional Kit R1: not yet)
            except (GameError, KeyError, ValueError, FileNotFoundError):
                continue
            out.append(path)
    return out


def recorded_runs(path: Path) -> Iterator[tuple[int, Game, RunRoutes]]:
    """The game just before each recorded run, and the run (one live game: use each
    position before asking for the next)."""
    replay = import_record(accepted_part(path))
    game = Game(replay.game.setup)
    for number, move in enumerate(replay.game.log):
        if isinstance(move.action, RunRoutes) and isinstance(game.round, OperatingRound):
            yield number, game, move.action
        game.apply(move.seat, move.action)


def test_the_shared_records_include_a_playable_game() -> None:
    if not SHARED.exists():
        pytest.fail(f"fixtures {SHARED} are missing: shared/ must sit beside the repository")
    assert SHARED / "18TN" / "7818.json" in playable_records()


# (1861's long trains on its large map were left to a budgeted check until the search
# bounded skipped towns by what fits the train, #33: now each run is proven in < 0.5 s.)
@pytest.mark.parametrize("path", playable_records(),
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_4_2_3_every_recorded_run_is_legal_and_no_better_than_the_best(path: Path) -> None:
    for number, game, recorded in recorded_runs(path):
        rules, state = game.rules, game.state
        corp = state.corporations[game.round.company().sym]  # type: ignore[attr-defined]
        if recorded.auto or not recorded.routes:
            continue
        revenue = routes.check_run(rules, state, corp, recorded).revenue
        found = optimize(rules, state, corp, budget=None)
        assert found.proven, number
        assert found.total >= revenue, number
        assert not edges_crossed_twice([r.walk.hexes for r in found.run.runs]), number
        assert routes.check_run(rules, state, corp, found.action()).revenue == found.total


SITE_VALUES = OURS / "site_best_runs"


@pytest.mark.parametrize("values", sorted(SITE_VALUES.glob("*.json")), ids=lambda p: p.stem)
def test_4_2_3_1_the_best_run_is_what_the_18xx_games_engine_finds(values: Path) -> None:
    """Positions whose best runs the 18xx.games engine valued (its own route rules and
    track model, see the data file's "what"): the optimizer proves the same figure.
    In 7818 it is 320 before move 473 and 330 before move 557, not the 330 and 340
    of a model that let a route cross a hex edge twice."""
    data = json.loads(values.read_text())
    record = Path(__file__).resolve().parents[3] / data["record"]
    if not record.exists():
        pytest.fail(f"fixture {record} is missing: shared/ must sit beside the repository")
    # The positions come one at a time (the game moves on after each).
    for (number, game, _recorded), expected in zip(recorded_runs(record), data["runs"],
                                                    strict=True):
        corp = game.round.company()  # type: ignore[attr-defined]
        assert corp.sym == expected["corporation"], number
        # The site names some trains by variant ("3'" for a 3-train): count them.
        assert len(corp.trains) == len(expected["trains"]), number
        found = optimize(game.rules, game.state, corp, budget=None)
        assert found.proven, number
        assert found.total == expected["best"], (number, corp.sym)
