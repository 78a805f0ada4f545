"""The track on the map as a graph, and tracing along it as a train would.

Points are revenue centres and junctions (`Node`) and the sides of hexes (`Side`).
Every path printed on a tile or hex is a `Segment` joining two points; a side
continues across the hex edge into the neighbour's side. Tracing follows the rules
of 18TN 4.2.1(j), 4.2.2(a) and 4.2.3: at a side a train must cross into the next hex
(it cannot turn back into another branch of a fork); at a city or junction it may
leave by any other track; it cannot run through an off-board area or a city whose
every slot holds another company's station.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.geometry import neighbour, opposite
from engine.state import GameState
from engine.title import Shared, TileSpec, per_title


@dataclass(frozen=True, slots=True)
class Node(Shared):
    """A revenue centre or junction on a hex: kind "c" city, "t" town, "o" off-board,
    "j" junction; `index` is K of the tile's cK/tK."""

    hex: str
    kind: str
    index: int

    @property
    def is_stop(self) -> bool:
        return self.kind in ("c", "t", "o")

    def __str__(self) -> str:
        return f"{self.hex}.{self.kind}{self.index}"


@dataclass(frozen=True, slots=True)
class Side(Shared):
    """Where track meets hex side `edge` (absolute, after rotation) inside `hex`."""

    hex: str
    edge: int


Point = Node | Side


@dataclass(frozen=True, slots=True)
class Segment(Shared):
    """One path of the tile on `hex`: the smallest piece of track (18TN 4.2.3(b))."""

    id: int
    hex: str
    a: Point
    b: Point
    terminal: bool = False

    def other(self, point: Point) -> Point:
        a = self.a
        return self.b if point is a or point == a else a


@dataclass
class Track:
    """All track on the map as it stands.

    A route spends *pieces* of track: its segments, and each hex edge it crosses.
    Several paths of a tile may meet at one edge, but only one section of track
    crosses it (18TN 4.2.3(b); 1851: "not even the small section of track at the
    junctions"): `crossing[side]` is the edge's piece id, the same for both sides of
    the edge and numbered after the segments.
    """

    segments: list[Segment] = field(default_factory=list)
    at: dict[Point, list[int]] = field(default_factory=dict)
    across: dict[Side, Side] = field(default_factory=dict)
    crossing: dict[Side, int] = field(default_factory=dict)
    # What was traced on this graph, by the stations on the map (`reachable`,
    # `routes.has_route`); a graph never changes once built.
    traced: dict[Any, Any] = field(
        default_factory=dict, compare=False, repr=False)

    @property
    def pieces(self) -> int:
        """How many piece ids there are: segments, then edges crossed by track."""
        return len(self.segments) + len(self.crossing) // 2

    def add(self, hex_id: str, a: Point, b: Point, terminal: bool) -> None:
        seg = Segment(len(self.segments), hex_id, a, b, terminal)
        self.segments.append(seg)
        self.at.setdefault(a, []).append(seg.id)
        self.at.setdefault(b, []).append(seg.id)

    def nodes(self) -> Iterator[Node]:
        for point in self.at:
            if isinstance(point, Node):
                yield point


def tile_on(state: GameState, hex_id: str) -> tuple[TileSpec | None, int]:
    """What lies on a hex: the laid tile and its rotation, else the preprinted content."""
    placed = state.board.tiles.get(hex_id)
    if placed is not None:
        return state.title.tile(placed.name), placed.rotation
    return state.title.hexes[hex_id].tile, 0


def endpoint(hex_id: str, end: str, rotation: int) -> Point:
    kind, index = end[0], int(end[1:])
    if kind == "e":
        return Side(hex_id, (index + rotation) % 6)
    return Node(hex_id, kind, index)


