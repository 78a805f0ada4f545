"""The routes kept per train type (engine.optimizer): listed best first, with the bit sets
the combination search takes them by."""

from __future__ import annotations

import dataclasses
import itertools
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import repeat
from operator import and_

from engine.optimizer.clock import Clock, OutOfTime
from engine.optimizer.growing import Chain, best_values, grow_routes
from engine.optimizer.network import Network

UNBOUNDED = 1 << 40  # more than any revenue: the bound of a hook that declares none


# --- one list of routes per train type --------------------------------------------------


@dataclass(frozen=True, slots=True)
class RouteTable:
    """The routes of one train type, best first, as the combination search uses them.

    `free[s]`: the bit set of routes that do not use segment s (-1: all of them);
    `key[i]`: the segment of route i that the most routes use. `floor`: every route
    not listed earns at most this (-1: none is missing); `complete`: False when time
    ran out while listing, so nothing is known of the routes not listed.
    """

    revenue: tuple[int, ...]
    descending: tuple[int, ...]  # -revenue, ascending: for bisect
    chains: tuple[Chain, ...]
    segments: tuple[tuple[int, ...], ...]
    key: tuple[int, ...]
    free: tuple[int, ...]
    every: int
    floor: int
    complete: bool

    def bound(self, pool: int, trains: int) -> int:
        """What `trains` trains of this type can earn together from the routes `pool`
        at most (see the module docstring, 4.)."""
        if not self.complete:
            return UNBOUNDED
        total = 0
        free, key, revenue = self.free, self.key, self.revenue
        while trains and pool:
            i = (pool & -pool).bit_length() - 1
            total += revenue[i]
            trains -= 1
            if trains:
                pool &= free[key[i]]
        if trains and self.floor >= 0:
            total += trains * self.floor
        return total

    def without(self, pool: int, segments: Sequence[int]) -> int:
        """`pool` less every route sharing one of `segments`."""
        if not pool:  # (also a listing the clock cut short, which has no `free`)
            return 0
        return reduce(and_, map(self.free.__getitem__, segments), pool)

    def above(self, pool: int, revenue: int) -> int:
        """`pool` less the routes earning `revenue` or less."""
        cut = bisect_left(self.descending, -revenue)
        return pool & ((1 << cut) - 1) if pool.bit_length() > cut else pool


def route_table(net: Network, entries: list[tuple[int, int, Chain]], floor: int,
           segment_count: int, clock: Clock) -> RouteTable:
    """The table of the routes `entries` (revenue, mask, chain), all listed."""
    entries.sort(key=lambda e: -e[0])
    n = len(entries)
    links = net.links
    segments = []
    users: list[list[int]] = [[] for _ in range(segment_count)]
    for i, entry in enumerate(entries):
        clock.tick()
        chain = entry[2]
        segs = tuple(itertools.chain.from_iterable(links[lid].segments
                                                   for lid in (*chain.top, *chain.bottom)))
        segments.append(segs)
        for seg in segs:
            users[seg].append(n - 1 - i)  # the digit of route i in a binary numeral
    free = []
    for digits in users:
        clock.tick()
        if not digits:
            free.append(-1)
            continue
        # A numeral of n binary digits, "0" where a route uses the segment: the loop
        # that writes them runs in C.
        numeral = bytearray(b"1" * n)
        deque(map(numeral.__setitem__, digits, repeat(ord("0"), len(digits))), maxlen=0)
        free.append(int(numeral, 2))
    popular = [len(digits) for digits in users]
    key = tuple(max(segs, key=popular.__getitem__) for segs in segments)
    revenue = tuple(e[0] for e in entries)
    return RouteTable(revenue, tuple(-r for r in revenue), tuple(e[2] for e in entries),
                  tuple(segments), key, tuple(free), (1 << n) - 1, floor, True)


def unknown() -> RouteTable:
    """The table of a listing cut short by the clock: nothing is known."""
    return RouteTable((), (), (), (), (), (), 0, -1, False)


