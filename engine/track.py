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
from collections import deque
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
    backtracking at a fork, not through off-boards or blocked cities, and, as every
    route, no piece of track used twice (1861 10.1: "not even the small section of
    track at the junctions"; see `reach_of`). `track` must be the graph of
    `state`'s map; the answer is kept on it, by the stations on the map.
    """
    key = ("reachable", corporation, tokens_key(state))
    found: tuple[set[Node], set[int]] | None = track.traced.get(key)
    if found is None:
        found = track.traced[key] = trace_reach(state, track, corporation)
    return set(found[0]), set(found[1])


def reaches_hex(state: GameState, track: Track, corporation: str, hex_id: str,
                old_paths: set[frozenset[Point]]) -> bool:
    """Whether a train of `corporation` reaches a segment of `hex_id` other than
    `old_paths`, or a city of the hex: what `reachable` says of the hex."""
    nodes, seen = reachable(state, track, corporation)
    if any(node.hex == hex_id and node.kind == "c" for node in nodes):
        return True
    segments = track.segments
    return any(segments[seg].hex == hex_id and
               frozenset((segments[seg].a, segments[seg].b)) not in old_paths
               for seg in seen)


def plainly_reaches_hex(state: GameState, track: Track, corporation: str, hex_id: str,
                        old_paths: set[frozenset[Point]]) -> bool:
    """`reaches_hex` by the plain tracing, which forgets what a way has used (so may
    ride a loop round): the looser reading 18xx.games makes of a lay's connection."""
    starts = token_nodes(state, corporation)
    if any(node.hex == hex_id and node.kind == "c" for node in starts):
        return True
    segments = track.segments
    for seg, point in _plain_trace(state, track, corporation, starts):
        if isinstance(point, Node) and point.hex == hex_id and point.kind == "c":
            return True
        if segments[seg].hex == hex_id and \
                frozenset((segments[seg].a, segments[seg].b)) not in old_paths:
            return True
    return False


def trace_reach(state: GameState, track: Track, corporation: str
                ) -> tuple[set[Node], set[int]]:
    """`reachable`'s answer, not copied (`reach_of` keeps it on the graph)."""
    reach = reach_of(state, track, corporation)
    nodes = set(token_nodes(state, corporation))
    nodes.update(point for _, point in reach.steps if isinstance(point, Node))
    return nodes, set(reach.segments)


# --- the reach of a company's trains -------------------------------------------------------
# A train may not use a piece of track twice: a segment, or the crossing of a hex edge
# (`Track.crossing`), nor visit a stop twice. So what a company reaches is what some such
# route from one of its stations reaches, and a loop cannot be ridden round to come back
# over the track it left by (1861 seed 3601 game 27: Moscow reached only by using J6's
# track twice). Finding every step some such route takes is a search over routes; it
# is done in two passes:
#  1. a walk, the shortest route to each step first, that remembers what its route has
#     used: whatever it reaches is reached (about linear in the track);
#  2. if a step was refused for a piece its route had used, and never walked, the plain
#     tracing (which forgets what was used) tells what more *might* be reached; only
#     then a search over routes decides those: first every route at once, each step
#     followed only while the plain tracing still comes from it to one of them
#     (`_every_route`); if that is too long, a search for a route to each in turn, each
#     route followed only while that tracing, kept off what the route used, still
#     comes there (`_route_to`).
# A step of a walk: (segment, the point it arrives at).
Step = tuple[int, Point]
# What a step tells: the segment passed, the node or side reached.
Outcome = int | Point
# The searches' bounds, in steps taken (a few microseconds each): past both, the
# outcomes left are counted reached (what the plain tracing says, as before the exact
# reach). The recorded and random games never came near them, dense random boards
# rarely (tests/engine/test_reach_uses_no_track_twice.py).
_EVERY_ROUTE_STEPS = 20_000
_SEARCH_STEPS = 500_000


@dataclass(frozen=True, slots=True)
class Reach:
    """What the trains of a company reach: `steps` it can take and go on from, or end
    at (a node, a side with no track beyond); `segments` it can pass, with those that
    end at a side whose edge the route crossed before (no way out, not an entry)."""

    steps: frozenset[Step]
    segments: frozenset[int]


def reach_of(state: GameState, track: Track, corporation: str) -> Reach:
    """What routes of `corporation` from its stations reach, kept on the graph by the
    stations on the map."""
    key = ("reach", corporation, tokens_key(state))
    found: Reach | None = track.traced.get(key)
    if found is None:
        found = track.traced[key] = _reach(state, track, corporation)
    return found


def _reach(state: GameState, track: Track, corporation: str) -> Reach:
    starts = token_nodes(state, corporation)
    walked, passed, refused = _walk(state, track, corporation, starts)
    if not refused <= walked:
        traced = _plain_trace(state, track, corporation, starts)
        missing: set[Outcome] = _outcomes(traced) - _outcomes(walked) - passed - set(starts)
        if missing:
            # Some step refused to every route walked: search for the rest.
            more, more_passed = _search(state, track, corporation, starts, traced, missing)
            walked |= more
            passed |= more_passed
    # (Every step refused somewhere and walked by another route: the walk is closed
    # under every step, so nothing more is reached.)
    return Reach(frozenset(walked), frozenset(passed | {seg for seg, _ in walked}))


def _continues(state: GameState, track: Track, corporation: str, point: Point,
               seg: int) -> bool:
    """Whether a train arriving at `point` by `seg` may go on (not after an off-board,
    a city blocked to it or a terminal segment)."""
    if isinstance(point, Side):
        return True
    if track.segments[seg].terminal:
        return False
    return point.kind != "o" and not blocked_for(state, point, corporation)


def _onwards(track: Track, point: Point, came_by: int | None
             ) -> tuple[int | None, list[Step]]:
    """The piece a train spends to leave `point` (the edge it crosses at a side, else
    None) and the steps it may take from there."""
    if isinstance(point, Side):
        other = track.across.get(point)
        if other is None:
            return None, []
        return track.crossing[point], ends(track, other)
    return None, [step for step in ends(track, point) if step[0] != came_by]


def _walk(state: GameState, track: Track, corporation: str, starts: list[Node]
          ) -> tuple[set[Step], set[int], set[Step]]:
    """Pass 1: the steps walked by routes that use no piece twice, the shortest route to
    each step first (a short route has spent the least); the segments passed to a side
    whose edge the route had crossed; and the steps refused to a route that came to
    them (its segment, stop or edge used)."""
    walked: set[Step] = set()
    passed: set[int] = set()
    refused: set[Step] = set()
    # (the step, the pieces and the stops of the route that comes to it)
    queue: deque[tuple[Step, frozenset[int], frozenset[Node]]] = deque()
    for start in starts:
        home = frozenset((start,))
        queue.extend((step, frozenset(), home) for step in ends(track, start))
    while queue:
        step, used, stops = queue.popleft()
        if step in walked:
            continue
        seg, point = step
        is_stop = isinstance(point, Node) and point.is_stop
        if seg in used or (is_stop and point in stops):
            refused.add(step)
            continue
        edge, onwards = _onwards(track, point, seg)
        if edge in used:
            passed.add(seg)  # a dead end: the route crossed this edge before
            refused.add(step)
            continue
        walked.add(step)
        if not _continues(state, track, corporation, point, seg):
            continue
        used = used | {seg} if edge is None else used | {seg, edge}
        if is_stop:
            assert isinstance(point, Node)
            stops = stops | {point}
        queue.extend((nxt, used, stops) for nxt in onwards if nxt not in walked)
    return walked, passed, refused


def _plain_trace(state: GameState, track: Track, corporation: str, starts: list[Node]
                 ) -> dict[Step, list[Step]]:
    """The steps a tracing that forgets what it used reaches (a bound on `_walk`'s),
    each with the steps it leads to."""
    after: dict[Step, list[Step]] = {}
    stack: list[Step] = []
    for start in starts:
        for step in ends(track, start):
            if step not in after:
                after[step] = []
                stack.append(step)
    while stack:
        step = stack.pop()
        seg, point = step
        if not _continues(state, track, corporation, point, seg):
            continue
        _, onwards = _onwards(track, point, seg)
        after[step] = onwards
        for nxt in onwards:
            if nxt not in after:
                after[nxt] = []
                stack.append(nxt)
    return after


def _outcomes(steps: Any) -> set[Outcome]:
    """What steps tell: the segments passed, the nodes and sides reached."""
    out: set[Outcome] = set()
    for seg, point in steps:
        out.add(seg)
        out.add(point)
    return out


def _leading_to(traced: dict[Step, list[Step]], missing: set[Outcome]) -> set[Step]:
    """The steps from which the plain tracing comes to a step with a `missing` outcome."""
    before: dict[Step, list[Step]] = {}
    for step, onwards in traced.items():
        for nxt in onwards:
            before.setdefault(nxt, []).append(step)
    found = {s for s in traced if s[0] in missing or s[1] in missing}
    stack = list(found)
    while stack:
        for prev in before.get(stack.pop(), ()):
            if prev not in found:
                found.add(prev)
                stack.append(prev)
    return found


def _search(state: GameState, track: Track, corporation: str, starts: list[Node],
            traced: dict[Step, list[Step]], missing: set[Outcome]
            ) -> tuple[set[Step], set[int]]:
    """Pass 2: routes that use no piece twice towards the `missing` outcomes (reached by
    the plain tracing, not by the walk). The steps of the routes found, and the
    segments passed to a dead end."""
    found: set[Step] = set()
    passed: set[int] = set()
    if _every_route(state, track, corporation, starts, traced, missing, found, passed):
        return found, passed
    budget = _SEARCH_STEPS
    for target in sorted(missing, key=str):
        if target not in missing:
            continue  # met on the way to an earlier one
        route, budget = _route_to(state, track, corporation, starts, traced, target, budget)
        if budget <= 0:
            # Gave up: count what the plain tracing reaches, as before the exact reach.
            found.update(s for s in traced if s[0] in missing or s[1] in missing)
            break
        if route is None:
            missing.discard(target)  # no route comes there
            continue
        *before, last = route
        found.update(before)
        missing.difference_update(_outcomes(before))
        crossed = {track.crossing.get(point) for _, point in before
                   if isinstance(point, Side)}
        if isinstance(last[1], Side) and track.crossing.get(last[1]) in crossed:
            passed.add(last[0])  # a dead end: the route crossed this edge before
            missing.discard(last[0])
        else:
            found.add(last)
            missing.difference_update(last)
    return found, passed


def _every_route(state: GameState, track: Track, corporation: str, starts: list[Node],
                 traced: dict[Step, list[Step]], missing: set[Outcome],
                 found: set[Step], passed: set[int]) -> bool:
    """Every route from the stations at once, each step followed only while the plain
    tracing comes from it to a `missing` outcome; adds what the routes reach to FOUND
    and PASSED and strikes it from MISSING. False if it gave up (`_EVERY_ROUTE_STEPS`)."""
    useful = _leading_to(traced, missing)
    left = len(missing)
    budget = _EVERY_ROUTE_STEPS
    used: set[Any] = set()  # the route's pieces and stops
    for start in starts:
        used.add(start)
        frames: list[tuple[Iterator[Step], tuple[Any, ...]]] = [
            (iter(ends(track, start)), (start,))]
        while frames and missing:
            steps, spent = frames[-1]
            step = next(steps, None)
            if step is None:
                frames.pop()
                used.difference_update(spent)
                continue
            if step not in useful:
                continue
            budget -= 1
            if budget <= 0:
                return False
            seg, point = step
            if seg in used or point in used:
                continue  # (`point in used`: a stop the route visited)
            edge, onwards = _onwards(track, point, seg)
            if edge in used:
                passed.add(seg)  # a dead end: the route crossed this edge before
                missing.discard(seg)
                continue
            if step not in found:
                found.add(step)
                missing.discard(seg)
                missing.discard(point)
                if len(missing) < left * 0.7:  # fewer left: fewer steps lead there
                    left = len(missing)
                    useful = _leading_to(traced, missing)
            if not _continues(state, track, corporation, point, seg):
                continue
            stop = isinstance(point, Node) and point.is_stop
            spent = (seg,) + ((edge,) if edge is not None else ()) + \
                ((point,) if stop else ())
            used.update(spent)
            frames.append((iter(onwards), spent))
        used.clear()
    return True


def _route_to(state: GameState, track: Track, corporation: str, starts: list[Node],
              traced: dict[Step, list[Step]], target: Outcome, budget: int
              ) -> tuple[list[Step] | None, int]:
    """A route that passes segment `target` or reaches point `target`, or None if there
    is none; and what is left of `budget`, counted in steps taken and traced. A route
    is followed only while the plain tracing, kept off what the route has used, still
    comes to the target from where the route stands."""
    route: list[Step] = []
    used: set[Any] = set()  # the route's pieces and stops
    # A route standing at a side can cross its edge only once: to stand at a side
    # there, it comes without crossing that edge.
    target_edge = track.crossing.get(target) if isinstance(target, Side) else None

    def still_reaches(step: Step) -> bool:
        nonlocal budget
        seen = {step}
        stack = [step]
        while stack:
            budget -= 1
            seg, point = stack.pop()
            if seg == target:
                return True
            edge, onwards = _onwards(track, point, seg)
            if edge in used:
                continue
            if point == target:
                return True
            if edge is not None and edge == target_edge:
                continue
            if not _continues(state, track, corporation, point, seg):
                continue
            for nxt in onwards:
                if nxt not in seen and nxt[0] not in used and nxt[1] not in used:
                    seen.add(nxt)
                    stack.append(nxt)
        return False

    for start in starts:
        used.add(start)
        frames: list[tuple[Iterator[Step], tuple[Any, ...]]] = [
            (iter(ends(track, start)), (start,))]
        while frames:
            if budget <= 0:
                return None, budget
            steps, spent = frames[-1]
            step = next(steps, None)
            if step is None:
                frames.pop()
                used.difference_update(spent)
                if len(route) >= len(frames) and route:
                    route.pop()
                continue
            budget -= 1
            seg, point = step
            if step not in traced or seg in used or point in used:
                continue  # (`point in used`: a stop the route visited)
            if seg == target:
                return [*route, step], budget
            edge, onwards = _onwards(track, point, seg)
            if edge in used:
                continue
            if point == target:
                return [*route, step], budget
            if not _continues(state, track, corporation, point, seg) or \
                    not still_reaches(step):
                continue
            stop = isinstance(point, Node) and point.is_stop
            spent = (seg,) + ((edge,) if edge is not None else ()) + \
                ((point,) if stop else ())
            used.update(spent)
            route.append(step)
            frames.append((iter(onwards), spent))
        used.clear()
    return None, budget


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

    The walk of the plain tracing moves from segment to segment: across a hex edge at
    a side, or through a node (not back along the segment it came by, not onwards from
    an off-board, a city blocked to the company or after a terminal segment), starting
    at the company's stations. A step taken backwards is a step it takes forwards, so
    a station is met walking back exactly when the plain tracing passes new track.
    That tracing forgets what it used; a route may not (`reach_of`): so the way
    back found is checked as a route (`_is_route`), and only if it is not one is the
    answer taken from the whole map (`_reached_on_map`)."""
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
    # Walked back breadth-first: the first way met is among the shortest, seldom one
    # that rides a loop (then the whole map's reach answers).
    stack: deque[tuple[str, int, Point]] = deque()
    for i, (a, b, _) in enumerate(laid.ends):
        if frozenset((a, b)) not in old_paths:
            stack += [(hex_id, i, a), (hex_id, i, b)]
        for end in (a, b) if cities else ():
            if isinstance(end, Node) and end.kind == "c":
                stack.append((hex_id, i, end))
    # Each traversal with the one walked back from (None: a new segment's own).
    back: dict[tuple[str, int, Point], tuple[str, int, Point] | None] = dict.fromkeys(stack)
    passable: dict[Node, bool] = {}
    while stack:
        hex_of, index, arrives = stack.popleft()
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
                if traversal not in back:
                    back[traversal] = (hex_of, index, arrives)
                    stack.append(traversal)
            continue
        if came_from.kind == "c" and corporation in tokens.get(
                came_from.hex, {}).get(came_from.index, ()):
            # A station: the walk starts here, if the way is a route.
            if _is_route(state, came_from, (hex_of, index, arrives), back):
                return True
            return _reached_on_map(state, corporation, hex_id, old_paths, closed, cities)
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
            if through not in back:
                back[through] = (hex_of, index, arrives)
                stack.append(through)
    return False


def _is_route(state: GameState, station: Node, first: tuple[str, int, Point],
              back: dict[tuple[str, int, Point], tuple[str, int, Point] | None]) -> bool:
    """Whether the way `lay_reached` walked back, from `station` through `first` and on
    by `back` to the laid hex, is a route: no segment, hex edge or stop twice."""
    title = state.title
    segments: set[tuple[str, int]] = set()
    edges: set[frozenset[tuple[str, int]]] = set()
    stops: set[Node] = {station}
    traversal: tuple[str, int, Point] | None = first
    last = first
    while traversal is not None:
        hex_of, index, arrives = traversal
        if (hex_of, index) in segments:
            return False
        segments.add((hex_of, index))
        if isinstance(arrives, Node) and arrives.is_stop:
            if arrives in stops:
                return False
            stops.add(arrives)
        nxt = back[traversal]
        if nxt is not None and nxt[0] != hex_of:  # crossed into the next hex
            edge = frozenset(((hex_of, arrives.edge), (nxt[0], opposite(arrives.edge)))) \
                if isinstance(arrives, Side) else None
            if edge is None or edge in edges:
                return False
            edges.add(edge)
        last = traversal
        traversal = nxt
    arrives = last[2]
    if isinstance(arrives, Side):
        # Arriving at a side whose edge it crossed before, a route cannot go on.
        out = frozenset(((last[0], arrives.edge),
                         (neighbour_of(title, last[0], arrives.edge), opposite(arrives.edge))))
        if out in edges:
            return False
    return True


def _reached_on_map(state: GameState, corporation: str, hex_id: str,
                    old_paths: set[frozenset[Point]], closed: frozenset[str],
                    cities: bool) -> bool:
    """`lay_reached`'s answer from the reach of the whole map (the new tile on it)."""
    graph = build_track(state, closed)
    nodes, reached = reachable(state, graph, corporation)
    if cities and any(node.hex == hex_id and node.kind == "c" for node in nodes):
        return True
    segments = graph.segments
    return any(segments[seg].hex == hex_id and
               frozenset((segments[seg].a, segments[seg].b)) not in old_paths
               for seg in reached)
