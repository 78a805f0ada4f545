"""Measuring the engine's speed: `moderator bench replay` and `moderator bench legal`.

The engine is event-sourced, so replay speed is the service's speed. For every record
this prints our replay time next to the 18xx.games engine's own (the "oracle", when its
driver and a copy of the site's lib/ are at hand), and the ratio; then the time of
`legal_actions` over every position of one record, of one order applied to a game held
in memory, and the replay curve (actions against time) of the longest record.

Both sides are timed the same way: the record is read and parsed first (not timed), then
the replay alone is timed, several times, and the fastest run is kept. Ours is
`import_record` (the site's actions mapped onto ours, each one checked); the replay of
our own log of the same game (`Game(setup, moves)`, what the service does after a
restart) is shown beside it.

`bench legal` times `legal_actions` alone at every position of one record, by round and
step: the first call at each position (what the service pays), and with `--runs` the
fastest of several (the machine's load left out).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

REPO = Path(__file__).resolve().parents[2]
# The shared fixtures sit beside the repository (as for `bench routes`).
FIXTURES = REPO.parent / "shared" / "fixtures"
DEFAULT_DRIVER = REPO / "tools" / "oracle" / "driver.rb"
LEGAL_RECORD = FIXTURES / "18TN" / "7818.json"


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..1) of `values`."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


# --- our engine ---------------------------------------------------------------------------


def fastest(run: Callable[[], object], runs: int) -> float:
    """The fastest of `runs` timed calls, in seconds."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


@dataclass(frozen=True, slots=True)
class OurReplay:
    """Our engine on one record: import time, replay of our log, moves; or why not."""

    seconds: float | None = None
    log_seconds: float | None = None
    moves: int = 0
    error: str | None = None


def our_replay(record: dict[str, Any], runs: int) -> OurReplay:
    from engine.errors import GameError
    from engine.game import Game
    from engine.records import RecordError, import_record

    try:
        game = import_record(record).game
    except (GameError, RecordError, ValueError, KeyError) as exc:
        return OurReplay(error=str(exc).splitlines()[0][:100])
    moves = list(game.log)
    return OurReplay(fastest(lambda: import_record(record), runs),
                     fastest(lambda: Game(game.setup, moves), runs), len(moves))


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """Moves replayed so far, the time since the start, the time of the moves since the
    previous point, and the time of those same moves replayed from a copy of the game
    made just before them (as when a game is rebuilt from a kept snapshot)."""

    moves: int
    seconds: float
    segment: float
    segment_alone: float


def replay_curve(record: dict[str, Any], points: int = 10) -> list[CurvePoint]:
    """The replay of our log of the record at `points` steps: time grows with the moves
    replayed; a segment costs what its moves cost wherever the replay started, so
    nothing grows with the length of the log itself (later moves cost more only where
    the game is bigger: more track, more routes)."""
    from engine.game import Game
    from engine.records import import_record

    replayed = import_record(record).game
    moves = replayed.log
    marks = sorted({max(1, round(len(moves) * k / points)) for k in range(1, points + 1)})
    game = Game(replayed.setup)
    out: list[CurvePoint] = []
    started = time.perf_counter()
    last = 0.0
    for number, move in enumerate(moves, start=1):
        game._append(move)  # what Game(setup, moves) does, move by move
        if number in marks:
            now = time.perf_counter() - started
            out.append(CurvePoint(number, now, now - last, 0.0))
            last = now
    for i, point in enumerate(out):
        first = out[i - 1].moves if i else 0
        alone = Game(replayed.setup, moves[:first])
        began = time.perf_counter()
        for move in moves[first:point.moves]:
            alone._append(move)
        out[i] = dataclasses.replace(point, segment_alone=time.perf_counter() - began)
    return out


