"""The picture's style: the colours of hexes, track and companies' tokens, the shipped
fonts and the widths of texts, and which of a phase-dependent value's printed values is
in force and the colour of its box."""

from __future__ import annotations

import functools
import io
from collections import OrderedDict
from importlib import resources
from typing import Any

from PIL import ImageFont

from engine.title import FrozenDict, Revenue, Title

RGB = tuple[int, int, int]

HEX_FILL: dict[str, str] = {
    "white": "#f3efdc",  # the printed map's paper
    "yellow": "#f6dc3c",
    "green": "#74bb52",
    "brown": "#c4864e",
    "gray": "#b9b9b9",
    "red": "#d9372e",
    "blue": "#8fc3e8",
}
"""Hex and tile colours, close to the printed maps' so a player recognises them."""

PHASE_COLOUR: dict[str, str] = {**HEX_FILL, "white": "#ffffff"}
BACKGROUND = "#ffffff"
TRACK = "#1b1b1b"
OUTLINE = "#6b6b6b"
HIGHLIGHT = "#e0119d"  # magenta: no tile, track or company colour is near it
BORDER = "#1f5fb4"  # impassable sides are the broad rivers of the printed maps
MOUNTAIN = "#8b5a2b"
WATER = "#2a7bc8"
INK = "#111111"
COORDINATE_INK = "#444444"

COMPANY_COLOURS: dict[tuple[str, str], str] = {
    # 18TN, 1850, 1861 and 1825: the colours of the public 18xx.games data.
    ("18TN", "SR"): "#f1d500",
    ("18TN", "GMO"): "#d81e1e",
    ("18TN", "L&N"): "#1f4fd1",
    ("18TN", "IC"): "#1d8a2a",
    ("18TN", "NC&StL"): "#f28c12",
    ("18TN", "TC"): "#111111",
    ("1850", "CBQ"): "#8c8c7e",
    ("1850", "MILW"): "#c45114",
    ("1850", "RI"): "#881319",
    ("1850", "GN"): "#6fb3c4",
    ("1850", "KATY"): "#006521",
    ("1850", "MP"): "#181d62",
    ("1850", "NP"): "#1c1a17",
    ("1850", "SOO"): "#c40017",
    ("1850", "UP"): "#b6ad14",
    ("1825", "LNWR"): "#000000",
    ("1825", "GWR"): "#004225",
    ("1825", "GER"): "#191970",
    ("1825", "LSWR"): "#d0f0c0",
    ("1825", "SECR"): "#ffef00",
    ("1825", "LBSC"): "#ffa500",
    ("1861", "NW"): "#000080",
    ("1861", "SW"): "#d75500",
    ("1861", "SE"): "#772282",
    ("1861", "MVR"): "#808000",
    ("1861", "MK"): "#7b352a",
    ("1861", "GRR"): "#ef4223",
    ("1861", "MKN"): "#0189d1",
    ("1861", "MKV"): "#3c7b5c",
    ("1861", "R-O"): "#009595",
    ("1861", "K-B"): "#4cb5d2",
    ("1861", "O-K"): "#0097df",
    ("1861", "K-K"): "#0097df",
    ("1861", "SP-W"): "#0189d1",
    ("1861", "M-B"): "#000080",
    ("1861", "K-R"): "#772282",
    ("1861", "N"): "#d30869",
    ("1861", "D"): "#f3716d",
    ("1861", "M-K"): "#d75500",
    ("1861", "M-NN"): "#ef4223",
    ("1861", "M-V"): "#b7274c",
    ("1861", "V"): "#7c7b8c",
    ("1861", "T-R"): "#7c7b8c",
    ("1861", "S-V"): "#7c7b8c",
    ("1861", "E"): "#000080",
    ("1861", "RSR"): "#fffdd0",
    # 1851 is not on 18xx.games: its companies that also run in 18TN keep their 18TN
    # colours (the "Dixie Line" was the NC&StL's nickname).
    ("1851", "GM&O"): "#d81e1e",
    ("1851", "IC"): "#1d8a2a",
    ("1851", "L&N"): "#1f4fd1",
    ("1851", "Dixie"): "#f28c12",
    ("1851", "SR"): "#f1d500",
    ("1851", "TC"): "#111111",
}
"""Token colours by (title, company sym). The 1861 minors share colours as they do
on 18xx.games; every token also carries its symbol."""

