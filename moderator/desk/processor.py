"""One mail in, in one transaction: game moves, member changes and every mail it causes.

The inbox hands over raw bytes. `Processor.receive` records them (keyed by Message-ID,
or a hash of the bytes) and commits; `Processor.process` then does everything the
mail causes inside ONE SQLite transaction -- apply the orders, append the moves,
update the members, queue every outgoing mail (rendered to bytes), and mark the mail
done. A crash before that commit leaves the mail `new`, and it is simply processed
again; after it, the mail is `done` and a second delivery or fetch of it is
recognised and ignored. So an order is applied once and each report is queued once.

`route` sends a mail to the job that answers it: `sender` finds who sent it,
`lobby` answers mail outside a started game, `play` a game's orders and commands.

This module does no network I/O and keeps no state between mails besides the store
(and a cache of replayed games), so it runs the same in the daemon (in a worker
thread) and in unit tests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.game import Game
from engine.title import available_titles
from moderator.desk import timekeeper
from moderator.desk.games import GameCache
from moderator.desk.lobby import general, general_commands, lobby, stop_mail
from moderator.desk.play import play
from moderator.desk.sender import (
    Auth,
    auth_failed,
    authenticate,
    games_of,
    identify,
    proves_stop,
)
from moderator.desk.settings import ProcessorSettings
from moderator.desk.work import Work
from moderator.mail.parse import Incoming, parse_incoming, read_key
from moderator.store import Store

__all__ = ["Outcome", "Processor", "ProcessorSettings", "route"]

log = logging.getLogger(__name__)

#: A mail whose processing killed the daemon this often is given up as poison.
MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one mail (for the log and the tests)."""

    key: str
    status: Literal["processed", "duplicate", "skipped", "failed"]
    summary: str
    game_id: str | None = None
    queued: int = 0


