"""Seating the tables of a heat: sizes the titles allow, balanced, players kept apart
from those they met before where possible, the same seating for the same seed.

Pure: no I/O. The desk passes who plays, the titles' player ranges and who met whom.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["SeatingError", "Table", "display_names", "pairs_met", "repeats", "seat_final",
           "seat_heat", "table_sizes"]


class SeatingError(ValueError):
    """No seating can be made (too few players, sizes no title allows)."""


@dataclass(frozen=True, slots=True)
class Table:
    number: int  # from 1
    title: str
    players: tuple[str, ...]


def table_sizes(count: int, allowed: Iterable[int]) -> tuple[int, ...]:
    """COUNT players at tables of ALLOWED sizes: tables all of one size whenever the
    count allows (the fewest such tables), else the fewest tables whose sizes differ by
    at most one (balanced), largest tables first. Equal tables first because no scoring
    rule makes a table of three and one of four exactly alike (docs/orders.md,
    "standings / scoring"). SeatingError when none fits."""
    sizes = sorted(set(allowed))
    if not sizes or count < sizes[0]:
        raise SeatingError(f"{count} players cannot fill a table (sizes {sizes})")
    for size in reversed(sizes):
        if count % size == 0:
            return (size,) * (count // size)
    for tables in range(-(-count // sizes[-1]), count // sizes[0] + 1):
        small, extra = divmod(count, tables)
        split = (small + 1,) * extra + (small,) * (tables - extra)
        if all(size in sizes for size in split):
            return split
    raise SeatingError(f"{count} players cannot be seated at tables of {sizes} "
                       "with sizes differing by at most one")


def pairs_met(tables: Iterable[Sequence[str]]) -> set[frozenset[str]]:
    """Every pair of players who sat at one of TABLES."""
    return {frozenset(pair) for table in tables for pair in itertools.combinations(table, 2)}


def repeats(tables: Iterable[Sequence[str]], met: set[frozenset[str]]) -> int:
    """How many pairs at TABLES met before (in MET)."""
    return sum(1 for table in tables for pair in itertools.combinations(table, 2)
               if frozenset(pair) in met)


def _titles_for(sizes: Sequence[int], titles: Sequence[str],
                ranges: Mapping[str, tuple[int, int]], heat: int) -> list[str]:
    """Each table's title: the titles in turn (shifted by heat, so that a player's
    tables change title), skipping a title that does not take the table's size."""
    chosen: list[str] = []
    for index, size in enumerate(sizes):
        for shift in range(len(titles)):
            title = titles[(index + heat - 1 + shift) % len(titles)]
            low, high = ranges[title]
            if low <= size <= high:
                chosen.append(title)
                break
        else:
            raise SeatingError(f"no title of {', '.join(titles)} takes {size} players")
    return chosen


def seat_heat(players: Sequence[str], titles: Sequence[str],
              ranges: Mapping[str, tuple[int, int]], sizes: Iterable[int], heat: int,
              seed: int, met: set[frozenset[str]] | None = None) -> tuple[Table, ...]:
    """The tables of heat HEAT: PLAYERS drawn with the tournament's SEED (and the heat),
    at balanced tables of SIZES the TITLES (RANGES: min and max players of each) take;
    then players swapped between tables while that lowers the pairs who met before
    (MET). Deterministic: the same arguments give the same tables."""
    allowed = [s for s in sizes if any(ranges[t][0] <= s <= ranges[t][1] for t in titles)]
    split = table_sizes(len(players), allowed)
    order = list(players)
    random.Random(f"{seed}:heat:{heat}").shuffle(order)
    tables: list[list[str]] = []
    start = 0
    for size in split:
        tables.append(order[start:start + size])
        start += size
    if met:
        _keep_apart(tables, met)
    return tuple(Table(n, title, tuple(table)) for n, (title, table) in enumerate(
        zip(_titles_for(split, titles, ranges, heat), tables, strict=True), 1))


def _keep_apart(tables: list[list[str]], met: set[frozenset[str]]) -> None:
    """Swap two players of different tables whenever that lowers the repeats, the
    first such swap in a fixed order, until none does (a local optimum: each swap
    lowers a count that cannot go below 0, so this ends)."""
    def cost(table: Sequence[str]) -> int:
        return repeats([table], met)

    improved = True
    while improved:
        improved = False
        for a, b in itertools.combinations(range(len(tables)), 2):
            for i, j in itertools.product(range(len(tables[a])), range(len(tables[b]))):
                before = cost(tables[a]) + cost(tables[b])
                tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                if cost(tables[a]) + cost(tables[b]) < before:
                    improved = True
                else:
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]


def seat_final(seeding: Sequence[str], titles: Sequence[str],
               ranges: Mapping[str, tuple[int, int]], sizes: Iterable[int],
               heat: int) -> tuple[Table, ...]:
    """The final's tables from SEEDING (best first): one table when all fit, else the
    seeds dealt out in a snake (1 2 3 3 2 1 ...) so the tables are of even strength."""
    allowed = [s for s in sizes if any(ranges[t][0] <= s <= ranges[t][1] for t in titles)]
    split = table_sizes(len(seeding), allowed)
    tables: list[list[str]] = [[] for _ in split]
    order = [*range(len(split)), *reversed(range(len(split)))]
    turn = 0
    for player in seeding:
        while len(tables[order[turn % len(order)]]) >= split[order[turn % len(order)]]:
            turn += 1
        tables[order[turn % len(order)]].append(player)
        turn += 1
    return tuple(Table(n, title, tuple(table)) for n, (title, table) in enumerate(
        zip(_titles_for(split, titles, ranges, heat), tables, strict=True), 1))


def display_names(addresses: Sequence[str]) -> dict[str, str]:
    """A name for each address (in entry order), shown at the tables and in the
    standings instead of the address: the mailbox's name, letters, digits, `-` and `_`
    only, starting with a letter, unique (a number added to a later one)."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for address in addresses:
        base = re.sub(r"[^A-Za-z0-9_-]", "", address.partition("@")[0])[:20]
        base = (base if base[:1].isalpha() else f"P{base}")[:20].capitalize()
        if base.lower() in ("gm", "director") or re.fullmatch(r"obs\d+", base, re.I):
            base = f"P{base}"
        name, n = base, 2
        while name.lower() in taken:
            name, n = f"{base}{n}", n + 1
        taken.add(name.lower())
        names[address] = name
    return names
