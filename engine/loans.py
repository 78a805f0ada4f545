"""Company loans with interest (1861 10.2, 10.8, 10.9).

A title switches loans on by giving companies a loan limit (`Rules.max_loans`). The
rulebook leaves no choice about them: a company takes a loan only when it could not
otherwise afford a payment loans may serve, and then only as many as it needs (10.2);
interest falls due on the loans it began its turn with (10.8); and it must repay all
it can once its revenue is settled (10.9). So the engine takes and repays loans itself
when the rules require it, and `take loan` / `repay loan` are answered with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.state import BANK, Corporation, GameState, money

if TYPE_CHECKING:
    from engine.rules import Rules


def room(rules: Rules, state: GameState, corp: Corporation) -> int:
    """How many more loans `corp` may take."""
    return max(0, rules.max_loans(state, corp) - corp.loans)


def needed_for(rules: Rules, state: GameState, corp: Corporation, cost: int) -> int:
    """10.2: the fewest loans that let `corp` pay `cost` (what `take_loans_for` takes
    when the room allows), for showing a price before it is paid."""
    value, interest = rules.loan_terms(state)
    short, net = cost - corp.cash, value - interest
    return -(-short // net) if short > 0 and net > 0 else 0


def take_loans_for(rules: Rules, state: GameState, corp: Corporation, cost: int,
                   purpose: str) -> int:
    """10.2: take the fewest loans that let `corp` pay `cost` (as many as it may, if
    that is not enough); each pays its first interest at once. Returns the number."""
    taken = 0
    while corp.cash < cost and room(rules, state, corp) > 0:
        take_loan(rules, state, corp, purpose)
        taken += 1
    return taken


def take_loan(rules: Rules, state: GameState, corp: Corporation, purpose: str) -> None:
    value, interest = rules.loan_terms(state)
    corp.loans += 1
    state.transfer_cash(BANK, corp.sym, value - interest)
    state.say(rules.cite("loan_taken", corp=corp.sym, value=money(state, value),
                         purpose=purpose, net=money(state, value - interest)))


def buying_power(rules: Rules, state: GameState, corp: Corporation) -> int:
    """What `corp` could spend with every loan it may still take."""
    value, interest = rules.loan_terms(state)
    return corp.cash + room(rules, state, corp) * (value - interest)


def pay_interest(rules: Rules, state: GameState, corp: Corporation) -> bool:
    """10.8: interest on the loans the company began its turn with, taking further
    loans if it must. False when it cannot pay: it has paid all it has."""
    _, interest = rules.loan_terms(state)
    owed = interest * corp.interest_due
    corp.interest_due = 0
    if not owed:
        return True
    take_loans_for(rules, state, corp, owed, "its loan interest")
    if corp.cash < owed:
        state.say(rules.cite("interest_unpaid", corp=corp.sym, owed=money(state, owed),
                             cash=money(state, corp.cash)))
        state.transfer_cash(corp.sym, BANK, corp.cash)
        return False
    state.transfer_cash(corp.sym, BANK, owed)
    state.say(f"{corp.sym} pays {money(state, owed)} interest")
    return True


def repay_loans(rules: Rules, state: GameState, corp: Corporation) -> None:
    """10.9: with at least one loan's value in its treasury, a company repays as many
    loans as it can."""
    value, _ = rules.loan_terms(state)
    paid = 0
    while corp.loans and corp.cash >= value:
        corp.loans -= 1
        state.transfer_cash(corp.sym, BANK, value)
        paid += 1
    if paid:
        state.say(f"{corp.sym} repays {paid} loan(s) for {money(state, paid * value)}")


__all__ = ["buying_power", "pay_interest", "repay_loans", "room", "take_loan",
           "take_loans_for"]