class Kind:
    """How routes of one train type are found and valued."""

    def __init__(self, net: Network, segment_count: int, stops: int,
                 exact: Callable[[Chain, int], int] | None,
                 route_bound: Callable[[int], int] | None, clock: Clock,
                 free_towns: bool = False) -> None:
        self.free = free_towns
        # A train that counts no town (`TrainSpec.free_towns`): its towns weigh nothing,
        # and any of them may still add its value to a route (the bound says so).
        self.towns_bonus = 0
        if free_towns:
            net = dataclasses.replace(net, weights=tuple(
                0 if n.kind == "t" else 1 for n in net.stops))
            self.towns_bonus = sum(max(v, 0) for n, v in zip(net.stops, net.values,
                                                            strict=True) if n.kind == "t")
        self.net = net
        self.segment_count = segment_count
        self.stops = stops
        self.exact = exact  # the route's revenue; None: the sum of its stops' values
        self.route_bound = route_bound  # its bound from a values bound; None: the same
        self.clock = clock
        self.room_bound = best_values(net)
        # Towns that count nothing against the distance (1861 10.6: skipped when the
        # train is full) still fill its count of stops: a route earns at most its
        # cities and the best of its towns and further stops that fit the count.
        self.skipped = () if free_towns else tuple(sorted(
            ((v, net.values[v]) for v, w in enumerate(net.weights)
             if w == 0 and net.stops[v].kind == "t"), key=lambda e: -e[1]))
        # best(0), once found: asked for the first run and again for the type alone.
        self.alone: tuple[int, int, Chain] | None = None
        self.alone_known = False

    def cannot_beat(self, floor: int, value: int, count: int, visited: int, ends: int
                    ) -> bool:
        """Whether no extension of a partial route earns more than `floor`."""
        room = self.stops - count
        if self.skipped:
            towns = [t for v, t in self.skipped if (visited >> v) & 1]
            if towns:
                most = value - sum(towns) + self.room_bound(room, ends, visited, towns)
            else:
                most = value + self.room_bound(room, ends, visited)
        else:
            most = value + self.room_bound(room, ends, visited) + self.towns_bonus
        if self.route_bound is not None:
            most = self.route_bound(most)
        return most <= floor

    def revenue(self, chain: Chain, value: int) -> int:
        return value if self.exact is None else self.exact(chain, value)

    def best(self, taken: int) -> tuple[int, int, Chain] | None:
        """The best route on the segments not `taken`: (revenue, mask, chain); when
        time runs out, the best found so far (and the clock says so)."""
        if not taken and self.alone_known:
            return self.alone
        best: tuple[int, int, Chain] | None = None

        def hopeless(value: int, count: int, visited: int, ends: int) -> bool:
            return best is not None and self.cannot_beat(best[0], value, count, visited, ends)

        def found(chain: Chain, value: int, mask: int) -> None:
            nonlocal best
            revenue = self.revenue(chain, value)
            if best is None or revenue > best[0]:
                best = (revenue, mask, chain)

        try:
            grow_routes(self.net, self.stops, taken, found, hopeless, self.clock, self.free)
        except OutOfTime:
            self.clock.expired = True
            return best
        if not taken:
            self.alone, self.alone_known = best, True
        return best

    def table(self, floor: int, limit: int) -> RouteTable:
        """Every route earning more than `floor`, valued (see `RouteTable`). Once more than
        `limit` are held the poorest are dropped and the floor rises."""
        entries: list[tuple[int, int, Chain]] = []

        def hopeless(value: int, count: int, visited: int, ends: int) -> bool:
            return floor >= 0 and self.cannot_beat(floor, value, count, visited, ends)

        def found(chain: Chain, value: int, mask: int) -> None:
            nonlocal floor, entries
            revenue = self.revenue(chain, value)
            if revenue <= floor:
                return
            entries.append((revenue, mask, chain))
            if len(entries) > 2 * limit:
                entries.sort(key=lambda e: -e[0])
                cut = limit
                floor = max(floor, entries[cut][0])
                while cut > 0 and entries[cut - 1][0] <= floor:
                    cut -= 1
                entries = entries[:cut]

        try:
            grow_routes(self.net, self.stops, 0, found, hopeless, self.clock, self.free)
            return route_table(self.net, entries, floor, self.segment_count, self.clock)
        except OutOfTime:
            return unknown()
