"""The merger round (1861 12): minors may convert into or merge to form public companies.

A title switches it on from `Rules.next_round`. In operating order (12.1) each minor's
owner is asked once whether the minor converts (12.2), merges (12.3) or passes;
`Rules.merger_candidates` names the companies asked and `Rules.convert` /
`Rules.merge` carry the choices out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.actions import Action, Convert, Done, Merge, Pass
from engine.errors import GameError, require
from engine.rounds.base import Round, Turn, not_here
from engine.state import GameState

if TYPE_CHECKING:
    from engine.rules import Rules


class MergerRound(Round):
    def __init__(self, state: GameState, rules: Rules, number: int) -> None:
        super().__init__(state, rules)
        self.number = number
        self.asked: set[str] = set()
        self.current: str | None = None
        state.say(f"Merger Round {self.label} begins")
        self._next()

    @property
    def label(self) -> str:
        return f"{self.state.stock_round_number}.{self.number}"

    @property
    def name(self) -> str:
        return f"Merger Round {self.label}"

    def _next(self) -> None:
        waiting = [sym for sym in self.rules.merger_candidates(self.state)
                   if sym not in self.asked]
        self.current = waiting[0] if waiting else None

    def over(self) -> bool:
        return self.current is None

    def turn(self) -> Turn | None:
        if self.current is None:
            return None
        corp = self.state.corporation(self.current)
        return Turn(corp.president or "", corp.sym, "convert, merge or pass")

    def legal(self) -> list[str]:
        if self.current is None:
            return []
        return [*self.rules.merger_options(self.state, self.current), "pass"]

    def candidates(self) -> list[Action]:
        """The conversions and mergers to try for the minor asked now (engine.legal)."""
        if self.current is None:
            return []
        return self.rules.merger_candidate_actions(self.state, self.current)

    def process(self, seat: str, action: Action) -> None:
        turn = self.turn()
        require(turn is not None, "the merger round is over")
        assert turn is not None and self.current is not None
        require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.entity}), not {seat}'s")
        if isinstance(action, Pass | Done):
            self.state.say(f"{self.current} does not convert or merge")
        elif isinstance(action, Convert):
            require(self.rules.merger_alias(self.state, action.minor) == self.current,
                    f"{self.current} is asked now, not {action.minor}")
            self.rules.convert(self.state, self.current, self)
        elif isinstance(action, Merge):
            self.rules.merge(self.state, self.current, action, self)
        else:
            raise not_here(action, self.name, self.state.title.name, self.legal())
        self.asked.add(self.current)
        self._next()

    def refuse(self, message: str) -> GameError:
        return GameError(message, tuple(self.legal()))


__all__ = ["MergerRound"]
