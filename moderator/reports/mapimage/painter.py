"""Drawing on the supersampled canvas: `Painter` draws a hex's shapes given in its unit
coordinates, and keeps the texts (`Words`) to draw once the canvas is reduced."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from moderator.reports.mapimage.geometry import MapGeometry, Point
from moderator.reports.mapimage.style import INK, font


@dataclass(frozen=True, slots=True)
class Words:
    """A text to draw once the shapes are reduced to the final size."""

    at: Point
    text: str
    size: float
    bold: bool
    fill: str
    halo: str | None
    halo_width: float
    anchor: str


class Painter:
    """Draws unit-coordinate shapes of a hex onto the supersampled canvas.

    Texts are kept and drawn after the reduction, at the final size: FreeType smooths
    them by itself, small letters come out crisper with hinting at their real size,
    and rendering them at a quarter of the pixels is most of the time saved. Only
    names are drawn at once, as cities and tokens must cover them.
    """

    def __init__(self, image: Image.Image, geometry: MapGeometry) -> None:
        self.draw = ImageDraw.Draw(image)
        self.g = geometry
        self.r = geometry.radius
        self.later: list[Words] = []

    def px(self, hex_id: str, p: Point) -> Point:
        return self.g.to_pixels(hex_id, p)

    def width(self, units: float, least: int = 1) -> int:
        return max(least, round(units * self.r))

    def circle(self, centre: Point, radius: float, fill: str | None, outline: str | None,
               width: int = 0) -> None:
        x, y = centre
        self.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill,
                          outline=outline, width=width)

    def text(self, at: Point, text: str, size: float, *, bold: bool = False,
             fill: str = INK, halo: str | None = None, halo_width: float = 0.0,
             anchor: str = "mm", now: bool = False) -> None:
        """Text centred on ``at`` (or placed by ``anchor``); ``size`` in pixels; a halo
        in the background colour keeps it legible where it crosses track."""
        words = Words(at, text, size, bold, fill, halo, halo_width, anchor)
        if now:
            draw_words(self.draw, words, 1)
        else:
            self.later.append(words)

    def fit_text(self, centre: Point, text: str, room: float, size: float, *, fill: str,
                 bold: bool = False) -> None:
        for dy, line, px in fit_lines(text, room, size * self.r, bold):
            self.text((centre[0], centre[1] + dy), line, px, bold=bold, fill=fill)

    def finish(self, image: Image.Image, factor: int) -> None:
        """Draw the kept texts on ``image``, the canvas reduced by ``factor``."""
        draw = ImageDraw.Draw(image)
        for words in self.later:
            draw_words(draw, words, factor)


def draw_words(draw: ImageDraw.ImageDraw, w: Words, factor: int,
               corner: tuple[int, int] = (0, 0)) -> None:
    """W on DRAW's picture, the canvas reduced by FACTOR; CORNER: where that picture's
    top left lies in the whole one (a piece of it)."""
    stroke = round(w.halo_width / factor) if w.halo is not None else 0
    draw.text((w.at[0] / factor - corner[0], w.at[1] / factor - corner[1]), w.text,
              font=font(round(w.size / factor), w.bold), fill=w.fill, anchor=w.anchor,
              stroke_width=stroke, stroke_fill=w.halo)


def fit_lines(text: str, room: float, size: float,
              bold: bool = False) -> list[tuple[float, str, float]]:
    """How ``text`` fits ``room`` pixels: shrunk from ``size`` pixels down to two thirds
    of it, then a longer symbol (NC&StL) goes on two lines rather than becoming
    unreadably small. Each line as (vertical offset, text, size)."""
    px = size
    while px > 0.67 * size and font(round(px), bold).getlength(text) > room:
        px *= 0.95
    if font(round(px), bold).getlength(text) <= room * 1.05 or len(text) < 4:
        return [(0.0, text, px)]
    # Break after "&" or "-" (NC& StL, M- NN), else in the middle.
    breaks = [i + 1 for i, ch in enumerate(text[1:-1], 1) if ch in "&-"]
    cut = min(breaks, key=lambda i: abs(2 * i - len(text))) if breaks else len(text) // 2
    top, bottom = text[:cut], text[cut:]
    px = size
    while px > 0.5 * size and max(font(round(px), bold).getlength(top),
                                   font(round(px), bold).getlength(bottom)) > room:
        px *= 0.95
    return [(-0.5 * px, top, px), (0.5 * px, bottom, px)]


def fit_text(draw: ImageDraw.ImageDraw, centre: Point, text: str, room: float, size: float,
             *, fill: str, bold: bool = False) -> None:
    """``text`` centred on ``centre``, fitted to ``room`` pixels (see ``fit_lines``)."""
    for dy, line, px in fit_lines(text, room, size, bold):
        draw.text((centre[0], centre[1] + dy), line, font=font(round(px), bold), fill=fill,
                  anchor="mm")
