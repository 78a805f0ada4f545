"""Incoming mail -> the facts the moderator acts on: who, to which address, what text.

`parse_incoming` reads the raw bytes with ``email``'s default policy (RFC 2047 names
and subjects decoded), picks the text/plain body or else the text of the HTML body,
and says whether the mail is automatic (never to be answered). Of that text it keeps
the writer's own words (`moderator.mail.reply`: without the quoted earlier mail, its
header block, a phone's footer). Which of those lines are orders -- and where they stop
(signature, `sign off`), which are greetings or sign-offs -- is the grammar's
(`grammar.submission`).

Nothing here raises on bad input: a mail with a lying charset, 8-bit headers, a
header `email` refuses (a name hiding CR/LF), MIME nested too deep, or no text at all
still yields an `Incoming`, with `no_text` saying what was wrong so that the sender
can be told politely. Every field is read on its own, so one broken header costs only
that field; names and subjects are made one line (no control characters), so nothing
from a mail can add a header to the answer.

The sender's address is read from the From header as written (its encoded words can
only hide a name, never an address), lower-cased, its domain in IDNA form
(``jörg@exämple.org`` is answered as ``jörg@xn--exmple-cua.org``: one form per
address, and only a non-ASCII local part then needs SMTPUTF8).
"""

from __future__ import annotations

import email
import email.header
import email.policy
import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from typing import TypeVar

from moderator.mail.addresses import lookalike_problem
from moderator.mail.limits import over_limits
from moderator.mail.reply import html_to_text, own_words

__all__ = [
    "Incoming",
    "automatic_reason",
    "clean",
    "content_digest",
    "html_to_text",
    "message_key",
    "normal_address",
    "one_line",
    "parse_incoming",
    "read_identity",
    "read_key",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

_SKIPPED_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})
#: A Message-ID the moderator uses (to key and thread mail): printable ASCII in <>,
#: short enough to go into a header line of an answer unfolded.
_MSGID_RE = re.compile(r"<[!-;=?-~]{1,250}>")
#: Text beyond this is not read: orders are a few lines, and the grammar parses each
#: line it reads (a 5 MB body of junk must not cost minutes).
MAX_TEXT_CHARS = 64_000
#: A mail with more multipart parts than this is not taken apart: real mail has a few,
#: and the parser needs seconds (and the stack) for thousands nested in each other.
MAX_MULTIPARTS = 100
#: Longer names, subjects and reference lists are cut: they go into the answer's header.
MAX_NAME_CHARS = 100
MAX_SUBJECT_CHARS = 200
MAX_REFERENCES = 20
MAX_RECIPIENTS = 50
#: Headers that say what a mail is, not how it travelled: two deliveries of one mail
#: (a second address, a relay's Received lines) agree on them, and two different
#: mails under one reused Message-ID do not.
_IDENTITY_HEADERS = (b"from", b"to", b"cc", b"subject", b"date", b"in-reply-to",
                     b"references")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_HEADER_END_RE = re.compile(rb"\r?\n\r?\n")
_UNFOLD_RE = re.compile(rb"\r?\n(?=[ \t])")
_ADDRESS_SPECIALS = frozenset('<>()[],;:\\"')


@dataclass(frozen=True, slots=True)
class Incoming:
    """One mail as the moderator sees it."""

    key: str  # the Message-ID, or sha256:... of the bytes when there is none
    message_id: str | None
    sender: str | None  # the From address, lower-cased; None when unusable
    sender_name: str
    subject: str
    recipients: tuple[str, ...]  # Delivered-To, X-Original-To, To, Cc: where it went
    references: tuple[str, ...]  # References then In-Reply-To, oldest first
    text: str  # the body text to read orders from ("" when none)
    no_text: str | None  # why there is no usable text, for the polite answer
    automatic: str | None  # why this is automatic mail (never answered), or None


