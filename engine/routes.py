"""Routes and revenue (18TN 4.2.3, 4.2.3.1).

A route is a walk along track from stop to stop. It may not reuse a segment or cross
a hex edge twice (`Track.crossing`), visit a stop twice, reach a red off-board area of
several hexes twice (`area_of`: 1861 10.1), run through an off-board area or a blocked
city, and must touch one of the company's stations; a train counts at most its number
of stops. Trains of one company may not share a segment or an edge.
Declared routes name the hexes they pass in order (every hex, or only the stops); the
engine finds the track that fits.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.actions import Route, RunRoutes
from engine.errors import GameError
from engine.state import Corporation, GameState, Train
from engine.title import Title, TrainSpec
from engine.track import (
    Node,
    Point,
    Side,
    Track,
    blocked_for,
    build_track,
    next_steps,
    tile_on,
    tokens_key,
)
from engine.walks import Run, TrainRun, Walk

if TYPE_CHECKING:
    from engine.rules import Rules


def route_track(rules: Rules, state: GameState, corp: Corporation | None = None) -> Track:
    """The track `corp`'s trains may run on now (a title may close hexes to routes)."""
    return build_track(state, rules.hexes_closed_to_routes(state, corp))


def stop_value(rules: Rules, state: GameState, node: Node) -> int:
    """A stop's revenue in the current phase."""
    tile, _ = tile_on(state, node.hex)
    assert tile is not None
    phase = rules.phase(state).name
    if node.kind == "c":
        rev = tile.cities[node.index].revenue
    elif node.kind == "t":
        rev = tile.towns[node.index].revenue
    else:
        spec = state.title.hexes[node.hex]
        rev = spec.offboard if spec.offboard is not None else tile.offboards[node.index].revenue
    return state.title.revenue_in_phase(rev, phase)


def area_of(state: GameState, node: Node) -> str | None:
    """The red off-board area of several hexes a stop belongs to (the title's
    `HexSpec.offboard_group`), or None: such an area is one stop, which a route reaches
    at most once (1861 10.1: "It may not reach or pass through any ... red off-board
    area more than once")."""
    if node.kind != "o":
        return None
    spec = state.title.hexes.get(node.hex)
    return spec.offboard_group if spec is not None else None


def _area_reached(state: GameState, nxt: Node, stops: Sequence[Node]) -> bool:
    """Whether `nxt` lies in an off-board area the route has reached already."""
    area = area_of(state, nxt)
    return area is not None and any(area_of(state, s) == area for s in stops)


def area_name(state: GameState, area: str) -> str:
    """An off-board area as the map prints it on its hexes ("Central Asia"), for a
    refusal: the data's `offboard_group` is an identifier ("CentralAsia")."""
    names = {spec.name for spec in state.title.hexes.values()
             if spec.offboard_group == area and spec.name}
    return names.pop() if len(names) == 1 else area


def twice_in_an_area(state: GameState, hexes: Sequence[str]) -> str | None:
    """The off-board area of which a declared route names two hexes, or None (every
    hex of such an area is an off-board stop: a route naming two reaches it twice)."""
    seen: dict[str, str] = {}
    for hex_id in hexes:
        spec = state.title.hexes.get(hex_id)
        area = spec.offboard_group if spec is not None and spec.offboard is not None \
            else None
        if area is None:
            continue
        if seen.setdefault(area, hex_id) != hex_id:
            return area
    return None


