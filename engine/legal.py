"""Every concrete action the acting player may take now.

`legal_actions(game)` lists candidate actions for the current turn (tile lays with
their rotations, token cities, purchases, bids, sales, ...) and keeps those the game
accepts when tried on a copy, so the list is exactly as strict as the rules. Reports
use the shorter `Game.legal()` texts; this list serves deadline defaults, tools and
tests that play games out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine import board, tiles, track, trains
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RedeemShares,
    RunRoutes,
    SellShares,
    UsePrivate,
)
from engine.errors import GameError
from engine.game import Game
from engine.geometry import neighbour, opposite
from engine.rounds.operating import STEPS, OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, TREASURY, Corporation, GameState
from engine.title import TileSpec


def legal_actions(game: Game) -> list[Action]:
    """The actions the acting player may take now (each one tried on a copy; tile lays
    as `_Lays` says)."""
    turn = game.turn()
    if turn is None:
        return []
    lays: _Lays | None = None
    out: list[Action] = []
    for action in _candidates(game):
        if isinstance(action, LayTile) and isinstance(game.round, OperatingRound):
            lays = lays or _Lays(game, turn.seat)
            if lays.accepts(action):
                out.append(action)
        elif game.clone().attempt(turn.seat, action):
            out.append(action)
    return out


def _candidates(game: Game) -> Iterator[Action]:
    rnd = game.round
    if isinstance(rnd, StockRound):
        yield from _stock_candidates(game, rnd)
    elif isinstance(rnd, OperatingRound):
        yield from _operating_candidates(game, rnd)


def _stock_candidates(game: Game, rnd: StockRound) -> Iterator[Action]:
    state = game.state
    s = rnd.s
    yield Pass()
    if s.proposal is not None:
        yield Accept()
        yield Decline()
        return
    if s.par_pending is not None:
        corp = state.corporation(s.par_pending.corporation)
        for value in game.rules.par_values(corp):
            yield Par(corp.sym, value)
        return
    if s.auction is not None:
        yield Bid(s.auction.high_bid + 5)
        return
    cheapest = rnd.cheapest()
    if cheapest is not None:
        yield BuyPrivate(cheapest.sym)
        for private in rnd.unsold_privates()[1:]:
            floor = max([private.spec.value, *s.bids.get(private.sym, {}).values()])
            yield Bid(floor + 5, private.sym)
        return
    seat = s.current
    yield Done()
    for corp in state.corporations.values():
        held = corp.percent_held_by(seat)
        for count in range(1, held // 10 + 1):
            yield SellShares(corp.sym, count)
        if corp.par_price is None:
            for value in game.rules.par_values(corp):
                yield Par(corp.sym, value)
        else:
            for source in (IPO, POOL, TREASURY):
                if corp.certificates_of(source):
                    yield BuyShares(corp.sym, 1, source)  # type: ignore[arg-type]


def _operating_candidates(game: Game, rnd: OperatingRound) -> Iterator[Action]:
    state = game.state
    if rnd.offer is not None:
        yield Accept()
        yield Decline()
        return
    if rnd.discards:
        corp = state.corporation(rnd.discards[0])
        for name in sorted({t.name for t in corp.trains}):
            yield DiscardTrain(name)
        return
    if rnd.current is None:
        return
    corp = rnd.company()
    t = rnd.current
    yield Done()
    yield Pass()
    if t.step <= STEPS.index("track"):
        yield from _tile_lays(game, corp)
        for private in state.privates.values():
            if private.owner == corp.sym and not private.closed:
                for lay in _tile_lays(game, corp, hexes=set(private.spec.hexes), any_hex=True):
                    yield UsePrivate(private.sym, lay)
    if t.step <= STEPS.index("token"):
        nodes, _ = track.reachable(state, track.build_track(state), corp.sym)
        for node in sorted(nodes, key=str):
            if node.kind == "c":
                yield PlaceToken(node.hex, node.index)
    if t.step <= STEPS.index("route") and corp.trains:
        yield RunRoutes(auto=True)
        yield RunRoutes()
    if t.revenue is not None and not t.dividend_done:
        yield Dividend("payout")
        yield Dividend("withhold")
        if game.rules.half_dividends:
            yield Dividend("half")
    offer = trains.next_offered(state)
    if offer is not None:
        yield BuyTrain(offer.name)
    for name in sorted({tr.name for tr in state.trains_pool}):
        yield BuyTrain(name, POOL)
    for other in state.corporations.values():
        if other.sym != corp.sym:
            for name in sorted({tr.name for tr in other.trains}):
                yield BuyTrain(name, other.sym, 1)
                yield BuyTrain(name, other.sym, state.title.train(name).price)
    for private in state.privates.values():
        if private.owner in state.players and not private.closed:
            value = private.spec.value
            for price in sorted({1, (value + 1) // 2, value, value * 3 // 2}):
                yield BuyPrivate(private.sym, private.owner, price)
    if "issue" in rnd.steps:
        for count in range(1, 6):
            yield IssueShares(count)
            yield RedeemShares(count)
    president = corp.president or ""
    for other in state.corporations.values():
        if other.percent_held_by(president):
            yield SellShares(other.sym, 1)


def _tile_lays(game: Game, corp: Corporation, hexes: set[str] | None = None,
               any_hex: bool = False) -> Iterator[LayTile]:
    """Tile lays near the company's track (a lay must connect to a station)."""
    state = game.state
    title = state.title
    reach: _Reach | None = None
    if hexes is None:
        graph = track.build_track(state)
        nodes, segments = track.reachable(state, graph, corp.sym)
        near = {n.hex for n in nodes} | {graph.segments[s].hex for s in segments}
        hexes = set(near)
        for hex_id in near:
            for edge in range(6):
                hexes.add(neighbour(title.grid, hex_id, edge))
        reach = _reach(state, corp.sym)
    colours = game.rules.phase(state).tiles
    for hex_id in sorted(h for h in hexes if h in title.hexes):
        if not title.hexes[hex_id].buildable and not any_hex:
            continue
        edges = None if reach is None else reach.entries(hex_id)
        if edges is not None and not edges:
            continue  # no train of the company can enter this hex: no lay can connect
        for name, tile in title.tiles.items():
            if tile.color not in colours:
                continue
            left = state.board.supply.get(name, 0)
            if left is not None and left <= 0:
                continue
            for rotation in _rotations(game, hex_id, name):
                if edges is None or not edges.isdisjoint(tiles.exits(tile, rotation)):
                    yield LayTile(name, hex_id, rotation)


