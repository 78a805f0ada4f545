"""1861 9.2-9.4: the auctions of the privates and the minors, a minor's start on the
market, and the home station a public company chooses (9.3). `Rules1861`
(engine/titles/t1861.py) keeps each hook and asks these.

Section numbers refer to shared/rules/1861.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import board, routes
from engine.board import place_home_token
from engine.errors import GameError, require
from engine.national import RESERVE
from engine.shares import certificate_count
from engine.state import BANK, Corporation, GameState, money
from engine.title import MarketCell
from engine.titles.t1861_rsr import RSR
from engine.track import Node, tokens_key

if TYPE_CHECKING:
    from engine.rounds.base import Round
    from engine.rules import Rules
    from engine.track import Track

NIKOLAEV = "N"  # 9.4: the first minor auctioned
MINOR_MINIMUM = 100  # 9.2
MINOR_PAR_CEILING = 135  # 9.2: the marker goes on R50 to R135


def opening_lots(rules: Rules, state: GameState, round: Round) -> list[str]:
    """9.4: the first stock round auctions the privates in the order of Table 1."""
    if state.stock_round_number != 1:
        return []
    return [p.sym for p in state.privates.values() if p.owner is None and not p.closed]


def lower_opening_minimum(rules: Rules, state: GameState, item: str) -> bool:
    """9.4: after a full round of passes the minimum falls by R5; at R0 the player
    who began the passes receives the private for nothing."""
    private = state.privates[item]
    private.price = max(0, (private.price or 0) - 5)
    state.say(f"nobody bids on {item}; its minimum falls to {money(state, private.price)}")
    return private.price == 0


def auction_items(rules: Rules, state: GameState) -> list[str]:
    return [c.sym for c in state.corporations.values()
            if c.spec.kind == "minor" and c.president is None and not c.closed]


def auction_target(rules: Rules, state: GameState, name: str) -> str:
    if name in state.privates or name in state.corporations:
        return name
    try:
        return state.title.corporation(name).sym
    except (KeyError, LookupError):
        raise GameError(f"there is no company {name}") from None


def auction_minimum(rules: Rules, state: GameState, target: str) -> int:
    if target in state.privates:
        return state.privates[target].price or 0
    return MINOR_MINIMUM


def why_not_propose(rules: Rules, state: GameState, seat: str, target: str) -> str | None:
    """9.2: an unsold minor, available in this phase, before phase 5; the Nikolaev
    first (9.4); not by a player at the certificate limit (9.3)."""
    corp = state.corporations.get(target)
    if corp is None or corp.spec.kind != "minor":
        return f"{target} is not a minor company; only minors are put up for auction"
    if corp.president is not None or corp.closed:
        return f"{target} has been sold"
    phase = int(rules.phase(state).name)
    if phase >= 5:
        return "minor companies can no longer be started (phase 5)"
    if int(corp.spec.available_from_phase or "2") > phase:
        return f"{target} is available from phase {corp.spec.available_from_phase} (7.2)"
    nikolaev = state.corporations[NIKOLAEV]
    if target != NIKOLAEV and nikolaev.president is None and not nikolaev.closed:
        return "the Nikolaev (N) is auctioned first (9.4)"
    if certificate_count(rules, state, seat) >= rules.certificate_limit(state):
        return f"{seat} is at the certificate limit (9.3)"
    return None


def win_auction(rules: Rules, state: GameState, seat: str, target: str, price: int) -> None:
    """9.4: a private's price goes to the bank; 9.2: a minor's into its treasury,
    its marker on the start space of half the price, its station on its home."""
    if target in state.privates:
        private = state.privates[target]
        private.owner = seat
        if price:
            state.transfer_cash(seat, BANK, price)
        state.say(f"{seat} wins {target} for {money(state, price)}")
        return
    corp = state.corporations[target]
    cert = corp.certificates[0]
    cert.owner = seat
    corp.president = seat
    state.transfer_cash(seat, corp.sym, price)
    cell = minor_start_cell(rules, state, price)
    corp.par_price = cell.price
    state.market.place(corp.sym, (cell.row, cell.col))
    corp.floated = True
    state.say(f"{seat} wins {target} for {money(state, price)}; its price is "
              f"{money(state, cell.price)}")
    place_home_token(state, corp)


def minor_start_cell(rules: Rules, state: GameState, price: int) -> MarketCell:
    """9.2: the red or brown space of half the price, rounded down to a value there
    is (R50 to R135)."""
    half = min(price // 2, MINOR_PAR_CEILING)
    cells = [c for c in state.market.spec.par_cells("minor") if c.price <= half]
    return max(cells, key=lambda c: c.price)


def why_not_par(rules: Rules, state: GameState, corp: Corporation) -> str | None:
    """9.2: minors are auctioned; 9.3: publics may be started from phase 4."""
    if corp.spec.kind != "major":
        return f"{corp.sym} is not started by buying a certificate; `propose " \
               f"{corp.sym} at 100` puts a minor up for auction (9.2)"
    if int(rules.phase(state).name) < 4:
        return "public companies may be started from phase 4 (9.3)"
    if not _home_hexes(rules, state, corp.sym):
        return f"no city is free for {corp.sym}'s home station (9.3)"
    return None


def may_par(rules: Rules, state: GameState, corp: Corporation) -> bool:
    return rules.why_not_par(state, corp) is None


def home_choices(rules: Rules, state: GameState, sym: str) -> list[str]:
    """9.3: any unreserved city no track connects to another stop."""
    return list(_home_hexes(rules, state, sym))


def _home_hexes(rules: Rules, state: GameState, sym: str) -> tuple[str, ...]:
    """The hexes of `home_choices`, in map order. Asked of every par candidate at every
    stock position (9.3), so kept on the map's track graph (which is the tiles'),
    keyed by all else the answer reads: the stations, the companies closed (their
    home spaces no longer reserved) and the RSR's reservations."""
    corp = state.corporations[sym]
    if corp.spec.kind != "major" or any(sym in c for cities in state.board.tokens.values()
                                        for c in cities.values()):
        return ()
    graph = routes.route_track(rules, state)  # (built once, not once a hex)
    kept: dict[object, tuple[str, ...]] = graph.traced.setdefault("1861 home hexes", {})
    key = (sym, tokens_key(state),
           frozenset(c.sym for c in state.corporations.values() if c.closed),
           tuple(sorted(state.corporations[RSR].markers)))
    found = kept.get(key)
    if found is None:
        found = kept[key] = tuple(hex_id for hex_id in state.title.hexes
                                  if _home_city(rules, state, sym, hex_id, graph) is not None)
    return found


