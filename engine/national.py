"""A national railway that takes companies over (1861 7.4, 11: the Russian State Railway).

A title with a company of kind "national" uses these: `nationalise` settles a company
with its shareholders and gives its assets to the national (11), `nationalise_private`
buys a private out at face value (11), `national_tokens` replaces stations with the
national's own within its limits. The title decides when (phase starts, no train,
unpaid interest) and what a share is worth (`Rules.nationalised_price_moves`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import board
from engine.state import BANK, IPO, Corporation, GameState, Private, money

if TYPE_CHECKING:
    from engine.rules import Rules

CLOSED = "closed"  # holder of the charters of closed minors
RESERVE = "reserve "  # a national's marker: a station kept for this hex ("reserve E1")


def national(state: GameState) -> Corporation | None:
    return next((c for c in state.corporations.values() if c.spec.kind == "national"), None)


def nationalise(rules: Rules, state: GameState, corp: Corporation) -> None:
    """11: pay off what loans it can; the price one space left, and one more per loan
    left; each share paid that price by the bank (a minor counts as two); the rest of
    its assets (not its loans) to the national; its stations replaced by the
    national's; its marker off the market. A minor closes; a public may start again."""
    nat = national(state)
    state.say(f"{corp.sym} is nationalised")
    value, _ = rules.loan_terms(state)
    while corp.loans and corp.cash >= value:
        corp.loans -= 1
        state.transfer_cash(corp.sym, BANK, value)
        state.say(f"{corp.sym} repays a loan for {money(state, value)}")
    rules.move_price(state, corp, "left", 1 + corp.loans)
    price = state.market.price(corp.sym)
    for seat in state.seats:
        shares = rules.nationalised_shares(state, corp, seat)
        if shares:
            state.transfer_cash(BANK, seat, price * shares)
            state.say(f"{seat} receives {money(state, price * shares)} for {shares} "
                      f"share(s) of {corp.sym}")
    corp.loans = 0
    corp.interest_due = 0
    if nat is not None:
        if corp.cash:
            state.transfer_cash(corp.sym, nat.sym, corp.cash)
        nat.trains += corp.trains
        for private in state.privates.values():
            if private.owner == corp.sym:
                private.owner = nat.sym
    elif corp.cash:
        state.transfer_cash(corp.sym, BANK, corp.cash)
    corp.trains = []
    national_tokens(state, corp, nat)
    state.market.remove(corp.sym)
    close(state, corp, restart=corp.spec.kind != "minor")


def national_tokens(state: GameState, corp: Corporation, nat: Corporation | None) -> None:
    """11: the national takes the company's stations, at most one per hex, keeping
    stations for the hexes it reserves; where too few remain, the best cities first
    (by city value, then hex)."""
    placed: list[tuple[int, str, int]] = []
    for hex_id, cities in state.board.tokens.items():
        for city, corps in cities.items():
            if corp.sym in corps:
                placed.append((_city_value(state, hex_id, city), hex_id, city))
    for _, hex_id, city in sorted(placed, reverse=True):
        corps = state.board.tokens[hex_id][city]
        corps.remove(corp.sym)
        if nat is None or board.has_token_in(state, nat.sym, hex_id) or not nat.token_costs:
            continue
        reserve = RESERVE + hex_id
        reserved = sum(1 for m in nat.markers if m.startswith(RESERVE))
        if reserve in nat.markers:
            nat.markers.discard(reserve)
        elif len(nat.token_costs) <= reserved:
            continue  # its last stations are kept for its reserved hexes (7.4)
        corps.append(nat.sym)
        nat.token_costs.pop(0)
        state.say(f"{nat.sym} takes {corp.sym}'s station in {hex_id}")


def _city_value(state: GameState, hex_id: str, city: int) -> int:
    from engine.track import tile_on

    tile, _ = tile_on(state, hex_id)
    if tile is None or city >= len(tile.cities):
        return 0
    rev = tile.cities[city].revenue
    return rev if isinstance(rev, int) else max(rev.values())


def close(state: GameState, corp: Corporation, restart: bool) -> None:
    """Take the company off the board: a minor for good; a public ready to be started
    again (7.3), its certificates back in the bank."""
    corp.trains = []
    corp.president = None
    corp.floated = False
    corp.operated = False
    corp.par_price = None
    corp.loans = 0
    if restart:
        for cert in corp.certificates:
            cert.owner = IPO
        corp.token_costs = list(corp.spec.token_costs)
        corp.closed = False
    else:
        for cert in corp.certificates:
            cert.owner = CLOSED
        corp.closed = True


def nationalise_private(state: GameState, private: Private) -> None:
    """11: the owner receives its face value from the bank; it goes to the national."""
    nat = national(state)
    if private.closed or (nat is not None and private.owner == nat.sym):
        return
    if private.owner is not None:
        state.transfer_cash(BANK, private.owner, private.spec.value)
        state.say(f"{private.sym} is nationalised; {private.owner} receives "
                  f"{money(state, private.spec.value)}")
    private.owner = nat.sym if nat is not None else None
    if nat is None:
        private.closed = True


__all__ = ["CLOSED", "RESERVE", "close", "national", "national_tokens", "nationalise",
           "nationalise_private"]
