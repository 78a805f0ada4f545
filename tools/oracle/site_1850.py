"""1850 in the differential check (tools/oracle/differential.py): the random player's
moves left out because the site refuses them, and the site's moments classed as listed
differences (docs/site-differences.md, 1850)."""

from __future__ import annotations

from typing import Any

from engine.actions import Action, Bid, BuyTrain, RedeemShares, ReissueShares
from engine.game import Game
from engine.records import site_idle
from engine.rounds.stock import StockRound


def site_refuses(game: Game, action: Action) -> bool:
    """1850's listed differences (docs/site-differences.md) the random players stay clear
    of: a bid after a pass in an auction (5.7: the site drops the bidder), a third bidder
    on a private (with two, both engines give the turn to the lower bidder; with more
    they order the turns otherwise), and a company's redemption or reissue when its
    president could do nothing for himself (5.10.6: the site passes him); a train from
    the Open Market once a company closed in the black area (5.1.1 puts its trains
    there; the site removes them)."""
    rnd = game.round
    if isinstance(action, BuyTrain) and action.source == "pool":
        return any(c.closed for c in game.state.corporations.values())
    if not isinstance(rnd, StockRound):
        return False
    turn = game.turn()
    seat = turn.seat if turn is not None else ""
    if isinstance(action, Bid):
        auction = rnd.s.auction
        if auction is not None:
            return seat in auction.passed
        bids = rnd.s.bids.get(action.target or "", {})
        return seat not in bids and len(bids) >= 2
    if isinstance(action, RedeemShares | ReissueShares):
        return site_idle(game, seat)
    return False


def stock_round_ended_early(site_states: list[dict[str, Any]], at: int) -> bool:
    """Whether the site went on to the next stock round at record action `at` (its
    operating round of nothing but private income in between), as after 5.2.2's
    difference: our stock round goes on."""
    before, now = str(site_states[at - 1]["round"]), str(site_states[at]["round"])
    return before.startswith("Stock Round") and now.startswith("Stock Round") and \
        before.split(".")[0] != now.split(".")[0]
