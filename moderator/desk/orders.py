"""Applying a submission to a stored game, and the plain-text position.

A submission is every order line of one mail (or one `moderator order` call). The
lines are parsed, then applied one by one to a fresh copy of the game; only when every
line is accepted are the new moves committed, in one transaction. The report repeats
each line with what it did, or quotes the first refused line with a caret under the
problem, the reason and what would be legal instead.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.actions import Action, Done, from_json, importer_fields
from engine.errors import GameError
from engine.game import Game, Move
from engine.views import GameView
from grammar import commands as cmd
from grammar.errors import OrderError
from grammar.names import names_for_title
from grammar.parser import Confirmed, code_of
from grammar.submission import Submission, parse_submission
from moderator.desk.shortfall import shortfall, warning
from moderator.reports.report import LineResult
from moderator.store import Store, StoreError


@dataclass(frozen=True, slots=True)
class SubmissionReport:
    ok: bool
    lines: tuple[LineResult, ...]
    moves: tuple[Move, ...]
    next_move: int
    # What the engine said for each of `moves` (the reports' history is made of it).
    said: tuple[tuple[str, ...], ...] = ()

    @property
    def text(self) -> str:
        out: list[str] = []
        for line in self.lines:
            if line.ok:
                out.append(f"> {line.text}")
                out += [f"  ok: {s}" for s in line.said] or ["  ok"]
            else:
                out.append(line.error or f"> {line.text}\n  refused")
                break
        if not self.ok:
            out.append("Nothing was applied: a submission applies whole or not at all.")
        else:
            out.append(f"Applied. The next move is {self.next_move}.")
        return "\n".join(out)


def parse_body(game: Game, body: str) -> Submission:
    """A body as a submission: order lines up to the signature or quoted reply. A line
    holding an action as JSON ({"type": "buy_shares", ...}) is read as that action."""
    names = names_for_title(game.rules.title, game.setup.seats)
    submission = parse_submission(body, names)
    lines = []
    for line in submission.lines:
        if line.error is not None and line.text.strip().startswith("{"):
            try:
                data = json.loads(line.text)
                if fields := importer_fields(data):
                    # A lay taken as an imported record has it skips its connection:
                    # only the importer may say so, never a sender.
                    raise ValueError(f"`{'`, `'.join(sorted(fields))}` is set only by "
                                     "an imported 18xx.games record")
                action = from_json(data)
                line = dataclasses.replace(line, orders=(action,), error=None)
            except (ValueError, TypeError) as exc:
                line = dataclasses.replace(
                    line, error=OrderError(line.text, 1, f"not a valid action: {exc}"))
        lines.append(line)
    return dataclasses.replace(submission, lines=tuple(lines))


class CommandRefused(Exception):
    """Raised by a command handler: the command cannot be done, so the whole submission
    is refused with this reason under the line (like an illegal order)."""


@dataclass(frozen=True, slots=True)
class CommandMoves:
    """A command's answer that is also game moves (`undo`, `force Ann: pass`): the
    ACTIONS are applied for SEAT like order lines, then NOTE is said."""

    seat: str
    actions: tuple[Action, ...]
    note: str = ""


#: Answers a meta command line (`status`, `help`, ...): what the reply says about it
#: (or moves to make), or None for the default "is not a game move here".
CommandNote = Callable[[cmd.Command], "str | CommandMoves | None"]


def run_submission(game: Game, seat: str, body: str,
                   on_command: CommandNote | None = None,
                   submission: Submission | None = None,
                   on_fork: Callable[[Game], None] | None = None,
                   expected: Callable[[Game], Sequence[str]] | None = None
                   ) -> SubmissionReport:
    """Apply the orders of `body` to `game` (a copy the caller may throw away) as `seat`.

    ON_COMMAND, when given, is asked about every meta command line (the mail service
    acts on `status`, `help`, `password` ...); its answer is that line's result.
    SUBMISSION is BODY as `parse_body` read it against GAME, if the caller has it.
    ON_FORK, when given, makes GAME the stored game, which stays as it is: the first
    move accepted is applied to a copy (`Game.fork`), which ON_FORK is handed and the
    rest go on (a mail refused at its first order copies the game once, not twice).
    EXPECTED, when given, answers `Game.legal` for a refusal's "what the game expects
    now" (the caller may have it for the position already)."""
    start = game.next_move
    expected = expected or Game.legal
    if submission is None:
        submission = parse_body(game, body)
    results: list[LineResult] = []
    said_per_move: list[tuple[str, ...]] = []
    last_entity: str | None = None  # whom the mail's last applied order acted for

    def refused(number: int, text: str, error: str) -> SubmissionReport:
        results.append(LineResult(number, text, False, error=error))
        return SubmissionReport(False, tuple(results), (), start)

    for header in submission.headers:
        if header.error is not None:
            return refused(header.number, header.text, header.error.format_error())
    if submission.move is not None and submission.move != game.next_move:
        header = next(h for h in submission.headers if h.orders and isinstance(
            h.orders[0], cmd.MoveNumber))
        return refused(header.number, header.text, _caret(header.text, (
            f"this submission was written for move {submission.move}; the game is at "
            f"move {game.next_move} now: look at the new position and send your orders "
            "again")))
    for line in submission.lines:
        if line.error is not None:
            return refused(line.number, line.text, line.error.format_error())
        said: list[str] = []
        for order in line.orders:
            moves: tuple[tuple[str, Action], ...]
            if isinstance(order, Confirmed):
                moves = tuple((seat, action) for action in order.actions)
            elif not isinstance(order, cmd.Command):
                # A costly order that would leave a company unable to pay for the train
                # it must own is refused with a warning, like an illegal one; the same
                # line prefixed with `confirm` applies it (moderator.desk.shortfall).
                found = shortfall(game, seat, order)
                if found is not None:
                    return refused(line.number, line.text, _caret(line.text, warning(
                        found, order, " ".join(code_of(line.text).split()))))
                moves = ((seat, order),)
            else:
                try:
                    note = on_command(order) if on_command is not None else None
                except CommandRefused as exc:
                    return refused(line.number, line.text, _caret(line.text, str(exc)))
                if not isinstance(note, CommandMoves):
                    said.append(note if note is not None
                                else f"`{line.text.strip()}` is not a game move here")
                    continue
                moves = tuple((note.seat, action) for action in note.actions)
                if note.note:
                    said.append(note.note)
            if _redundant_done(game, moves, last_entity):
                said.append(f"nothing left to end: {last_entity}'s turn had ended already")
                continue
            turn = game.turn()
            entity = turn.entity if turn is not None else None
            try:
                for mover, action in moves:
                    if on_fork is not None:
                        game, move_said = game.fork(mover, action)
                        on_fork(game)
                        on_fork = None  # the copy is the caller's: the rest go on it
                    else:
                        move_said = game.apply(mover, action)
                    said += move_said
                    said_per_move.append(tuple(move_said))
                last_entity = entity
            except GameError as exc:
                msg = exc.message
                if exc.alternatives:
                    msg += "\nWhat you may do: " + "; ".join(exc.alternatives[:12])
                elif game.turn() is not None:
                    msg += "\nWhat the game expects now: " + "; ".join(expected(game)[:12])
                return refused(line.number, line.text, _caret(line.text, msg))
        results.append(LineResult(line.number, line.text, True, tuple(said)))
    if not results:
        return SubmissionReport(False, (LineResult(0, "", False, error=(
            "no orders found: write one order per line (see `help`)")),), (), start)
    results += [LineResult(line.number, line.text, True, (
        "your closing, not an order",)) for line in submission.closing]
    return SubmissionReport(True, tuple(results), tuple(game.log[start:]), game.next_move,
                            tuple(said_per_move))


