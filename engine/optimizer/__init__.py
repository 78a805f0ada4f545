"""The best run: one route per train with the greatest revenue, proven (18TN 4.2.3.1).

`optimize` finds the routes `run auto` must take: the most revenue under every route
rule of 4.2.3 as `engine.routes` reads them (no section of track used twice, no stop
visited twice (nor an off-board area of several hexes, `routes.area_of`), off-boards
and blocked cities only at the ends, at most the train's
number of stops, a station of the company on every route, no track shared between
the company's trains), valued by the title's hooks `Rules.route_revenue` (per route)
and `Rules.run_revenue` (the whole run: 18TN's Civil War takes the poorest train's
income away when every train runs).

The method (that of the best published calculators, e.g. Rails' revenue calculator:
each train alone, then the trains together; the combinations are done on bit sets):

1. Compress. The track becomes a graph of stops joined by *links*: each way from a
   stop to the next one through plain track only (sides and junctions), kept with the
   set of pieces of track it uses: its segments and the hex edges it crosses (one
   crossing per edge, 4.2.3(b), see `Track.crossing`). A route is a chain of links
   with disjoint piece sets; below, "segment" means such a piece.
2. Routes. A train's routes are grown depth-first from a station of the company:
   first one way (the "top"), then from the station the other way (the "bottom"). A
   route grows only from its lowest-ranked station and its bottom starts with a
   higher link than its top, so each route is met once. A partial route is dropped
   when even the best stops it has room for (at most two of them ends such as
   off-boards) cannot lift it above what is needed.
3. A first run and each train alone. Each train in turn takes the best route left
   (a run to beat, `best`), and the best route of each train type on the whole
   network is found (`alone`). A route can then belong to a better run only if it
   earns more than `best` less what all other trains earn alone: only those routes
   of each type are listed, best first, and valued by `route_revenue`. A better run
   to beat comes from letting the first train take each of its best listed routes
   in turn, the others the best left.
4. Branch and bound over the trains, longest first. For train k the search tries the
   listed routes still free of the track of trains 0..k-1, best first, then "train k
   does not run". The free routes of each type are a bit set over its list (bit i:
   route i); taking a route clears, with one AND per segment of it, every route that
   shares a segment, and routes too poor to matter any more are cut off the top
   bits. A branch ends as soon as an upper bound of what it can still earn is no
   better than the best run found. The bound for the trains left is the smaller of
   - the exact best of those trains together, found before, smallest problem first:
     the last train alone, then the last two, ... (the "train combinations");
   - per train type, the best free routes, one per train, where after each pick every
     route through the pick's busiest segment is set aside: routes of one run never
     share a segment, so each set-aside removes at most one route of any better run,
     and the k-th pick is at least the k-th best route of that run.
   Trains of one type are interchangeable: they take routes in list order, and a
   train of a type runs only if the one before it does, so each set of routes is
   tried once. Complete runs are valued by `run_revenue`.

A search that ends before the budget has seen every run that could beat the one it
returns: that run is proven the best.

Exactness with title hooks. Routes and runs are always valued by the hooks
themselves; the bounds must never be lower than what a route or run can earn. For the
default hooks (the sum of the values) that holds by construction, and for a
`run_revenue` that only takes away (18TN's Civil War) when the title's
`Rules.run_revenue_only_falls` says so. A title whose hook adds bonuses or multiplies
also overrides
`route_revenue_bound(state, corp, train, values_bound)` or
`run_revenue_bound(state, corp, routes_bound)` (upper bounds given a bound of the
stop values, resp. of the routes' sum); a hook overridden without its bound is
treated as unbounded: the answer stays exact, the search only slower.

Budget and memory. The search stops when its time budget (CPU time) runs out and returns the
best run found, marked as not proven. Each train type keeps at most `max_routes`
routes (split between the types): when a list would grow longer, its poorest routes
are dropped and the list remembers the best value dropped (`floor`); the bounds count
a dropped route at that value, and a branch that only a dropped route could win
leaves the result unproven. Nothing else grows with the size of the search.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import repeat
from operator import and_
from typing import TYPE_CHECKING

from engine.actions import Route, RunRoutes
from engine.routes import (
    Run,
    TrainRun,
    Walk,
    area_of,
    check_run,
    free_towns,
    stop_value,
    towns_skipped,
    train_distance,
)
from engine.state import Corporation, GameState, Train
from engine.track import Node, Point, Side, Track, blocked_for, next_steps, token_nodes

if TYPE_CHECKING:
    from engine.rules import Rules

DEFAULT_BUDGET = 5.0  # seconds: a player waits for `run auto` while this runs
DEFAULT_MAX_ROUTES = 200_000  # routes kept over all train types (memory, ~100 MB)
UNBOUNDED = 1 << 40  # more than any revenue: the bound of a hook that declares none
_CHECK_EVERY = 1024  # search steps between looks at the clock
# First routes tried for a quick first run to beat (see `_Search.warm_start`): on the
# densest boards tried, 1024 found runs close to the best in a fraction of a second.
WARM_START = 1024


# --- the compressed network -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Link:
    """Plain track from stop `a` to stop `b` (indices into `Network.stops`), through
    sides and junctions only: its pieces of track (segments and edges crossed) in
    order from a to b, and the hexes it passes (a's hex first, b's last, none
    repeated in a row)."""

    a: int
    b: int
    segments: tuple[int, ...]
    mask: int  # the segments as a bit set
    hexes: tuple[str, ...]
    terminal_a: bool  # its segment at a is terminal: a route may only end at a
    terminal_b: bool


@dataclass(frozen=True, slots=True)
class Network:
    """The company's reachable track compressed to stops and links.

    `adjacency[v]` lists, for every link at stop v: (segment mask, other stop, link
    index, terminal at the other stop, terminal at v), best-paying other stop first so
    good routes come early in each list.
    """

    stops: tuple[Node, ...]
    values: tuple[int, ...]
    passable: tuple[bool, ...]  # a route may run through (not off-board, not blocked)
    tokens: tuple[int, ...]  # the company's stations, in the order routes grow from
    links: tuple[Link, ...]
    adjacency: tuple[tuple[tuple[int, int, int, bool, bool], ...], ...]
    # What each stop counts against a train's distance: 1, or 0 for a town where towns
    # may be skipped (1861 10.6; the title values the route, `Rules.route_revenue`).
    weights: tuple[int, ...] = ()
    # The stops a visit to each stop makes visited, as a bit set: itself, and every hex
    # of its red off-board area (1861 10.1: an area of several hexes is reached once).
    areas: tuple[int, ...] = ()


def _mask(segments: Sequence[int]) -> int:
    out = 0
    for seg in segments:
        out |= 1 << seg
    return out


def _bits(mask: int) -> tuple[int, ...]:
    """The positions of the set bits of `mask`, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def _collapse(hexes: Iterator[str]) -> tuple[str, ...]:
    """Hexes in order with repeats in a row dropped, as `routes.walks_from` lists them."""
    out: list[str] = []
    for hex_id in hexes:
        if not out or out[-1] != hex_id:
            out.append(hex_id)
    return tuple(out)


