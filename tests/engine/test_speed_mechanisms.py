"""The shortcuts that make the engine fast give the same answers as the plain way.

Speed itself is measured by `moderator bench replay`, never here. What is tested: the
copy of a game (`copy_records`) is a full, independent copy; a refused action leaves no
trace, whether the game is restored from a copy (`apply`) or by replaying its log
(`reading_log`); the kept track graphs and tracings equal fresh ones; and the tile
lays `legal_actions` judges without trying each one equal trying every candidate on a
copy of the game (the module's own definition of legal).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import board, legal, track
from engine.actions import Action, LayTile, Par
from engine.errors import GameError
from engine.game import Game, Move
from engine.records import import_record
from engine.state import PlacedTile, copy_records
from engine.title import Shared

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


@pytest.fixture(scope="module")
def moves_7818() -> tuple[Game, list[Move]]:
    path = FIXTURES / "18TN" / "7818.json"
    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    game = import_record(json.loads(path.read_text())).game
    return game, list(game.log)


def structure(obj: Any, seen: dict[int, int] | None = None) -> Any:
    """Everything in `obj` as nested tuples: equal structures mean equal states, object
    sharing inside included (an object met again is named by when it was first met);
    title data by value, the rules by their class."""
    seen = {} if seen is None else seen
    if isinstance(obj, (int, str, float, bool, type(None))):
        return obj
    params = getattr(type(obj), "__dataclass_params__", None)
    if isinstance(obj, Shared) or (params is not None and params.frozen):
        return obj  # immutable: equal by value
    if id(obj) in seen:
        return ("again", seen[id(obj)])
    seen[id(obj)] = len(seen)
    if isinstance(obj, dict):
        return (type(obj).__name__, tuple((k, structure(v, seen)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(structure(v, seen) for v in obj))
    if isinstance(obj, (set, frozenset)):
        return (type(obj).__name__, frozenset(obj))
    if type(obj).__module__ == "engine.rules" or type(obj).__module__.startswith(
            "engine.titles"):
        return ("rules", type(obj).__name__)  # one per game, never changed
    return (type(obj).__name__, tuple((k, structure(v, seen)) for k, v in vars(obj).items()))


def mutable_ids(obj: Any, out: set[int] | None = None) -> set[int]:
    """The ids of every mutable object reachable from `obj` (rules aside)."""
    out = set() if out is None else out
    params = getattr(type(obj), "__dataclass_params__", None)
    if isinstance(obj, (int, str, float, bool, type(None), frozenset, Shared)) or (
            params is not None and params.frozen) or id(obj) in out:
        return out
    if type(obj).__module__ == "engine.rules" or type(obj).__module__.startswith(
            "engine.titles"):
        return out
    if not isinstance(obj, tuple):
        out.add(id(obj))
    if isinstance(obj, dict):
        for value in obj.values():
            mutable_ids(value, out)
    elif isinstance(obj, (list, tuple, set)):
        for value in obj:
            mutable_ids(value, out)
    elif hasattr(obj, "__dict__"):
        for value in vars(obj).values():
            mutable_ids(value, out)
    return out


def position(game: Game) -> Any:
    return structure((game.state, game.round, game.log, game.effective))


def refused_candidates(game: Game, limit: int) -> list[Action]:
    """Up to `limit` candidate actions the game refuses now (tried on copies)."""
    turn = game.turn()
    assert turn is not None
    out = []
    for action in legal.candidates(game):
        if not game.clone().attempt(turn.seat, action):
            out.append(action)
            if len(out) >= limit:
                break
    return out


def test_a_copy_of_the_game_is_equal_and_shares_nothing_that_changes(
        moves_7818: tuple[Game, list[Move]]) -> None:
    final, moves = moves_7818
    for stop in range(0, len(moves) + 1, 48):
        game = Game(final.setup, moves[:stop])
        copy = game.clone()
        assert position(copy) == position(game)
        assert copy.round.state is copy.state and copy.rules is game.rules
        assert not mutable_ids((game.state, game.round)) & mutable_ids(
            (copy.state, copy.round))
        # Changing the copy leaves the original as it was.
        before = position(game)
        next(iter(copy.state.players.values())).cash += 1000
        copy.state.board.tiles["Z99"] = PlacedTile("9", 0)
        assert position(game) == before


def test_copy_records_keeps_an_object_listed_twice_as_one() -> None:
    shared: list[int] = [1]
    first, second = copy_records((shared, shared))
    assert first is second and first is not shared and first == shared


@pytest.mark.parametrize("reading", [False, True], ids=["apply", "reading_log"])
def test_a_refused_action_leaves_no_trace(moves_7818: tuple[Game, list[Move]],
                                          reading: bool) -> None:
    """Over the whole record, a few refused candidates before every 7th move: the game
    stays exactly as it was, and the recorded move still applies afterwards. While a log
    is read the game is put back by replaying from a checkpoint of up to
    CHECKPOINT_MOVES moves before, so every distance from it is met."""
    final, moves = moves_7818
    game = Game(final.setup)
    with game.reading_log() if reading else _no_context():
        for number, move in enumerate(moves):
            if number % 7 == 3 and game.turn() is not None:
                before = position(game)
                for action in [*refused_candidates(game, 3), Par("NOPE", 1)]:
                    with pytest.raises(GameError):
                        game.apply(game.turn().seat, action)  # type: ignore[union-attr]
                    assert position(game) == before, action
            game.apply(move.seat, move.action)
    assert position(game) == position(Game(final.setup, moves))


def test_a_fork_is_clone_then_apply_and_leaves_the_game_as_it_was(
        moves_7818: tuple[Game, list[Move]]) -> None:
    """`Game.fork` (one copy where `clone` and `apply` take two): over a stretch of the
    record, the fork of each recorded move is the game `clone` and `apply` give, what
    happened is what `apply` says, and the forked game stays exactly at its position
    -- for refused candidates too, and for the next move applied to it afterwards."""
    final, moves = moves_7818
    game = Game(final.setup, moves[:290])
    for move in moves[290:330]:
        before = position(game)
        for action in refused_candidates(game, 2):
            with pytest.raises(GameError):
                game.fork(move.seat, action)
            assert position(game) == before, action
        plain = game.clone()
        said = plain.apply(move.seat, move.action)
        forked, forked_said = game.fork(move.seat, move.action)
        assert forked_said == said
        assert position(forked) == position(plain)
        assert position(game) == before  # the forked game has not moved
        game.apply(move.seat, move.action)  # and goes on as usual
        assert position(game) == position(plain)
    assert position(game) == position(Game(final.setup, moves[:330]))


def test_an_engine_fault_while_reading_a_log_is_put_back(
        moves_7818: tuple[Game, list[Move]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Not only refusals: an exception from deep inside a half-done action too."""
    final, moves = moves_7818
    game = Game(final.setup, moves[:200])
    before = position(game)

    rnd_type = type(game.round)
    process = rnd_type.process
    faults = []

    def fault(self: Any, seat: str, action: Action) -> None:
        if action == moves[201].action and not faults:
            faults.append(action)
            process(self, seat, action)  # half done, then the fault
            raise RuntimeError("fault")
        process(self, seat, action)

    with game.reading_log():
        game.apply(moves[200].seat, moves[200].action)
        monkeypatch.setattr(rnd_type, "process", fault)
        with pytest.raises(RuntimeError):
            game.apply(moves[201].seat, moves[201].action)
        assert faults
        assert position(game) == position(Game(final.setup, moves[:201]))
        game.apply(moves[201].seat, moves[201].action)
    assert position(game) == position(Game(final.setup, moves[:202]))
    assert before != position(game)


