"""Moves the moderator makes on a seat's behalf, and the clock of the running turn.

After every change to a game (a mail applied, a deadline passed, an undo) the service
calls `settle`: while the acting seat needs no thought, the moderator moves for it --
a resigned seat takes the conservative default, orders held for the seat are applied
(or dropped, saying why), a seat under `auto pass` passes unless something that
concerns it happened, and a seat whose only legal action is to pass passes. Each
such move is logged like any other (cause and actor say who made it), and each
comes back as a `Happening` the service reports.

`restart_clock` then starts the clock of the turn that is now running: a new turn
(someone moved) gets the game's full time, counted only outside the seat's absence
windows; an answer to a proposal inherits the proposer's deadline, so an unanswered
offer expires when the proposer's time would have run out.

Pure of I/O besides the store it is given; the caller owns the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.actions import Action, Decline, Pass, SellShares
from engine.defaults import conservative_action, sole_action
from engine.errors import GameError
from engine.game import Game
from engine.rounds.base import Turn
from engine.rounds.stock import StockRound
from moderator.desk.deadlines import Window, deadline_after
from moderator.desk.orders import run_submission
from moderator.store import Clock, HeldOrders, Store

__all__ = ["MAX_AUTOMATIC", "MODERATOR", "Happening", "deadline_for", "is_answer",
           "move_for", "restart_clock", "settle", "timeout_moves"]

#: Actor of the moves the moderator makes itself (as opposed to a player's address).
MODERATOR = "moderator"
#: More automatic moves than this in a row means something loops: stop and let the
#: players see the position.
MAX_AUTOMATIC = 200

HappeningKind = Literal[
    "auto_pass", "auto_pass_cancelled", "auto_pass_ended", "held_applied", "held_refused",
    "held_dropped", "resigned_move", "only_move", "timeout_move", "expired"]


@dataclass(frozen=True, slots=True)
class Happening:
    """Something the moderator did for a seat, or decided not to do, in words."""

    seat: str
    kind: HappeningKind
    text: str  # one line for everyone's report
    detail: str = ""  # more for the seat itself (why its held orders were refused)
    address: str | None = None  # who to tell privately (held orders: their sender)


def is_answer(turn: Turn) -> bool:
    """Whether TURN asks a player to answer someone's offer (a private sale, a train)."""
    return turn.step.startswith("answer ")


def move_for(store: Store, game_id: str, game: Game, seat: str, action: Action, *,
             cause: str, now: float) -> tuple[str, ...]:
    """Apply ACTION for SEAT and log it as the moderator's move; what the engine said."""
    start = game.next_move
    said = tuple(game.apply(seat, action))
    store.append(game_id, start, list(game.log[start:]), [said], cause=cause,
                 actor=MODERATOR, now=now)
    return said


def settle(store: Store, game_id: str, game: Game, *, cause: str, now: float
           ) -> list[Happening]:
    """Make every move nobody needs to think about, on GAME (which is changed)."""
    happened: list[Happening] = []
    for _ in range(MAX_AUTOMATIC):
        turn = game.turn()
        if turn is None:
            break
        happening = _automatic_move(store, game_id, game, turn, cause=cause, now=now)
        if happening is None:
            break
        happened.append(happening)
    return happened


def _automatic_move(store: Store, game_id: str, game: Game, turn: Turn, *, cause: str,
                    now: float) -> Happening | None:
    seat = turn.seat
    row = store.seat_row(game_id, seat)
    if row.resigned is not None:
        action = conservative_action(game)
        said = move_for(store, game_id, game, seat, action, cause=cause, now=now)
        return Happening(seat, "resigned_move",
                         f"{seat} has resigned; the moderator played: {'; '.join(said)}")
    held = store.held(game_id, seat)
    if held is not None:
        found = _held_orders(store, game_id, game, turn, held, cause=cause, now=now)
        if found is not None:
            return found
    if row.auto_pass_round is not None:
        found = _auto_pass(store, game_id, game, turn, row.auto_pass_round,
                           row.auto_pass_move or 0, cause=cause, now=now)
        if found is not None:
            return found
    only = sole_action(game)
    if only is not None:
        said = move_for(store, game_id, game, seat, only, cause=cause, now=now)
        return Happening(seat, "only_move", f"{seat} could do nothing else: "
                         f"{'; '.join(said) or 'passes'}")
    return None


def _held_orders(store: Store, game_id: str, game: Game, turn: Turn, held: HeldOrders, *,
                 cause: str, now: float) -> Happening | None:
    """Held stock-round orders: applied when the seat's own stock turn comes."""
    seat = turn.seat
    if held.round != game.round_name:
        store.drop_held(game_id, seat)
        return Happening(seat, "held_dropped", f"{seat}'s orders sent ahead were not used",
                         f"{held.round} ended before your turn came, so the orders you "
                         f"sent ahead were not applied:\n{_quoted(held.text)}", held.address)
    if not isinstance(game.round, StockRound) or turn.step != "stock turn":
        return None  # an auction or an answer comes first: the orders wait
    store.drop_held(game_id, seat)
    trial = game.clone()
    report = run_submission(trial, seat, held.text)
    if not report.ok:
        return Happening(seat, "held_refused", f"{seat}'s orders sent ahead were no longer "
                         "legal when the turn came",
                         "Your turn has come, but the orders you sent ahead are no longer "
                         "legal, so none of them was applied:\n\n" + report.text
                         + "\n\nIt is your turn now: reply with your orders.", held.address)
    start = game.next_move
    for move in report.moves:
        game.apply(move.seat, move.action)
    store.append(game_id, start, list(game.log[start:]), list(report.said),
                 cause=held.cause, actor=held.address, now=now)
    done = "; ".join(s for said in report.said for s in said)
    return Happening(seat, "held_applied", f"{seat}'s orders sent ahead: {done}",
                     report.text, held.address)


