"""Share price protection (1850 5.9): after a player's sales, each affected president
may buy the shares sold at the price paid, and the price then stays where it was.

The sales wait in `GameState.pending_sales`, in the order made. The stock round asks
after the seller's turn, the operating round after the company's turn whose president
sold to buy a train (5.9: "also in effect during forced sales").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import GameError, require
from engine.shares import certificate_count, resolve_presidency
from engine.state import BANK, POOL, GameState, PendingSale, money

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.rules import Rules


def protector(state: GameState, sale: PendingSale) -> str:
    """The president who decides on `sale`: the president when it was made."""
    return sale.president


def why_not_protect(rules: Rules, state: GameState, sale: PendingSale) -> str | None:
    """5.9.3: he buys all of that seller's shares of the company, with his own cash and
    room under the certificate limit (shares of the coloured areas need no room)."""
    corp = state.corporation(sale.corporation)
    president = sale.president
    if president == sale.seller:
        return f"{sale.seller} cannot protect his own sale"
    cost = sale.price * sale.percent // 10
    if state.player(president).cash < cost:
        return f"{president} has {money(state, state.player(president).cash)}; " \
               f"protecting costs {money(state, cost)}"
    if not rules.exempt_from_certificate_limit(state, corp):
        limit = rules.certificate_limit(state)
        have = certificate_count(rules, state, president)
        if have + sale.percent // 10 > limit:
            return f"{president} holds {have} certificates; the limit is {limit}"
    return None


def options(state: GameState, sale: PendingSale) -> list[str]:
    cost = money(state, sale.price * sale.percent // 10)
    return [f"protect {sale.corporation} (buy {sale.percent}% for {cost})",
            "decline protection"]


def protect(rules: Rules, state: GameState) -> str:
    """The president buys the first waiting sale; returns who protected."""
    sale = state.pending_sales.pop(0)
    corp = state.corporation(sale.corporation)
    president = protector(state, sale)
    taken, percent = [], 0
    for cert in sorted(corp.certificates_of(POOL), key=lambda c: -c.index):
        if percent >= sale.percent:
            break
        taken.append(cert)
        percent += cert.percent
    cost = sale.price * sale.percent // 10
    state.transfer_cash(president, BANK, cost)
    for cert in taken:
        cert.owner = president
    state.say(rules.cite("protects", president=president, corp=corp.sym,
                         percent=sale.percent, seller=sale.seller, cost=money(state, cost)))
    resolve_presidency(state, corp, head=rules.word("head"))
    return president


def let_stand(rules: Rules, state: GameState) -> None:
    """The first waiting sale stands: the price falls now."""
    sale = state.pending_sales.pop(0)
    corp = state.corporation(sale.corporation)
    state.say(f"{sale.president} lets {sale.seller}'s sale of {sale.percent}% of "
              f"{corp.sym} stand")
    rules.move_price_after_sale(state, corp, sale.percent // 10)


def answer(rules: Rules, state: GameState, seat: str, action: Action) -> str | None:
    """The president's answer to the first waiting sale: `protect`, or `decline
    protection` (a `pass` lets it stand too). Returns who protected, or None."""
    from engine.actions import DeclineProtection, Pass, Protect

    sale = state.pending_sales[0]
    president = protector(state, sale)
    require(seat == president,
            rules.cite("protect_first", president=president, corp=sale.corporation))
    if isinstance(action, Protect):
        require(action.corporation == sale.corporation,
                f"the sale waiting for an answer is of {sale.corporation}")
        why = why_not_protect(rules, state, sale)
        if why:
            raise GameError(why, ("decline protection",))
        return protect(rules, state)
    if isinstance(action, DeclineProtection | Pass):
        let_stand(rules, state)
        return None
    raise GameError(rules.cite("protect_first", president=president, corp=sale.corporation),
                    tuple(options(state, sale)))


def settle_impossible(rules: Rules, state: GameState) -> None:
    """Let stand every waiting sale its president cannot protect."""
    while state.pending_sales and why_not_protect(rules, state, state.pending_sales[0]):
        let_stand(rules, state)
