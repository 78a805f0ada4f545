"""Map plates: a map drawn once for a board, without its caption yet (`MapPlate`), and the
next board's plate drawn from it again only round the hexes that changed (`map_plate`),
pixel for pixel the whole drawing."""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import threading
from collections.abc import Collection, Iterator, Sequence

from PIL import Image, ImageChops, ImageColor, ImageDraw

from engine.geometry import parse_hex_id
from engine.title import FrozenDict, Title
from moderator.reports.mapimage.board import EMPTY_BOARD, BoardLike, BoardView, changed_hexes
from moderator.reports.mapimage.geometry import (
    DEFAULT_RADIUS,
    SUPERSAMPLE,
    MapGeometry,
    map_geometry,
)
from moderator.reports.mapimage.labels import paint_caption
from moderator.reports.mapimage.paint import draw_board, paint_hexes
from moderator.reports.mapimage.painter import Painter, Words, draw_words
from moderator.reports.mapimage.png import PngStream, quantized
from moderator.reports.mapimage.sametitle import same_title, title_keyed
from moderator.reports.mapimage.style import BACKGROUND, font

#: How far beyond its own hexagon's bounding box anything of a hex may be drawn, in hex
#: radii (a halo, a wide line's end, a row of phase values). `test_map_repaint` checks
#: every hex of the recorded games' boards against it.
REACH = 0.25


def hex_box(geometry: MapGeometry, hex_id: str, reach: float = REACH
            ) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom, in pixels of GEOMETRY) holding everything
    drawn for HEX_ID."""
    x, y = geometry.centre(hex_id)
    w = geometry.half_width + reach * geometry.radius
    h = geometry.half_height + reach * geometry.radius
    return (x - w, y - h, x + w, y + h)


@title_keyed
@functools.lru_cache(maxsize=16)
def _hex_boxes(title: Title, geometry: MapGeometry) -> dict[str, tuple[float, float, float, float]]:
    """`hex_box` of every hex of TITLE's board, in the board's order (found once: each
    repaint looks for the hexes that reach into its part)."""
    return {h: hex_box(geometry, h) for h in title.hexes}


def _meets(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
           ) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _words_box(w: Words, factor: int) -> tuple[float, float, float, float]:
    """Where `draw_words` paints W, on the picture reduced by FACTOR (a pixel over)."""
    stroke = round(w.halo_width / factor) if w.halo is not None else 0
    x, y = w.at[0] / factor, w.at[1] / factor
    left, top, right, bottom = font(round(w.size / factor), w.bold).getbbox(
        w.text, anchor=w.anchor, stroke_width=stroke)
    return (x + left - 2, y + top - 2, x + right + 2, y + bottom + 2)


class MapPlate:
    """A map drawn once for one board, phase and outline, its caption band blank and
    its colours reduced to a palette; `png` adds a caption. A report after a move that
    changed no hex (a share bought, a train run) so draws only its caption anew.

    The caption band is the picture's last rows, so the PNG's compressed rows above it
    are made once too (`PngStream`), and each caption only compresses its own rows.

    It keeps what it was drawn from and its picture before the palette (`rgb`), so the
    next board's plate can be drawn from it (`map_plate`'s BASE): drawn again only round
    the hexes that changed, that part given the same palette where the palette holds
    its colours, and only the PNG rows that part covers compressed again."""

    __slots__ = ("_last_caption", "_stream", "band", "board", "geometry", "height", "image",
                 "marked", "outlined", "phase", "repainted", "rgb", "title")

    def __init__(self, image: Image.Image, geometry: MapGeometry, height: int, band: int,
                 marked: bool, *, rgb: Image.Image | None = None, title: Title | None = None,
                 board: BoardView | None = None, phase: str | None = None,
                 outlined: frozenset[str] = frozenset(), repainted: bool = False,
                 stream: PngStream | None = None) -> None:
        self.image = image  # "P": the palette picture, the caption band blank
        self.geometry = geometry  # the supersampled one the caption is laid out by
        self.height = height  # of the map above the caption band, in output pixels
        self.band = band
        self.marked = marked
        self.rgb = rgb  # the picture before the palette (None: not kept)
        self.title = title
        self.board = board
        self.phase = phase
        self.outlined = outlined  # the hexes outlined
        self.repainted = repainted  # drawn from another plate, only round what changed
        self._stream = stream if stream is not None else PngStream(image, height)
        self._last_caption: tuple[str, Image.Image] | None = None

    def png(self, caption: str) -> bytes:
        """The PNG with CAPTION under the map (and the key to the outline, if any)."""
        return self._stream.png(self._caption(caption))

    def captioned(self, caption: str) -> Image.Image:
        """The palette picture `png` encodes for CAPTION: parts of the map reaching
        into the caption band are cut from it, not from the PNG decoded (issue 33)."""
        image = self.image.copy()
        image.paste(self._caption(caption), (0, self.height))
        return image

    def _caption(self, caption: str) -> Image.Image:
        """The caption band with CAPTION, in the map's palette (the last one kept: a
        map's PNG and its picture are asked for together)."""
        if self._last_caption is not None and self._last_caption[0] == caption:
            return self._last_caption[1]
        strip = Image.new("RGB", (self.image.width * SUPERSAMPLE, self.band * SUPERSAMPLE),
                          BACKGROUND)
        p = Painter(strip, self.geometry)
        paint_caption(p, caption, self.marked, 0, self.band * SUPERSAMPLE)
        final = strip.reduce(SUPERSAMPLE)
        p.finish(final, SUPERSAMPLE)
        # The caption's colours mapped to the map's palette (ink, paper, the outline's
        # red are all in it): the strip is not quantized on its own.
        band = final.quantize(palette=self.image, dither=Image.Dither.NONE)
        self._last_caption = (caption, band)
        return band


