"""1825 Unit 1 receivership (4.4, 6.4): a formed company without a director is run by a
receiver.

A company is in receivership while its director's certificate lies in the pool: no
player holds two shares (4.4). That happens when its director sells the certificate and
nobody else holds two shares; it ends as soon as a player holds two (6.4.7: he exchanges
two shares for the certificate). At each of its turns the company is run by its receiver
(6.4), chosen once and kept while the receivership lasts; `Corporation.president` names
him only during the company's turn, so that no share dealing treats him as director.

The receiver withholds all income (6.4.1); leases the bank's next new train for £10 when
that improves the company's income, and only then (6.4.3); buys the next new train when
the company has none, a route for it and the money (6.4.4); never buys a second-hand
train from the bank, buys from another company only a train of the bank's new type at a
lower price, and never sells a train (6.4.4). The company's payments wait for the end of
its turn (6.4.6): the lease is paid then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import trains
from engine.actions import RunRoutes
from engine.errors import GameError
from engine.optimizer import run_for
from engine.state import BANK, POOL, Corporation, GameState, Train, money

if TYPE_CHECKING:
    from engine.rules import Rules

RECEIVER = "receiver:"  # + the receiver's seat, kept while the receivership lasts
LEASED = "leased:"  # + the leased train's id, during the company's turn (6.4.3)
LEASE_PRICE = 10  # 6.4.3: £10 per OR
DIRECTOR_SHARES = 20  # 4.4: two shares make a director (a major's certificate)


def director_percent(corp: Corporation) -> int:
    """What a player must hold to be director: the director's certificate, two shares
    of a major (4.4, 6.4.7); a minor's 40% (R1: its 20% certificates are two shares each;
    18xx.games' presidents_percent, share_pool.rb: a director needs 40%)."""
    return corp.certificates[0].percent if corp.certificates else DIRECTOR_SHARES


def in_receivership(corp: Corporation) -> bool:
    """4.4: the director's certificate stays in the pool while nobody holds two shares."""
    return not corp.closed and bool(corp.certificates) and \
        corp.certificates[0].owner == POOL


def receiver(corp: Corporation) -> str | None:
    for marker in corp.markers:
        if marker.startswith(RECEIVER):
            return marker[len(RECEIVER):]
    return None


def directors(state: GameState) -> dict[str, list[Corporation]]:
    """Each player's companies as director (not as receiver)."""
    out: dict[str, list[Corporation]] = {seat: [] for seat in state.seats}
    for corp in state.corporations.values():
        owner = corp.certificates[0].owner if corp.certificates else None
        if not corp.closed and owner in out:
            out[owner].append(corp)
    return out


def choose_receiver(state: GameState, corp: Corporation) -> str:
    """6.4: a player who is neither receiver nor director of any company; failing that,
    one who is no director; failing that, the director of companies with the lowest
    total share price. Ties: a player owning a share of the company, then the first
    clockwise from the holder of the Priority Deal."""
    directing = directors(state)
    receiving = {receiver(c) for c in state.corporations.values()
                 if c.sym != corp.sym and in_receivership(c)}

    def total_price(seat: str) -> int:
        return sum(state.market.price(c.sym) for c in directing[seat]
                   if c.sym in state.market.positions)

    seats = list(state.seats)
    pool = [s for s in seats if not directing[s] and s not in receiving]
    if not pool:
        pool = [s for s in seats if not directing[s]]
    if not pool:
        lowest = min(total_price(s) for s in seats)
        pool = [s for s in seats if total_price(s) == lowest]
    holders = [s for s in pool if corp.percent_held_by(s) > 0]
    if holders:
        pool = holders
    order = state.seats_from(state.priority or state.seats[0])
    return next(s for s in order if s in pool)


def appoint(state: GameState, corp: Corporation) -> None:
    """At the start of the company's turn: its receiver acts for it (6.4)."""
    if not in_receivership(corp):
        return
    seat = receiver(corp)
    if seat is None:
        seat = choose_receiver(state, corp)
        corp.markers.add(RECEIVER + seat)
        state.say(f"{corp.sym} has no director: {seat} is appointed its receiver (6.4)")
    else:
        state.say(f"{seat} runs {corp.sym} as its receiver (6.4)")
    corp.president = seat


