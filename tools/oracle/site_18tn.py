"""18TN in the differential check (tools/oracle/differential.py): the random player's
moves left out because they lead to one of 18TN's listed differences
(docs/site-differences.md, 18TN), so that most random games are compared to their end,
and the checks that name a refusal of the site as one of them."""

from __future__ import annotations

import re
from typing import Any

from engine.actions import Action, Bid, BuyPrivate, BuyTrain, SellShares
from engine.errors import GameError
from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.titles.t18tn import CIVIL_WAR

#: A stock round's first line in our log, and a private bought from the bank (3.1(a),
#: 3.1.1).
ROUND_BEGINS = re.compile(r"Stock Round (\d+) begins")
BOUGHT_FROM_BANK = re.compile(r"\S+ buys (\S+) for ")


def privates_sold_this_round(game: Game) -> bool:
    """Whether the last private left in the bank was sold in the current stock round:
    the site's first stock round (its turn 1) is the one that follows its auction of the
    privates, however many of the rulebook's stock rounds ended in passes before it
    (docs/site-differences.md, 3.2(a)(1))."""
    log = game.state.log
    begins = max((i for i, line in enumerate(log) if ROUND_BEGINS.match(line)), default=-1)
    privates = set(game.state.privates)
    return any((m := BOUGHT_FROM_BANK.match(line)) is not None and m.group(1) in privates
               for line in log[begins + 1:])


def site_refuses(game: Game, action: Action) -> bool:
    """18TN's listed differences (docs/site-differences.md) the random players stay
    clear of: a bid after a pass in an auction and a third bidder on a private (3.1.1:
    the site drops a bidder who passed and orders three bidders' turns otherwise); a
    sale in the stock round in which the privates were sold after an all-pass first
    stock round (3.2(a)(1): the site's first); a private bought by a company whose own
    lays are used (4.2(b) with 4.2(h): its lay then has no step on the site); and the
    train that begins the Civil War (phase 3½) while a company with trains has no
    route (5.1: the site gives it the Civil War token). Where the rules leave nothing
    else, the random player still takes it (differential.take)."""
    rnd = game.round
    if isinstance(rnd, StockRound):
        turn = game.turn()
        seat = turn.seat if turn is not None else ""
        if isinstance(action, Bid):
            auction = rnd.s.auction
            if auction is not None:
                return seat in auction.passed
            bids = rnd.s.bids.get(action.target or "", {})
            return seat not in bids and len(bids) >= 2
        if isinstance(action, SellShares) and action.company is None:
            return game.state.stock_round_number >= 2 and privates_sold_this_round(game)
        return False
    if not isinstance(rnd, OperatingRound) or rnd.current is None:
        return False
    if isinstance(action, BuyPrivate) and rnd.current.step == rnd.steps.index("track"):
        return not rnd.lays_left(rnd.company())
    if isinstance(action, BuyTrain) and action.source == "bank" and \
            game.state.phase_index < game.state.title.phase_index("3½"):
        # (The phase of the Civil War begins with a train of the bank, the site's 3'.)
        return war_without_route(game, action)
    return False


def war_without_route(game: Game, action: BuyTrain) -> bool:
    """Whether ACTION begins the Civil War (phase 3½) while a floated company holding
    trains has no route: ours gives it no token (5.1), the site does."""
    trial = game.clone()
    turn = trial.turn()
    if turn is None:
        return False
    try:
        trial.apply(turn.seat, action)
    except GameError:
        return False
    said = trial.state.log[len(game.state.log):]
    if not any("The Civil War begins" in line for line in said):
        return False
    return any(c.floated and c.trains and CIVIL_WAR not in c.markers
               for c in trial.state.corporations.values())


def sale_in_site_first_round(game: Game | None, action: dict[str, Any],
                             site_states: list[dict[str, Any]]) -> bool:
    """3.2(a)(1) shown at a refused sale: the site is in its first stock round (its
    turn 1) and ours in a later one (the first ended in passes while privates were
    unsold). GAME is ours before the refused action."""
    if game is None or action.get("type") != "sell_shares" or \
            action.get("entity_type") != "player" or not site_states:
        return False
    return str(site_states[-1]["round"]).startswith("Stock Round 1.") and \
        isinstance(game.round, StockRound) and game.state.stock_round_number >= 2


__all__ = ["privates_sold_this_round", "sale_in_site_first_round",
           "site_refuses", "war_without_route"]