def _trails(track: Track, start: Node) -> Iterator[tuple[Node, list[int]]]:
    """Every way from `start` along plain track to the next stop, as a train would go
    (`track.next_steps`: across at a side, any other track at a junction), with the
    segments used; no segment twice."""

    def extend(point: Point, came_by: int | None, used: list[int]
               ) -> Iterator[tuple[Node, list[int]]]:
        if isinstance(point, Side):
            edge = track.crossing.get(point)  # one crossing per edge (4.2.3(b))
            if edge is None or edge in used:
                return
            used = [*used, edge]
        for seg_id, nxt in next_steps(track, point, came_by):
            if seg_id in used:
                continue
            if isinstance(nxt, Node) and nxt.is_stop:
                yield nxt, [*used, seg_id]
            else:
                yield from extend(nxt, seg_id, [*used, seg_id])

    return extend(start, None, [])


def compress(state: GameState, track: Track, corp: str, value: Callable[[Node], int]
             ) -> Network:
    """The stops a route of `corp` can reach from its stations, and the links between
    them. A stop a route cannot run through (off-board, blocked) is kept as an end but
    not explored beyond; links between the same stops over the same segments (a loop
    run either way round) are one link."""
    tokens = sorted(set(token_nodes(state, corp)), key=lambda n: (n.hex, n.index))
    index: dict[Node, int] = {}
    stops: list[Node] = []
    passable: list[bool] = []

    def vertex(node: Node) -> int:
        if node not in index:
            index[node] = len(stops)
            stops.append(node)
            passable.append(node.kind != "o" and not blocked_for(state, node, corp))
        return index[node]

    for node in tokens:
        vertex(node)
    links: list[Link] = []
    seen: set[tuple[int, int, int]] = set()
    u = 0
    while u < len(stops):
        if passable[u] or stops[u] in tokens:
            for node, segs in _trails(track, stops[u]):
                v = vertex(node)
                if v == u:
                    continue  # back where it started: no route visits a stop twice
                mask = _mask(segs)
                key = (min(u, v), max(u, v), mask)
                if key in seen:
                    continue
                seen.add(key)
                segments = [track.segments[s] for s in segs if s < len(track.segments)]
                hexes = _collapse(iter([stops[u].hex, *(s.hex for s in segments)]))
                links.append(Link(u, v, tuple(segs), mask, hexes,
                                  segments[0].terminal, segments[-1].terminal))
        u += 1
    values = tuple(value(n) for n in stops)
    adjacency: list[list[tuple[int, int, int, bool, bool]]] = [[] for _ in stops]
    for i, link in enumerate(links):
        adjacency[link.a].append((link.mask, link.b, i, link.terminal_b, link.terminal_a))
        adjacency[link.b].append((link.mask, link.a, i, link.terminal_a, link.terminal_b))
    for entries in adjacency:
        entries.sort(key=lambda e: (-values[e[1]], e[2]))
    token_ids = sorted((index[n] for n in tokens), key=lambda v: (-values[v], v))
    free_towns = towns_skipped(state)
    weights = tuple(0 if free_towns and n.kind == "t" else 1 for n in stops)
    in_area: dict[str, int] = {}
    for v, node in enumerate(stops):
        area = area_of(state, node)
        if area is not None:
            in_area[area] = in_area.get(area, 0) | (1 << v)
    areas = tuple(in_area[a] if (a := area_of(state, n)) is not None else 1 << v
                  for v, n in enumerate(stops))
    return Network(tuple(stops), values, tuple(passable), tuple(token_ids), tuple(links),
                   tuple(tuple(a) for a in adjacency), weights, areas)


