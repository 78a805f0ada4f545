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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.actions import Route, RunRoutes
from engine.optimizer.clock import Clock, OutOfTime
from engine.optimizer.growing import Chain, grow_routes
from engine.optimizer.network import Link, Network, compress
from engine.optimizer.search import WARM_START, Group, Pick, Search, routes_sum
from engine.optimizer.tables import UNBOUNDED, Kind
from engine.routes import check_run, free_towns, stop_value, train_distance
from engine.state import Corporation, GameState, Train
from engine.track import Track
from engine.walks import Run, TrainRun, Walk

if TYPE_CHECKING:
    from engine.rules import Rules

# The names a caller takes from the package (those of the one module it was), and the
# steps' classes the search is built of; each step's other names live in its module.
__all__ = [
    "DEFAULT_BUDGET", "DEFAULT_MAX_ROUTES", "UNBOUNDED", "WARM_START",
    "Chain", "Clock", "Group", "Kind", "Link", "Network", "Optimum", "OutOfTime", "Pick",
    "Search", "compress", "grow_routes", "optimize", "routes_sum", "run_for",
]

DEFAULT_BUDGET = 5.0  # seconds: a player waits for `run auto` while this runs
DEFAULT_MAX_ROUTES = 200_000  # routes kept over all train types (memory, ~100 MB)


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
    `engine.game.better_run`): every bound bites from the start. The run returned then earns
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
    clock = Clock(None if budget is None else time.thread_time() + budget, steps)
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
    kinds = [Kind(net, graph.pieces, train_distance(state, members[0]),
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
    search: Search | None = None
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
                raise OutOfTime
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
            groups.append(Group(name, tuple(members), kinds[g].table(max(floor, -1), limit)))
        proven = all(group.table.complete for group in groups)
        search = Search(groups, clock)
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
        value, picked = search.warm_start(routes_sum if summing else run_value)
        if value > best_value:
            best_value, best_runs = value, runs_of(picked)
        bar = max(bar, best_value)
        # The last trains together, from the last train alone up to all but the first.
        suffix = [UNBOUNDED] * n + [0]
        for k in range(n - 1, 0, -1):
            value, _picks, _done = search.solve(k, suffix, None, None, (-1, ()))
            if search.timed_out:
                raise OutOfTime
            # Exact for the listed routes, which are all a better run can use.
            suffix[k] = max(value, 0)

        value, picked, done = search.solve(0, suffix, None if summing else run_value,
                                           run_bound, (bar, ()))
        proven = proven and done
        if value > best_value and picked:  # (none: nothing beat the bar)
            best_value, best_runs = value, runs_of(picked)
    except OutOfTime:
        proven = False
    run = Run(best_runs, rules.run_revenue(state, corp, best_runs))
    listed = 0 if search is None else sum(len(g.table.revenue) for g in search.groups)
    return Optimum(run, proven, clock.count, time.perf_counter() - started, listed)
