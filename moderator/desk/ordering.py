"""The order of writing (issue 29, item 5): a player's mails applied as he wrote them.

A mail server may deliver a burst out of order (Postfix hands a queue to its delivery
agents in parallel): of 50 moves one player mailed quickly, arrival order applied as
few as 4. So arrival is not taken as the order of writing:

* `stamp`: at recording, a mail's author (its From address's mailbox) and when it was
  written -- its Date header, kept only within reason: a Date more than
  `CLOCK_SKEW` after the mail arrived, or more than `MAX_DELAY` before, or none, or
  unreadable, counts as the arrival itself. A hostile Date thus moves its own mail by
  minutes at most, and only among its author's mails (`arrange`).
* `ready`: a recorded mail waits until it is ``order_window`` seconds old (by when
  the daemon first saw it), so that the mails a player wrote before it can arrive;
  an author's younger mails written before a ready one go with it. The mails ready
  together are processed in arrival order among authors, each author's in the order
  written (`arrange`).
* `written_late`: a mail that arrives after a later-written mail of the same author
  to the same game was applied is not applied out of order: its sender is told it
  came late, and may send it again.
"""

from __future__ import annotations

import email.parser
import email.policy
import email.utils
import math
from collections.abc import Sequence
from datetime import UTC, datetime

from moderator.desk.work import Work
from moderator.store import Waiting, mailbox_of

__all__ = ["CLOCK_SKEW", "MAX_DELAY", "arrange", "ready", "stamp", "written_late"]

#: A Date this far after the arrival is a clock running fast (kept); further, absurd.
CLOCK_SKEW = 900.0
#: A Date this far before the arrival is a mail held up on its way (kept); further,
#: absurd (a clock at 1970, a forged header).
MAX_DELAY = 7 * 86400.0

_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.compat32)


def stamp(raw: bytes, seen: float) -> tuple[str | None, float]:
    """The author of the mail RAW and when it was written, the arrival SEEN standing in
    for a Date that is missing or out of reason (see the module's text)."""
    try:
        headers = _HEADERS.parsebytes(raw)
        address = email.utils.parseaddr(str(headers.get("From", "")))[1]
        date = str(headers.get("Date", "") or "")
    except Exception:  # a header no parser makes sense of: arrival order
        return None, seen
    author = mailbox_of(address) if "@" in address else None
    return author, written_at(date, seen)


def written_at(date: str, seen: float) -> float:
    """The Date header DATE as a time, or SEEN where it is missing or absurd."""
    try:
        parsed = email.utils.parsedate_to_datetime(date) if date.strip() else None
    except (TypeError, ValueError, IndexError, OverflowError):
        parsed = None
    if parsed is None:
        return seen
    if parsed.tzinfo is None:  # "-0000": the zone is unknown; UTC is the best guess
        parsed = parsed.replace(tzinfo=UTC)
    try:
        written = parsed.timestamp()
    except (OverflowError, OSError, ValueError):
        return seen
    if not math.isfinite(written) or not seen - MAX_DELAY <= written <= seen + CLOCK_SKEW:
        return seen
    return written


def arrange(mails: Sequence[Waiting]) -> list[Waiting]:
    """MAILS in the order to process them: the authors take turns as their mails
    arrived, and each author's mails fill his places in the order written (then
    arrival). A hostile Date can move a mail only among its author's own."""
    by_arrival = sorted(mails, key=lambda m: m.number)
    own: dict[str | None, list[Waiting]] = {}
    for mail in by_arrival:
        own.setdefault(mail.author, []).append(mail)
    for author, theirs in own.items():
        if author is not None:  # mails without an author keep their arrival order
            theirs.sort(key=lambda m: (m.written, m.seen, m.number))
    taken = {author: iter(theirs) for author, theirs in own.items()}
    return [next(taken[mail.author]) for mail in by_arrival]


def ready(mails: Sequence[Waiting], now: float, window: float
          ) -> tuple[list[Waiting], float | None]:
    """Of MAILS (waiting for their first try), those to process at NOW, in order, and
    when the next of the others will be ready (None: none waits).

    A mail is ready once seen WINDOW seconds ago; a younger mail goes with it when its
    author wrote it before a ready one of his (it arrived late: it comes first)."""
    ripe = [m for m in mails if m.seen + window <= now]
    latest: dict[str, float] = {}
    for mail in ripe:
        if mail.author is not None:
            latest[mail.author] = max(latest.get(mail.author, mail.written), mail.written)
    chosen = [m for m in mails if m.seen + window <= now or (
        m.author is not None and m.author in latest and m.written <= latest[m.author])]
    keys = {m.key for m in chosen}
    rest = [m.seen + window for m in mails if m.key not in keys]
    return arrange(chosen), (min(rest) if rest else None)


def written_late(work: Work, game_id: str, key: str | None) -> str | None:
    """If a mail its sender wrote after this one, to this game, was applied first:
    answer that this one came late (KEY: the seat's, for the answer's footer) and say
    what was done; else None."""
    author, written = work.store.message_written(work.incoming.key)
    if author is None or written is None:
        return None
    later = work.store.applied_after(author, game_id, work.incoming.key, written)
    if later is None:
        return None
    later_key, later_written, later_raw = later
    try:
        subject = str(_HEADERS.parsebytes(later_raw).get("Subject", "") or "")
    except Exception:
        subject = ""
    assert work.incoming.sender is not None
    work.answers.notice(work.incoming.sender, "written_late", game_id=game_id, key=key,
                        their_subject=work.incoming.subject, written=_when(written),
                        later_written=_when(later_written),
                        later_subject=" ".join(subject.split())[:120])
    return f"refused: written before {later_key}, which was applied first"


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
