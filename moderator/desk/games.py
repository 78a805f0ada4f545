"""Games replayed once and kept in memory; the stored log stays the truth.

A game's position is also kept in the store now and then (`snapshots`, pickled): a
game not in memory -- the first mail after a start -- is loaded from it and the moves
since, not replayed from move 0 (issue 33: 1861 at move 641, ~300 ms of replay against
~10 ms). Only a position the running engine made (a digest of its code and data, and
of Python's version) whose log is the stored log's start is taken; anything else is
replayed as before.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import pickle
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TypeVar, cast

from PIL import Image

import engine
from engine.game import Game, Move
from engine.state import PlacedTile
from engine.title import Title
from moderator.mail.compose import Picture
from moderator.reports.charts import Progress, ProgressReplay
from moderator.reports.crop import crop_map, decode, plain_box
from moderator.reports.mapimage import MapPlate, changed_hexes, map_plate
from moderator.reports.report import MAP_CID
from moderator.store import Store

__all__ = ["GAME_CACHE_SIZE", "SNAPSHOT_EVERY", "BoardSnapshot", "GameCache",
           "PictureCache", "engine_digest"]

log = logging.getLogger(__name__)

#: Games kept replayed in memory (a replay is the only way state is made; this only
#: saves doing it again for the next mail of the same game).
GAME_CACHE_SIZE = 64

#: A game's position is kept in the store again once it is this many moves past the
#: one kept (a load then replays at most about this many; writing one costs a few ms).
SNAPSHOT_EVERY = 20


@functools.cache
def engine_digest() -> str:
    """What a kept position was made by: the engine's code and data and Python's
    version. Another engine (a new release) replays the log instead."""
    digest = hashlib.blake2b(sys.version.encode(), digest_size=16)
    root = Path(engine.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    for entry in sorted(resources.files("engine.data").iterdir(), key=lambda e: e.name):
        if entry.is_file():
            digest.update(entry.name.encode())
            digest.update(entry.read_bytes())
    return digest.hexdigest()

K = TypeVar("K")
V = TypeVar("V")


class GameCache:
    """The stored games, replayed on first use and kept while nobody else moves them."""

    def __init__(self, store: Store, size: int = GAME_CACHE_SIZE) -> None:
        self.store = store
        self.size = size
        self._games: OrderedDict[str, Game] = OrderedDict()
        self.pictures = PictureCache()
        self._kept: dict[str, int] = {}  # the move of each game's position in the store
        self.replayed = 0  # moves replayed by loads (what the kept positions did not save)
        self.load_cpu = 0.0  # CPU seconds the loads took (`moderator bench mail`)

    def game(self, game_id: str) -> Game:
        """The stored game GAME_ID, from the cache when no move was appended since (by the
        CLI, say). Callers must not change it: they work on a `clone`.

        The count of stored moves is enough to tell: the log is append-only (an `undo` is
        a move; `Store.append` refuses a log that moved on and nothing deletes moves)."""
        count = self.store.move_count(game_id)
        cached = self._games.get(game_id)
        if cached is not None and cached.next_move == count:
            self._games.move_to_end(game_id)
            return cached
        started = time.thread_time()
        game = self._load(game_id)
        self.load_cpu += time.thread_time() - started
        clock = self.store.clock(game_id)
        if clock is not None and clock.ended is not None and not game.state.game_over:
            # Ended on a game master's or director's word (`end game`, `end table`): the
            # log is the running game's, the game is over all the same.
            game.state.game_over = True
            game.state.end_reason = "ended before its end by the game master or director"
        self.remember(game_id, game)
        # Its board too: the members reported at this move (after a restart, mostly all
        # of them) are next shown what changed since it, and the board need not be
        # replayed again for that (issue 33: a second replay of the whole log).
        self.pictures.remember_board(game_id, game)
        return game

    def _load(self, game_id: str) -> Game:
        """The stored game: its kept position and the moves since, where the running
        engine made that position from the stored log's start; else replayed."""
        row = self.store.game_row(game_id)
        moves = self.store.moves(row.id)
        kept = self.store.snapshot(row.id, engine_digest())
        if kept is not None and kept[0] <= len(moves):
            try:
                game = pickle.loads(kept[1])
            except Exception:  # a cache: whatever is wrong with it, replay
                log.exception("the kept position of %s is unreadable; replaying", game_id)
                game = None
            if isinstance(game, Game) and game.setup == row.setup \
                    and game.checkpoint is None and game.log == moves[:kept[0]]:
                if kept[0] < len(moves):
                    with game.reading_log():
                        for move in moves[kept[0]:]:
                            game.apply(move.seat, move.action)
                self.replayed += len(moves) - kept[0]
                self._kept[game_id] = kept[0]
                return game
        self.replayed += len(moves)
        return Game(row.setup, moves)

    def keep_positions(self) -> int:
        """Keep in the store the position of each game in memory that is
        `SNAPSHOT_EVERY` moves past its kept one, in one transaction (over games are
        left: their position may hold a director's end). How many."""
        due = [(game_id, game) for game_id, game in self._games.items()
               if not game.state.game_over and game.checkpoint is None
               and game.next_move - self._kept.get(game_id, 0) >= SNAPSHOT_EVERY]
        if not due:
            return 0
        with self.store.transaction():
            for game_id, game in due:
                self.store.save_snapshot(game_id, game.next_move, engine_digest(),
                                         pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL))
        for game_id, game in due:
            self._kept[game_id] = game.next_move
        return len(due)

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
    markers: Mapping[str, list[str]]

    @classmethod
    def of(cls, game: Game) -> BoardSnapshot:
        board = game.state.board
        return cls(dict(board.tiles),
                   {h: {c: list(s) for c, s in cities.items()}
                    for h, cities in board.tokens.items()},
                   {h: list(s) for h, s in board.markers.items()})


