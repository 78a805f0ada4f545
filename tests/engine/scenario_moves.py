"""Moves for the titles' scenario helpers (scenarios_*.py): play a list of orders, and
who is to act."""

from __future__ import annotations

from engine.actions import Action
from engine.game import Game


def play(g: Game, *moves: tuple[str, Action]) -> None:
    """Apply each (seat, action) in turn; a refusal raises GameError."""
    for seat, action in moves:
        g.apply(seat, action)


def seat_to_act(g: Game) -> str:
    """The seat that must act now."""
    turn = g.turn()
    assert turn is not None
    return turn.seat


def entity_to_act(g: Game) -> str:
    """The entity whose turn it is (a company in an operating round)."""
    turn = g.turn()
    assert turn is not None
    return turn.entity
