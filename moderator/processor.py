"""One mail in, in one transaction: game moves, member changes and every mail it causes.

The inbox hands over raw bytes. `Processor.receive` records them (keyed by Message-ID,
or a hash of the bytes) and commits; `Processor.process` then does everything the
mail causes inside ONE SQLite transaction -- apply the orders, append the moves,
update the members, queue every outgoing mail (rendered to bytes), and mark the mail
done. A crash before that commit leaves the mail `new`, and it is simply processed
again; after it, the mail is `done` and a second delivery or fetch of it is
recognised and ignored. So an order is applied once and each report is queued once.

What a mail may do depends on who sent it (`moderator.auth`): a forged From alone
never suffices; the sender needs the token the service put in the Reply-To of its
mails to them, and must write from an address registered to that seat.

This module does no network I/O and keeps no state between mails besides the store,
so it runs the same in the daemon (in a worker thread) and in unit tests.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.errors import GameError
from engine.export import export_record
from engine.game import Game, Setup
from engine.rounds.stock import StockRound
from engine.title import available_titles, load_title
from grammar import commands as cmd
from grammar.errors import OrderError
from grammar.help import help_text
from grammar.names import Names, names_for_title
from grammar.parser import parse_line
from grammar.submission import SubmissionLine, parse_submission, read_game_id, stop_reason
from moderator import timekeeper
from moderator.auth import (
    MASTER_KEY,
    make_token,
    observer_key,
    read_tag,
    same_token,
    seat_name_problem,
    subject_tags,
    tag_address,
    token_words,
)
from moderator.calendar import deadline_event
from moderator.config import ModeratorConfig
from moderator.deadlines import format_deadline
from moderator.ingame import Desk, policy_text
from moderator.mailparse import Incoming, parse_incoming, read_key
from moderator.play import LineResult, parse_body, run_submission
from moderator.reports import (
    Attachment,
    HistoryEntry,
    MailKind,
    OutgoingMail,
    Picture,
    Position,
    Results,
    Section,
    compose,
    map_picture,
    message_id_for,
    position,
    render,
    replay_history,
)
from moderator.store import HeldOrders, Member, Role, Store
from moderator.turns import restart_clock, settle

__all__ = ["Outcome", "Processor", "ProcessorSettings"]

log = logging.getLogger(__name__)

_PASSWORD_LINE = re.compile(r"^\s*password\s+(\S+)\s*$", re.I)
#: A report shows at most this many past moves; `history N` shows more.
MAX_HISTORY = 100
#: A mail whose processing killed the daemon this often is given up as poison.
MAX_ATTEMPTS = 5
#: Games kept replayed in memory (a replay is the only way state is made; this only
#: saves doing it again for the next mail of the same game).
GAME_CACHE_SIZE = 64


@dataclass(frozen=True)
class ProcessorSettings:
    """What processing needs to know about the moderator."""

    address: str
    secret: str = field(repr=False)
    name: str = "18xx moderator"
    plus_addressing: bool = True
    replies_per_hour: int = 60
    game_masters: tuple[str, ...] = ()
    max_message_bytes: int = 10_000_000
    max_order_lines: int = 100
    deadline_hours: float = 72.0
    reminder_hours: float = 4.0
    away_windows: int = 3
    away_days: int = 15

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"

    @classmethod
    def from_config(cls, config: ModeratorConfig) -> ProcessorSettings:
        return cls(address=config.address, secret=config.secret, name=config.name,
                   plus_addressing=config.plus_addressing,
                   replies_per_hour=config.replies_per_hour,
                   game_masters=config.game_masters,
                   max_message_bytes=config.max_message_bytes,
                   deadline_hours=config.deadline_hours,
                   reminder_hours=config.reminder_hours,
                   away_windows=config.away_windows, away_days=config.away_days)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one mail (for the log and the tests)."""

    key: str
    status: Literal["processed", "duplicate", "skipped", "failed"]
    summary: str
    game_id: str | None = None
    queued: int = 0


@dataclass(frozen=True, slots=True)
class _Auth:
    """Who a mail is from, as far as the game is concerned."""

    status: Literal["ok", "no_token", "unregistered_sender", "unknown"]
    key: str | None = None  # the member key the token proved
    rows: tuple[Member, ...] = ()  # every membership of the sender's address
    claimed: tuple[Member, ...] = ()  # on failure: the members the mail claimed to be


@dataclass(frozen=True, slots=True)
class _LobbySeat:
    seat: str
    address: str
    joined: bool


@dataclass(frozen=True, slots=True)
class _Lobby:
    game_id: str
    title: str
    master: str
    seats: tuple[_LobbySeat, ...]
    players_min: int
    players_max: int


@dataclass(frozen=True, slots=True)
class _Footer:
    moderator: str
    game_id: str | None = None
    next_move: int | None = None
    token: str | None = None
    plus_addressing: bool = True


class _Refused(Exception):
    """A lobby command that cannot be done; its message goes under the line."""


