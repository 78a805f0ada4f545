"""Orders for a started game: applied all or nothing, held when sent ahead of one's
stock turn, and reported to everyone.

The orders are applied to a copy of the cached game (`moderator.desk.orders`); only a
wholly accepted mail appends its moves to the log. A refused mail is answered with
the position as stored, so a player who wrote against an old position sees the new
one at once.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from email.parser import BytesHeaderParser

from engine.actions import Bid
from engine.game import Game
from engine.rounds.stock import STOCK_ACTIONS, StockRound
from grammar import commands as cmd
from grammar.names import Names
from grammar.submission import Submission, SubmissionLine, parse_submission
from moderator.desk.changes import after_change
from moderator.desk.commands import GameCommands
from moderator.desk.orders import parse_body, run_submission
from moderator.desk.sender import Auth
from moderator.desk.turns import held_for
from moderator.desk.work import Work, masked
from moderator.mail.parse import parse_incoming
from moderator.reports.report import LineResult, Results
from moderator.store import HeldOrders, Member

__all__ = ["play"]


def play(work: Work, game_id: str, auth: Auth) -> str:
    """An authenticated member's mail to a game in play."""
    store = work.store
    # The stored position, read but never changed: the checks, a late join, held
    # orders and refusals before the engine only read it (no copy for them).
    game = work.games.game(game_id)
    row = next((m for m in auth.rows if m.key == auth.key), None)
    if row is not None and row.status == "invited":
        return late_join(work, game_id, row, game)
    seat = acting_seat(game, auth)
    sender = work.incoming.sender
    assert sender is not None
    clock = store.clock(game_id)
    submission = parse_body(game, work.incoming.text)  # parsed once for every check
    orders = order_lines(submission)  # with their parse errors, if any
    if orders and clock is not None and clock.ended is not None:
        return refuse_play(work, game_id, auth, game, "the game has ended: no more orders")
    if orders and clock is not None and clock.paused is not None and not auth.is_master:
        return refuse_play(work, game_id, auth, game, (
            "the game master has paused the game: orders are refused until `resume`"))
    if orders and (repeated := repeated_submission(work, game_id, game, submission.move)
                   ) is not None:
        return refuse_play(work, game_id, auth, game, repeated)
    if orders and seat is not None and may_hold(game, seat):
        return hold(work, game_id, auth, game, seat, orders, submission.move)

    # The orders run on a copy (a refused submission leaves its first lines applied),
    # made at the first order the engine accepts: a mail refused at its first order,
    # as most under a burst are, costs no copy of the game but the engine's own.
    stored = game
    commands = GameCommands(work, game_id, game, auth, seat)
    start = game.next_move

    def forked(copy: Game) -> None:
        nonlocal game
        game = commands.game = copy  # later commands (`legal`) see the orders' position

    def expected(now: Game) -> tuple[str, ...] | list[str]:
        # Refused at the stored position, its answer shows that position: the report's
        # view (made once per position) lists what the game expects already.
        return work.answers.position(game_id, now).view.legal if now is stored else now.legal()

    # A declared run is applied at once; its better run is searched after the answer
    # has gone (`moderator.desk.later`): the engine leaves the search to us.
    stored.declared_runs = []
    try:
        report = run_submission(game, seat or sender, work.incoming.text,
                                commands.on_command, submission, on_fork=forked,
                                expected=expected)
    finally:
        declared = (game.declared_runs or []) if game is not stored else []
        stored.declared_runs = game.declared_runs = None
    applied = report.ok and bool(report.moves)
    if applied:
        work.declared += [(game_id, run) for run in declared]
        store.append(game_id, start, list(report.moves), list(report.said),
                     cause=work.incoming.key, actor=sender, now=work.now)
        _seen(work, game_id, start)
    if report.ok:
        commands.commit()
    lines = tuple(dataclasses.replace(line, text=masked(line.text)) for line in report.lines)
    if applied and lines and (remark := stale_remark(work, start)) is not None:
        lines = (dataclasses.replace(lines[0], said=(*lines[0].said, remark)), *lines[1:])
    results = Results(report.ok, lines, applied, report.next_move if applied else None)
    if report.ok and (applied or commands.announcements or commands.ended):
        intro = (undo_intro(work, game_id, commands.undone)
                 if applied and commands.undone else None)
        intro = "\n".join(filter(None, [*commands.announcements, intro])) or None
        if game is stored:  # no order moved it, but the moderator's own moves may
            game = stored.clone()
        return after_change(work, game_id, auth.key, results, commands.sections, game=game,
                            intro=intro, moved=applied, end=commands.ended)
    # A refused mail is answered with the position too (but not the history: that
    # stays for the next report), so a player who wrote against an old position
    # sees the new one at once -- the position as stored, not the working copy that
    # the mail's first lines were tried on.
    shown = game if report.ok else work.games.game(game_id)
    work.answers.reply(game_id, auth.key, "report", results=results,
                       sections=commands.sections, game=shown,
                       history=None if commands.wants_report else ())
    return f"{game_id}: " + ("ok, nothing changed" if report.ok else "refused")


