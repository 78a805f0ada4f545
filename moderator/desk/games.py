"""Games replayed once and kept in memory; the stored log stays the truth."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from engine.game import Game
from engine.state import PlacedTile
from moderator.mail.compose import Picture
from moderator.reports.report import map_picture
from moderator.store import Store

__all__ = ["GAME_CACHE_SIZE", "BoardSnapshot", "GameCache", "PictureCache"]

#: Games kept replayed in memory (a replay is the only way state is made; this only
#: saves doing it again for the next mail of the same game).
GAME_CACHE_SIZE = 64

K = TypeVar("K")
V = TypeVar("V")


class GameCache:
    """The stored games, replayed on first use and kept while nobody else moves them."""

    def __init__(self, store: Store, size: int = GAME_CACHE_SIZE) -> None:
        self.store = store
        self.size = size
        self._games: OrderedDict[str, Game] = OrderedDict()
        self.pictures = PictureCache()

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


@dataclass(frozen=True, slots=True)
class BoardSnapshot:
    """What a map outlines changes against: the tiles and station tokens at one move."""

    tiles: Mapping[str, PlacedTile]
    tokens: Mapping[str, Mapping[int, list[str]]]

    @classmethod
    def of(cls, game: Game) -> BoardSnapshot:
        board = game.state.board
        return cls(dict(board.tiles),
                   {h: {c: list(s) for c, s in cities.items()}
                    for h, cities in board.tokens.items()})


class PictureCache:
    """Maps drawn once per position and reader's starting move, across mails: a mail
    that does not change the position (a refusal, `status`) draws nothing new, and the
    board at a reader's last report is replayed once, not for every mail."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self.drawn = 0  # maps drawn so far (what the cache could not save)
        # Keyed by the moves themselves (their hash), not only their count: after an
        # `undo`, the same move number can be another position.
        self._maps: OrderedDict[tuple[str, int, int], Picture] = OrderedDict()
        self._boards: OrderedDict[tuple[str, int], BoardSnapshot] = OrderedDict()

    def map_for(self, game_id: str, game: Game, since: int) -> Picture:
        """GAME's map with what changed since move SINCE outlined (nothing if SINCE is
        0 or now)."""
        moves = hash(tuple(game.log))
        key = (game_id, moves, since)
        picture = self._maps.get(key)
        if picture is None:
            before = self._board(game_id, game, since) if 0 < since < game.next_move \
                else None
            picture = map_picture(game_id, game, before)
            self.drawn += 1
            _put(self._maps, key, picture, self.size)
            # The readers of this map will next be shown what changed since it.
            _put(self._boards, (game_id, moves), BoardSnapshot.of(game), self.size)
        self._maps.move_to_end(key)
        return picture

    def _board(self, game_id: str, game: Game, since: int) -> BoardSnapshot:
        key = (game_id, hash(tuple(game.log[:since])))
        board = self._boards.get(key)
        if board is None:
            board = BoardSnapshot.of(Game(game.setup, game.log[:since]))
            _put(self._boards, key, board, self.size)
        return board


def _put(cache: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    cache[key] = value
    while len(cache) > size:
        cache.popitem(last=False)