class _no_context:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def plain_graph(state: Any) -> track.Track:
    """The track graph built path by path, the way it was before any graph was kept."""
    from engine.geometry import neighbour, opposite

    out = track.Track()
    title = state.title
    for hex_id in title.hexes:
        tile, rotation = track.tile_on(state, hex_id)
        if tile is None:
            continue
        for path in tile.paths:
            out.add(hex_id, track.endpoint(hex_id, path.a, rotation),
                    track.endpoint(hex_id, path.b, rotation), path.terminal)
    for point in list(out.at):
        if isinstance(point, track.Side):
            other = track.Side(neighbour(title.grid, point.hex, point.edge),
                               opposite(point.edge))
            if other in out.at and point.edge not in title.hexes[point.hex].borders:
                out.across[point] = other
    for point, other in out.across.items():  # one piece per edge crossed (4.2.3(b))
        if point not in out.crossing:
            out.crossing[point] = out.crossing[other] = out.pieces
    return out


def same_graph(a: track.Track, b: track.Track) -> bool:
    return (a.segments == b.segments and list(a.at.items()) == list(b.at.items())
            and a.across == b.across and a.crossing == b.crossing)


def test_kept_track_graphs_and_tracings_equal_fresh_ones(
        moves_7818: tuple[Game, list[Move]]) -> None:
    """At every position of the record, and after random lays on a copy of the last
    one: the kept graph equals one built path by path, and the kept tracing of every
    company equals a fresh one."""
    final, moves = moves_7818
    game = Game(final.setup)
    states = []
    for move in moves:
        game.apply(move.seat, move.action)
        states.append(game.state)
        game = game.clone()
    rng = random.Random(7818)
    dense = copy_records(states[-1])
    hexes = sorted(h for h, spec in dense.title.hexes.items() if spec.buildable)
    for _ in range(60):
        hex_id, name = rng.choice(hexes), rng.choice(sorted(dense.title.tiles))
        rotations = board.legal_rotations(final.rules, dense, hex_id, name)
        if rotations:
            dense.board.tiles[hex_id] = PlacedTile(name, rng.choice(rotations))
            states.append(copy_records(dense))
    for state in states[::3]:
        graph, plain = track.build_track(state), plain_graph(state)
        assert same_graph(graph, plain)
        assert track.build_track(state) is graph
        for sym in state.corporations:
            assert track.reachable(state, graph, sym) == track.trace_reach(state, plain, sym)