#: What a map is drawn from besides its caption: the game (so its title), the phase,
#: the laid tiles, the station tokens, the tokens outside cities and the outlined
#: hexes -- the values themselves, so a cached map is the one these would draw,
#: whatever moves led there.
PlateKey = tuple[str, str, tuple[tuple[str, PlacedTile], ...],
                 tuple[tuple[str, tuple[tuple[int, tuple[str, ...]], ...]], ...],
                 tuple[tuple[str, tuple[str, ...]], ...], frozenset[str]]


class PictureCache:
    """Maps drawn once per board and reader's outline, across mails: a mail that does
    not change the position (a refusal, `status`) draws nothing new, a move that changed
    no hex (a share bought, a train run) draws only the new caption, and the board at a
    reader's last report is replayed once, not for every mail."""

    def __init__(self, size: int = 32, plates: int = 8) -> None:
        self.size = size
        # A plate holds its picture twice (before and after the palette) and its
        # compressed rows, about 5 MB: fewer.
        self.plate_size = plates
        self.drawn = 0  # pictures made so far (what the cache could not save)
        self.plates = 0  # of which boards drawn (the rest: only a new caption)
        self.repainted = 0  # of which drawn again only round what changed
        self.boards_remembered = 0  # boards kept at a report's move
        self.boards_replayed = 0  # boards not kept, so replayed from move 0
        # Each game's latest board: the next one is drawn from it where it differs.
        self._latest: OrderedDict[str, MapPlate] = OrderedDict()
        self._plates: OrderedDict[PlateKey, MapPlate] = OrderedDict()
        self._maps: OrderedDict[tuple[PlateKey, str], Picture] = OrderedDict()
        # The board at a move, by game and move number, with the moves that led there:
        # after an `undo` the same number can be another position, which the moves tell.
        self._boards: OrderedDict[tuple[str, int], tuple[tuple[Move, ...], BoardSnapshot]] = \
            OrderedDict()
        # Parts of a map, by the map's bytes and the hexes shown: the readers of one
        # move mostly get the same part (what changed since their last report).
        # A part that lies above the caption band is the plate's, whatever the caption
        # ("next move N"): keyed by the plate, it is cut once for the moves that leave
        # the board alone (a share bought, a train run), from the plate's own picture
        # (no PNG decoded).
        self._parts: OrderedDict[tuple[object, frozenset[str]], bytes | None] = OrderedDict()
        # A whole map's plate, by its PNG: its key and the caption the PNG has.
        self._plate_of: OrderedDict[bytes, tuple[PlateKey, MapPlate, str]] = OrderedDict()
        self.cropped = 0  # parts cut (what the cache could not save)
        self._decoded: OrderedDict[bytes, Image.Image] = OrderedDict()  # maps, as pictures
        # What a report shows of a position (its view, the legal lays), by kind, game
        # and move, with the moves that led there: every refusal at one move shows the
        # same position.
        self._shown: OrderedDict[tuple[str, str, int], tuple[tuple[object, ...], object]] = \
            OrderedDict()
        self._content: OrderedDict[Hashable, object] = OrderedDict()  # `by_content`
        # Each game's charts' replay, kept going from one position to the next.
        self._progress: OrderedDict[str, ProgressReplay] = OrderedDict()

    def changed(self, game_id: str, game: Game, since: int) -> frozenset[str]:
        """The hexes whose tile or tokens changed since move SINCE (none if SINCE is 0
        or now)."""
        if not 0 < since < game.next_move:
            return frozenset()
        return changed_hexes(self._board(game_id, game, since), game.state.board)

    def map_for(self, game_id: str, game: Game, since: int) -> Picture:
        """GAME's map with what changed since move SINCE outlined (nothing if SINCE is
        0 or now)."""
        board = game.state.board
        changed = self.changed(game_id, game, since)
        plate_key: PlateKey = (game_id, game.rules.phase(game.state).name,
                               tuple(sorted(board.tiles.items())),
                               tuple(sorted((h, tuple(sorted((c, tuple(s))
                                                             for c, s in cities.items())))
                                            for h, cities in board.tokens.items())),
                               tuple(sorted((h, tuple(s)) for h, s in board.markers.items())),
                               frozenset(changed))
        caption = f"{game_id} - next move {game.next_move}"
        key = (plate_key, caption)
        picture = self._maps.get(key)
        if picture is None:
            plate = self._plates.get(plate_key)
            if plate is None:
                state = game.state
                base = self._latest.get(game_id)
                plate = map_plate(state.title, board, phase=game.rules.phase(state).name,
                                  highlight=changed, base=base)
                self.plates += 1
                self.repainted += plate.repainted
                _put(self._latest, game_id, plate, self.plate_size)
            _put(self._plates, plate_key, plate, self.plate_size)
            picture = Picture(MAP_CID, f"{game_id}-move-{game.next_move}.png",
                              plate.png(caption))
            self.drawn += 1
            _put(self._maps, key, picture, self.size)
            _put(self._plate_of, picture.png, (plate_key, plate, caption), self.size)
            # The readers of this map will next be shown what changed since it.
            self.remember_board(game_id, game)
        self._maps.move_to_end(key)
        return picture

    def part(self, picture: Picture, title: Title, hexes: Collection[str]) -> bytes | None:
        """The part of PICTURE (a whole map) that shows HEXES (`crop_map`), cut once for
        every reader and mail that asks for it."""
        shown = frozenset(hexes)
        drawn = self._plate_of.get(picture.png)
        image: Image.Image | None = None
        key: tuple[object, frozenset[str]] = (picture.png, shown)
        if drawn is not None and above_caption(title, shown, drawn[1]):
            key, image = (drawn[0], shown), drawn[1].image
        if key in self._parts:
            self._parts.move_to_end(key)
            return self._parts[key]
        if image is None:
            image = self._decoded.get(picture.png)
        if image is None:  # the readers of one move get parts of one map: made once
            # From its plate where it is kept, with its caption: the PNG decoded is
            # the same picture, at twice the cost (issue 33).
            image = drawn[1].captioned(drawn[2]) if drawn is not None else decode(picture.png)
            _put(self._decoded, picture.png, image, 2)
        # A plain cut is made of the pixels in its box alone: keyed by them too, it is
        # cut once for every map that holds the same pixels there -- a part reaching
        # into the caption band of maps whose captions differ only where it does not
        # show them (each move's "next move N"), or maps that differ elsewhere.
        cut = _cut_key(title, shown, image)
        if cut is not None and cut in self._parts:
            part = self._parts[cut]
            self._parts.move_to_end(cut)
        else:
            part = crop_map(picture.png, title, hexes, image)
            self.cropped += 1
            if cut is not None:
                _put(self._parts, cut, part, self.size)
        _put(self._parts, key, part, self.size)
        return part

    def image(self, picture: Picture) -> Image.Image:
        """PICTURE (a whole map) as a picture: its plate's, where it is kept (the caption
        band blank), else decoded once."""
        drawn = self._plate_of.get(picture.png)
        if drawn is not None:
            return drawn[1].image
        image = self._decoded.get(picture.png)
        if image is None:
            image = decode(picture.png)
            _put(self._decoded, picture.png, image, 2)
        return image

    def shown(self, kind: str, game_id: str, game: Game, make: Callable[[], V]) -> V:
        """MAKE's answer for GAME's position (KIND names what it is), made once for
        every mail at this position (a game's moves decide its position)."""
        key = (kind, game_id, game.next_move)
        known = self._shown.get(key)
        # The log and whether it is over: a game ended on a director's word (`end game`,
        # `end table`) has the log it had while running, but is shown as over.
        moves: tuple[object, ...] = (*game.log, game.state.game_over)
        if known is not None and known[0] == moves:
            self._shown.move_to_end(key)
            return cast(V, known[1])
        value = make()
        # More than the pictures: a position's view, lays and charts, and its tables
        # rendered with and without the market's picture.
        _put(self._shown, key, (moves, value), 4 * self.size)
        return value

    def progress(self, game_id: str, game: Game) -> Progress:
        """GAME's charts' values (`moderator.reports.charts.progress`), replaying only
        the moves since the last position asked for (all of them after an `undo`)."""
        replay = self._progress.get(game_id)
        if replay is not None and replay.follows(game):
            replay.extend(game)
            self._progress.move_to_end(game_id)
        else:
            replay = ProgressReplay(game)
            _put(self._progress, game_id, replay, self.plate_size)
        return replay.progress()

    def by_content(self, key: Hashable, make: Callable[[], V]) -> V:
        """MAKE's answer for KEY, where KEY holds everything the answer is made from
        (a market picture: the title, the tokens in their stacks): made once for every
        position and mail that shows the same."""
        if key in self._content:
            self._content.move_to_end(key)
            return cast(V, self._content[key])
        value = make()
        _put(self._content, key, value, self.size)
        return value

    def remember_board(self, game_id: str, game: Game) -> None:
        """Keep GAME's board at its move: a reader reported at this move is next shown
        what changed since, and the board then need not be replayed from move 0."""
        self.boards_remembered += 1
        key = (game_id, game.next_move)
        known = self._boards.get(key)
        if known is None or known[0] != tuple(game.log):
            _put(self._boards, key, (tuple(game.log), BoardSnapshot.of(game)), self.size)

    def _board(self, game_id: str, game: Game, since: int) -> BoardSnapshot:
        """The board at move SINCE of GAME."""
        moves = tuple(game.log[:since])
        known = self._boards.get((game_id, since))
        if known is not None and known[0] == moves:
            return known[1]
        self.boards_replayed += 1
        board = BoardSnapshot.of(Game(game.setup, game.log[:since]))
        _put(self._boards, (game_id, since), (moves, board), self.size)
        return board


def _cut_key(title: Title, hexes: frozenset[str], image: Image.Image
             ) -> tuple[object, frozenset[str]] | None:
    """What a plain cut of IMAGE for HEXES (`crop_map`) is made of: the title (its
    rulers), the box, and a digest of the pixels in the box with the palette that
    colours them; None when the part is not a plain cut (the hexes far apart: the
    part is then made of the whole picture)."""
    box = plain_box(title, hexes, image.size)
    if box is None:
        return None
    digest = hashlib.blake2b(image.crop(box).tobytes(), digest_size=20)
    digest.update(image.mode.encode())
    digest.update(bytes(image.getpalette() or ()))
    return (("cut", title, box, digest.digest()), frozenset())


def above_caption(title: Title, hexes: frozenset[str], plate: MapPlate) -> bool:
    """Whether the part of PLATE's map for HEXES (`crop_map`) lies wholly above the
    caption band: then it is the same part whatever the caption."""
    box = plain_box(title, hexes, (plate.image.width, plate.image.height))
    # No plain cut: the part is the hexes and their neighbours, cut within the hexes.
    return box is None or box[3] <= plate.height


def _put(cache: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    cache[key] = value
    while len(cache) > size:
        cache.popitem(last=False)