_ROTATIONS: dict[tuple[int, str, str | None, int, str], tuple[object, list[int]]] = {}


def _rotations(game: Game, hex_id: str, name: str) -> list[int]:
    """`board.legal_rotations`, kept by what lies on the hex (it depends on nothing else:
    the tile, the hex, what it replaces, and the map around it)."""
    title = game.state.title
    placed = game.state.board.tiles.get(hex_id)
    key = (id(title), hex_id, placed.name if placed else None,
           placed.rotation if placed else 0, name)
    found = _ROTATIONS.get(key)
    if found is None or found[0] is not title:
        if len(_ROTATIONS) >= 50_000:
            _ROTATIONS.clear()
        found = _ROTATIONS[key] = (title, board.legal_rotations(game.rules, game.state,
                                                                 hex_id, name))
    return found[1]


# --- judging tile lays ----------------------------------------------------------------------
# Trying each of a hundred lays on its own copy of the game costs a copy and a tracing of
# the map per lay. A lay is refused for its own sake only by `board.check_lay` (the tile,
# the map, the supply, terrain money, the connection); everything else the round checks
# (whose turn, the step, lays left of the kind: yellow or upgrade) is the same for every
# lay of a kind. So each lay is checked with `check_lay`, the connection decided from one
# tracing of the map where it can be, and one lay of each kind tried on a copy of the game;
# should that one be refused, every lay of its kind is tried. The tests compare this with
# trying every candidate on a copy.


@dataclass
class _Reach:
    """One tracing of the company's trains (as `track.reachable`), kept as a tree: for
    each hex, the edges by which a train arriving at the neighbour's side would cross
    into it (`over`), and those reached by a path that never entered the hex (`clean`)."""

    over: dict[str, set[int]]
    clean: dict[str, set[int]]
    stations: set[str]  # hexes with a station of the company

    def entries(self, hex_id: str) -> set[int] | None:
        if hex_id in self.stations:
            return None  # a train starts there: any edge
        return self.over.get(hex_id, set())


def _walk(state: GameState, corp: str, avoid: str | None = None
          ) -> dict[tuple[int, track.Point], tuple[int, track.Point] | None]:
    """The walk of `track.trace_reach` (never into hex `avoid`): every step a train of
    `corp` can take, as (segment, point reached), with the step it came from."""
    graph = track.build_track(state)
    parent: dict[tuple[int, track.Point], tuple[int, track.Point] | None] = {}
    stack: list[tuple[track.Point, int | None, tuple[int, track.Point] | None]] = [
        (n, None, None) for n in track.token_nodes(state, corp)]
    while stack:
        point, came_by, key = stack.pop()
        if isinstance(point, track.Node) and came_by is not None and (
                point.kind == "o" or track.blocked_for(state, point, corp)):
            continue
        for seg, nxt in track.next_steps(graph, point, came_by):
            if (seg, nxt) in parent or graph.segments[seg].hex == avoid:
                continue
            parent[(seg, nxt)] = key
            if graph.segments[seg].terminal and isinstance(nxt, track.Node):
                continue
            stack.append((nxt, seg, (seg, nxt)))
    return parent