def clean(text: str) -> str:
    """TEXT without the surrogates `email` leaves for undecodable 8-bit bytes."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def one_line(text: str, limit: int | None = None) -> str:
    """TEXT as one line of plain words: no CR, LF or other control characters (a
    header value taken from a mail must not become two headers in an answer)."""
    line = " ".join(_CONTROL_RE.sub(" ", text).split())
    return line if limit is None or len(line) <= limit else line[:limit - 1] + "…"


def message_key(raw: bytes, message_id: str | None) -> str:
    """What makes a mail the same mail: its Message-ID, else a hash of its bytes."""
    if message_id:
        return message_id
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _header_lines(raw: bytes) -> list[bytes]:
    """RAW's header lines, unfolded (the bytes up to the first empty line)."""
    found = _HEADER_END_RE.search(raw)
    head = raw[:found.start()] if found else raw
    return _UNFOLD_RE.sub(b"", head).splitlines()


def read_identity(raw: bytes) -> tuple[str | None, str]:
    """RAW's Message-ID (None when it has no usable one) and its content digest, read
    from the bytes alone: cheap, and nothing in them can make it fail."""
    message_id = None
    for line in _header_lines(raw):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"message-id":
            message_id = _message_id(value.decode("ascii", "replace"))
            break
    return message_id, content_digest(raw)


def content_digest(raw: bytes) -> str:
    """A hash of what RAW says (its body and the headers that identify it), not of how
    it travelled: `Processor.receive` tells a reused Message-ID by it."""
    found = _HEADER_END_RE.search(raw)
    body = raw[found.end():] if found else b""
    digest = hashlib.sha256()
    for line in _header_lines(raw):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() in _IDENTITY_HEADERS:
            digest.update(name.strip().lower() + b":" + value.strip() + b"\n")
    digest.update(b"\n")
    digest.update(body.replace(b"\r\n", b"\n"))
    return digest.hexdigest()


def read_key(raw: bytes) -> tuple[str, str | None]:
    """RAW's key and Message-ID, reading only its header (cheap: the inbox records every
    mail before it is parsed in full). `Processor.receive` may extend the key when the
    Message-ID was used before by a different mail."""
    message_id, _ = read_identity(raw)
    return message_key(raw, message_id), message_id


