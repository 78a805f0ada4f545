"""A part of the map at full scale: the hexes that changed since a reader's last report
and a ring of their neighbours, so a phone shows city names and revenues at a size one
can read, in a fraction of the whole map's bytes.

The map's picture is cut, not drawn again: `moderator.reports.mapimage` draws the board
(and outlines the changed hexes) once for every reader.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Collection
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.title import Title
from moderator.reports.mapimage import (
    BACKGROUND,
    COORDINATE_INK,
    font,
    map_geometry,
    palette_png,
    title_keyed,
)

__all__ = ["Region", "crop_box", "crop_map", "decode", "neighbourhood", "overview_png", "plain_box",
           "region_pngs", "regions"]

#: Hexes of the map's picture around the changed ones that a part shows.
RING = 1.5
#: A part at least this wide (in hexes): a lone changed hex shows its neighbourhood.
LEAST = 5.0
#: Colours of a part's palette: the map's flat colours and enough of their edges to
#: keep text and track smooth (a sixth smaller than 256).
PART_COLOURS = 48
#: zlib's level for a part, deflated by zlib-ng (`palette_png`). With zlib, 6 made a
#: part about 8% larger than 8 in less than half the time (8 was 2% larger than 9 in a
#: third of it); a part is cut for most moves that change the board, so under a burst
#: its encoding was a tenth of the processing (issue 14). A large part (a company's
#: stations spread over the board) fills most of a report's 60 KB (issue 19): it gets
#: the smallest encoding, where its bytes count more than the milliseconds. zlib-ng's
#: 6 and 9 are each smaller than zlib's 6 and 8 were, in two thirds of the time
#: (18TN's parts under a burst: 117 ms against 74, every part smaller; issue 33).
PART_COMPRESS_LEVEL = 6
LARGE_PART_COMPRESS_LEVEL = 9
#: A part of more pixels than this is large (a plain cut round one hex is about 0.2 M).
LARGE_PART_PIXELS = 500_000


def crop_box(title: Title, hexes: Collection[str], size: tuple[int, int], most: float = 0.6,
             ring: float = RING) -> tuple[int, int, int, int] | None:
    """The box (left, top, right, bottom) of the map's picture of SIZE that holds HEXES
    and a RING (in hexes) round them; None when it would be more than MOST of the map."""
    geometry = map_geometry(title)
    centres = [geometry.centre(h) for h in hexes if h in title.hexes]
    if not centres:
        return None
    pad_x = geometry.half_width * (1 + 2 * ring)
    pad_y = geometry.half_height * (1 + 2 * ring)
    left = min(x for x, _ in centres) - pad_x
    right = max(x for x, _ in centres) + pad_x
    top = min(y for _, y in centres) - pad_y
    bottom = max(y for _, y in centres) + pad_y
    least = geometry.half_width * 2 * LEAST
    if right - left < least:
        middle = (left + right) / 2
        left, right = middle - least / 2, middle + least / 2
    width, height = size
    box = (max(0, round(left)), max(0, round(top)), min(width, round(right)),
           min(height, round(bottom)))
    if (box[2] - box[0]) * (box[3] - box[1]) > most * width * height:
        return None
    return box


@title_keyed
@functools.cache
def _ruler_labels(title: Title) -> tuple[tuple[tuple[str, float], ...],
                                         tuple[tuple[str, float], ...]]:
    """The map's column labels with their x and row labels with their y, in the whole
    map's picture (found once per title: every part's rulers are cut from them)."""
    geometry = map_geometry(title)
    across: dict[str, float] = {}  # label -> x
    down: dict[str, float] = {}  # label -> y
    for hex_id in title.hexes:
        letters = hex_id.rstrip("0123456789")
        number = hex_id[len(letters):]
        x, y = geometry.centre(hex_id)
        row_label, col_label = (letters, number) if geometry.letters == "rows" \
            else (number, letters)
        across[col_label] = x
        down[row_label] = y
    return tuple(across.items()), tuple(down.items())


def _with_rulers(part: Image.Image, title: Title, box: tuple[int, int, int, int]
                 ) -> Image.Image:
    """PART with the map's coordinates along its top and left, as the whole map has
    them in its margin: an order names the hex."""
    geometry = map_geometry(title)
    size = max(10, round(geometry.radius * 0.24))
    face = font(size)
    band = size + 6
    out = Image.new("RGB", (part.width + band, part.height + band), BACKGROUND)
    out.paste(part, (band, band))
    draw = ImageDraw.Draw(out)
    across, down = _ruler_labels(title)
    for label, at_x in across:
        x = at_x - box[0]
        if 0 <= x < part.width:
            draw.text((band + x, band / 2), label, fill=COORDINATE_INK, font=face, anchor="mm")
    for label, at_y in down:
        y = at_y - box[1]
        if 0 <= y < part.height:
            draw.text((band / 2, band + y), label, fill=COORDINATE_INK, font=face, anchor="mm")
    return out


def crop_map(png: bytes, title: Title, hexes: Collection[str],
             image: Image.Image | None = None) -> bytes | None:
    """The part of the map's PNG (as `mapimage` draws it, at its default scale) that
    shows HEXES: a plain cut when they lie close together; when they are spread over
    the board, HEXES and their neighbours with the other hexes blank (a cut holding
    them all would cost most of the whole map's bytes); None when that would be most of
    the board anyway (then the whole map serves). IMAGE: the PNG already decoded, where
    the caller keeps it (it is not changed)."""
    image = image if image is not None else decode(png)
    box = plain_box(title, hexes, image.size)
    if box is not None:
        cut = image.crop(box).convert("RGB")
    else:
        kept = neighbourhood(title, hexes)
        if not kept or len(kept) > MOST_HEXES * len(title.hexes):
            return None
        whole = image.convert("RGB")
        box = _blank_all_but(whole, title, kept)
        cut = whole.crop(box)
    part = _with_rulers(cut, title, box)
    return palette_png(part.quantize(colors=PART_COLOURS, method=Image.Quantize.FASTOCTREE,
                                     dither=Image.Dither.NONE),
                       LARGE_PART_COMPRESS_LEVEL if part.width * part.height
                       > LARGE_PART_PIXELS else PART_COMPRESS_LEVEL)


def plain_box(title: Title, hexes: Collection[str], size: tuple[int, int]
              ) -> tuple[int, int, int, int] | None:
    """The box of a plain cut of the map's picture of SIZE for HEXES (`crop_map`);
    None when the part is instead HEXES and their neighbours, cut within the hexes (or
    is no part at all)."""
    return _plain_box(title, frozenset(hexes), size)


@title_keyed
@functools.lru_cache(maxsize=256)
def _plain_box(title: Title, hexes: frozenset[str], size: tuple[int, int]
               ) -> tuple[int, int, int, int] | None:
    # Kept: every report's part asks it again (for its cache's key and for the cut),
    # and the neighbourhoods it counts cost a third of a millisecond (issue 14).
    box = crop_box(title, hexes, size)
    if box is not None and \
            _hexes_in(title, box) <= SPARSE * len(neighbourhood(title, hexes, 2)):
        return box
    return None


#: A plain cut holding more than this many times the hexes it is for and two rings of
#: neighbours (what a cut of one hex holds) shows those and one ring only, the other
#: hexes blank: two changes far apart (1861's nationalisations) cost a third of the
#: whole map otherwise.
SPARSE = 1.5
#: A part with the far hexes blank shows at most this share of the board's hexes.
MOST_HEXES = 0.6
#: How a hex away from the ones a part shows is drawn: blank, outlined faintly (the
#: board's shape stays, at next to no cost in the PNG).
BLANK_FILL, BLANK_OUTLINE = "#ffffff", "#e4e4e4"


def neighbourhood(title: Title, hexes: Collection[str], rings: int = 1) -> set[str]:
    """HEXES (those of the board) and their neighbours, RINGS deep."""
    # Kept: every report's choice of a part asks it again for the same hexes, and each
    # answer measures every hex of the board against every one shown (issue 33).
    return set(_neighbourhood(title, frozenset(hexes), rings))


@title_keyed
@functools.lru_cache(maxsize=512)
def _neighbourhood(title: Title, hexes: frozenset[str], rings: int) -> frozenset[str]:
    geometry = map_geometry(title)
    centres = {h: geometry.centre(h) for h in title.hexes}
    near = geometry.half_width * 2 * 1.05  # neighbouring centres are 2 half-widths apart
    found = {h for h in hexes if h in centres}
    for _ in range(rings):
        shown = [centres[h] for h in found]
        found = {h for h, (x, y) in centres.items()
                 if any((x - sx) ** 2 + (y - sy) ** 2 <= near ** 2 for sx, sy in shown)}
    return frozenset(found)


def _hexes_in(title: Title, box: tuple[int, int, int, int]) -> int:
    geometry = map_geometry(title)
    return sum(box[0] <= x <= box[2] and box[1] <= y <= box[3]
               for x, y in map(geometry.centre, title.hexes))


def _blank_all_but(image: Image.Image, title: Title, kept: set[str]
                   ) -> tuple[int, int, int, int]:
    """Blank IMAGE's hexes but KEPT; the box that holds KEPT (within the hexes: the
    whole map's margin holds its coordinates, which would show cut)."""
    geometry = map_geometry(title)
    draw = ImageDraw.Draw(image)
    for hex_id in title.hexes:
        if hex_id not in kept:
            draw.polygon(geometry.corners(hex_id), fill=BLANK_FILL, outline=BLANK_OUTLINE)
    box = crop_box(title, kept, image.size, most=1.0, ring=0.05)
    assert box is not None
    xs = [geometry.centre(h)[0] for h in title.hexes]
    ys = [geometry.centre(h)[1] for h in title.hexes]
    return (max(box[0], round(min(xs) - geometry.half_width)),
            max(box[1], round(min(ys) - geometry.half_height)),
            min(box[2], round(max(xs) + geometry.half_width) + 1),
            min(box[3], round(max(ys) + geometry.half_height) + 1))


def decode(png: bytes) -> Image.Image:
    """A map's PNG as a picture (several parts of one map are cut from one decoding)."""
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        return image.copy()


# --------------------------------------------------------------------------- regions

#: The widest a region of the whole board may be, its ruler included, in pixels: a
#: phone 390 px wide shows a mail's picture at most about 374 px wide (8 px margins),
#: so a region no wider is shown at full scale and its names (about 11 px) stay legible
#: (issue 30, item 7).
REGION_WIDTH = 370
#: The overview of the whole board: about a phone's width, for where each region lies.
OVERVIEW_WIDTH = 390
REGION_INK = "#1f5fb4"


@dataclass(frozen=True, slots=True)
class Region:
    """A band of the board's columns shown at full scale: BOX in the whole map's
    picture, FIRST and LAST the column labels it holds whole (as the rulers print
    them)."""

    box: tuple[int, int, int, int]
    first: str
    last: str

    @property
    def label(self) -> str:
        return f"columns {self.first}-{self.last}" if self.first != self.last \
            else f"column {self.first}"


@title_keyed
@functools.cache
def regions(title: Title) -> tuple[Region, ...]:
    """The board cut into bands of whole columns, each at most REGION_WIDTH wide with
    its ruler, left to right: every hex is whole in exactly one band (a band ends
    where the next one's first column begins, so neighbouring bands share half a
    hex)."""
    geometry = map_geometry(title)
    across = dict(_ruler_labels(title)[0])  # column label -> x
    by_x = sorted(across.items(), key=lambda item: item[1])
    xs = [geometry.centre(h)[0] for h in title.hexes]
    ys = [geometry.centre(h)[1] for h in title.hexes]
    top = max(0, round(min(ys) - geometry.half_height) - 2)
    bottom = round(max(ys) + geometry.half_height) + 2
    band = max(10, round(geometry.radius * 0.24)) + 6  # `_with_rulers`
    widest = REGION_WIDTH - band
    found: list[Region] = []
    start = 0
    left_edge = min(xs) - geometry.half_width
    while start < len(by_x):
        end = start
        while end + 1 < len(by_x) and \
                by_x[end + 1][1] + geometry.half_width - (by_x[start][1] - geometry.half_width) \
                <= widest:
            end += 1
        left = max(round(left_edge) - 2, round(by_x[start][1] - geometry.half_width) - 2)
        right = round(by_x[end][1] + geometry.half_width) + 2
        found.append(Region((max(0, left), top, right, bottom), by_x[start][0], by_x[end][0]))
        start = end + 1
    return tuple(found)


def region_pngs(png: bytes, title: Title, image: Image.Image | None = None
                ) -> tuple[bytes, ...]:
    """The whole map's PNG (as `mapimage` draws it) cut into its `regions`, each at
    full scale with the map's coordinates along its top and left."""
    image = (image if image is not None else decode(png)).convert("RGB")
    out: list[bytes] = []
    for region in regions(title):
        part = _with_rulers(image.crop(region.box), title, region.box)
        buffer = io.BytesIO()
        part.quantize(colors=PART_COLOURS, method=Image.Quantize.FASTOCTREE,
                      dither=Image.Dither.NONE).save(
            buffer, "PNG", compress_level=LARGE_PART_COMPRESS_LEVEL)
        out.append(buffer.getvalue())
    return tuple(out)


def overview_png(png: bytes, title: Title, image: Image.Image | None = None,
                 width: int = OVERVIEW_WIDTH, framed: bool = True) -> bytes:
    """The whole map's PNG reduced to WIDTH, each region's band framed and numbered as
    the report numbers them (if FRAMED): where on the board each full-scale region
    lies."""
    image = (image if image is not None else decode(png)).convert("RGB")
    scale = width / image.width
    # reducing_gap: reduced by whole blocks first, then filtered: a fifth of the time
    # of a filter over the whole picture, and no visible difference at this size.
    small = image.resize((width, max(1, round(image.height * scale))),
                         Image.Resampling.LANCZOS, reducing_gap=2.0)
    draw = ImageDraw.Draw(small)
    face = font(16, bold=True)
    for number, region in enumerate(regions(title) if framed else (), 1):
        left, top, right, bottom = (round(v * scale) for v in region.box)
        draw.rectangle((left, top, right - 1, bottom - 1), outline=REGION_INK, width=2)
        draw.text((left + 4, top + 3), str(number), fill=REGION_INK, font=face,
                  stroke_width=2, stroke_fill="#ffffff")
    buffer = io.BytesIO()
    # As few colours as a part's (PART_COLOURS): 128 kept little more than the
    # reduction's blur and weighed half as much again (1861: 27 KB against 18 KB);
    # at 32 the plain hexes' cream went white. Level 9: a small picture, cut once.
    small.quantize(colors=PART_COLOURS, method=Image.Quantize.FASTOCTREE,
                   dither=Image.Dither.NONE).save(buffer, "PNG", compress_level=9)
    return buffer.getvalue()