# --- routes as chains of links ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chain:
    """A route as the search holds it: the station it grew from and the links of its
    two halves, each half listed from the station outwards."""

    start: int
    top: tuple[int, ...]
    bottom: tuple[int, ...]

    def legs(self, net: Network) -> list[tuple[Link, bool]]:
        """The links from one end of the route to the other, each with whether it is
        run from its b to its a."""
        outward: list[list[tuple[Link, bool]]] = []
        for half in (self.bottom, self.top):
            at = self.start
            legs: list[tuple[Link, bool]] = []
            for lid in half:
                link = net.links[lid]
                legs.append((link, link.a != at))
                at = link.b if link.a == at else link.a
            outward.append(legs)
        bottom, top = outward
        return [(link, not backwards) for link, backwards in reversed(bottom)] + top

    def walk(self, net: Network) -> Walk:
        """The route as `engine.routes` holds it: every stop and hex in order."""
        legs = self.legs(net)
        first, backwards = legs[0]
        stops = [net.stops[first.b if backwards else first.a]]
        hexes: list[str] = []
        segments: set[int] = set()
        for link, backwards in legs:
            stops.append(net.stops[link.a if backwards else link.b])
            part = tuple(reversed(link.hexes)) if backwards else link.hexes
            hexes += part[1:] if hexes and hexes[-1] == part[0] else part
            segments.update(link.segments)
        return Walk(tuple(stops), frozenset(segments), tuple(hexes))


class _OutOfTime(Exception):
    """The budget ran out: the search unwinds and keeps the best run found so far."""


class _Clock:
    """Counts search steps and looks at the time now and then."""

    def __init__(self, deadline: float | None, most_steps: int | None = None) -> None:
        self.deadline = deadline
        self.most_steps = most_steps
        self.steps = 0
        self._since = 0
        self.expired = False

    def tick(self) -> None:
        self._since += 1
        if self._since >= _CHECK_EVERY:
            self.steps += self._since
            self._since = 0
            if (self.deadline is not None and time.thread_time() > self.deadline) or (
                    self.most_steps is not None and self.steps >= self.most_steps):
                # Each later search gets a few more steps, so a train cut short
                # still finds a route.
                self.expired = True
                raise _OutOfTime

    @property
    def count(self) -> int:
        return self.steps + self._since


def _best_values(net: Network) -> Callable[..., int]:
    """A bound of what `room` more stops can add to a route whose stops are the bit set
    `visited`: the best values not on it, at most `ends` of them stops a route cannot
    run through (they can only end it)."""
    by_value = sorted(range(len(net.stops)), key=lambda v: -net.values[v])
    inner = [(v, net.values[v]) for v in by_value if net.passable[v]]
    outer = [(v, net.values[v]) for v in by_value if not net.passable[v]]

    def room_bound(room: int, ends: int, visited: int, held: Sequence[int] = ()) -> int:
        """(`held`: values already on the route, best first, that compete for the
        room with the stops not visited: the best of both are counted.)"""
        total = i = j = k = 0
        while room > 0:
            while i < len(inner) and (visited >> inner[i][0]) & 1:
                i += 1
            while j < len(outer) and (visited >> outer[j][0]) & 1:
                j += 1
            a = inner[i][1] if i < len(inner) else -1
            b = outer[j][1] if ends > 0 and j < len(outer) else -1
            c = held[k] if k < len(held) else -1
            if a < 0 and b < 0 and c < 0:
                break
            if c >= a and c >= b:
                total, k = total + c, k + 1
            elif a >= b:
                total, i = total + a, i + 1
            else:
                total, j, ends = total + b, j + 1, ends - 1
            room -= 1
        return total

    return room_bound


