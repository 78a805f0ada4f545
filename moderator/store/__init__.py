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
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import sqlite_utils

from engine.game import Game, Move, Setup

SCHEMA_VERSION = 7  # 7: bounces and health (6: tournaments; 5: `outbox_raw`)

#: `outbox_queue.next_attempt` of a mail queued by a transaction that is not yet on the
#: disk (`Store.lazily`): due never, until `Store.release_held` makes it due at once.
OUTBOX_HELD = 1e18

Role = Literal["master", "player", "observer"]
MemberStatus = Literal["invited", "active"]

# The mail service's tables. Plain DDL rather than sqlite-utils' create(), so that the
# schema (with its constraints) reads in one place.
_MAIL_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    key TEXT PRIMARY KEY,          -- the Message-ID, or sha256:<hex of the bytes>
    message_id TEXT,
    raw BLOB NOT NULL,             -- the header only when the mail was too large
    size INTEGER NOT NULL,         -- of the whole mail on the server
    received REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'done')),
    outcome TEXT,                  -- what processing did, for the operator
    game_id TEXT,
    sender TEXT,
    processed REAL,
    attempts INTEGER NOT NULL DEFAULT 0  -- processing tries (poison mail is given up)
);
CREATE INDEX IF NOT EXISTS messages_status ON messages (status, received);

CREATE TABLE IF NOT EXISTS outbox_queue (  -- schema 5: the outbox without the mails
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,            -- reply, report, invitation, notice
    game_id TEXT,
    recipient TEXT NOT NULL,
    sender TEXT NOT NULL,          -- the envelope sender (bounces go there)
    cause TEXT,                    -- messages.key of the mail that caused it
    created REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt REAL NOT NULL,
    sent REAL,
    failed REAL,                   -- given up: a permanent refusal
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox_queue (sent, failed, next_attempt);
CREATE INDEX IF NOT EXISTS outbox_recipient ON outbox_queue (recipient, kind, created);

-- The mails themselves, written once: marking one sent or retried changes a short row
-- of outbox_queue, not a mail of a hundred kilobytes and more (a map is in each report).
CREATE TABLE IF NOT EXISTS outbox_raw (
    id INTEGER PRIMARY KEY REFERENCES outbox_queue (id),
    raw BLOB NOT NULL
);

-- The outbox as it was before schema 5, for reading (the operator, tests).
CREATE VIEW IF NOT EXISTS outbox AS
    SELECT q.id, q.message_id, q.kind, q.game_id, q.recipient, q.sender, r.raw, q.cause,
           q.created, q.attempts, q.next_attempt, q.sent, q.failed, q.last_error
    FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id;

CREATE TABLE IF NOT EXISTS mail_games (
    game_id TEXT PRIMARY KEY COLLATE NOCASE,
    title TEXT NOT NULL,
    master TEXT NOT NULL,
    options TEXT NOT NULL,         -- JSON list of the title options
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    started REAL
);

CREATE TABLE IF NOT EXISTS members (
    game_id TEXT NOT NULL COLLATE NOCASE,
    address TEXT NOT NULL,         -- lower-cased
    role TEXT NOT NULL CHECK (role IN ('master', 'player', 'observer')),
    seat TEXT,
    key TEXT NOT NULL,             -- what the token is made for: seat, gm, obsN
    status TEXT NOT NULL CHECK (status IN ('invited', 'active')),
    reported_move INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, address, role, key)
);
CREATE INDEX IF NOT EXISTS members_address ON members (address);

CREATE TABLE IF NOT EXISTS clocks (    -- schema 3: the time rules of a started mail game
    game_id TEXT PRIMARY KEY COLLATE NOCASE,
    allowed REAL NOT NULL,             -- seconds a player has for a turn
    timeout TEXT NOT NULL DEFAULT 'wait' CHECK (timeout IN ('wait', 'pass')),
    paused REAL,                       -- since when the game master paused it
    ended REAL,                        -- when the final scores went out
    -- the turn now running: who owes it, since when, until when
    seat TEXT,
    entity TEXT,
    move INTEGER,                      -- the game's next move when the turn began
    started REAL,
    deadline REAL,
    reminders INTEGER NOT NULL DEFAULT 0,  -- reminders sent for this turn
    late_notice REAL,                  -- when the last "is late" mail went out
    sequence INTEGER NOT NULL DEFAULT 0    -- of the turn's calendar event
);