def stale_remark(work: Work, at: int) -> str | None:
    """A word to a player whose orders, applied at move AT, answer a report of an
    earlier move (issue 30): they were written against a position that has changed
    since, and the player should know it (a `move N` line refuses them instead)."""
    references = work.incoming.references
    if not references:
        return None
    raw = work.store.sent_raw(references[-1])
    if raw is None:
        return None
    header = BytesHeaderParser().parsebytes(raw).get("X-Moderator-Move")
    if header is None or not str(header).strip().isdigit():
        return None
    answered = int(str(header).strip())
    if answered >= at:
        return None
    moves = at - answered
    return (f"note: your mail answers the report of move {answered}; {moves} move"
            f"{'s were' if moves > 1 else ' was'} made since, so your orders were applied "
            f"to the position of move {at} (add a first line `move N` to have orders "
            "refused when the game has moved on)")


def order_lines(submission: Submission) -> list[SubmissionLine]:
    """The mail's lines that are (or try to be) game orders, not commands."""
    return [line for line in submission.lines
            if line.error is not None or any(not isinstance(o, cmd.Command)
                                             for o in line.orders)]


def may_hold(game: Game, seat: str) -> bool:
    """Stock-round orders from a player whose turn it is not are held for it."""
    turn = game.turn()
    return (turn is not None and turn.seat != seat and isinstance(game.round, StockRound)
            and seat in game.setup.seats)


def hold(work: Work, game_id: str, auth: Auth, game: Game, seat: str,
         orders: list[SubmissionLine], written_for: int | None) -> str:
    """Keep ORDERS until SEAT's stock turn (replacing what it held before); WRITTEN_FOR
    is the mail's `move N`, if it has one."""
    sender = work.incoming.sender
    assert sender is not None
    for line in orders:
        if line.error is not None:
            return refuse_play(work, game_id, auth, game, line.error.format_error())
    for line in orders:
        foreign = [o for o in line.orders
                   if not isinstance(o, cmd.Command) and not isinstance(o, STOCK_ACTIONS)]
        if foreign:
            # It can never become legal in this stock round: say so now, not at the turn.
            return refuse_play(work, game_id, auth, game, (
                f"`{line.text.strip()}` is not a stock-round order, so it cannot be held "
                f"for your turn in {game.round_name}; send it when the operating round "
                "asks for it"))
        for order in line.orders:
            why = never_legal(game, seat, order)
            if why is not None:
                return refuse_play(work, game_id, auth, game,
                                   f"`{line.text.strip()}` cannot be held: {why}")
    if written_for is not None and written_for != game.next_move:
        # `move N` holds for orders sent ahead too: they were written against a
        # position that has changed since.
        return refuse_play(work, game_id, auth, game, (
            f"these orders were written for move {written_for}; the game is at move "
            f"{game.next_move} now: look at the new position and send them again"))
    turn = game.turn()
    assert turn is not None
    text = "\n".join(line.text for line in orders)
    # Held for the decision they were written for (issue 30): the auction under way
    # that the sender is still in, or his stock turn; never another.
    decision = held_for(game, seat, [o for line in orders for o in line.orders])
    work.store.hold(game_id, HeldOrders(seat, text, sender, work.incoming.key,
                                        decision, game.next_move), work.now)
    _seen(work, game_id, game.next_move)
    _, _, step = decision.partition(": ")
    if step:
        said = (f"held: it is {turn.seat}'s turn in the {step}; these orders are applied "
                f"at your turn in the {step}, if they are still legal then, and dropped "
                "if it ends before your turn (a new mail replaces them)",)
    else:
        said = (f"held: it is {turn.seat}'s turn ({turn.step}); these orders are applied "
                f"at your next stock turn in {game.round_name}, if they are still legal "
                "then (a new mail replaces them)",)
    results = Results(True, tuple(LineResult(line.number, line.text, True,
                                             said if i == 0 else ())
                                  for i, line in enumerate(orders)), False, None)
    work.answers.reply(game_id, auth.key, "report", results=results, sections=[],
                       game=game, history=())
    return f"{game_id}: orders held for {seat}"