# --- the cache -----------------------------------------------------------------------------
# The map changes only when a tile is laid, yet the graph is asked for by every tile lay,
# token, run and legal-action list: graphs are kept by what lies on the map, so a replay
# builds one per tile laid. Graphs are never changed once built, so they are shared.
_GRAPHS: dict[tuple[Any, ...], tuple[object, Track]] = {}
_GRAPHS_KEPT = 64
# The service's worker threads share the cache: two evicting the same graph at once
# failed with a KeyError (seen in the 1861 game by mail).
_GRAPHS_LOCK = threading.Lock()


def board_key(state: GameState) -> tuple[tuple[str, str, int], ...]:
    """What lies on the map, as a key (the tiles are all a graph depends on)."""
    return tuple([(h, p.name, p.rotation) for h, p in state.board.tiles.items()])


def tokens_key(state: GameState) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """The station tokens on the map, as a key."""
    return tuple([(h, c, tuple(corps)) for h, cities in state.board.tokens.items()
                  for c, corps in cities.items()])


def build_track(state: GameState, closed: frozenset[str] = frozenset()) -> Track:
    """The graph of every path on the map, with sides joined across hex edges.

    `closed` hexes are left out (1851's Birmingham before phase 4, for routes).
    The graph is shared: callers must not change it."""
    key = (id(state.title), closed, board_key(state))
    with _GRAPHS_LOCK:
        found = _GRAPHS.pop(key, None)
    if found is None or found[0] is not state.title:
        found = (state.title, trace_map(state, closed))
    with _GRAPHS_LOCK:
        if key not in _GRAPHS and len(_GRAPHS) >= _GRAPHS_KEPT:
            del _GRAPHS[next(iter(_GRAPHS))]  # the least recently used
        _GRAPHS[key] = found  # (re)inserted last: the most recently used
    return found[1]


def trace_map(state: GameState, closed: frozenset[str] = frozenset()) -> Track:
    """`build_track` without the cache: a new graph of the map as it stands.

    Each hex adds its paths in map order, so segment ids and the order of points are
    the same however the graph was reached; the pieces one tile at one rotation on one
    hex adds (segments from a given id, points, sides) are kept per title."""
    track = Track()
    title = state.title
    pieces = _pieces_of(title)
    tiles = state.board.tiles
    sides: list[tuple[Side, Side | None]] = []
    for hex_id, spec in title.hexes.items():
        if hex_id in closed:
            continue
        placed = tiles.get(hex_id)
        if placed is None:
            tile, rotation = spec.tile, 0
        else:
            tile, rotation = title.tile(placed.name), placed.rotation
        if tile is None or not tile.paths:
            continue
        key = (hex_id, placed.name if placed is not None else None, rotation,
               len(track.segments))
        piece = pieces.get(key)
        if piece is None:
            if len(pieces) >= _PIECES_KEPT:
                pieces.clear()  # a new lay moves the ids of every later hex: start afresh
            piece = pieces[key] = _piece(title, hex_id, tile, rotation, len(track.segments),
                                         key[1])
        track.segments.extend(piece.segments)
        track.at.update(piece.at)
        sides.extend(piece.sides)
    at = track.at
    for side, other in sides:
        if other is not None and other in at:
            track.across[side] = other
    for point, other in track.across.items():
        if point not in track.crossing:
            track.crossing[point] = track.crossing[other] = track.pieces
    return track


@dataclass(frozen=True, slots=True)
class _Piece:
    """What one tile at one rotation on one hex adds to a graph, from segment id on."""

    segments: tuple[Segment, ...]
    at: dict[Point, list[int]]  # never changed once made: graphs share the lists
    sides: tuple[tuple[Side, Side | None], ...]  # each side and the one across it


_PIECES: dict[int, tuple[object, dict[Any, _Piece]]] = {}
_PIECES_KEPT = 20_000


def _pieces_of(title: Any) -> dict[Any, _Piece]:
    return per_title(_PIECES, title)


# What one tile at one rotation on one hex is, whatever segment id it starts from: its
# paths' ends and its sides with the ones across them. A lay shifts the ids of every
# later hex, so their pieces are made again from this (no parsing, no geometry).
_SHAPES: dict[int, tuple[object, dict[Any, _Shape]]] = {}


