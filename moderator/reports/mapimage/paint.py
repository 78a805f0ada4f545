"""The whole map: its hexes painted layer by layer (`paint_hexes`), as PNG bytes
(`render_map`) or a Pillow picture (`draw_map`), and a game's map in its current
position (`render_game_map`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image

from engine.geometry import parse_hex_id
from engine.title import Title
from moderator.reports.mapimage.board import EMPTY_BOARD, BoardLike
from moderator.reports.mapimage.geometry import DEFAULT_RADIUS, SUPERSAMPLE, map_geometry
from moderator.reports.mapimage.hexes import hex_drawing, paint_borders, paint_outline
from moderator.reports.mapimage.labels import (
    paint_caption,
    paint_coordinates,
    paint_name,
    paint_texts,
    text_layout,
)
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.png import encode_png
from moderator.reports.mapimage.stations import paint_markers, paint_stops
from moderator.reports.mapimage.style import BACKGROUND, HEX_FILL, HIGHLIGHT, OUTLINE
from moderator.reports.mapimage.track import paint_tracks

if TYPE_CHECKING:
    from engine.game import Game


def render_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
               highlight: Collection[str] = frozenset(), caption: str | None = None,
               radius: float = DEFAULT_RADIUS) -> bytes:
    """The map of ``title`` with ``board``'s tiles and tokens, as PNG bytes.

    phase: the current phase's name (or its phase key, "yellow", "brown"...);
        off-board and other phase-dependent values show every printed value, the one
        in force framed and bold. None: the first phase's values are in force.
    highlight: hex ids to outline (what changed since the player's last report).
    caption: a line printed under the map (game, move, phase).
    """
    return encode_png(draw_map(title, board, phase=phase, highlight=highlight,
                               caption=caption, radius=radius))


def draw_map(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
             highlight: Collection[str] = frozenset(), caption: str | None = None,
             radius: float = DEFAULT_RADIUS) -> Image.Image:
    """``render_map``'s picture as a Pillow image (RGB), before encoding."""
    canvas = draw_board(title, board, phase, highlight, radius, band=bool(caption))
    p, marked = canvas.painter, canvas.marked
    if canvas.band:
        paint_caption(p, caption, marked, canvas.height * SUPERSAMPLE, canvas.band * SUPERSAMPLE)
    final = canvas.image.reduce(SUPERSAMPLE)
    p.finish(final, SUPERSAMPLE)
    return final


@dataclass(slots=True)
class Canvas:
    """A map on the supersampled canvas, its texts kept for after the reduction."""

    image: Image.Image  # supersampled
    painter: Painter
    height: int  # of the map above the caption band, in output pixels
    band: int  # the caption band's height (0: none)
    marked: bool


def draw_board(title: Title, board: BoardLike, phase: str | None,
               highlight: Collection[str], radius: float, *, band: bool) -> Canvas:
    """The map on the supersampled canvas, its texts kept for after the reduction; a
    caption band left blank below it if BAND (or anything is outlined)."""
    geometry = map_geometry(title, radius)
    width, height = geometry.size
    marked = {parse_hex_id(h) for h in highlight} & set(title.hexes)
    band_height = round(0.6 * radius) if band or marked else 0
    image = Image.new("RGB", (width * SUPERSAMPLE, (height + band_height) * SUPERSAMPLE),
                      BACKGROUND)
    p = Painter(image, geometry.scaled(SUPERSAMPLE))
    paint_hexes(p, title, board, phase, title.hexes, marked)
    return Canvas(image, p, height, band_height, bool(marked))


def paint_hexes(p: Painter, title: Title, board: BoardLike, phase: str | None,
                among: Collection[str], marked: Collection[str]) -> None:
    """The hexes AMONG (all of them, or those round a change) and the coordinates, layer
    by layer, in the same order whichever hexes are drawn: a part of the map drawn
    again with every hex that reaches into it is the same as drawn the first time."""
    big = p.g
    hexes = sorted(among, key=big.row_col)
    drawings = {h: hex_drawing(title, h, board.tiles.get(h)) for h in hexes}
    texts = {h: text_layout(title, h, board.tiles.get(h)) for h in hexes}

    # Layer by layer over the whole map, so that nothing of one hex (a long name, a
    # curve's end) is painted over by its neighbour's background.
    for h in hexes:
        p.draw.polygon(big.corners(h), fill=HEX_FILL.get(drawings[h].fill, HEX_FILL["white"]))
    for h in hexes:
        paint_tracks(p, h, drawings[h].tracks)
    for h in hexes:
        paint_outline(p, big.corners(h), OUTLINE, p.width(0.025))
    for h in hexes:
        paint_borders(p, title.hexes[h], title.layout)
    for h in sorted(set(marked) & set(hexes), key=big.row_col):
        paint_outline(p, big.corners(h, inset=0.07), HIGHLIGHT, p.width(0.075, 2))
    for h in hexes:
        # Names go under cities and tokens: where one cannot avoid a city, the city
        # covers the name rather than the name a company's token.
        paint_name(p, drawings[h], texts[h])
    for h in hexes:
        d = drawings[h]
        paint_stops(p, title, h, d.towns, d.cities, board.tokens.get(h, {}))
    for h in hexes:
        paint_markers(p, title, h, texts[h].markers, board.markers.get(h, ()))
    for h in hexes:
        paint_texts(p, title, drawings[h], texts[h], phase)
    paint_coordinates(p, title, big)


def render_game_map(game: Game, *, highlight: Collection[str] = frozenset(),
                    caption: str | None = None) -> bytes:
    """The map of a game in its current position (for the mail reports)."""
    state = game.state
    return render_map(state.title, state.board, phase=game.rules.phase(state).name,
                      highlight=highlight, caption=caption)