def grow_routes(net: Network, stops: int, taken: int,
                found: Callable[[Chain, int, int], None],
                hopeless: Callable[[int, int, int, int], bool], clock: _Clock,
                free: bool = False) -> None:
    """Every route of 2..`stops` stops through a station, on segments not in `taken`:
    `found(chain, value, mask)` with the sum of its stops' values and its segments. A
    partial route is dropped when `hopeless(value, stops so far, visited stops, open
    ends)` says no extension can be worth keeping. `free`: the train counts no town
    (`TrainSpec.free_towns`, the network's weights say so): a route whose count is
    full may still run on to towns."""
    values, adjacency, passable = net.values, net.adjacency, net.passable
    weights = net.weights or (1,) * len(net.stops)
    # A stop visited marks its whole off-board area visited (`Network.areas`).
    areas = net.areas or tuple(1 << v for v in range(len(net.stops)))
    rank = [len(net.stops)] * len(net.stops)
    for r, v in enumerate(net.tokens):
        rank[v] = r
    def from_station(start: int) -> None:
        mine = rank[start]  # a route with a lower-ranked station grows from that one
        top: list[int] = []
        bottom: list[int] = []

        def station_inside() -> bool:
            """The station may lie inside the route: the top does not leave it by a
            terminal segment (a station is never off-board nor blocked)."""
            first = net.links[top[0]]
            return not (first.terminal_a if first.a == start else first.terminal_b)

        # `count`: the stops on the route; `dist`: what they count against the train
        # (the same but where towns are skipped, see `Network.weights`).
        def grow_top(at: int, value: int, count: int, visited: int, wmask: int,
                     go_on: bool, dist: int) -> None:
            clock.tick()
            inside = count > 1 and station_inside()
            if hopeless(value, dist, visited, int(go_on) + int(count == 1 or inside)):
                return
            if go_on and (dist < stops or free):
                blocked = taken | wmask
                for mask, v, lid, term_v, _term_at in adjacency[at]:
                    if mask & blocked or (visited >> v) & 1 or rank[v] < mine:
                        continue
                    if free and dist + weights[v] > stops:
                        continue
                    top.append(lid)
                    grow_top(v, value + values[v], count + 1, visited | areas[v],
                             wmask | mask, passable[v] and not term_v, dist + weights[v])
                    top.pop()
            if count > 1:
                if (dist < stops or free) and inside:
                    grow_bottom(start, value, count, visited, wmask, True, dist)
                found(Chain(start, tuple(top), ()), value, wmask)

        def grow_bottom(at: int, value: int, count: int, visited: int, wmask: int,
                        go_on: bool, dist: int) -> None:
            clock.tick()
            if at != start and hopeless(value, dist, visited, int(go_on)):
                return
            if go_on and (dist < stops or free):
                first = top[0]
                blocked = taken | wmask
                for mask, v, lid, term_v, term_at in adjacency[at]:
                    if mask & blocked or (visited >> v) & 1 or rank[v] < mine:
                        continue
                    if free and dist + weights[v] > stops:
                        continue
                    if at == start and (lid <= first or term_at):
                        continue  # each route once; nothing runs on through a terminal
                    bottom.append(lid)
                    grow_bottom(v, value + values[v], count + 1, visited | areas[v],
                                wmask | mask, passable[v] and not term_v,
                                dist + weights[v])
                    bottom.pop()
            if at != start:
                found(Chain(start, tuple(top), tuple(bottom)), value, wmask)

        grow_top(start, values[start], 1, areas[start], 0, True, weights[start])

    for start in net.tokens:
        from_station(start)


# --- one list of routes per train type --------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Table:
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


def _table(net: Network, entries: list[tuple[int, int, Chain]], floor: int,
           segment_count: int, clock: _Clock) -> _Table:
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
    return _Table(revenue, tuple(-r for r in revenue), tuple(e[2] for e in entries),
                  tuple(segments), key, tuple(free), (1 << n) - 1, floor, True)


def _unknown() -> _Table:
    """The table of a listing cut short by the clock: nothing is known."""
    return _Table((), (), (), (), (), (), 0, -1, False)


