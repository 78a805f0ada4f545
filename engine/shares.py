"""Certificates changing hands: buying, selling, presidency, holding limits.

These are the 1830-family mechanics every title shares (18TN 3.2-3.5). Where a
title differs, the difference is a setting or hook on `engine.rules.Rules`, not a
branch here. Every function that changes state first checks everything it needs,
so a refused action changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.citations import WORDS
from engine.errors import GameError, require
from engine.state import (
    BANK,
    CLOSED,
    IPO,
    POOL,
    TREASURY,
    Certificate,
    Corporation,
    GameState,
    PendingSale,
    money,
)

if TYPE_CHECKING:
    from engine.rules import Rules

SOURCE_NAMES = {IPO: "the Initial Offering", POOL: "the Open Market", TREASURY: "its treasury"}


def source_name(rules: Rules, source: str) -> str:
    """Where certificates are bought from, in the title's words (`SOURCE_NAMES` are
    18TN's)."""
    named = {IPO: f"the {rules.word('offering')}", POOL: f"the {rules.word('market')}"}
    return named.get(source) or SOURCE_NAMES.get(source, source)


def price_per_share(rules: Rules, state: GameState, corp: Corporation, source: str) -> int:
    """Par from the Initial Offering (where the title says so), market value elsewhere."""
    if source == IPO and corp.par_price is not None and rules.ipo_buys_at_par:
        return corp.par_price
    return state.market.price(corp.sym)


def next_certificate(corp: Corporation, holder: str) -> Certificate | None:
    """The certificate a buyer takes from `holder`: lowest index first."""
    held = sorted(corp.certificates_of(holder), key=lambda c: c.index)
    plain = [c for c in held if not c.president]
    return plain[0] if plain else (held[0] if held else None)


def certificate_count(rules: Rules, state: GameState, seat: str) -> int:
    """Certificates counting toward the limit (a president's certificate counts as one)."""
    # (Plain loops: asked for every listing of a stock turn, and twice as fast as sums
    # over generators.)
    count = 0
    for corp in state.corporations.values():
        held = 0
        for cert in corp.certificates:
            if cert.owner == seat:
                held += 1
        # (The exemption asked only of a company he holds: it is most of the cost.)
        if held and not (corp.par_price is not None
                         and rules.exempt_for_holder(state, corp, seat)):
            count += held
    for private in state.privates.values():
        if private.owner == seat and not private.closed:
            count += 1
    return count


def can_hold(rules: Rules, state: GameState, seat: str, corp: Corporation, percent: int,
             have: int | None = None, limit: int | None = None) -> bool:
    """Whether `check_can_hold` lets `seat` take one more certificate of `percent`,
    without the words of its refusal (a stock turn's listing asks it of every company).
    `limit`: `rules.certificate_limit(state)`, where the caller has it already."""
    if not rules.holding_limit_exempt(state, corp) and \
            corp.percent_held_by(seat) + percent > rules.holding_limit_percent:
        return False
    if corp.par_price is None or not rules.exempt_from_certificate_limit(state, corp):
        if limit is None:
            limit = rules.certificate_limit(state)
        if have is None:
            have = certificate_count(rules, state, seat)
        return have + 1 <= limit
    return True


def check_can_hold(rules: Rules, state: GameState, seat: str, corp: Corporation,
                   percent: int, certificates: int = 1, have: int | None = None) -> None:
    """18TN 3.3: the per-company limit (a) and the certificate limit (b). `have`:
    `certificate_count(rules, state, seat)`, where the caller has counted already.
    (`can_hold` asks the same of one certificate.)"""
    if not rules.holding_limit_exempt(state, corp):
        limit = rules.holding_limit_percent
        after = corp.percent_held_by(seat) + percent
        require(after <= limit,
                f"{seat} would hold {after}% of {corp.sym}; a player may hold at most {limit}%")
    if corp.par_price is None or not rules.exempt_from_certificate_limit(state, corp):
        limit = rules.certificate_limit(state)
        if have is None:
            have = certificate_count(rules, state, seat)
        require(have + certificates <= limit,
                f"{seat} holds {have} certificates; the limit is {limit}")