@dataclass(frozen=True, slots=True)
class _Shape:
    ends: tuple[tuple[Point, Point, bool], ...]
    sides: tuple[tuple[Side, Side | None], ...]


def _shape(title: Any, hex_id: str, tile: TileSpec, rotation: int, name: str | None
           ) -> _Shape:
    kept = per_title(_SHAPES, title)
    key = (hex_id, name, rotation)
    found = kept.get(key)
    if found is None:
        ends = tuple((endpoint(hex_id, path.a, rotation), endpoint(hex_id, path.b, rotation),
                      path.terminal) for path in tile.paths)
        points = dict.fromkeys(p for a, b, _ in ends for p in (a, b))
        borders = title.hexes[hex_id].borders
        sides = tuple((point, None if point.edge in borders else
                       Side(neighbour(title.grid, hex_id, point.edge), opposite(point.edge)))
                      for point in points if isinstance(point, Side))
        found = kept[key] = _Shape(ends, sides)
    return found


def _piece(title: Any, hex_id: str, tile: TileSpec, rotation: int, first: int,
           name: str | None) -> _Piece:
    """`name`: the laid tile's (None: the hex's printed track), which with the hex and
    the rotation says what `tile` is."""
    shape = _shape(title, hex_id, tile, rotation, name)
    segments: list[Segment] = []
    at: dict[Point, list[int]] = {}
    for a, b, terminal in shape.ends:
        seg = Segment(first + len(segments), hex_id, a, b, terminal)
        segments.append(seg)
        at.setdefault(a, []).append(seg.id)
        at.setdefault(b, []).append(seg.id)
    return _Piece(tuple(segments), at, shape.sides)


def rotated_paths(tile: TileSpec, rotation: int, hex_id: str) -> list[tuple[Point, Point]]:
    return [(endpoint(hex_id, p.a, rotation), endpoint(hex_id, p.b, rotation))
            for p in tile.paths]


def blocked_for(state: GameState, node: Node, corporation: str) -> bool:
    """A city whose every slot holds another company's station (18TN 4.2.3(e))."""
    if node.kind != "c":
        return False
    tile, _ = tile_on(state, node.hex)
    if tile is None or node.index >= len(tile.cities):
        return False
    tokens = state.board.tokens_in(node.hex, node.index)
    slots = tile.cities[node.index].slots
    return len(tokens) >= slots and corporation not in tokens


def token_nodes(state: GameState, corporation: str) -> list[Node]:
    """The cities holding a station of `corporation`."""
    out = []
    for hex_id, cities in state.board.tokens.items():
        for index, corps in cities.items():
            if corporation in corps:
                out.append(Node(hex_id, "c", index))
    return out


def next_steps(track: Track, point: Point, came_by: int | None) -> list[tuple[int, Point]]:
    """Where a train at `point`, having arrived by segment `came_by`, may go next."""
    if isinstance(point, Side):
        other = track.across.get(point)
        if other is None:
            return []
        return ends(track, other)
    return [step for step in ends(track, point) if step[0] != came_by]


def ends(track: Track, point: Point) -> list[tuple[int, Point]]:
    """Every segment at `point`, with the point at its other end (kept on the graph:
    routes ask it thousands of times; the list must not be changed)."""
    kept: dict[Point, list[tuple[int, Point]]] | None = track.traced.get("ends")
    if kept is None:
        kept = track.traced["ends"] = {}
    found = kept.get(point)
    if found is None:
        segments = track.segments
        found = kept[point] = [(s, segments[s].other(point)) for s in track.at.get(point, ())]
    return found


def reachable(state: GameState, track: Track, corporation: str
              ) -> tuple[set[Node], set[int]]:
    """Nodes and segments a train of `corporation` can reach from its stations.

    This is the connection of 18TN 4.2.1(j) and 4.2.2(a): no limit on cities, no
    backtracking at a fork, not through off-boards or blocked cities. `track` must be
    the graph of `state`'s map; the answer is kept on it, by the stations on the map.
    """
    key = ("reachable", corporation, tokens_key(state))
    found: tuple[set[Node], set[int]] | None = track.traced.get(key)
    if found is None:
        found = track.traced[key] = trace_reach(state, track, corporation)
    return set(found[0]), set(found[1])