CREATE TABLE IF NOT EXISTS away (      -- a player's absence windows: their clock stops
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    start REAL NOT NULL,
    end REAL NOT NULL,
    created REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS preferences (   -- per person, for all their games
    address TEXT PRIMARY KEY,
    format TEXT NOT NULL DEFAULT 'html' CHECK (format IN ('text', 'html')),
    reports TEXT NOT NULL DEFAULT 'all' CHECK (reports IN ('all', 'digest', 'none')),
    timezone TEXT NOT NULL DEFAULT 'UTC'
);

CREATE TABLE IF NOT EXISTS lateness (  -- reliability records: per person, not per seat
    address TEXT NOT NULL,
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    move INTEGER NOT NULL,
    deadline REAL NOT NULL,
    policy TEXT NOT NULL,
    created REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS seats (     -- standing state of a seat beyond the engine's
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    resigned REAL,
    auto_pass_round TEXT,              -- `auto pass` holds for this stock round ...
    auto_pass_move INTEGER,            -- ... judged by what happened since this move
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE IF NOT EXISTS held_orders (   -- orders sent ahead of the sender's turn
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    text TEXT NOT NULL,
    address TEXT NOT NULL,
    cause TEXT NOT NULL,               -- messages.key of the mail that held them
    round TEXT NOT NULL,
    move INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- Schema 4, the limits of a public address (`moderator.desk.lobby`, `answers`, `play`).
CREATE TABLE IF NOT EXISTS opt_outs (      -- addresses that said `stop`: never mailed again
    address TEXT PRIMARY KEY,          -- lower-cased
    since REAL NOT NULL,
    cause TEXT NOT NULL                -- messages.key of the mail that said it
);

CREATE TABLE IF NOT EXISTS invitations (   -- every invitation sent, for the caps
    game_id TEXT NOT NULL COLLATE NOCASE,
    address TEXT NOT NULL,             -- invited, lower-cased
    seat TEXT NOT NULL,
    master TEXT NOT NULL,              -- who invited
    mailbox TEXT NOT NULL,             -- the address without its +tag: whose box it is
    created REAL NOT NULL,
    PRIMARY KEY (game_id, address)
);
CREATE INDEX IF NOT EXISTS invitations_master ON invitations (master, created);
CREATE INDEX IF NOT EXISTS invitations_mailbox ON invitations (mailbox, created);

CREATE TABLE IF NOT EXISTS answered (      -- answers to mail that proved no seat: the budget
    address TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS answered_address ON answered (address, created);

CREATE TABLE IF NOT EXISTS replies_seen (  -- orders applied or held, by what they answer
    game_id TEXT NOT NULL COLLATE NOCASE,
    fingerprint TEXT NOT NULL,         -- sender, orders and the mail they answer, hashed
    cause TEXT NOT NULL,               -- messages.key of the mail
    move INTEGER NOT NULL,             -- the game's move when it came
    PRIMARY KEY (game_id, fingerprint)
);

CREATE TABLE IF NOT EXISTS observe_requests (  -- strangers' requests to observe
    game_id TEXT NOT NULL COLLATE NOCASE,
    address TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, address)
);

CREATE TABLE IF NOT EXISTS calendars (     -- each seat's one deadline event per game
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    sequence INTEGER NOT NULL,         -- of the last event sent (its SEQUENCE)
    deadline REAL,                     -- what it said; NULL once cancelled
    PRIMARY KEY (game_id, seat)
);

-- Schema 6, moderated tournaments (`moderator.desk.tournament`).
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    director TEXT NOT NULL,            -- lower-cased
    titles TEXT NOT NULL,              -- JSON list, in the order tables take them
    sizes TEXT NOT NULL,               -- JSON list of the table sizes allowed
    heats INTEGER NOT NULL,
    advance INTEGER NOT NULL DEFAULT 0,  -- players in the final (0: no final)
    scoring TEXT NOT NULL CHECK (scoring IN ('margin', 'placement', 'winner', 'share')),
    deadline REAL NOT NULL,            -- seconds a player has for a turn
    timeout TEXT NOT NULL CHECK (timeout IN ('wait', 'pass')),
    seed INTEGER NOT NULL,
    minimum INTEGER,                   -- reliability a player needs, percent
    stage TEXT NOT NULL DEFAULT 'entry'
        CHECK (stage IN ('entry', 'closed', 'heats', 'final', 'over')),
    heat INTEGER NOT NULL DEFAULT 0,   -- the last heat started (the final: heats + 1)
    created REAL NOT NULL,
    heat_limit REAL,                   -- issue 32: a heat's length (NULL: no limit),
    heat_started REAL,                 -- when the running heat began,
    heat_ends REAL,                    -- when its tables still playing are ended,
    heat_warned REAL                   -- and when its players were told
);

CREATE TABLE IF NOT EXISTS tournament_entrants (
    tournament TEXT NOT NULL COLLATE NOCASE,
    address TEXT NOT NULL,             -- lower-cased
    role TEXT NOT NULL CHECK (role IN ('player', 'reserve')),
    status TEXT NOT NULL DEFAULT 'entered'
        CHECK (status IN ('entered', 'withdrawn', 'refused', 'dropped')),
    created REAL NOT NULL,
    PRIMARY KEY (tournament, address)
);

CREATE TABLE IF NOT EXISTS tournament_tables (
    game_id TEXT PRIMARY KEY COLLATE NOCASE,
    tournament TEXT NOT NULL COLLATE NOCASE,
    heat INTEGER NOT NULL,             -- heats + 1 is the final
    number INTEGER NOT NULL,
    title TEXT NOT NULL,
    ended REAL,                        -- scored: at the game's end or the director's word
    UNIQUE (tournament, heat, number)
);

CREATE TABLE IF NOT EXISTS tournament_holders (  -- who held a table's seat
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    address TEXT NOT NULL,
    since INTEGER NOT NULL,            -- the game's move when they took the seat
    until INTEGER,                     -- ... and when they left it (a dropout)
    PRIMARY KEY (game_id, seat, address)
);

CREATE TABLE IF NOT EXISTS tournament_results (
    game_id TEXT NOT NULL COLLATE NOCASE,
    seat TEXT NOT NULL,
    value INTEGER NOT NULL,            -- the seat's value when the table ended
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE IF NOT EXISTS tournament_confirmations (  -- issue 31: `register` and
    token TEXT PRIMARY KEY,            -- `create tournament` wait for the sender's reply
    address TEXT NOT NULL,             -- lower-cased: only its mailbox saw the token
    lines TEXT NOT NULL,               -- JSON list: the mail's lines that wait
    created REAL NOT NULL,
    confirmed REAL                     -- when the reply came (NULL: waiting, or expired)
);

CREATE TABLE IF NOT EXISTS withheld (      -- answers a budget held back, summarised later
    address TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    first REAL NOT NULL,
    last REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS bounces (       -- schema 7: delivery-status reports received
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    received REAL NOT NULL,
    cause TEXT,                        -- messages.key of the report (NULL: refused at sending)
    outbox_id INTEGER,                 -- the mail that bounced
    recipient TEXT NOT NULL,
    game_id TEXT,
    status TEXT,                       -- the DSN status, 5.2.2
    permanent INTEGER NOT NULL,
    diagnostic TEXT
);
CREATE INDEX IF NOT EXISTS bounces_received ON bounces (received);

CREATE TABLE IF NOT EXISTS undeliverable (  -- addresses whose mail bounced for good
    address TEXT PRIMARY KEY,          -- lower-cased
    since REAL NOT NULL,
    status TEXT,
    diagnostic TEXT
);

CREATE TABLE IF NOT EXISTS health (        -- the service's view of its servers
    name TEXT PRIMARY KEY,             -- imap, smtp
    ok REAL,                           -- the last good session / send
    error TEXT,                        -- a permanent error being waited out, else NULL
    error_since REAL,
    tries INTEGER NOT NULL DEFAULT 0   -- tries since the error began
);

-- Issue 33: a game's position at a move, pickled, so that loading it replays only the
-- moves since. A cache, never the truth: used only when the engine that made it is the
-- one running and its log is the stored log's start; dropping the table loses nothing.
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY COLLATE NOCASE,
    move INTEGER NOT NULL,             -- the moves it holds: the game's next_move
    engine TEXT NOT NULL,              -- a digest of the engine's code and data
    state BLOB NOT NULL
);
"""


def mailbox_of(address: str) -> str:
    """ADDRESS as the mailbox it reaches: lower case, without a +tag (ann+1@x and
    ann+2@x are one person's, and limits count them together)."""
    local, at, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}{at}{domain}" if at else address.strip().lower()


class StoreError(Exception):
    """A store operation that cannot be done: unknown game, a conflicting append."""


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    title: str
    setup: Setup
    created: float


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """A move of the log with what the engine said when it was applied (None when the
    move came in another way, e.g. an import, and nobody recorded it)."""

    number: int
    move: Move
    said: tuple[str, ...] | None
    created: float


@dataclass(frozen=True, slots=True)
class Submitted:
    """Moves FIRST..STOP-1 made by one mail (CAUSE) sent by ACTOR (an address, or
    `timer` for what the clock did)."""

    first: int
    stop: int
    cause: str | None
    actor: str | None
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MessageRow:
    key: str
    message_id: str | None
    raw: bytes
    size: int
    received: float
    status: Literal["new", "done"]
    outcome: str | None
    attempts: int  # earlier tries that did not finish (the process died)


@dataclass(frozen=True, slots=True)
class MessageState:
    """A recorded mail's tries (schema 4): for retries, the quarantine and its command."""

    number: int  # the row number: a short name for the operator
    key: str
    sender: str | None
    received: float
    status: Literal["new", "done"]
    attempts: int
    failures: int  # tries that ended in an error
    last_error: str | None
    retry_at: float | None  # when the next try is due (wall-clock time)
    quarantined: float | None
    digest: str | None


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    message_id: str
    kind: str
    recipient: str
    sender: str
    raw: bytes
    attempts: int


@dataclass(frozen=True, slots=True)
class Bounce:
    """A delivery-status report (or a refusal at sending) for one of our mails."""

    received: float
    recipient: str
    game_id: str | None
    status: str | None
    permanent: bool
    diagnostic: str | None


@dataclass(frozen=True, slots=True)
class Undeliverable:
    """An address whose mail bounced for good, and why."""

    address: str
    since: float
    status: str | None
    diagnostic: str | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A recorded mail not yet processed, as the order of writing sees it."""

    key: str
    author: str | None  # the From address's mailbox (lower case, no +tag)
    written: float  # its Date header, within reason; else when it was first seen
    seen: float  # when the daemon first recorded it (real time)
    number: int  # its row number: the order it was recorded in


@dataclass(frozen=True, slots=True)
class Quota:
    """The moderator's mailbox quota as the IMAP server last told it (GETQUOTAROOT)."""

    used: int  # kilobytes (RFC 2087's STORAGE unit: 1024 octets)
    limit: int
    warn_percent: float  # the configured warning level
    checked: float

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.limit if self.limit else 0.0


@dataclass(frozen=True, slots=True)
class HealthRow:
    name: str
    ok: float | None
    error: str | None
    error_since: float | None
    tries: int


@dataclass(frozen=True, slots=True)
class MailGame:
    game_id: str
    title: str
    master: str
    options: tuple[str, ...]
    seed: int
    started: bool


@dataclass(frozen=True, slots=True)
class Member:
    game_id: str
    address: str
    role: Role
    seat: str | None
    key: str
    status: MemberStatus
    reported_move: int


@dataclass(frozen=True, slots=True)
class Clock:
    """A started mail game's time rules and its running turn (`clocks`)."""

    game_id: str
    allowed: float  # seconds per turn
    timeout: Literal["wait", "pass"]
    paused: float | None
    ended: float | None
    seat: str | None  # who owes the running turn (None: nobody, e.g. game over)
    entity: str | None
    move: int | None
    started: float | None
    deadline: float | None
    reminders: int
    late_notice: float | None
    sequence: int


#: The columns of `clocks` in the order of `Clock`'s fields.
_CLOCK_COLUMNS = ", ".join(f.name for f in dataclasses.fields(Clock))


@dataclass(frozen=True, slots=True)
class AwayRow:
    seat: str
    start: float
    end: float


@dataclass(frozen=True, slots=True)
class Preferences:
    format: Literal["text", "html"] = "html"
    reports: Literal["all", "digest", "none"] = "all"
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: str
    resigned: float | None = None
    auto_pass_round: str | None = None
    auto_pass_move: int | None = None


@dataclass(frozen=True, slots=True)
class HeldOrders:
    """Orders a player sent before their turn, applied when it comes."""

    seat: str
    text: str
    address: str
    cause: str
    round: str
    move: int


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's terms and how far it has got (`tournaments`)."""

    name: str
    director: str
    titles: tuple[str, ...]
    sizes: tuple[int, ...]
    heats: int
    advance: int  # players in the final; 0: none
    scoring: Literal["margin", "placement", "winner", "share"]
    deadline: float
    timeout: Literal["wait", "pass"]
    seed: int
    minimum: int | None
    stage: Literal["entry", "closed", "heats", "final", "over"]
    heat: int
    # Added columns (`Store._migrate`): a heat's length (`heat deadline 14d`; None: no
    # limit), when the running heat began and when its tables are ended, and when its
    # players were told.
    heat_limit: float | None = None
    heat_started: float | None = None
    heat_ends: float | None = None
    heat_warned: float | None = None


_TOURNAMENT_COLUMNS = ("name, director, titles, sizes, heats, advance, scoring, deadline, "
                       "timeout, seed, minimum, stage, heat")
_TOURNAMENT_ADDED = "heat_limit, heat_started, heat_ends, heat_warned"


@dataclass(frozen=True, slots=True)
class Entrant:
    address: str
    role: Literal["player", "reserve"]
    status: Literal["entered", "withdrawn", "refused", "dropped"]


@dataclass(frozen=True, slots=True)
class TournamentTable:
    game_id: str
    tournament: str
    heat: int
    number: int
    title: str
    ended: float | None


@dataclass(frozen=True, slots=True)
class Holder:
    seat: str
    address: str
    since: int
    until: int | None


class Store:
    """Games in one SQLite file."""

    def __init__(self, path: Path | str, *, check_same_thread: bool = True) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30,
                               check_same_thread=check_same_thread)
        conn.execute("PRAGMA journal_mode=WAL")  # readers never block the daemon
        # FULL: a committed transaction survives a power cut too, not only a crash of
        # the process; the daemon commits a few times per mail, so the cost is small.
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        self.db = sqlite_utils.Database(conn)
        self._depth = 0
        self._lazy = False  # inside `lazily`: commits do not wait for the disk
        # Commits that waited for the disk (synchronous=FULL), counted for the bench
        # (a statement trace would cost more than the statements: SQLite writes each
        # bound mail out in hex for it).
        self.durable_commits = 0
        # Inside `lazily(hold=True)`: the mails queued wait for `release_held`.
        self._hold_outbox = False
        self._migrate()

    def _migrate(self) -> None:
        db = self.db
        with self.transaction():
            if "games" not in db.table_names():
                db.table("games").create(
                    {"id": str, "title": str, "setup": str, "created": float}, pk="id")
            if "moves" not in db.table_names():
                db.table("moves").create(
                    {"game_id": str, "number": int, "seat": str, "action": str,
                     "created": float},
                    pk=("game_id", "number"),
                    foreign_keys=[("game_id", "games", "id")],
                )
            if "said" not in db.table("moves").columns_dict:
                # Schema 2: what the engine said when the move was applied (JSON list).
                db.execute("ALTER TABLE moves ADD COLUMN said TEXT")
            moves = db.table("moves").columns_dict
            if "cause" not in moves:
                # Schema 3: which mail (or timer) made each move, and who sent it: a
                # player's `undo` takes back exactly their last submission.
                db.execute("ALTER TABLE moves ADD COLUMN cause TEXT")
                db.execute("ALTER TABLE moves ADD COLUMN actor TEXT")
            if "meta" not in db.table_names():
                db.table("meta").create({"key": str, "value": str}, pk="key")
            self._split_outbox()
            for statement in _MAIL_SCHEMA.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            self._widen_scoring()
            if "reported_round" not in db.table("members").columns_dict:
                # Schema 3: the round of a member's last report (digest readers get
                # one report per round).
                db.execute("ALTER TABLE members ADD COLUMN reported_round TEXT")
            if "written" not in db.table("messages").columns_dict:
                # Issue 29 (5): who wrote a mail and when, for the order of writing.
                for column in ("author TEXT", "written REAL", "seen REAL"):
                    db.execute(f"ALTER TABLE messages ADD COLUMN {column}")
            # Each mail to a game asks whether its author's later mail came first.
            db.execute("CREATE INDEX IF NOT EXISTS messages_author ON messages "
                       "(author, game_id, written)")
            if "quarantined" not in db.table("messages").columns_dict:
                # Schema 4: a mail's content digest, its failed tries and the quarantine.
                for column in ("digest TEXT", "failures INTEGER NOT NULL DEFAULT 0",
                               "last_error TEXT", "retry_at REAL", "quarantined REAL"):
                    db.execute(f"ALTER TABLE messages ADD COLUMN {column}")
            tournament_columns = db.table("tournaments").columns_dict
            for column in _TOURNAMENT_ADDED.split(", "):
                if column not in tournament_columns:
                    # Issue 32: a heat's deadline (a schema-6 table made before it).
                    db.execute(f"ALTER TABLE tournaments ADD COLUMN {column} REAL")
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                       [str(SCHEMA_VERSION)])

    def _widen_scoring(self) -> None:
        """Schema 6 tournaments knew two scoring rules; the table's CHECK takes four now
        (SQLite cannot change a CHECK in place: the table is made again, rows kept)."""
        db = self.db
        found = db.execute("SELECT sql FROM sqlite_master WHERE name = 'tournaments'"
                           ).fetchone()
        if found is None or "'margin'" in found[0]:
            return
        db.execute("ALTER TABLE tournaments RENAME TO tournaments_schema6")
        for statement in _MAIL_SCHEMA.split(";\n"):
            if "CREATE TABLE IF NOT EXISTS tournaments (" in statement:
                db.execute(statement)
        old = ", ".join(db.table("tournaments_schema6").columns_dict)
        db.execute(f"INSERT INTO tournaments ({old}) SELECT {old} FROM tournaments_schema6")
        db.execute("DROP TABLE tournaments_schema6")

    _QUEUE_COLUMNS = ("id, message_id, kind, game_id, recipient, sender, cause, created, "
                      "attempts, next_attempt, sent, failed, last_error")

    def _split_outbox(self) -> None:
        """Schema 5: an outbox table of an older schema (the mails in its rows) becomes
        `outbox_queue` and `outbox_raw`, ids, counter and all (in `_migrate`'s
        transaction)."""
        db = self.db
        found = db.execute("SELECT type FROM sqlite_master WHERE name = 'outbox'").fetchone()
        if found is None or found[0] != "table":
            return
        for statement in _MAIL_SCHEMA.split(";\n"):
            if "CREATE TABLE IF NOT EXISTS outbox_" in statement:
                db.execute(statement)
        db.execute(f"INSERT INTO outbox_queue ({self._QUEUE_COLUMNS}) "
                   f"SELECT {self._QUEUE_COLUMNS} FROM outbox")
        db.execute("INSERT INTO outbox_raw (id, raw) SELECT id, raw FROM outbox")
        # AUTOINCREMENT: a new mail's id stays above every id the old table gave out.
        given = db.execute("SELECT MAX(seq) FROM sqlite_sequence WHERE name = 'outbox'"
                           ).fetchone()[0]
        if given is not None:
            db.execute("DELETE FROM sqlite_sequence WHERE name = 'outbox_queue'")
            db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('outbox_queue', ?)",
                       [max(given, db.execute("SELECT COALESCE(MAX(id), 0) FROM "
                                              "outbox_queue").fetchone()[0])])
        db.execute("DROP TABLE outbox")  # its indexes go with it; the schema makes them

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One SQLite transaction: everything inside commits together or not at all.

        Nested calls use a savepoint, so a method with its own transaction (say
        `create_game`) can run inside the service's transaction for one message and
        still commits only with it."""
        conn = self.db.conn
        if self._depth:
            name = f"sp{self._depth}"
            conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
                raise
            finally:
                self._depth -= 1
            conn.execute(f"RELEASE {name}")
            return
        conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0
        conn.execute("COMMIT")
        self.durable_commits += not self._lazy

    @contextmanager
    def lazily(self, hold: bool = False) -> Iterator[None]:
        """The transactions inside commit without waiting for the disk (SQLite's
        synchronous=NORMAL under WAL): a crash of the process loses none of them, a power
        cut may lose the last ones -- until the next commit that waits (FULL, the
        default), which makes the log's earlier commits durable with it. HOLD: the mails
        queued inside are held until `release_held` (nothing leaves the machine that a
        power cut could take back). Called outside any transaction."""
        self.db.conn.execute("PRAGMA synchronous=NORMAL")
        held, self._hold_outbox = self._hold_outbox, self._hold_outbox or hold
        self._lazy = True
        try:
            yield
        finally:
            self._hold_outbox = held
            self._lazy = False
            self.db.conn.execute("PRAGMA synchronous=FULL")

    def release_held(self) -> int:
        """Make the held mails due at once (in the caller's transaction, one that waits
        for the disk: it makes the commits that queued them durable); how many."""
        return int(self.db.execute(
            "UPDATE outbox_queue SET next_attempt = 0 WHERE sent IS NULL AND failed IS NULL "
            "AND next_attempt >= ?", [OUTBOX_HELD]).rowcount)

    # --- games -------------------------------------------------------------------------
    def create_game(self, setup: Setup, game_id: str | None = None) -> str:
        """Store a new game; its id is TITLE-N unless given."""
        Game(setup)  # refuse a set-up the engine refuses, before anything is written
        with self.transaction():
            if game_id is None:
                game_id = self._free_game_id(setup.title)
            elif self._game_id_taken(game_id, mail_game_too=False):
                raise StoreError(f"a game {game_id} exists already")
            self.db.table("games").insert({"id": game_id, "title": setup.title,
                                           "setup": json.dumps(setup.to_json()),
                                           "created": time.time()})
        return game_id

    def _game_id_taken(self, game_id: str, *, mail_game_too: bool = True) -> bool:
        if self.db.execute("SELECT 1 FROM games WHERE id = ? COLLATE NOCASE",
                           [game_id]).fetchone():
            return True
        return mail_game_too and self.db.execute(
            "SELECT 1 FROM mail_games WHERE game_id = ?", [game_id]).fetchone() is not None

    def _free_game_id(self, title: str) -> str:
        """TITLE-N with the lowest N above every game of TITLE, mail games included
        (a mail game holds its id before it starts)."""
        count = self.db.execute("SELECT COUNT(*) FROM games WHERE title = ?",
                                [title]).fetchone()[0]
        count += self.db.execute("SELECT COUNT(*) FROM mail_games WHERE title = ? "
                                 "AND started IS NULL", [title]).fetchone()[0]
        game_id = f"{title}-{count + 1}"
        while self._game_id_taken(game_id):
            count += 1
            game_id = f"{title}-{count + 1}"
        return game_id

    def game_row(self, game_id: str) -> GameRow:
        rows = list(self.db.table("games").rows_where("id = ? COLLATE NOCASE", [game_id]))
        if not rows:
            known = ", ".join(r["id"] for r in self.db.table("games").rows) or "none"
            raise StoreError(f"there is no game {game_id} (games: {known})")
        row = rows[0]
        return GameRow(row["id"], row["title"], Setup.from_json(json.loads(row["setup"])),
                       row["created"])

    def has_game(self, game_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ? COLLATE NOCASE",
                               [game_id]).fetchone() is not None

    def games(self) -> list[GameRow]:
        rows = self.db.table("games").rows_where(order_by="created")
        return [GameRow(r["id"], r["title"], Setup.from_json(json.loads(r["setup"])),
                        r["created"]) for r in rows]

    def moves(self, game_id: str) -> list[Move]:
        rows = self.db.table("moves").rows_where("game_id = ?", [game_id], order_by="number")
        return [Move.from_json({"seat": r["seat"], **json.loads(r["action"])}) for r in rows]

    def logged_moves(self, game_id: str, start: int = 0) -> list[LoggedMove]:
        """The moves from number START on, with what the engine said about each."""
        rows = self.db.execute(
            "SELECT number, seat, action, said, created FROM moves WHERE game_id = ? "
            "AND number >= ? ORDER BY number", [game_id, start]).fetchall()
        return [LoggedMove(number, Move.from_json({"seat": seat, **json.loads(action)}),
                           None if said is None else tuple(json.loads(said)), created)
                for number, seat, action, said, created in rows]

    def load(self, game_id: str) -> Game:
        """The game as its moves build it."""
        row = self.game_row(game_id)
        return Game(row.setup, self.moves(row.id))

    def move_count(self, game_id: str) -> int:
        """How many moves GAME_ID's log holds. Numbered from 0 without a gap (`append`
        refuses any other, nothing deletes one): the highest number tells, found in
        the primary key's index where a count walks every move (issue 33)."""
        return int(self.db.execute("SELECT COALESCE(MAX(number) + 1, 0) FROM moves "
                                   "WHERE game_id = ?", [game_id]).fetchone()[0])

    def append(self, game_id: str, first_number: int, moves: Sequence[Move],
               said: Sequence[Sequence[str]] | None = None, *, cause: str | None = None,
               actor: str | None = None, now: float | None = None) -> None:
        """Append moves numbered from `first_number`; refuses if the log moved on.

        SAID, when given, holds what the engine said for each move (for reports).
        Call inside `transaction()` to commit with other writes (the mail service
        records the message and its outgoing mail in the same transaction). CAUSE is
        the mail (or `timer`) that made the moves, ACTOR who sent them."""
        have = self.move_count(game_id)
        if have != first_number:
            raise StoreError(f"game {game_id} is at move {have}, not {first_number}")
        if said is not None and len(said) != len(moves):
            raise StoreError(f"{len(said)} records of what was said for {len(moves)} moves")
        now = time.time() if now is None else now
        self.db.table("moves").insert_all(
            {"game_id": game_id, "number": first_number + i, "seat": m.seat,
             "action": json.dumps({k: v for k, v in m.to_json().items() if k != "seat"}),
             "said": None if said is None else json.dumps(list(said[i])),
             "created": now, "cause": cause, "actor": actor}
            for i, m in enumerate(moves))

    def add_said(self, game_id: str, number: int, line: str) -> bool:
        """Add LINE to what move NUMBER of GAME_ID said (a note found after the move was
        answered: a better run, `moderator.desk.later`); False when the move or what it
        said is not stored."""
        row = self.db.execute("SELECT said FROM moves WHERE game_id = ? AND number = ?",
                              [game_id, number]).fetchone()
        if row is None or row[0] is None:
            return False
        self.db.execute("UPDATE moves SET said = ? WHERE game_id = ? AND number = ?",
                        [json.dumps([*json.loads(row[0]), line]), game_id, number])
        return True

    def submissions(self, game_id: str, start: int = 0) -> list[Submitted]:
        """The log from move START on as runs of moves made by one cause (mail)."""
        rows = self.db.execute(
            "SELECT number, seat, cause, actor FROM moves WHERE game_id = ? AND number >= ? "
            "ORDER BY number", [game_id, start]).fetchall()
        runs: list[Submitted] = []
        for number, seat, cause, actor in rows:
            last = runs[-1] if runs else None
            if last is not None and cause is not None and last.cause == cause \
                    and last.actor == actor:
                runs[-1] = Submitted(last.first, number + 1, cause, actor, last.seats)
            else:
                runs.append(Submitted(number, number + 1, cause, actor, (seat,)))
        return runs

    # --- messages (the inbox's record) -----------------------------------------------
    def add_message(self, key: str, message_id: str | None, raw: bytes, size: int,
                    now: float, *, author: str | None = None, written: float | None = None,
                    seen: float | None = None) -> MessageRow:
        """Record a fetched mail unless its key is known; return the stored row (the
        earlier one for a duplicate). AUTHOR, WRITTEN and SEEN place it in the order
        of writing (kept from its first recording). Opens its own transaction when
        called alone."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO messages (key, message_id, raw, size, received, "
                "author, written, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [key, message_id, raw, size, now, author, written, seen])
            if not cursor.rowcount:
                # Known and not done: fetched again after a crash while processing it.
                # Counting these tries is what lets the processor give up on a mail
                # that kills it every time.
                self.db.execute("UPDATE messages SET attempts = attempts + 1 WHERE key = ? "
                                "AND status = 'new'", [key])
            row = self.message(key)
        assert row is not None
        return row

    def count_attempt(self, key: str) -> None:
        """One more try at processing KEY (for mail found unprocessed at start-up)."""
        with self.transaction():
            self.db.execute("UPDATE messages SET attempts = attempts + 1 WHERE key = ?", [key])

    def sent_raw(self, message_id: str) -> bytes | None:
        """The mail the moderator queued with MESSAGE_ID (None: not one of its own)."""
        found = self.db.execute(
            "SELECT r.raw FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id "
            "WHERE q.message_id = ?", [message_id]).fetchone()
        return None if found is None else bytes(found[0])

    def message(self, key: str) -> MessageRow | None:
        found = self.db.execute(
            "SELECT key, message_id, raw, size, received, status, outcome, attempts "
            "FROM messages WHERE key = ?", [key]).fetchone()
        if found is None:
            return None
        return MessageRow(found[0], found[1], bytes(found[2]), found[3], found[4], found[5],
                          found[6], found[7])

    def pending_messages(self) -> list[str]:
        """Keys of the recorded mails not yet processed, oldest first."""
        return [r[0] for r in self.db.execute(
            "SELECT key FROM messages WHERE status = 'new' ORDER BY received, rowid")]

    def waiting_messages(self, *, retries_too: bool = False) -> list[Waiting]:
        """The recorded mails not yet processed, in the order they were recorded: those
        waiting for their first try (RETRIES_TOO: and those waiting for a retry). A
        mail recorded before the columns existed counts as written when received."""
        rows = self.db.execute(
            "SELECT key, author, COALESCE(written, seen, received), COALESCE(seen, "
            "received), rowid FROM messages WHERE status = 'new' AND quarantined IS NULL "
            + ("" if retries_too else "AND retry_at IS NULL ") + "ORDER BY rowid").fetchall()
        return [Waiting(*row) for row in rows]

    def message_written(self, key: str) -> tuple[str | None, float | None]:
        """KEY's author and when it was written (None for mail recorded without)."""
        row = self.db.execute("SELECT author, written FROM messages WHERE key = ?",
                              [key]).fetchone()
        return (None, None) if row is None else (row[0], row[1])

    def applied_after(self, author: str, game_id: str, key: str, written: float
                      ) -> tuple[str, float, bytes] | None:
        """The first mail of AUTHOR to GAME_ID, other than KEY, processed already, that
        made moves, written after WRITTEN and seen by the daemon after WRITTEN too (a
        sender's two devices may disagree on the time: a mail written after the other
        arrived is never late); its key, when it was written, and its bytes."""
        row = self.db.execute(
            "SELECT m.key, m.written, m.raw FROM messages m WHERE m.author = ? AND "
            "m.game_id = ? AND m.key != ? AND m.status = 'done' AND m.written > ? AND "
            "m.seen > ? AND EXISTS (SELECT 1 FROM moves WHERE moves.game_id = m.game_id "
            "AND moves.cause = m.key) ORDER BY m.written LIMIT 1",
            [author, game_id, key, written, written]).fetchone()
        return None if row is None else (row[0], row[1], bytes(row[2]))

    def finish_message(self, key: str, outcome: str, *, game_id: str | None,
                       sender: str | None, now: float) -> None:
        self.db.execute(
            "UPDATE messages SET status = 'done', outcome = ?, game_id = ?, sender = ?, "
            "processed = ? WHERE key = ?", [outcome, game_id, sender, now, key])

    # --- failed tries and the quarantine (schema 4) --------------------------------------
    def message_digest(self, key: str) -> tuple[bool, str | None]:
        """Whether KEY is recorded, and the digest of what it says (None if unknown)."""
        row = self.db.execute("SELECT digest FROM messages WHERE key = ?", [key]).fetchone()
        return (False, None) if row is None else (True, row[0])

    def set_digest(self, key: str, digest: str) -> None:
        self.db.execute("UPDATE messages SET digest = COALESCE(digest, ?) WHERE key = ?",
                        [digest, key])

    _STATE_COLUMNS = ("rowid, key, sender, received, status, attempts, failures, "
                      "last_error, retry_at, quarantined, digest")

    def message_state(self, key: str) -> MessageState | None:
        row = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages WHERE key = ?",
                              [key]).fetchone()
        return None if row is None else MessageState(*row)

    def find_message(self, ref: str) -> list[MessageState]:
        """The mails REF names: a row number, a key, or the start of one."""
        ref = ref.strip()
        if ref.lstrip("#").isdigit():
            rows = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages "
                                   "WHERE rowid = ?", [int(ref.lstrip("#"))]).fetchall()
        else:
            rows = self.db.execute(f"SELECT {self._STATE_COLUMNS} FROM messages WHERE key = ?",
                                   [ref]).fetchall() or self.db.execute(
                f"SELECT {self._STATE_COLUMNS} FROM messages WHERE substr(key, 1, ?) = ? "
                "ORDER BY rowid LIMIT 20", [len(ref), ref]).fetchall()
        return [MessageState(*r) for r in rows]

    def troubled_messages(self) -> list[MessageState]:
        """The quarantined mails and those waiting to be tried again, oldest first."""
        rows = self.db.execute(
            f"SELECT {self._STATE_COLUMNS} FROM messages WHERE quarantined IS NOT NULL "
            "OR (status = 'new' AND failures > 0) ORDER BY received, rowid").fetchall()
        return [MessageState(*r) for r in rows]

    def record_failure(self, key: str, error: str, retry_at: float) -> None:
        """A try of KEY ended in ERROR; the next is due at RETRY_AT."""
        with self.transaction():
            self.db.execute("UPDATE messages SET failures = failures + 1, last_error = ?, "
                            "retry_at = ? WHERE key = ?", [error, retry_at, key])

    def quarantine(self, key: str, error: str, now: float) -> None:
        """Give KEY up: kept, with ERROR, until the operator releases it (the caller
        has marked it done, so a new fetch of it is recognised)."""
        self.db.execute("UPDATE messages SET quarantined = ?, last_error = ?, "
                        "retry_at = NULL WHERE key = ?", [now, error, key])

    def release(self, key: str, now: float) -> bool:
        """Let a quarantined KEY be tried again from the start (due at NOW)."""
        with self.transaction():
            cursor = self.db.execute(
                "UPDATE messages SET status = 'new', quarantined = NULL, attempts = 0, "
                "failures = 0, retry_at = ?, outcome = NULL, processed = NULL "
                "WHERE key = ? AND quarantined IS NOT NULL", [now, key])
        return bool(cursor.rowcount)

    def due_retries(self, now: float) -> list[str]:
        """Keys of the unfinished mails whose next try is due, the earliest first."""
        return [r[0] for r in self.db.execute(
            "SELECT key FROM messages WHERE status = 'new' AND retry_at IS NOT NULL "
            "AND retry_at <= ? ORDER BY retry_at, rowid", [now])]

    # --- outbox ------------------------------------------------------------------------
    def queue_mail(self, *, message_id: str, kind: str, game_id: str | None,
                   recipient: str, sender: str, raw: bytes, cause: str | None,
                   now: float) -> bool:
        """Queue one outgoing mail; False if a mail with MESSAGE_ID is queued already.

        A new mail is due at once (next_attempt 0): NOW is the game clock, which need
        not be the outbox's (tests run games on a clock of their own)."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO outbox_queue (message_id, kind, game_id, recipient, "
                "sender, cause, created, next_attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [message_id, kind, game_id, recipient, sender, cause, now,
                 OUTBOX_HELD if self._hold_outbox else 0])
            if not cursor.rowcount:
                return False
            self.db.execute("INSERT INTO outbox_raw (id, raw) VALUES (?, ?)",
                            [cursor.lastrowid, raw])
        return True

    def due_mail(self, now: float, limit: int = 50) -> list[OutboxRow]:
        rows = self.db.execute(
            "SELECT q.id, q.message_id, q.kind, q.recipient, q.sender, r.raw, q.attempts "
            "FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id "
            "WHERE q.sent IS NULL AND q.failed IS NULL AND q.next_attempt <= ? "
            "ORDER BY q.next_attempt, q.id LIMIT ?", [now, limit]).fetchall()
        return [OutboxRow(r[0], r[1], r[2], r[3], r[4], bytes(r[5]), r[6]) for r in rows]

    def next_mail_due(self) -> float | None:
        """When the earliest unsent mail is due (None: nothing waits; a held mail waits
        for its release, which wakes the sender)."""
        row = self.db.execute("SELECT MIN(next_attempt) FROM outbox_queue WHERE sent IS NULL "
                              "AND failed IS NULL AND next_attempt < ?",
                              [OUTBOX_HELD]).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def mark_sent(self, mail_id: int, now: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET sent = ?, attempts = attempts + 1, "
                            "last_error = NULL WHERE id = ?", [now, mail_id])

    def mark_retry(self, mail_id: int, error: str, next_attempt: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET attempts = attempts + 1, last_error = ?, "
                            "next_attempt = ? WHERE id = ?", [error, next_attempt, mail_id])

    def mark_failed(self, mail_id: int, error: str, now: float) -> None:
        with self.transaction():
            self.db.execute("UPDATE outbox_queue SET attempts = attempts + 1, last_error = ?, "
                            "failed = ? WHERE id = ?", [error, now, mail_id])

    def sent_since(self, recipient: str, kinds: Sequence[str], since: float) -> int:
        """How many mails of KINDS were queued for RECIPIENT since SINCE."""
        marks = ", ".join("?" for _ in kinds)
        row = self.db.execute(
            f"SELECT COUNT(*) FROM outbox_queue WHERE recipient = ? COLLATE NOCASE AND kind IN "
            f"({marks}) AND created >= ?", [recipient, *kinds, since]).fetchone()
        return int(row[0])

    def outbox_counts(self) -> dict[str, int]:
        """Queued, sent and failed mail: for the operator's log."""
        row = self.db.execute(
            "SELECT SUM(sent IS NULL AND failed IS NULL), SUM(sent IS NOT NULL), "
            "SUM(failed IS NOT NULL) FROM outbox_queue").fetchone()
        return {"queued": row[0] or 0, "sent": row[1] or 0, "failed": row[2] or 0}

    def outbox_mail(self, mail_id: int) -> tuple[str, str | None, str] | None:
        """The recipient, game and kind of outbox mail MAIL_ID."""
        row = self.db.execute("SELECT recipient, game_id, kind FROM outbox_queue WHERE id = ?",
                              [mail_id]).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def outbox_backlog(self, now: float) -> tuple[int, float | None]:
        """How many mails wait to be sent, and since when the oldest waits."""
        row = self.db.execute("SELECT COUNT(*), MIN(created) FROM outbox_queue WHERE "
                              "sent IS NULL AND failed IS NULL").fetchone()
        return int(row[0]), (None if row[1] is None else float(row[1]))

    def last_report_move(self, recipient: str, game_id: str, before_id: int) -> int | None:
        """The move shown by the last mail of GAME_ID sent to RECIPIENT before outbox
        mail BEFORE_ID (its X-Moderator-Move header), None if there is none."""
        rows = self.db.execute(
            "SELECT r.raw FROM outbox_queue q JOIN outbox_raw r ON r.id = q.id WHERE "
            "q.recipient = ? COLLATE NOCASE AND q.game_id = ? AND q.id < ? AND q.sent IS "
            "NOT NULL ORDER BY q.id DESC LIMIT 1", [recipient, game_id, before_id]).fetchall()
        for (raw,) in rows:
            head = bytes(raw).split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
            for line in head.splitlines():
                if line.lower().startswith(b"x-moderator-move:"):
                    value = line.split(b":", 1)[1].strip()
                    if value.isdigit():
                        return int(value)
        return None

    # --- bounces (schema 7) -----------------------------------------------------------
    def record_bounce(self, bounce: Bounce, *, cause: str | None, outbox_id: int | None
                      ) -> None:
        self.db.execute(
            "INSERT INTO bounces (received, cause, outbox_id, recipient, game_id, status, "
            "permanent, diagnostic) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [bounce.received, cause, outbox_id, bounce.recipient.lower(), bounce.game_id,
             bounce.status, int(bounce.permanent), bounce.diagnostic])

    def bounces_since(self, since: float) -> tuple[int, int]:
        """Permanent and temporary bounces received since SINCE."""
        row = self.db.execute("SELECT SUM(permanent), SUM(1 - permanent) FROM bounces "
                              "WHERE received >= ?", [since]).fetchone()
        return int(row[0] or 0), int(row[1] or 0)

    def mark_undeliverable(self, address: str, since: float, status: str | None,
                           diagnostic: str | None) -> bool:
        """ADDRESS receives no mail; False if it was marked so already."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO undeliverable (address, since, status, diagnostic) "
            "VALUES (?, ?, ?, ?)", [address.lower(), since, status, diagnostic])
        return bool(cursor.rowcount)

    def undeliverable(self, address: str | None = None) -> list[Undeliverable]:
        """Every address marked (or ADDRESS's mark, if it has one)."""
        where, params = ("WHERE address = ?", [address.lower()]) if address else ("", [])
        rows = self.db.execute(f"SELECT address, since, status, diagnostic FROM "
                               f"undeliverable {where} ORDER BY since", params).fetchall()
        return [Undeliverable(*r) for r in rows]

    def undeliverable_members(self, game_id: str) -> list[tuple[Member, Undeliverable]]:
        """GAME_ID's members whose address receives no mail (one query: every report
        asks)."""
        rows = self.db.execute(
            "SELECT m.game_id, m.address, m.role, m.seat, m.key, m.status, m.reported_move, "
            "u.since, u.status, u.diagnostic FROM members m JOIN undeliverable u ON "
            "u.address = m.address WHERE m.game_id = ? ORDER BY m.created, m.rowid",
            [game_id]).fetchall()
        return [(Member(*r[:7]), Undeliverable(r[1], r[7], r[8], r[9])) for r in rows]

    def clear_undeliverable(self, address: str) -> bool:
        """ADDRESS mailed us: it may receive again. False if it was not marked."""
        cursor = self.db.execute("DELETE FROM undeliverable WHERE address = ?",
                                 [address.lower()])
        return bool(cursor.rowcount)

    # --- health (schema 7) ------------------------------------------------------------
    def health_ok(self, name: str, now: float) -> None:
        """A good IMAP session or SMTP send: any error recorded for NAME is over."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO health (name, ok) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                "SET ok = excluded.ok, error = NULL, error_since = NULL, tries = 0",
                [name, now])

    def health_error(self, name: str, error: str, now: float) -> None:
        """A permanent error of NAME (one more try of it)."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO health (name, error, error_since, tries) VALUES (?, ?, ?, 1) "
                "ON CONFLICT (name) DO UPDATE SET error = excluded.error, error_since = "
                "COALESCE(health.error_since, excluded.error_since), tries = health.tries + 1",
                [name, error, now])

    def health(self) -> dict[str, HealthRow]:
        return {r[0]: HealthRow(*r) for r in self.db.execute(
            "SELECT name, ok, error, error_since, tries FROM health").fetchall()}

    def set_quota(self, quota: Quota) -> None:
        """The mailbox's quota as last asked (in `meta`: it needs no table)."""
        with self.transaction():
            self.set_meta("imap_quota", json.dumps(dataclasses.asdict(quota)))

    def quota(self) -> Quota | None:
        value = self.meta("imap_quota")
        return None if value is None else Quota(**json.loads(value))

    def quarantine_size(self) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM messages WHERE quarantined IS NOT NULL"
                              ).fetchone()
        return int(row[0])

    # --- mail games and their members -------------------------------------------------
    def create_mail_game(self, title: str, master: str, options: Sequence[str], seed: int,
                         now: float) -> str:
        """Reserve a game id for a game set up by mail (started later by `start`)."""
        with self.transaction():
            game_id = self._free_game_id(title)
            self.db.execute(
                "INSERT INTO mail_games (game_id, title, master, options, seed, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [game_id, title, master.lower(), json.dumps(list(options)), seed, now])
        return game_id

    def mail_game(self, game_id: str) -> MailGame | None:
        row = self.db.execute(
            "SELECT game_id, title, master, options, seed, started FROM mail_games "
            "WHERE game_id = ?", [game_id]).fetchone()
        if row is None:
            return None
        return MailGame(row[0], row[1], row[2], tuple(json.loads(row[3])), int(row[4]),
                        row[5] is not None)

    def mark_started(self, game_id: str, now: float) -> None:
        self.db.execute("UPDATE mail_games SET started = ? WHERE game_id = ?", [now, game_id])

    def canonical_game_id(self, game_id: str) -> str | None:
        """The id as stored (ids compare without case), of a game or a mail game."""
        for sql in ("SELECT id FROM games WHERE id = ? COLLATE NOCASE",
                    "SELECT game_id FROM mail_games WHERE game_id = ?"):
            row = self.db.execute(sql, [game_id]).fetchone()
            if row is not None:
                return str(row[0])
        return None

    def add_member(self, game_id: str, address: str, role: Role, key: str, *,
                   seat: str | None = None, status: MemberStatus = "invited",
                   reported_move: int = 0, now: float) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO members (game_id, address, role, seat, key, status, "
            "reported_move, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [game_id, address.lower(), role, seat, key, status, reported_move, now])

    def members(self, game_id: str) -> list[Member]:
        rows = self.db.execute(
            "SELECT game_id, address, role, seat, key, status, reported_move FROM members "
            "WHERE game_id = ? ORDER BY created, rowid", [game_id]).fetchall()
        return [Member(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]

    def activate_member(self, game_id: str, address: str, key: str, reported_move: int
                        ) -> None:
        self.db.execute(
            "UPDATE members SET status = 'active', reported_move = ? WHERE game_id = ? "
            "AND address = ? AND key = ?", [reported_move, game_id, address.lower(), key])

    def set_reported(self, game_id: str, address: str, move: int,
                     round_name: str | None = None) -> None:
        """ADDRESS's reports have got to MOVE (in ROUND_NAME: digest readers get one
        report per round)."""
        self.db.execute("UPDATE members SET reported_move = ?, reported_round = "
                        "COALESCE(?, reported_round) WHERE game_id = ? AND address = ?",
                        [move, round_name, game_id, address.lower()])

    def rename_seats(self, game_id: str, seats: dict[str, str]) -> None:
        """Seat names as the game stores them (the case the engine's set-up uses)."""
        for old, new in seats.items():
            self.db.execute("UPDATE members SET seat = ? WHERE game_id = ? AND seat = ?",
                            [new, game_id, old])

    # --- long-running games: clocks, seats, preferences (schema 3) ---------------------
    def clock(self, game_id: str) -> Clock | None:
        row = self.db.execute(f"SELECT {_CLOCK_COLUMNS} FROM clocks WHERE game_id = ?",
                              [game_id]).fetchone()
        return None if row is None else Clock(*row)

    def clocks(self) -> list[Clock]:
        """The clocks of every game still running (not ended)."""
        return [Clock(*r) for r in self.db.execute(
            f"SELECT {_CLOCK_COLUMNS} FROM clocks WHERE ended IS NULL ORDER BY game_id")]

    def create_clock(self, game_id: str, allowed: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO clocks (game_id, allowed) VALUES (?, ?)",
                        [game_id, allowed])

    def update_clock(self, game_id: str, **fields: Any) -> None:
        """Set FIELDS (columns of `clocks`) of GAME_ID's clock."""
        names = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE clocks SET {names} WHERE game_id = ?",
                        [*fields.values(), game_id])

    def away_windows(self, game_id: str, seat: str | None = None) -> list[AwayRow]:
        sql = "SELECT seat, start, end FROM away WHERE game_id = ?"
        params: list[Any] = [game_id]
        if seat is not None:
            sql += " AND seat = ?"
            params.append(seat)
        return [AwayRow(r[0], r[1], r[2]) for r in
                self.db.execute(sql + " ORDER BY start", params).fetchall()]

    def add_away(self, game_id: str, seat: str, start: float, end: float, now: float
                 ) -> None:
        self.db.execute("INSERT INTO away (game_id, seat, start, end, created) "
                        "VALUES (?, ?, ?, ?, ?)", [game_id, seat, start, end, now])

    def preferences(self, address: str) -> Preferences:
        row = self.db.execute("SELECT format, reports, timezone FROM preferences WHERE "
                              "address = ?", [address.lower()]).fetchone()
        return Preferences() if row is None else Preferences(row[0], row[1], row[2])

    def set_preference(self, address: str, name: str, value: str) -> None:
        if name not in ("format", "reports", "timezone"):
            raise StoreError(f"no preference {name}")
        self.db.execute("INSERT OR IGNORE INTO preferences (address) VALUES (?)",
                        [address.lower()])
        self.db.execute(f"UPDATE preferences SET {name} = ? WHERE address = ?",
                        [value, address.lower()])

    def record_late(self, address: str, game_id: str, seat: str, move: int,
                    deadline: float, policy: str, now: float) -> None:
        self.db.execute("INSERT INTO lateness (address, game_id, seat, move, deadline, "
                        "policy, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [address.lower(), game_id, seat, move, deadline, policy, now])

    def times_late(self, address: str) -> int:
        """How often ADDRESS missed a deadline, in every game (reliability)."""
        return int(self.db.execute("SELECT COUNT(*) FROM lateness WHERE address = ?",
                                   [address.lower()]).fetchone()[0])

    def seat_row(self, game_id: str, seat: str) -> SeatRow:
        row = self.db.execute("SELECT resigned, auto_pass_round, auto_pass_move FROM seats "
                              "WHERE game_id = ? AND seat = ?", [game_id, seat]).fetchone()
        return SeatRow(seat) if row is None else SeatRow(seat, row[0], row[1], row[2])

    def update_seat(self, game_id: str, seat: str, **fields: Any) -> None:
        self.db.execute("INSERT OR IGNORE INTO seats (game_id, seat) VALUES (?, ?)",
                        [game_id, seat])
        names = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE seats SET {names} WHERE game_id = ? AND seat = ?",
                        [*fields.values(), game_id, seat])

    def held(self, game_id: str, seat: str) -> HeldOrders | None:
        row = self.db.execute("SELECT seat, text, address, cause, round, move FROM "
                              "held_orders WHERE game_id = ? AND seat = ?",
                              [game_id, seat]).fetchone()
        return None if row is None else HeldOrders(*row)

    # --- replies applied or held (schema 4) ------------------------------------------
    def reply_seen(self, game_id: str, fingerprint: str) -> tuple[str, int] | None:
        """(cause, move) of the earlier mail with FINGERPRINT in GAME_ID, if any."""
        row = self.db.execute("SELECT cause, move FROM replies_seen WHERE game_id = ? AND "
                              "fingerprint = ?", [game_id, fingerprint]).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def see_reply(self, game_id: str, fingerprint: str, cause: str, move: int) -> None:
        self.db.execute("INSERT OR IGNORE INTO replies_seen (game_id, fingerprint, cause, "
                        "move) VALUES (?, ?, ?, ?)", [game_id, fingerprint, cause, move])

    # --- requests to observe (schema 4) ----------------------------------------------
    def observe_requested(self, game_id: str, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM observe_requests WHERE game_id = ? AND "
                              "address = ?", [game_id, address.lower()]).fetchone()
        return row is not None

    def observe_requests_since(self, game_id: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM observe_requests WHERE game_id = ? AND "
                              "created >= ?", [game_id, since]).fetchone()
        return int(row[0])

    def request_observe(self, game_id: str, address: str, now: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO observe_requests (game_id, address, created) "
                        "VALUES (?, ?, ?)", [game_id, address.lower(), now])

    # --- calendar events (schema 4) -------------------------------------------------
    def calendar_event(self, game_id: str, seat: str) -> tuple[int, float | None] | None:
        """(sequence, deadline) of the last deadline event sent to SEAT (deadline None:
        it was cancelled), or None if none was."""
        row = self.db.execute("SELECT sequence, deadline FROM calendars WHERE game_id = ? "
                              "AND seat = ?", [game_id, seat]).fetchone()
        return None if row is None else (int(row[0]), row[1])

    def set_calendar_event(self, game_id: str, seat: str, sequence: int,
                           deadline: float | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO calendars (game_id, seat, sequence, "
                        "deadline) VALUES (?, ?, ?, ?)", [game_id, seat, sequence, deadline])

    # --- limits for a public address (schema 4) -------------------------------------
    def opted_out(self, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM opt_outs WHERE address = ?",
                              [address.lower()]).fetchone()
        return row is not None

    def opt_out(self, address: str, cause: str, now: float) -> None:
        self.db.execute("INSERT OR IGNORE INTO opt_outs (address, since, cause) "
                        "VALUES (?, ?, ?)", [address.lower(), now, cause])

    def record_invitation(self, game_id: str, address: str, seat: str, master: str,
                          now: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO invitations (game_id, address, seat, master, "
                        "mailbox, created) VALUES (?, ?, ?, ?, ?, ?)",
                        [game_id, address.lower(), seat, master.lower(), mailbox_of(address),
                         now])

    def invited_before(self, game_id: str, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM invitations WHERE game_id = ? AND address = ?",
                              [game_id, address.lower()]).fetchone()
        return row is not None

    def invitations_count(self, *, game_id: str | None = None, master: str | None = None,
                          to: str | None = None, since: float = 0.0) -> int:
        """Invitations sent for GAME_ID, or by MASTER, or to TO's mailbox, since SINCE."""
        sql = "SELECT COUNT(*) FROM invitations WHERE created >= ?"
        args: list[Any] = [since]
        if to is not None:
            sql += " AND mailbox = ?"
            args.append(mailbox_of(to))
        if game_id is not None:
            sql += " AND game_id = ? COLLATE NOCASE"
            args.append(game_id)
        if master is not None:
            sql += " AND master = ?"
            args.append(master.lower())
        return int(self.db.execute(sql, args).fetchone()[0])

    def has_joined_a_game(self, address: str) -> bool:
        row = self.db.execute("SELECT 1 FROM members WHERE address = ? AND status = 'active' "
                              "LIMIT 1", [address.lower()]).fetchone()
        return row is not None

    def games_created_since(self, master: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM mail_games WHERE master = ? AND "
                              "created >= ?", [master.lower(), since]).fetchone()
        return int(row[0])

    def count_answer(self, address: str, now: float) -> None:
        """One more answer to a mail that proved no seat (the budget of ADDRESS)."""
        self.db.execute("INSERT INTO answered (address, created) VALUES (?, ?)",
                        [mailbox_of(address), now])
        # Keep the table small: nothing older than a day is ever counted.
        self.db.execute("DELETE FROM answered WHERE created < ?", [now - 86400])

    def answers_since(self, address: str, since: float) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM answered WHERE address = ? AND "
                              "created >= ?", [mailbox_of(address), since]).fetchone()
        return int(row[0])

    def withhold(self, address: str, now: float) -> None:
        """An answer to ADDRESS held back by its budget: counted for a later summary."""
        self.db.execute("INSERT INTO withheld (address, count, first, last) "
                        "VALUES (?, 1, ?, ?) ON CONFLICT (address) DO UPDATE SET "
                        "count = count + 1, last = excluded.last",
                        [mailbox_of(address), now, now])

    def take_withheld(self, address: str) -> tuple[int, float, float] | None:
        """What was held back from ADDRESS (count, first, last), now told: forgotten."""
        row = self.db.execute("SELECT count, first, last FROM withheld WHERE address = ?",
                              [mailbox_of(address)]).fetchone()
        if row is None:
            return None
        self.db.execute("DELETE FROM withheld WHERE address = ?", [mailbox_of(address)])
        return int(row[0]), float(row[1]), float(row[2])

    def hold(self, game_id: str, held: HeldOrders, now: float) -> None:
        """Keep HELD for its seat (replacing what that seat held before)."""
        self.db.execute("INSERT OR REPLACE INTO held_orders (game_id, seat, text, address, "
                        "cause, round, move, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [game_id, held.seat, held.text, held.address, held.cause,
                         held.round, held.move, now])

    def drop_held(self, game_id: str, seat: str) -> None:
        self.db.execute("DELETE FROM held_orders WHERE game_id = ? AND seat = ?",
                        [game_id, seat])

    def remove_member(self, game_id: str, address: str, key: str) -> None:
        self.db.execute("DELETE FROM members WHERE game_id = ? AND address = ? AND key = ?",
                        [game_id, address.lower(), key])

    def reported_round(self, game_id: str, address: str) -> str | None:
        row = self.db.execute("SELECT reported_round FROM members WHERE game_id = ? AND "
                              "address = ? AND reported_round IS NOT NULL",
                              [game_id, address.lower()]).fetchone()
        return None if row is None else str(row[0])

    # --- tournaments (schema 6) -------------------------------------------------------
    def create_tournament(self, t: Tournament, now: float) -> None:
        self.db.execute(
            f"INSERT INTO tournaments ({_TOURNAMENT_COLUMNS}, {_TOURNAMENT_ADDED}, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [t.name, t.director.lower(), json.dumps(list(t.titles)), json.dumps(list(t.sizes)),
             t.heats, t.advance, t.scoring, t.deadline, t.timeout, t.seed, t.minimum,
             t.stage, t.heat, t.heat_limit, t.heat_started, t.heat_ends, t.heat_warned, now])

    def tournament(self, name: str) -> Tournament | None:
        row = self.db.execute(f"SELECT {_TOURNAMENT_COLUMNS}, {_TOURNAMENT_ADDED} FROM "
                              "tournaments WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        return Tournament(row[0], row[1], tuple(json.loads(row[2])),
                          tuple(json.loads(row[3])), *row[4:])

    def update_tournament(self, name: str, **fields: Any) -> None:
        names = ", ".join(f"{column} = ?" for column in fields)
        self.db.execute(f"UPDATE tournaments SET {names} WHERE name = ?",
                        [*fields.values(), name])

    def add_entrant(self, tournament: str, address: str, role: str, now: float) -> None:
        """Enter ADDRESS (again, after a withdrawal: keeping the first entry's place)."""
        self.db.execute(
            "INSERT INTO tournament_entrants (tournament, address, role, created) VALUES "
            "(?, ?, ?, ?) ON CONFLICT (tournament, address) DO UPDATE SET "
            "role = excluded.role, status = 'entered'",
            [tournament, address.lower(), role, now])

    def entrants(self, tournament: str) -> list[Entrant]:
        """Everyone who entered TOURNAMENT, in entry order."""
        rows = self.db.execute("SELECT address, role, status FROM tournament_entrants WHERE "
                               "tournament = ? ORDER BY created, rowid", [tournament])
        return [Entrant(*r) for r in rows.fetchall()]

    def set_entrant(self, tournament: str, address: str, **fields: Any) -> None:
        names = ", ".join(f"{column} = ?" for column in fields)
        self.db.execute(f"UPDATE tournament_entrants SET {names} WHERE tournament = ? AND "
                        "address = ?", [*fields.values(), tournament, address.lower()])

    def add_confirmation(self, token: str, address: str, lines: list[str],
                         now: float) -> None:
        self.db.execute("INSERT INTO tournament_confirmations (token, address, lines, "
                        "created) VALUES (?, ?, ?, ?)",
                        [token, address.lower(), json.dumps(lines), now])

    def confirmation(self, token: str) -> tuple[str, list[str], float, float | None] | None:
        """(address, lines, created, confirmed) of the confirmation TOKEN."""
        row = self.db.execute("SELECT address, lines, created, confirmed FROM "
                              "tournament_confirmations WHERE token = ?", [token]).fetchone()
        return None if row is None else (row[0], json.loads(row[1]), row[2], row[3])

    def waiting_confirmation(self, address: str, lines: list[str], since: float
                             ) -> str | None:
        """The token of a confirmation of LINES for ADDRESS asked after SINCE and not
        yet given, if there is one."""
        row = self.db.execute("SELECT token FROM tournament_confirmations WHERE address = ? "
                              "AND lines = ? AND created > ? AND confirmed IS NULL",
                              [address.lower(), json.dumps(lines), since]).fetchone()
        return None if row is None else str(row[0])

    def confirm(self, token: str, now: float) -> None:
        self.db.execute("UPDATE tournament_confirmations SET confirmed = ? WHERE token = ?",
                        [now, token])

    def forget_confirmations(self, before: float) -> None:
        """Drop the confirmations asked before BEFORE (expired, or long done)."""
        self.db.execute("DELETE FROM tournament_confirmations WHERE created < ?", [before])

    def tournaments_created(self, director: str, since: float) -> int:
        """How many tournaments DIRECTOR created after SINCE."""
        return int(self.db.execute("SELECT COUNT(*) FROM tournaments WHERE director = ? AND "
                                   "created > ?", [director.lower(), since]).fetchone()[0])

    def add_tournament_table(self, table: TournamentTable) -> None:
        self.db.execute("INSERT INTO tournament_tables (game_id, tournament, heat, number, "
                        "title) VALUES (?, ?, ?, ?, ?)",
                        [table.game_id, table.tournament, table.heat, table.number,
                         table.title])

    _TABLE_COLUMNS = "game_id, tournament, heat, number, title, ended"

    def tournament_tables(self, tournament: str) -> list[TournamentTable]:
        rows = self.db.execute(f"SELECT {self._TABLE_COLUMNS} FROM tournament_tables WHERE "
                               "tournament = ? ORDER BY heat, number", [tournament])
        return [TournamentTable(*r) for r in rows.fetchall()]

    def tournament_table(self, game_id: str) -> TournamentTable | None:
        """The tournament table GAME_ID is, if it is one."""
        row = self.db.execute(f"SELECT {self._TABLE_COLUMNS} FROM tournament_tables WHERE "
                              "game_id = ?", [game_id]).fetchone()
        return None if row is None else TournamentTable(*row)

    def end_tournament_table(self, game_id: str, values: dict[str, int], now: float) -> None:
        """GAME_ID is scored on VALUES (each seat's value now)."""
        self.db.execute("UPDATE tournament_tables SET ended = ? WHERE game_id = ?",
                        [now, game_id])
        self.db.conn.executemany("INSERT OR REPLACE INTO tournament_results (game_id, seat, "
                            "value) VALUES (?, ?, ?)",
                            [(game_id, seat, value) for seat, value in values.items()])

    def timed_heats(self) -> list[str]:
        """The tournaments whose running heat has a deadline (issue 32)."""
        rows = self.db.execute("SELECT name FROM tournaments WHERE heat_ends IS NOT NULL "
                               "AND stage IN ('heats', 'final') ORDER BY name")
        return [str(r[0]) for r in rows]

    def reopen_tournament_table(self, game_id: str) -> None:
        """Take back a table's end (`undo end table`): unscored, playing again."""
        self.db.execute("UPDATE tournament_tables SET ended = NULL WHERE game_id = ?",
                        [game_id])
        self.db.execute("DELETE FROM tournament_results WHERE game_id = ?", [game_id])

    def snapshot(self, game_id: str, engine: str) -> tuple[int, bytes] | None:
        """GAME_ID's kept position (its move and bytes) if ENGINE made it."""
        row = self.db.execute("SELECT move, state FROM snapshots WHERE game_id = ? AND "
                              "engine = ?", [game_id, engine]).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def save_snapshot(self, game_id: str, move: int, engine: str, state: bytes) -> None:
        """Keep GAME_ID's position at MOVE (replacing the one kept before)."""
        self.db.execute("INSERT OR REPLACE INTO snapshots (game_id, move, engine, state) "
                        "VALUES (?, ?, ?, ?)", [game_id, move, engine, state])

    def last_move_at(self, game_id: str) -> float | None:
        """When GAME_ID's last move was stored (None: no move yet)."""
        row = self.db.execute("SELECT MAX(created) FROM moves WHERE game_id = ?",
                              [game_id]).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def tournament_results(self, game_id: str) -> dict[str, int]:
        return {str(seat): int(value) for seat, value in self.db.execute(
            "SELECT seat, value FROM tournament_results WHERE game_id = ? ORDER BY seat",
            [game_id]).fetchall()}

    def add_holder(self, game_id: str, seat: str, address: str, since: int) -> None:
        self.db.execute("INSERT OR REPLACE INTO tournament_holders (game_id, seat, address, "
                        "since) VALUES (?, ?, ?, ?)", [game_id, seat, address.lower(), since])

    def end_holder(self, game_id: str, seat: str, address: str, until: int) -> None:
        self.db.execute("UPDATE tournament_holders SET until = ? WHERE game_id = ? AND "
                        "seat = ? AND address = ?", [until, game_id, seat, address.lower()])

    def holders(self, game_id: str) -> list[Holder]:
        """Who held each seat of GAME_ID, in turn."""
        rows = self.db.execute("SELECT seat, address, since, until FROM tournament_holders "
                               "WHERE game_id = ? ORDER BY seat, since, rowid", [game_id])
        return [Holder(*r) for r in rows.fetchall()]

    def reliability_counts(self, address: str) -> tuple[int, int, int, int, int]:
        """ADDRESS's record in every game: (mails that made moves, late ones among them,
        deadlines the clock passed, resignations, tournament seats taken from them)."""
        address = address.lower()
        one = self.db.execute
        answered = one("SELECT COUNT(DISTINCT cause) FROM moves WHERE actor = ? AND "
                       "cause IS NOT NULL", [address]).fetchone()[0]
        late = one("SELECT COUNT(*) FROM lateness WHERE address = ? AND policy = 'wait'",
                   [address]).fetchone()[0]
        missed = one("SELECT COUNT(*) FROM lateness WHERE address = ? AND policy != 'wait'",
                     [address]).fetchone()[0]
        resigned = one("SELECT COUNT(DISTINCT s.game_id || ' ' || s.seat) FROM seats s JOIN "
                       "members m ON m.game_id = s.game_id AND m.seat = s.seat WHERE "
                       "m.address = ? AND m.role = 'player' AND s.resigned IS NOT NULL",
                       [address]).fetchone()[0]
        replaced = one("SELECT COUNT(*) FROM tournament_holders WHERE address = ? AND "
                       "until IS NOT NULL", [address]).fetchone()[0]
        return int(answered), int(late), int(missed), int(resigned), int(replaced)

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        [key, value])

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A raw query, for tests and the operator."""
        return [tuple(r) for r in self.db.execute(sql, list(params)).fetchall()]

    def close(self) -> None:
        self.db.conn.close()