def map_plate(title: Title, board: BoardLike = EMPTY_BOARD, *, phase: str | None = None,
              highlight: Collection[str] = frozenset(),
              radius: float = DEFAULT_RADIUS, base: MapPlate | None = None) -> MapPlate:
    """The map of ``title`` with ``board`` as `render_map` draws it, without a caption
    yet (see `MapPlate.png`).

    BASE, a plate of another board of the same title (the position a move or two
    before): only the part of the map round the hexes whose tile, tokens or outline
    differ is drawn again, onto a copy of BASE's picture; the picture (before the
    palette) is the same, pixel for pixel, as one drawn whole. That part takes BASE's
    palette when it holds each of its colours within PALETTE_TOLERANCE (as close as a
    palette made anew comes); otherwise the whole picture gets a new palette."""
    title = same_title(title)
    marked = frozenset(parse_hex_id(h) for h in highlight) & frozenset(title.hexes)
    snapshot = _snapshot(board)
    geometry = map_geometry(title, radius)
    if base is not None and base.title is title and base.rgb is not None \
            and base.board is not None and base.phase == phase \
            and base.geometry == geometry.scaled(SUPERSAMPLE):
        dirty = changed_hexes(base.board, snapshot) | (marked ^ base.outlined)
        repainted = _repainted(base, title, snapshot, phase, marked, dirty)
        if repainted is not None:
            final, parts = repainted
            image, stream = _palette_of(base, final, parts)
            return MapPlate(image, base.geometry, base.height, base.band, bool(marked),
                            rgb=final, title=title, board=snapshot, phase=phase,
                            outlined=marked, repainted=True, stream=stream)
    canvas = draw_board(title, board, phase, highlight, radius, band=True)
    final = canvas.image.reduce(SUPERSAMPLE)
    canvas.painter.finish(final, SUPERSAMPLE)
    return MapPlate(quantized(final), canvas.painter.g, canvas.height, canvas.band,
                    canvas.marked, rgb=final, title=title, board=snapshot, phase=phase,
                    outlined=marked)


#: Beyond this share of the map's hexes changed, a plate is drawn whole.
REPAINT_SHARE = 0.3

#: How far (in any of red, green, blue) a colour of a part drawn again may be from
#: the nearest colour of the palette it is given: about what a palette made anew for
#: the whole picture allows itself for its rarest colours.
PALETTE_TOLERANCE = 48

Box = tuple[int, int, int, int]


def _palette_of(base: MapPlate, final: Image.Image, parts: tuple[Box, ...]
                ) -> tuple[Image.Image, PngStream | None]:
    """FINAL (BASE's picture with PARTS drawn again; none: nothing) as a palette
    picture, and its PNG stream where it shares BASE's."""
    if not parts:
        return base.image, base._stream
    image = base.image.copy()
    for part in parts:
        patch = final.crop(part)
        mapped = patch.quantize(palette=base.image, dither=Image.Dither.NONE)
        extrema = ImageChops.difference(mapped.convert("RGB"), patch).getextrema()
        worst = max(int(band[1]) for band in extrema if isinstance(band, tuple))
        if worst > PALETTE_TOLERANCE:
            # A colour the palette lacks (a company's first token, a new tile colour).
            return quantized(final), None
        image.paste(mapped, part[:2])
    return image, PngStream(image, base.height,
                            (base._stream, tuple((part[1], part[3]) for part in parts)))


def _areas(boxes: Sequence[tuple[float, float, float, float]], full: tuple[int, int]
           ) -> list[Box]:
    """The parts of the supersampled picture of size FULL to draw again for BOXES (of
    the hexes that changed): boxes that meet are one part, those apart are drawn
    apart (two changes at both ends of the board are two hexes' worth, not the board
    between them: issue 33); each on whole blocks of the reduction (even pixels)."""
    merged = [list(box) for box in boxes]
    joined = True
    while joined:
        joined = False
        for i, j in itertools.combinations(range(len(merged)), 2):
            a, b = merged[i], merged[j]
            if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                merged[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                             max(a[3], b[3])]
                del merged[j]
                joined = True
                break
    areas = []
    for left, top, right, bottom in merged:
        area = (max(0, 2 * math.floor(left / 2)), max(0, 2 * math.floor(top / 2)),
                min(full[0], 2 * math.ceil(right / 2)), min(full[1], 2 * math.ceil(bottom / 2)))
        if area[2] > area[0] and area[3] > area[1]:
            areas.append(area)
    return sorted(areas)