def reaches_hex(state: GameState, track: Track, corporation: str, hex_id: str,
                old_paths: set[frozenset[Point]]) -> bool:
    """Whether a train of `corporation` reaches a segment of `hex_id` other than
    `old_paths`, or a city of the hex: what `reachable` would say, from its tracing
    stopped at the first such segment or city."""
    segments = track.segments
    for seg, node in _trace(state, track, corporation):
        if node is not None:
            if node.hex == hex_id and node.kind == "c":
                return True
        elif segments[seg].hex == hex_id and \
                frozenset((segments[seg].a, segments[seg].b)) not in old_paths:
            return True
    return False


def trace_reach(state: GameState, track: Track, corporation: str
                ) -> tuple[set[Node], set[int]]:
    """`reachable` without the cache."""
    seen_nodes: set[Node] = set()
    seen_segments: set[int] = set()
    for seg, node in _trace(state, track, corporation):
        if node is not None:
            seen_nodes.add(node)
        else:
            seen_segments.add(seg)
    return seen_nodes, seen_segments


def _trace(state: GameState, track: Track, corporation: str
           ) -> Iterator[tuple[int, Node | None]]:
    """The tracing of `reachable`, as it goes: (-1, node) for each node reached (the
    stations first), (segment, None) for each segment passed."""
    starts = token_nodes(state, corporation)
    for node in starts:
        yield -1, node
    visited: set[tuple[int, Point]] = set()
    stack: list[tuple[Point, int | None]] = [(n, None) for n in starts]
    while stack:
        point, came_by = stack.pop()
        if isinstance(point, Node) and came_by is not None:
            yield -1, point
            if point.kind == "o" or blocked_for(state, point, corporation):
                continue
        for seg, nxt in next_steps(track, point, came_by):
            if (seg, nxt) in visited:
                continue
            visited.add((seg, nxt))
            yield seg, None
            if track.segments[seg].terminal and isinstance(nxt, Node):
                yield -1, nxt
                continue
            stack.append((nxt, seg))


# --- a tile lay's connection, traced from the laid hex ---------------------------------------
# A lay is checked against the map with its tile on it (`board.connected_after`): does a
# train of the company reach new track or a city of the hex? Building the whole graph for
# each lay tried and tracing from every station costs a pass over the map; the same answer
# comes from walking backwards from the hex until a station is met, over the hexes the walk
# reaches (`lay_reached`). `board.connected_after_traced` is the whole-map definition; the
# tests compare the two at every lay of the recorded games.


@dataclass(frozen=True, slots=True)
class _HexTrack:
    """The paths of one tile at one rotation on one hex, as a local graph: segment i
    joins `ends[i]`; `at[point]` lists (i, other end) for every segment at the point."""

    ends: tuple[tuple[Point, Point, bool], ...]
    at: dict[Point, tuple[tuple[int, Point], ...]]


_HEX_TRACKS: dict[int, tuple[object, dict[Any, _HexTrack | None]]] = {}
_NEIGHBOURS: dict[int, tuple[object, dict[tuple[str, int], str]]] = {}


def _hex_track(state: GameState, hex_id: str) -> _HexTrack | None:
    """What `trace_map` adds for `hex_id` as the map stands, kept per title."""
    title = state.title
    kept = per_title(_HEX_TRACKS, title)
    placed = state.board.tiles.get(hex_id)
    key = (hex_id, placed.name, placed.rotation) if placed is not None else (hex_id,)
    try:
        return kept[key]
    except KeyError:
        pass
    spec = title.hexes.get(hex_id)
    tile, rotation = (None, 0) if spec is None else tile_on(state, hex_id)
    found = None
    if tile is not None and tile.paths:
        ends = tuple((endpoint(hex_id, p.a, rotation), endpoint(hex_id, p.b, rotation),
                      p.terminal) for p in tile.paths)
        at: dict[Point, list[tuple[int, Point]]] = {}
        for i, (a, b, _) in enumerate(ends):
            at.setdefault(a, []).append((i, b))
            at.setdefault(b, []).append((i, a))
        found = _HexTrack(ends, {p: tuple(steps) for p, steps in at.items()})
    kept[key] = found
    return found