def resolve_presidency(state: GameState, corp: Corporation, seller: str | None = None,
                       head: str = WORDS["head"]) -> None:
    """18TN 3.5: whoever holds the most shares is president; equal holdings never take it.

    When the outgoing president's sale caused a tie among others, the first tied player
    clockwise from the outgoing president wins (3.5(a)). The new president exchanges
    plain certificates of equal percentage for the president's certificate, wherever it
    is (3.5(b)). `head` is the title's name for a president (`Rules.word("head")`).
    """
    current = corp.president
    holdings = {seat: corp.percent_held_by(seat) for seat in state.seats}
    best = max(holdings.values(), default=0)
    if current is not None and holdings[current] >= best:
        return
    if best == 0:
        return
    if current is None and best < corp.certificates[0].percent:
        return  # nobody could exchange for the certificate (1825 4.4: no director)
    start = seller or current or state.seats[0]
    order = state.seats_from(state.next_seat(start))
    new = next(seat for seat in order if holdings[seat] == best)
    pres = corp.certificates[0]
    if pres.owner != new:
        _exchange_for_president(corp, new, head)
    corp.president = new
    if current is not None:
        state.say(f"{new} becomes {head} of {corp.sym}")


def _exchange_for_president(corp: Corporation, new: str, head: str) -> None:
    pres = corp.certificates[0]
    given: list[Certificate] = []
    for cert in sorted(corp.certificates_of(new), key=lambda c: -c.index):
        if sum(c.percent for c in given) >= pres.percent:
            break
        given.append(cert)
    if sum(c.percent for c in given) != pres.percent:
        raise GameError(f"{new} cannot exchange certificates for the {head}'s "
                        f"certificate of {corp.sym}")
    for cert in given:
        cert.owner = pres.owner
    pres.owner = new


def buy_certificate(rules: Rules, state: GameState, seat: str, corp: Corporation,
                    source: str, count: int = 1) -> int:
    """A player buys `count` certificates of `corp` from `source`; returns the price paid.

    Payment goes to the bank from the IPO and the pool, to the corporation from its
    treasury. Checks everything first: availability, cash, holding limits.
    """
    require(source != TREASURY or rules.treasury_shares_for_sale,
            rules.cite("redeemed_not_for_sale", corp=corp.sym))
    certs = sorted((c for c in corp.certificates_of(source) if not c.president),
                   key=lambda c: c.index)
    require(corp.par_price is not None or source != IPO,
            f"{corp.sym} has no par value yet; start it with `par {corp.sym} at PRICE`")
    require(len(certs) >= count,
            f"{source_name(rules, source)} has {len(certs)} certificate(s) of "
            f"{corp.sym}" + (f"; you asked for {count}" if count > 1 else ""))
    chosen = certs[:count]
    percent = sum(c.percent for c in chosen)
    unit = price_per_share(rules, state, corp, source)
    cost = unit * percent // 10
    player = state.player(seat)
    require(player.cash >= cost,
            f"{seat} has {money(state, player.cash)}; {count} certificate(s) of {corp.sym} "
            f"from {source_name(rules, source)} cost {money(state, cost)}")
    check_can_hold(rules, state, seat, corp, percent, len(chosen))
    state.transfer_cash(seat, rules.share_payee(state, corp, source), cost)
    for cert in chosen:
        cert.owner = seat
    state.say(f"{seat} buys {percent}% of {corp.sym} from {source_name(rules, source)} "
              f"for {money(state, cost)}")
    resolve_presidency(state, corp, head=rules.word("head"))
    return cost


