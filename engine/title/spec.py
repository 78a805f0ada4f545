"""`Title`: everything printed for one title, as the rules engine needs it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.geometry import Grid, Layout, parse_hex_id
from engine.title.companies import CorporationSpec, PrivateSpec
from engine.title.frozen import FrozenDict, Shared, per_title
from engine.title.map_specs import HexSpec, Revenue, TileSpec
from engine.title.market_specs import MarketSpec
from engine.title.rolling_stock import PhaseSpec, TrainSpec


@dataclass(frozen=True, slots=True, eq=False)
class Title(Shared):
    """Everything printed for one title, as the rules engine needs it.

    starting_cash, cert_limit: keyed by number of players.
    tile_manifest: tile name -> copies in the box; None = unlimited.
    tiles: every tile this title uses (catalogue tiles in its manifest, overridden
        by its own definitions).
    decisions: where the sources disagree, which way this data goes and why, as
        "id: ..." lines.
    title_specific: facts only one title's module reads (1861's loans, 1850's
        regions, ...), as frozen JSON.
    """

    name: str
    full_title: str
    layout: Layout
    grid: Grid
    currency: str
    bank: int
    players_min: int
    players_max: int
    starting_cash: FrozenDict[int, int]
    cert_limit: FrozenDict[int, int]
    market: MarketSpec
    par_values: tuple[int, ...]
    trains: tuple[TrainSpec, ...]
    phases: tuple[PhaseSpec, ...]
    privates: tuple[PrivateSpec, ...]
    corporations: tuple[CorporationSpec, ...]
    hexes: FrozenDict[str, HexSpec]
    tile_manifest: FrozenDict[str, int | None]
    tiles: FrozenDict[str, TileSpec]
    decisions: tuple[str, ...]
    title_specific: FrozenDict[str, object]
    source: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def corporation(self, sym: str) -> CorporationSpec:
        """The company called ``sym`` (its sym, rulebook or 18xx.games abbreviation,
        any case)."""
        found = _aliases(self).get(sym.strip().upper())
        if found is not None:
            return found
        known = ", ".join(c.sym for c in self.corporations)
        raise KeyError(f"{self.name} has no company {sym!r} (known: {known})")

    def private(self, sym: str) -> PrivateSpec:
        """The private company ``sym`` (case-insensitive)."""
        wanted = sym.strip().upper()
        for p in self.privates:
            if p.sym.upper() == wanted:
                return p
        known = ", ".join(p.sym for p in self.privates)
        raise KeyError(f"{self.name} has no private {sym!r} (known: {known})")

    def train(self, name: str) -> TrainSpec:
        for t in self.trains:
            if t.name == name.strip():
                return t
        raise KeyError(f"{self.name} has no train {name!r}")

    def phase(self, name: str) -> PhaseSpec:
        for p in self.phases:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no phase {name!r}")

    def phase_index(self, name: str) -> int:
        """Position of phase ``name`` in the game's order (0 = starting phase)."""
        return self.phases.index(self.phase(name))

    def hex(self, hex_id: str) -> HexSpec:
        """The map hex ``hex_id`` in any spelling ("H5", "H-5", "h5")."""
        canonical = parse_hex_id(hex_id)
        try:
            return self.hexes[canonical]
        except KeyError:
            raise KeyError(f"{canonical} is not on the {self.name} map") from None

    def tile(self, name: str) -> TileSpec:
        try:
            return self.tiles[name]
        except KeyError:
            raise KeyError(f"{self.name} has no tile {name!r}") from None

    def decision(self, decision_id: str) -> str:
        """The recorded decision ``decision_id`` ("id: ..." line)."""
        for d in self.decisions:
            if d.split(":", 1)[0] == decision_id:
                return d
        raise KeyError(f"{self.name} records no decision {decision_id!r}")

    @property
    def phase_keys(self) -> tuple[str, ...]:
        """Distinct phase keys in game order (what phase-valued revenues are keyed by)."""
        keys: list[str] = []
        for p in self.phases:
            if p.offboard_key is not None and p.offboard_key not in keys:
                keys.append(p.offboard_key)
        return tuple(keys)

    def revenue_in_phase(self, revenue: Revenue, phase: str) -> int:
        """The value of ``revenue`` while phase ``phase`` is current.

        A mapping without an entry for the phase's key pays its latest earlier value
        (1850's two-value off-boards keep their last value in the gray phases).
        """
        if isinstance(revenue, int):
            return revenue
        key = self.phase(phase).offboard_key
        if key is None:
            raise ValueError(f"{self.name} phase {phase} has no phase key for {revenue!r}")
        order = self.phase_keys
        for k in reversed(order[: order.index(key) + 1]):
            if k in revenue:
                return revenue[k]
        # Before the first printed value: the first one applies.
        return revenue[min(revenue, key=order.index)]


# Every company's names (upper case) -> the first company so called, per title: the
# importer names companies by the site's abbreviations hundreds of times a record.
_ALIASES: dict[int, tuple[object, dict[str, CorporationSpec]]] = {}


def _aliases(title: Title) -> dict[str, CorporationSpec]:
    names = per_title(_ALIASES, title)
    if not names:
        for corp in title.corporations:
            for alias in corp.aliases:
                names.setdefault(alias.upper(), corp)
    return names
