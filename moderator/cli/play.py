"""Playing and inspecting games locally: new, order, status, games, import, parse."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from moderator.store import Store

@click.command("parse")
@click.option("--title", required=True, help="The title whose names the orders use.")
@click.option("--players", default="", help="Seat names, for orders that name players.")
def parse_cli(title: str, players: str) -> None:
    """Read order lines on stdin; print each as JSON, or its error with a caret.

    Exits 1 if any line failed."""
    import sys

    from grammar.cli import parse_command

    seats = tuple(s.strip() for s in players.split(",") if s.strip())
    try:
        code = parse_command(title, sys.stdin, sys.stdout, seats)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    raise SystemExit(code)


# --- playing locally: new, order, status, games, import -------------------------------

DEFAULT_DB = Path("moderator-data") / "moderator.sqlite"

db_option = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The SQLite file holding the games (the embedded service's store by default).",
)


def _store(db_path: Path) -> Store:
    from moderator.store import Store

    return Store(db_path)


def _existing_store(db_path: Path) -> Store:
    """The store at DB_PATH, which must exist: reading commands create no database."""
    if not db_path.exists():
        raise click.UsageError(f"there is no database at {db_path} (no games here yet); "
                               "give the right one with --db, or start a game with "
                               "`moderator new`")
    return _store(db_path)


def options_listing() -> str:
    """Each playable title's options, as `moderator new --help` and `help options` list
    them."""
    from engine.title import available_titles
    from engine.titles import title_options

    lines = []
    for title in available_titles():
        options = title_options(title)
        if options:
            lines.append(f"{title}: " + "; ".join(f"{name} ({what})"
                                                   for name, what in options.items()))
        else:
            lines.append(f"{title}: none")
    return "\n".join(lines)


class _NewCommand(click.Command):
    """`new`, whose help ends with every title's options (read when asked for)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_paragraph()
        formatter.write_text("Options by title (--option NAME):")
        with formatter.indentation():
            for line in options_listing().splitlines():
                formatter.write_paragraph()
                formatter.write_text(line)


@click.command("new", cls=_NewCommand)
@click.argument("title")
@click.option("--players", required=True, help="Seat names in seating order: Ann,Bob,Cy")
@click.option("--seed", type=int, default=None, help="Seed for the random draws.")
@click.option("--option", "options", multiple=True,
              help="A title option (repeatable); the titles' options are listed below.")
@db_option
def new_command(title: str, players: str, seed: int | None, options: tuple[str, ...],
                db_path: Path) -> None:
    """Start a new game of TITLE and print its id."""
    import secrets

    from engine.errors import GameError
    from engine.game import Setup
    from engine.title import load_title
    from engine.titles import unknown_options

    try:
        spec = load_title(title)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    why = unknown_options(spec.name, set(options))
    if why is not None:
        raise click.UsageError(why)
    seats = tuple(s.strip() for s in players.split(",") if s.strip())
    if not spec.players_min <= len(seats) <= spec.players_max:
        raise click.UsageError(f"{spec.name} takes {spec.players_min} to {spec.players_max} "
                               f"players, not {len(seats)}")
    setup = Setup(spec.name, seats, seed if seed is not None else secrets.randbelow(2**31),
                  frozenset(options))
    try:
        game_id = _store(db_path).create_game(setup)
    except GameError as exc:
        raise click.UsageError(exc.message) from None
    click.echo(game_id)


@click.command("order")
@click.argument("game_id")
@click.option("--as", "seat", required=True, help="The seat sending the orders.")
@click.argument("lines", nargs=-1, required=True)
@db_option
def order_command(game_id: str, seat: str, lines: tuple[str, ...], db_path: Path) -> None:
    """Apply one submission (LINES, all or nothing) to GAME as seat SEAT.

    Each line is an order in the order language (docs/orders.md) or an action as
    JSON ({"type": "buy_shares", "corporation": "TC"}).
    """
    from moderator.desk.orders import apply_submission

    store = _existing_store(db_path)
    report = apply_submission(store, game_id, seat, list(lines))
    click.echo(report.text)
    if not report.ok:
        raise SystemExit(1)


@click.command("status")
@click.argument("game_id")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@db_option
def status_command(game_id: str, as_json: bool, db_path: Path) -> None:
    """Print the position of GAME: players, companies, market, trains, whose turn."""
    import json

    from engine.views import as_json as view_json
    from engine.views import game_view
    from moderator.desk.orders import status_text
    from moderator.store import StoreError

    store = _existing_store(db_path)
    try:
        game = store.load(game_id)
    except StoreError as exc:
        raise click.UsageError(str(exc)) from None
    view = game_view(game)
    # Members whose mail bounced for good (issue 29): the game may wait on them.
    silent = [{"address": m.address, "seat": m.seat, "role": m.role, "status": u.status,
               "diagnostic": u.diagnostic, "since": u.since}
              for m, u in store.undeliverable_members(game_id)]
    if as_json:
        click.echo(json.dumps({"game": game_id, **view_json(view),
                               "not_receiving_mail": silent}, indent=2))
    else:
        click.echo(status_text(game_id, view))
        for entry in silent:
            who = entry["seat"] or entry["role"]
            click.echo(f"Not receiving mail: {who} ({entry['address']}): "
                       f"{entry['status'] or 'bounced'} {entry['diagnostic'] or ''}".rstrip())


@click.command("games")
@db_option
def games_command(db_path: Path) -> None:
    """List the games in the store."""
    for row in _existing_store(db_path).games():
        click.echo(f"{row.id}\t{row.title}\t{', '.join(row.setup.seats)}")


@click.command("import")
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--check", is_flag=True,
              help="Compare the final scores with the record's; exit 1 on any difference "
              "or refused action.")
@click.option("--game-id", default=None, help="Store under this id (default TITLE-N).")
@db_option
def import_command(record: Path, check: bool, game_id: str | None, db_path: Path) -> None:
    """Import an 18xx.games game record (JSON) and store it as a game to continue."""
    import json

    from engine.actions import LayTile
    from engine.errors import GameError
    from engine.records import RecordError, import_record

    data = json.loads(record.read_text())
    try:
        replay = import_record(data)
    except (RecordError, GameError) as exc:  # a refused move, or a title not playable
        click.echo(f"refused: {exc}", err=True)
        raise SystemExit(1) from None
    game = replay.game
    click.echo(f"{record.name}: {replay.applied} moves replayed"
               + (f"; game over ({game.state.end_reason})" if game.state.game_over else ""))
    as_recorded = [m.action for m in game.log
                   if isinstance(m.action, LayTile) and m.action.as_recorded]
    if as_recorded:
        click.echo(f"  {len(as_recorded)} tile lay(s) taken as the record has them, though "
                   "ours finds them unconnected (18xx.games judged their connection: "
                   "docs/site-differences.md, 10.4): "
                   + ", ".join(f"{a.tile} at {a.hex}" for a in as_recorded))
    ours = game.scores()
    differ = False
    for seat in game.setup.seats:
        theirs = replay.result.get(seat)
        mark = "" if theirs == ours[seat] else "  <-- differs"
        differ = differ or bool(mark)
        click.echo(f"  {seat:<20} ours {ours[seat]:>7}   record {theirs!s:>7}{mark}")
    if check:
        if differ or not replay.result:
            raise SystemExit(1)
        return
    store = _store(db_path)
    new_id = store.create_game(game.setup, game_id)
    with store.transaction():
        store.append(new_id, 0, list(game.log))
    click.echo(f"stored as {new_id}")
