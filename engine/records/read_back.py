"""The export's second pass: the rendered actions read back through the importer one by
one (`read_back`), each proved to make exactly our next moves; where it reads back as a
different action of ours, ours goes along (`moderator_actions`), and a move the site
makes without recording it is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.actions import Action, to_json
from engine.game import Game, Move, Setup
from engine.records.bridging import pass_idle_players
from engine.records.conventions import OUR_ACTIONS, RecordError
from engine.records.ledgers import Piece
from engine.records.mapper import RecordMapper
from engine.records.reading import replay_action, setup_of
from engine.records.runs import idle_alike
from engine.records.site_steps import end_the_game
from engine.rounds.stock import StockRound


class _Reader:
    """The importer, one record action at a time, on the position reached so far."""

    def __init__(self, setup: Setup, names: dict[str, str]) -> None:
        self.setup = setup
        self.names = names
        self.taken: list[dict[str, Any]] = []  # the record's actions read so far
        self.game = Game(setup)
        self.mapper = RecordMapper(self.game, names)

    def take(self, raw: dict[str, Any], expected: Sequence[Move], at_least: int) -> int:
        """Read `raw`; when the moves it makes are the first `at_least` or more of
        `expected`, keep them and return how many; else leave the position and return 0."""
        if OUR_ACTIONS not in raw and at_least == 1 and not self._maps_to(raw, expected):
            return 0  # plainly another action of ours: no need to try it
        start = len(self.game.log)
        stock = isinstance(self.game.round, StockRound)
        # Where the read may well not fit, keep a copy to go back to (reading the whole
        # record again after each misfit made long games quadratic).
        backup = self.game.clone() if at_least > 1 or OUR_ACTIONS in raw else None
        backup_mapper = self.mapper.fork(backup) if backup is not None else None
        try:
            replay_action(self.game, self.mapper, len(self.taken), raw, throwaway=True)
            made = self.game.log[start:]
            # A company's action read in a stock round ends it: the moves before it are
            # the stock round's passes, it is no stock move itself.
            last_in_stock = stock and raw.get("entity_type") not in ("corporation", "company")
            fits = len(made) >= at_least and all(
                a == b or (stock and (i < len(made) - 1 or last_in_stock) and idle_alike(a, b))
                for i, (a, b) in enumerate(zip(made, expected[:len(made)], strict=False))) \
                and len(made) <= len(expected)
        except RecordError:
            fits = False
        if not fits:
            if backup is not None and backup_mapper is not None:
                self.game, self.mapper = backup, backup_mapper
            else:
                # Rare (a move the importer made by itself that is not ours): read again.
                self._read_again()
            return 0
        self.taken.append(raw)
        return len(self.game.log) - start

    def take_plain(self, raw: dict[str, Any]) -> None:
        """Read `raw`, which makes none of our moves (the importer notes what it names)."""
        start = len(self.game.log)
        replay_action(self.game, self.mapper, len(self.taken), raw)
        if len(self.game.log) != start:
            raise RuntimeError(f"{raw} makes moves of ours")
        self.taken.append(raw)

    def _maps_to(self, raw: dict[str, Any], expected: Sequence[Move]) -> bool:
        """Whether the importer maps `raw` onto our next moves (before trying it)."""
        try:
            mapped = self.mapper.fork(self.game).map(raw)
        except (KeyError, ValueError, IndexError):
            return False
        return bool(mapped) and [Move(seat, action) for seat, action in mapped] == list(
            expected[:len(mapped)])

    def _read_again(self) -> None:
        self.game = Game(self.setup)
        self.mapper = RecordMapper(self.game, self.names)
        for index, raw in enumerate(self.taken):
            replay_action(self.game, self.mapper, index, raw)


def read_back(record: dict[str, Any], moves: list[Move], pieces: list[Piece],
               said: list[str]) -> list[dict[str, Any]]:
    """The record's actions, each proved to read back as our next moves."""
    setup, by_id = setup_of(record)
    reader = _Reader(setup, by_id)
    out: list[dict[str, Any]] = []
    at = 0  # our moves made so far
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if piece.move is None:
            assert piece.site is not None
            if piece.plain:
                reader.take_plain(piece.site)
                out.append(piece.site)
            else:
                out.append(_extended(piece.site, None))
        elif piece.move >= at:
            if piece.move != at:
                raise RuntimeError(f"move {at} has no action in the record")
            if all(p.unrecorded for p in pieces[index:] if p.move is not None):
                break  # the site's own passes to the end (made below)
            skipped = _leave_out(reader, moves, pieces, index, said, out) \
                if piece.unrecorded else None
            if skipped is not None:
                index, taken = skipped
            else:
                taken = _spell_out(reader, moves, piece, said, out)
            at += taken
        # else: made already, as the importer's own move (a train sale it accepts)
        index += 1
    if at != len(moves) and all(p.unrecorded for p in pieces if p.move is not None
                                and p.move >= at):
        # The game's last moves are passes the site makes by itself, at once: the record
        # leaves them out (checked: they are such passes), as the site's own records do.
        probe = reader.game.clone()
        if pass_idle_players(probe) < len(moves) - at and not probe.state.game_over and \
                not end_the_game(reader.game.clone(), moves[at:]):
            raise RuntimeError(f"moves from {at} on are not the site's own passes")
        at = len(moves)
    if at != len(moves):
        raise RuntimeError(f"moves from {at} on have no action in the record")
    return out


