"""One mail in, in one transaction: game moves, member changes and every mail it causes.

The inbox hands over raw bytes. `Processor.receive` records them (keyed by Message-ID,
or a hash of the bytes) and commits; `Processor.process` then does everything the
mail causes inside ONE SQLite transaction -- apply the orders, append the moves,
update the members, queue every outgoing mail (rendered to bytes), and mark the mail
done. A crash before that commit leaves the mail `new`, and it is simply processed
again; after it, the mail is `done` and a second delivery or fetch of it is
recognised and ignored. So an order is applied once and each report is queued once.

Group commit (issue 33): the mails of an inbox batch (`process(key, batch=True)`) each
commit without waiting for the disk, their outgoing mail held (`Store.lazily`); one
commit that waits for it makes the group durable and releases that mail to the
sender -- at the batch's end (`flush_reports`), or once the group has been open
`GROUP_SECONDS` (a long batch's first replies do not wait for its end). A kill of the
process loses no commit; a power cut may lose the group's last ones, of which nothing
has left the machine (mail, webhook posts), so those mails are processed again, once.
A mail processed alone commits as before, waiting for the disk.

`route` sends a mail to the job that answers it: `sender` finds who sent it,
`lobby` answers mail outside a started game, `play` a game's orders and commands.

The order of writing (`moderator.desk.ordering`): `receive` records who wrote a mail
and when; `ready` tells the daemon which recorded mails to process now and in what
order; and `route` answers a mail written before one of its sender's that was applied
first as late instead of applying it out of order.

A mail whose processing raises is not retried at once: the error is recorded (in a
transaction of its own), the mail waits (`RetryPolicy`: a doubling wait) and the next
mail goes first. After `RetryPolicy.attempts` tries -- failed, or ended by the
daemon dying -- it is quarantined: kept with its error for the operator (`moderator
quarantine`), its sender told once where that is possible. Giving up cannot fail
because of the mail: the notice is tried as the mail came, then without its name
and subject, then not at all. A mail whose Message-ID was used before by a mail
that says something else is recorded under the Message-ID and a digest of its text.

This module does no network I/O and keeps no state between mails besides the store
(and a cache of replayed games), so it runs the same in the daemon (in a worker
thread) and in unit tests.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.game import DeclaredRun, Game
from engine.title import available_titles, load_title
from engine.titles import rules_for
from grammar.names import names_for_title
from grammar.parser import warm_parser
from grammar.tournament import confirm_token_in
from moderator.desk import batching, bounces, ordering, timekeeper
from moderator.desk.games import GameCache
from moderator.desk.later import tell_later
from moderator.desk.lobby import general, general_commands, lobby, stop_mail
from moderator.desk.orders import parse_body
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
from moderator.desk.tournament.desk import tournament_lines, tournament_mail
from moderator.desk.work import Work
from moderator.mail.limits import OverBudget, budget, over_limits
from moderator.mail.parse import Incoming, message_key, parse_incoming, read_identity
from moderator.mail.webhook import Post
from moderator.reports.mapimage import map_plate
from moderator.reports.report import warm_templates
from moderator.store import MessageRow, Store

__all__ = ["MAX_ATTEMPTS", "Outcome", "Processor", "ProcessorSettings", "RetryPolicy",
           "route"]

log = logging.getLogger(__name__)

#: Tries of a mail (failed, or ended by the daemon dying) before it is quarantined.
MAX_ATTEMPTS = 5

#: Seconds a group of a batch's mails committed without a disk flush may stay open
#: before a flush releases their replies (the group's first reply waits at most this
#: long, plus one mail's processing, for the rest of the batch).
GROUP_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a mail whose processing fails is tried again: after MIN seconds, the wait
    doubling up to MAX, at most ATTEMPTS tries in all; then it is quarantined."""

    attempts: int = MAX_ATTEMPTS
    min: float = 10.0
    max: float = 900.0

    def delay(self, failures: int) -> float:
        """The wait after the FAILURES-th failed try."""
        return float(min(self.max, self.min * 2.0 ** min(max(failures - 1, 0), 30)))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one mail (for the log and the tests). `deferred`: it failed and
    waits for its next try; `failed`: it was quarantined."""

    key: str
    status: Literal["processed", "duplicate", "skipped", "deferred", "failed"]
    summary: str
    game_id: str | None = None
    queued: int = 0


class Processor:
    """Records and processes mails against one store."""

    def __init__(self, store: Store, settings: ProcessorSettings,
                 clock: Callable[[], float] = time.time,
                 retry: RetryPolicy | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        # A webhook post of a mail committed without a disk flush waits for the flush.
        self._notify = settings.notify
        self._held_posts: list[Post] = []
        self.settings = (settings if settings.notify is None else
                         dataclasses.replace(settings, notify=self._post))
        self.clock = clock  # the games' time (tests advance it by days)
        self.wall = wall  # the time retries are scheduled by: the daemon's real time
        self.retry = retry or RetryPolicy()
        self.games = GameCache(store)
        # The inbox and the clock both work from threads on one connection: one at once.
        self.lock = threading.RLock()
        # CPU seconds spent in `receive` and `process` (of the thread doing them): what
        # the mail costs the moderator, whatever else shares the process or the machine.
        self.cpu = 0.0
        # A batch of the inbox is under way: its reports wait for `flush_reports`.
        self.batch_open = False
        # Commits of a group not yet on the disk (a daemon that died may have left held
        # mail: the first `flush_reports` releases it), and since when (wall time).
        self.unsynced = True
        self.group_since: float | None = None
        # Declared runs of committed mails whose better run is still to be searched
        # (`moderator.desk.later`, `better_runs`), and the CPU seconds those searches
        # took.
        self.declared: list[tuple[str, DeclaredRun]] = []
        self.later_cpu = 0.0

    # -- the two steps -------------------------------------------------------------------
    def receive(self, raw: bytes, size: int | None = None,
                kept_elsewhere: bool = False) -> tuple[str, bool]:
        """Record RAW unless it is known; return its key and whether it is done already.
        Recording counts a try of it (one that never ends means the daemon died).

        SIZE is the mail's size on the server when RAW is only its header (a mail too
        large to fetch whole). KEPT_ELSEWHERE: the mail stays where it came from until
        it is processed (the IMAP inbox flags it only then), so its record need not
        reach the disk before the commit of its processing does (`Store.lazily`; a
        flush per mail recorded cost a burst about 7 ms a mail on this kind of disk)."""
        with self.lock:
            started = time.thread_time()
            try:
                message_id, digest = read_identity(raw)
                seen = self.wall()
                author, written = ordering.stamp(raw, seen)
                with (self.store.lazily() if kept_elsewhere else contextlib.nullcontext()), \
                        self.store.transaction():
                    key = self._key_for(raw, message_id, digest)
                    row = self.store.add_message(key, message_id, raw,
                                                 len(raw) if size is None else size,
                                                 self.clock(), author=author,
                                                 written=written, seen=seen)
                    if row.status == "new" and row.attempts == 0:  # new (a known one
                        self.store.set_digest(key, digest)  # was counted)
                        self.store.count_attempt(key)
            finally:
                self.cpu += time.thread_time() - started
        return row.key, row.status == "done"

    def _key_for(self, raw: bytes, message_id: str | None, digest: str) -> str:
        """The Message-ID -- unless a mail that says something else came with it before
        (a reused or forged Message-ID): then the Message-ID and a digest."""
        if message_id is None:
            return message_key(raw, None)
        known, stored = self.store.message_digest(message_id)
        if not known or stored is None or stored == digest:
            return message_id
        log.info("Message-ID %s came before with other content: a new mail", message_id)
        return f"{message_id} sha256:{digest[:16]}"

    def process(self, key: str, batch: bool = False) -> Outcome:
        """Process the recorded mail KEY in one transaction (nothing if it is done).

        BATCH: the mail is one of a batch of the inbox; a plain move's reports to the
        members who did not send it wait for `flush_reports` at the batch's end."""
        with self.lock:
            started = time.thread_time()
            self.batch_open = self.batch_open or batch
            try:
                return self._process(key, batch)
            finally:
                self.cpu += time.thread_time() - started

    def ready(self, window: float) -> tuple[list[str], float | None]:
        """The recorded mails to process now, in the order their authors wrote them,
        each waiting until WINDOW seconds after it was first seen (`ordering.ready`);
        and when the next of the others is ready (real time; None: none waits)."""
        with self.lock:
            chosen, due = ordering.ready(self.store.waiting_messages(), self.wall(), window)
        return [m.key for m in chosen], due

    def synced(self) -> None:
        """Make every mail recorded so far durable (a commit that waits for the disk
        carries the lazy ones before it): the inbox flags mail done on the server only
        after this, and the database is then the only place that has it."""
        with self.lock, self.store.transaction():
            self.store.set_meta("inbox_synced", repr(self.wall()))

    def flush_reports(self) -> int:
        """The reports the batch's moves owe (`moderator.desk.batching`): one to each
        member behind, per game; then the group's commit to the disk, which releases
        the mail its mails queued (`release`). How many mails the outbox has to send
        now: the reports, and the mail released. A game whose reports fail is logged and
        left owed for the next flush."""
        with self.lock:
            started = time.thread_time()
            queued = 0
            self.batch_open = False
            try:
                owed = batching.owed(self.store)
                if owed:
                    self._open_group()
                with self.store.lazily(hold=True) if owed else contextlib.nullcontext():
                    for game_id in owed:
                        try:
                            queued += batching.catch_up(self.store, self.settings,
                                                        self.games, game_id, self.clock())
                        except Exception:
                            log.exception("the batch's reports of %s failed", game_id)
                self._keep_positions()
                released = self.release()
            finally:
                self.cpu += time.thread_time() - started
            return max(queued, released)

    def better_runs(self) -> int:
        """Search the better run than each declared run of the mails committed and
        tell what is found (`moderator.desk.later`); how many were told. Called once
        their answers are on their way (the service: after it has woken the outbox for
        them, a batch's after `flush_reports`). A failure is logged: the runs stand."""
        told = 0
        while True:
            # The lock is taken a search at a time, so that a mail arriving meanwhile
            # waits for one search at most, not for a whole burst's (the searches share
            # the games and their track caches with the mails: never two at once).
            with self.lock:
                if not self.declared:
                    return told
                started = time.thread_time()
                game_id, run = self.declared.pop(0)
                try:
                    told += self._better_run(game_id, run)
                except Exception:
                    log.exception("the better run of %s move %d failed", game_id, run.move)
                finally:
                    self.later_cpu += time.thread_time() - started

    def _better_run(self, game_id: str, run: DeclaredRun) -> bool:
        game = self.games.game(game_id)
        clock = self.store.clock(game_id)
        if run.move not in game.effective or game.state.game_over or (
                clock is not None and clock.ended is not None):
            # Taken back meanwhile, or the game has ended, by its rules or on the game
            # master's word (its final report has gone: a note would help nobody).
            return False
        note = run.better_run(game.rules)
        if note is None:
            return False
        # Nothing queued: a commit without a flush (the next one carries it).
        with self.store.lazily(), self.store.transaction():
            tell_later(self.store, game_id, run.move, note)
        log.info("%s move %d: %s", game_id, run.move, note)
        return True

    def _keep_positions(self) -> None:
        """The positions of the games moved on, kept for a quick load after a start
        (`GameCache.keep_positions`): a cache, so written without a flush of its own
        (the group's flush carries it), and a failure only logged."""
        try:
            with self.store.lazily():
                self.games.keep_positions()
        except Exception:
            log.exception("keeping the games' positions failed")

    def release(self) -> int:
        """Commit the open group to the disk (one flush covers its every commit) and let
        the sender have the mail it holds; hand over its webhook posts. How many mails
        were released (0, and nothing written, when no group is open)."""
        with self.lock:
            if not self.unsynced:
                return 0
            with self.store.transaction():  # synchronous=FULL: waits for the disk
                released = self.store.release_held()
                self.store.set_meta("group_synced", repr(self.wall()))
            self.unsynced, self.group_since = False, None
            posts, self._held_posts = self._held_posts, []
            for post in posts:
                self._forward(post)
            return released

    def _open_group(self) -> None:
        """Commits without a disk flush follow: they wait for `release`."""
        self.unsynced = True
        if self.group_since is None:
            self.group_since = self.wall()

    def _post(self, post: Post) -> None:
        """A webhook post of a committed mail: handed over now, or with the group's
        flush when its commit waits for one."""
        if self.group_since is not None:
            self._held_posts.append(post)
        else:
            self._forward(post)

    def _forward(self, post: Post) -> None:
        if self._notify is not None:
            self._notify(post)

    def warm_up(self) -> float:
        """Build now what every first mail after a start would otherwise wait for: the
        order grammar's parser and the mail templates (together about a quarter of a
        second, issue 14), and the map of each title in play (its fonts, and the texts
        of every hex no tile has reached: 40 ms of 18TN's first map, 70 ms of 1861's,
        issue 33). The CPU seconds it took."""
        started = time.thread_time()
        warm_parser(names_for_title(load_title(available_titles()[0])))
        warm_templates()
        with self.lock:
            titles = {(row.setup.title, row.setup.options) for row in self.store.games()
                      if (clock := self.store.clock(row.id)) is None or clock.ended is None}
        for name, options in sorted(titles, key=lambda t: (t[0], sorted(t[1]))):
            map_plate(rules_for(name, options).title)
        return time.thread_time() - started

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

    def _process(self, key: str, batch: bool = False) -> Outcome:
        store = self.store
        row = store.message(key)
        if row is None:
            raise KeyError(key)
        if row.status == "done":
            return Outcome(key, "duplicate", "processed before")
        state = store.message_state(key)
        failures = state.failures if state is not None else 0
        if row.attempts > self.retry.attempts:
            # Every earlier try failed or never ended (the daemon died in it).
            error = (state.last_error if state is not None and state.last_error else
                     f"the daemon died {row.attempts - 1 - failures} times processing it")
            # If giving it up died too (the mail kills the process as it is read),
            # it is given up without being read again.
            return self._quarantine(key, row.attempts - 1, error,
                                    read=row.attempts == self.retry.attempts + 1)
        if (over := over_limits(row.raw)) is not None:  # issue 31: never parsed
            return self._quarantine(key, row.attempts, f"over the mail limits: {over}",
                                    read=False)
        if batch:
            self._open_group()
        try:
            with store.lazily(hold=True) if batch else contextlib.nullcontext(), \
                    store.transaction():
                # Re-read inside the transaction: another worker may have done it.
                again = store.message(key)
                if again is None or again.status == "done":
                    return Outcome(key, "duplicate", "processed before")
                with budget(self.settings.mail_budget):
                    work = self.work(parse_incoming(row.raw, self.settings.address, key),
                                     row.size, self.clock())
                    work.defer_reports = batch
                    # A bounce of our own mail is recorded, never answered (issue 29).
                    summary, status = bounces.handle(work, row.raw) or route(work)
                    queued = work.answers.queue()
                store.finish_message(key, summary, game_id=work.game_id,
                                     sender=work.incoming.sender, now=work.now)
        except OverBudget:  # it would take as long again: given up at once, unread
            log.error("processing %s went over its budget of %.1f CPU seconds", key,
                      self.settings.mail_budget)
            return self._quarantine(
                key, row.attempts, f"its processing went over the budget of "
                f"{self.settings.mail_budget:g} CPU seconds", read=False)
        except Exception as exc:
            log.exception("processing %s failed (try %d of %d)", key, row.attempts,
                          self.retry.attempts)
            return self._failed(key, row.attempts, failures + 1,
                                f"{type(exc).__name__}: {exc}")
        work.remember_committed()
        self.declared += work.declared
        log.info("%s from %s: %s (%d mail%s queued)", key, work.incoming.sender, summary,
                 queued, "" if queued == 1 else "s")
        if batch and self.group_since is not None and \
                self.wall() - self.group_since >= GROUP_SECONDS:
            self.release()  # the group's first replies wait no longer
        return Outcome(key, status, summary, work.game_id, queued)

    def process_pending(self) -> list[Outcome]:
        """Try every recorded mail that is not done once (at start-up: after a crash,
        or mail waiting for a retry). A mail that fails waits again; none stops this."""
        waiting = ordering.arrange(self.store.waiting_messages(retries_too=True))
        return [self.try_again(mail.key) for mail in waiting]

    def retry_due(self) -> list[Outcome]:
        """Try the mails whose next try is due (failed ones, released ones)."""
        return [self.try_again(key) for key in self.store.due_retries(self.wall())]

    def try_again(self, key: str) -> Outcome:
        """One more try of the recorded mail KEY, counted before it starts."""
        # Under the lock: the clock's thread may be in a transaction on the same
        # connection (a savepoint of its own would be released out of order).
        with self.lock:
            self.store.count_attempt(key)
        return self.process(key)

    def _failed(self, key: str, attempts: int, failures: int, error: str) -> Outcome:
        """Try number ATTEMPTS of KEY raised ERROR: wait for the next, or give up."""
        if attempts >= self.retry.attempts:
            return self._quarantine(key, attempts, error)
        wait = self.retry.delay(failures)
        self.store.record_failure(key, error, self.wall() + wait)
        return Outcome(key, "deferred", f"failed ({error}); tried again in {wait:.0f}s")

    def _quarantine(self, key: str, tries: int, error: str, read: bool = True) -> Outcome:
        """Give KEY up: keep it with ERROR for the operator, and tell its sender once
        where possible (READ: the mail may be read again for that). Nothing the mail
        holds can make this raise."""
        row = self.store.message(key)
        assert row is not None
        incoming = (parse_incoming(row.raw, self.settings.address, key) if read else
                    Incoming(key, row.message_id, None, "", "", (), (), "", None,
                             "not read again: reading it stopped the daemon"))
        summary = (f"quarantined (given up after {tries} tr{'y' if tries == 1 else 'ies'}): "
                   f"{error}")
        now = self.clock()
        with self.store.transaction():
            queued = self._quarantine_notice(row, incoming, tries)
            self.store.finish_message(key, summary, game_id=None, sender=incoming.sender,
                                      now=now)
            self.store.quarantine(key, error, self.wall())
        log.error("mail %s from %s %s; `moderator quarantine show` shows it", key,
                  incoming.sender, summary)
        return Outcome(key, "failed", summary, None, queued)

    def _quarantine_notice(self, row: MessageRow, incoming: Incoming, tries: int) -> int:
        """The `quarantined` notice to the sender (0 when none can go): as the mail
        came, else without anything taken from it but the address."""
        if incoming.automatic is not None or incoming.sender is None:
            return 0
        state = self.store.message_state(row.key)
        number = state.number if state is not None else 0
        # A key of its own: the answer the mail gets if it is released and succeeds
        # must not share the notice's Message-ID (the outbox would take it for a
        # repeat); a second quarantine of it repeats the notice's and sends nothing.
        noticed = dataclasses.replace(incoming, key=f"{incoming.key} quarantined")
        plain = dataclasses.replace(noticed, sender_name="", subject="", references=(),
                                    message_id=None)
        for variant in (noticed, plain):
            try:
                with self.store.transaction():  # a savepoint: a failed try leaves nothing
                    assert variant.sender is not None
                    work = self.work(variant, row.size, self.clock())
                    work.answers.notice(variant.sender, "quarantined",
                                        their_subject=variant.subject, tries=tries,
                                        reference=f"#{number}")
                    return work.answers.queue()
            except Exception:
                log.exception("the notice for quarantined mail %s failed", row.key)
        return 0


