"""The warning before a costly order (issue 30, item 5): a lay, a station or another
order that spends a company's money, which would leave a company that must own a
train and has none unable to pay for the cheapest one, is not applied at once. The
answer names the shortfall and the line that applies it anyway: the same order
prefixed with `confirm` (grammar: `Confirmed`).

What counts is the company's own money and the loans it may still take (1861 10.2),
not its president's: the point is to warn before the shortfall becomes his to pay
(4.2.5.2(c)). An order the rules forbid outright is not warned of: the engine refuses
it with its reason, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import loans
from engine.actions import Action, LayTile, PayMesabi, PlaceEdgeToken, PlaceToken, UsePrivate
from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.state import money

__all__ = ["Shortfall", "shortfall", "warning"]

#: The orders that spend a company's money on track or stations before its train step.
COSTLY = (LayTile, PlaceToken, PlaceEdgeToken, UsePrivate, PayMesabi)


@dataclass(frozen=True, slots=True)
class Shortfall:
    """What a company would lack for the cheapest train after an order."""

    company: str
    cash: str  # its treasury after the order, as money
    budget: str | None  # with the loans it may still take, where it may take any
    train: str  # the cheapest train's name
    source: str  # where it is sold: "bank" (the Initial Offering) or "pool"
    price: str
    short: str
    president: str | None  # who would have to pay what it lacks, where he must
    head_word: str = "president"  # the title's words for him and the pool (`Rules.words`)
    market_word: str = "Open Market"
    station_word: str = "station"  # 1825: "Base"


def shortfall(game: Game, seat: str, action: Action) -> Shortfall | None:
    """What the operating company would lack for the cheapest train after ACTION, if
    it must own a train, has none, and ACTION spends money it would then lack; None
    otherwise (and when the engine refuses ACTION: its refusal says why)."""
    rnd = game.round
    if not isinstance(action, COSTLY) or not isinstance(rnd, OperatingRound) \
            or rnd.current is None or rnd.offer is not None:
        return None
    state = game.state
    rules = game.rules
    corp = rnd.company()
    cheapest = rules.cheapest_train(state)
    if corp.trains or cheapest is None:
        return None
    trial = game.clone()
    if not trial.attempt(seat, action):
        return None
    after = trial.state.corporations.get(corp.sym)
    if after is None or after.closed:
        return None
    before = loans.buying_power(rules, state, corp)
    budget = loans.buying_power(rules, trial.state, after)
    price = cheapest[1]
    if budget >= min(before, price):
        return None  # it costs nothing, or the company can still pay for a train
    # Whether the rules make it buy one (OperatingRound.must_buy): before the order (1861
    # 10.10 forces only a company that can pay) or after it (its lay opens a route).
    later = trial.round
    forced = rnd.must_buy(corp) or (
        isinstance(later, OperatingRound) and later.current is not None
        and later.company().sym == corp.sym and later.must_buy(after))
    if not forced:
        return None
    room = loans.room(rules, trial.state, after)
    return Shortfall(
        corp.sym, money(state, after.cash),
        money(state, budget) if room else None, cheapest[0].name, cheapest[2],
        money(state, price),
        money(state, price - budget),
        corp.president if rules.president_contributes else None,
        rules.word("head"), rules.word("market"), rules.word("station"))


def warning(found: Shortfall, action: Action, order: str) -> str:
    """The answer to an order warned of: the shortfall and the line that applies it."""
    what, verb = ("lay", "lay it") if isinstance(action, LayTile) else (
        (found.station_word, "place it") if isinstance(action, PlaceToken | PlaceEdgeToken)
        else ("order", "give it"))
    loans_text = (f" ({found.budget} with the loans it may still take)"
                  if found.budget is not None else "")
    where = f"in the {found.market_word}" if found.source == "pool" else "the bank sells"
    who = (f", which its {found.head_word} {found.president} would have to pay"
           if found.president else "")
    return (f"not applied: after this {what} {found.company} has {found.cash}{loans_text}; "
            f"it must own a train and has none, and the cheapest {where}, a "
            f"{found.train}-train, costs {found.price}: {found.short} short{who}. Write "
            f"`confirm {order}` to "
            f"{verb} anyway.")
