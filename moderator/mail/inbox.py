"""The moderator's mailbox over IMAP (aioimaplib): wait for mail, fetch it, flag it done.

`ImapSession` is one connection. Every command runs under a timeout and ends at once
if the connection drops (aioimaplib alone can wait forever on a dead link).
`wait_for_news` uses IDLE when the server has it, re-issued every ``idle_timeout``
(servers may end an IDLE after 29 minutes, RFC 2177), and polls otherwise.

Which mail is unprocessed, in order of preference:

* ``processed_folder`` is configured: everything still in the folder (processed mail
  is moved away, with MOVE or COPY + expunge);
* the server keeps custom keywords (``\\*`` in PERMANENTFLAGS): mail without
  ``$ModeratorDone`` (processed mail gets it and ``\\Seen``);
* otherwise: unseen mail (processed mail gets ``\\Seen``).

The flag is only a hint that saves fetching a mail again: the database decides
whether a mail was processed, so a mail flagged late (or never) after a crash is
recognised as a duplicate when it is fetched again.

TLS is implicit (port 993) or STARTTLS (RFC 3501 6.2.1, port 143). aioimaplib 2.0
has no STARTTLS of its own: `ImapSession._starttls` sends the command through its
protocol and upgrades the connection with asyncio's ``loop.start_tls`` on the same
transport and protocol; the greeting's capabilities are then thrown away and asked
again (RFC 3501: they may differ after TLS), and a partial line left after the OK
(plain text that would be read as if it came over TLS) ends the session. Writing
this ourselves beat changing libraries: the moderator's sessions, timeouts and IDLE
handling are built on aioimaplib, and the upgrade is a dozen lines on public
asyncio API.

A refused LOGIN and a certificate that does not verify are `ImapPermanentError`s: no
reconnecting fixes them, the operator must (the service waits long between tries).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import ssl
import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from typing import Any

import aioimaplib

from moderator.config import ImapConfig

__all__ = ["COMMANDS", "PROCESSED_KEYWORD", "FetchedMail", "ImapError", "ImapPermanentError",
           "ImapSession", "certificate_problem"]

log = logging.getLogger(__name__)

PROCESSED_KEYWORD = "$ModeratorDone"
_PERMANENT_RE = re.compile(rb"\[PERMANENTFLAGS \(([^)]*)\)\]")
_SIZE_RE = re.compile(rb"RFC822\.SIZE (\d+)")
_STORAGE_RE = re.compile(rb"\bSTORAGE (\d+) (\d+)", re.IGNORECASE)
#: Seconds between searches of the whole folder (the others start above what was
#: flagged, `ImapSession.processed_through`).
FULL_SEARCH_EVERY = 60.0
#: What `fetch_many` holds in memory at most (but one mail, whatever its size).
BATCH_BYTES = 16_000_000
_UID_RE = re.compile(rb"\bUID (\d+)")
_FETCH_START_RE = re.compile(rb"^(\* )?\d+ FETCH \(")
_NEW_MAIL_RE = re.compile(rb"^(\* )?\d+ EXISTS\b")
#: IMAP commands the moderator's sessions in this process sent, by name (FETCH counts
#: once however many mails it names): what `moderator bench mail` asks the server per
#: mail. Only counted, never read by the service.
COMMANDS: Counter[str] = Counter()


class ImapError(RuntimeError):
    """The IMAP server answered NO or BAD, did not answer in time, or the link broke."""


class ImapPermanentError(ImapError):
    """What only the operator can fix: the login refused, the certificate not
    verified, STARTTLS not offered. `fix` says what to change."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def certificate_problem(exc: BaseException) -> ssl.SSLCertVerificationError | None:
    """The certificate verification error EXC is or was caused by, if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


class FetchedMail:
    """One mail as fetched: its bytes (only the header when it is too large) and size."""

    __slots__ = ("raw", "size", "uid")

    def __init__(self, uid: str, raw: bytes, size: int) -> None:
        self.uid = uid
        self.raw = raw
        self.size = size


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """A verifying client context; CA_FILE adds a private CA (self-signed servers)."""
    context = ssl.create_default_context()
    if ca_file:
        context.load_verify_locations(cafile=ca_file)
    return context


class ImapSession:
    """One IMAP connection to the moderator's folder."""

    def __init__(self, config: ImapConfig) -> None:
        self.config = config
        self.lost = asyncio.Event()
        self.mode = "unseen"  # how processed mail is marked: unseen | keyword | move
        self.context = (tls_context(str(config.ca_file) if config.ca_file else None)
                        if config.tls != "none" else None)
        self.client = aioimaplib.IMAP4(host=config.host, port=config.port,
                                       timeout=config.timeout,
                                       conn_lost_cb=self._connection_lost,
                                       ssl_context=self.context if config.tls == "implicit"
                                       else None)
        # New mail the server reports in passing. A server may answer a SEARCH from
        # the state it had before and announce the new mail in the same breath
        # (`* 3 EXISTS`, as pymap does); aioimaplib drops such lines, and an IDLE
        # started afterwards has nothing new to tell. So they are watched for, and
        # the folder is searched again instead of waiting.
        self.changed = asyncio.Event()
        self._watch_untagged()
        # Every mail below this UID was processed and flagged in this session: a search
        # looks from here on (`processed_through`). New mail always gets a higher UID,
        # and some servers (pymap's maildir) read every message a search may match. A
        # whole search still comes every FULL_SEARCH_EVERY seconds, should a server
        # show a mail late under a lower UID.
        self.floor = 1
        self.searched_all = 0.0  # when the last whole search was (time.monotonic)

    def _watch_untagged(self) -> None:
        protocol = self.client.protocol
        original = getattr(protocol, "_untagged_response", None)
        if original is None:  # another aioimaplib: then IDLE's timeout is the poll
            log.warning("cannot watch untagged IMAP responses with this aioimaplib")
            return

        def watching(line: bytes) -> Any:
            if _NEW_MAIL_RE.match(line):
                self.changed.set()
            return original(line)

        protocol._untagged_response = watching

    def _connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()

    async def open(self) -> None:
        """Greeting, LOGIN, SELECT; learn how processed mail can be marked."""
        config = self.config
        try:
            await self.wait(self.client.wait_hello_from_server(), "greeting")
            if config.tls == "starttls":
                await self._starttls()
        except (OSError, ImapError) as exc:
            if (problem := certificate_problem(exc)) is not None:
                raise ImapPermanentError(
                    f"the certificate of {config.host}:{config.port} does not verify: "
                    f"{problem.verify_message}",
                    "check [imap] host (the name the certificate is for), or give the "
                    "server's CA as [imap] ca_file") from exc
            raise
        login = await self.wait(self.client.login(config.user, config.password),
                                f"LOGIN {config.user}")
        if login.result != "OK":
            said = b" ".join(line for line in login.lines if isinstance(line, bytes))
            message = f"LOGIN {config.user}: {login.result} {said.decode(errors='replace')}"
            # NO is the server's answer to these credentials (RFC 3501 6.2.3;
            # [AUTHENTICATIONFAILED] RFC 5530); [UNAVAILABLE] is an outage.
            if login.result == "NO" and b"[UNAVAILABLE]" not in said.upper():
                raise ImapPermanentError(message, "check [imap] user and password "
                                         "(password_file, $MODERATOR_IMAP_PASSWORD)")
            raise ImapError(message)
        # The greeting's capabilities are those before the login (Dovecot names MOVE,
        # UIDPLUS and QUOTA only after it): ask again.
        with contextlib.suppress(aioimaplib.AioImapException, IndexError):
            await self.wait(self.client.protocol.capability(), "CAPABILITY")
        if config.processed_folder:
            # CREATE fails when the folder exists; that is fine.
            await self.wait(self.client.create(_quoted(config.processed_folder)), "CREATE")
        selected = await self.command(self.client.select(_quoted(config.folder)),
                                      f"SELECT {config.folder}")
        permanent = b""
        for line in selected.lines:
            if isinstance(line, bytes | bytearray) and (m := _PERMANENT_RE.search(line)):
                permanent = m.group(1)
        if config.processed_folder:
            self.mode = "move"
        elif b"\\*" in permanent.split() or PROCESSED_KEYWORD.encode() in permanent.split():
            self.mode = "keyword"
        else:
            self.mode = "unseen"
        log.info("IMAP %s:%s folder %s: processed mail is %s", config.host, config.port,
                 config.folder, {"move": f"moved to {config.processed_folder}",
                                 "keyword": f"flagged {PROCESSED_KEYWORD}",
                                 "unseen": "flagged \\Seen"}[self.mode])

    async def _starttls(self) -> None:
        """Upgrade the connection to TLS (see the module's text)."""
        protocol = self.client.protocol
        config = self.config
        if "STARTTLS" not in protocol.capabilities:
            raise ImapPermanentError(
                f"{config.host}:{config.port} offers no STARTTLS",
                'use [imap] tls = "implicit" (port 993) if the server has it')
        response = await self.wait(protocol.execute(aioimaplib.Command(
            "STARTTLS", protocol.new_tag(), loop=protocol.loop)), "STARTTLS")
        if response.result != "OK":
            raise ImapError(f"STARTTLS: {response.result} {response.lines!r}")
        if protocol.incomplete_line:
            # Plain text after the OK would be read as if it came over TLS.
            raise ImapError("STARTTLS: the server sent data before the TLS handshake")
        assert self.context is not None
        loop = asyncio.get_running_loop()
        transport = await self.wait(loop.start_tls(
            protocol.transport, protocol, self.context, server_hostname=config.host),
            "TLS handshake")
        protocol.transport = transport
        await self.wait(protocol.capability(), "CAPABILITY")

    async def wait(self, call: Awaitable[Any], what: str) -> Any:
        """CALL's result; ImapError if the link drops or it takes over the timeout."""
        COMMANDS[what.split()[1] if what.startswith("UID ") else what.split()[0]] += 1
        task = asyncio.ensure_future(call)
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, timeout=self.config.timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            task.cancel()
            lost.cancel()
        if task in done:
            return task.result()
        if lost in done:
            raise ImapError(f"{what}: connection lost")
        raise ImapError(f"{what}: no answer within {self.config.timeout}s")

    async def command(self, call: Awaitable[Any], what: str) -> Any:
        """Like `wait`, and the answer must be OK."""
        response = await self.wait(call, what)
        if response.result != "OK":
            raise ImapError(f"{what}: {response.result} {response.lines!r}")
        return response

    async def unprocessed(self) -> list[str]:
        """UIDs of the mail not yet processed, oldest first."""
        self.changed.clear()
        # Without a NOOP first, a server may answer from the state it had at SELECT.
        await self.command(self.client.noop(), "NOOP")
        criteria = {"move": "UNDELETED", "keyword": f"UNKEYWORD {PROCESSED_KEYWORD}",
                    "unseen": "UNSEEN"}[self.mode]
        floor = self.floor
        if time.monotonic() - self.searched_all > FULL_SEARCH_EVERY:
            floor = 1
            self.searched_all = time.monotonic()
        if floor > 1:
            criteria = f"UID {floor}:* {criteria}"
        response = await self.command(self.client.uid_search(criteria, charset=None),
                                      "UID SEARCH")
        uids: set[str] = set()
        for line in response.lines[:-1]:  # the last line is the completion text
            words = line.decode().split() if isinstance(line, bytes) else []
            if words and all(word.isdigit() for word in words):  # not "3 EXISTS"
                uids.update(words)
        # "N:*" names the last mail even when it is below N: only what is above.
        return sorted((uid for uid in uids if int(uid) >= floor), key=int)

    def processed_through(self, uid: str) -> None:
        """Every mail up to UID that `unprocessed` found is flagged: later searches
        need not look at them."""
        self.floor = max(self.floor, int(uid) + 1)

    async def fetch(self, uid: str, max_bytes: int) -> FetchedMail | None:
        """The mail UID (None if it vanished meanwhile); a mail over MAX_BYTES is
        fetched as its header only, so that its sender can be told without the
        moderator holding the whole of it. BODY.PEEK leaves the flags alone."""
        response = await self.command(
            self.client.uid("fetch", uid, "(RFC822.SIZE BODY.PEEK[HEADER])"),
            f"UID FETCH {uid} header")
        size, header = _size_and_literal(response.lines)
        if header is None:
            return None
        if size > max_bytes:
            return FetchedMail(uid, header, size)
        response = await self.command(self.client.uid("fetch", uid, "(BODY.PEEK[])"),
                                      f"UID FETCH {uid}")
        _, raw = _size_and_literal(response.lines)
        if raw is None:
            return None
        return FetchedMail(uid, raw, len(raw))

    async def fetch_many(self, uids: Sequence[str], max_bytes: int) -> list[FetchedMail]:
        """The first mails of UIDS, oldest first, in two round trips however many they
        are (their sizes, then the bodies): as many as BATCH_BYTES hold, and up to the
        first over MAX_BYTES, which comes alone and as its header only (`fetch`). A
        mail that vanished meanwhile is left out; the caller asks again for the rest."""
        if not uids:
            return []
        response = await self.command(
            self.client.uid("fetch", ",".join(uids), "(RFC822.SIZE)"), "UID FETCH sizes")
        sizes: dict[str, int] = {}
        for line in response.lines:
            if isinstance(line, bytes) and (size := _SIZE_RE.search(line)) \
                    and (named := _UID_RE.search(line)):
                sizes[named.group(1).decode()] = int(size.group(1))
        # At most BATCH_BYTES held at once (always one mail): the rest waits for the
        # next call, as a mail over MAX_BYTES waits for its own `fetch`.
        small: list[str] = []
        total = 0
        for uid in uids:
            if uid not in sizes:
                continue
            if sizes[uid] > max_bytes or (small and total + sizes[uid] > BATCH_BYTES):
                break
            small.append(uid)
            total += sizes[uid]
        bodies: dict[str, bytes] = {}
        if small:
            response = await self.command(
                self.client.uid("fetch", ",".join(small), "(BODY.PEEK[])"),
                f"UID FETCH {len(small)} mails")
            bodies = _literals_by_uid(response.lines)
        fetched = [FetchedMail(uid, bodies[uid], len(bodies[uid]))
                   for uid in small if uid in bodies]  # else expunged meanwhile
        if not small:  # the first is over MAX_BYTES (or all vanished)
            for uid in uids:
                if uid in sizes:
                    large = await self.fetch(uid, max_bytes)
                    return [large] if large is not None else []
        return fetched

    async def mark_many(self, uids: Sequence[str]) -> None:
        """Take UIDS out of what `unprocessed` finds (in one command where the mode
        allows: flags; moving goes mail by mail)."""
        if not uids:
            return
        if self.mode == "move":
            for uid in uids:
                await self.mark_processed(uid)
            return
        flags = r"(\Seen)" if self.mode == "unseen" else rf"(\Seen {PROCESSED_KEYWORD})"
        await self.command(self.client.uid("store", ",".join(uids), "+FLAGS.SILENT", flags),
                           f"UID STORE {len(uids)} mails")

    async def mark_processed(self, uid: str) -> None:
        """Take UID out of what `unprocessed` finds."""
        client, config = self.client, self.config
        if self.mode == "move":
            assert config.processed_folder is not None
            if client.has_capability("MOVE"):
                await self.command(client.uid("move", uid, _quoted(config.processed_folder)),
                                   f"UID MOVE {uid}")
                return
            await self.command(client.uid("copy", uid, _quoted(config.processed_folder)),
                               f"UID COPY {uid}")
            await self.command(client.uid("store", uid, "+FLAGS.SILENT", r"(\Deleted)"),
                               f"UID STORE {uid}")
            if client.has_capability("UIDPLUS"):
                await self.command(client.uid("expunge", uid), f"UID EXPUNGE {uid}")
            # Without UIDPLUS the \Deleted mail is left for the server's own expunge:
            # UNDELETED keeps it out of `unprocessed` meanwhile.
            return
        flags = r"(\Seen)" if self.mode == "unseen" else rf"(\Seen {PROCESSED_KEYWORD})"
        await self.command(client.uid("store", uid, "+FLAGS.SILENT", flags),
                           f"UID STORE {uid}")

    async def expunge_processed(self, before: float, limit: int) -> int:
        """Expunge up to LIMIT processed mails that arrived before BEFORE (a time), in
        the order they came to the folder (by UID): from ``processed_folder``, or
        flagged ``$ModeratorDone`` in the folder; nothing where processed mail is only
        ``\\Seen`` (a person reading the folder marks mail so too). How many went.
        Answers NO or BAD: logged, 0."""
        config, client = self.config, self.client
        if self.mode == "unseen" or limit <= 0:
            return 0
        # SEARCH BEFORE compares the arrival date (INTERNALDATE), by whole days.
        day = time.strftime("%d-%b-%Y", time.gmtime(before))
        folder = config.processed_folder if self.mode == "move" else None
        if folder is not None:
            selected = await self.wait(client.select(_quoted(folder)), f"SELECT {folder}")
            if selected.result != "OK":
                log.warning("processed mail not expunged: SELECT %s: %s %r", folder,
                            selected.result, selected.lines)
                return 0
        try:
            criteria = (f"BEFORE {day} UNDELETED" if folder is not None else
                        f"BEFORE {day} KEYWORD {PROCESSED_KEYWORD} UNDELETED")
            found = await self.wait(client.uid_search(criteria, charset=None), "UID SEARCH")
            if found.result != "OK":
                log.warning("processed mail not expunged: SEARCH %s: %s %r", criteria,
                            found.result, found.lines)
                return 0
            uids = sorted({word for line in found.lines[:-1] if isinstance(line, bytes)
                           for word in line.decode().split() if word.isdigit()}, key=int)
            uids = uids[:limit]
            if not uids:
                return 0
            await self.command(client.uid("store", ",".join(uids), "+FLAGS.SILENT",
                                          r"(\Deleted)"), f"UID STORE {len(uids)} old")
            if client.has_capability("UIDPLUS"):
                await self.command(client.uid("expunge", ",".join(uids)), "UID EXPUNGE")
            elif folder is not None:
                # The processed folder is the moderator's own: what else is \Deleted
                # there may go too.
                await self.command(client.expunge(), "EXPUNGE")
            else:
                # Without UIDPLUS an EXPUNGE of the folder would take whatever else is
                # \Deleted in it: the server's own expunge takes these.
                log.info("%d old processed mails marked \\Deleted in %s (the server "
                         "has no UIDPLUS: its own expunge removes them)", len(uids),
                         config.folder)
            return len(uids)
        finally:
            if folder is not None:
                await self.command(client.select(_quoted(config.folder)),
                                   f"SELECT {config.folder}")

    async def quota(self) -> tuple[int, int] | None:
        """The folder's storage quota, (used, limit) in kilobytes, the fullest of its
        roots (RFC 2087 GETQUOTAROOT); None where the server has no quota for it."""
        if not self.client.has_capability("QUOTA"):
            return None
        protocol = self.client.protocol
        response = await self.wait(protocol.execute(aioimaplib.Command(
            "GETQUOTAROOT", protocol.new_tag(), _quoted(self.config.folder),
            untagged_resp_name="QUOTA", loop=protocol.loop)), "GETQUOTAROOT")
        if response.result != "OK":
            return None
        best: tuple[int, int] | None = None
        for line in response.lines:
            if not isinstance(line, bytes | bytearray):
                continue
            for used, limit in _STORAGE_RE.findall(bytes(line)):
                if int(limit) > 0 and (best is None or int(used) * best[1]
                                       > best[0] * int(limit)):
                    best = (int(used), int(limit))
        return best

    async def wait_for_news(self, stop: asyncio.Event) -> None:
        """Return when the folder may have changed, the IDLE period ended, or on STOP."""
        client, config = self.client, self.config
        if self.changed.is_set():
            return  # new mail was announced since the last search: search again
        if not (config.idle and client.has_capability("IDLE")):
            await _first_of(stop.wait(), self.lost.wait(), timeout=config.poll_interval)
            if self.lost.is_set():
                raise ImapError("connection lost")
            return
        idle = await self.wait(client.idle_start(timeout=config.idle_timeout), "IDLE")
        # idle_start makes wait_server_push return after idle_timeout; the margin only
        # matters on a silent dead link, where aioimaplib would otherwise wait forever.
        push = client.wait_server_push(timeout=config.idle_timeout + config.timeout)
        await _first_of(push, stop.wait(), self.lost.wait())
        if self.lost.is_set():
            raise ImapError("connection lost during IDLE")
        client.idle_done()
        await self.command(idle, "IDLE")

    async def logout(self) -> None:
        with contextlib.suppress(ImapError, aioimaplib.AioImapException, OSError):
            await self.wait(self.client.logout(), "LOGOUT")

    def close(self) -> None:
        transport = self.client.protocol.transport
        if transport is not None:
            transport.close()