def _home_city(rules: Rules, state: GameState, sym: str, hex_id: str,
               graph: Track | None = None) -> int | None:
    cities = board.city_count(state, hex_id)
    if not cities or (state.board.tokens.get(hex_id) and any(
            state.board.tokens[hex_id].values())):
        return None  # site: cities with no station at all
    if _reserved_for_national(rules, state, hex_id):
        return None
    graph = graph if graph is not None else routes.route_track(rules, state)
    for city in range(cities):
        if _joined_to_a_stop(state, graph, sym, hex_id, city):
            continue  # connected to another stop
        if board.free_slots(state, hex_id, city) - \
                board.reserved_slots(state, hex_id, city, sym) <= 0:
            continue
        return city
    return None


def _reserved_for_national(rules: Rules, state: GameState, hex_id: str) -> bool:
    return RESERVE + hex_id in state.corporations[RSR].markers


def place_home(rules: Rules, state: GameState, corp: Corporation, hex_id: str,
               city: int | None) -> None:
    found = _home_city(rules, state, corp.sym, hex_id) if hex_id in state.title.hexes \
        else None
    require(found is not None, f"{hex_id} has no free, unreserved city that no track "
            f"connects (9.3); choose one of {', '.join(rules.home_choices(state, corp.sym))}")
    assert found is not None
    chosen = found if city is None else city
    state.board.tokens.setdefault(hex_id, {}).setdefault(chosen, []).append(corp.sym)
    corp.token_costs.pop(0)
    state.say(f"{corp.sym} places its home station in {hex_id}")


def _joined_to_a_stop(state: GameState, graph: Track, sym: str, hex_id: str,
                      city: int) -> bool:
    """Whether track joins the city to another stop (9.3: a home city may not be). A
    walk is found as soon as a second stop is reached, before any station could block
    it, so the answer is the graph's alone: kept on the graph, asked once a city for
    every company and every listing of a position."""
    joined: dict[Node, bool] = graph.traced.setdefault("1861 joined to a stop", {})
    start = Node(hex_id, "c", city)
    found = joined.get(start)
    if found is None:
        nodes: set[Node] | None = graph.traced.get("1861 nodes")
        if nodes is None:
            nodes = graph.traced["1861 nodes"] = set(graph.nodes())
        found = joined[start] = start in nodes and bool(
            routes.walks_from(state, graph, sym, start, 2))
    return found
