"""1. Compress (engine.optimizer): the track as a graph of stops joined by links of plain track."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine.routes import area_of, towns_skipped
from engine.state import GameState
from engine.track import Node, Point, Side, Track, blocked_for, next_steps, token_nodes

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