_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv|antw)\s*:\s*)+", re.I)
_GAME_TAG = re.compile(r"\[[^\]]*\]")


def subject_orders(work: Work, game_id: str) -> str | None:
    """The orders a mail with no text has in its subject (reply prefixes and the
    `[GAME]` tag left out), when the subject reads wholly as orders of the started
    game GAME_ID; None otherwise (a moderator's subject such as "OR 1.1: Bob to move"
    does not read as orders)."""
    if not work.store.has_game(game_id):
        return None
    text = _GAME_TAG.sub(" ", _REPLY_PREFIX.sub("", work.incoming.subject)).strip()
    if not text:
        return None
    submission = parse_body(work.games.game(game_id), text)
    lines = submission.lines
    if not lines or any(line.error is not None or not line.orders for line in lines):
        return None
    return text


def order_examples(work: Work, game_id: str) -> tuple[str, ...]:
    """Orders of this game's title to show a player whose mail had no text: what the
    game expects now (its placeholders as they are), else the plainest orders."""
    if work.store.has_game(game_id):
        game = work.games.game(game_id)
        listed = [option.split(" (")[0] for option in game.legal()]
        if listed:
            return tuple(listed[:2])
    return ("pass", "status")


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
        if not inc.text and (orders := subject_orders(work, game_id)) is not None:
            # Orders written in the subject of a mail with no text (issue 30): read
            # there rather than costing the player a day.
            work.incoming = work.answers.incoming = dataclasses.replace(
                inc, text=orders + "\n", no_text=None)
        if not work.incoming.text:
            answers.notice(inc.sender, "no_text", game_id=game_id, key=auth.key,
                           their_subject=inc.subject, reason=inc.no_text,
                           examples=order_examples(work, game_id))
            return "refused: no text", "processed"
        if too_many_lines(work, game_id, auth.key):
            return "refused: too many lines", "processed"
        if work.store.has_game(game_id):
            # A mail written before one of its sender's that was applied first: never
            # applied out of the order written (issue 29).
            if (late := ordering.written_late(work, game_id, auth.key)) is not None:
                return late, "processed"
            return play(work, game_id, auth), "processed"
        return lobby(work, game_id, auth), "processed"
    if inc.text and too_many_lines(work, game_id, None):  # before parsing it at all
        return "refused: too many lines", "processed"
    # A reply to a tournament's confirmation request may hold nothing of its writer's
    # own but the quote (blanked by the reply reading): its subject's token is the yes.
    if (inc.text or confirm_token_in(inc.subject)) and (
            lines := tournament_lines(work)) is not None:
        return tournament_mail(work, lines), "processed"
    if inc.text and (general_lines := general_commands(work)) is not None:
        return general(work, general_lines), "processed"
    if auth.status in ("no_token", "unregistered_sender"):
        assert game_id is not None
        summary = auth_failed(work, game_id, auth)
        if auth.status == "unregistered_sender" and inc.sender not in {
                m.address for m in auth.claimed}:
            # The sender gets what to do, never the seat's address.
            answers.notice(inc.sender, "wrong_address", game_id=game_id,
                           sender=inc.sender, their_subject=inc.subject,
                           claimed=sorted({m.seat or ("the game master" if m.role == "master"
                                                      else "an observer")
                                           for m in auth.claimed}))
        return summary, "processed"
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
