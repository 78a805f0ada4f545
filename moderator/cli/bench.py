"""`moderator bench`: measuring the engine and the service.

The subcommands live beside this group: `replay` and `legal` (bench_replay.py), `mail`
(bench_mail.py), `mails` (bench_mails.py), `goals` (bench_goals.py: every speed goal in
one run), and `routes` here, whose measurement is bench_routes.py: before every run a
company made in recorded games, the route optimizer's best run against the recorded
one and how long it took; `--dense` adds synthetic positions, far denser than real
games, to watch how the search scales.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.optimizer import DEFAULT_BUDGET
from moderator.cli.bench_goals import goals_command
from moderator.cli.bench_replay import FIXTURES, legal_command, replay_command
from moderator.cli.bench_routes import (
    bench_routes,
    dense_position,
    importable_records,
    milliseconds,
    run_positions,
    time_spread,
)

if TYPE_CHECKING:
    from engine.rules import Rules
    from engine.state import GameState


@click.group("bench")
def bench() -> None:
    """Measure the engine on recorded games, and the service under a burst of mail."""


bench.add_command(replay_command)
bench.add_command(legal_command)
bench.add_command(goals_command)


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
        click.echo(f"time per run: {time_spread(result.seconds)}")
    if exhaustive and result.exhaustive:
        click.echo(f"exhaustive search per run: {time_spread(result.exhaustive)}; "
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
                   f"{'proven' if found.proven else 'NOT proven'} in {milliseconds(found.seconds)} "
                   f"({found.nodes} steps)")