def walks_from(state: GameState, graph: Track, corp: str, start: Node, max_stops: int,
               declared: tuple[str, ...] | None = None, free_towns: bool = False
               ) -> list[Walk]:
    """Every legal walk of 2..max_stops stops starting at `start` (18TN 4.2.3).

    With `declared` hexes, only walks that fit them (see `matches`) are followed,
    which keeps checking a declared route fast on a crowded map. `free_towns`: the
    train counts no town (`TrainSpec.free_towns`): past its last counted stop it may
    still run on to towns.
    """
    out: list[Walk] = []
    towns_free = towns_skipped(state) or free_towns

    def fits(stops: list[Node], hexes: list[str]) -> bool:
        if declared is None:
            return True
        n = len(hexes)
        as_hexes = n <= len(declared) and declared[:n] == tuple(hexes)
        k = len(stops)
        as_stops = k <= len(declared) and tuple(x.hex for x in stops) == declared[:k]
        return as_hexes or as_stops

    def extend(point: Point, came_by: int | None, stops: list[Node], used: list[int],
               hexes: list[str]) -> None:
        if isinstance(point, Side):
            # Crossing the edge spends it: no route crosses one edge twice (4.2.3(b)).
            edge = graph.crossing.get(point)
            if edge is None or edge in used:
                return
            used = [*used, edge]
        for seg_id, nxt in next_steps(graph, point, came_by):
            if seg_id in used:
                continue
            seg = graph.segments[seg_id]
            new_hexes = hexes if hexes[-1] == seg.hex else [*hexes, seg.hex]
            if isinstance(nxt, Side):
                if fits(stops, new_hexes) or _may_pass(declared, stops):
                    extend(nxt, seg_id, stops, [*used, seg_id], new_hexes)
                continue
            if nxt.is_stop:
                if nxt in stops or _area_reached(state, nxt, stops):
                    continue
                new_stops = [*stops, nxt]
                if not fits(new_stops, new_hexes):
                    continue
                counted = len(new_stops) if not towns_free else \
                    sum(1 for n in new_stops if n.kind != "t")
                if free_towns and counted > max_stops:
                    continue
                walk = Walk(tuple(new_stops), frozenset([*used, seg_id]), tuple(new_hexes))
                out.append(walk)
                if ((counted >= max_stops and not free_towns) or nxt.kind == "o"
                        or seg.terminal or blocked_for(state, nxt, corp)):
                    continue
                extend(nxt, seg_id, new_stops, [*used, seg_id], new_hexes)
            else:
                extend(nxt, seg_id, stops, [*used, seg_id], new_hexes)

    extend(start, None, [start], [], [start.hex])
    return out


def towns_skipped(state: GameState) -> bool:
    """Whether towns are not counted against a train's distance (1861 10.6: "small
    cities may be skipped"; the title values them in `Rules.route_revenue`)."""
    return bool(state.title.title_specific.get("towns_skipped"))


def _may_pass(declared: tuple[str, ...] | None, stops: list[Node]) -> bool:
    """In stops-only form, track between two declared stops may pass any hexes."""
    if declared is None:
        return True
    k = len(stops)
    return k <= len(declared) and tuple(x.hex for x in stops) == declared[:k]


def walks_matching(state: GameState, graph: Track, corp: str, hexes: tuple[str, ...],
                   max_stops: int, free_towns: bool = False) -> list[Walk]:
    """Walks that fit a declared hex list, read in either direction."""
    from engine.track import token_nodes

    tokens = set(token_nodes(state, corp))
    stops_at = _stops_by_hex(graph)
    out: list[Walk] = []
    for declared in (hexes, tuple(reversed(hexes))):
        # A walk's stops all lie in hexes with a stop, and its hex list starts where it
        # starts: when a declared hex has no stop and the list ends elsewhere than it
        # begins, only a walk passing exactly these hexes in this order can fit, so
        # nothing else is followed (the same walks, in the same order, found sooner).
        only_hexes = declared[0] != declared[-1] and \
            any(h not in stops_at for h in declared)
        for node in stops_at.get(declared[0], ()):
            found = (_walks_along(state, graph, corp, node, max_stops, declared, free_towns)
                     if only_hexes else
                     walks_from(state, graph, corp, node, max_stops, declared, free_towns))
            out += [w for w in found if matches(w, hexes) and tokens.intersection(w.stops)]
    return out


