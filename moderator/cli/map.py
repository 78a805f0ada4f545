"""`moderator map`: the picture of a game's board (and, on request, its stock market).

The renderers (``moderator.reports.mapimage``, ``moderator.reports.marketimage``) are pure functions
returning PNG bytes; this command loads the game, picks the position and writes files.
"""

from __future__ import annotations

from pathlib import Path

import click

from moderator.cli.play import db_option


@click.command("map")
@click.argument("game_id")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The PNG file to write (default: GAME-map.png).")
@click.option("--at", "at_move", type=click.IntRange(min=0), default=None, metavar="N",
              help="Draw the position when move N was next, i.e. after the first N moves "
              "(default: now).")
@click.option("--since", "since_move", type=click.IntRange(min=0), default=None, metavar="N",
              help="Outline the hexes whose track or stations changed since move N was "
              "next (what a player has not seen in a report yet).")
@click.option("--market", "market_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write the stock market picture to this PNG file.")
@db_option
def map_command(game_id: str, out_path: Path | None, at_move: int | None,
                since_move: int | None, market_path: Path | None, db_path: Path) -> None:
    """Draw the map of GAME as a PNG: tiles, stations, off-board values."""
    from engine.game import Game
    from moderator.reports.mapimage import changed_hexes, render_game_map
    from moderator.reports.marketimage import render_game_market
    from moderator.store import Store, StoreError

    store = Store(db_path)
    try:
        row = store.game_row(game_id)
    except StoreError as exc:
        raise click.UsageError(str(exc)) from None
    moves = store.moves(row.id)
    at = len(moves) if at_move is None else at_move
    for name, value in (("--at", at), ("--since", since_move)):
        if value is not None and value > len(moves):
            raise click.UsageError(f"{name} {value}: {row.id} has {len(moves)} moves "
                                   f"(the next move is {len(moves)})")
    game = Game(row.setup, moves[:at])
    highlight: frozenset[str] = frozenset()
    if since_move is not None:
        before = Game(row.setup, moves[:since_move])
        highlight = changed_hexes(before.state.board, game.state.board)
    phase = game.rules.phase(game.state).name
    caption = f"{row.id} ({row.title}) - next move {at} - phase {phase}"
    if since_move is not None:
        caption += f" - changes since move {since_move}"
    target = out_path if out_path is not None else Path(f"{row.id}-map.png")
    target.write_bytes(render_game_map(game, highlight=highlight, caption=caption))
    click.echo(f"map of {row.id} at move {at} written to {target}")
    if market_path is not None:
        market_path.write_bytes(render_game_market(game, caption=caption))
        click.echo(f"stock market written to {market_path}")
