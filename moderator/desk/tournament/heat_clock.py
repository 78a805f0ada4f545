"""A heat's deadline (`heat deadline 14d`, `start heat NAME deadline 14d`): the clock
tells the players at the tables still playing a day before (a quarter of the heat, for a
heat shorter than four days), and at the deadline ends those tables and scores them on
their position, like the director's `end table`.

`tick_heats` runs with the games' clocks (`moderator.desk.timekeeper.tick`), every
`tick_interval` seconds; each tournament's tick is one transaction, like a mail.
"""

from __future__ import annotations

import logging

from moderator.desk.deadlines import format_deadline
from moderator.desk.games import GameCache
from moderator.desk.settings import ProcessorSettings
from moderator.desk.tournament.desk import end_table
from moderator.desk.tournament.results import tell
from moderator.desk.work import Work
from moderator.mail.parse import Incoming
from moderator.store import Store, Tournament

__all__ = ["NOTICE", "extend_heats", "notice_lead", "tick_heats"]

log = logging.getLogger(__name__)

#: How long before a heat's deadline its players are told (at most).
NOTICE = 86400.0


def notice_lead(started: float | None, ends: float) -> float:
    """How long before ENDS the notice goes: a day, or a quarter of a shorter heat."""
    length = ends - started if started is not None else 4 * NOTICE
    return min(NOTICE, max(length, 0.0) / 4)


def tick_heats(store: Store, settings: ProcessorSettings, games: GameCache, now: float
               ) -> list[str]:
    """Look at every heat with a deadline once; what was done, for the log."""
    done: list[str] = []
    for name in store.timed_heats():
        incoming = Incoming(key=f"heat:{name}:{now!r}", message_id=None, sender=None,
                            sender_name="", subject="", recipients=(), references=(),
                            text="", no_text=None, automatic=None)
        with store.transaction():
            work = Work(store, settings, games, incoming, 0, now)
            work.answers.budgeted = False  # the clock's mail answers nobody
            tournament = store.tournament(name)
            summary = _tick(work, tournament) if tournament is not None else None
            if summary:
                work.answers.queue()
        if summary:
            work.remember_committed()
            log.info("%s: %s", name, summary)
            done.append(f"{name}: {summary}")
    return done


def _tick(work: Work, tournament: Tournament) -> str | None:
    store, now = work.store, work.now
    ends = tournament.heat_ends
    assert ends is not None
    running = [t for t in store.tournament_tables(tournament.name)
               if t.heat == tournament.heat and t.ended is None]
    if not running:
        return None
    stage = "the final" if tournament.heat > tournament.heats else f"heat {tournament.heat}"
    if now >= ends:
        for table in running:
            end_table(work, tournament, table, f"{stage} of {tournament.name} has reached "
                      "its deadline, and this table has ended", "the heat's deadline")
        return f"{stage}'s deadline: {', '.join(t.game_id for t in running)} ended"
    if tournament.heat_warned is not None or \
            now < ends - notice_lead(tournament.heat_started, ends):
        return None
    store.update_tournament(tournament.name, heat_warned=now)
    told = 0
    rule = ("At the deadline every table still playing is ended and scored on its "
            "position then, as if the game had ended there.")
    for table in running:
        for holder in store.holders(table.game_id):
            if holder.until is not None:
                continue
            zone = store.preferences(holder.address).timezone
            tell(work, holder.address, tournament.name, f"{stage} ends soon",
                 f"{stage} ends {format_deadline(ends, zone, now=now)}",
                 f"Your table {table.game_id} ({table.title}) is still playing. {rule}")
            told += 1
    zone = store.preferences(tournament.director).timezone
    tell(work, tournament.director, tournament.name, f"{stage} ends soon",
         f"{stage} ends {format_deadline(ends, zone, now=now)}",
         "Still playing: " + ", ".join(t.game_id for t in running) + f". {rule} The "
         "players at those tables have been told.")
    return f"{stage} ends soon: {told} told"


def extend_heats(store: Store, seen: float, gap: float) -> None:
    """The service was down for GAP seconds after SEEN: a heat's deadline still ahead
    then is moved by as much, like the turns' deadlines (`timekeeper.recover_downtime`),
    so that no table is ended for time nobody could play."""
    for name in store.timed_heats():
        tournament = store.tournament(name)
        if tournament is not None and tournament.heat_ends is not None and \
                tournament.heat_ends > seen:
            store.update_tournament(name, heat_ends=tournament.heat_ends + gap)