def _stops_by_hex(graph: Track) -> dict[str, list[Node]]:
    """The stops of each hex, in the order of `graph.nodes()` (kept on the graph)."""
    kept: dict[str, list[Node]] | None = graph.traced.get("stops by hex")
    if kept is None:
        kept = graph.traced["stops by hex"] = {}
        for node in graph.nodes():
            if node.is_stop:
                kept.setdefault(node.hex, []).append(node)
    return kept


def _walks_along(state: GameState, graph: Track, corp: str, start: Node, max_stops: int,
                 declared: tuple[str, ...], free_towns: bool = False) -> list[Walk]:
    """The walks of `walks_from(..., declared)` whose hexes are exactly `declared`:
    the same search, in the same order, following only track that stays on the
    declared hexes in order."""
    out: list[Walk] = []
    last = len(declared) - 1
    segments = graph.segments
    crossing = graph.crossing
    across = graph.across

    used: set[int] = set()  # the pieces of track the walk has spent so far
    stops: list[Node] = [start]
    towns_free = towns_skipped(state) or free_towns

    def extend(point: Point, came_by: int | None, at: int) -> None:
        # `at`: the index in `declared` of the hex the walk stands in.
        edge = None
        if isinstance(point, Side):
            edge = crossing.get(point)
            if edge is None or edge in used:
                return
            used.add(edge)
        here = declared[at]
        for seg_id, nxt in next_steps(graph, point, came_by):
            if seg_id in used:
                continue
            seg = segments[seg_id]
            step = at
            if seg.hex != here:
                step = at + 1
                if step > last or declared[step] != seg.hex:
                    continue  # off the declared hexes: no walk beyond fits
            if isinstance(nxt, Side):
                # From a side a train crosses into the hex beyond: the next declared one.
                beyond = across.get(nxt)
                if beyond is None or step >= last or declared[step + 1] != beyond.hex:
                    continue
            elif nxt.is_stop:
                if nxt in stops or _area_reached(state, nxt, stops):
                    continue
                counted = len(stops) + 1 if not towns_free else \
                    sum(1 for n in stops if n.kind != "t") + (nxt.kind != "t")
                if free_towns and counted > max_stops:
                    continue
                if step == last:
                    out.append(Walk((*stops, nxt), frozenset((*used, seg_id)), declared))
                if ((counted >= max_stops and not free_towns) or nxt.kind == "o"
                        or seg.terminal or blocked_for(state, nxt, corp)):
                    continue
                stops.append(nxt)
                used.add(seg_id)
                extend(nxt, seg_id, step)
                used.discard(seg_id)
                stops.pop()
                continue
            used.add(seg_id)
            extend(nxt, seg_id, step)
            used.discard(seg_id)
        if edge is not None:
            used.discard(edge)

    extend(start, None, 0)
    return out


def all_walks(state: GameState, graph: Track, corp: str, max_stops: int,
              free_towns: bool = False) -> list[Walk]:
    """Every legal walk touching a station of `corp`, each direction counted once."""
    from engine.track import token_nodes

    tokens = set(token_nodes(state, corp))
    seen: set[tuple[frozenset[int], frozenset[Node]]] = set()
    out: list[Walk] = []
    for node in graph.nodes():
        if not node.is_stop:
            continue
        for walk in walks_from(state, graph, corp, node, max_stops, free_towns=free_towns):
            if not tokens.intersection(walk.stops):
                continue
            key = (walk.segments, frozenset(walk.stops))
            if key in seen:
                continue
            seen.add(key)
            out.append(walk)
    return out


def train_distance(state: GameState, train: Train) -> int:
    return run_spec(state.title, train.name).distance.stops


def free_towns(state: GameState, train: Train) -> bool:
    """Whether the train counts no town against its distance (`TrainSpec.free_towns`)."""
    return run_spec(state.title, train.name).free_towns


