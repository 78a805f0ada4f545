"""What the site's ids name while a game is exported: the record's actions as the site
would have them (`Piece`), and the ledgers that hand out its ids as the site does --
certificates ("TC_1", `ShareLedger`), tile copies ("57-0", `TileCopies`), station slots
(`TokenSlots`) and trains ("3-0", `site_train_ids`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.records.conventions import site_difference
from engine.state import IPO, POOL, TREASURY, GameState, PlacedTile
from engine.title import Title


@dataclass(frozen=True)
class Piece:
    """One action of the record as the site would have it.

    `site`: the site's form (without id), None where the site has none; `move`: the index
    of the move of ours it carries, None for a site pass that stands for nothing of ours
    (a step our engine passes by itself); `unrecorded`: a move the site makes by itself
    without recording it (an idle player's last pass, the end of a finished turn)."""

    site: dict[str, Any] | None
    move: int | None
    unrecorded: bool = False
    # A site action standing for nothing of ours that the importer still reads (the
    # first of several site actions one move of ours is: 1861's `convert`).
    plain: bool = False


@dataclass(frozen=True)
class Holdings:
    """What moves hands in one action: certificates, trains, tiles and tokens."""

    certificates: dict[tuple[str, int], str]
    trains: dict[str, tuple[str, ...]]  # corporation or POOL -> train ids
    tiles: dict[str, PlacedTile]
    tokens: dict[tuple[str, str], int]  # (hex, corporation) -> city

    @staticmethod
    def of(state: GameState) -> Holdings:
        trains = {c.sym: tuple(t.id for t in c.trains) for c in state.corporations.values()}
        trains[POOL] = tuple(t.id for t in state.trains_pool)
        return Holdings(
            {(c.corporation, c.index): c.owner
             for corp in state.corporations.values() for c in corp.certificates},
            trains, dict(state.board.tiles),
            {(hex_id, corp): city for hex_id, cities in state.board.tokens.items()
             for city, corps in cities.items() for corp in corps})


def site_train_ids(title: Title) -> dict[str, str]:
    """Our train ids -> the site's. The site names a type apart where a phase starts with
    a later copy of ours (title_specific.site_differences.train_names): 18TN's 4th and
    5th 3-trains are its "3'-0" and "3'-1", the 2nd 6-train its "6'-0"."""
    renamed: Mapping[str, str] = site_difference(title, "train_names") or {}
    out: dict[str, str] = {}
    for spec in title.trains:
        first_apart, site_name = spec.count or 0, spec.name
        for site, ours in renamed.items():
            starts = [p.starts_on_nth for p in title.phases
                      if p.starts_on == ours == spec.name and p.starts_on_nth > 1]
            if starts:
                first_apart, site_name = starts[0] - 1, site
        for index in range(spec.count or 0):
            apart = index >= first_apart
            out[f"{spec.name}-{index}"] = (f"{site_name}-{index - first_apart}" if apart
                                           else f"{spec.name}-{index}")
    return out


class TileCopies:
    """Which copy of a tile the site hands out: the lowest-numbered copy never laid, then
    the copies an upgrade gave back, in the order they came back."""

    def __init__(self, title: Title) -> None:
        self.free = {name: list(range(count or 0)) for name, count in
                     title.tile_manifest.items()}
        self.made = {name: count or 0 for name, count in title.tile_manifest.items()}
        self.on_hex: dict[str, str] = {}  # hex -> the site id of the tile laid there
        # The site numbers a printed hex's content among the hexes printed alike (1861's
        # L12 is "L12-5"; title_specific.site_differences.preprinted_tile_index).
        self.printed: Mapping[str, int] = site_difference(title, "preprinted_tile_index") or {}

    def lay(self, hex_id: str, name: str) -> str:
        copies = self.free.setdefault(name, [])
        if copies:
            index = copies.pop(0)
        else:  # an unlimited tile: a new copy
            index = self.made.get(name, 0)
            self.made[name] = index + 1
        old = self.on_hex.get(hex_id)
        if old is not None:
            old_name, old_index = old.rsplit("-", 1)
            self.free.setdefault(old_name, []).append(int(old_index))
        self.on_hex[hex_id] = f"{name}-{index}"
        return self.on_hex[hex_id]

    def city_id(self, hex_id: str, city: int) -> str:
        # Printed content is the site's tile "<hex>-0".
        printed = f"{hex_id}-{self.printed.get(hex_id, 0)}"
        return f"{self.on_hex.get(hex_id, printed)}-{city}"


class TokenSlots:
    """The slot each station token takes on the site: a home station its reserved slot,
    any other the first slot neither taken nor reserved (home reservations take the
    first slots of a city, in the order the title lists them)."""

    def __init__(self, title: Title) -> None:
        self.reserved: dict[tuple[str, int], list[str]] = {}
        for spec in title.hexes.values():
            for reservation in spec.reserved:
                if reservation.kind == "home":
                    key = (spec.id, reservation.city or 0)
                    self.reserved.setdefault(key, []).append(reservation.by)
        self.slots: dict[tuple[str, str], int] = {}  # (hex, corporation) -> slot

    def update(self, tokens: dict[tuple[str, str], int],
               closed: frozenset[str] = frozenset()) -> None:
        for key in [k for k in self.slots if k not in tokens]:
            del self.slots[key]
        for (hex_id, corp), city in tokens.items():
            if (hex_id, corp) not in self.slots:
                self.slots[(hex_id, corp)] = self._slot_for(tokens, hex_id, city, corp,
                                                            closed)

    def _slot_for(self, tokens: dict[tuple[str, str], int], hex_id: str, city: int,
                  corp: str, closed: frozenset[str]) -> int:
        reserved = self.reserved.get((hex_id, city), [])
        if corp in reserved:
            return reserved.index(corp)
        taken = {slot for (h, other), slot in self.slots.items()
                 if h == hex_id and tokens.get((h, other)) == city}
        slot = 0
        # A closed company's home slot is free: the site drops its reservation
        # (CLOSED_CORP_RESERVATIONS_REMOVED; 1825 6.3, a bankrupt company's base).
        while slot in taken or (slot < len(reserved) and reserved[slot] != corp
                                and reserved[slot] not in closed):
            slot += 1
        return slot


class ShareLedger:
    """The site's own certificates: which holder has which, in the order the site keeps
    them, so that a record names the shares the site would move. The site buys the
    lowest-numbered share of the IPO (or treasury), the share longest in the pool, sells
    a holder's shares in the order they came (the president's last), and on a change of
    president swaps the new president's first shares for the president's certificate.
    Our engine's certificates say how much moves between whom; this says which ids."""

    def __init__(self, state: GameState) -> None:
        self.percent: dict[tuple[str, int], int] = {}
        self.held: dict[str, dict[str, list[int]]] = {}  # corp -> holder -> indexes
        for corp in state.corporations.values():
            for cert in corp.certificates:
                self.percent[(corp.sym, cert.index)] = cert.percent
                self.held.setdefault(corp.sym, {}).setdefault(cert.owner, []).append(cert.index)

    def update(self, before: Holdings, after: Holdings,
               first: tuple[str, str, str] | None, newest: bool = False,
               amount: int | None = None) -> list[str]:
        """Follow one move; `first` (corporation, from, to) is the move's own transfer,
        made first (`newest`: of the shares last come to its source, as a protected sale
        is bought back; AMOUNT: its percent, where the move's end hides it, as a sale
        that closed the company); returns the site's ids of the shares it moved."""
        moved: list[str] = []
        if first is not None:
            sym, source, target = first
            was, now = self._ours(sym, before), self._ours(sym, after)
            if amount is None:
                amount = min(was.get(source, 0) - now.get(source, 0),
                             now.get(target, 0) - was.get(target, 0))
            if amount > 0:
                moved = [f"{sym}_{i}"
                         for i in self._move(sym, source, target, amount, newest)]
        for sym in sorted(self.held):
            self._swap_president(sym, after)
            self._settle(sym, after)
        return moved

    def sold(self, transfer: tuple[str, str, str], before: Holdings, after: Holdings
             ) -> int:
        """The percent the seller of `transfer` parted with."""
        sym, source, _ = transfer
        return self._ours(sym, before).get(source, 0) - self._ours(sym, after).get(source, 0)

    def _ours(self, sym: str, holdings: Holdings) -> dict[str, int]:
        """Percent per holder of a corporation in our engine."""
        out: dict[str, int] = {}
        for (corp, index), owner in holdings.certificates.items():
            if corp == sym:
                out[owner] = out.get(owner, 0) + self.percent[(corp, index)]
        return out

    def _settle(self, sym: str, after: Holdings) -> None:
        """Whatever else moved (a company floating, the rest of a president's certificate
        sold in part, a bankrupt's shares) moves here too, as it comes."""
        ours = self._ours(sym, after)
        for _ in range(len(self.percent)):
            theirs = {holder: sum(self.percent[(sym, i)] for i in indexes)
                      for holder, indexes in self.held[sym].items()}
            delta = {h: ours.get(h, 0) - theirs.get(h, 0) for h in {*ours, *theirs}}
            surplus = sorted(h for h, v in delta.items() if v < 0)
            short = sorted(h for h, v in delta.items() if v > 0)
            if not surplus or not short:
                return
            self._move(sym, surplus[0], short[0], min(-delta[surplus[0]], delta[short[0]]))

    def peek(self, sym: str, source: str, target: str, amount: int) -> list[str]:
        """The site's ids of the shares a transfer would move, moving nothing."""
        kept = {holder: list(indexes) for holder, indexes in self.held[sym].items()}
        try:
            return [f"{sym}_{i}" for i in self._move(sym, source, target, amount)]
        finally:
            self.held[sym] = kept

    def _move(self, sym: str, source: str, target: str, amount: int,
              newest: bool = False) -> list[int]:
        held = self.held[sym]
        order = held.get(source, [])
        if newest:
            order = order[::-1]
        if source in (IPO, TREASURY):
            order = sorted(order)
        # The president's certificate last, then the bigger ones (a stable sort keeps
        # the order the shares came in).
        order = sorted(order, key=lambda i: (i == 0, self.percent[(sym, i)]))
        if source == IPO and target not in (POOL, TREASURY) and 0 in order and \
                amount >= self.percent[(sym, 0)]:
            order = [0, *[i for i in order if i != 0]]  # a par: the president's first
        taken: list[int] = []
        total = 0
        for index in order:
            if total >= amount:
                break
            taken.append(index)
            total += self.percent[(sym, index)]
        if newest:  # named in the order they came, as the site lists a sale bought back
            came = held.get(source, [])
            taken.sort(key=came.index)
        for index in taken:
            held[source].remove(index)
            held.setdefault(target, []).append(index)
        return taken

    def _swap_president(self, sym: str, after: Holdings) -> None:
        held = self.held[sym]
        ours = after.certificates[(sym, 0)]
        theirs = next(h for h, indexes in held.items() if 0 in indexes)
        if ours == theirs:
            return
        need = self.percent[(sym, 0)]
        given: list[int] = []
        for index in list(held.get(ours, [])):
            if sum(self.percent[(sym, i)] for i in given) >= need:
                break
            given.append(index)
        for index in given:
            held[ours].remove(index)
            held.setdefault(theirs, []).append(index)
        held[theirs].remove(0)
        held.setdefault(ours, []).append(0)
