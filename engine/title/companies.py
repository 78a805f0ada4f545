"""The companies as printed: privates (`PrivateSpec`), corporations
(`CorporationSpec`) and their edge tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.title.frozen import Shared


@dataclass(frozen=True, slots=True)
class PrivateSpec(Shared):
    """A private company.

    value: face value (price); revenue: income paid each operating round.
    ability: the special ability in the rulebook's words.
    hexes: hexes the ability (or the private's blocking) refers to on the map;
    rules_hexes: the hex the rulebook names where it differs (see decisions).
    tiles: tiles the ability may lay. region: a named area of ``title_specific``.
    number: the number or code printed on the certificate; min_bid: auction minimum.
    """

    sym: str
    name: str
    value: int
    revenue: int
    ability: str
    hexes: tuple[str, ...] = ()
    number: str | None = None
    tiles: tuple[str, ...] = ()
    rules_hexes: tuple[str, ...] = ()
    region: str | None = None
    min_bid: int | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class EdgeToken(Shared):
    """1850's extra station for a red area at the map edge: where, and its price."""

    hex: str
    cost: int


@dataclass(frozen=True, slots=True)
class CorporationSpec(Shared):
    """A company that issues shares or operates (major, minor, national).

    kind: "major" (public), "minor" or "national" (1861's RSR).
    home, home_city: home hex and the index of its city; None when it has no fixed
        home (1861's publics).
    token_costs: one entry per station marker: what placing it costs (1861: the
        multiplier per hex of distance).
    shares: certificate sizes in percent, president's first (empty for the RSR).
    float_percent: percentage sold for the company to float; None if it never floats.
    rules_sym / site_sym: the rulebook's / 18xx.games' abbreviation where they
        differ from ``sym``; lookups accept all three.
    par: fixed starting price (1825's face value).
    available_from_phase: first phase in which it may be started (1861's minors).
    home_choice: its director chooses which city of its home hex takes its home
        station, when it first operates (1825 R1's Taff Vale in V8); `home_city` is
        the default.
    """

    sym: str
    name: str | None
    kind: str
    home: str | None
    home_city: int | None
    token_costs: tuple[int, ...]
    shares: tuple[int, ...]
    float_percent: int | None
    rules_sym: str | None = None
    site_sym: str | None = None
    par: int | None = None
    edge_token: EdgeToken | None = None
    available_from_phase: str | None = None
    home_choice: bool = False
    note: str | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(s for s in (self.sym, self.rules_sym, self.site_sym) if s)
