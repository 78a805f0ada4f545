"""One report per reader for a batch of mail: the reports a move owes to the players
who did not send it wait for the end of the inbox's batch (issue 14, speed under a burst).

Under a burst (a tournament round, a deadline wave, a mail server coming back) a game
may get several orders in one fetch of the inbox. Each sender still gets their reply
at once; the other members get ONE report at the batch's end covering every move of
the batch (their report always shows what happened since their last one), instead of
one per move -- fewer mails for them, and a fraction of the rendering for the service.

Only a plain move waits: a change whose reports say more than the moves (automatic
moves, held orders, the game's end) reports to everyone at once, and that report
catches up whoever was owed one. Which games owe reports is kept in the store (in the
mail's own transaction), so a daemon that dies before the batch's end sends them when
it starts again; a member is owed a report while their last one is behind the game.
"""

from __future__ import annotations

import json
import logging

from moderator.desk.games import GameCache
from moderator.desk.settings import ProcessorSettings
from moderator.desk.work import Work
from moderator.mail.parse import Incoming
from moderator.store import Store

__all__ = ["OWED", "catch_up", "owe", "owed"]

log = logging.getLogger(__name__)

#: The store's meta key listing the games whose members wait for a batch's report.
OWED = "reports_owed"


def owed(store: Store) -> list[str]:
    """The games that owe their members a report (oldest first)."""
    value = store.meta(OWED)
    return [str(g) for g in json.loads(value)] if value else []


def owe(store: Store, game_id: str) -> None:
    """GAME_ID owes its members the report of a move (in the caller's transaction)."""
    games = owed(store)
    if game_id not in games:
        store.set_meta(OWED, json.dumps([*games, game_id]))


def _settled(store: Store, game_id: str) -> None:
    games = owed(store)
    if game_id in games:
        store.set_meta(OWED, json.dumps([g for g in games if g != game_id]))


def catch_up(store: Store, settings: ProcessorSettings, games: GameCache, game_id: str,
             now: float) -> int:
    """In one transaction: a report to every active member of GAME_ID whose last report
    is behind the game (as their preferences want it); how many mails were queued."""
    with store.transaction():
        _settled(store, game_id)
        if not store.has_game(game_id):
            return 0
        game = games.game(game_id)
        # Fixed by the position: a second catch-up at the same move queues the same ids.
        incoming = Incoming(key=f"batch:{game_id}:{game.next_move}", message_id=None,
                            sender=None, sender_name="", subject="", recipients=(),
                            references=(), text="", no_text=None, automatic=None)
        work = Work(store, settings, games, incoming, 0, now)
        work.answers.budgeted = False  # reports of a game's progress answer nobody
        reported: set[str] = set()
        for member in store.members(game_id):
            if (member.status != "active" or member.address in reported
                    or member.reported_move >= game.next_move):
                continue
            reported.add(member.address)
            work.answers.report(game_id, member, game, intro=None)
        queued = work.answers.queue()
    work.answers.committed()
    if queued:
        log.info("%s: %d report%s for the batch, at move %d", game_id, queued,
                 "" if queued == 1 else "s", game.next_move)
    return queued
