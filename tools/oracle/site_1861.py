"""1861 in the differential check (tools/oracle/differential.py): the options the site
plays it with, and the random player's moves left out because the site has no form for
them (docs/site-differences.md, 1861)."""

from __future__ import annotations

from engine import export_1861
from engine.actions import Action, BuyTrain, Decline, Pass
from engine.game import Game
from engine.records import pass_idle_players
from engine.rounds.merger import MergerRound

#: 14.2: the site plays 1861 with unlimited 2+2 and 5+5E trains (engine.records.setup_of).
OPTIONS = frozenset({"unlimited_trains"})
#: 3: three to six players.
PLAYERS = (3, 4, 5, 6)


def site_refuses(game: Game, action: Action) -> bool:
    """12.1: the site asks no owner to agree to a merger; an owner's refusal (ours) has
    no form there, so the random owners agree. 7.4: the site's RSR buys its trains by
    itself at the end of its turn (ours lets its operator buy one before): the random
    operator leaves that to the rules."""
    if isinstance(action, BuyTrain) and export_1861.national_operates(game):
        return True
    return isinstance(game.round, MergerRound) and game.round.proposal is not None and \
        isinstance(action, Decline)


def settle(game: Game) -> None:
    """The moves the site makes at once that our importer makes only when the next
    action comes: 9.2, a bidder who cannot raise drops out of the auction (so that the
    positions are compared after the auction, as the site has it); a player with
    nothing to do in a stock round passes (the site then goes on to the operating
    round and pays the privates' revenue at once)."""
    pass_idle_players(game)
    for _ in range(len(game.setup.seats)):
        rnd = game.round
        turn = game.turn()
        if turn is None or getattr(rnd, "lot", None) is None or game.legal() != ["pass"]:
            return
        game.apply(turn.seat, Pass())
