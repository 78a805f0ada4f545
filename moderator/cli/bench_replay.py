"""Measuring the engine's speed: `moderator bench replay` and `moderator bench legal`.

The engine is event-sourced, so replay speed is the service's speed. For every shared
record and every kept differential record (tests/fixtures/*/site_results.json) this
prints our replay time next to the 18xx.games engine's own (the "oracle", when its
driver and a copy of the site's lib/ are at hand; ours alone when not), and the ratio,
in CPU seconds (a machine shared with other work stretches the clock several times,
and each side's replay meets another load) and by the clock; then the time of
`legal_actions` over every position of one record, of one order applied to a game held
in memory, and the replay curve (actions against time) of the longest record.

Both sides are timed the same way: the record is read and parsed first (not timed), then
the replay alone is timed, several times, and the fastest run is kept. Ours is
`import_record` (the site's actions mapped onto ours, each one checked); the replay of
our own log of the same game (`Game(setup, moves)`, what the service does after a
restart) is shown beside it.

`bench legal` times `legal_actions` alone: per title (its longest shared record), p50
and p95 of the first call at the track steps and in the stock rounds, over the record
and over its second half; or at every position of one RECORD, by round and step: the
first call at each position (what the service pays), and with `--runs` the fastest of
several (the machine's load left out).
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
# The random games kept with the site's final scores (tools/oracle/keep_fixtures.py):
# each title's site_results.json lists them, as the `test_*_site_replays` tests read it.
KEPT = REPO / "tests" / "fixtures"
DEFAULT_DRIVER = REPO / "tools" / "oracle" / "driver.rb"
# Where DEVELOPERS.md puts the site's lib/ (as tools/oracle/oracle.py looks for it).
DEFAULT_SITE_LIB = Path(os.environ.get("ORACLE_SITE_LIB", "/work/oracle/site/lib"))
LEGAL_RECORD = FIXTURES / "18TN" / "7818.json"


def kept_records(root: Path = KEPT) -> list[Path]:
    """The kept differential records the site replays whole (the `results` of each
    title's site_results.json; a record the site replays only past a listed
    difference of ours, `site_only`, has no comparable time)."""
    out: list[Path] = []
    for facts in sorted(root.glob("*/site_results.json")):
        names = json.loads(facts.read_text()).get("results", {})
        out.extend(facts.parent / name for name in sorted(names)
                   if (facts.parent / name).is_file())
    return out


def title_records(root: Path = FIXTURES) -> dict[str, Path]:
    """Per title, its longest shared record (the most actions): the late positions of a
    whole game, for `bench legal --titles`."""
    out: dict[str, tuple[int, Path]] = {}
    for path in sorted(root.glob("*/*.json")):
        actions = len(json.loads(path.read_text()).get("actions", []))
        title = path.parent.name
        if title not in out or actions > out[title][0]:
            out[title] = (actions, path)
    return {title: path for title, (_, path) in sorted(out.items())}


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..1) of `values`."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


# --- our engine ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Timing:
    """The fastest of several timed calls: by the clock, and in this process's CPU
    seconds (which a machine shared with other work stretches far less)."""

    wall: float
    cpu: float


def fastest(run: Callable[[], object], runs: int) -> Timing:
    """The fastest of `runs` timed calls, in seconds (the clock and the CPU each)."""
    wall = cpu = float("inf")
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        run()
        cpu = min(cpu, time.process_time() - used)
        wall = min(wall, time.perf_counter() - started)
    return Timing(wall, cpu)


@dataclass(frozen=True, slots=True)
class OurReplay:
    """Our engine on one record: import time, replay of our log, moves; or why not."""

    timing: Timing | None = None
    log_timing: Timing | None = None
    moves: int = 0
    error: str | None = None

    @property
    def seconds(self) -> float | None:
        return self.timing.wall if self.timing else None

    @property
    def log_seconds(self) -> float | None:
        return self.log_timing.wall if self.log_timing else None


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
        game.append_move(move)  # what Game(setup, moves) does, move by move
        if number in marks:
            now = time.perf_counter() - started
            out.append(CurvePoint(number, now, now - last, 0.0))
            last = now
    for i, point in enumerate(out):
        first = out[i - 1].moves if i else 0
        alone = Game(replayed.setup, moves[:first])
        began = time.perf_counter()
        for move in moves[first:point.moves]:
            alone.append_move(move)
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
        game.append_move(move)


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
    first_cpu: float = 0.0  # the first call in this process's CPU seconds


def legal_timings(record: dict[str, Any], runs: int = 1) -> list[LegalTiming]:
    """`legal_actions` at every position of the record, called `runs` times there (the
    first call is what the service pays; later calls find what the first one kept)."""
    from engine.legal import legal_actions
    from engine.rounds.operating import OperatingRound

    out = []
    for game, _ in positions(record):
        times = []
        cpu = 0.0
        listed = 0
        for _ in range(max(runs, 1)):
            started, used = time.perf_counter(), time.process_time()
            listed = len(legal_actions(game))
            times.append(time.perf_counter() - started)
            cpu = cpu or time.process_time() - used
        turn = game.turn()
        rnd = "operating" if isinstance(game.round, OperatingRound) else "stock"
        step = turn.step if turn is not None and rnd == "operating" else "turn"
        out.append(LegalTiming(f"{rnd}: {step}", listed, times[0], min(times), cpu))
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


def their_seconds(oracle: Oracle | None, path: Path, runs: int) -> Timing | str | None:
    """The site's fastest replay of the record, or why it has none (None: no oracle).
    A driver that tells no CPU seconds has its clock's taken for both."""
    if oracle is None:
        return None
    answer = oracle.replay(path, runs)
    if not answer.get("ok"):
        return f"refused: {answer.get('error')}"
    wall = float(min(answer["times"]))
    return Timing(wall, float(min(answer.get("cpu_times") or [wall])))