def _leave_out(reader: _Reader, moves: list[Move], pieces: list[Piece], index: int,
               said: list[str], out: list[dict[str, Any]]) -> tuple[int, int] | None:
    """Leave out the moves the site makes unrecorded, from pieces[index] on, when the
    importer makes them again before the next recorded action: returns the index of
    that action's piece and the moves covered, or None."""
    carrier = index
    while carrier < len(pieces) and (pieces[carrier].unrecorded or pieces[carrier].move is None):
        carrier += 1
    if carrier == len(pieces):
        return None
    piece = pieces[carrier]
    at, upto = pieces[index].move, piece.move
    if at is None or upto is None:
        return None
    for raw in _forms(reader, moves, piece, said):
        taken = reader.take(raw, moves[at:], upto - at + 1)
        if taken:
            out.extend(_extended(p.site, None) for p in pieces[index:carrier]
                       if p.move is None and p.site is not None)
            out.append(raw)
            return carrier, taken
    return None


def _spell_out(reader: _Reader, moves: list[Move], piece: Piece, said: list[str],
               out: list[dict[str, Any]]) -> int:
    """A move in the site's form, extended with ours where the site's form reads back
    otherwise, or as a message carrying ours; returns the moves covered."""
    assert piece.move is not None
    for raw in _forms(reader, moves, piece, said):
        taken = reader.take(raw, moves[piece.move:], 1)
        if taken:
            out.append(raw)
            return taken
    raise RuntimeError(f"move {piece.move} ({moves[piece.move]}) does not read back")


def _forms(reader: _Reader, moves: list[Move], piece: Piece, said: list[str]
           ) -> list[dict[str, Any]]:
    """The forms a move may take in the record, in order of preference: the site's own,
    the site's carrying ours, a message carrying ours (where the site has no form)."""
    assert piece.move is not None
    move = moves[piece.move]
    forms = [] if piece.site is None else [piece.site, _extended(piece.site, move.action)]
    return [*forms, {"type": "message", "entity": _player_id(reader, move.seat),
                     "entity_type": "player", "message": said[piece.move],
                     OUR_ACTIONS: [to_json(move.action)]}]


def _player_id(reader: _Reader, seat: str) -> int:
    """The record's id of a player by the name the record gives them."""
    return int(next(i for i, name in reader.mapper.names.items() if name == seat))


def _extended(raw: dict[str, Any], action: Action | None) -> dict[str, Any]:
    """`raw` carrying our own action (None: standing for none of ours)."""
    return {**raw, OUR_ACTIONS: [] if action is None else [to_json(action)]}
