"""Games replayed once and kept in memory; the stored log stays the truth."""

from __future__ import annotations

from collections import OrderedDict

from engine.game import Game
from moderator.store import Store

__all__ = ["GAME_CACHE_SIZE", "GameCache"]

#: Games kept replayed in memory (a replay is the only way state is made; this only
#: saves doing it again for the next mail of the same game).
GAME_CACHE_SIZE = 64


class GameCache:
    """The stored games, replayed on first use and kept while nobody else moves them."""

    def __init__(self, store: Store, size: int = GAME_CACHE_SIZE) -> None:
        self.store = store
        self.size = size
        self._games: OrderedDict[str, Game] = OrderedDict()

    def game(self, game_id: str) -> Game:
        """The stored game GAME_ID, from the cache when no move was appended since (by the
        CLI, say). Callers must not change it: they work on a `clone`."""
        count = self.store.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?",
                                   [game_id])[0][0]
        cached = self._games.get(game_id)
        if cached is not None and cached.next_move == count:
            self._games.move_to_end(game_id)
            return cached
        game = self.store.load(game_id)
        self.remember(game_id, game)
        return game

    def remember(self, game_id: str, game: Game) -> None:
        """Keep GAME as GAME_ID's stored position (once its moves are committed)."""
        self._games[game_id] = game
        self._games.move_to_end(game_id)
        while len(self._games) > self.size:
            self._games.popitem(last=False)