def _auto_pass(store: Store, game_id: str, game: Game, turn: Turn, round_name: str,
               since: int, *, cause: str, now: float) -> Happening | None:
    """`auto pass`: pass for the rest of this stock round unless something happened
    since it was given that concerns the seat."""
    seat = turn.seat
    if round_name != game.round_name:
        store.update_seat(game_id, seat, auto_pass_round=None, auto_pass_move=None)
        return None  # it held for a round that is over
    if not isinstance(game.round, StockRound) or turn.step != "stock turn":
        return None
    reason = _auto_pass_cancelled(game, seat, since)
    if reason is not None:
        store.update_seat(game_id, seat, auto_pass_round=None, auto_pass_move=None)
        return Happening(seat, "auto_pass_cancelled",
                         f"{seat}'s auto pass is cancelled: {reason}")
    said = move_for(store, game_id, game, seat, Pass(), cause=cause, now=now)
    return Happening(seat, "auto_pass", f"{seat} (auto pass): {'; '.join(said) or 'passes'}")


def _auto_pass_cancelled(game: Game, seat: str, since: int) -> str | None:
    """Why `auto pass` no longer holds: since move SINCE someone sold a company SEAT
    holds, or a company SEAT holds changed president."""
    corporations = game.state.corporations
    held = {sym for sym, corp in corporations.items() if corp.percent_held_by(seat)}
    for move in game.log[since:]:
        action = move.action
        if isinstance(action, SellShares) and move.seat != seat and \
                action.corporation in held:
            return f"{move.seat} sold {action.corporation}, which you hold"
    before = Game(game.setup, game.log[:since])
    for sym in sorted(held):
        was = before.state.corporations[sym].president
        now = corporations[sym].president
        if was != now:
            return f"{sym}'s president changed from {was or 'nobody'} to {now}"
    return None


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" for line in text.strip().splitlines())


# -- the clock -------------------------------------------------------------------------------


def deadline_for(store: Store, clock: Clock, seat: str, started: float) -> float:
    """When a turn of SEAT begun at STARTED ends: the game's time per turn, the clock
    stopped inside SEAT's absence windows."""
    windows = [Window(w.start, w.end) for w in store.away_windows(clock.game_id, seat)]
    return deadline_after(started, clock.allowed, windows)


def restart_clock(store: Store, game_id: str, game: Game, now: float, *, moved: bool
                  ) -> Clock | None:
    """Start the clock of the turn now running, if it is a new one; the clock."""
    clock = store.clock(game_id)
    if clock is None or clock.ended is not None:
        return clock
    turn = game.turn()
    if turn is None:
        store.update_clock(game_id, seat=None, entity=None, move=game.next_move,
                           started=None, deadline=None)
        return store.clock(game_id)
    same = clock.seat == turn.seat and clock.entity == turn.entity
    if same and not moved:
        return clock
    if is_answer(turn) and clock.deadline is not None and clock.seat != turn.seat:
        # The proposer's deadline holds for the answer: the offer expires with it.
        store.update_clock(game_id, seat=turn.seat, entity=turn.entity,
                           move=game.next_move)
        return store.clock(game_id)
    deadline = deadline_for(store, clock, turn.seat, now)
    store.update_clock(game_id, seat=turn.seat, entity=turn.entity, move=game.next_move,
                       started=now, deadline=deadline, reminders=0, late_notice=None,
                       sequence=0)
    return store.clock(game_id)


def timeout_moves(store: Store, game_id: str, game: Game, *, now: float
                  ) -> list[Happening]:
    """The late seat's moves under the timeout policy `pass` (an unanswered offer is
    declined under either policy): until the turn passes to another seat."""
    turn = game.turn()
    if turn is None:
        return []
    seat = turn.seat
    if is_answer(turn):
        said = move_for(store, game_id, game, seat, Decline(), cause="timer", now=now)
        return [Happening(seat, "expired", f"the offer to {seat} expired unanswered: "
                          f"{'; '.join(said) or 'declined'}")]
    happened: list[Happening] = []
    for _ in range(MAX_AUTOMATIC):
        turn = game.turn()
        if turn is None or turn.seat != seat or is_answer(turn):
            break
        try:
            action = conservative_action(game)
        except GameError:
            break  # nothing the moderator may choose: the game master must `force`
        said = move_for(store, game_id, game, seat, action, cause="timer", now=now)
        happened.append(Happening(seat, "timeout_move", f"{seat} (timed out): "
                                  f"{'; '.join(said) or type(action).__name__}"))
    return happened