def positions(record: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """The game before each move of the record (the same object, advanced in place),
    with that move."""
    from engine.game import Game
    from engine.records import import_record

    replayed = import_record(record).game
    game = Game(replayed.setup)
    for move in replayed.log:
        yield game, move
        game._append(move)


def legal_times(record: dict[str, Any]) -> list[float]:
    """Seconds `legal_actions` takes at every position of the record."""
    return [t.first for t in legal_timings(record)]


@dataclass(frozen=True, slots=True)
class LegalTiming:
    """`legal_actions` at one position: where the game stands (the round and the
    step), how many actions it lists, the first call's seconds and the fastest of the
    calls made there."""

    where: str
    actions: int
    first: float
    fastest: float


def legal_timings(record: dict[str, Any], runs: int = 1) -> list[LegalTiming]:
    """`legal_actions` at every position of the record, called `runs` times there (the
    first call is what the service pays; later calls find what the first one kept)."""
    from engine.legal import legal_actions
    from engine.rounds.operating import OperatingRound

    out = []
    for game, _ in positions(record):
        times = []
        listed = 0
        for _ in range(max(runs, 1)):
            started = time.perf_counter()
            listed = len(legal_actions(game))
            times.append(time.perf_counter() - started)
        turn = game.turn()
        rnd = "operating" if isinstance(game.round, OperatingRound) else "stock"
        step = turn.step if turn is not None and rnd == "operating" else "turn"
        out.append(LegalTiming(f"{rnd}: {step}", listed, times[0], min(times)))
    return out


def order_times(record: dict[str, Any]) -> list[float]:
    """Seconds `Game.apply` takes for each recorded move, applied to the game in memory
    (as the service does with an order once the game is cached): checks, the copy that
    puts a refusal back, and for a declared run the search for a better one."""
    from engine.game import Game
    from engine.records import import_record

    replayed = import_record(record).game
    game = Game(replayed.setup)
    out = []
    for move in replayed.log:
        started = time.perf_counter()
        game.apply(move.seat, move.action)
        out.append(time.perf_counter() - started)
    return out


# --- the 18xx.games engine ----------------------------------------------------------------


class Oracle:
    """The 18xx.games engine behind its driver (one long-lived Ruby process)."""

    def __init__(self, driver: Path, site_lib: Path) -> None:
        ruby = shutil.which("ruby")
        if ruby is None:
            raise OSError("ruby is not installed")
        self.process = subprocess.Popen(
            [ruby, str(driver), str(site_lib)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def replay(self, path: Path, repeat: int) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {"path": str(path.resolve()), "repeat": repeat, "states": False}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise OSError("the oracle's driver stopped")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def their_seconds(oracle: Oracle | None, path: Path, runs: int) -> float | str | None:
    """The site's fastest replay of the record, or why it has none (None: no oracle)."""
    if oracle is None:
        return None
    answer = oracle.replay(path, runs)
    if not answer.get("ok"):
        return f"refused: {answer.get('error')}"
    return float(min(answer["times"]))


# --- the command --------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _cell(value: float | str | None) -> str:
    if value is None:
        return "-"
    return value if isinstance(value, str) else _ms(value)


@click.command("replay")
@click.argument("files", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--runs", type=int, default=5, show_default=True,
              help="Timed replays per record; the fastest counts (on both sides).")
@click.option("--driver", type=click.Path(path_type=Path), envvar="ORACLE_DRIVER",
              default=DEFAULT_DRIVER, show_default=True,
              help="The 18xx.games driver (tools/oracle/driver.rb); env ORACLE_DRIVER.")
@click.option("--site-lib", type=click.Path(path_type=Path), envvar="SITE_LIB",
              help="A copy of the site's lib/ folder; env SITE_LIB. Without it (or "
              "without ruby or the driver) their column is left out.")
@click.option("--legal-record", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=LEGAL_RECORD, show_default=True,
              help="The record whose every position times legal_actions and one order.")
@click.option("--no-legal", is_flag=True, help="Skip the legal_actions figures.")
def replay_command(files: tuple[Path, ...], runs: int, driver: Path,
                   site_lib: Path | None, legal_record: Path, no_legal: bool) -> None:
    """Replay every record under shared/fixtures and FILES, ours against 18xx.games."""
    paths = sorted(FIXTURES.glob("*/*.json")) + list(files)
    if not paths:
        raise click.UsageError(f"no records given and none under {FIXTURES}")
    oracle = None
    if site_lib is not None and driver.is_file() and site_lib.is_dir():
        try:
            oracle = Oracle(driver, site_lib)
        except OSError as exc:
            click.echo(f"18xx.games engine not available: {exc}")
    else:
        click.echo("18xx.games engine not available (give --driver and --site-lib, or "
                   "ORACLE_DRIVER and SITE_LIB): their column is left out")
    click.echo(f"replay, fastest of {runs} runs, reading the record excluded")
    click.echo(f"{'record':<48} {'moves':>5} {'ours':>10} {'our log':>10} "
               f"{'18xx.games':>11} {'ratio':>6}")
    longest: tuple[int, dict[str, Any]] | None = None
    try:
        for path in paths:
            record = json.loads(path.read_text())
            ours = our_replay(record, runs)
            theirs = their_seconds(oracle, path, runs)
            ratio = (f"{theirs / ours.seconds:.2f}" if isinstance(theirs, float)
                     and ours.seconds else "-")
            name = os.path.relpath(path, FIXTURES) if path.is_relative_to(FIXTURES) \
                else str(path)
            click.echo(f"{name[-48:]:<48} {ours.moves:>5} {_cell(ours.seconds):>10} "
                       f"{_cell(ours.log_seconds):>10} {_cell(theirs):>11} {ratio:>6}"
                       + (f"  ours: {ours.error}" if ours.error else ""))
            if ours.error is None and (longest is None or ours.moves > longest[0]):
                longest = (ours.moves, record)
    finally:
        if oracle is not None:
            oracle.close()
    if not no_legal:
        record = json.loads(legal_record.read_text())
        legal = legal_times(record)
        click.echo(f"legal_actions over the {len(legal)} positions of {legal_record.name}: "
                   f"median {_ms(statistics.median(legal))}, p95 "
                   f"{_ms(percentile(legal, 0.95))}, max {_ms(max(legal))}")
        orders = order_times(record)
        click.echo(f"one order applied to the game in memory ({len(orders)} orders of "
                   f"{legal_record.name}): median {_ms(statistics.median(orders))}, p95 "
                   f"{_ms(percentile(orders, 0.95))}, max {_ms(max(orders))}")
    if longest is not None:
        moves, record = longest
        click.echo(f"replay curve of the longest record ({moves} moves): moves replayed, "
                   "time, time of the moves since the line before, the same moves "
                   "replayed from a copy of the game just before them")
        for point in replay_curve(record):
            click.echo(f"  {point.moves:>5} {_ms(point.seconds):>10} {_ms(point.segment):>10}"
                       f" {_ms(point.segment_alone):>10}")


def _spread(values: Sequence[float]) -> str:
    return (f"median {_ms(statistics.median(values))}, p95 {_ms(percentile(values, 0.95))}, "
            f"max {_ms(max(values))}")


@click.command("legal")
@click.argument("record", required=False,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--runs", type=int, default=1, show_default=True,
              help="Calls at each position; with more than one, the fastest is shown "
              "beside the first (the machine's load left out).")
def legal_command(record: Path | None, runs: int) -> None:
    """Time `legal_actions` at every position of RECORD (default: 18TN 7818)."""
    path = record or LEGAL_RECORD
    if not path.is_file():
        raise click.UsageError(f"no record at {path}")
    timings = legal_timings(json.loads(path.read_text()), runs)
    click.echo(f"legal_actions over the {len(timings)} positions of {path.name}, "
               "the first call at each: " + _spread([t.first for t in timings]))
    if runs > 1:
        click.echo(f"the fastest of {runs} calls at each position: "
                   + _spread([t.fastest for t in timings]))
    click.echo(f"{'where':<28} {'positions':>9} {'actions':>8} {'median':>9} {'p95':>9} "
               f"{'max':>9}")
    groups: dict[str, list[LegalTiming]] = {}
    for timing in timings:
        groups.setdefault(timing.where, []).append(timing)
    for where, group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        first = [t.first for t in group]
        click.echo(f"{where[:28]:<28} {len(group):>9} "
                   f"{statistics.median(t.actions for t in group):>8.0f} "
                   f"{_ms(statistics.median(first)):>9} {_ms(percentile(first, 0.95)):>9} "
                   f"{_ms(max(first)):>9}")