def never_legal(game: Game, seat: str, order: object) -> str | None:
    """Why ORDER, held for SEAT's turn in this stock round, can never become legal,
    if it cannot: a bid in an auction SEAT takes no part in, or on a private that is
    sold or closed. (Whether it is legal when the turn comes is the engine's answer
    then.)"""
    if not isinstance(order, Bid) or not isinstance(game.round, StockRound):
        return None
    auction = game.round.s.auction
    if auction is not None and order.target in (None, auction.private) \
            and seat not in auction.order:
        # Only those who bid on the private before take part in its auction (18TN 3.1.1).
        return (f"the auction of {auction.private} is among {', '.join(auction.order)} "
                f"only, who bid on it before; {seat} takes no part in it")
    if order.target is not None:
        private = game.state.privates.get(order.target)
        if private is not None and private.closed:
            return f"{private.sym} is closed"
        if private is not None and private.owner is not None:
            return f"{private.sym} is sold already (to {private.owner})"
    return None


def repeated_submission(work: Work, game_id: str, game: Game, written_for: int | None
                        ) -> str | None:
    """Why this mail is not applied: it is a copy of one of the sender's mails that was
    applied or held -- sent again with a new Message-ID, which the inbox cannot know.

    A reply is known by its sender, its orders and the mail it answers, at any later
    point of the game (a copy may come late). A fresh mail (answering none) repeats
    only while nobody has moved since the sender's last one. A `move N` line says the
    repeat is meant."""
    if written_for is not None:
        return None
    fingerprint = reply_fingerprint(work)
    if fingerprint is not None:
        seen = work.store.reply_seen(game_id, fingerprint)
        if seen is None or seen[0] == work.incoming.key:
            return None
        return (f"this mail repeats your mail that came at move {seen[1]} (the same orders "
                "in answer to the same mail), which was applied or held: it is not applied "
                f"twice. To send the same orders again on purpose, add a first line "
                f"`move {game.next_move}`")
    runs = work.store.submissions(game_id, max(0, game.next_move - 1))
    if not runs:
        return None
    last = runs[-1]
    if last.actor != work.incoming.sender or last.stop != game.next_move \
            or last.cause is None or last.cause == work.incoming.key:
        return None
    earlier = work.store.message(last.cause)
    if earlier is None:
        return None
    answered, orders = _earlier_orders(earlier.raw, work.settings.address)
    if answered or orders != tuple(_order_text(work.incoming.text)):
        return None
    return (f"this mail repeats your mail that made moves {last.first}-{last.stop - 1}, "
            "which were applied, and nobody has moved since: it is not applied twice. "
            f"To send the same orders again on purpose, add a first line `move "
            f"{game.next_move}`")


@functools.lru_cache(maxsize=64)
def _earlier_orders(raw: bytes, address: str) -> tuple[bool, tuple[str, ...]]:
    """Whether the mail RAW answers one, and its order lines (`_order_text`): kept,
    as every mail of its sender is compared with it while nobody else moves (it is
    parsed from its bytes alone)."""
    before = parse_incoming(raw, address)
    return bool(before.references), tuple(_order_text(before.text))