def _redundant_done(game: Game, moves: tuple[tuple[str, Action], ...],
                    last_entity: str | None) -> bool:
    """A `done` after this mail's own last order already ended that entity's turn: a
    courtesy, not an order to refuse the mail for. (When the same president runs the
    next company, `done` would end that one's turn: the entity decides, not the seat.)"""
    if last_entity is None or len(moves) != 1:
        return False
    action = moves[0][1]
    if not isinstance(action, Done) or action.company not in (None, last_entity):
        return False
    turn = game.turn()
    return turn is None or turn.entity != last_entity


def _caret(text: str, message: str) -> str:
    body = text.rstrip()
    lead = len(body) - len(body.lstrip())
    return f"{body}\n{' ' * lead}{'^' * max(1, len(body) - lead)}\n{message}"


def apply_submission(store: Store, game_id: str, seat: str, lines: list[str]
                     ) -> SubmissionReport:
    """Parse and apply a submission to a stored game; commit the moves if all are good."""
    try:
        row = store.game_row(game_id)
    except StoreError as exc:
        return SubmissionReport(False, (LineResult(0, "", False, error=str(exc)),), (), 0)
    if seat not in row.setup.seats:
        seats = ", ".join(row.setup.seats)
        return SubmissionReport(False, (LineResult(0, "", False, error=(
            f"{seat} has no seat in {row.id}; the seats are {seats}")),), (), 0)
    game = Game(row.setup, store.moves(row.id))
    start = game.next_move
    report = run_submission(game, seat, "\n".join(lines))
    if report.ok and report.moves:
        with store.transaction():
            store.append(row.id, start, list(report.moves), list(report.said))
    return report


