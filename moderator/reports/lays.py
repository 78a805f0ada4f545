"""Tile lays without guessing: the legal lays of the acting company listed compactly
(hex, tiles, rotations) for `legal`, and drawn for `show HEX` -- the hex and its
neighbours once per legal tile and rotation, each captioned with the order that lays it
(`lay 57 at H5 rot 2`, rotations numbered as the order language numbers them).
"""

from __future__ import annotations

import dataclasses
import io

from PIL import Image

from engine.game import Game
from engine.geometry import neighbour
from engine.legal import legal_tile_lays
from engine.state import PlacedTile
from engine.title import FrozenDict, Title
from moderator.reports.mapimage import BACKGROUND, BoardView, draw_map

__all__ = ["Lays", "hex_pictures", "lays_text", "legal_lays"]

#: Hexes of at most this many options are drawn (each a small map; a hex has fewer).
MAX_PICTURES = 24
RADIUS = 44  # pixels per hex in a picture: a phone shows two side by side
COLUMNS = 2

Lays = dict[str, dict[str, tuple[int, ...]]]  # hex -> tile -> rotations


def legal_lays(game: Game) -> Lays:
    """The tile lays the acting player may make now, by hex and tile."""
    lays: Lays = {}
    for action in legal_tile_lays(game):
        tiles = lays.setdefault(action.hex, {})
        tiles[action.tile] = (*tiles.get(action.tile, ()), action.rotation)
    return lays


def lays_text(title: Title, lays: Lays) -> str:
    """One line a hex: `E10 (Clarksville): 141 rot 2; 143 rot 3 or 5`."""
    lines = []
    for hex_id in sorted(lays, key=_hex_order):
        name = title.hexes[hex_id].name if hex_id in title.hexes else None
        options = "; ".join(f"{tile} rot {' or '.join(str(r) for r in sorted(rotations))}"
                            for tile, rotations in sorted(lays[hex_id].items(),
                                                          key=lambda kv: _tile_order(kv[0])))
        lines.append(f"{hex_id}{f' ({name})' if name else ''}: {options}")
    return "\n".join(lines)


def hex_pictures(game: Game, hex_id: str, tiles: dict[str, tuple[int, ...]]) -> bytes:
    """One PNG: HEX_ID and its neighbours drawn with each of TILES in each of its
    rotations, captioned with the order, two to a row."""
    state = game.state
    title = state.title
    near = {hex_id} | {neighbour(title.grid, hex_id, edge) for edge in range(6)}
    small = dataclasses.replace(title, hexes=FrozenDict(
        {h: spec for h, spec in title.hexes.items() if h in near}))
    phase = game.rules.phase(state).name
    drawings: list[Image.Image] = []
    for tile, rotations in sorted(tiles.items(), key=lambda kv: _tile_order(kv[0])):
        for rotation in sorted(rotations):
            if len(drawings) == MAX_PICTURES:
                break
            board = BoardView(FrozenDict({**state.board.tiles,
                                          hex_id: PlacedTile(tile, rotation)}),
                              state.board.tokens)
            drawings.append(draw_map(small, board, phase=phase, radius=RADIUS,
                                     caption=f"lay {tile} at {hex_id} rot {rotation}"))
    width = max(d.width for d in drawings)
    height = max(d.height for d in drawings)
    columns = min(COLUMNS, len(drawings))
    sheet = Image.new("RGB", (width * columns, height * -(-len(drawings) // columns)),
                      BACKGROUND)
    for i, drawing in enumerate(drawings):
        sheet.paste(drawing, ((i % columns) * width, (i // columns) * height))
    out = io.BytesIO()
    sheet.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                   dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    return out.getvalue()


def _hex_order(hex_id: str) -> tuple[str, int]:
    letters = hex_id.rstrip("0123456789")
    return letters, int(hex_id[len(letters):] or 0)


def _tile_order(tile: str) -> tuple[int, str]:
    digits = "".join(c for c in tile if c.isdigit())
    return (int(digits) if digits else 0, tile)