def try_every_candidate(game: Game) -> list[Action]:
    """legal_actions as defined: every candidate tried on its own copy of the game."""
    turn = game.turn()
    if turn is None:
        return []
    return [a for a in legal.candidates(game, prune=False)
            if game.clone().attempt(turn.seat, a)]


def check_lays_match(game: Game) -> None:
    assert legal.legal_actions(game) == try_every_candidate(game)


def test_legal_tile_lays_equal_trying_every_candidate_at_track_steps(
        moves_7818: tuple[Game, list[Move]]) -> None:
    """Every 8th track step of the record (the full sweep is the slow test below)."""
    final, moves = moves_7818
    game = Game(final.setup)
    steps = 0
    for move in moves:
        turn = game.turn()
        if turn is not None and turn.step == "track":
            steps += 1
            if steps % 8 == 0:
                check_lays_match(game)
        game.apply(move.seat, move.action)
    assert steps > 80


@pytest.mark.slow
def test_legal_actions_equal_trying_every_candidate_at_every_position(
        moves_7818: tuple[Game, list[Move]]) -> None:
    final, moves = moves_7818
    game = Game(final.setup)
    for move in moves:
        check_lays_match(game)
        game.apply(move.seat, move.action)


def test_lays_of_a_kind_the_round_refuses_are_all_refused(
        moves_7818: tuple[Game, list[Move]]) -> None:
    """After its one upgrade a company may lay nothing more (18TN 4.2.1): no lay is
    listed, though check_lay alone accepts many."""
    final, moves = moves_7818
    game = Game(final.setup)
    for move in moves:
        if isinstance(move.action, LayTile) and board.lay_kind(
                game.rules, game.state, move.action.hex, move.action.tile) == "upgrade":
            game.apply(move.seat, move.action)
            turn = game.turn()
            if turn is not None and turn.step == "track":
                assert not [a for a in legal.legal_actions(game) if isinstance(a, LayTile)]
                assert try_every_candidate(game) == legal.legal_actions(game)
                return
            continue
        game.apply(move.seat, move.action)
    pytest.fail("no upgrade leaves the company at its track step in 7818")