class Processor:
    """Records and processes mails against one store."""

    def __init__(self, store: Store, settings: ProcessorSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.games = GameCache(store)
        # The inbox and the clock both work from threads on one connection: one at once.
        self.lock = threading.RLock()

    # -- the two steps -------------------------------------------------------------------
    def receive(self, raw: bytes, size: int | None = None) -> tuple[str, bool]:
        """Record RAW unless it is known; return its key and whether it is done already.

        SIZE is the mail's size on the server when RAW is only its header (a mail too
        large to fetch whole)."""
        key, message_id = read_key(raw)
        with self.lock:
            row = self.store.add_message(key, message_id, raw,
                                         len(raw) if size is None else size, self.clock())
        return row.key, row.status == "done"

    def process(self, key: str) -> Outcome:
        """Process the recorded mail KEY in one transaction (nothing if it is done)."""
        with self.lock:
            return self._process(key)

    def tick(self) -> list[str]:
        """Look at every game's clock once (`moderator.desk.timekeeper`)."""
        with self.lock:
            return timekeeper.tick(self.store, self.settings, self.games, self.clock())

    def recover_downtime(self) -> float:
        """At start-up: extend the deadlines that ran while the service was down."""
        with self.lock:
            return timekeeper.recover_downtime(self.store, self.clock())

    def game(self, game_id: str) -> Game:
        """The stored game GAME_ID (cached; callers work on a `clone`)."""
        return self.games.game(game_id)

    def work(self, incoming: Incoming, size: int, now: float) -> Work:
        return Work(self.store, self.settings, self.games, incoming, size, now)

    def _process(self, key: str) -> Outcome:
        store = self.store
        row = store.message(key)
        if row is None:
            raise KeyError(key)
        if row.status == "done":
            return Outcome(key, "duplicate", "processed before")
        if row.attempts >= MAX_ATTEMPTS:
            return self._give_up(key, f"the daemon died {row.attempts} times processing "
                                      "it; given up")
        try:
            with store.transaction():
                # Re-read inside the transaction: another worker may have done it.
                again = store.message(key)
                if again is None or again.status == "done":
                    return Outcome(key, "duplicate", "processed before")
                work = self.work(parse_incoming(row.raw, self.settings.address), row.size,
                                 self.clock())
                summary, status = route(work)
                queued = work.answers.queue()
                store.finish_message(key, summary, game_id=work.game_id,
                                     sender=work.incoming.sender, now=work.now)
        except Exception as exc:
            log.exception("processing %s failed", key)
            return self._give_up(key, f"failed: {type(exc).__name__}: {exc}")
        work.remember_committed()
        log.info("%s from %s: %s (%d mail%s queued)", key, work.incoming.sender, summary,
                 queued, "" if queued == 1 else "s")
        return Outcome(key, status, summary, work.game_id, queued)

    def process_pending(self) -> list[Outcome]:
        """Process every recorded mail that is not done (after a crash, at start-up)."""
        outcomes = []
        for key in self.store.pending_messages():
            # Under the lock: the clock's thread may be in a transaction on the same
            # connection (a savepoint of its own would be released out of order).
            with self.lock:
                self.store.count_attempt(key)
            outcomes.append(self.process(key))
        return outcomes

    def _give_up(self, key: str, summary: str) -> Outcome:
        """Mark a mail that cannot be processed done, and tell its sender so."""
        row = self.store.message(key)
        assert row is not None
        incoming = parse_incoming(row.raw, self.settings.address)
        with self.store.transaction():
            work = self.work(incoming, row.size, self.clock())
            if incoming.automatic is None and incoming.sender is not None:
                work.answers.notice(incoming.sender, "error", their_subject=incoming.subject)
            queued = work.answers.queue()
            self.store.finish_message(key, summary, game_id=None, sender=incoming.sender,
                                      now=work.now)
        return Outcome(key, "failed", summary, None, queued)


def route(work: Work) -> tuple[str, Literal["processed", "skipped"]]:
    """Send the mail to the job that answers it; what was done, for the log."""
    inc, answers = work.incoming, work.answers
    if inc.automatic is not None:
        return f"skipped: {inc.automatic}", "skipped"
    if inc.sender is None:
        return "skipped: no sender address", "skipped"
    if work.size > work.settings.max_message_bytes:
        answers.notice(inc.sender, "too_large", their_subject=inc.subject, size=work.size,
                       limit=work.settings.max_message_bytes)
        return "refused: too large", "processed"
    if proves_stop(work):  # the sender's own unsubscribe address, whatever the text
        return stop_mail(work, inc.sender, proven=True), "processed"
    game_id, tokens = identify(work)
    work.game_id = game_id
    auth = authenticate(work, game_id, tokens) if game_id else Auth("unknown")
    if auth.status == "ok":
        assert game_id is not None
        answers.budgeted = False  # a member's own mail is always answered
        if not inc.text:
            answers.notice(inc.sender, "no_text", game_id=game_id, key=auth.key,
                           their_subject=inc.subject, reason=inc.no_text)
            return "refused: no text", "processed"
        if too_many_lines(work, game_id, auth.key):
            return "refused: too many lines", "processed"
        if work.store.has_game(game_id):
            return play(work, game_id, auth), "processed"
        return lobby(work, game_id, auth), "processed"
    if inc.text and too_many_lines(work, game_id, None):  # before parsing it at all
        return "refused: too many lines", "processed"
    if inc.text and (general_lines := general_commands(work)) is not None:
        return general(work, general_lines), "processed"
    if auth.status in ("no_token", "unregistered_sender"):
        assert game_id is not None
        return auth_failed(work, game_id, auth), "processed"
    if not inc.text.strip() and inc.subject.strip().casefold() in ("stop", "unsubscribe"):
        # The List-Unsubscribe link every mail carries: a mail with only that subject.
        return stop_mail(work, inc.sender, proven=False), "processed"
    if not inc.text:
        answers.notice(inc.sender, "no_text", their_subject=inc.subject, reason=inc.no_text)
        return "refused: no text", "processed"
    if game_id is not None:
        answers.notice(inc.sender, "unknown_sender", game_id=game_id, sender=inc.sender)
        return f"refused: {inc.sender} is not in {game_id}", "processed"
    answers.notice(inc.sender, "no_game", games=games_of(work.store, inc.sender),
                   titles=available_titles())
    return "refused: no game named", "processed"


def too_many_lines(work: Work, game_id: str | None, key: str | None) -> bool:
    """Refuse a mail with more order lines than the moderator takes (and say so)."""
    count = sum(1 for line in work.body_lines()
                if line.strip() and not line.strip().startswith("#"))
    if count <= work.settings.max_order_lines:
        return False
    assert work.incoming.sender is not None
    work.answers.notice(work.incoming.sender, "too_long", game_id=game_id, key=key,
                        their_subject=work.incoming.subject, lines=count,
                        limit=work.settings.max_order_lines)
    return True