def run_spec(title: Title, name: str) -> TrainSpec:
    """The train type a train runs as: its own, or for two trains double-headed
    (`2+2` in 1825 5.5.5, where no such train is sold) the type they run as."""
    try:
        return title.train(name)
    except KeyError:
        heads = name.split("+")
        if len(heads) == 2 and heads[0] == heads[1]:
            spec = title.train(heads[0])
            if spec.double_heads_as is not None:
                return title.train(spec.double_heads_as)
        raise


def walk_revenue(rules: Rules, state: GameState, corp: Corporation, train: Train,
                 walk: Walk) -> int:
    return rules.route_revenue(state, corp, train, walk,
                               [stop_value(rules, state, n) for n in walk.stops])


def has_route(rules: Rules, state: GameState, corp: Corporation) -> bool:
    """Whether any train could run: two stops joined by track through a station."""
    graph = route_track(rules, state, corp)
    key = ("has_route", corp.sym, tokens_key(state))  # kept on the graph (engine.track)
    found = graph.traced.get(key)
    if found is None:
        found = graph.traced[key] = _any_walk(state, graph, corp.sym)
    return bool(found)


def _any_walk(state: GameState, graph: Track, corp: str, pruned: bool = True) -> bool:
    """Whether `all_walks(state, graph, corp, 2)` finds a walk: the same walks, looked
    for from the company's stations first and no further than the first one.

    `pruned`: from the stops a train of the company reaches (`track.reachable` on the
    same graph) alone. A walk through a station is walked back from the station by
    the tracing, which moves as a walk does (across an edge at a side; on through a
    node but an off-board or a blocked city, which it reaches all the same; not back
    the way it came), so every stop of it is reached: a walk from any other stop has
    no station. Where no train runs, this spares the walks from every stop of the map
    (tests/engine/test_speed_mechanisms.py compares it with the whole map)."""
    from engine.track import reachable, token_nodes

    tokens = set(token_nodes(state, corp))
    starts = [n for n in graph.nodes() if n.is_stop]
    if pruned:
        reached, _ = reachable(state, graph, corp)
        starts = [n for n in starts if n in reached]
    starts.sort(key=lambda n: n not in tokens)  # stable: the stations, then the rest
    return any(tokens.intersection(walk.stops)
               for node in starts for walk in walks_from(state, graph, corp, node, 2))


def matches(walk: Walk, hexes: tuple[str, ...]) -> bool:
    """A walk fits a declared hex list when the list is the walk's hexes in order, or
    exactly the hexes of its stops in order (read either way round)."""
    stops = tuple(n.hex for n in walk.stops)
    for target in (hexes, tuple(reversed(hexes))):
        if target == walk.hexes or target == stops:
            return True
    return False


