"""Measuring the engine: `moderator bench routes`.

`bench routes` replays recorded games and, before every run a company made, asks the
route optimizer (`engine.optimizer`) for the best run: it must never earn less than
what the players ran, and may find more. It prints how the two compared and how long
the optimizer took. `--dense` adds synthetic positions, far denser than real games,
to watch how the search scales.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.optimizer import DEFAULT_BUDGET
from moderator.cli.bench_replay import FIXTURES, legal_command, percentile, replay_command

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


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _times(seconds: Sequence[float]) -> str:
    return (f"p50 {_ms(percentile(seconds, 0.5))}, p95 {_ms(percentile(seconds, 0.95))}, "
            f"max {_ms(max(seconds))}")


@click.group("bench")
def bench() -> None:
    """Measure the engine on recorded games, and the service under a burst of mail."""


bench.add_command(replay_command)
bench.add_command(legal_command)


@bench.command("routes")
@click.argument("files", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--budget", type=float, default=DEFAULT_BUDGET, show_default=True,
              help="Seconds the optimizer may search per run.")
@click.option("--exhaustive", is_flag=True,
              help="Also time the exhaustive search and check that it agrees.")
@click.option("--dense", type=int, default=0, metavar="N",
              help="Also N synthetic positions: the last recorded run on a map tiled at "
              "random, with the trains of --trains.")
@click.option("--trains", default="8,8,8", show_default=True,
              help="The trains of the company in the --dense positions.")
def routes_command(files: tuple[Path, ...], budget: float, exhaustive: bool, dense: int,
                   trains: str) -> None:
    """Check `run auto` against every run in recorded games (FILES; default: the
    records under shared/fixtures that the engine imports)."""
    paths = list(files) or sorted(FIXTURES.glob("*/*.json"))
    if not paths:
        raise click.UsageError(f"no records given and none under {FIXTURES}")
    records, skipped = importable_records(paths)
    for line in skipped:
        click.echo(f"skipped {line}")
    if not records:
        raise click.UsageError("none of the records can be imported")
    result = bench_routes(records, budget, exhaustive)
    click.echo(f"records: {', '.join(str(r) for r in records)}")
    click.echo(f"runs checked: {result.checked}")
    click.echo(f"matched the recorded revenue: {len(result.matched)}")
    click.echo(f"beat it: {len(result.better)}")
    for b in result.better:
        click.echo(f"  {b.label}: recorded {b.recorded}, best {b.best}: {b.order}")
    click.echo(f"fell short: {len(result.short)}")
    for line in result.short:
        click.echo(f"  {line}")
    click.echo(f"refused by the order parser or routes.check_run: {len(result.invalid)}")
    for line in result.invalid:
        click.echo(f"  {line}")
    click.echo(f"not proven optimal: {len(result.unproven)}")
    for line in result.unproven:
        click.echo(f"  {line}")
    if result.seconds:
        click.echo(f"time per run: {_times(result.seconds)}")
    if exhaustive and result.exhaustive:
        click.echo(f"exhaustive search per run: {_times(result.exhaustive)}; "
                   f"disagreements: {len(result.disagree)}")
        for line in result.disagree:
            click.echo(f"  {line}")
    if dense:
        _bench_dense(records[-1], dense, budget, tuple(t.strip() for t in trains.split(",")))
    if result.short or result.disagree or result.invalid:
        raise SystemExit(1)


def _bench_dense(record: Path, count: int, budget: float, trains: tuple[str, ...]) -> None:
    from engine.optimizer import compress, optimize
    from engine.routes import route_track, stop_value

    last: tuple[Rules, GameState, str] | None = None
    for pos in run_positions(record):
        last = (pos.game.rules, copy.deepcopy(pos.game.state), pos.corp.sym)
    if last is None:
        return
    rules, base, corp = last
    click.echo(f"dense positions ({corp} with trains {', '.join(trains)}, budget {budget} s):")
    for seed in range(count):
        state = dense_position(rules, base, corp, trains, seed)
        company = state.corporations[corp]
        net = compress(state, route_track(rules, state), corp,
                       functools.partial(stop_value, rules, state))
        found = optimize(rules, state, company, budget=budget)
        click.echo(f"  seed {seed}: {len(net.stops)} stops, {len(net.links)} links, "
                   f"{found.routes_listed} routes listed: {found.total} "
                   f"{'proven' if found.proven else 'NOT proven'} in {_ms(found.seconds)} "
                   f"({found.nodes} steps)")
