"""The one error type the engine raises for a refused action."""

from __future__ import annotations


class GameError(Exception):
    """An action the rules do not allow, with a message a player can act on.

    The game state is unchanged when this is raised. `alternatives` lists what would
    be legal instead, as short order texts, where the engine knows them.
    """

    def __init__(self, message: str, alternatives: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.alternatives = alternatives

    def __str__(self) -> str:
        return self.message


def require(condition: bool, message: str, alternatives: tuple[str, ...] = ()) -> None:
    """Raise GameError(message) unless `condition` holds: the engine's rule guard."""
    if not condition:
        raise GameError(message, alternatives)
