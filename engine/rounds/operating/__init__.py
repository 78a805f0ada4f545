"""The operating round (18TN 4): privates pay, then each floated corporation operates.

A corporation's turn is a sequence of steps (4.2): track, station token, run trains,
dividend, train purchase. Each step is optional unless the rules make it required;
doing a later step passes the earlier ones. Buying a private from a player may happen
at any time of the turn (4.2(h)). When a phase change leaves companies over their
train limit, their presidents discard before play goes on (4.2.5(g)).

The round is built by steps, one mixin each over `CompanyTurns` (turns.py, the sequence):
building.py (track and tokens), earnings.py (routes and dividends), forced_purchase.py
(4.2.5.2), train_step.py, privates_step.py; round.py puts them together."""

from engine.rounds.operating.round import OperatingRound
from engine.rounds.operating.turns import STEP_OF, STEPS, CompanyTurn, TrainOffer

__all__ = ["STEPS", "STEP_OF", "CompanyTurn", "OperatingRound", "TrainOffer"]
