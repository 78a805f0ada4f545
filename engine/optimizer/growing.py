"""2. Routes (engine.optimizer): a train's routes grown depth-first from the company's stations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.optimizer.clock import Clock
from engine.optimizer.network import Link, Network
from engine.walks import Walk

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


def best_values(net: Network) -> Callable[..., int]:
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
                hopeless: Callable[[int, int, int, int], bool], clock: Clock,
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
