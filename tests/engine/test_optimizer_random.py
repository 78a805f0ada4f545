"""The route optimizer against brute force on random boards (hypothesis).

A board is a position of the recorded game 7818 (a company about to run) changed at
random: legal tiles of the 18TN title laid anywhere on it (the upgrade rules and map
edges hold; the supply and connection to a station are not asked), stations added
(the company's, or other companies' that may block it), a random phase (so off-board
values), a random set of trains, and perhaps the Civil War. The oracle tries every
assignment of legal walks (`engine.routes.all_walks`) to the trains; boards where
that would take too long are skipped.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import board, routes
from engine.actions import RunRoutes
from engine.game import Game
from engine.optimizer import optimize
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from engine.rules import Rules
from engine.state import Corporation, GameState, PlacedTile, Train
from engine.titles.t18tn import CIVIL_WAR, Rules18TN
from engine.track import tile_on
from engine.walks import TrainRun, Walk

RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "18TN" / "7818.json"
# Runs of 7818 from the first trains to the last operating round.
MOVES = (131, 164, 264, 289, 334, 382, 452, 473, 540, 565)
ORACLE_LIMIT = 20_000  # assignments the brute force may try


@functools.lru_cache(maxsize=1)
def bases() -> tuple[tuple[Rules, GameState, str], ...]:
    """The positions just before the runs at MOVES (copies)."""
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    replay = import_record(json.loads(RECORD.read_text()))
    game = Game(replay.game.setup)
    out = []
    for number, move in enumerate(replay.game.log[: max(MOVES) + 1]):
        if number in MOVES:
            rnd = game.round
            assert isinstance(rnd, OperatingRound) and isinstance(move.action, RunRoutes)
            out.append((game.rules, copy.deepcopy(game.state), rnd.company().sym))
        game.apply(move.seat, move.action)
    return tuple(out)


@dataclass(frozen=True)
class Board:
    """How to change a base position (indices are taken modulo what they choose from)."""

    base: int
    phase: int
    lays: tuple[tuple[int, int, int], ...]  # hex, tile, rotation
    stations: tuple[tuple[int, bool, int], ...]  # city, the company's?, other company
    trains: tuple[str, ...]
    war: bool


boards = st.builds(
    Board,
    base=st.integers(0, len(MOVES) - 1),
    phase=st.integers(0, 8),
    lays=st.lists(st.tuples(st.integers(0, 999), st.integers(0, 999), st.integers(0, 5)),
                  max_size=8).map(tuple),
    stations=st.lists(st.tuples(st.integers(0, 999), st.booleans(), st.integers(0, 9)),
                      max_size=4).map(tuple),
    trains=st.lists(st.sampled_from(["2", "3", "4", "5", "6", "8"]), min_size=1,
                    max_size=3).map(tuple),
    war=st.booleans(),
)


def build(spec: Board) -> tuple[Rules, GameState, Corporation]:
    rules, base, sym = bases()[spec.base % len(bases())]
    state = copy.deepcopy(base)
    title = state.title
    state.phase_index = spec.phase % len(title.phases)
    hexes = sorted(h for h, s in title.hexes.items() if s.buildable)
    names = sorted(title.tiles)
    for h, t, r in spec.lays:
        hex_id, name = hexes[h % len(hexes)], names[t % len(names)]
        rotations = board.legal_rotations(rules, state, hex_id, name)
        if rotations:
            state.board.tiles[hex_id] = PlacedTile(name, rotations[r % len(rotations)])
    cities = [(h, i, c.slots) for h in sorted(title.hexes)
              for tile in [tile_on(state, h)[0]] if tile is not None
              for i, c in enumerate(tile.cities)]
    others = sorted(c for c in state.corporations if c != sym)
    for c, mine, other in spec.stations:
        hex_id, index, slots = cities[c % len(cities)]
        tokens = state.board.tokens.setdefault(hex_id, {}).setdefault(index, [])
        who = sym if mine else others[other % len(others)]
        if len(tokens) < slots and who not in tokens:
            tokens.append(who)
    corp = state.corporations[sym]
    corp.trains = [Train(name, f"{name}-r{i}") for i, name in enumerate(spec.trains)]
    if spec.war:
        corp.markers.add(CIVIL_WAR)
    else:
        corp.markers.discard(CIVIL_WAR)
    return rules, state, corp


def brute_force(rules: Rules, state: GameState, corp: Corporation) -> int | None:
    """The best run by trying every assignment of walks (None: too many to try)."""
    graph = routes.route_track(rules, state)
    options: list[list[tuple[Walk, int] | None]] = []
    for train in corp.trains:
        walks = routes.all_walks(state, graph, corp.sym, routes.train_distance(state, train))
        options.append([*((w, routes.walk_revenue(rules, state, corp, train, w))
                          for w in walks), None])
    if functools.reduce(lambda a, b: a * len(b), options, 1) > ORACLE_LIMIT:
        return None
    best = rules.run_revenue(state, corp, ())
    for combo in itertools.product(*options):
        chosen = [(t, o) for t, o in zip(corp.trains, combo, strict=True) if o is not None]
        segments = [o[0].segments for _, o in chosen]
        if sum(map(len, segments)) != len(frozenset().union(*segments)):
            continue
        runs = tuple(TrainRun(t.name, w, r) for t, (w, r) in chosen)
        best = max(best, rules.run_revenue(state, corp, runs))
    return best


def check(rules: Rules, state: GameState, corp: Corporation, total: int) -> None:
    """The engine's own route check accepts the run and values it the same."""
    found = optimize(rules, state, corp, budget=None)
    assert found.total == total
    if found.run.runs:
        assert routes.check_run(rules, state, corp, found.action()).revenue == total


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(boards)
def test_the_optimum_equals_brute_force(spec: Board) -> None:
    rules, state, corp = build(spec)
    want = brute_force(rules, state, corp)
    assume(want is not None)
    assert want is not None
    found = optimize(rules, state, corp, budget=None)
    assert found.proven
    assert found.total == want
    if found.run.runs:
        assert routes.check_run(rules, state, corp, found.action()).revenue == want


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(boards, st.integers(1, 30))
def test_few_routes_in_memory_never_give_a_wrong_proof(spec: Board, max_routes: int) -> None:
    """With room for only a few routes per train type the optimizer drops routes: its
    run is still legal, never above the optimum, and proven only if it is the optimum."""
    rules, state, corp = build(spec)
    want = brute_force(rules, state, corp)
    assume(want is not None)
    assert want is not None
    found = optimize(rules, state, corp, budget=None, max_routes=max_routes)
    assert found.total <= want
    assert not found.proven or found.total == want
    if found.run.runs:
        assert routes.check_run(rules, state, corp, found.action()).revenue == found.total


