"""Incoming mail -> the facts the moderator acts on: who, to which address, what text.

`parse_incoming` reads the raw bytes with ``email``'s default policy (RFC 2047 names
and subjects decoded), picks the text/plain body or else the text of the HTML body,
and says whether the mail is automatic (never to be answered). The line-level work --
where the orders stop (signature, `sign off`, quoted reply) -- is the grammar's
(`grammar.submission`); this module only finds the text.

Nothing here raises on bad input: a mail with a lying charset, 8-bit headers or no
text at all still yields an `Incoming`, with `no_text` saying what was wrong so that
the sender can be told politely.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

__all__ = [
    "Incoming",
    "automatic_reason",
    "clean",
    "html_to_text",
    "message_key",
    "parse_incoming",
    "read_key",
]

_SKIPPED_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})
_MSGID_RE = re.compile(r"<[^<>\s]+>")
#: Text beyond this is not read: orders are a few lines, and the grammar parses each
#: line it reads (a 5 MB body of junk must not cost minutes).
MAX_TEXT_CHARS = 64_000


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


def message_key(raw: bytes, message_id: str | None) -> str:
    """What makes a mail the same mail: its Message-ID, else a hash of its bytes."""
    if message_id:
        return message_id
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def read_key(raw: bytes) -> tuple[str, str | None]:
    """RAW's key and Message-ID, reading only its header (cheap: the inbox records every
    mail before it is parsed in full)."""
    header = BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    value = header.get("Message-ID")
    message_id = _message_id(clean(str(value))) if value is not None else None
    return message_key(raw, message_id), message_id


def parse_incoming(raw: bytes, moderator: str) -> Incoming:
    """RAW (as fetched) read for the moderator at address MODERATOR."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    key, message_id = read_key(raw)
    name, address = parseaddr(_header(message, "From"))
    sender = address.lower() if _plausible(address) else None
    recipients: list[str] = []
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        values = [_header_value(v) for v in message.get_all(header, [])]
        for _, addr in getaddresses(values):
            if _plausible(addr) and addr not in recipients:
                recipients.append(addr)
    references = _MSGID_RE.findall(_header(message, "References"))
    for ref in _MSGID_RE.findall(_header(message, "In-Reply-To")):
        if ref not in references:
            references.append(ref)
    text, no_text = body_text(message)
    return Incoming(
        key=key,
        message_id=message_id,
        sender=sender,
        sender_name=clean(name),
        subject=" ".join(_header(message, "Subject").split()),
        recipients=tuple(recipients),
        references=tuple(references),
        text=text,
        no_text=no_text,
        automatic=automatic_reason(message, moderator),
    )


def _header(message: Message, name: str) -> str:
    value = message.get(name)
    return "" if value is None else _header_value(value)


def _header_value(value: object) -> str:
    try:
        return clean(str(value))
    except (ValueError, LookupError, AttributeError, IndexError):
        return ""  # a header `email` cannot decode at all counts as absent


def _message_id(value: str) -> str | None:
    found = _MSGID_RE.search(value)
    return found.group(0) if found else None


def _plausible(address: str) -> bool:
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and not any(c.isspace() for c in address)


# -- automatic mail ------------------------------------------------------------------------


def automatic_reason(message: Message, moderator: str) -> str | None:
    """Why MESSAGE must never be answered (auto-replies, bounces, lists, loops)."""
    auto = _header(message, "Auto-Submitted").split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(message, "Precedence").strip().lower()
    if precedence in _SKIPPED_PRECEDENCE:
        return f"Precedence: {precedence}"
    if message.get("List-Id") is not None or message.get("List-Unsubscribe") is not None:
        return "mailing-list mail"
    if message.get("X-Autoreply") is not None or message.get("X-Autorespond") is not None:
        return "an auto-reply (X-Autoreply)"
    if message.get_content_type() == "multipart/report":
        return "a delivery or read report (multipart/report)"
    return_path = message.get("Return-Path")
    if return_path is not None and _header_value(return_path).strip() in ("", "<>"):
        return "empty Return-Path: a bounce"
    for header in ("Return-Path", "From", "Sender"):
        local = parseaddr(_header(message, header))[1].partition("@")[0].lower()
        if local in ("mailer-daemon", "postmaster"):
            return f"{header} is {local.upper()}"
    if moderator.lower() in _header(message, "X-Loop").lower():
        return "X-Loop: the moderator's own mail"
    address = parseaddr(_header(message, "From"))[1]
    if not _plausible(address):
        return "no From address to answer"
    if _base_address(address) == _base_address(moderator):
        return "from the moderator itself"
    return None


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
        text = html_to_text(text)
    text = text.replace("\r\n", "\n").replace("\xa0", " ")
    if len(text) > MAX_TEXT_CHARS:
        # Cut at a line end so no order is read half.
        text = text[:MAX_TEXT_CHARS].rpartition("\n")[0]
    if not text.strip():
        return "", "its text is empty"
    return text, None


def _decoded(part: EmailMessage) -> str:
    """The part's text; a lying or unknown charset degrades to replacement characters."""
    try:
        return clean(str(part.get_content()))
    except (LookupError, UnicodeError, ValueError, AssertionError):
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


_BLOCK_TAGS = frozenset({
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "pre", "hr", "section", "article", "header", "footer", "dt", "dd",
})
_SKIP_TAGS = frozenset({"script", "style", "head", "title"})


class _TextExtractor(HTMLParser):
    """HTML -> lines of text. A <blockquote> becomes `> ` lines, so that a quoted
    reply ends the orders as it does in a plain-text mail."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote = 0
        self.skip = 0

    def _break(self, blank: bool = False) -> None:
        """End the current line; BLANK (a <br> on an empty line) keeps an empty one."""
        text = " ".join("".join(self.current).split())
        self.current = []
        if text:
            self.lines.append(("> " * self.quote) + text)
        elif blank and self.lines and self.lines[-1]:
            self.lines.append("")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self.skip += 1
        elif tag == "blockquote":
            self._break()
            self.quote += 1
        elif tag in _BLOCK_TAGS:
            self._break(blank=tag == "br")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self.skip = max(0, self.skip - 1)
        elif tag == "blockquote":
            self._break()
            self.quote = max(0, self.quote - 1)
        elif tag in _BLOCK_TAGS:
            self._break()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self._break(blank=tag == "br")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.current.append(data)


def html_to_text(html: str) -> str:
    """The readable text of an HTML body, one block per line."""
    parser = _TextExtractor()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup
        pass
    parser._break()
    return "\n".join(parser.lines).strip("\n") + "\n"
