"""Stock market pictures: the price chart with its zones and every company's token.

``render_market(title, market, ...)`` needs only the title's market data and where the
tokens stand (``engine.market.StockMarket`` or anything with ``stacks``), and returns
PNG bytes, drawn with Pillow and the fonts shipped with the moderator like the map.

Where several tokens share a space the stack is drawn fanned out to the right, the top
of the stack first (leftmost) and in front of the ones beneath it, each numbered with
its place in the stack: that order decides who operates first and who moves under whom.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PIL import Image, ImageDraw

from engine.title import MarketCell, Title
from moderator.reports.mapimage import (
    BACKGROUND,
    INK,
    SUPERSAMPLE,
    company_colour,
    encode_png,
    fit_text,
    font,
    ink_on,
)

if TYPE_CHECKING:
    from engine.game import Game

Position = tuple[int, int]

ZONE_FILL: dict[str | None, str] = {
    None: "#f3efdc",
    "white": "#ffffff",
    "yellow": "#f6e27a",
    "green": "#9fd17f",
    "brown": "#d2a57a",
    "black": "#3a3a3a",
    "closed": "#5a5a5a",
    "end": "#b9b9b9",
    "red": "#f0918a",
    "purple": "#c9a9e3",
    "orange": "#f4b36b",
    "blue": "#9cc6ec",
}
"""Zone colours as printed; a zone's meaning is in the title's market notes."""

PAR_OUTLINE = "#8b1a1a"
LEDGE = "#1b1b1b"
GRID = "#8a8a8a"
ONE_ROW_WRAP = 14
"""A one-row market (1825's Share Price Index) is drawn in lines of this many spaces."""


class MarketLike(Protocol):
    """What the picture reads of a market (``engine.market.StockMarket`` has it)."""

    @property
    def stacks(self) -> Mapping[Position, Sequence[str]]: ...


@dataclass(frozen=True, slots=True)
class MarketGeometry:
    """Where each space of a title's chart lands in the picture, in pixels."""

    cell_width: int
    cell_height: int
    margin: int
    columns: int
    rows: int
    wrap: int | None  # a one-row chart's line length

    def place(self, pos: Position) -> tuple[int, int]:
        """(row, column) on the picture of a chart position."""
        row, col = pos
        if self.wrap is not None:
            return divmod(col, self.wrap)
        return row, col

    def cell_box(self, pos: Position) -> tuple[int, int, int, int]:
        row, col = self.place(pos)
        x = self.margin + col * self.cell_width
        y = self.margin + row * self.cell_height
        return x, y, x + self.cell_width, y + self.cell_height

    def token_centre(self, pos: Position, depth: int, count: int) -> tuple[float, float]:
        """Centre of the token at place ``depth`` (0 = top) of a stack of ``count``."""
        x0, _, _, y1 = self.cell_box(pos)
        r = self.token_radius(count)
        pad = 0.06 * self.cell_width
        step = min(2.1 * r, (self.cell_width - 2 * r - 2 * pad) / max(1, count - 1))
        return x0 + pad + r + depth * step, y1 - 0.08 * self.cell_height - r

    def token_radius(self, count: int = 1) -> float:
        """A token's radius in a stack of ``count``: smaller tokens for a bigger stack,
        so that up to four overlap by less than a third and all their symbols show."""
        room = self.cell_width * 0.88
        return min(self.cell_height * 0.26, max(self.cell_height * 0.17,
                                                room / (2 + 1.4 * (count - 1))))

    @property
    def size(self) -> tuple[int, int]:
        return (2 * self.margin + self.columns * self.cell_width,
                2 * self.margin + self.rows * self.cell_height)

    def scaled(self, k: int) -> MarketGeometry:
        return MarketGeometry(self.cell_width * k, self.cell_height * k, self.margin * k,
                              self.columns, self.rows, self.wrap)


def market_geometry(title: Title, cell_width: int = 84, cell_height: int = 70) -> MarketGeometry:
    """The geometry ``render_market`` uses for ``title``'s chart."""
    rows = title.market.rows
    if len(rows) == 1:
        wrap = min(ONE_ROW_WRAP, len(rows[0]))
        return MarketGeometry(cell_width, cell_height, 16, wrap, math.ceil(len(rows[0]) / wrap),
                              wrap)
    return MarketGeometry(cell_width, cell_height, 16, max(len(r) for r in rows), len(rows),
                          None)


def render_market(title: Title, market: MarketLike, *, caption: str | None = None) -> bytes:
    """The stock market of ``title`` with the tokens of ``market``, as PNG bytes."""
    return encode_png(draw_market(title, market, caption=caption))


def draw_market(title: Title, market: MarketLike, *, caption: str | None = None) -> Image.Image:
    """``render_market``'s picture as a Pillow image (RGB), before encoding."""
    geometry = market_geometry(title)
    g = geometry.scaled(SUPERSAMPLE)
    width, height = geometry.size
    band = 30 if caption else 0
    image = Image.new("RGB", (width * SUPERSAMPLE, (height + band) * SUPERSAMPLE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    line = SUPERSAMPLE

    cells = list(title.market.cells())
    for cell in cells:
        _cell(draw, g, title, cell, line)
    for cell in cells:
        _ledges(draw, g, cell, line)
    for pos, stack in market.stacks.items():
        if stack:
            _stack(draw, g, title, pos, list(stack))
    if caption:
        draw.text((g.margin, height * SUPERSAMPLE + band * SUPERSAMPLE // 2), caption,
                  font=font(14 * SUPERSAMPLE), fill=INK, anchor="lm")
    return image.reduce(SUPERSAMPLE)


def _cell(draw: ImageDraw.ImageDraw, g: MarketGeometry, title: Title, cell: MarketCell,
          line: int) -> None:
    x0, y0, x1, y1 = g.cell_box((cell.row, cell.col))
    fill = ZONE_FILL.get(cell.zone, ZONE_FILL[None])
    draw.rectangle((x0, y0, x1, y1), fill=fill, outline=GRID, width=line)
    if cell.can_par:
        # Start spaces: a dark red frame inside the space, as the printed charts do.
        inset = 3 * line
        draw.rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=PAR_OUTLINE,
                       width=2 * line)
    ink = ink_on(fill)
    top = y0 + 0.08 * g.cell_height
    draw.text((x0 + 0.1 * g.cell_width, top), f"{title.currency}{cell.price}",
              font=font(round(g.cell_height * 0.25), True), fill=ink, anchor="la")
    # Where a move turns (an arrow) and the space that ends the game, at the right.
    small = font(round(g.cell_height * 0.17), True)
    arrow = {"up": "\u2191", "down": "\u2193"}.get(cell.arrow or "")
    if arrow:
        draw.text((x1 - 0.08 * g.cell_width, top), arrow, font=small, fill=ink, anchor="ra")
    if cell.endgame:
        draw.text((x1 - 0.08 * g.cell_width, top + 0.3 * g.cell_height), "END", font=small,
                  fill=ink, anchor="ra")


def _ledges(draw: ImageDraw.ImageDraw, g: MarketGeometry, cell: MarketCell, line: int) -> None:
    """Ledges the tokens cannot cross: a heavy line under or beside the space."""
    x0, y0, x1, y1 = g.cell_box((cell.row, cell.col))
    if "soft_below" in cell.ledges:
        draw.line([(x0, y1), (x1, y1)], fill=LEDGE, width=4 * line)
    if "soft_right" in cell.ledges:
        draw.line([(x1, y0), (x1, y1)], fill=LEDGE, width=4 * line)


def _stack(draw: ImageDraw.ImageDraw, g: MarketGeometry, title: Title, pos: Position,
           stack: list[str]) -> None:
    r = g.token_radius(len(stack))
    # Bottom of the stack first, so the top token ends up in front of the others.
    for depth in reversed(range(len(stack))):
        sym = stack[depth]
        x, y = g.token_centre(pos, depth, len(stack))
        colour = company_colour(title, sym)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline="#000000",
                     width=SUPERSAMPLE)
        fit_text(draw, (x, y), sym, 1.7 * r, 0.62 * r, fill=ink_on(colour), bold=True)
        if len(stack) > 1:
            # Its place in the stack, on a small white disc at the token's upper right,
            # which the token in front of it leaves uncovered.
            d = (x + 0.7 * r, y - 0.75 * r)
            s = 0.38 * r
            draw.ellipse((d[0] - s, d[1] - s, d[0] + s, d[1] + s), fill="#ffffff",
                         outline="#000000", width=SUPERSAMPLE)
            draw.text(d, str(depth + 1), font=font(round(0.55 * r), True), fill=INK,
                      anchor="mm")


def render_game_market(game: Game, *, caption: str | None = None) -> bytes:
    """The stock market of a game in its current position (for the mail reports)."""
    return render_market(game.state.title, game.state.market, caption=caption)


MARKET_CID = "market"  # what a report's HTML names its stock market picture by


#: A part wider than this many spaces is cut into bands shown one under the other, so
#: that a phone shows it at half scale at most (18TN's whole chart is 16 spaces wide).
BAND_COLUMNS = 9

#: Rows shown below the lowest token: where a sale or two takes it (the rest is empty).
ROWS_BELOW = 2

Box = tuple[int, int, int, int]  # left, top, right, bottom in the whole picture


def part_boxes(title: Title, market: MarketLike, *, par: bool = False, margin: int = 1
               ) -> list[Box]:
    """The parts of the chart a report shows, as boxes of the whole picture, to be shown
    one under the other: the columns from the leftmost to the rightmost token, MARGIN
    more either side (where the next moves go), and the start spaces too when PAR (a
    company may still start), cut into bands of at most BAND_COLUMNS spaces; each band
    down to ROWS_BELOW rows under the lowest token (or its own lowest space). A one-row
    chart (1825) wraps and is shown whole."""
    g = market_geometry(title)
    width, height = g.size
    places = [pos for pos, stack in market.stacks.items() if stack]
    if par:
        places += [(cell.row, cell.col) for cell in title.market.par_cells()]
    if g.wrap is not None or not places:
        return [(0, 0, width, height)]
    columns = [col for _, col in places]
    lowest = max(row for row, _ in places) + ROWS_BELOW
    first = max(0, min(columns) - margin)
    last = min(g.columns - 1, max(columns) + margin)
    bands = -(-(last - first + 1) // BAND_COLUMNS)
    size = -(-(last - first + 1) // bands)  # bands of even width
    boxes = []
    for start in range(first, last + 1, size):
        stop = min(last, start + size - 1)
        own = max(c.row for c in title.market.cells() if start <= c.col <= stop) + 1
        rows = min(lowest + 1, own)
        left = 0 if start == 0 else g.margin + start * g.cell_width - g.margin // 2
        right = width if stop == g.columns - 1 else (g.margin + (stop + 1) * g.cell_width
                                                     + g.margin // 2)
        # Cut under a row's grid line, or with a margin under the band's lowest space.
        bottom = min(height, g.margin + rows * g.cell_height
                     + (g.margin // 2 if rows == own else 2))
        boxes.append((left, 0, right, bottom))
    return boxes


def market_part(title: Title, market: MarketLike, *, par: bool = False) -> Image.Image:
    """The parts of the chart a report shows (``part_boxes``), one under the other. The
    whole chart is too wide for a phone (1850's is 1800 px); a part is at full scale, so
    its prices can be read."""
    image = draw_market(title, market)
    boxes = part_boxes(title, market, par=par)
    part = Image.new("RGB", (max(b[2] - b[0] for b in boxes),
                             sum(b[3] - b[1] for b in boxes)), BACKGROUND)
    top = 0
    for box in boxes:
        part.paste(image.crop(box), (0, top))
        top += box[3] - box[1]
    return part


def market_png(image: Image.Image) -> bytes:
    """A market picture for mail: the chart's flat colours fit a small palette."""
    out = io.BytesIO()
    # zlib level 8, not 9 (`optimize`): 1% larger in half the time, for most reports.
    image.quantize(colors=64, method=Image.Quantize.FASTOCTREE,
                   dither=Image.Dither.NONE).save(out, "PNG", compress_level=8)
    return out.getvalue()


def report_market(game: Game) -> bytes:
    """The stock market picture of a game's report (``market_part`` of its position,
    with the start spaces while a company may still start)."""
    state = game.state
    par = any(corp.par_price is None for corp in state.corporations.values())
    return market_png(market_part(state.title, state.market, par=par))
