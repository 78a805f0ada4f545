"""The stock market as printed: its spaces (`MarketCell`), the grid or row
(`MarketSpec`), and the compact words a title's data writes a space in
(`parse_market_cell`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.title.frozen import Shared


@dataclass(frozen=True, slots=True)
class MarketCell(Shared):
    """One space of the stock market.

    row, col: position (row 0 at the top; a 1d market has one row).
    zone: the space's colour zone ("yellow", "green", "brown", "black", "closed",
        "end", ...) or None for a plain space; its meaning is in ``MarketSpec.notes``.
    can_par: a company may start here; par_for: the company kinds that may
        (empty = any kind).
    arrow: "up"/"down": a right/left move turns up/down here instead.
    ledges: "floor" (sales stop here), "soft_below", "soft_right" (1850's Soft Ledge).
    area: "upper"/"lower" side of 1850's Soft Ledge.
    convert, minor_ceiling: 1861's conversion column and minor price ceiling.
    endgame: reaching this space ends the game.
    """

    row: int
    col: int
    price: int
    zone: str | None = None
    can_par: bool = False
    par_for: tuple[str, ...] = ()
    arrow: str | None = None
    ledges: tuple[str, ...] = ()
    area: str | None = None
    convert: bool = False
    minor_ceiling: bool = False
    endgame: bool = False


@dataclass(frozen=True, slots=True)
class MarketSpec(Shared):
    """The stock market: "2d" grid or "1d" single row; ``None`` marks no space."""

    kind: str
    rows: tuple[tuple[MarketCell | None, ...], ...]
    notes: str | None = None

    def cell(self, row: int, col: int) -> MarketCell | None:
        """The space at (row, col), or None if there is none there."""
        if 0 <= row < len(self.rows) and 0 <= col < len(self.rows[row]):
            return self.rows[row][col]
        return None

    def cells(self) -> Iterator[MarketCell]:
        for r in self.rows:
            yield from (c for c in r if c is not None)

    def par_cells(self, kind: str | None = None) -> tuple[MarketCell, ...]:
        """Spaces a company (of ``kind``, if given) may start on, top row first."""
        return tuple(
            c
            for c in self.cells()
            if c.can_par and (kind is None or not c.par_for or kind in c.par_for)
        )


_MARKET_FLAGS = {"can_par", "convert", "minor_ceiling", "endgame"}
_MARKET_WORDS: dict[str, tuple[str, str]] = {
    "par": ("flag", "can_par"),
    "convert": ("flag", "convert"),
    "ceiling": ("flag", "minor_ceiling"),
    "endgame": ("flag", "endgame"),
    "up": ("arrow", "up"),
    "down": ("arrow", "down"),
    "floor": ("ledge", "floor"),
    "soft_below": ("ledge", "soft_below"),
    "soft_right": ("ledge", "soft_right"),
    "upper": ("area", "upper"),
    "lower": ("area", "lower"),
}
MARKET_ZONES = frozenset(
    {"white", "yellow", "green", "brown", "black", "red", "purple", "closed", "end", "none"}
)


def parse_market_cell(text: str, row: int, col: int, default_zone: str | None) -> MarketCell:
    """Read a compact market cell: the price, then words.

    Words: a zone colour ("yellow", ...; "none" for no zone), "par" or
    "par:minor+major", "up"/"down" (arrows), "floor"/"soft_below"/"soft_right"
    (ledges), "upper"/"lower" (area), "convert", "ceiling", "endgame".
    """
    words = text.split()
    if not words or not words[0].isdigit():
        raise ValueError(f"market cell ({row},{col}) {text!r}: must start with the price")
    zone = default_zone
    flags: dict[str, bool] = dict.fromkeys(_MARKET_FLAGS, False)
    arrow: str | None = None
    area: str | None = None
    ledges: list[str] = []
    par_for: tuple[str, ...] = ()
    for w in words[1:]:
        if w in MARKET_ZONES:
            zone = None if w == "none" else w
        elif w.startswith("par:"):
            flags["can_par"] = True
            par_for = tuple(w[4:].split("+"))
        elif w in _MARKET_WORDS:
            kind, value = _MARKET_WORDS[w]
            if kind == "flag":
                flags[value] = True
            elif kind == "arrow":
                arrow = value
            elif kind == "ledge":
                ledges.append(value)
            else:
                area = value
        else:
            raise ValueError(f"market cell ({row},{col}) {text!r}: unknown word {w!r}")
    return MarketCell(
        row=row,
        col=col,
        price=int(words[0]),
        zone=zone,
        can_par=flags["can_par"],
        par_for=par_for,
        arrow=arrow,
        ledges=tuple(ledges),
        area=area,
        convert=flags["convert"],
        minor_ceiling=flags["minor_ceiling"],
        endgame=flags["endgame"],
    )


def read_market(raw: Mapping[str, Any]) -> MarketSpec:
    default_zone = raw.get("default_zone")
    rows = tuple(
        tuple(
            None if cell is None else parse_market_cell(cell, r, c, default_zone)
            for c, cell in enumerate(row)
        )
        for r, row in enumerate(raw["rows"])
    )
    kind = raw["kind"]
    if kind not in ("1d", "2d") or (kind == "1d" and len(rows) != 1):
        raise ValueError(f"bad market kind {kind!r} for {len(rows)} rows")
    return MarketSpec(kind=kind, rows=rows, notes=raw.get("notes"))
