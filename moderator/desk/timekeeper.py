"""What the clock does to games: reminders, deadlines, late players, downtime.

`tick` looks at every running game's clock (`moderator.store.Clock`) once; the
service calls it every `tick_interval` seconds. For the player who owes a move it
sends a reminder at half time and `reminder_hours` before the deadline (never more
than one reminder per person per hour). At the deadline an unanswered offer expires
(declined), and otherwise the game's timeout policy applies:

* ``wait`` -- the game master and the players are told who is late, and the late
  player is reminded daily;
* ``pass`` -- the moderator plays the late seat's conservative default
  (`engine.defaults.conservative_action`) until the turn passes to another seat,
  and everyone gets the report.

Each game's tick is one transaction, like a mail. A late mark is recorded per person
(`lateness`), so reliability follows the player, not the seat.

`recover_downtime` runs when the service starts: deadlines that passed while it was
down are extended by the time it was down, rather than everyone being late at once.
"""

from __future__ import annotations

import logging

from moderator.desk.changes import advance
from moderator.desk.deadlines import format_deadline, reminder_times
from moderator.desk.games import GameCache
from moderator.desk.settings import ProcessorSettings
from moderator.desk.tournament.heat_clock import extend_heats, tick_heats
from moderator.desk.turns import is_answer, timeout_moves
from moderator.desk.work import Work
from moderator.mail.parse import Incoming
from moderator.store import Clock, Store

__all__ = ["CLOCK_SEEN", "DOWNTIME", "recover_downtime", "tick"]

log = logging.getLogger(__name__)

#: The meta key holding when the service last looked at the clocks.
CLOCK_SEEN = "clock_seen"
#: A gap longer than this between two looks means the service was down.
DOWNTIME = 600.0
DAY = 86400.0
HOUR = 3600.0


def timer_incoming(key: str) -> Incoming:
    """The stand-in for "the mail that caused this" when the clock is the cause."""
    return Incoming(key=key, message_id=None, sender=None, sender_name="", subject="",
                    recipients=(), references=(), text="", no_text=None, automatic=None)


def tick(store: Store, settings: ProcessorSettings, games: GameCache, now: float
         ) -> list[str]:
    """Look at every running game's clock once; what was done, for the log."""
    done: list[str] = []
    for clock in store.clocks():
        if clock.paused is not None or clock.seat is None or clock.deadline is None:
            continue
        incoming = timer_incoming(f"timer:{clock.game_id}:{now!r}")
        with store.transaction():
            work = Work(store, settings, games, incoming, 0, now)
            work.answers.budgeted = False  # the clock's mail answers nobody
            summary = _tick_game(work, clock)
            if summary:
                work.answers.queue()
        if summary:
            work.remember_committed()
            log.info("%s: %s", clock.game_id, summary)
            done.append(f"{clock.game_id}: {summary}")
    done += tick_heats(store, settings, games, now)  # tournament heats with a deadline
    with store.transaction():
        store.set_meta(CLOCK_SEEN, repr(now))
    return done


def _tick_game(work: Work, clock: Clock) -> str | None:
    store, now = work.store, work.now
    game_id, seat = clock.game_id, clock.seat
    assert seat is not None and clock.deadline is not None and clock.started is not None
    game = work.games.game(game_id).clone()
    turn = game.turn()
    if turn is None or turn.seat != seat:
        return None  # the clock is behind the game (a CLI move): the next change fixes it
    addresses = [m.address for m in store.members(game_id)
                 if m.role == "player" and m.seat == seat and m.status == "active"]
    if now >= clock.deadline:
        answer = is_answer(turn)
        if answer or clock.timeout == "pass":
            if not answer:
                for address in addresses:
                    store.record_late(address, game_id, seat, game.next_move, clock.deadline,
                                      clock.timeout, now)
            happened = timeout_moves(store, game_id, game, now=now)
            if happened:
                when = format_deadline(clock.deadline, "UTC", now=now)
                intro = (f"{seat} did not move by the deadline ({when})"
                         + ("." if answer else "; under the timeout policy `pass` the "
                            "moderator played the seat's conservative default:"))
                intro += "\n" + "\n".join(f"  {h.text}" for h in happened)
                extra = advance(work, game_id, game, moved=True, cause="timer")
                work.answers.broadcast(game_id, game, "\n\n".join(filter(None, [intro, extra])))
                return f"{seat} timed out: {len(happened)} move(s) made"
        return _late(work, clock, addresses, first=clock.late_notice is None)
    due = sum(1 for t in reminder_times(clock.started, clock.deadline,
                                       before=work.settings.reminder_hours * HOUR)
              if t <= now)
    if due <= clock.reminders:
        return None
    store.update_clock(game_id, reminders=due)
    sent = 0
    for address in addresses:
        if store.sent_since(address, ("reminder",), now - HOUR):
            continue  # at most one reminder an hour
        zone = store.preferences(address).timezone
        work.answers.mail(address, "notice", "reminder", game_id=game_id, key=seat,
                  subject_text="your move", kind="reminder", seat=seat, step=turn.step,
                  entity=turn.entity, round=game.round_name,
                  deadline=format_deadline(clock.deadline, zone, now=now),
                  policy=clock.timeout)
        sent += 1
    return f"reminded {seat}" if sent else None


def _late(work: Work, clock: Clock, addresses: list[str], *, first: bool) -> str | None:
    """Under `wait`: tell everyone once, then remind the late player daily."""
    store, now, game_id = work.store, work.now, clock.game_id
    seat = clock.seat
    assert seat is not None and clock.deadline is not None
    if not first and clock.late_notice is not None and now - clock.late_notice < DAY:
        return None
    store.update_clock(game_id, late_notice=now)
    if first:
        for address in addresses:
            store.record_late(address, game_id, seat, clock.move or 0, clock.deadline,
                              clock.timeout, now)
        told: set[str] = set()
        for member in store.members(game_id):
            if member.status != "active" or member.role == "observer" or \
                    member.address in told:
                continue
            told.add(member.address)
            zone = store.preferences(member.address).timezone
            work.answers.mail(
                member.address, "notice", "reminder" if member.seat == seat else "notice",
                game_id=game_id, key=work.answers.key_for(game_id, member.address),
                subject_text=f"{seat} is late", kind="late", seat=seat,
                you_late=member.seat == seat, master=member.role == "master",
                deadline=format_deadline(clock.deadline, zone, now=now))
        return f"{seat} is late: everyone told"
    for address in addresses:
        zone = store.preferences(address).timezone
        work.answers.mail(address, "notice", "reminder", game_id=game_id, key=seat,
                  subject_text="you are late", kind="late", seat=seat, you_late=True,
                  master=False, deadline=format_deadline(clock.deadline, zone, now=now))
    return f"{seat} is still late: reminded"


def recover_downtime(store: Store, now: float) -> float:
    """Extend the deadlines that ran while the service was down; the downtime."""
    seen = store.meta(CLOCK_SEEN)
    with store.transaction():
        store.set_meta(CLOCK_SEEN, repr(now))
        if seen is None:
            return 0.0
        gap = now - float(seen)
        if gap <= DOWNTIME:
            return 0.0
        for clock in store.clocks():
            # Only a turn that was running when the service stopped: a player already
            # late then stays late.
            if clock.deadline is not None and clock.deadline > float(seen):
                store.update_clock(clock.game_id, deadline=clock.deadline + gap,
                                   started=(clock.started or now) + gap,
                                   sequence=clock.sequence + 1)
        extend_heats(store, float(seen), gap)  # a tournament heat's deadline too
    log.info("the service was down for %.0f s: running deadlines extended by that", gap)
    return gap
