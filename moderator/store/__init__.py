"""The SQLite store: games and their move logs, and the mail service's tables.

A game row holds its set-up; its moves are rows numbered from 0. The log is the only
truth: loading a game replays its moves. Appending checks that nobody appended in
between (the expected next number), inside one transaction.

The mail service adds (schema version 2):

* ``messages``: every mail the inbox fetched, raw, keyed by its Message-ID (or a hash
  of its bytes when it has none); ``status`` is ``new`` until the one transaction that
  processes it sets ``done``. The key is what makes a mail delivered twice, or fetched
  again after a crash, count once.
* ``outbox``: every mail the service will send, rendered to bytes when it is queued
  (in the same transaction as the change that causes it); the sender task drains it.
* ``mail_games``: games run by mail: their game master, and their set-up until
  ``start`` makes them a game (`games`).
* ``members``: who takes part in a mail game, one row per address and role
  (``master``, ``player`` with a seat, ``observer``); ``key`` names the row's token,
  ``reported_move`` is how far that address's reports have got.

Schema version 3 adds what long-running games need: ``clocks`` (a game's deadline,
timeout policy, pause and its running turn), ``away`` (absence windows), ``seats``
(resignations, `auto pass`), ``held_orders`` (orders sent ahead of a turn),
``preferences`` (per person: mail format, reports, time zone), ``lateness``
(reliability records per person), and on ``moves`` the mail that made each move.

Schema version 4 adds the limits a public address needs: ``opt_outs`` (who said
`stop`), ``invitations`` (every invitation sent), ``answered`` and ``withheld`` (the
answer budget of mail that proved no seat, and what it held back).
It also adds to ``messages`` what keeps one bad mail from blocking the rest:
``digest`` (what the mail says, so that a reused Message-ID with other content is a
new mail), ``failures``, ``last_error`` and ``retry_at`` (a failed try, and when the
next one is due), and ``quarantined`` (given up: kept for the operator, who can
release it to be tried again; see `moderator quarantine`).

Schema version 5 keeps the outbox's mails apart from their delivery state:
``outbox_queue`` (who, what kind, tries, sent) and ``outbox_raw`` (the bytes, written
once), so that marking a mail sent rewrites a short row, not the mail; ``outbox`` is a
view of the two as the one table it was before. A database of an older schema is
migrated when it is opened.

Schema version 6 adds moderated tournaments (`moderator.desk.tournament`):
``tournaments`` (the director's terms and how far it has got), ``tournament_entrants``
(players and reserves, in entry order), ``tournament_tables`` (each heat's tables and
their games), ``tournament_holders`` (who held a table's seat, from which move: a
substitute follows a dropout) and ``tournament_results`` (the seats' values when a
table ended). Only new tables: a database of schema 5 gets them when opened.

Schema version 7 adds what the operator watches (issue 29): ``bounces`` (every
delivery-status report for the moderator's own mail, attributed by its VERP envelope
sender, and every permanent refusal at sending), ``undeliverable`` (addresses whose
mail bounced for good, until they mail again: every report of their games says so)
and ``health`` (the service's last good IMAP session and SMTP
send, and the permanent errors it is waiting out, for ``moderator health``). Only
new tables: older databases get them when opened.

Also in schema 7, added to older databases when opened (issue 29, item 5): a mail's
``author`` (its From address's mailbox), ``written`` (its Date header, within reason)
and ``seen`` (when the daemon first recorded it, real time), by which a player's mails
are applied in the order they were written (`moderator.desk.ordering`); and the
mailbox's last known quota in ``meta`` (``imap_quota``).

Also added when opened (issue 33): ``snapshots``, each game's position at some move,
pickled, so that loading a game replays only the moves since (`moderator.desk.games`);
a cache that is never the truth and is used only by the engine that made it.

Every method that writes expects to run inside `transaction()` unless it says it
opens its own; transactions nest (savepoints), so a method may be called from inside
the service's one transaction per message.

Group commit (issue 33): a burst's mails are each processed in a transaction of their
own that waits for no disk flush (`lazily`); the mails they queue are *held* (due
never: `OUTBOX_HELD`) until one commit that waits for the disk makes the group durable
and releases them (`release_held`). A crash of the process loses no commit either way;
a power cut may lose the group's last commits, but nothing of them has left the
machine, so those mails are processed again, once.

The store is a package, one module per thing it keeps, each a mixin over `base.StoreBase`
(the connection and its transactions) that `Store` composes: `schema` (the tables and
their migrations), `games` (games, move logs, kept positions), `messages` (the mail
received), `outbox` (the mail sent, its bounces), `members` (mail games and their
people), `turns` (clocks, absences, seats, held orders), `limits` (what a public
address counts), `tournaments` and `health`. Their public names are all here.
"""

from __future__ import annotations

from moderator.store.base import StoreBase, StoreError, mailbox_of
from moderator.store.games import GameRow, GamesStore, LoggedMove, Submitted
from moderator.store.health import HealthRow, HealthStore, Quota
from moderator.store.limits import LimitsStore
from moderator.store.members import (
    MailGame,
    Member,
    MembersStore,
    MemberStatus,
    Preferences,
    Role,
)
from moderator.store.messages import MessageRow, MessagesStore, MessageState, Waiting
from moderator.store.outbox import OUTBOX_HELD, Bounce, OutboxRow, OutboxStore, Undeliverable
from moderator.store.schema import SCHEMA_VERSION
from moderator.store.tournaments import (
    Entrant,
    Holder,
    Tournament,
    TournamentStore,
    TournamentTable,
)
from moderator.store.turns import AwayRow, Clock, HeldOrders, SeatRow, TurnsStore

__all__ = [
    "OUTBOX_HELD", "SCHEMA_VERSION", "AwayRow", "Bounce", "Clock", "Entrant", "GameRow",
    "HealthRow", "HeldOrders", "Holder", "LoggedMove", "MailGame", "Member", "MemberStatus",
    "MessageRow", "MessageState", "OutboxRow", "Preferences", "Quota", "Role", "SeatRow",
    "Store", "StoreBase", "StoreError", "Submitted", "Tournament", "TournamentTable",
    "Undeliverable", "Waiting", "mailbox_of",
]


class Store(GamesStore, MessagesStore, OutboxStore, MembersStore, TurnsStore, LimitsStore,
            TournamentStore, HealthStore):
    """Games in one SQLite file."""