class Processor:
    """Records and processes mails against one store."""

    def __init__(self, store: Store, settings: ProcessorSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self._games: OrderedDict[str, Game] = OrderedDict()
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
        """Look at every game's clock once (`moderator.timekeeper`)."""
        with self.lock:
            return timekeeper.tick(self)

    def recover_downtime(self) -> float:
        """At start-up: extend the deadlines that ran while the service was down."""
        with self.lock:
            return timekeeper.recover_downtime(self)

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
                work = _Work(self, parse_incoming(row.raw, self.settings.address),
                             row.size, self.clock())
                summary, status = work.run()
                queued = work.queue()
                store.finish_message(key, summary, game_id=work.game_id,
                                     sender=work.incoming.sender, now=work.now)
        except Exception as exc:
            log.exception("processing %s failed", key)
            return self._give_up(key, f"failed: {type(exc).__name__}: {exc}")
        # Committed: the games this mail changed are now the stored ones.
        for game_id, game in work.committed.items():
            self._remember(game_id, game)
        log.info("%s from %s: %s (%d mail%s queued)", key, work.incoming.sender, summary,
                 queued, "" if queued == 1 else "s")
        return Outcome(key, status, summary, work.game_id, queued)

    def process_pending(self) -> list[Outcome]:
        """Process every recorded mail that is not done (after a crash, at start-up)."""
        outcomes = []
        for key in self.store.pending_messages():
            self.store.count_attempt(key)
            outcomes.append(self.process(key))
        return outcomes

    # -- games, replayed once and kept (the log stays the truth) -------------------------
    def game(self, game_id: str) -> Game:
        """The stored game GAME_ID, from the cache when no move was appended since (by the
        CLI, say). Callers must not change it: they work on a `clone`."""
        count = self.store.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?",
                                   [game_id])[0][0]
        cached = self._games.get(game_id)
        if cached is not None and cached.next_move == count:
            self._games.move_to_end(game_id)
            return cached
        game = self.store.load(game_id)
        self._remember(game_id, game)
        return game

    def _remember(self, game_id: str, game: Game) -> None:
        self._games[game_id] = game
        self._games.move_to_end(game_id)
        while len(self._games) > GAME_CACHE_SIZE:
            self._games.popitem(last=False)

    def _give_up(self, key: str, summary: str) -> Outcome:
        """Mark a mail that cannot be processed done, and tell its sender so."""
        row = self.store.message(key)
        assert row is not None
        incoming = parse_incoming(row.raw, self.settings.address)
        with self.store.transaction():
            work = _Work(self, incoming, row.size, self.clock())
            if incoming.automatic is None and incoming.sender is not None:
                work.notice(incoming.sender, "error", their_subject=incoming.subject)
            queued = work.queue()
            self.store.finish_message(key, summary, game_id=None, sender=incoming.sender,
                                      now=work.now)
        return Outcome(key, "failed", summary, None, queued)

    # -- tokens --------------------------------------------------------------------------
    def token(self, game_id: str, key: str) -> str:
        return make_token(self.settings.secret, game_id, key)