class _Kind:
    """How routes of one train type are found and valued."""

    def __init__(self, net: Network, segment_count: int, stops: int,
                 exact: Callable[[Chain, int], int] | None,
                 route_bound: Callable[[int], int] | None, clock: _Clock,
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
        self.room_bound = _best_values(net)
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
        except _OutOfTime:
            self.clock.expired = True
            return best
        if not taken:
            self.alone, self.alone_known = best, True
        return best

    def table(self, floor: int, limit: int) -> _Table:
        """Every route earning more than `floor`, valued (see `_Table`). Once more than
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
            return _table(self.net, entries, floor, self.segment_count, self.clock)
        except _OutOfTime:
            return _unknown()


# --- the combination search -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Group:
    """Trains of one type, which run interchangeably."""

    name: str
    trains: tuple[Train, ...]
    table: _Table


Pick = tuple[int, int]  # (group, route index)


class _Search:
    """Branch and bound over the trains (see the module docstring, 4.)."""

    def __init__(self, groups: list[_Group], clock: _Clock) -> None:
        self.groups = groups
        self.clock = clock
        # Train k of the run in search order: its group and how many of its group
        # follow it.
        self.slots: list[tuple[int, int]] = []
        for g, group in enumerate(groups):
            count = len(group.trains)
            self.slots += [(g, count - 1 - j) for j in range(count)]
        self.best = -1
        self.best_picks: tuple[Pick, ...] = ()
        self.proven = True
        self.timed_out = False
        self.suffix: list[int] = []
        self.value: Callable[[list[Pick], int], int] = _routes_sum
        self.alone: list[int] = []
        self.reach: list[int] = []
        self.run_bound: Callable[[int], int] | None = None
        self.picks: list[Pick] = []

    def solve(self, first: int, suffix: list[int],
              value: Callable[[list[Pick], int], int] | None,
              run_bound: Callable[[int], int] | None,
              incumbent: tuple[int, tuple[Pick, ...]]) -> tuple[int, tuple[Pick, ...], bool]:
        """The best routes for the trains `first`.. in search order by the objective
        `value(picks, sum of their revenues)` (None: that sum); `suffix[k]` bounds what
        trains k.. earn together. Returns the best found and whether it is proven."""
        self.suffix, self.run_bound = suffix, run_bound
        self.value = value if value is not None else _routes_sum
        # Cutting the pools by value needs every type's best route (see `cut`).
        self.reach = []
        if run_bound is None and all(g.table.complete for g in self.groups):
            self.alone = [max(g.table.revenue[0] if g.table.revenue else -1, g.table.floor, 0)
                          for g in self.groups]
            self.reach = [sum(self.alone[g] for g, _a in self.slots[k:])
                          for k in range(len(self.slots) + 1)]
        self.best, self.best_picks = incumbent
        self.proven, self.timed_out = True, False
        self.picks = []
        pools = [g.table.every for g in self.groups]
        try:
            self.train(first, pools, 0)
        except _OutOfTime:
            self.proven = False
            self.timed_out = True
        return self.best, self.best_picks, self.proven

    def warm_start(self, value: Callable[[list[Pick], int], int]
                   ) -> tuple[int, tuple[Pick, ...]]:
        """A good run, cheaply: the first train takes one of its WARM_START best
        routes and every later train the best route still free. A high first run to
        beat makes every bound of the search bite sooner, and is the answer when time
        runs out early."""
        best: tuple[int, tuple[Pick, ...]] = (-1, ())
        pools = [g.table.every for g in self.groups]

        def take(k: int, pools: list[int], picks: list[Pick], total: int) -> None:
            nonlocal best
            self.clock.tick()
            if k == len(self.slots):
                run = value(picks, total)
                if run > best[0]:
                    best = (run, tuple(picks))
                return
            g, after = self.slots[k]
            table = self.groups[g].table
            todo = pools[g]
            tries = WARM_START if k == 0 else 1
            for _ in range(tries):
                if not todo:
                    break
                low = todo & -todo
                i = low.bit_length() - 1
                todo ^= low
                nxt = [self.groups[h].table.without(pools[h], table.segments[i])
                       if h >= g else 0 for h in range(len(self.groups))]
                if after:  # the rest of the type take later routes (see `train`)
                    nxt[g] &= todo
                take(k + 1, nxt, [*picks, (g, i)], total + table.revenue[i])
            if not pools[g]:
                take(k + after + 1, pools, picks, total)  # nothing left: idle

        take(0, pools, [], 0)
        return best

    def beaten(self, total: int) -> bool:
        """Whether runs whose routes earn at most `total` cannot beat the best found."""
        if self.run_bound is not None:
            total = self.run_bound(total)
        return total <= self.best

    def rest(self, k: int, pools: list[int]) -> int:
        """A bound of what trains k.. earn together from the listed routes `pools`."""
        return min(self.rest_any(k, pools), self.suffix[k])

    def rest_any(self, k: int, pools: list[int]) -> int:
        """The same from the routes `pools` and any route not listed (the exact figures
        `suffix` know only the listed routes)."""
        if k >= len(self.slots):
            return 0
        g, after = self.slots[k]
        return self.groups[g].table.bound(pools[g], after + 1) + self.rest_of_types(g + 1, pools)

    def rest_of_types(self, first: int, pools: list[int]) -> int:
        """A bound of what every train of groups `first`.. earns from `pools`."""
        return sum(group.table.bound(pools[h], len(group.trains))
                   for h, group in enumerate(self.groups) if h >= first)

    def cut(self, k: int, pools: list[int], acc: int) -> None:
        """Drop from `pools` the routes too poor for trains k.. to beat the best run.

        A route of type h belongs to a better run only if it earns more than the best
        run less what the trains so far and the other trains left earn at most. Those
        earn at most their best routes alone; for a train of train k's type they are
        trains k+1.. (one train of the type less), which earn at most suffix[k+1]
        together. Routes come best first, so the cut keeps the low bits.
        """
        if not self.reach or k >= len(self.slots):
            return
        g = self.slots[k][0]
        reach = self.reach[k]
        for h in range(g, len(self.groups)):
            others = reach - self.alone[h]
            if h == g:
                others = min(others, self.suffix[k + 1])
            pools[h] = self.groups[h].table.above(pools[h], self.best - acc - others)

    def last_train(self, k: int, pool: int, acc: int) -> None:
        """What `train(k, ...)` does for the last train, in short: its free routes best
        first while they can still beat the best run, then standing idle."""
        self.clock.tick()
        g = self.slots[k][0]
        table = self.groups[g].table
        while pool:
            low = pool & -pool
            i = low.bit_length() - 1
            if self.beaten(acc + table.revenue[i]):
                break
            pool ^= low
            self.picks.append((g, i))
            value = self.value(self.picks, acc + table.revenue[i])
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)
            self.picks.pop()
        if table.floor >= 0 and not self.beaten(acc + table.floor):
            self.proven = False  # a route not listed might do better: not proven
        if not self.beaten(acc):
            value = self.value(self.picks, acc)
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)

    def train(self, k: int, pools: list[int], acc: int) -> None:
        """Routes for trains k.. of the search order, `pools[g]` holding the routes
        of group g still free (for k's own group: also after its previous pick); the
        list is this call's own."""
        self.clock.tick()
        slots, groups = self.slots, self.groups
        if k == len(slots):
            value = self.value(self.picks, acc)
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)
            return
        if self.beaten(acc + self.rest(k, pools)):
            return
        g, after = slots[k]
        self.cut(k, pools, acc)
        if k + 1 == len(slots):
            self.last_train(k, pools[g], acc)
            return
        table = groups[g].table
        revenue, segments = table.revenue, table.segments
        later = self.suffix[k + 1]
        # What the trains of the later types can earn, whatever this one takes.
        others = min(self.suffix[k + after + 1], self.rest_of_types(g + 1, pools))
        # With two trains left, the last one is settled at once (see `last_train`).
        pair = k + 2 == len(slots)
        todo = pools[g]
        while todo:
            low = todo & -todo
            i = low.bit_length() - 1
            rev = revenue[i]
            # Routes come best first, and the rest of this type take later routes:
            # once these fail, every later route fails too.
            if self.beaten(acc + rev * (after + 1) + others) \
                    or self.beaten(acc + rev + later):
                break
            todo ^= low
            self.clock.tick()
            self.picks.append((g, i))
            segs = segments[i]
            nxt = list(pools)
            nxt[g] = todo if after else 0
            # Cut first what the next train would cut (see above): the fewer bits, the
            # faster clearing the routes that share this route's track.
            self.cut(k + 1, nxt, acc + rev)
            if after:
                nxt[g] = table.without(nxt[g], segs)
            for h in range(g + 1, len(groups)):
                nxt[h] = groups[h].table.without(nxt[h], segs)
            if pair:
                self.last_train(k + 1, nxt[slots[k + 1][0]], acc + rev)
            elif not self.beaten(acc + rev + self.rest(k + 1, nxt)):
                self.train(k + 1, nxt, acc + rev)
            self.picks.pop()
        if table.floor >= 0 and not self.beaten(acc + table.floor + self.rest_any(k + 1, pools)):
            self.proven = False  # a route not listed might do better: not proven
        # This train stands idle, and so do the rest of its type.
        nxt = list(pools)
        nxt[g] = 0
        self.train(k + after + 1, nxt, acc)


# --- the result ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Optimum:
    """What `optimize` found: the run (valid for `routes.check_run`), whether it is
    proven to earn the most, and what the search cost."""

    run: Run
    proven: bool
    nodes: int  # search steps: partial routes grown plus combinations tried
    seconds: float
    routes_listed: int  # routes held over all train types

    @property
    def total(self) -> int:
        return self.run.revenue

    def routes(self) -> tuple[Route, ...]:
        """One `Route` per running train: every hex it passes, in order."""
        return self.run.as_routes()

    def action(self, company: str | None = None) -> RunRoutes:
        """The run as an order, `run 2: F11 G12; 3: ...` (`run none` if nothing runs)."""
        return RunRoutes(self.routes(), company=company)


# --- the title's hooks ------------------------------------------------------------------


def _own_hook(rules: Rules, name: str) -> Callable[..., int] | None:
    """The title's own override of the hook `name` (bound to `rules`), or None when it
    keeps the default or the hook does not exist."""
    from engine.rules import Rules as BaseRules

    mine = getattr(type(rules), name, None)
    if mine is None or mine is getattr(BaseRules, name, None):
        return None
    hook: Callable[..., int] = getattr(rules, name)
    return hook


def _route_bound(rules: Rules, state: GameState, corp: Corporation, train: Train
                 ) -> Callable[[int], int] | None:
    """The title's bound of a route's revenue from a bound of its stops' values (None:
    the revenue is that sum; a `route_revenue` overridden without its bound: none)."""
    from engine.rules import Rules as BaseRules

    hook = _own_hook(rules, "route_revenue_bound")
    if hook is not None:
        # Asked at every partial route grown, of a few hundred different sums: each
        # answered once.
        kept: dict[int, int] = {}

        def bound(values: int) -> int:
            found = kept.get(values)
            if found is None:
                found = kept[values] = int(hook(state, corp, train, values))
            return found

        return bound
    if type(rules).route_revenue is BaseRules.route_revenue:
        return None
    return lambda _values: UNBOUNDED


def _run_bound(rules: Rules, state: GameState, corp: Corporation
               ) -> Callable[[int], int] | None:
    """The title's bound of a run's revenue from a bound of its routes' sum (None: the
    run earns at most that sum; a `run_revenue` overridden without its bound: none)."""
    hook = _own_hook(rules, "run_revenue_bound")
    if hook is not None:
        return lambda total: int(hook(state, corp, total))
    if rules.run_revenue_only_falls():
        return None
    return lambda _total: UNBOUNDED


def _route_track(rules: Rules, state: GameState, corp: Corporation) -> Track:
    """The track `corp`'s trains may use (a title may close hexes to routes)."""
    from engine import routes

    return routes.route_track(rules, state, corp)


# --- the entry point ----------------------------------------------------------------------


def optimize(rules: Rules, state: GameState, corp: Corporation, *,
             budget: float | None = DEFAULT_BUDGET, max_routes: int = DEFAULT_MAX_ROUTES,
             graph: Track | None = None, beat: int | None = None,
             steps: int | None = None) -> Optimum:
    """The run of `corp`'s trains with the greatest revenue (see the module docstring).

    `budget`: seconds of CPU time (this thread's) before the search gives up and
    returns the best run found (`proven` False); None searches to the end.
    `max_routes`: routes held in memory over all train types. Where the title lets
    trains run together (1825 5.5.5: two 2-trains double-headed as one 3-train), each
    way of combining them is searched and the best run taken.
    `beat`: only runs earning more than this are sought (a declared run's revenue,
    `Game._better_run`): every bound bites from the start. The run returned then earns
    more than `beat` or is the best the first quick run found; `proven` says that no
    run earns more than it and `beat` both.
    `steps`: search steps (`Optimum.nodes`) before the search gives up, as `budget`
    does: a bound that cuts the search at the same point on any machine and load.
    """
    graph = graph if graph is not None else _route_track(rules, state, corp)
    best: Optimum | None = None
    for trains in rules.train_sets(state, corp):
        found = _optimize_trains(rules, state, corp, trains, budget=budget,
                                 max_routes=max_routes, graph=graph, beat=beat,
                                 steps=steps)
        if best is None or found.run.revenue > best.run.revenue:
            proven = found.proven and best.proven if best is not None else found.proven
            best = dataclasses.replace(found, proven=proven)
        elif not found.proven:
            best = dataclasses.replace(best, proven=False)
    assert best is not None
    return best


def run_for(rules: Rules, state: GameState, corp: Corporation, action: RunRoutes) -> Run:
    """The run an order asks for: the best one for `run auto`, else the declared routes
    as `routes.check_run` finds them on the track."""
    if action.auto:
        return optimize(rules, state, corp).run
    return check_run(rules, state, corp, action)


def _optimize_trains(rules: Rules, state: GameState, corp: Corporation,
                     trains: list[Train], *, budget: float | None, max_routes: int,
                     graph: Track, beat: int | None = None,
                     steps: int | None = None) -> Optimum:
    from engine.rules import Rules as BaseRules

    started = time.perf_counter()
    # The budget counts this thread's CPU time, not the wall clock's: on a busy machine
    # (other games' workers, a burst of mail) the same position still gets the same
    # search, so the run a company is given does not depend on the server's load.
    clock = _Clock(None if budget is None else time.thread_time() + budget, steps)
    net = compress(state, graph, corp.sym, lambda n: stop_value(rules, state, n))
    position = {node: i for i, node in enumerate(net.stops)}
    default_route = type(rules).route_revenue is BaseRules.route_revenue
    run_bound = _run_bound(rules, state, corp)

    by_stops = rules.route_revenue_by_stops
    ends = [(1 << link.a) | (1 << link.b) for link in net.links]

    def exact_for(train: Train) -> Callable[[Chain, int], int] | None:
        if default_route:
            return None

        def exact(chain: Chain, _value: int) -> int:
            walk = chain.walk(net)
            return rules.route_revenue(state, corp, train, walk,
                                       [net.values[position[s]] for s in walk.stops])

        if not by_stops:
            return exact
        # The title values a route by its stops alone: routes through the same stops
        # by other track earn the same, so each set of stops is valued once, on a walk
        # that holds only them (`Rules.route_revenue_by_stops`).
        kept: dict[int, int] = {}
        stops_of, values_of = net.stops, net.values

        def by_stop_set(chain: Chain, _value: int) -> int:
            stops = 1 << chain.start
            for lid in chain.top:
                stops |= ends[lid]
            for lid in chain.bottom:
                stops |= ends[lid]
            found = kept.get(stops)
            if found is None:
                on = [v for v in range(stops.bit_length()) if (stops >> v) & 1]
                walk = Walk(tuple(stops_of[v] for v in on), frozenset(), ())
                found = kept[stops] = rules.route_revenue(state, corp, train, walk,
                                                          [values_of[v] for v in on])
            return found

        return by_stop_set

    # Longest trains first: they earn most, so the bound tightens soonest.
    by_name: dict[str, list[Train]] = {}
    for train in sorted(trains, key=lambda t: (-train_distance(state, t), t.name)):
        by_name.setdefault(train.name, []).append(train)
    kinds = [_Kind(net, graph.pieces, train_distance(state, members[0]),
                   exact_for(members[0]),
                   _route_bound(rules, state, corp, members[0]), clock,
                   free_towns(state, members[0]))
             for members in by_name.values()]
    order = [(g, train) for g, members in enumerate(by_name.values()) for train in members]

    def run_of(chosen: Sequence[tuple[Train, int, Walk]]) -> tuple[TrainRun, ...]:
        """Train runs in the company's order of its trains."""
        by_train = {id(t): (w, r) for t, r, w in chosen}
        return tuple(TrainRun(t.name, by_train[id(t)][0], by_train[id(t)][1])
                     for t in trains if id(t) in by_train)

    nothing = rules.run_revenue(state, corp, ())
    best_value, best_runs = nothing, run_of(())
    proven = False
    search: _Search | None = None
    picked: tuple[Pick, ...] = ()
    # A first run to beat: each train in turn takes the best route left.
    greedy: list[tuple[Train, int, Walk]] = []
    used = 0
    for g, train in order:
        found = kinds[g].best(used)
        if found is not None and found[0] > 0:  # (1825: no legal route is idle)
            greedy.append((train, found[0], found[2].walk(net)))
            used |= found[1]
    runs = run_of(greedy)
    value = rules.run_revenue(state, corp, runs)
    if value > best_value:
        best_value, best_runs = value, runs
    # What a run must earn to matter: more than the best so far, and than `beat`.
    bar = best_value if beat is None else max(best_value, beat)
    try:
        # Each type alone (exact, or the search cannot go on).
        alone: list[int] = []
        for kind in kinds:
            found = kind.best(0)
            if clock.expired:
                raise _OutOfTime
            # A train without a route that earns stands idle (1825 values a walk that is
            # no route far below nothing: it must not lower the bounds below).
            alone.append(max(found[0], 0) if found is not None else 0)
        # A route can belong to a better run only if it earns more than the best run so
        # far less what every other train earns alone: list those routes only.
        total_alone = sum(alone[g] for g, _t in order)
        limit = max_routes // max(len(kinds), 1)
        groups = []
        for g, (name, members) in enumerate(by_name.items()):
            floor = bar - (total_alone - alone[g]) if run_bound is None else -1
            groups.append(_Group(name, tuple(members), kinds[g].table(max(floor, -1), limit)))
        proven = all(group.table.complete for group in groups)
        search = _Search(groups, clock)
        n = len(search.slots)
        walks: dict[Pick, Walk] = {}

        def runs_of(picks: Sequence[Pick]) -> tuple[TrainRun, ...]:
            chosen = []
            seen = [0] * len(groups)
            for g, i in picks:
                if (g, i) not in walks:
                    walks[g, i] = groups[g].table.chains[i].walk(net)
                chosen.append((groups[g].trains[seen[g]], groups[g].table.revenue[i],
                               walks[g, i]))
                seen[g] += 1
            return run_of(chosen)

        def run_value(picks: list[Pick], _acc: int) -> int:
            return rules.run_revenue(state, corp, runs_of(picks))

        summing = type(rules).run_revenue is BaseRules.run_revenue
        value, picked = search.warm_start(_routes_sum if summing else run_value)
        if value > best_value:
            best_value, best_runs = value, runs_of(picked)
        bar = max(bar, best_value)
        # The last trains together, from the last train alone up to all but the first.
        suffix = [UNBOUNDED] * n + [0]
        for k in range(n - 1, 0, -1):
            value, _picks, _done = search.solve(k, suffix, None, None, (-1, ()))
            if search.timed_out:
                raise _OutOfTime
            # Exact for the listed routes, which are all a better run can use.
            suffix[k] = max(value, 0)

        value, picked, done = search.solve(0, suffix, None if summing else run_value,
                                           run_bound, (bar, ()))
        proven = proven and done
        if value > best_value and picked:  # (none: nothing beat the bar)
            best_value, best_runs = value, runs_of(picked)
    except _OutOfTime:
        proven = False
    run = Run(best_runs, rules.run_revenue(state, corp, best_runs))
    listed = 0 if search is None else sum(len(g.table.revenue) for g in search.groups)
    return Optimum(run, proven, clock.count, time.perf_counter() - started, listed)


def _routes_sum(_picks: list[Pick], acc: int) -> int:
    return acc
