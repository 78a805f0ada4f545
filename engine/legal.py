"""Every concrete action the acting player may take now.

`legal_actions(game)` lists candidate actions for the current turn (tile lays with
their rotations, token cities, purchases, bids, sales, ...) and keeps those the game
accepts when tried on a copy, so the list is exactly as strict as the rules. Reports
use the shorter `Game.legal()` texts; this list serves deadline defaults, tools and
tests that play games out.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine import board, track, trains
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
from engine.game import Game
from engine.geometry import neighbour
from engine.rounds.operating import STEPS, OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, TREASURY, Corporation


def legal_actions(game: Game) -> list[Action]:
    """The actions the acting player may take now (each one tried on a copy)."""
    turn = game.turn()
    if turn is None:
        return []
    return [action for action in _candidates(game)
            if game.clone().attempt(turn.seat, action)]


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
    if hexes is None:
        graph = track.build_track(state)
        nodes, segments = track.reachable(state, graph, corp.sym)
        near = {n.hex for n in nodes} | {graph.segments[s].hex for s in segments}
        hexes = set(near)
        for hex_id in near:
            for edge in range(6):
                hexes.add(neighbour(title.grid, hex_id, edge))
    colours = game.rules.phase(state).tiles
    for hex_id in sorted(h for h in hexes if h in title.hexes):
        if not title.hexes[hex_id].buildable and not any_hex:
            continue
        for name, tile in title.tiles.items():
            if tile.color not in colours:
                continue
            left = state.board.supply.get(name, 0)
            if left is not None and left <= 0:
                continue
            for rotation in board.legal_rotations(game.rules, state, hex_id, name):
                yield LayTile(name, hex_id, rotation)