# --- the command --------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _cell(value: float | str | None) -> str:
    if value is None:
        return "-"
    return value if isinstance(value, str) else _ms(value)


def _cpu(value: Timing | str | None) -> float | str | None:
    return value.cpu if isinstance(value, Timing) else value


def _wall(value: Timing | str | None) -> float | str | None:
    return value.wall if isinstance(value, Timing) else value


def speed_ratio(theirs: Timing | str | None, ours: Timing | None, cpu: bool) -> float | None:
    """Their time over ours (CPU or clock); None when either side has no timing."""
    if not isinstance(theirs, Timing) or ours is None:
        return None
    mine = ours.cpu if cpu else ours.wall
    return (theirs.cpu if cpu else theirs.wall) / mine if mine > 0 else None


def record_label(path: Path) -> str:
    """A record's short name: under the shared fixtures, or kept/ for a kept one."""
    if path.is_relative_to(FIXTURES):
        return os.path.relpath(path, FIXTURES)
    if path.is_relative_to(KEPT):
        return "kept/" + os.path.relpath(path, KEPT)
    return str(path)


def start_oracle(driver: Path, site_lib: Path) -> tuple[Oracle | None, str]:
    """The site's engine behind its driver, or None and why it is absent."""
    if not driver.is_file():
        return None, f"no driver at {driver}"
    if not (site_lib / "engine.rb").is_file():
        return None, f"no copy of the site's lib/ at {site_lib} (DEVELOPERS.md)"
    try:
        return Oracle(driver, site_lib), ""
    except OSError as exc:
        return None, str(exc)