def _arrivals(state: GameState, step: tuple[int, track.Point]) -> tuple[str, int] | None:
    """The hex and edge a train crosses into after `step`, when it ends at a side."""
    side = step[1]
    if not isinstance(side, track.Side):
        return None
    title = state.title
    return neighbour(title.grid, side.hex, side.edge), opposite(side.edge)


def _reach(state: GameState, corp: str) -> _Reach:
    graph = track.build_track(state)
    title = state.title
    parent = _walk(state, corp)
    over: dict[str, set[int]] = {}
    clean: dict[str, set[int]] = {}
    for key in parent:
        into = _arrivals(state, key)
        if into is None:
            continue
        over.setdefault(into[0], set()).add(into[1])
        side = key[1]
        assert isinstance(side, track.Side)
        if side.edge in title.hexes[side.hex].borders:
            continue
        passed: set[str] = set()
        step: tuple[int, track.Point] | None = key
        while step is not None:
            passed.add(graph.segments[step[0]].hex)
            step = parent[step]
        if into[0] not in passed:
            clean.setdefault(into[0], set()).add(into[1])
    return _Reach(over, clean, {n.hex for n in track.token_nodes(state, corp)})


def _clean_entries(state: GameState, corp: str, hex_id: str) -> set[int]:
    """Every edge by which a train of `corp` can enter `hex_id` without having passed it."""
    title = state.title
    out = set()
    for key in _walk(state, corp, avoid=hex_id):
        into = _arrivals(state, key)
        side = key[1]
        if into is not None and into[0] == hex_id and isinstance(side, track.Side) \
                and side.edge not in title.hexes[side.hex].borders:
            out.add(into[1])
    return out


class _Lays:
    """Judges the tile lays of the operating company (see above)."""

    def __init__(self, game: Game, seat: str) -> None:
        self.game = game
        self.seat = seat
        self.scratch = game.clone()  # check_lay lays the tile for a moment to trace it
        self.reach: _Reach | None = None
        self.kinds: dict[str, bool] = {}  # lay kind -> whether its first lay was accepted
        self.clean: dict[str, set[int]] = {}  # hex -> `_clean_entries`

    def accepts(self, lay: LayTile) -> bool:
        if lay.company is not None:
            return self.game.clone().attempt(self.seat, lay)
        rules, state = self.scratch.rules, self.scratch.state
        rnd = self.scratch.round
        assert isinstance(rnd, OperatingRound)
        if rnd.current is None:
            return False
        kind = board.lay_kind(rules, state, lay.hex, lay.tile)
        if self.kinds.get(kind) is False:
            return False  # the round refuses a lay of this kind, whichever it is
        corp = rnd.company()
        try:
            board.check_lay(rules, state, corp, lay.hex, lay.tile, lay.rotation,
                            need_connection=False)
        except GameError:
            return False
        tile = state.title.tile(lay.tile)
        connected = self._connects(corp.sym, lay.hex, tile, lay.rotation)
        if connected is None:
            connected = board.connected_after(state, corp, lay.hex, tile, lay.rotation)
        if not connected:
            return False
        if kind not in self.kinds:
            self.kinds[kind] = self.game.clone().attempt(self.seat, lay)
        return self.kinds[kind]

    def _connects(self, corp: str, hex_id: str, tile: TileSpec, rotation: int
                  ) -> bool | None:
        """What `board.connected_after` answers, where one tracing of the map tells:
        a train entering the hex along a path that never passed it before meets the new
        tile as laid, so new track or a city there at that edge connects; no edge a
        train could enter by does not. None: trace it."""
        state = self.scratch.state
        self.reach = self.reach or _reach(state, corp)
        edges = self.reach.entries(hex_id)
        if edges is None:
            return True  # a station on the hex: its city is reached
        exits = tiles.exits(tile, rotation)
        if edges.isdisjoint(exits):
            return False
        old_tile, old_rotation = track.tile_on(state, hex_id)
        old = set() if old_tile is None else {
            frozenset(p) for p in track.rotated_paths(old_tile, old_rotation, hex_id)}
        paths = track.rotated_paths(tile, rotation, hex_id)

        def meets_new(edges: set[int]) -> bool:
            for edge in edges & exits:
                side = track.Side(hex_id, edge)
                for a, b in paths:
                    other = b if a == side else a if b == side else None
                    if other is not None and (frozenset((a, b)) not in old or (
                            isinstance(other, track.Node) and other.kind == "c")):
                        return True
            return False

        if meets_new(self.reach.clean.get(hex_id, set())):
            return True
        if hex_id not in self.clean:  # the tree's paths passed the hex: walk around it
            self.clean[hex_id] = _clean_entries(state, corp, hex_id)
        return True if meets_new(self.clean[hex_id]) else None