def neighbour_of(title: Any, hex_id: str, edge: int) -> str:
    kept = per_title(_NEIGHBOURS, title)
    found = kept.get((hex_id, edge))
    if found is None:
        found = kept[(hex_id, edge)] = neighbour(title.grid, hex_id, edge)
    return found


def lay_reached(state: GameState, corporation: str, hex_id: str,
                old_paths: set[frozenset[Point]],
                closed: frozenset[str] = frozenset(), cities: bool = True) -> bool:
    """What `reaches_hex` answers on the graph of the map as it stands (the new tile
    already on `hex_id`), found without that graph: walking backwards from every new
    segment of the hex and every segment into one of its cities until a station of
    `corporation` is met. Without `cities`, whether a train reaches new track of the
    hex only (its cities aside): the walks back from the new segments alone.

    The walk of `_trace` moves from segment to segment: across a hex edge at a side,
    or through a node (not back along the segment it came by, not onwards from an
    off-board, a city blocked to the company or after a terminal segment), starting at
    the company's stations. A step taken backwards is a step it takes forwards, so the
    segments traversed (a segment and the point it arrives at) from which a station
    can be walked back to are exactly those `_trace` passes."""
    tokens = state.board.tokens
    if cities and any(corporation in corps for corps in tokens.get(hex_id, {}).values()):
        return True  # the station's city is reached
    if hex_id in closed:
        return False
    laid = _hex_track(state, hex_id)
    if laid is None:
        return False
    title = state.title
    hexes = title.hexes
    # A traversal: (hex, segment index, the point it arrives at).
    stack: list[tuple[str, int, Point]] = []
    for i, (a, b, _) in enumerate(laid.ends):
        if frozenset((a, b)) not in old_paths:
            stack += [(hex_id, i, a), (hex_id, i, b)]
        for end in (a, b) if cities else ():
            if isinstance(end, Node) and end.kind == "c":
                stack.append((hex_id, i, end))
    seen = set(stack)
    passable: dict[Node, bool] = {}
    while stack:
        hex_of, index, arrives = stack.pop()
        here = _hex_track(state, hex_of)
        assert here is not None
        a, b, _ = here.ends[index]
        came_from = b if arrives == a else a  # (`Segment.other`)
        if isinstance(came_from, Side):
            # The walk crossed into `came_from` from the side across its edge.
            other_hex = neighbour_of(title, hex_of, came_from.edge)
            if other_hex in closed or other_hex not in hexes:
                continue
            edge = (came_from.edge + 3) % 6
            if edge in hexes[other_hex].borders or \
                    neighbour_of(title, other_hex, edge) != hex_of:
                continue
            there = _hex_track(state, other_hex)
            before = Side(other_hex, edge)
            if there is None or before not in there.at:
                continue
            for step, _ in there.at[before]:
                traversal = (other_hex, step, before)
                if traversal not in seen:
                    seen.add(traversal)
                    stack.append(traversal)
            continue
        if came_from.kind == "c" and corporation in tokens.get(
                came_from.hex, {}).get(came_from.index, ()):
            return True  # a station: the walk starts here
        ok = passable.get(came_from)
        if ok is None:
            ok = passable[came_from] = came_from.kind != "o" and \
                not blocked_for(state, came_from, corporation)
        if not ok:
            continue
        for step, _ in here.at[came_from]:
            if step == index or here.ends[step][2]:
                continue  # not back the same way; a terminal segment ends the walk
            through: tuple[str, int, Point] = (hex_of, step, came_from)
            if through not in seen:
                seen.add(through)
                stack.append(through)
    return False
