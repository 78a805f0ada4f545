"""What every round offers the game: whose turn, what is legal, how to act."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass

from engine.actions import Action
from engine.errors import GameError
from engine.state import GameState


@dataclass(frozen=True, slots=True)
class Turn:
    """Who must act now: the player (`seat`), for whom (`entity`: the seat itself or the
    company they run), and what is asked of them (`step`)."""

    seat: str
    entity: str
    step: str


def not_here(action: Action, round_name: str, title: str, legal: list[str]) -> GameError:
    """The answer to an order this round (or this title) has no place for."""
    what = action.kind.replace("_", " ")
    return GameError(f"`{what}` is not available in {title} during {round_name}",
                     tuple(legal))


class Round(ABC):
    """A round is a sequence of turns; it ends when `over` says so. (Each kind of round
    keeps the rules it asks: `Round` itself stays below `Rules`.)"""

    def __init__(self, state: GameState) -> None:
        self.state = state

    @property
    @abstractmethod
    def name(self) -> str:
        """How reports name this round: "Stock Round 2", "Operating Round 3.1"."""

    @abstractmethod
    def turn(self) -> Turn | None:
        """Who must act; None once the round is over."""

    @abstractmethod
    def legal(self) -> list[str]:
        """What the acting player may do now, as order texts (with placeholders)."""

    def lone_pass(self, ignore: tuple[str, ...] = ()) -> str | None:
        """"pass" or "done" when that is all `legal` lists, the options beginning with
        one of `ignore` left out; None otherwise. (The importer asks this at every stock
        turn; a round may answer it without listing every option.)"""
        return lone_pass(self.legal(), ignore)

    @abstractmethod
    def process(self, seat: str, action: Action) -> None:
        """Apply `action` by `seat`, or raise GameError leaving the state untouched."""

    @abstractmethod
    def over(self) -> bool:
        """True when the round has ended."""


def lone_pass(options: Iterable[str], ignore: tuple[str, ...] = ()) -> str | None:
    """`Round.lone_pass` of these options (in `legal`'s order), looking no further than
    the first option that is neither "pass" nor "done"."""
    lone = None
    for option in options:
        if option.startswith(ignore):
            continue
        if lone is not None or option not in ("pass", "done"):
            return None
        lone = option
    return lone