def status_text(game_id: str, view: GameView) -> str:
    """The position in plain text: what a report's body shows."""
    lines = [f"{game_id} ({view.title}) - {view.round}, phase {view.phase}, "
             f"next move {view.next_move}"]
    if view.game_over:
        lines.append(f"The game is over ({view.end_reason}).")
        lines += [f"  {name:<16} {score:>6}" for name, score in view.scores]
    elif view.acting_seat:
        who = view.acting_entity if view.acting_entity != view.acting_seat else ""
        lines.append(f"To move: {view.acting_seat}" + (f" for {who}" if who else "")
                     + f" ({view.step})")
        lines += [f"  - {option}" for option in view.legal]
    lines.append("")
    lines.append(f"Bank {view.bank}.  Train limit {view.train_limits or view.train_limit}."
                 "  Next train: "
                 f"{view.next_train or 'none'}"
                 + (f".  {view.market_word} trains: {', '.join(view.trains_in_pool)}"
                    if view.trains_in_pool else ""))
    lines.append("")
    lines.append("Players")
    for p in view.players:
        mark = " (priority)" if p.priority else ""
        lines.append(f"  {p.name:<16} cash {p.cash:>5}  worth {p.value:>6}{mark}")
        if p.certificates:
            lines.append(f"    {', '.join(p.certificates)}")
    lines.append("")
    lines.append("Companies")
    for c in view.corporations:
        if (c.par is None and c.kind != "national") or c.closed:
            continue
        if c.kind == "national":  # 1861's RSR: no shares, no price
            lines.append(f"  {c.sym:<7} run by {c.president or '-'}  "
                         f"{view.treasury_word} {c.treasury}  "
                         f"trains {', '.join(c.trains) or '-'}  "
                         f"{view.tokens_word} left {c.tokens_left}"
                         + (f"  privates {', '.join(c.privates)}" if c.privates else "")
                         + (f"  ({', '.join(c.markers)})" if c.markers else ""))
            continue
        # As the report's table says it: a company sold at par but not yet on the market
        # (1825 before it forms) has no price, and one in receivership no head.
        price = (f"price {c.price:>4} (par {c.par})" if c.price is not None
                 else f"par {c.par}, not on the market yet")
        lines.append(
            f"  {c.sym:<7} {price}  {view.head_word} {c.president or 'none'}  "
            f"{view.treasury_word} {c.treasury}  trains {', '.join(c.trains) or '-'}  "
            f"{view.tokens_word} left {c.tokens_left}  {view.offering_short} {c.ipo_percent}%  "
            f"pool {c.pool_percent}%"
            + (f"  treasury shares {c.treasury_percent}%" if c.treasury_percent else "")
            + ("" if c.floated else "  (not floated)")
            + (f"  privates {', '.join(c.privates)}" if c.privates else "")
            + (f"  ({', '.join(c.markers)})" if c.markers else ""))
    unsold = [c.sym for c in view.corporations
              if c.par is None and not c.closed and c.kind != "national"]
    if unsold:
        lines.append(f"  not yet started: {', '.join(unsold)}")
    open_privates = [p for p in view.privates if not p.closed]
    if open_privates:
        lines.append("")
        lines.append("Privates")
        for pv in open_privates:
            lines.append(f"  {pv.sym:<7} {pv.name} (value {pv.value}, revenue {pv.revenue}): "
                         f"{pv.owner or 'for sale'}")
    if view.tiles:
        lines.append("")
        lines.append("Tiles laid: " + ", ".join(f"{t}@{h}/{r}" for h, t, r in view.tiles))
    return "\n".join(lines)