def end_turn(state: GameState, corp: Corporation) -> None:
    """At the end of its turn the company pays what it owes (6.4.6); the receiver is its
    director no longer."""
    if receiver(corp) is None:
        return
    drop_lease(corp)
    for marker in [m for m in corp.markers if m.startswith("owes:")]:
        corp.markers.discard(marker)
        owed = int(marker[len("owes:"):])
        if not corp.closed:
            state.transfer_cash(corp.sym, BANK, owed)
            state.say(f"{corp.sym} pays {money(state, owed)} for its leased train at the "
                      "end of its turn (6.4.6)")
    if in_receivership(corp) or corp.closed:
        corp.president = None


def end_of_receivership(state: GameState, corp: Corporation, was: bool) -> None:
    """6.4.7: once a player holds two shares he is the director (the exchange of two
    shares for the certificate is `resolve_presidency`'s)."""
    if was and not in_receivership(corp):
        for marker in [m for m in corp.markers if m.startswith(RECEIVER)]:
            corp.markers.discard(marker)
        state.say(f"{corp.president} holds two shares of {corp.sym} and becomes its "
                  "director: its receivership ends (6.4.7)")


# --- selling a director's certificate into the pool (4.4) -----------------------------------

def _count_words(percent: int) -> str:
    return {2: "two", 4: "four"}.get(percent // 10, str(percent // 10))


def receivership_sale(state: GameState, seat: str, corp: Corporation, percent: int) -> bool:
    """Whether selling `percent` leaves nobody with two shares: the director's
    certificate then goes to the pool (4.4)."""
    if corp.president != seat:
        return False
    others = max((corp.percent_held_by(s) for s in state.seats if s != seat), default=0)
    need = director_percent(corp)
    return corp.percent_held_by(seat) - percent < need and others < need


def why_not_receivership_sale(state: GameState, seat: str, corp: Corporation,
                              percent: int) -> str | None:
    held = corp.percent_held_by(seat)
    need = director_percent(corp)
    plain = min((c.percent for c in corp.certificates if not c.president), default=10)
    if corp.sym not in state.market.positions:
        return f"{corp.sym} has no share price yet"
    if percent <= 0 or percent % 10 or percent > held:
        return f"{seat} holds {held}% of {corp.sym}, not {percent}%"
    if percent < need or (percent - need) % plain:
        count = _count_words(need)
        return f"the director's certificate of {corp.sym} is {count} shares: with " \
               f"nobody else holding {count}, {seat} keeps the directorship or sells " \
               f"it whole (`sell {need // 10} {corp.sym}`, 4.4)"
    return None


def sell_into_receivership(state: GameState, seat: str, corp: Corporation,
                           percent: int) -> int:
    """4.4: the director's certificate and the plain shares sold go to the pool; nobody
    is director. Sales do not move the price (6.3). Returns the money received."""
    why = why_not_receivership_sale(state, seat, corp, percent)
    if why:
        raise GameError(why)
    unit = state.market.price(corp.sym)
    plain = sorted((c for c in corp.certificates_of(seat) if not c.president),
                   key=lambda c: -c.index)
    sold = [corp.certificates[0]]
    for cert in plain:
        if sum(c.percent for c in sold) >= percent:
            break
        sold.append(cert)
    for cert in sold:
        cert.owner = POOL
    corp.president = None
    proceeds = unit * percent // 10
    state.transfer_cash(BANK, seat, proceeds)
    state.player(seat).sold_this_round.add(corp.sym)
    state.say(f"{seat} sells {percent}% of {corp.sym}, the director's certificate "
              f"included, for {money(state, proceeds)}; nobody holds "
              f"{_count_words(director_percent(corp))} shares: "
              f"{corp.sym} has no director (4.4)")
    return proceeds


# --- leasing (6.4.3) ------------------------------------------------------------------------

def leased(corp: Corporation) -> str | None:
    for marker in corp.markers:
        if marker.startswith(LEASED):
            return marker[len(LEASED):]
    return None


def drop_lease(corp: Corporation) -> None:
    """The leased train goes back to the bank once the company has run (6.4.3)."""
    ident = leased(corp)
    if ident is None:
        return
    corp.markers.discard(LEASED + ident)
    corp.trains[:] = [t for t in corp.trains if t.id != ident]


def best_income(rules: Rules, state: GameState, corp: Corporation,
                extra: Train | None = None) -> int:
    if extra is not None:
        corp.trains.append(extra)
    try:
        if not corp.trains:
            return 0
        return run_for(rules, state, corp, RunRoutes(auto=True)).revenue
    finally:
        if extra is not None:
            corp.trains.remove(extra)


def lease_candidate(state: GameState, corp: Corporation) -> Train | None:
    """6.4.3, 6.4.4: the bank's next new train, never a second-hand one."""
    offer = trains.next_offered(state)
    if offer is None:
        return None
    return Train(offer.name, f"{offer.id}-leased")


def why_not_lease(rules: Rules, state: GameState, corp: Corporation, ran: bool
                  ) -> str | None:
    if not in_receivership(corp):
        return f"{corp.sym} has a director: only a company in receivership leases a " \
               "train (6.4.3)"
    if ran:
        return f"{corp.sym} has run this turn: a train is leased before running (6.4.3)"
    if leased(corp) is not None:
        return f"{corp.sym} already leases a train this turn"
    train = lease_candidate(state, corp)
    if train is None:
        return "the bank has no new train to lease (6.4.4)"
    if best_income(rules, state, corp, train) <= best_income(rules, state, corp):
        return f"leasing the bank's {train.name}-train would not improve {corp.sym}'s " \
               "income: the receiver leases only when it does (6.4.3)"
    return None


def must_lease(rules: Rules, state: GameState, corp: Corporation) -> bool:
    """6.4.3: the receiver must lease a train iff that improves the income."""
    return why_not_lease(rules, state, corp, ran=False) is None


def lease(rules: Rules, state: GameState, corp: Corporation, ran: bool) -> None:
    why = why_not_lease(rules, state, corp, ran)
    if why:
        raise GameError(why)
    train = lease_candidate(state, corp)
    assert train is not None
    corp.trains.append(train)
    corp.markers.add(LEASED + train.id)
    corp.markers.add(f"owes:{LEASE_PRICE}")
    state.say(f"{corp.sym} leases the bank's {train.name}-train for this turn; it pays "
              f"{money(state, LEASE_PRICE)} at the end of its turn (6.4.3, 6.4.6)")


# --- trains (6.4.4) ---------------------------------------------------------------------------

def must_buy(rules: Rules, state: GameState, corp: Corporation) -> bool:
    """6.4.4: a trainless company buys the next new train as soon as funds permit, if a
    route exists for it (a leased train counts for nothing here)."""
    own = [t for t in corp.trains if t.id != leased(corp)]
    offer = trains.next_offered(state)
    if own or offer is None:
        return False
    price = state.title.train(offer.name).price
    # (Its budget keeps what it owes at the end of its turn, 6.4.6: `train_budget`.)
    return rules.train_budget(state, corp) >= price and \
        _route_with(rules, state, corp, offer.name)


def owed(corp: Corporation) -> int:
    """What the company owes for its turn, paid at its end (6.4.6: its lease)."""
    return sum(int(m[len("owes:"):]) for m in corp.markers if m.startswith("owes:"))


def _route_with(rules: Rules, state: GameState, corp: Corporation, name: str) -> bool:
    ident = leased(corp)
    saved = list(corp.trains)
    corp.trains[:] = [t for t in corp.trains if t.id != ident]
    try:
        return best_income(rules, state, corp, Train(name, "probe")) > 0
    finally:
        corp.trains[:] = saved


def why_not_buy_train(state: GameState, corp: Corporation, source: str, name: str,
                      price: int | None) -> str | None:
    """6.4.4: only the bank's next new train, or another company's of that type for
    less; 6.4.6: none that leaves it without what it owes at the end of its turn."""
    offer = trains.next_offered(state)
    due = owed(corp)
    cost = price if price is not None or source != BANK else state.title.train(name).price
    if due and cost is not None and source != POOL and corp.cash - due < cost:
        return f"{corp.sym} is in receivership: it pays {money(state, due)} at the end of " \
               f"its turn and must keep it; {money(state, cost)} leaves it " \
               f"{money(state, corp.cash - cost)} (6.4.6)"
    if source == POOL:
        return f"{corp.sym} is in receivership: it may not buy a second-hand train from " \
               "the bank (6.4.4)"
    if source == BANK:
        return None
    if offer is None or offer.name != name:
        new = offer.name if offer else "none"
        return f"{corp.sym} is in receivership: from another company it may buy only a " \
               f"train of the bank's new type ({new}) (6.4.4)"
    face = state.title.train(offer.name).price
    if price is not None and price >= face:
        return f"{corp.sym} is in receivership: another company's {name}-train only for " \
               f"less than the bank's {money(state, face)} (6.4.4)"
    return None


__all__ = [
    "appoint", "choose_receiver", "end_of_receivership", "end_turn", "in_receivership",
    "lease", "must_buy", "must_lease", "owed", "receiver", "receivership_sale",
    "sell_into_receivership", "why_not_buy_train", "why_not_lease",
    "why_not_receivership_sale",
]