def _seen(work: Work, game_id: str, move: int) -> None:
    if (fingerprint := reply_fingerprint(work)) is not None:
        work.store.see_reply(game_id, fingerprint, work.incoming.key, move)


def reply_fingerprint(work: Work) -> str | None:
    """Sender, orders and the mail answered, hashed; None for a mail that answers none."""
    inc = work.incoming
    if not inc.references:
        return None
    text = "\n".join(_order_text(inc.text))
    return hashlib.sha256(f"{inc.sender}\x00{inc.references[-1]}\x00{text}".encode()
                          ).hexdigest()


def _order_text(text: str) -> list[str]:
    """The mail's order lines as a comparison sees them (case, spacing, passwords and
    comments aside)."""
    submission = parse_submission(text, Names(title=""))
    lines = [" ".join(line.text.casefold().split()) for line in submission.lines]
    return [line for line in lines if not line.startswith("password ")]


def refuse_play(work: Work, game_id: str, auth: Auth, game: Game, why: str) -> str:
    results = Results(False, (LineResult(0, "", False, error=why),), False, None)
    work.answers.reply(game_id, auth.key, "report", results=results, sections=[], game=game,
                       history=())
    return f"{game_id}: refused ({why})"


def undo_intro(work: Work, game_id: str, undone: tuple[int, int]) -> str:
    """The moves an undo took back, for everyone's report."""
    first, stop = undone
    game = work.games.game(game_id)
    entries = [e for e in work.answers.history(game_id, game, first,
                                               limit=game.next_move - first)
               if e.number < stop]
    listed = "\n".join(f"  {e.line}" for e in entries)
    return f"Moves {first}-{stop - 1} were taken back:\n{listed}"


def late_join(work: Work, game_id: str, row: Member, game: Game) -> str:
    """A mail from someone invited to a game that has started: an observer, or a
    second address of a seat, who confirms (`join`) gets the current report; a
    player whose seat was left out at `start` is told so."""
    answers = work.answers
    results: tuple[LineResult, ...]
    if not says_join(work):
        results = (LineResult(0, "", False, error=(
            "you are invited, but have not joined yet: reply `join` first")),)
        answers.reply(game_id, row.key, "report", results=Results(False, results, False, None),
                      sections=[], history=(), subject_text="your mail")
        return f"{game_id}: {row.address} has not joined yet"
    if row.role == "observer" or row.seat in game.setup.seats:
        # An observer, or an address for a seat that plays (another address of it, or
        # who takes it over): from now on it gets the reports (and may send the seat's
        # orders); a player gets the seat's history with this first one.
        player = row.role == "player"
        work.store.activate_member(game_id, row.address, row.key,
                                   0 if player else game.next_move)
        done = (f"you follow {game_id} now" if row.role == "observer"
                else f"you joined {game_id} as {row.seat}: this address now gets "
                f"{row.seat}'s reports and may send its orders")
        results = (LineResult(1, "join", True, (done,)),)
        answers.reply(game_id, row.key, "report", results=Results(True, results, False, None),
                      sections=[], game=game, history=None if player else ())
        return f"{game_id}: {row.address} joined"
    results = (LineResult(0, "", False, error=(
        f"the game {game_id} started without the seat {row.seat}: it had not joined")),)
    answers.reply(game_id, row.key, "report", results=Results(False, results, False, None),
                  sections=[], history=(), subject_text="your mail")
    return f"{game_id}: {row.address} is too late to join"


def says_join(work: Work) -> bool:
    """Whether the mail has a `join` line (before its signature or quote)."""
    return any(line.strip().casefold() == "join" for line in work.body_lines())


def acting_seat(game: Game, auth: Auth) -> str | None:
    """The seat the mail's orders are for: the proven one, else the sender's only seat."""
    seats = [m.seat for m in auth.rows
             if m.role == "player" and m.status == "active" and m.seat in game.setup.seats]
    if auth.key in seats:
        return auth.key
    return seats[0] if len(set(seats)) == 1 else None