_FALLBACK_COLOURS = ("#7a3d9a", "#2e8b8b", "#b03060", "#556b2f", "#4682b4", "#cd853f")


def company_colour(title: Title, sym: str) -> str:
    """The colour of company ``sym``'s tokens (any of its abbreviations)."""
    try:
        spec = title.corporation(sym)
    except KeyError:
        return _FALLBACK_COLOURS[0]
    colour = COMPANY_COLOURS.get((title.name, spec.sym))
    if colour is not None:
        return colour
    # A title added later still gets distinct colours until the table names them.
    return _FALLBACK_COLOURS[title.corporations.index(spec) % len(_FALLBACK_COLOURS)]


def rgb(colour: str) -> RGB:
    """A "#rrggbb" colour as a tuple, for comparing pixels."""
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = rgb(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


# --------------------------------------------------------------------------- fonts


FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
_MEASURE = 200  # text is measured at this size and scaled: widths in hex radii


@functools.cache
def _font_bytes(bold: bool) -> bytes:
    return resources.files("moderator.reports.fonts").joinpath(FONT_FILES[bold]).read_bytes()


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans at ``size`` pixels (never a system font)."""
    return _GlyphCachedFont(io.BytesIO(_font_bytes(bold)), max(1, size))


#: Rendered texts kept (`_GlyphCachedFont`), over all sizes: a board's names, values
#: and coordinates, a few thousand.
GLYPH_CACHE_SIZE = 4096
_glyphs: OrderedDict[tuple[object, ...], tuple[Any, tuple[int, int]]] = OrderedDict()


class _GlyphCachedFont(ImageFont.FreeTypeFont):
    """A FreeType font that renders each text once for each way it is asked for: a map
    drawn again round a change (`map_plate`'s BASE) draws the same names and values
    at the same places, and FreeType's rendering was a tenth of a move's processing
    (issue 14). The mask depends only on the arguments (the text, its anchor, stroke,
    and the fraction of a pixel it starts at), so the picture is the same, pixel for
    pixel, as without the cache."""

    def getmask2(self, text: str | bytes, mode: str = "", *args: Any,
                 **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        try:
            key = (id(self), text, mode, args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an unhashable argument (a list of features): not kept
            return super().getmask2(text, mode, *args, **kwargs)
        found = _glyphs.get(key)
        if found is None:
            found = super().getmask2(text, mode, *args, **kwargs)
            _glyphs[key] = found
            while len(_glyphs) > GLYPH_CACHE_SIZE:
                _glyphs.popitem(last=False)
        else:
            _glyphs.move_to_end(key)
        return found


@functools.lru_cache(maxsize=4096)
def text_units(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` at ``size`` (both in hex radii)."""
    return font(_MEASURE, bold).getlength(text) / _MEASURE * size


# --------------------------------------------------------------------------- phase values


def current_phase_key(title: Title, revenue: Revenue, phase: str | None) -> str | None:
    """Which printed value of a phase-dependent revenue is in force: the latest one
    whose phase key has been reached (None for a plain number; the first before any
    phase is known)."""
    if not isinstance(revenue, FrozenDict):
        return None
    order = [k for k in title.phase_keys if k in revenue] or list(revenue)
    key = _phase_key(title, phase)
    if key is None or key not in title.phase_keys:
        return order[0]
    position = title.phase_keys.index(key)
    reached = [k for k in order if k in title.phase_keys
               and title.phase_keys.index(k) <= position]
    return reached[-1] if reached else order[0]


def _phase_key(title: Title, phase: str | None) -> str | None:
    """The phase key in force: ``phase`` names a phase, or is a phase key itself."""
    if phase is None:
        return None
    if any(p.name == phase for p in title.phases):
        return title.phase(phase).offboard_key
    if phase in title.phase_keys:
        return phase
    raise ValueError(f"{title.name} has no phase or phase key {phase!r}")


def key_colour(title: Title, key: str) -> str:
    """The colour of a phase key's value box: the key itself when it is a tile colour,
    else (1851's phase names) the newest tile colour of the first phase using it."""
    if key in PHASE_COLOUR:
        return PHASE_COLOUR[key]
    for phase in title.phases:
        if phase.offboard_key == key and phase.tiles:
            return PHASE_COLOUR.get(phase.tiles[-1], "#ffffff")
    return "#ffffff"
