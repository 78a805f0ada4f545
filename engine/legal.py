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
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    RunRoutes,
    SellShares,
    UsePrivate,
)
from engine.errors import GameError
from engine.game import Game
from engine.geometry import neighbour, opposite
from engine.rounds.operating import STEP_OF, STEPS, OperatingRound
from engine.rounds.stock import StockRound
from engine.rules import Rules
from engine.state import IPO, POOL, TREASURY, Corporation, GameState
from engine.title import TileSpec


def legal_actions(game: Game) -> list[Action]:
    """The actions the acting player may take now (each one tried on a copy; tile lays
    as `_Lays` says; none of a step the company may no longer enter)."""
    turn = game.turn()
    if turn is None:
        return []
    lays: _Lays | None = None
    steps: dict[str, bool] = {}
    out: list[Action] = []
    for action in _candidates(game):
        if isinstance(action, LayTile) and isinstance(game.round, OperatingRound):
            lays = lays or _Lays(game, turn.seat)
            if lays.accepts(action):
                out.append(action)
            continue
        step = _step_of(game, action)
        if step is not None:
            if step not in steps:
                steps[step] = _may_enter(game, step)
            if not steps[step]:
                continue
        if game.clone().attempt(turn.seat, action):
            out.append(action)
    return out


def _step_of(game: Game, action: Action) -> str | None:
    """The step of the company's turn an action belongs to, where the operating round
    enters that step before it looks at the action itself."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer is not None \
            or rnd.discards:
        return None
    step = STEP_OF.get(type(action))
    return step if step in rnd.steps else None


def _may_enter(game: Game, step: str) -> bool:
    """Whether the operating company may still enter `step` (on a copy): where it may
    not, every action of that step is refused, whatever it is (4.2(d), (e))."""
    probe = game.clone()
    rnd = probe.round
    assert isinstance(rnd, OperatingRound)
    try:
        rnd._enter_step(rnd.company(), rnd.steps.index(step))
    except GameError:
        return False
    return True


def _candidates(game: Game, prune: bool = True) -> Iterator[Action]:
    """The actions to try; `prune` leaves out tile lays no train could reach (the tests
    compare with the full list)."""
    rnd = game.round
    if isinstance(rnd, StockRound):
        yield from _stock_candidates(game, rnd)
    elif isinstance(rnd, OperatingRound):
        yield from _operating_candidates(game, rnd, prune)


def _stock_candidates(game: Game, rnd: StockRound) -> Iterator[Action]:
    state = game.state
    s = rnd.s
    yield Pass()
    if s.proposal is not None or s.redemption is not None:
        yield Accept()
        yield Decline()
        return
    if s.protection_seller is not None and state.pending_sales:
        yield Protect(state.pending_sales[0].corporation)
        yield DeclineProtection()
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
        if corp.president == seat and rnd.rules.price_protection:  # 1850 5.10, 5.11
            yield RedeemShares(company=corp.sym)
            for holder in state.seats:
                yield RedeemShares(company=corp.sym, holder=holder)
            yield ReissueShares(company=corp.sym)
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


def _operating_candidates(game: Game, rnd: OperatingRound, prune: bool = True
                          ) -> Iterator[Action]:
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
    if rnd.protecting:
        yield Protect(state.pending_sales[0].corporation)
        yield DeclineProtection()
        return
    if rnd.current is None:
        return
    corp = rnd.company()
    t = rnd.current
    yield Done()
    yield Pass()
    if t.step <= STEPS.index("track"):
        yield from _tile_lays(game, corp, prune=prune)
        for private in state.privates.values():
            if private.owner == corp.sym and not private.closed:
                hexes = game.rules.private_lay_hexes(state, private)
                if hexes is None:
                    lays = _tile_lays(game, corp, prune=prune)
                else:
                    lays = _tile_lays(game, corp, hexes=set(hexes), any_hex=True)
                for lay in lays:
                    yield UsePrivate(private.sym, lay)
        if type(game.rules).pay_mesabi is not Rules.pay_mesabi:  # 1850 6.5.1
            yield PayMesabi()
    if t.step <= STEPS.index("token") and corp.spec.edge_token is not None:
        yield PlaceEdgeToken(corp.spec.edge_token.hex)
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
               any_hex: bool = False, prune: bool = True) -> Iterator[LayTile]:
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
        reach = _reach(state, corp.sym) if prune else None
    colours = game.rules.phase(state).tiles
    for hex_id in sorted(h for h in hexes if h in title.hexes):
        if not title.hexes[hex_id].buildable and not any_hex:
            continue
        edges = None if reach is None or hex_id in reach.stations else \
            reach.entries.get(hex_id, set())
        if edges is not None and not edges:
            continue  # no train of the company can enter this hex: no lay can connect
        for name, tile in title.tiles.items():
            if tile.color not in colours:
                continue
            left = state.board.supply.get(name, 0)
            if left is not None and left <= 0:
                continue
            rotations = _rotations(game, hex_id, name) if prune else \
                board.legal_rotations(game.rules, state, hex_id, name)
            for rotation in rotations:
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
# lay of a kind. So each lay is checked with `check_lay`, its connection decided from one
# tracing of the map where that tells (`_Lays.connects`), and one lay of each kind is
# tried on a copy of the game: its answer stands for its kind. The tests compare this
# with trying every candidate on a copy.


@dataclass
class _Reach:
    """One tracing of the company's trains over the map as it stands (the walk of
    `track.trace_reach`): by hex, the edges by which a train can cross into it, and the
    revenue centres and junctions it reaches there."""

    entries: dict[str, set[int]]
    nodes: dict[str, set[track.Node]]
    stations: set[str]  # hexes with a station of the company: entered from within


def _reach(state: GameState, corp: str) -> _Reach:
    graph = track.build_track(state)
    title = state.title
    starts = track.token_nodes(state, corp)
    seen: set[tuple[int, track.Point]] = set()
    stack: list[tuple[track.Point, int | None]] = [(n, None) for n in starts]
    while stack:
        point, came_by = stack.pop()
        if isinstance(point, track.Node) and came_by is not None and (
                point.kind == "o" or track.blocked_for(state, point, corp)):
            continue
        for seg, nxt in track.next_steps(graph, point, came_by):
            if (seg, nxt) in seen:
                continue
            seen.add((seg, nxt))
            if graph.segments[seg].terminal and isinstance(nxt, track.Node):
                continue
            stack.append((nxt, seg))
    entries: dict[str, set[int]] = {}
    nodes: dict[str, set[track.Node]] = {}
    for _, point in seen:
        if isinstance(point, track.Node):
            nodes.setdefault(point.hex, set()).add(point)
        elif point.edge not in title.hexes[point.hex].borders:
            # A train at this side crosses into the neighbour, if track is there.
            into = neighbour(title.grid, point.hex, point.edge)
            entries.setdefault(into, set()).add(opposite(point.edge))
    for node in starts:
        nodes.setdefault(node.hex, set()).add(node)
    return _Reach(entries, nodes, {n.hex for n in starts})


class _Lays:
    """Judges the tile lays of the operating company (see above)."""

    def __init__(self, game: Game, seat: str) -> None:
        self.game = game
        self.seat = seat
        self.scratch = game.clone()  # check_lay lays the tile for a moment to trace it
        self.reach: _Reach | None = None
        self.kinds: dict[str, bool] = {}  # lay kind -> whether its first lay was accepted

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
        tile = state.title.tile(lay.tile)
        connected = self.connects(corp.sym, lay.hex, tile, lay.rotation)
        if connected is False:
            return False  # refused by check_lay, whatever else it finds
        try:
            board.check_lay(rules, state, corp, lay.hex, lay.tile, lay.rotation,
                            need_connection=False)
        except GameError:
            return False
        if connected is None:
            connected = board.connected_after(state, corp, lay.hex, tile, lay.rotation)
        if not connected:
            return False
        if kind not in self.kinds:
            self.kinds[kind] = self.game.clone().attempt(self.seat, lay)
        return self.kinds[kind]

    def connects(self, corp: str, hex_id: str, tile: TileSpec, rotation: int
                 ) -> bool | None:
        """What `board.connected_after` answers (new track or a city of the new tile
        reached from a station), from one tracing of the map as it stands; None when
        the lay does not keep every path of the hex as it was (then trace it).

        When every old path stays, every walk on the map now is a walk after the lay
        too, and the first new segment a train takes starts where such a walk stands
        in the hex: at an edge it crossed into, or at a node it reached. So the lay
        connects exactly when a train reaches a city of the hex now, or stands at an
        edge of the new tile or at a node of the hex where a new segment starts."""
        state = self.scratch.state
        reach = self.reach = self.reach or _reach(state, corp)
        if hex_id in reach.stations:
            return True  # the station's city is reached
        old_tile, old_rotation = track.tile_on(state, hex_id)
        old = set() if old_tile is None else {
            frozenset(p) for p in track.rotated_paths(old_tile, old_rotation, hex_id)}
        new = {frozenset(p) for p in track.rotated_paths(tile, rotation, hex_id)}
        if not old <= new:
            return None
        reached = reach.nodes.get(hex_id, set())
        if any(n.kind == "c" for n in reached):
            return True
        exits = tiles.exits(tile, rotation)
        starts: set[track.Point] = {track.Side(hex_id, e) for e in
                                    reach.entries.get(hex_id, set()) & exits}
        starts |= reached
        return any(not starts.isdisjoint(path) for path in new - old)
