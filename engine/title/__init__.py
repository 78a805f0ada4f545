"""Title data: the published facts of one 18xx title, loaded from ``engine.data``.

Each supported title has one JSON file (``data/<title>.json``) plus the shared tile
catalogue (``data/tiles.json``). ``load_title`` reads them into frozen dataclasses,
checking the cross-references as it goes, so the rest of the engine works with typed,
immutable facts and never with raw JSON. Importers take the names below from
``engine.title``; the package's modules import each other directly, bottom first:
``frozen``, ``map_specs``, ``rolling_stock``, ``market_specs``, ``companies``, ``spec``
(``Title``) and ``loading`` (the JSON read and checked).
"""

from engine.title.companies import CorporationSpec, EdgeToken, PrivateSpec
from engine.title.frozen import FrozenDict, Shared, freeze, per_title
from engine.title.loading import (
    available_titles,
    build_title,
    load_tile_catalogue,
    load_title,
    read_title_json,
)
from engine.title.map_specs import (
    COLOR_ORDER,
    ENDPOINT_RE,
    HEX_COLORS,
    CitySpec,
    HexSpec,
    LaneSpec,
    OffboardSpec,
    PathSpec,
    Reservation,
    Revenue,
    TileSpec,
    TownSpec,
    endpoint_index,
    endpoint_kind,
)
from engine.title.market_specs import MARKET_ZONES, MarketCell, MarketSpec, parse_market_cell
from engine.title.rolling_stock import Distance, PhaseSpec, TrainLimit, TrainSpec
from engine.title.spec import Title

__all__ = [
    "COLOR_ORDER",
    "ENDPOINT_RE",
    "HEX_COLORS",
    "MARKET_ZONES",
    "CitySpec",
    "CorporationSpec",
    "Distance",
    "EdgeToken",
    "FrozenDict",
    "HexSpec",
    "LaneSpec",
    "MarketCell",
    "MarketSpec",
    "OffboardSpec",
    "PathSpec",
    "PhaseSpec",
    "PrivateSpec",
    "Reservation",
    "Revenue",
    "Shared",
    "TileSpec",
    "Title",
    "TownSpec",
    "TrainLimit",
    "TrainSpec",
    "available_titles",
    "build_title",
    "endpoint_index",
    "endpoint_kind",
    "freeze",
    "load_tile_catalogue",
    "load_title",
    "parse_market_cell",
    "per_title",
    "read_title_json",
]