def _quoted(folder: str) -> str:
    """A folder name as an IMAP string (names with spaces must be quoted)."""
    if re.fullmatch(r"[A-Za-z0-9_./-]+", folder):
        return folder
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _literals_by_uid(lines: list[Any]) -> dict[str, bytes]:
    """The literal of each message of a FETCH answer, by its UID (which a server may
    name before the literal or after it, in the same message's lines)."""
    found: dict[str, bytes] = {}
    uid: str | None = None
    literal: bytes | None = None

    def close() -> None:
        if uid is not None and literal is not None:
            found.setdefault(uid, literal)

    for line in lines:
        if isinstance(line, bytearray):
            literal = bytes(line) if literal is None else literal
            continue
        if not isinstance(line, bytes):
            continue
        if _FETCH_START_RE.match(line):
            close()
            uid, literal = None, None
        if (m := _UID_RE.search(line)) is not None:
            uid = m.group(1).decode()
    close()
    return found


def _size_and_literal(lines: list[Any]) -> tuple[int, bytes | None]:
    size = 0
    literal: bytes | None = None
    for line in lines:
        if isinstance(line, bytearray):
            literal = bytes(line) if literal is None else literal
        elif isinstance(line, bytes) and (m := _SIZE_RE.search(line)):
            size = int(m.group(1))
    return size, literal


async def _first_of(*waits: Awaitable[Any], timeout: float | None = None) -> None:
    """Wait until the first of WAITS finishes (or TIMEOUT passes); cancel the rest."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        done, _ = await asyncio.wait(tasks, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # raise what it raised
    finally:
        for task in tasks:
            task.cancel()