def test_structure_tells_states_apart() -> None:
    """The helper the tests above rely on sees a one-dollar difference."""

    @dataclasses.dataclass
    class Box:
        cash: int

    assert structure(Box(1)) != structure(Box(2))
    assert structure([Box(1)]) == structure([Box(1)])


def plain_home_choices(game: Game, sym: str, graph: track.Track) -> list[str]:
    """1861 9.3 as written: a free city of a hex with no
    station, not kept for the national, that this company may not walk from to any
    other stop (asked for the company itself); `graph`: traced afresh."""
    from engine import routes
    from engine.national import RESERVE
    from engine.track import Node

    state = game.state
    if any(sym in c for cities in state.board.tokens.values() for c in cities.values()):
        return []
    nodes = set(graph.nodes())
    out = []
    for hex_id in state.title.hexes:
        cities = board.city_count(state, hex_id)
        if not cities or any(state.board.tokens.get(hex_id, {}).values()) or \
                RESERVE + hex_id in state.corporations["RSR"].markers:
            continue
        for city in range(cities):
            start = Node(hex_id, "c", city)
            if board.free_slots(state, hex_id, city) > board.reserved_slots(
                    state, hex_id, city, sym) and not (
                    start in nodes
                    and routes.walks_from(state, graph, sym, start, 2)):
                out.append(hex_id)
                break
    return out


def test_1861_home_choices_kept_on_the_graph_equal_the_rule_asked_afresh() -> None:
    """Whether a city is joined to another stop is kept on the shared graph, once for
    every company (`t1861_auctions._joined_to_a_stop`): at the first position of each stock
    round of the 1861 record, and wherever a home station is pending, every public
    company gets the hexes the rule gives it on a fresh graph, and one not yet started
    may start (phase 4 on) exactly when there is one."""
    from engine.rounds.auction_stock import AuctionStockRound

    path = FIXTURES / "1861" / "167259.json"
    final = import_record(json.loads(path.read_text())).game
    game = Game(final.setup)
    seen_rounds: set[str] = set()
    choosing = 0
    with game.reading_log():  # (no search for better runs: the rounds are the point)
        for move in final.log:
            rnd = game.round
            if isinstance(rnd, AuctionStockRound) and (
                    rnd.name not in seen_rounds or rnd.home_pending is not None):
                seen_rounds.add(rnd.name)
                fresh = track.trace_map(game.state)
                for corp in game.state.corporations.values():
                    if corp.spec.kind != "major" or corp.closed:
                        continue
                    plain = plain_home_choices(game, corp.sym, fresh)
                    assert game.rules.home_choices(game.state, corp.sym) == plain
                    if corp.par_price is None and \
                            int(game.rules.phase(game.state).name) >= 4:
                        assert game.rules.may_par(game.state, corp) == bool(plain)
                    choosing += bool(plain)
            game.apply(move.seat, move.action)
    assert choosing > 10 and len(seen_rounds) > 5