class _ParsedOnce(email.policy.EmailPolicy):
    """The default policy, but a header value is parsed into its header object once:
    the default parses it again at every read (a mail's Content-Type is read some
    twenty times while its body is looked for). Header objects are immutable and made
    from the name and value alone, so a kept one is the one a new parse would give."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name"):
            return value
        key = (name, value)
        with _PARSED_LOCK:
            found = _PARSED.get(key)
        if found is None:
            found = super().header_fetch_parse(name, value)
            with _PARSED_LOCK:
                _PARSED[key] = found
                while len(_PARSED) > _PARSED_KEEP:
                    _PARSED.popitem(last=False)
        return found


_PARSED: OrderedDict[tuple[str, str], str] = OrderedDict()
_PARSED_LOCK = threading.Lock()
_PARSED_KEEP = 512  # header values: those of a few mails, and the common ones
_POLICY = _ParsedOnce()  # email.policy.default's settings


def parse_incoming(raw: bytes, moderator: str, key: str | None = None) -> Incoming:
    """RAW (as fetched) read for the moderator at address MODERATOR; KEY is the key it
    was recorded under (by default `read_key`'s). Never raises."""
    if key is None:
        key = read_key(raw)[0]
    message_id, _ = read_identity(raw)
    if (over := over_limits(raw)) is not None:  # never parsed: its cost is unbounded
        return Incoming(key, message_id, None, "", "", (), (), "", over,
                        f"over the mail limits: {over}")
    unreadable: tuple[str, str | None] = (
        "", "its structure could not be read (MIME parts nested too deep, or broken)")
    message: Message | None
    try:
        if raw.lower().count(b"multipart/") > MAX_MULTIPARTS:
            raise ValueError(f"more than {MAX_MULTIPARTS} multipart parts")
        message = email.message_from_bytes(raw, policy=_POLICY)
    except Exception as exc:  # the parser itself gave up (MIME nested too deep, ...)
        log.warning("mail %s: the parser gave up (%s: %s); reading its header only",
                    key, type(exc).__name__, exc)
        message = _header_only(raw)
        if message is None:
            return Incoming(key, message_id, None, "", "", (), (), "", unreadable[1],
                            "unreadable mail")
        broken = True
    else:
        broken = False
    nobody: tuple[str, str | None] = ("", None)
    name, sender = _guarded(lambda: read_sender(message), nobody)
    text, no_text = unreadable if broken or not isinstance(message, EmailMessage) else \
        _guarded(lambda: body_text(message), unreadable)
    unknown: str | None = "a mail whose header could not be read"
    return Incoming(
        key=key,
        message_id=message_id,
        sender=sender,
        sender_name=name,
        subject=_guarded(lambda: one_line(_header(message, "Subject"), MAX_SUBJECT_CHARS),
                         ""),
        recipients=_guarded(lambda: _recipients(message), ()),
        references=_guarded(lambda: _references(message), ()),
        text=text,
        no_text=no_text,
        automatic=_guarded(lambda: automatic_reason(message, moderator, sender, text),
                           unknown),
    )


def _guarded(read: Callable[[], T], fallback: T) -> T:
    """READ(), or FALLBACK when the mail breaks it (logged: the parser has a gap)."""
    try:
        return read()
    except Exception as exc:
        log.warning("reading a mail failed (%s: %s); going on without it",
                    type(exc).__name__, exc)
        return fallback


def _header_only(raw: bytes) -> Message | None:
    """RAW's header as a message without a body, or None if even that cannot be read."""
    try:
        found = _HEADER_END_RE.search(raw)
        head = raw[:found.end()] if found else raw
        return email.message_from_bytes(head, policy=_POLICY)
    except Exception:
        return None


def read_sender(message: Message) -> tuple[str, str | None]:
    """The From header's name (one line) and address (`normal_address`, None when it
    cannot be answered). The address comes from the header as written: a name's
    encoded words may decode to anything, but never into the address."""
    raws = _raw_values(message, "From")
    if not raws:
        return "", None
    name, address = parseaddr(raws[0])
    return one_line(_decode(name), MAX_NAME_CHARS), normal_address(address)


def normal_address(address: str) -> str | None:
    """ADDRESS as the moderator keeps it -- lower-case, its domain in IDNA (ASCII) form
    -- or None when no mail could be sent to it."""
    address = address.strip()
    local, at, domain = address.rpartition("@")
    if len(local) > 2 and local[0] == local[-1] == '"' and not any(
            c.isspace() or c in _ADDRESS_SPECIALS for c in local[1:-1]):
        local = local[1:-1]  # "ann"@example.org is ann@example.org
        address = f"{local}@{domain}"
    if not (at and local and domain) or len(address) > 254 or len(local) > 64:
        return None
    if any(c.isspace() or c in _ADDRESS_SPECIALS or ord(c) < 32 or c in "\x7f\ufffd"
           for c in address) or "@" in local:
        return None
    if lookalike_problem(address) is not None:  # an encoded word, look-alikes (issue 31)
        return None
    domain = domain.lower().rstrip(".")
    if not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    labels = domain.split(".")
    if not all(labels) or any(len(label) > 63 for label in labels):
        return None
    return f"{local.lower()}@{domain}"


def _recipients(message: Message) -> tuple[str, ...]:
    recipients: list[str] = []
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        values = [one_line(_decode(v)) for v in _raw_values(message, header)]
        for _, addr in getaddresses(values):
            if _plausible(addr) and addr not in recipients:
                recipients.append(addr)
            if len(recipients) >= MAX_RECIPIENTS:
                return tuple(recipients)
    return tuple(recipients)


def _references(message: Message) -> tuple[str, ...]:
    references = _MSGID_RE.findall(" ".join(_raw_values(message, "References")))
    for ref in _MSGID_RE.findall(" ".join(_raw_values(message, "In-Reply-To"))):
        if ref not in references:
            references.append(ref)
    if len(references) > MAX_REFERENCES:  # the thread's root and its latest mails
        references = [references[0], *references[-(MAX_REFERENCES - 1):]]
    return tuple(references)


def _raw_values(message: Message, name: str) -> list[str]:
    """Every NAME header's value as written (unfolded, 8-bit bytes read as UTF-8)."""
    wanted = name.lower()
    return [clean(re.sub(r"\r?\n(?=[ \t])", "", str(value))).strip()
            for key, value in message.raw_items() if key.lower() == wanted]


def _decode(value: str) -> str:
    """VALUE's RFC 2047 encoded words decoded (as written when they cannot be)."""
    if "=?" not in value:
        return value
    try:
        return clean(str(email.header.make_header(email.header.decode_header(value))))
    except Exception:
        return value


def _header(message: Message, name: str) -> str:
    """The first NAME header, decoded ("" when absent). Decoded here rather than by the
    default policy's header classes: they refuse some hostile values (a name hiding
    CR/LF) and take a second for a 100 KB subject."""
    raws = _raw_values(message, name)
    return _decode(raws[0]) if raws else ""


def _has(message: Message, name: str) -> bool:
    wanted = name.lower()
    return any(key.lower() == wanted for key in message)


def _message_id(value: str) -> str | None:
    found = _MSGID_RE.search(value)
    return found.group(0) if found else None


def _plausible(address: str) -> bool:
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and not any(
        c.isspace() or ord(c) < 32 for c in address)


# -- automatic mail ------------------------------------------------------------------------

#: Subjects of auto-replies that carry none of the standard headers (RFC 3834), and of
#: calendar programs' answers to an invitation (the deadline's .ics event).
_AUTO_SUBJECT_RE = re.compile(
    r"^\s*(auto(matic|matische)?[ _-]?(reply|response|antwort|respuesta)\b|autoreply\b"
    r"|out of (the )?office\b|abwesen(d|heit)|r[ée]ponse automatique|respuesta autom"
    r"|risposta automatica|absence\b|vacation (reply|notice)|on vacation\b"
    # issue 31: `Away: Re: ...`, `OOO: ...`, and the common forms of other languages
    r"|(away|ooo|absent|auto ?reply|autosvar|automaattinen vastaus|fuori sede"
    r"|afwezig|nicht im b[üu]ro)\s*:)", re.I)
_CALENDAR_SUBJECT_RE = re.compile(
    r"^\s*(accepted|declined|tentative|tentatively accepted|angenommen|abgelehnt"
    r"|mit vorbehalt angenommen|accept[ée]|refus[ée]|provisoire|aceptado|rechazado"
    r"|updated invitation|invitation( mise à jour)?)\s*:", re.I)
_AUTO_FIRST_LINE_RE = re.compile(
    r"^\s*(this is an? (automatic|automated|auto-generated) (reply|response|message)"
    r"|(automatic|auto)[ -]?reply\b|i am (currently )?out of (the )?office"
    r"|i'm (currently )?out of (the )?office|i am (currently )?away\b"
    r"|i'm (currently )?away\b|i am on (holiday|vacation|leave)\b)", re.I)
_CALENDAR_ANSWER_RE = re.compile(rb"^METHOD:(REPLY|COUNTER|DECLINECOUNTER)\s*$", re.I | re.M)


def automatic_reason(message: Message, moderator: str, sender: str | None = None,
                     text: str | None = None) -> str | None:
    """Why MESSAGE must never be answered (auto-replies, bounces, lists, loops, calendar
    answers). SENDER and TEXT are what `parse_incoming` read (else read here)."""
    if sender is None:
        sender = read_sender(message)[1]
    for value in _raw_values(message, "Auto-Submitted"):  # any one that is not "no"
        auto = one_line(value).split(";")[0].strip().lower()
        if auto and auto != "no":
            return f"Auto-Submitted: {auto}"
    for header in ("Precedence", "X-Precedence"):
        # Its first word, without comments: `list (comment)` is list (issue 31).
        words = re.sub(r"\([^)]*\)", " ", _header(message, header)).lower().split()
        precedence = words[0] if words else ""
        if precedence in _SKIPPED_PRECEDENCE:
            return f"{header}: {precedence}"
    if _has(message, "List-Id") or _has(message, "List-Unsubscribe"):
        return "mailing-list mail"
    for header in ("X-Autoreply", "X-Autorespond", "X-Autogenerated", "X-AutoReply-From",
                   "X-Mail-Autoreply"):
        if _has(message, header):
            return f"an auto-reply ({header})"
    if "autoresponder" in _header(message, "X-POST-MessageClass").lower():
        return "an auto-reply (X-POST-MessageClass)"
    if message.get_content_type() == "multipart/report":
        return "a delivery or read report (multipart/report)"
    return_path = _raw_values(message, "Return-Path")
    if return_path and return_path[0].strip() in ("", "<>"):
        return "empty Return-Path: a bounce"
    for header in ("Return-Path", "From", "Sender"):
        values = _raw_values(message, header)
        local = parseaddr(values[0])[1].partition("@")[0].lower() if values else ""
        if local in ("mailer-daemon", "postmaster"):
            return f"{header} is {local.upper()}"
    if moderator.lower() in _header(message, "X-Loop").lower():
        return "X-Loop: the moderator's own mail"
    if sender is None:
        return "no From address to answer"
    if _base_address(sender) == _base_address(moderator):
        return "from the moderator itself"
    return _looks_automatic(message, text)


def _looks_automatic(message: Message, text: str | None) -> str | None:
    """Auto-replies and calendar answers without the standard headers, recognised by
    their calendar part, their subject or their first line."""
    subject = one_line(_header(message, "Subject"))
    if _calendar_answer(message):
        return "a calendar program's answer (METHOD:REPLY)"
    if _CALENDAR_SUBJECT_RE.match(subject):
        return f"a calendar program's answer (subject {subject[:40]!r})"
    if _AUTO_SUBJECT_RE.match(subject):
        return f"an auto-reply (subject {subject[:40]!r})"
    first = next((line for line in (text or "").splitlines() if line.strip()), "")
    if _AUTO_FIRST_LINE_RE.match(first):
        return f"an auto-reply (it begins {first.strip()[:40]!r})"
    return None


def _calendar_answer(message: Message) -> bool:
    for count, part in enumerate(message.walk()):
        if count > 50:
            return False
        if part.get_content_type() != "text/calendar":
            continue
        method = str(part.get_param("method") or "").upper()
        if method in ("REPLY", "COUNTER", "DECLINECOUNTER"):
            return True
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes) and _CALENDAR_ANSWER_RE.search(payload[:100_000]):
            return True
    return False