class RouteBonus(Rules18TN):
    """A route hook as 1851's ($10 a stop on a route joining two off-boards) that also
    doubles a 2-train (as 1861's 2+2), declaring no bound."""

    def route_revenue(self, state: GameState, corp: Corporation, train: Train,
                      walk: Walk, values: list[int]) -> int:
        offboards = sum(1 for n in walk.stops if n.kind == "o")
        total = sum(values) + (10 * len(walk.stops) if offboards >= 2 else 0)
        return 2 * total if train.name == "2" else total


class RouteBonusBounded(RouteBonus):
    def route_revenue_bound(self, state: GameState, corp: Corporation, train: Train,
                            values_bound: int) -> int:
        total = values_bound + 10 * routes.train_distance(state, train)
        return 2 * total if train.name == "2" else total


class RunBonus(Rules18TN):
    """A run hook that adds $25 when two or more trains run (no title has it), on top
    of the Civil War, declaring no bound."""

    def run_revenue(self, state: GameState, corp: Corporation,
                    runs: tuple[TrainRun, ...]) -> int:
        return super().run_revenue(state, corp, runs) + (25 if len(runs) >= 2 else 0)


class RunBonusBounded(RunBonus):
    def run_revenue_bound(self, state: GameState, corp: Corporation, routes_bound: int
                          ) -> int:
        return routes_bound + 25


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(boards, st.sampled_from([RouteBonus, RouteBonusBounded, RunBonus, RunBonusBounded]))
def test_title_hooks_stay_exact(spec: Board, hooks: type[Rules18TN]) -> None:
    """Bonuses by `route_revenue` and `run_revenue`, with and without a declared
    bound: the optimum is still the brute force's."""
    base, state, corp = build(spec)
    rules = hooks(base.title, base.options)
    want = brute_force(rules, state, corp)
    assume(want is not None)
    found = optimize(rules, state, corp, budget=None)
    assert found.proven
    assert found.total == want
    if found.run.runs:
        assert routes.check_run(rules, state, corp, found.action()).revenue == want


def dense(seed: int, trains: tuple[str, ...], lays: int = 60
          ) -> tuple[Rules, GameState, Corporation]:
    """The last position of 7818 with `lays` more tiles of each colour laid at random
    (denser than any real game), and more trains."""
    rules, base, sym = bases()[-1]
    state = copy.deepcopy(base)
    rng = random.Random(seed)
    hexes = sorted(h for h, s in state.title.hexes.items() if s.buildable)
    for colour in ("yellow", "green", "brown", "gray"):
        names = sorted(n for n, t in state.title.tiles.items() if t.color == colour)
        laid = 0
        for _ in range(20 * lays):
            if laid == lays:
                break
            hex_id, name = rng.choice(hexes), rng.choice(names)
            rotations = board.legal_rotations(rules, state, hex_id, name)
            if rotations:
                state.board.tiles[hex_id] = PlacedTile(name, rng.choice(rotations))
                laid += 1
    corp = state.corporations[sym]
    corp.trains = [Train(name, f"{name}-d{i}") for i, name in enumerate(trains)]
    return rules, state, corp


def test_out_of_time_gives_a_legal_run_not_proven() -> None:
    rules, state, corp = dense(1, ("8", "8", "8", "8"))
    # The budget is CPU time, and so is this bound: a loaded machine stretches the wall
    # clock (found.seconds) however soon the search stops.
    cpu = time.thread_time()
    found = optimize(rules, state, corp, budget=0.05)
    assert not found.proven
    assert time.thread_time() - cpu < 2
    assert found.total > 0
    assert routes.check_run(rules, state, corp, found.action()).revenue == found.total


def test_a_dense_board_with_two_long_trains_is_proven_quickly() -> None:
    """Thousands of routes per train: far beyond the exhaustive search, proven here."""
    rules, state, corp = dense(2, ("8", "6"))
    found = optimize(rules, state, corp, budget=30)
    assert found.proven
    assert found.routes_listed < 50_000
    check(rules, state, corp, found.total)


def test_a_step_bound_cuts_the_search_at_the_same_point_every_time() -> None:
    """`steps` (the bound of a declared run's check on the mail's path) gives the same
    run, unproven, however busy the machine: the clock's count, not its time."""
    rules, state, corp = dense(1, ("8", "8", "8", "8"))
    first = optimize(rules, state, corp, budget=None, steps=20_000)
    again = optimize(rules, state, corp, budget=None, steps=20_000)
    assert not first.proven
    assert (first.total, first.nodes, first.routes()) == \
        (again.total, again.nodes, again.routes())
    assert 20_000 <= first.nodes < 20_000 + 2 * 1024  # (looked at every 1024 steps)
    assert routes.check_run(rules, state, corp, first.action()).revenue == first.total
