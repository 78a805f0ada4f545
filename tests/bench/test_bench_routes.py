"""How fast `run auto` finds the best run (pytest-benchmark: measured, never asserted
against a clock).

The positions: the hardest runs of the recorded game 7818 (an 8-train on the final
map, where the exhaustive search takes longest), two of them also through the
exhaustive search for comparison, and synthetic positions on a map tiled far more
densely than any real game (`moderator.cli.bench_routes.dense_position`) with two and three
long trains. The suite runs each once (`--benchmark-disable` in pyproject.toml);
`pytest tests/bench --benchmark-enable` measures and prints the table.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from engine import routes
from engine.actions import RunRoutes
from engine.game import Game
from engine.optimizer import Optimum, optimize
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from engine.rules import Rules
from engine.state import Corporation, GameState
from moderator.cli.bench_routes import dense_position

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"
# The runs of 7818 where the exhaustive search works longest (L&N and SR with an
# 8-train, IC with a 6-train, late in the game).
HARDEST = (565, 540, 557, 547)

Position = tuple[Rules, GameState, Corporation]


@functools.lru_cache(maxsize=1)
def positions() -> dict[int, Position]:
    """The positions just before the runs HARDEST (copies), and the last one."""
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    replay = import_record(json.loads(RECORD.read_text()))
    game = Game(replay.game.setup)
    out: dict[int, Position] = {}
    for number, move in enumerate(replay.game.log):
        rnd = game.round
        if number in HARDEST:
            assert isinstance(rnd, OperatingRound) and isinstance(move.action, RunRoutes)
            state = copy.deepcopy(game.state)
            out[number] = (game.rules, state, state.corporations[rnd.company().sym])
        game.apply(move.seat, move.action)
    return out


def dense(seed: int, trains: tuple[str, ...]) -> Position:
    rules, state, corp = positions()[max(HARDEST)]
    board = dense_position(rules, state, corp.sym, trains, seed)
    return rules, board, board.corporations[corp.sym]


def run(benchmark: BenchmarkFixture, find: Callable[[], Optimum], rounds: int) -> Optimum:
    result: Optimum = benchmark.pedantic(  # type: ignore[no-untyped-call]
        find, rounds=rounds, iterations=1, warmup_rounds=0)
    return result


@pytest.mark.parametrize("move", HARDEST)
def test_bench_recorded_run(benchmark: BenchmarkFixture, move: int) -> None:
    rules, state, corp = positions()[move]
    found = run(benchmark, lambda: optimize(rules, state, corp, budget=None), rounds=5)
    assert found.proven
    # 557: 330, not 340: the 340 run crossed the C12/D13 edge twice (4.2.3(b)).
    assert found.total == {565: 340, 540: 340, 557: 330}.get(move, 290)


@pytest.mark.parametrize("move", HARDEST[:2])
def test_bench_recorded_run_exhaustive(benchmark: BenchmarkFixture, move: int) -> None:
    """The exhaustive search of `engine.routes` on the same positions, for comparison."""
    rules, state, corp = positions()[move]
    revenue = benchmark.pedantic(  # type: ignore[no-untyped-call]
        lambda: routes.best_run(rules, state, corp).revenue, rounds=3, iterations=1)
    assert revenue == 340


@pytest.mark.parametrize(("seed", "trains"), [(1, ("8", "6")), (4, ("8", "8")),
                                              (2, ("6", "5", "4"))])
def test_bench_dense_position(benchmark: BenchmarkFixture, seed: int,
                              trains: tuple[str, ...]) -> None:
    """Tens of thousands of routes per train, searched to the end. The time is the
    benchmark's figure (compare it with the default budget in the notes); the test
    asserts only what a loaded machine cannot change: the run is proven and valid."""
    rules, state, corp = dense(seed, trains)
    found = run(benchmark, lambda: optimize(rules, state, corp, budget=None), rounds=1)
    assert found.proven
    assert routes.check_run(rules, state, corp, found.action()).revenue == found.total


def test_bench_routes_command_on_7818() -> None:
    """`moderator bench routes FILE`: every run matched or beaten, none short."""
    from click.testing import CliRunner

    from moderator.cli import main

    result = CliRunner().invoke(main, ["bench", "routes", str(RECORD)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for expected in ("runs checked: 68", "matched the recorded revenue: 53", "beat it: 15",
                     "fell short: 0", "refused by the order parser or routes.check_run: 0",
                     "not proven optimal: 0"):
        assert expected in lines
    assert any(line.startswith("time per run: p50 ") for line in lines)