def check_run(rules: Rules, state: GameState, corp: Corporation, action: RunRoutes) -> Run:
    """Validate declared routes (`run auto` is the optimizer's: `optimizer.run_for`)."""
    assert not action.auto, "run auto: engine.optimizer.run_for"
    graph = route_track(rules, state, corp)
    declared = [route.train for route in action.routes]
    sets = rules.train_sets(state, corp)
    # The way of running that serves the most of the declared routes, in order (the
    # first route it cannot serve is then refused by name).
    trains = max(sets, key=lambda s: _covered(s, declared))
    used_trains: list[Train] = []
    candidates: list[list[tuple[Walk, int]]] = []
    for route in action.routes:
        train = next((t for t in trains if t.name == route.train and t not in used_trains),
                     None)
        if train is None:  # (the refusal's words made only when refused: runs are many)
            raise GameError(f"{corp.sym} has no (further) {route.train}-train; its "
                            f"trains: {', '.join(t.name for t in corp.trains) or 'none'}")
        used_trains.append(train)
        area = twice_in_an_area(state, route.hexes)
        if area is not None:
            raise GameError(rules.cite("area_once", train=route.train,
                                       area=area_name(state, area)))
        dist, towns_free = train_distance(state, train), free_towns(state, train)
        walks = walks_matching(state, graph, corp.sym, route.hexes, dist, towns_free)
        if not walks:
            raise GameError(_why_no_route(state, corp, route, dist, towns_free,
                                          rules.word("station")))
        refusals = [rules.why_not_walk(state, corp, train, w) for w in walks]
        if all(refusals):
            raise GameError(str(refusals[0]))
        walks = [w for w, why in zip(walks, refusals, strict=True) if why is None]
        candidates.append([(w, walk_revenue(rules, state, corp, train, w)) for w in walks])
    best: tuple[int, tuple[tuple[Walk, int], ...]] | None = None
    for combo in itertools.product(*candidates):
        segs: set[int] = set()
        ok = True
        for walk, _ in combo:
            if segs & walk.segments:
                ok = False
                break
            segs |= walk.segments
        if not ok:
            continue
        total = sum(r for _, r in combo)
        if best is None or total > best[0]:
            best = (total, combo)
    if best is None:
        raise GameError(rules.cite("separate_tracks"))
    runs = tuple(TrainRun(t.name, w, r) for t, (w, r) in zip(used_trains, best[1], strict=True))
    revenue = rules.run_revenue(state, corp, runs)
    return Run(runs, revenue)


def _covered(trains: list[Train], names: list[str]) -> int:
    """How many of the declared routes, in order, have a train of their own."""
    left = [t.name for t in trains]
    for i, name in enumerate(names):
        if name not in left:
            return i
        left.remove(name)
    return len(names)


def _why_no_route(state: GameState, corp: Corporation, route: Route, dist: int,
                  towns_free: bool, station: str) -> str:
    listed = " ".join(route.hexes)
    for hex_id in route.hexes:
        if hex_id not in state.title.hexes:
            return f"{hex_id} is not on the map"
    return (f"no legal route for the {route.train}-train along {listed}: the hexes must be "
            f"joined by track in that order, with at most {dist} stops"
            f"{' (towns not counted)' if towns_free else ''}, through a "
            f"{corp.sym} {station}, without repeating track (not even where paths meet at a hex "
            "edge) or stops, or running through an off-board area or a blocked city")


def best_run(rules: Rules, state: GameState, corp: Corporation, graph: Track | None = None
             ) -> Run:
    """The set of routes, one per train, with the greatest total revenue.

    Exhaustive over every train's legal walks with disjoint track; the fast
    branch-and-bound optimizer replaces this search (same answers).
    """
    graph = graph or route_track(rules, state, corp)
    trains = list(corp.trains)
    if not trains:
        return Run((), 0)
    options: list[list[tuple[Walk, int] | None]] = []
    for train in trains:
        walks = all_walks(state, graph, corp.sym, train_distance(state, train),
                          free_towns(state, train))
        scored = sorted(((w, walk_revenue(rules, state, corp, train, w)) for w in walks),
                        key=lambda x: -x[1])
        options.append([*scored, None])
    best: tuple[int, list[tuple[Train, Walk, int]]] = (0, [])

    def search(i: int, segs: frozenset[int], chosen: list[tuple[Train, Walk, int]],
               total: int) -> None:
        nonlocal best
        if i == len(trains):
            runs = tuple(TrainRun(t.name, w, r) for t, w, r in chosen)
            value = rules.run_revenue(state, corp, runs)
            if value > best[0]:
                best = (value, list(chosen))
            return
        for option in options[i]:
            if option is None:
                search(i + 1, segs, chosen, total)
                continue
            walk, rev = option
            if segs & walk.segments:
                continue
            search(i + 1, segs | walk.segments, [*chosen, (trains[i], walk, rev)], total + rev)

    search(0, frozenset(), [], 0)
    runs = tuple(TrainRun(t.name, w, r) for t, w, r in best[1])
    return Run(runs, rules.run_revenue(state, corp, runs))

