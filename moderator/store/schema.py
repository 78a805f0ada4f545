"""The store's schema: the mail service's tables, written in one place, and how a
database of an older schema is brought up to date when it is opened (`migrate`).

The schema's history, version by version, is told in `moderator.store`.
"""

from __future__ import annotations

import sqlite_utils

SCHEMA_VERSION = 7  # 7: bounces and health (6: tournaments; 5: `outbox_raw`)

#: The columns added to `tournaments` after schema 6 (issue 32: a heat's deadline); a
#: table made before them gets them when the database is opened.
TOURNAMENT_ADDED = "heat_limit, heat_started, heat_ends, heat_warned"

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


def migrate(db: sqlite_utils.Database) -> None:
    """Make DB's tables of schema SCHEMA_VERSION, migrating those of an older one (in
    the caller's transaction: the database is migrated whole or not at all)."""
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
    _split_outbox(db)
    for statement in _MAIL_SCHEMA.split(";\n"):
        if statement.strip():
            db.execute(statement)
    _widen_scoring(db)
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
    for column in TOURNAMENT_ADDED.split(", "):
        if column not in tournament_columns:
            # Issue 32: a heat's deadline (a schema-6 table made before it).
            db.execute(f"ALTER TABLE tournaments ADD COLUMN {column} REAL")
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
               [str(SCHEMA_VERSION)])


def _widen_scoring(db: sqlite_utils.Database) -> None:
    """Schema 6 tournaments knew two scoring rules; the table's CHECK takes four now
    (SQLite cannot change a CHECK in place: the table is made again, rows kept)."""
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


def _split_outbox(db: sqlite_utils.Database) -> None:
    """Schema 5: an outbox table of an older schema (the mails in its rows) becomes
    `outbox_queue` and `outbox_raw`, ids, counter and all (in `migrate`'s
    transaction)."""
    found = db.execute("SELECT type FROM sqlite_master WHERE name = 'outbox'").fetchone()
    if found is None or found[0] != "table":
        return
    for statement in _MAIL_SCHEMA.split(";\n"):
        if "CREATE TABLE IF NOT EXISTS outbox_" in statement:
            db.execute(statement)
    db.execute(f"INSERT INTO outbox_queue ({_QUEUE_COLUMNS}) "
               f"SELECT {_QUEUE_COLUMNS} FROM outbox")
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