def test_1861_proposals_and_bids_judged_on_sight_equal_trying_them() -> None:
    """`legal.Judge.proposal` and `auction_bid` judge a minor's auction proposal
    and a bid in an auction (9.2 to 9.4) without trying them on a copy: at every
    position of the 1861 record's stock rounds, their answer for each equals trying
    it on a copy, the list of legal actions equals trying every candidate, and both
    answers occur."""
    from engine.actions import Bid, StartAuction
    from engine.rounds.auction_stock import AuctionStockRound

    path = FIXTURES / "1861" / "167259.json"
    final = import_record(json.loads(path.read_text())).game
    game = Game(final.setup)
    met = {True: 0, False: 0}
    bids = {True: 0, False: 0}
    positions = 0
    with game.reading_log():  # (no search for better runs: the stock rounds are the point)
        for move in final.log:
            turn = game.turn()
            if turn is not None and isinstance(game.round, AuctionStockRound):
                positions += 1
                judge = legal.Judge(game, turn.seat)
                for action in legal.candidates(game, prune=False):
                    if isinstance(action, StartAuction):
                        accepted = judge.proposal(action)
                        assert accepted is not None, action
                        assert accepted == game.clone().attempt(turn.seat, action), action
                        met[accepted] += 1
                    elif isinstance(action, Bid) and (game.round.lot is not None or
                                                      game.round.opening() is not None):
                        accepted = judge.auction_bid(action)
                        if accepted is not None:
                            assert accepted == game.clone().attempt(turn.seat, action), \
                                action
                            bids[accepted] += 1
                assert legal.legal_actions(game) == try_every_candidate(game), move
            game.apply(move.seat, move.action)
    assert positions > 100 and met[False] > 100 and met[True] > 50, (positions, met)
    assert bids[False] > 10 and bids[True] > 10, bids


@pytest.mark.parametrize("record", ["18TN/7818.json", "1850/115810.json",
                                    "1861/167259.json", "1825/1825_game_end_bank.json"])
def test_whether_a_train_could_run_is_looked_for_among_the_stops_reached(
        record: str) -> None:
    """`routes.has_route` looks for a walk through a station from the stops a train of
    the company reaches alone: the same answer as from every stop of the map, for
    every company with a station, at every map and placing of stations of the record."""
    from engine import routes

    game = import_record(json.loads((FIXTURES / record).read_text())).game
    live = Game(game.setup)
    seen: set[Any] = set()
    answers: dict[bool, int] = {True: 0, False: 0}
    with live.reading_log():
        for move in game.log:
            state = live.state
            for corp in state.corporations.values():
                if not track.token_nodes(state, corp.sym):
                    continue
                graph = routes.route_track(live.rules, state, corp)
                key = (id(graph), corp.sym, track.tokens_key(state))
                if key in seen:
                    continue
                seen.add(key)
                pruned = routes._any_walk(state, graph, corp.sym)
                assert pruned == routes._any_walk(state, graph, corp.sym, pruned=False), (
                    f"{record} move {len(live.log)}: {corp.sym}")
                answers[pruned] += 1
            live.apply(move.seat, move.action)
    assert answers[True] > 0
    FOUND[record] = answers[False]


FOUND: dict[str, int] = {}  # record -> how many companies with a station had no run


def test_a_company_with_stations_and_no_run_is_among_those_compared() -> None:
    test_whether_a_train_could_run_is_looked_for_among_the_stops_reached("1861/167259.json")
    assert FOUND["1861/167259.json"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("record", ["18TN/7818.json", "1850/115810.json",
                                    "1861/167259.json", "1825/1825_game_end_bank.json"])
def test_purchases_and_stations_listed_equal_trying_each_at_every_position(
        record: str) -> None:
    """The purchases `legal_actions` judges by a family or on the copy with the train
    step entered, and the stations it judges by the round's checks, are those trying
    each on its own copy accepts, at every position of an operating round of the record
    (the train step entered at once, after a run, or passing the run and dividend of a
    company without trains)."""
    from engine.actions import BuyPrivate, BuyTrain, PlaceToken
    from engine.rounds.operating import OperatingRound

    game = import_record(json.loads((FIXTURES / record).read_text())).game
    live = Game(game.setup)
    met = {True: 0, False: 0}
    with live.reading_log():
        for move in game.log:
            turn = live.turn()
            if turn is not None and isinstance(live.round, OperatingRound):
                kinds = (BuyTrain, BuyPrivate, PlaceToken)
                listed = [a for a in legal.legal_actions(live) if isinstance(a, kinds)]
                tried = [a for a in legal.candidates(live) if isinstance(a, kinds)
                         and live.clone().attempt(turn.seat, a)]
                assert listed == tried, f"{record} move {len(live.log)}"
                for a in legal.candidates(live):
                    if isinstance(a, kinds):
                        met[a in listed] += 1
            live.apply(move.seat, move.action)
    assert met[True] and met[False]