def _base_address(address: str) -> str:
    local, _, domain = address.lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


# -- the body text ---------------------------------------------------------------------------


def body_text(message: EmailMessage) -> tuple[str, str | None]:
    """The text to read orders from, and why there is none when it is empty."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        kinds = sorted({p.get_content_type() for p in message.walk()
                        if not p.is_multipart()})
        what = ", ".join(kinds) if kinds else "nothing"
        return "", f"it has no text part (it holds: {what})"
    assert isinstance(part, EmailMessage)
    text = _decoded(part)
    if part.get_content_type() == "text/html":
        # Markup is most of an HTML body: four times the text limit holds the text.
        text = html_to_text(text[:MAX_TEXT_CHARS * 4])
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")
    if len(text) > MAX_TEXT_CHARS:
        # Cut at a line end so no order is read half.
        cut = text[:MAX_TEXT_CHARS].rpartition("\n")[0]
        if not cut.strip():
            first = len(text.lstrip().partition("\n")[0])
            return "", (f"its first line is {first:,} characters long, more than the "
                        f"{MAX_TEXT_CHARS:,} the moderator reads: orders are short lines "
                        "of text, one per line")
        text = cut
    # The writer's own words: without the mail it quotes (cut to the limit first, so
    # that the reading costs time in proportion to the limit, not to the mail).
    written = own_words(text)
    if not written.strip():
        if text.strip():
            return "", ("it holds only the quoted earlier mail: write your orders above "
                        "or below the quoted text")
        return "", "its text is empty"
    text = written
    return text, None


def _decoded(part: EmailMessage) -> str:
    """The part's text; a lying or unknown charset degrades to replacement characters."""
    try:
        return clean(str(part.get_content()))
    except Exception:
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            return ""
        charset = part.get_content_charset() or "utf-8"
        for candidate in (charset, "utf-8"):
            try:
                return payload.decode(candidate)
            except (LookupError, UnicodeError):
                continue
        return payload.decode("latin-1")
