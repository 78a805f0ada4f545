"""Moves the moderator makes on a seat's behalf, and the clock of the running turn.

After every change to a game (a mail applied, a deadline passed, an undo) the service
calls `settle`: while the acting seat needs no thought, the moderator moves for it --
a resigned seat takes the conservative default, orders held for the seat are applied
(or dropped, saying why), a seat under `auto pass` passes unless something that
concerns it happened, and a step nobody has to decide is passed (issue 30: a player
whose only legal orders are `pass` and `done`, a company with no station marker to
place or no train to run; `engine.defaults.no_decision` decides, by the rules). Each
such move is logged like any other (cause and actor say who made it), and each
comes back as a `Happening` the service reports.

`restart_clock` then starts the clock of the turn that is now running: a new turn
(someone moved) gets the game's full time, counted only outside the seat's absence
windows; an answer to a proposal inherits the proposer's deadline, so an unanswered
offer expires when the proposer's time would have run out.

Pure of I/O besides the store it is given; the caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.actions import Action, Bid, Decline, Pass, SellShares
from engine.defaults import conservative_action, no_decision
from engine.errors import GameError
from engine.game import Game
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.base import Turn
from engine.rounds.stock import StockRound
from grammar import commands as cmd
from moderator.desk.deadlines import Window, deadline_after
from moderator.desk.orders import run_submission
from moderator.store import Clock, HeldOrders, Store

__all__ = ["MAX_AUTOMATIC", "MODERATOR", "Happening", "auction_bidders", "deadline_for",
           "held_for", "is_answer", "move_for", "restart_clock", "settle", "timeout_moves"]

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
        dropped = _passed_decisions(store, game_id, game)
        if dropped is not None:
            happened.append(dropped)
            continue
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
    skip = no_decision(game)
    if skip is not None:
        move_for(store, game_id, game, seat, skip.action, cause=cause, now=now)
        return Happening(seat, "only_move", skip.text)
    return None


def held_for(game: Game, seat: str, orders: Sequence[object]) -> str:
    """The decision ORDERS, sent ahead by SEAT now, are written for, as it is stored
    with them (`HeldOrders.round`): "Stock Round 1: auction of M-V" for a bid or a pass
    in the auction under way that SEAT is still in (applied at SEAT's turn in it, or
    dropped when it ends), else "Stock Round 1", SEAT's next stock turn of the round."""
    turn = game.turn()
    auction_orders = all(isinstance(o, Bid | Pass) for o in orders if not isinstance(
        o, cmd.Command))
    if turn is not None and turn.step.startswith("auction of ") and auction_orders \
            and seat in auction_bidders(game):
        return f"{game.round_name}: {turn.step}"
    return game.round_name


def auction_bidders(game: Game) -> tuple[str, ...]:
    """Who is still in the auction under way (none: no auction)."""
    rnd = game.round
    if isinstance(rnd, AuctionStockRound):
        if rnd.lot is not None:
            return tuple(rnd.lot.bidders)
        if rnd.opening() is not None:
            return game.setup.seats  # 1861 9.1: each in turn bids on the opening lot
        return ()
    if isinstance(rnd, StockRound) and rnd.s.auction is not None:
        auction = rnd.s.auction
        return tuple(s for s in auction.order if s not in auction.passed)
    return ()


def _decision(label: str) -> tuple[str, str]:
    """The round and the step (empty: the stock turn) of a held order's label."""
    round_name, _, step = label.partition(": ")
    return round_name, step


def _decision_over(game: Game, label: str) -> bool:
    """Whether the decision LABEL names can no longer come: its round is over, or the
    auction it names is not (or no longer) under way."""
    round_name, step = _decision(label)
    if round_name != game.round_name:
        return True
    if not step:
        return False
    turn = game.turn()
    return turn is None or turn.step != step


def _dropped(game: Game, held: HeldOrders) -> Happening:
    round_name, step = _decision(held.round)
    seat = held.seat
    if step:
        why = (f"the {step} ended before your turn in it came, so the orders you sent "
               "ahead for it were not applied (they were for that auction only)")
    else:
        why = (f"{round_name} ended before your turn came, so the orders you sent ahead "
               "were not applied")
    return Happening(seat, "held_dropped", f"{seat}'s orders sent ahead were not used",
                     f"{why}:\n{_quoted(held.text)}", held.address)


def _passed_decisions(store: Store, game_id: str, game: Game) -> Happening | None:
    """Held orders whose decision passed without the seat's turn: dropped, one at a
    time (the caller loops), each with a notice to its sender."""
    for seat in game.setup.seats:
        held = store.held(game_id, seat)
        if held is not None and _decision_over(game, held.round):
            store.drop_held(game_id, seat)
            return _dropped(game, held)
    return None


def _held_orders(store: Store, game_id: str, game: Game, turn: Turn, held: HeldOrders, *,
                 cause: str, now: float) -> Happening | None:
    """Held orders, applied at the decision they were written for (`held_for`): the
    auction they were sent in, or the seat's stock turn."""
    seat = turn.seat
    if _decision_over(game, held.round):
        store.drop_held(game_id, seat)
        return _dropped(game, held)
    _, step = _decision(held.round)
    if not isinstance(game.round, StockRound) or turn.step != (step or "stock turn"):
        return None  # an auction, a par or an answer comes first: the orders wait
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
            head = game.rules.word("head")
            return f"{sym}'s {head} changed from {was or 'nobody'} to {now}"
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

