"""Measuring the route optimizer against recorded games (`moderator bench routes`).

Before every run a company made in a recorded game, the route optimizer
(`engine.optimizer`) is asked for the best run: it must never earn less than what the
players ran, and may find more. `dense_position` builds synthetic positions, far denser
than real games, to watch how the search scales.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from moderator.cli.bench_replay import percentile

if TYPE_CHECKING:
    from engine.actions import RunRoutes
    from engine.game import Game
    from engine.rules import Rules
    from engine.state import Corporation, GameState


# --- positions ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunPosition:
    """A company about to run its trains in a recorded game: the game stands just
    before `move` (live: the next step of `run_positions` applies the move)."""

    record: str
    move: int
    game: Game
    corp: Corporation
    recorded: RunRoutes

    @property
    def label(self) -> str:
        return f"{self.record} move {self.move}, {self.game.round_name}, {self.corp.sym}"


def run_positions(record: Path) -> Iterator[RunPosition]:
    """Every run in a recorded game, in order: the record is imported, then its log is
    replayed with `Game(setup)` + `apply`, stopping before each run."""
    from engine.actions import RunRoutes
    from engine.game import Game
    from engine.records import import_record
    from engine.rounds.operating import OperatingRound

    replay = import_record(json.loads(record.read_text()))
    game = Game(replay.game.setup)
    for number, move in enumerate(replay.game.log):
        rnd = game.round
        if (isinstance(move.action, RunRoutes) and isinstance(rnd, OperatingRound)
                and rnd.current is not None):
            yield RunPosition(record.name, number, game, rnd.company(), move.action)
        game.apply(move.seat, move.action)


def importable_records(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The records our engine imports, and a line on each one it does not."""
    from engine.errors import GameError
    from engine.records import RecordError, import_record

    ok: list[Path] = []
    skipped: list[str] = []
    for path in paths:
        try:
            import_record(json.loads(path.read_text()))
        except (GameError, RecordError, ValueError, KeyError) as exc:
            skipped.append(f"{path}: {exc}")
            continue
        ok.append(path)
    return ok, skipped


def dense_position(rules: Rules, base: GameState, corp: str, trains: Sequence[str],
                   seed: int, lays: int = 60) -> GameState:
    """A copy of `base` with far more track: in turn for yellow, green, brown and
    gray, up to `lays` random tiles of that colour laid wherever a tile of the title
    may legally replace what is there (upgrade rules and map edges; the tile supply
    and the connection to a station are ignored), and `corp` given `trains`."""
    from engine import board
    from engine.state import PlacedTile, Train

    state = copy.deepcopy(base)
    rng = random.Random(seed)
    title = state.title
    hexes = sorted(h for h, spec in title.hexes.items() if spec.buildable)
    for colour in ("yellow", "green", "brown", "gray"):
        tiles = sorted(name for name, tile in title.tiles.items() if tile.color == colour)
        laid = 0
        for _ in range(20 * lays):
            if laid >= lays or not tiles:
                break
            hex_id, name = rng.choice(hexes), rng.choice(tiles)
            rotations = board.legal_rotations(rules, state, hex_id, name)
            if rotations:
                state.board.tiles[hex_id] = PlacedTile(name, rng.choice(rotations))
                laid += 1
    state.corporations[corp].trains = [Train(name, f"{name}-dense{i}")
                                       for i, name in enumerate(trains)]
    return state


# --- the measurement ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Better:
    """A run the optimizer found that earns more than the one recorded."""

    label: str
    recorded: int
    best: int
    order: str


@dataclass(frozen=True)
class RoutesBench:
    """What `bench_routes` measured (the lists are filled while it runs)."""

    better: list[Better] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    short: list[str] = field(default_factory=list)
    unproven: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    exhaustive: list[float] = field(default_factory=list)
    disagree: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # runs the engine or grammar refuse

    @property
    def checked(self) -> int:
        return len(self.seconds)


def bench_routes(records: Sequence[Path], budget: float | None,
                 exhaustive: bool = False) -> RoutesBench:
    """Before every recorded run, the optimizer's best run against the recorded one
    (and, with `exhaustive`, against the exhaustive search of `engine.routes`)."""
    import time

    from engine import routes
    from engine.optimizer import optimize
    from grammar.format import format_order
    from grammar.names import names_for_title
    from grammar.parser import parse_line

    out = RoutesBench()
    for record in records:
        for pos in run_positions(record):
            rules, state = pos.game.rules, pos.game.state
            recorded = routes.check_run(rules, state, pos.corp, pos.recorded).revenue
            found = optimize(rules, state, pos.corp, budget=budget)
            out.seconds.append(found.seconds)
            if not found.proven:
                out.unproven.append(pos.label)
            # The run must read back as the same order and pass the engine's own check.
            names = names_for_title(state.title, state.seats)
            order = format_order(found.action(), names)
            again = routes.check_run(rules, state, pos.corp, found.action()).revenue
            if parse_line(order, names) != (found.action(),) or again != found.total:
                out.invalid.append(f"{pos.label}: {order} (checked: {again})")
            if found.total == recorded:
                out.matched.append(pos.label)
            elif found.total > recorded:
                out.better.append(Better(pos.label, recorded, found.total, order))
            else:
                out.short.append(f"{pos.label}: recorded {recorded}, found {found.total}")
            if exhaustive:
                started = time.perf_counter()
                oracle = routes.best_run(rules, state, pos.corp)
                out.exhaustive.append(time.perf_counter() - started)
                if oracle.revenue != found.total:
                    out.disagree.append(f"{pos.label}: exhaustive {oracle.revenue}, "
                                        f"optimizer {found.total}")
    return out


def milliseconds(seconds: float) -> str:
    """SECONDS written in milliseconds."""
    return f"{seconds * 1000:.1f} ms"


def time_spread(seconds: Sequence[float]) -> str:
    """p50, p95 and max of SECONDS, in milliseconds."""
    return (f"p50 {milliseconds(percentile(seconds, 0.5))}, "
            f"p95 {milliseconds(percentile(seconds, 0.95))}, max {milliseconds(max(seconds))}")