def site_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of a bench that replays records on both engines: `--runs`,
    `--driver` and `--site-lib` (`bench replay`, `bench goals`)."""
    for option in reversed((
        click.option("--runs", type=int, default=3, show_default=True,
                      help="Timed replays per record; the fastest counts (on both sides)."),
        click.option("--driver", type=click.Path(path_type=Path), envvar="ORACLE_DRIVER",
                     default=DEFAULT_DRIVER, show_default=True,
                     help="The 18xx.games driver (tools/oracle/driver.rb); env "
                     "ORACLE_DRIVER."),
        click.option("--site-lib", type=click.Path(path_type=Path), envvar="SITE_LIB",
                     default=DEFAULT_SITE_LIB, show_default=True,
                     help="A copy of the site's lib/ folder; env SITE_LIB (or "
                     "ORACLE_SITE_LIB). Without it (or without ruby or the driver) ours "
                     "are timed alone."))):
        command = option(command)
    return command


@click.command("replay")
@click.argument("files", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@site_options
@click.option("--kept/--no-kept", default=True, show_default=True,
              help="Also the kept differential records of tests/fixtures.")
@click.option("--legal-record", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=LEGAL_RECORD, show_default=True,
              help="The record whose every position times legal_actions and one order.")
@click.option("--no-legal", is_flag=True, help="Skip the legal_actions figures.")
def replay_command(files: tuple[Path, ...], runs: int, driver: Path, site_lib: Path,
                   kept: bool, legal_record: Path, no_legal: bool) -> None:
    """Replay every record under shared/fixtures, the kept differential records and
    FILES, ours against 18xx.games (their Ruby start-up left out)."""
    paths = sorted(FIXTURES.glob("*/*.json")) + (kept_records() if kept else []) \
        + list(files)
    if not paths:
        raise click.UsageError(f"no records given and none under {FIXTURES}")
    oracle, absent = start_oracle(driver, site_lib)
    if oracle is None:
        click.echo(f"18xx.games engine not available ({absent}): the site is absent, "
                   "our times only")
    click.echo(f"replay, fastest of {runs} runs, reading the record excluded, in CPU "
               "seconds (the ratio: theirs over ours); then by the clock")
    click.echo(f"{'record':<48} {'moves':>5} {'ours':>10} {'our log':>10} "
               f"{'18xx.games':>11} {'ratio':>6} {'ours':>10} {'18xx.games':>11} "
               f"{'ratio':>6}")
    longest: tuple[int, dict[str, Any]] | None = None
    ratios: list[tuple[float, str]] = []
    try:
        for path in paths:
            record = json.loads(path.read_text())
            ours = our_replay(record, runs)
            theirs = their_seconds(oracle, path, runs)
            name = record_label(path)
            cpu_ratio = speed_ratio(theirs, ours.timing, cpu=True)
            wall_ratio = speed_ratio(theirs, ours.timing, cpu=False)
            if cpu_ratio is not None:
                ratios.append((cpu_ratio, name))
            log_cpu = ours.log_timing.cpu if ours.log_timing else None
            click.echo(
                f"{name[-48:]:<48} {ours.moves:>5} {_cell(_cpu(ours.timing)):>10} "
                f"{_cell(log_cpu):>10} {_cell(_cpu(theirs)):>11} "
                f"{'-' if cpu_ratio is None else f'{cpu_ratio:.2f}':>6} "
                f"{_cell(_wall(ours.timing)):>10} {_cell(_wall(theirs)):>11} "
                f"{'-' if wall_ratio is None else f'{wall_ratio:.2f}':>6}"
                + (f"  ours: {ours.error}" if ours.error else ""))
            if ours.error is None and (longest is None or ours.moves > longest[0]):
                longest = (ours.moves, record)
    finally:
        if oracle is not None:
            oracle.close()
    if ratios:
        low, name = min(ratios)
        under = [n for r, n in ratios if r < 2]
        click.echo(f"ratio (their CPU time over ours): lowest {low:.2f} ({name}), median "
                   f"{statistics.median(r for r, _ in ratios):.2f}; under 2: {len(under)} "
                   f"of {len(ratios)}" + (f" ({', '.join(under)})" if under else ""))
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


def title_legal_rows(timings: Sequence[LegalTiming]
                     ) -> list[tuple[str, list[LegalTiming]]]:
    """The first calls of `legal_actions` at the track steps and in the stock rounds,
    over the whole record and over its second half ("late": more track, more trains,
    more companies)."""
    half = len(timings) // 2
    rows = []
    for label, where in (("track step", "operating: track"), ("stock round", "stock: turn")):
        every = [t for t in timings if t.where == where]
        late = [t for i, t in enumerate(timings) if i >= half and t.where == where]
        rows += [(label, every), (f"{label}, late", late)]
    return rows


@click.command("legal")
@click.argument("record", required=False,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--runs", type=int, default=1, show_default=True,
              help="Calls at each position; with more than one, the fastest is shown "
              "beside the first (the machine's load left out).")
def legal_command(record: Path | None, runs: int) -> None:
    """Time `legal_actions` at every position of RECORD, by round and step; without
    RECORD, per title (its longest shared record) the first call at the track steps
    and in the stock rounds."""
    if record is None:
        _legal_by_title()
        return
    timings = legal_timings(json.loads(record.read_text()), runs)
    click.echo(f"legal_actions over the {len(timings)} positions of {record.name}, "
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


def _legal_by_title() -> None:
    records = title_records()
    if not records:
        raise click.UsageError(f"no records under {FIXTURES}")
    click.echo("legal_actions, the first call at each position (late: the record's "
               "second half), in CPU seconds, then by the clock")
    click.echo(f"{'title':<6} {'record':<24} {'where':<18} {'positions':>9} {'p50':>9} "
               f"{'p95':>9} {'max':>9} {'p50 clock':>10} {'p95 clock':>10}")
    for title, path in records.items():
        for label, group in title_legal_rows(legal_timings(json.loads(path.read_text()))):
            if group:
                cpu = [t.first_cpu for t in group]
                wall = [t.first for t in group]
                click.echo(f"{title:<6} {path.name[:24]:<24} {label:<18} {len(group):>9} "
                           f"{_ms(percentile(cpu, 0.5)):>9} {_ms(percentile(cpu, 0.95)):>9} "
                           f"{_ms(max(cpu)):>9} {_ms(percentile(wall, 0.5)):>10} "
                           f"{_ms(percentile(wall, 0.95)):>10}")
