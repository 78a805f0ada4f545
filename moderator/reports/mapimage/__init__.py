"""Map pictures: the board of a game as a PNG, drawn with Pillow alone.

``render_map(title, board, ...)`` needs only the title data and the board (laid tiles
and station tokens), plus the current phase for phase-dependent values, so any title
can be drawn (even one whose rules are not implemented yet) and the mail reports can
call it without the rules. It returns PNG bytes and does no I/O besides reading the
fonts shipped in ``moderator/reports/fonts``, which makes a picture the same on every machine.

Geometry follows the reference SCHEMA: hex ids in doubled coordinates, edges numbered
0..5 clockwise (pointy: 0 SW .. 5 SE; flat: 0 S .. 5 SE), rotation r turns edge e into
(e + r) % 6. Everything inside a hex is laid out in *unit* coordinates (the hex's
centre at 0,0, its corners at distance 1, y downwards) by ``hex_drawing`` (track,
cities, towns) and ``text_layout`` (names, values, labels); ``MapGeometry`` turns hex
ids and unit points into pixels. Tests use the same functions to know where a city or
a track must appear. Both layouts are cached, so a report drawn again after a few
moves only lays out the hexes that changed.

The modules follow the layers of the picture; each imports only modules listed
before it (``tests/test_map_layers.py`` checks it):

* ``sametitle``: the one Title the caches and plates key on (``same_title``);
* ``style``: colours, the shipped fonts, the colour of a phase's values;
* ``geometry``: hex ids and unit coordinates to pixels, the sizes inside a hex;
* ``board``: the board drawn from (``BoardLike``) and what changed (``changed_hexes``);
* ``painter``: drawing on the supersampled canvas, texts kept for after the reduction;
* ``png``: palette pictures as PNG bytes (``encode_png``, ``palette_png``);
* ``track``, ``stations``: track; cities, towns and tokens: laid out and drawn;
* ``hexes``: what a hex shows apart from its texts (``hex_drawing``), its outline;
* ``labels``: a hex's texts (``text_layout``), the coordinates, the caption;
* ``paint``: the whole map (``render_map``, ``draw_map``, ``render_game_map``);
* ``plate``: a map kept without its caption and drawn again round a change
  (``map_plate``).

Importers take the names below from the package. A cache or limit a test changes
(``style._glyphs``, ``style.GLYPH_CACHE_SIZE``...) is changed in its own module: the
package's name for a constant is a copy.
"""

from __future__ import annotations

from moderator.reports.mapimage.board import (
    EMPTY_BOARD,
    BoardLike,
    BoardView,
    changed_hexes,
)
from moderator.reports.mapimage.geometry import (
    APOTHEM,
    BUBBLE,
    CITY_OFFSET,
    CROWDED_SLOT_RADIUS,
    DEFAULT_RADIUS,
    LABEL_SIZE,
    LANE_GAP,
    NAME_SIZE,
    NAME_WIDTH,
    SLOT_RADIUS,
    SQRT3,
    SUPERSAMPLE,
    TOWN_DOT,
    TRACK_WIDTH,
    MapGeometry,
    Point,
    edge_angle,
    edge_point,
    grid_position,
    hex_corners,
    map_geometry,
)
from moderator.reports.mapimage.hexes import (
    HexDrawing,
    city_centre,
    content_of,
    hex_drawing,
    slot_centre,
    token_radius,
)
from moderator.reports.mapimage.labels import (
    NameLayout,
    TextLayout,
    text_layout,
)
from moderator.reports.mapimage.paint import (
    draw_map,
    render_game_map,
    render_map,
)
from moderator.reports.mapimage.painter import (
    fit_lines,
    fit_text,
)
from moderator.reports.mapimage.plate import (
    PALETTE_TOLERANCE,
    REACH,
    REPAINT_SHARE,
    Box,
    MapPlate,
    hex_box,
    map_plate,
)
from moderator.reports.mapimage.png import (
    ADLER_MODULUS,
    PNG_COMPRESS_LEVEL,
    PNG_SIGNATURE,
    SEGMENT_ROWS,
    ZLIB_HEADER,
    encode_png,
    palette_png,
)
from moderator.reports.mapimage.sametitle import (
    TITLES_PER_NAME,
    TITLES_SEEN,
    same_title,
    title_keyed,
)
from moderator.reports.mapimage.stations import (
    MARKER_RADIUS,
    CityMark,
    TownMark,
    marker_places,
    slot_offsets,
)
from moderator.reports.mapimage.style import (
    BACKGROUND,
    BORDER,
    COMPANY_COLOURS,
    COORDINATE_INK,
    FONT_FILES,
    GLYPH_CACHE_SIZE,
    HEX_FILL,
    HIGHLIGHT,
    INK,
    MOUNTAIN,
    OUTLINE,
    PHASE_COLOUR,
    RGB,
    TRACK,
    WATER,
    company_colour,
    current_phase_key,
    font,
    ink_on,
    rgb,
    text_units,
)
from moderator.reports.mapimage.track import (
    Track,
    edge_to_edge,
)

__all__ = [
    "ADLER_MODULUS",
    "APOTHEM",
    "BACKGROUND",
    "BORDER",
    "BUBBLE",
    "CITY_OFFSET",
    "COMPANY_COLOURS",
    "COORDINATE_INK",
    "CROWDED_SLOT_RADIUS",
    "DEFAULT_RADIUS",
    "EMPTY_BOARD",
    "FONT_FILES",
    "GLYPH_CACHE_SIZE",
    "HEX_FILL",
    "HIGHLIGHT",
    "INK",
    "LABEL_SIZE",
    "LANE_GAP",
    "MARKER_RADIUS",
    "MOUNTAIN",
    "NAME_SIZE",
    "NAME_WIDTH",
    "OUTLINE",
    "PALETTE_TOLERANCE",
    "PHASE_COLOUR",
    "PNG_COMPRESS_LEVEL",
    "PNG_SIGNATURE",
    "REACH",
    "REPAINT_SHARE",
    "RGB",
    "SEGMENT_ROWS",
    "SLOT_RADIUS",
    "SQRT3",
    "SUPERSAMPLE",
    "TITLES_PER_NAME",
    "TITLES_SEEN",
    "TOWN_DOT",
    "TRACK",
    "TRACK_WIDTH",
    "WATER",
    "ZLIB_HEADER",
    "BoardLike",
    "BoardView",
    "Box",
    "CityMark",
    "HexDrawing",
    "MapGeometry",
    "MapPlate",
    "NameLayout",
    "Point",
    "TextLayout",
    "TownMark",
    "Track",
    "changed_hexes",
    "city_centre",
    "company_colour",
    "content_of",
    "current_phase_key",
    "draw_map",
    "edge_angle",
    "edge_point",
    "edge_to_edge",
    "encode_png",
    "fit_lines",
    "fit_text",
    "font",
    "grid_position",
    "hex_box",
    "hex_corners",
    "hex_drawing",
    "ink_on",
    "map_geometry",
    "map_plate",
    "marker_places",
    "palette_png",
    "render_game_map",
    "render_map",
    "rgb",
    "same_title",
    "slot_centre",
    "slot_offsets",
    "text_layout",
    "text_units",
    "title_keyed",
    "token_radius",
]