def _repainted(base: MapPlate, title: Title, board: BoardView, phase: str | None,
               marked: frozenset[str], dirty: frozenset[str]
               ) -> tuple[Image.Image, tuple[Box, ...]] | None:
    """BASE's picture (before the palette) with the parts round DIRTY drawn again for
    BOARD and MARKED, and those parts (in output pixels; none: nothing changed); None
    when so much changed that a whole drawing is as quick."""
    assert base.rgb is not None
    if not dirty:
        return base.rgb, ()
    if len(dirty) > REPAINT_SHARE * len(title.hexes):
        return None
    big = base.geometry
    full = (base.rgb.width * SUPERSAMPLE, base.rgb.height * SUPERSAMPLE)
    areas = _areas([hex_box(big, h) for h in sorted(dirty)], full)
    if not areas:
        return base.rgb, ()
    # Drawn again with everything that reaches into them: each hex whose own box meets
    # one; on a canvas of the whole map's size, so every shape falls on the pixels it
    # falls on in a whole drawing; only the parts are kept.
    among = [h for h, box in _hex_boxes(title, big).items()
             if any(_meets(box, area) for area in areas)]
    with _blank_canvas(full, areas) as canvas:
        p = Painter(canvas, big)
        paint_hexes(p, title, board, phase, among, marked)
        reduced = [canvas.crop(area).reduce(SUPERSAMPLE) for area in areas]
    final = base.rgb.copy()
    parts: list[Box] = []
    for area, patch in zip(areas, reduced, strict=True):
        small = (area[0] // SUPERSAMPLE, area[1] // SUPERSAMPLE, area[2] // SUPERSAMPLE,
                 area[3] // SUPERSAMPLE)
        words = [w for w in p.later
                 if _near(w, small) and _meets(_words_box(w, SUPERSAMPLE), small)]
        # The texts over the part drawn on a piece of the picture holding it, not on a
        # copy of the whole (a copy is a millisecond): moved by whole pixels and kept
        # at or right of and below its corner, each text falls on the same pixels.
        left = max(0, min([small[0], *(math.floor(w.at[0] / SUPERSAMPLE) for w in words)]))
        top = max(0, min([small[1], *(math.floor(w.at[1] / SUPERSAMPLE) for w in words)]))
        piece = final.crop((left, top, small[2], small[3]))
        piece.paste(patch, (small[0] - left, small[1] - top))
        draw = ImageDraw.Draw(piece)
        for words_ in words:
            draw_words(draw, words_, SUPERSAMPLE, (left, top))
        final.paste(piece.crop((small[0] - left, small[1] - top, piece.width, piece.height)),
                    small[:2])
        parts.append(small)
    return final, tuple(parts)


_canvases: dict[tuple[int, int], Image.Image] = {}
_canvas_lock = threading.Lock()


@contextlib.contextmanager
def _blank_canvas(size: tuple[int, int], areas: Sequence[Box]) -> Iterator[Image.Image]:
    """A picture of SIZE blank in AREAS, to draw parts of the map again on: the last
    one of that size painted over there, not made anew. A new one is most of a
    page-faulting 13 MB for a supersampled 18TN map, three times as long as painting
    it blank (issue 14); only AREAS are blanked, as only they are read back (what is
    drawn on a pixel depends on that pixel alone; issue 33). One thread at a time uses
    it; another meanwhile gets a new one."""
    if not _canvas_lock.acquire(blocking=False):
        yield Image.new("RGB", size, BACKGROUND)
        return
    try:
        canvas = _canvases.get(size)
        if canvas is None:
            _canvases.clear()  # one size kept: the map being drawn
            canvas = _canvases[size] = Image.new("RGB", size, BACKGROUND)
        else:
            colour = ImageColor.getrgb(BACKGROUND)
            for area in areas:
                canvas.paste(colour, area)
        yield canvas
    finally:
        _canvas_lock.release()


def _near(w: Words, box: Box) -> bool:
    """Whether W (drawn after the reduction) can reach BOX at all: a bound without
    laying the text out (no glyph is wider than its size, nor the halo more)."""
    x, y = w.at[0] / SUPERSAMPLE, w.at[1] / SUPERSAMPLE
    reach = (w.size * (len(w.text) + 1) + 2 * w.halo_width) / SUPERSAMPLE + 2
    return box[0] - reach < x < box[2] + reach and box[1] - reach < y < box[3] + reach


def _snapshot(board: BoardLike) -> BoardView:
    """BOARD's tiles and tokens as they are now (a game's board changes in place)."""
    return BoardView(FrozenDict(board.tiles),
                     FrozenDict({h: FrozenDict({c: tuple(s) for c, s in cities.items()})
                                 for h, cities in board.tokens.items()}),
                     FrozenDict({h: tuple(s) for h, s in board.markers.items()}))