class _Work:
    """Everything one mail causes, gathered before the transaction commits."""

    def __init__(self, processor: Processor, incoming: Incoming, size: int, now: float
                 ) -> None:
        self.processor = processor
        self.store = processor.store
        self.settings = processor.settings
        self.incoming = incoming
        self.size = size
        self.now = now
        self.game_id: str | None = None
        self.mails: list[OutgoingMail] = []
        self.committed: dict[str, Game] = {}  # games changed, once the transaction commits
        self._positions: dict[tuple[str, int], Position] = {}
        self._maps: dict[tuple[str, int, int], Picture] = {}
        # Games that ended with this work: the attachments everyone's last report carries.
        self.final: dict[str, tuple[Attachment, ...]] = {}

    # -- routing -------------------------------------------------------------------------
    def run(self) -> tuple[str, Literal["processed", "skipped"]]:
        inc = self.incoming
        if inc.automatic is not None:
            return f"skipped: {inc.automatic}", "skipped"
        if inc.sender is None:
            return "skipped: no sender address", "skipped"
        if self.size > self.settings.max_message_bytes:
            self.notice(inc.sender, "too_large", their_subject=inc.subject, size=self.size,
                        limit=self.settings.max_message_bytes)
            return "refused: too large", "processed"
        game_id, tokens = self.identify()
        self.game_id = game_id
        auth = self.authenticate(game_id, tokens) if game_id else _Auth("unknown")
        if auth.status == "ok":
            assert game_id is not None
            if not inc.text:
                self.notice(inc.sender, "no_text", game_id=game_id, key=auth.key,
                            their_subject=inc.subject, reason=inc.no_text)
                return "refused: no text", "processed"
            if self.too_many_lines(game_id, auth.key):
                return "refused: too many lines", "processed"
            if self.store.has_game(game_id):
                return self.play(game_id, auth), "processed"
            return self.lobby(game_id, auth), "processed"
        if inc.text and (general := self.general_commands()) is not None:
            return self.general(general), "processed"
        if auth.status in ("no_token", "unregistered_sender"):
            assert game_id is not None
            return self.auth_failed(game_id, auth), "processed"
        if not inc.text:
            self.notice(inc.sender, "no_text", their_subject=inc.subject, reason=inc.no_text)
            return "refused: no text", "processed"
        if game_id is not None:
            self.notice(inc.sender, "unknown_sender", game_id=game_id, sender=inc.sender)
            return f"refused: {inc.sender} is not in {game_id}", "processed"
        self.notice(inc.sender, "no_game", games=self.games_of(inc.sender),
                    titles=available_titles())
        return "refused: no game named", "processed"

    def identify(self) -> tuple[str | None, list[tuple[str | None, str]]]:
        """The game the mail is for, and the (key, token) pairs it carries for it.

        The game is named by a `game ID` line (the player's explicit word wins), by the
        address the mail was sent to (moderator+ID...), or by the subject's [ID]."""
        inc, store = self.incoming, self.store
        tags = [t for r in inc.recipients if (t := read_tag(r, self.settings.address))]
        subject = subject_tags(inc.subject)
        named = [read_game_id(inc.text)] if inc.text else []
        candidates = [*named, *(t.game_id for t in tags), *(g for g, _ in subject)]
        game_id = None
        for candidate in candidates:
            if candidate and (found := store.canonical_game_id(candidate)) is not None:
                game_id = found
                break
        if game_id is None:
            return None, []
        same = game_id.lower()
        tokens: list[tuple[str | None, str]] = [
            (t.key, t.token) for t in tags
            if t.game_id.lower() == same and t.key is not None and t.token is not None]
        tokens += [(None, tok) for g, tok in subject if tok and g.lower() == same]
        tokens += [(None, word) for word in token_words(inc.subject)]
        tokens += [(None, pw) for pw in self.password_lines()]
        return game_id, tokens

    def password_lines(self) -> list[str]:
        lines = self.incoming.text.splitlines()
        found = []
        for index, line in enumerate(lines):
            if stop_reason(lines, index) is not None:
                break
            if (match := _PASSWORD_LINE.match(line)) is not None:
                found.append(match.group(1))
        return found

    def authenticate(self, game_id: str, tokens: list[tuple[str | None, str]]) -> _Auth:
        """A token for a member of the game, from an address registered to that member."""
        members = self.store.members(game_id)
        keys = {m.key.lower(): m.key for m in members}
        proven: list[str] = []
        for key, token in tokens:
            wanted = [keys[key.lower()]] if key is not None and key.lower() in keys else (
                [] if key is not None else list(keys.values()))
            for candidate in wanted:
                if candidate not in proven and same_token(
                        self.processor.token(game_id, candidate), token):
                    proven.append(candidate)
        sender = self.incoming.sender
        mine = tuple(m for m in members if m.address == sender)
        for key in proven:
            if any(m.key == key for m in mine):
                return _Auth("ok", key, mine)
        if proven:
            claimed = tuple(m for m in members if m.key in proven)
            return _Auth("unregistered_sender", None, mine, claimed)
        if mine:
            return _Auth("no_token", None, mine, mine)
        return _Auth("unknown")

    def too_many_lines(self, game_id: str, key: str | None) -> bool:
        lines = self.incoming.text.splitlines()
        count = 0
        for index, line in enumerate(lines):
            if stop_reason(lines, index) is not None:
                break
            if line.strip() and not line.strip().startswith("#"):
                count += 1
        if count <= self.settings.max_order_lines:
            return False
        assert self.incoming.sender is not None
        self.notice(self.incoming.sender, "too_long", game_id=game_id, key=key,
                    their_subject=self.incoming.subject, lines=count,
                    limit=self.settings.max_order_lines)
        return True

    # -- mail without a game: create, observe, help ------------------------------------
    def general_commands(self) -> list[cmd.Command] | None:
        """The mail's lines when every one is `create game`, `observe` or `help`."""
        found: list[cmd.Command] = []
        lines = self.incoming.text.splitlines()
        for index, line in enumerate(lines):
            if stop_reason(lines, index) is not None:
                break
            if not line.strip() or line.strip().startswith("#"):
                continue
            try:
                orders = parse_line(line, Names(title=""))
            except OrderError:
                return None
            for order in orders:
                if not isinstance(order, cmd.CreateGame | cmd.Observe | cmd.Help):
                    return None
                found.append(order)
        return found or None

    def general(self, commands: list[cmd.Command]) -> str:
        sender = self.incoming.sender
        assert sender is not None
        done: list[str] = []
        for command in commands:
            if isinstance(command, cmd.Help):
                self.notice(sender, "help", text=help_text(command.topic))
                done.append("help")
            elif isinstance(command, cmd.CreateGame):
                done.append(self.create_game(sender, command))
            elif isinstance(command, cmd.Observe):
                done.append(self.observe(sender, command.game))
        return "; ".join(done)

    def create_game(self, sender: str, command: cmd.CreateGame) -> str:
        masters = self.settings.game_masters
        if masters and sender not in masters:
            self.notice(sender, "not_allowed", reason=(
                f"Only the moderator's game masters may create games here; {sender} is "
                "not one of them. Ask the operator of this moderator."))
            return "refused: create game (not a game master)"
        try:
            spec = load_title(command.title)
        except ValueError as exc:
            self.notice(sender, "not_allowed", reason=f"{exc}.")
            return f"refused: create game {command.title}"
        seed = secrets.randbelow(2**31)
        options = []
        for option in command.options:
            name, _, value = option.partition("=")
            if name.lower() == "seed" and value.isdigit():
                seed = int(value)
            else:
                options.append(option)
        game_id = self.store.create_mail_game(spec.name, sender, options, seed, self.now)
        self.store.add_member(game_id, sender, "master", MASTER_KEY, status="active",
                              now=self.now)
        self.game_id = game_id
        self.notice(sender, "created", game_id=game_id, key=MASTER_KEY, title=spec.name,
                    players_min=spec.players_min, players_max=spec.players_max)
        return f"created {game_id}"

    def observe(self, sender: str, game: str) -> str:
        game_id = self.store.canonical_game_id(game)
        if game_id is None:
            self.notice(sender, "no_game", games=self.games_of(sender),
                        titles=available_titles())
            return f"refused: observe {game} (no such game)"
        members = self.store.members(game_id)
        existing = [m for m in members if m.address == sender and m.role == "observer"]
        key = existing[0].key if existing else observer_key(
            1 + sum(1 for m in members if m.role == "observer"))
        if not existing:
            self.store.add_member(game_id, sender, "observer", key, now=self.now)
        mail_game = self.store.mail_game(game_id)
        title = mail_game.title if mail_game else self.store.game_row(game_id).title
        self.notice(sender, "observe", game_id=game_id, key=key, title=title)
        return f"observe {game_id}: confirmation sent"

    # -- failed authentication -------------------------------------------------------------
    def auth_failed(self, game_id: str, auth: _Auth) -> str:
        """Tell the members the mail claimed to be (only them, at their own addresses)."""
        told = []
        for member in auth.claimed:
            if member.address in told:
                continue
            told.append(member.address)
            claimed = member.seat or ("the game master" if member.role == "master"
                                      else "an observer")
            self.notice(member.address, "auth_failed", game_id=game_id, key=member.key,
                        claimed=claimed, why=auth.status,
                        sender=self.incoming.sender, their_subject=self.incoming.subject)
        return f"refused: authentication failed ({auth.status}); told {', '.join(told)}"

    # -- a game that has not started -------------------------------------------------------
    def lobby(self, game_id: str, auth: _Auth) -> str:
        mail_game = self.store.mail_game(game_id)
        assert mail_game is not None and self.incoming.sender is not None
        spec = load_title(mail_game.title)
        members = self.store.members(game_id)
        seats = [m.seat for m in members if m.role == "player" and m.seat]
        submission = parse_submission(self.incoming.text, names_for_title(spec, seats))
        roles: set[Role] = {m.role for m in auth.rows}
        results: list[LineResult] = []
        sections: list[Section] = []
        started = False
        mark = len(self.mails)
        ok = True
        try:
            with self.store.transaction():  # a savepoint: all the lines or none
                for header in submission.headers:
                    if header.error is not None:
                        raise _Refused(header.error.format_error())
                for line in submission.lines:
                    if line.error is not None:
                        results.append(LineResult(line.number, line.text, False,
                                                  error=line.error.format_error()))
                        raise _Refused("")
                    said: list[str] = []
                    for order in line.orders:
                        try:
                            said.append(self.lobby_command(
                                game_id, auth, roles, order, sections))
                        except _Refused as exc:
                            results.append(LineResult(line.number, line.text, False,
                                                      error=_under(line.text, str(exc))))
                            raise _Refused("") from None
                        started = started or isinstance(order, cmd.Start)
                    results.append(LineResult(line.number, _masked(line.text), True,
                                              tuple(said)))
        except _Refused as exc:
            ok = False
            del self.mails[mark:]
            if str(exc):
                results.append(LineResult(0, "", False, error=str(exc)))
        if ok and not results:
            results.append(LineResult(0, "", False, error=(
                "no commands found: write one per line (see `help`)")))
            ok = False
        outcome = Results(ok, tuple(results), applied=False, next_move=None)
        if started and ok:
            return self.after_change(game_id, auth, outcome, sections,
                                     intro=f"Game {game_id} has started.")
        lobby = None if started else self.lobby_view(game_id)
        self.reply(game_id, auth.key, "report", results=outcome, sections=sections,
                   lobby=lobby, history=(), subject_text="set-up")
        return f"{game_id} lobby: " + ("ok" if ok else "refused")

    def lobby_command(self, game_id: str, auth: _Auth, roles: set[Role], order: object,
                      sections: list[Section]) -> str:
        """Do one lobby command; the text under its line. _Refused if it cannot be."""
        sender = self.incoming.sender
        assert sender is not None
        if isinstance(order, cmd.Password):
            return "password accepted"
        if isinstance(order, cmd.Help):
            sections.append(Section(f"help {order.topic or ''}".strip(),
                                    help_text(order.topic)))
            return "see below"
        if isinstance(order, cmd.Status):
            return "the game's set-up follows"
        if isinstance(order, cmd.Invite):
            if "master" not in roles:
                raise _Refused("only the game master may invite players")
            return self.invite(game_id, order)
        if isinstance(order, cmd.Join):
            return self.join(game_id, auth)
        if isinstance(order, cmd.Start):
            if "master" not in roles:
                raise _Refused("only the game master may start the game")
            return self.start(game_id)
        if isinstance(order, cmd.CreateGame):
            raise _Refused(f"to create another game, mail `create game {order.title}` in a "
                           f"new mail to {self.settings.address} (not a reply)")
        if isinstance(order, cmd.Command):
            raise _Refused(f"`{order.kind.replace('_', ' ')}` is not available before the "
                           "game starts")
        raise _Refused(f"the game {game_id} has not started yet: orders come after `start`")

    def invite(self, game_id: str, order: cmd.Invite, *, started: bool = False) -> str:
        """Invite an address to a seat (a new seat before the game starts; another
        address for a seat at any time); _Refused if it cannot be."""
        address, seat = self.check_invite(game_id, order, started=started)
        mail_game = self.store.mail_game(game_id)
        assert mail_game is not None
        self.store.add_member(game_id, address, "player", seat, seat=seat, now=self.now)
        self.notice(address, "invitation", game_id=game_id, key=seat,
                    master=mail_game.master, title=mail_game.title, seat=seat)
        return f"invitation sent to {address} for the seat {seat}"

    def check_invite(self, game_id: str, order: cmd.Invite, *, started: bool
                     ) -> tuple[str, str]:
        """The address and seat an invitation is for, or _Refused saying why not."""
        mail_game = self.store.mail_game(game_id)
        if mail_game is None:
            raise _Refused(f"{game_id} was not set up by mail: it has no invitations")
        spec = load_title(mail_game.title)
        address = order.address.strip("<>").lower()
        local, at, domain = address.rpartition("@")
        if not at or not local or ("." not in domain and domain != "localhost"):
            raise _Refused(f"{order.address!r} is not a mail address")
        if (problem := seat_name_problem(order.seat)) is not None:
            raise _Refused(problem)
        members = self.store.members(game_id)
        seats = {m.seat.lower(): m.seat for m in members if m.role == "player" and m.seat}
        seat = seats.get(order.seat.lower(), order.seat)
        if started and seat.lower() not in seats:
            raise _Refused(f"the game has started: an address can be added only to its "
                           f"seats ({', '.join(seats.values())})")
        if seat.lower() not in seats and len(seats) >= spec.players_max:
            raise _Refused(f"{spec.name} takes at most {spec.players_max} players; "
                           f"the seats are {', '.join(seats.values())}")
        if any(m.address == address and m.role == "player" and m.seat != seat
               for m in members):
            other = next(m.seat for m in members if m.address == address and m.seat)
            raise _Refused(f"{address} is invited as {other} already")
        return address, seat

    def join(self, game_id: str, auth: _Auth) -> str:
        rows = [m for m in auth.rows if m.key == auth.key] or list(auth.rows)
        row = rows[0]
        if row.status == "active":
            return "you have joined already"
        self.store.activate_member(game_id, row.address, row.key, 0)
        if row.role == "observer":
            return f"you follow {game_id} now"
        mail_game = self.store.mail_game(game_id)
        assert mail_game is not None
        players = [m for m in self.store.members(game_id) if m.role == "player"]
        joined = sum(1 for m in players if m.status == "active")
        spec = load_title(mail_game.title)
        if mail_game.master != row.address:
            self.notice(mail_game.master, "joined", game_id=game_id, key=MASTER_KEY,
                        seat=row.seat, address=row.address, joined=joined,
                        invited=len(players), players_min=spec.players_min)
        return f"you joined {game_id} as {row.seat}; the game master starts it with `start`"

    def start(self, game_id: str) -> str:
        mail_game = self.store.mail_game(game_id)
        assert mail_game is not None
        spec = load_title(mail_game.title)
        players = [m for m in self.store.members(game_id) if m.role == "player"]
        joined = [m.seat for m in players if m.status == "active" and m.seat]
        seats = list(dict.fromkeys(joined))  # a seat may have several addresses
        if len(seats) < spec.players_min:
            waiting = [f"{m.seat} ({m.address})" for m in players if m.status != "active"]
            raise _Refused(f"{spec.name} needs at least {spec.players_min} players; "
                           f"{len(seats)} ha{'s' if len(seats) == 1 else 've'} joined"
                           + (f" (waiting for {', '.join(waiting)})" if waiting else ""))
        # The seating is drawn with the game's seed, like every other draw.
        order = random.Random(mail_game.seed).sample(seats, len(seats))
        setup = Setup(spec.name, tuple(order), mail_game.seed,
                      frozenset(mail_game.options))
        try:
            self.store.create_game(setup, game_id)
        except GameError as exc:
            raise _Refused(exc.message) from None
        self.store.mark_started(game_id, self.now)
        self.store.create_clock(game_id, self.settings.deadline_hours * 3600)
        absent = [m.seat for m in players if m.status != "active" and m.seat not in seats]
        return (f"the game starts; seating order {', '.join(order)}"
                + (f" ({', '.join(a for a in absent if a)} had not joined)" if absent else ""))

    def lobby_view(self, game_id: str) -> _Lobby:
        mail_game = self.store.mail_game(game_id)
        assert mail_game is not None
        spec = load_title(mail_game.title)
        seats = tuple(_LobbySeat(m.seat or "", m.address, m.status == "active")
                      for m in self.store.members(game_id) if m.role == "player")
        return _Lobby(game_id, spec.name, mail_game.master, seats, spec.players_min,
                      spec.players_max)

    # -- a game in play ----------------------------------------------------------------------
    def play(self, game_id: str, auth: _Auth) -> str:
        store = self.store
        # A copy: a refused submission leaves its first lines applied to it.
        game = self.processor.game(game_id).clone()
        row = next((m for m in auth.rows if m.key == auth.key), None)
        if row is not None and row.status == "invited":
            return self.late_join(game_id, row, game)
        seat = self.acting_seat(game, auth)
        sender = self.incoming.sender
        assert sender is not None
        desk = Desk(self, game_id, game, auth, seat)
        clock = store.clock(game_id)
        orders = self.order_lines(game)  # with their parse errors, if any
        if orders and clock is not None and clock.ended is not None:
            return self.refuse_play(game_id, auth, game, "the game has ended: no more orders")
        if orders and clock is not None and clock.paused is not None and not desk.is_master:
            return self.refuse_play(game_id, auth, game, (
                "the game master has paused the game: orders are refused until `resume`"))
        if orders and seat is not None and self.may_hold(game, seat):
            return self.hold(game_id, auth, game, seat, orders)

        start = game.next_move
        report = run_submission(game, seat or sender, self.incoming.text, desk.on_command)
        applied = report.ok and bool(report.moves)
        if applied:
            store.append(game_id, start, list(report.moves), list(report.said),
                         cause=self.incoming.key, actor=sender, now=self.now)
        if report.ok:
            desk.commit()
        lines = tuple(dataclasses.replace(line, text=_masked(line.text))
                      for line in report.lines)
        results = Results(report.ok, lines, applied, report.next_move if applied else None)
        if report.ok and (applied or desk.announcements or desk.ended):
            intro = self.undo_intro(game_id, desk.undone) if applied and desk.undone else None
            intro = "\n".join(filter(None, [*desk.announcements, intro])) or None
            return self.after_change(game_id, auth, results, desk.sections, game=game,
                                     intro=intro, moved=applied, end=desk.ended)
        # A refused mail is answered with the position too (but not the history: that
        # stays for the next report), so a player who wrote against an old position
        # sees the new one at once.
        self.reply(game_id, auth.key, "report", results=results, sections=desk.sections,
                   game=game, history=None if desk.wants_report else ())
        return f"{game_id}: " + ("ok, nothing changed" if report.ok else "refused")

    def order_lines(self, game: Game) -> list[SubmissionLine]:
        """The mail's lines that are (or try to be) game orders, not commands."""
        submission = parse_body(game, self.incoming.text)
        return [line for line in submission.lines
                if line.error is not None or any(not isinstance(o, cmd.Command)
                                                 for o in line.orders)]

    def may_hold(self, game: Game, seat: str) -> bool:
        """Stock-round orders from a player whose turn it is not are held for it."""
        turn = game.turn()
        return (turn is not None and turn.seat != seat and isinstance(game.round, StockRound)
                and seat in game.setup.seats)

    def hold(self, game_id: str, auth: _Auth, game: Game, seat: str,
             orders: list[SubmissionLine]) -> str:
        """Keep ORDERS until SEAT's stock turn (replacing what it held before)."""
        sender = self.incoming.sender
        assert sender is not None
        for line in orders:
            if line.error is not None:
                return self.refuse_play(game_id, auth, game, line.error.format_error())
        turn = game.turn()
        assert turn is not None
        text = "\n".join(line.text for line in orders)
        self.store.hold(game_id, HeldOrders(seat, text, sender, self.incoming.key,
                                            game.round_name, game.next_move), self.now)
        said = (f"held: it is {turn.seat}'s turn; these orders are applied when your turn "
                f"comes in {game.round_name}, if they are still legal then (a new mail "
                "replaces them)",)
        results = Results(True, tuple(LineResult(line.number, line.text, True,
                                                 said if i == 0 else ())
                                      for i, line in enumerate(orders)), False, None)
        self.reply(game_id, auth.key, "report", results=results, sections=[], game=game,
                   history=())
        return f"{game_id}: orders held for {seat}"

    def refuse_play(self, game_id: str, auth: _Auth, game: Game, why: str) -> str:
        results = Results(False, (LineResult(0, "", False, error=why),), False, None)
        self.reply(game_id, auth.key, "report", results=results, sections=[], game=game,
                   history=())
        return f"{game_id}: refused ({why})"

    def undo_intro(self, game_id: str, undone: tuple[int, int]) -> str:
        """The moves an undo took back, for everyone's report."""
        first, stop = undone
        game = self.processor.game(game_id)
        entries = [e for e in self.history(game_id, game, first,
                                           limit=game.next_move - first) if e.number < stop]
        listed = "\n".join(f"  {e.line}" for e in entries)
        return f"Moves {first}-{stop - 1} were taken back:\n{listed}"

    def late_join(self, game_id: str, row: Member, game: Game) -> str:
        """A mail from someone invited to a game that has started: an observer, or a
        second address of a seat, who confirms (`join`) gets the current report; a
        player whose seat was left out at `start` is told so."""
        results: tuple[LineResult, ...]
        if not self.says_join():
            results = (LineResult(0, "", False, error=(
                "you are invited, but have not joined yet: reply `join` first")),)
            self.reply(game_id, row.key, "report", results=Results(False, results, False, None),
                       sections=[], history=(), subject_text="your mail")
            return f"{game_id}: {row.address} has not joined yet"
        if row.role == "observer" or row.seat in game.setup.seats:
            # An observer, or another address for a seat that plays: from now on it
            # gets the reports (and may send the seat's orders).
            self.store.activate_member(game_id, row.address, row.key, game.next_move)
            done = (f"you follow {game_id} now" if row.role == "observer"
                    else f"you joined {game_id} as {row.seat}: this address now gets "
                    f"{row.seat}'s reports and may send its orders")
            results = (LineResult(1, "join", True, (done,)),)
            self.reply(game_id, row.key, "report", results=Results(True, results, False, None),
                       sections=[], game=game, history=())
            return f"{game_id}: {row.address} joined"
        results = (LineResult(0, "", False, error=(
            f"the game {game_id} started without the seat {row.seat}: it had not joined")),)
        self.reply(game_id, row.key, "report", results=Results(False, results, False, None),
                   sections=[], history=(), subject_text="your mail")
        return f"{game_id}: {row.address} is too late to join"

    def says_join(self) -> bool:
        """Whether the mail has a `join` line (before its signature or quote)."""
        lines = self.incoming.text.splitlines()
        for index, line in enumerate(lines):
            if stop_reason(lines, index) is not None:
                break
            if line.strip().casefold() == "join":
                return True
        return False

    def acting_seat(self, game: Game, auth: _Auth) -> str | None:
        seats = [m.seat for m in auth.rows
                 if m.role == "player" and m.status == "active" and m.seat in game.setup.seats]
        if auth.key in seats:
            return auth.key
        return seats[0] if len(set(seats)) == 1 else None

    def after_change(self, game_id: str, auth: _Auth, results: Results,
                     sections: list[Section], *, game: Game | None = None,
                     intro: str | None = None, moved: bool = True, end: bool = False) -> str:
        """The sender's reply with the new report, and a report to every other member
        (after the moderator's automatic moves, which the reports include)."""
        game = game if game is not None else self.store.load(game_id)
        intro = _joined(intro, self.advance(game_id, game, moved=moved, end=end))
        sender = self.incoming.sender
        self.reply(game_id, auth.key, "report", results=results, sections=sections,
                   game=game, intro=intro)
        self.broadcast(game_id, game, intro, skip=sender)
        return f"{game_id}: applied, next move {game.next_move}"

    def broadcast(self, game_id: str, game: Game, intro: str | None,
                  skip: str | None = None) -> None:
        """A report to every member but SKIP (the sender, who has the reply)."""
        reported = {skip}
        for member in self.store.members(game_id):
            if member.status != "active" or member.address in reported:
                continue
            reported.add(member.address)
            self.report(game_id, member, game, intro=intro)

    def advance(self, game_id: str, game: Game, *, moved: bool, end: bool = False,
                cause: str | None = None) -> str | None:
        """After GAME changed: the moderator's automatic moves, the clock of the turn now
        running, and the game's end; what the reports should say about them."""
        store = self.store
        clock = store.clock(game_id)
        if clock is None:  # a game made with the CLI: no clock, no automatic moves
            self.committed[game_id] = game
            return None
        happened = settle(store, game_id, game, cause=cause or self.incoming.key,
                          now=self.now)
        for happening in happened:
            if happening.address and happening.kind in ("held_refused", "held_dropped"):
                self.notice(happening.address, "held", game_id=game_id, key=happening.seat,
                            text=happening.detail)
        restart_clock(store, game_id, game, self.now, moved=moved or bool(happened))
        self.committed[game_id] = game
        lines = [h.text for h in happened]
        if (game.state.game_over or end) and clock.ended is None:
            store.update_clock(game_id, ended=self.now, seat=None, deadline=None)
            self.final[game_id] = self.final_attachments(game_id, game)
            scores = sorted(game.scores().items(), key=lambda kv: -kv[1])
            lines.append("The game is over. Final scores:\n" + "\n".join(
                f"  {name:<16} {score:>6}" for name, score in scores)
                + "\nThe complete move history is attached, as text and as an 18xx.games "
                "record (`moderator import` reads it too).")
        return "\n".join(lines) or None

    def final_attachments(self, game_id: str, game: Game) -> tuple[Attachment, ...]:
        """The whole history as text, and as a record 18xx.games can show."""
        entries = self.history(game_id, game, 0, limit=max(game.next_move, 1))
        text = "".join(f"{e.line}\n" for e in entries)
        record = export_record(game, game_id=game_id, description=f"{game_id} played by mail")
        return (Attachment(f"{game_id}-history.txt", "text/plain", text.encode()),
                Attachment(f"{game_id}.json", "application/json",
                           json.dumps(record, indent=1).encode()))

    # -- mails -------------------------------------------------------------------------------
    def history(self, game_id: str, game: Game, start: int, limit: int = MAX_HISTORY
                ) -> tuple[HistoryEntry, ...]:
        start = max(start, game.next_move - limit)
        logged = self.store.logged_moves(game_id, start)
        if any(m.said is None for m in logged):
            return replay_history(game, start, game.next_move)
        return tuple(HistoryEntry(m.number, m.move.seat, m.said or ()) for m in logged)

    def key_for(self, game_id: str, address: str) -> str | None:
        """The key of ADDRESS's membership its mails carry: its seat, else gm, else obs."""
        rows = [m for m in self.store.members(game_id) if m.address == address]
        for role in ("player", "master", "observer"):
            for m in rows:
                if m.role == role:
                    return m.key
        return None

    def report(self, game_id: str, member: Member, game: Game, intro: str | None) -> None:
        """The position and what happened since MEMBER's last report -- unless MEMBER
        reads a digest (one report per round) or only their own turns, and this is
        neither a new round nor their turn nor the end."""
        if not self.wants_report(game_id, member.address, game):
            return
        key = self.key_for(game_id, member.address)
        self.mail(member.address, "report", "report", game_id=game_id, key=key,
                  game=game, you=self.seat_of(game_id, member.address, game),
                  history=self.history(game_id, game, member.reported_move),
                  results=None, sections=(), lobby=None, intro=intro)
        self.store.set_reported(game_id, member.address, game.next_move, game.round_name)

    def wants_report(self, game_id: str, address: str, game: Game) -> bool:
        reports = self.store.preferences(address).reports
        turn = game.turn()
        if reports == "all" or game_id in self.final or turn is None:
            return True
        if self.seat_of(game_id, address, game) == turn.seat:
            return True
        return reports == "digest" and self.store.reported_round(
            game_id, address) != game.round_name

    def seat_of(self, game_id: str, address: str, game: Game) -> str | None:
        for m in self.store.members(game_id):
            if m.address == address and m.role == "player" and m.seat in game.setup.seats:
                return m.seat
        return None

    def reply(self, game_id: str, key: str | None, template: str, *, results: Results,
              sections: list[Section], game: Game | None = None, lobby: _Lobby | None = None,
              history: tuple[HistoryEntry, ...] | None = None, intro: str | None = None,
              subject_text: str | None = None) -> None:
        """The answer to the sender: per-line results, and the report when there is one."""
        sender = self.incoming.sender
        assert sender is not None
        # Without an explicit HISTORY the reply is the sender's full report: what
        # happened since their last one, which it then counts as.
        full_report = history is None and game is not None
        if history is None and game is not None:
            member_rows = [m for m in self.store.members(game_id) if m.address == sender]
            since = min((m.reported_move for m in member_rows), default=game.next_move)
            history = self.history(game_id, game, since)
        self.mail(sender, template, "reply", game_id=game_id, key=key, game=game,
                  subject_text=subject_text,
                  you=self.seat_of(game_id, sender, game) if game else None,
                  results=results, sections=tuple(sections), lobby=lobby,
                  history=history or (), intro=intro)
        if full_report and game is not None:
            self.store.set_reported(game_id, sender, game.next_move, game.round_name)

    def notice(self, to: str, kind: str, *, game_id: str | None = None,
               key: str | None = None, **context: Any) -> None:
        """A short mail from templates/notice.*: an answer to the sender, or (for
        `invitation`, `joined`, `auth_failed`) a mail to someone else."""
        mail_kind: MailKind = _NOTICE_KINDS.get(kind, "reply")
        self.mail(to, "notice", mail_kind, game_id=game_id, key=key,
                  subject_text=_NOTICE_SUBJECTS.get(kind, "your mail"), kind=kind,
                  **context)

    def mail(self, to: str, template: str, mail_kind: MailKind, *, game_id: str | None,
             key: str | None, game: Game | None = None, subject_text: str | None = None,
             **context: Any) -> None:
        """Render one mail to TO and keep it for the transaction's end.

        A `reply` answers the incoming mail: it is threaded under it. Replies and
        notices are rate-limited per address (reports and invitations are not: they
        come from a game's own progress or its authenticated game master)."""
        settings = self.settings
        kind = mail_kind
        if kind in ("reply", "notice") and not self.may_answer(to):
            log.warning("not answering %s: %d answers in the last hour already", to,
                        settings.replies_per_hour)
            return
        token = self.processor.token(game_id, key) if game_id and key else None
        pos = self.position(game_id, game) if game is not None and game_id else None
        footer = _Footer(settings.address, game_id, pos.view.next_move if pos else None,
                         token, settings.plus_addressing)
        if game_id:
            state = pos.headline if pos else (subject_text or "")
            results = context.get("results")
            if isinstance(results, Results) and not results.ok:
                state = f"refused: {state}" if state else "refused"
            tag = f"{game_id} {token}" if token and not settings.plus_addressing else game_id
            subject = f"[{tag}] {state}".strip()
        else:
            subject = f"Re: {self.incoming.subject}" if self.incoming.subject else (
                "18xx moderator")
        reply_to = (tag_address(settings.address, game_id, key, token)
                    if game_id and key and token and settings.plus_addressing
                    else settings.address)
        context.setdefault("intro", None)
        images: tuple[Picture, ...] = ()
        attachments: tuple[Attachment, ...] = ()
        if game is not None and game_id and template == "report":
            images = (self.map_for(game_id, game, to),)
            context["deadline"], attachments = self.deadline_for(game_id, game, to)
            attachments += self.final.get(game_id, ())
        text, html = render(template, subject=subject, footer=footer, pos=pos,
                            game_id=game_id, map_cid=images[0].cid if images else None,
                            **context)
        # Every mail of a game refers to one (never sent) root id, so mail programs
        # keep the game in one thread; an answer is threaded under the mail it answers.
        root = f"<{game_id}.thread@{settings.domain}>" if game_id else None
        answer = kind == "reply"
        in_reply_to = self.incoming.message_id if answer else root
        references: list[str] = [root] if root else []
        if answer:
            references += [r for r in self.incoming.references if r != root]
            if self.incoming.message_id:
                references.append(self.incoming.message_id)
        self.mails.append(OutgoingMail(
            kind=kind, to=to, subject=subject, text=text, html=html,
            to_name=self.incoming.sender_name if to == self.incoming.sender else "",
            reply_to=reply_to, in_reply_to=in_reply_to, references=tuple(references),
            game_id=game_id, next_move=pos.view.next_move if pos else None, images=images,
            attachments=attachments,
            text_only=self.store.preferences(to).format == "text"))

    def deadline_for(self, game_id: str, game: Game, to: str
                     ) -> tuple[str | None, tuple[Attachment, ...]]:
        """The running turn's deadline in TO's time zone with the timeout policy, and for
        the player who owes the move its calendar event."""
        clock = self.store.clock(game_id)
        turn = game.turn()
        if clock is None or clock.ended is not None or turn is None or clock.seat is None:
            return None, ()
        policy = f"At the deadline: {policy_text(clock.timeout)}."
        if clock.paused is not None or clock.deadline is None:
            return f"The game is paused: no deadline runs. {policy}", ()
        zone = self.store.preferences(to).timezone
        when = format_deadline(clock.deadline, zone, now=self.now)
        text = f"{clock.seat} must move by {when}. {policy}"
        if self.seat_of(game_id, to, game) != clock.seat:
            return text, ()
        event = deadline_event(
            game_id=game_id, move=clock.move or 0, seat=clock.seat, deadline=clock.deadline,
            now=self.now, sequence=clock.sequence,
            summary=f"{game_id}: your move as {clock.seat}",
            description=f"{turn.step} in {game.round_name}. {policy}",
            organizer=self.settings.address)
        return text, (Attachment(f"{game_id}-deadline.ics", "text/calendar", event),)

    def map_for(self, game_id: str, game: Game, to: str) -> Picture:
        """The map for TO's report, outlining what changed since their last report;
        drawn once per position and starting move however many readers share them."""
        rows = [m for m in self.store.members(game_id) if m.address == to]
        since = min((m.reported_move for m in rows), default=game.next_move)
        key = (game_id, game.next_move, since)
        if key not in self._maps:
            before = Game(game.setup, game.log[:since]) if 0 < since < game.next_move else None
            self._maps[key] = map_picture(game_id, game, before)
        return self._maps[key]

    def position(self, game_id: str, game: Game) -> Position:
        """The report's view of the game, made once per mail however many it goes to."""
        key = (game_id, game.next_move)
        if key not in self._positions:
            self._positions[key] = position(game_id, game)
        return self._positions[key]

    def may_answer(self, to: str) -> bool:
        already = sum(1 for m in self.mails if m.to == to and m.kind in ("reply", "notice"))
        since = self.store.replies_since(to, self.now - 3600)
        return since + already < self.settings.replies_per_hour

    def queue(self) -> int:
        """Put every mail of this work into the outbox (inside the transaction)."""
        settings = self.settings
        queued = 0
        for serial, mail in enumerate(self.mails):
            message_id = message_id_for(self.incoming.key, mail.kind, mail.to,
                                        settings.domain, mail.game_id, serial)
            raw = compose(mail, sender=settings.address, sender_name=settings.name,
                          message_id=message_id, when=self.now)
            queued += self.store.queue_mail(
                message_id=message_id, kind=mail.kind, game_id=mail.game_id,
                recipient=mail.to, sender=settings.address, raw=raw,
                cause=self.incoming.key, now=self.now)
        return queued

    def games_of(self, address: str) -> list[str]:
        rows = self.store.execute("SELECT DISTINCT game_id FROM members WHERE address = ? "
                                  "ORDER BY game_id", [address])
        return [str(r[0]) for r in rows]


_NOTICE_KINDS: dict[str, MailKind] = {
    "invitation": "invitation", "joined": "report", "auth_failed": "notice",
    "held": "notice", "replaced": "notice"}
_NOTICE_SUBJECTS = {
    "created": "game created", "invitation": "invitation", "joined": "a player joined",
    "observe": "observe", "auth_failed": "a mail in your name was refused", "help": "help",
    "held": "your orders sent ahead", "replaced": "you were replaced",
}


def _joined(*parts: str | None) -> str | None:
    return "\n\n".join(p for p in parts if p) or None


def _masked(text: str) -> str:
    """A `password` line as the reply repeats it: without the password."""
    return "password ********" if _PASSWORD_LINE.match(text) else text


def _under(text: str, message: str) -> str:
    body = text.rstrip()
    lead = len(body) - len(body.lstrip())
    return f"{body}\n{' ' * lead}{'^' * max(1, len(body) - lead)}\n{message}"