def check_sale(rules: Rules, state: GameState, seat: str, corp: Corporation,
               percent: int) -> None:
    """Everything 18TN 3.2(a) asks of a sale to the Open Market, checked without acting."""
    held = corp.percent_held_by(seat)
    require(corp.sym in state.market.positions,
            f"{corp.sym} has no share price yet: its shares cannot be sold before it starts")
    require(percent > 0 and percent % 10 == 0, "shares are sold in whole 10% shares")
    require(held >= percent, f"{seat} holds {held}% of {corp.sym}, not {percent}%")
    least = rules.least_sale_percent(state, seat, corp)
    require(percent >= least, f"{seat} holds {held}% of {corp.sym}: a sale must bring him "
            f"down to the limit, {least}% at least")
    pool_limit = rules.pool_limit_percent
    require(corp.pool_percent + percent <= pool_limit,
            f"the {rules.word('market')} would hold {corp.pool_percent + percent}% of "
            f"{corp.sym}; "
            f"at most {pool_limit}% may be there")
    if corp.president == seat:
        pres = corp.certificates[0]
        remaining = held - percent
        if remaining < pres.percent:
            others = [s for s in state.seats if s != seat]
            top = max((corp.percent_held_by(s) for s in others), default=0)
            require(top >= pres.percent and top > remaining,
                    f"{seat} may sell the {rules.word('head')}'s certificate of {corp.sym} "
                    f"only if another player holds at least {pres.percent}% and takes over "
                    f"as {rules.word('head')}")


def sell_shares(rules: Rules, state: GameState, seat: str, corp: Corporation,
                percent: int, unit_price: int | None = None) -> int:
    """A player sells `percent` of `corp` to the Open Market; returns the money received.

    Presidency changes first (the new president exchanges certificates), then plain
    certificates go to the pool; the price drops as the title's rules say. The seller is
    paid `unit_price` per share where the rules fix it earlier (1851's forced sales),
    else the current price.
    """
    check_sale(rules, state, seat, corp, percent)
    unit = state.market.price(corp.sym) if unit_price is None else unit_price
    proceeds = unit * percent // 10
    president_before = corp.president or seat
    # Who would be president after the sale decides the certificate exchange.
    others = {s: corp.percent_held_by(s) for s in state.seats if s != seat}
    remaining = corp.percent_held_by(seat) - percent
    if corp.president == seat and others and max(others.values()) > remaining:
        best = max(others.values())
        new = next(s for s in state.seats_from(state.next_seat(seat)) if others.get(s) == best)
        _exchange_for_president(corp, new, rules.word("head"))
        corp.president = new
        state.say(f"{new} becomes {rules.word('head')} of {corp.sym}")
    to_sell: list[Certificate] = []
    for cert in sorted(corp.certificates_of(seat), key=lambda c: -c.index):
        if sum(c.percent for c in to_sell) >= percent:
            break
        if not cert.president:
            to_sell.append(cert)
    if sum(c.percent for c in to_sell) != percent:
        raise GameError(f"{seat} cannot sell exactly {percent}% of {corp.sym} without "
                        f"splitting a certificate")
    for cert in to_sell:
        cert.owner = POOL
    state.transfer_cash(BANK, seat, proceeds)
    state.player(seat).sold_this_round.add(corp.sym)
    state.say(f"{seat} sells {percent}% of {corp.sym} for {money(state, proceeds)}")
    if rules.price_protection:
        # 1850 5.9: the drop waits for the president's answer after the seller's turn.
        state.pending_sales.append(PendingSale(corp.sym, seat, percent, unit,
                                               president_before))
    elif rules.sale_moves_price(state, corp, seat, president_before):
        rules.move_price_after_sale(state, corp, percent // 10)
    resolve_presidency(state, corp, seller=seat, head=rules.word("head"))
    return proceeds


def remove_from_game(state: GameState, corp: Corporation) -> None:
    """A company leaves the game for good (1850's black area, 1825's bankruptcy): its
    certificates are collected without compensation, its tokens leave the map and the
    market, its trains go to the Open Market (back to the bank for resale) and its
    money to the bank; it has no president any more."""
    corp.closed = True
    for cert in corp.certificates:
        cert.owner = CLOSED
    state.market.remove(corp.sym)
    for cities in state.board.tokens.values():
        for holders in cities.values():
            while corp.sym in holders:
                holders.remove(corp.sym)
    for hex_id, holders in list(state.board.markers.items()):
        if corp.sym in holders:
            state.board.markers[hex_id] = [sym for sym in holders if sym != corp.sym]
    state.trains_pool.extend(corp.trains)
    corp.trains = []
    if corp.cash:
        state.transfer_cash(corp.sym, BANK, corp.cash)
    corp.president = None
