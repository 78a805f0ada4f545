"""A mail as bytes: MIME structure and the headers that thread a game and mark it automatic.

`compose` turns an `OutgoingMail` into bytes with the headers that keep a game in one
thread (a stable subject ``[18TN-7] OR 3.1: TC to move``, Message-ID, In-Reply-To,
References) and that mark it as automatic (`Auto-Submitted`, `X-Loop`), so that no
well-behaved program answers it and the moderator never answers itself. What the mail
says is rendered by `moderator.reports`.

Header values are made one line here whatever their source (a name or subject taken
from a hostile mail must not add a header). An address with a non-ASCII local part
(``jörg@…``; domains come in IDNA form, see `moderator.mail.parse.normal_address`)
is written as UTF-8 (RFC 6532); such a mail goes out with SMTPUTF8, which the outbox's
aiosmtplib asks for by itself when an envelope address is not ASCII.
"""

from __future__ import annotations

import base64
import binascii
import email.charset
import email.encoders
import email.header
import email.policy
import functools
import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from email.utils import format_datetime, formataddr
from typing import Literal

MailKind = Literal["reply", "report", "invitation", "notice", "reminder"]

__all__ = ["Attachment", "MailKind", "OutgoingMail", "Picture", "compose", "message_id_for"]


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    """One mail to one address, before it becomes bytes."""

    kind: MailKind
    to: str
    subject: str
    text: str
    html: str
    to_name: str = ""
    reply_to: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    game_id: str | None = None
    next_move: int | None = None
    # Pictures: shown inline in the HTML part (by Content-ID, with a file name, so any
    # client can save it); attached instead for a reader who chose plain text. Each
    # picture goes once.
    images: tuple[Picture, ...] = ()
    attachments: tuple[Attachment, ...] = ()  # files: a deadline's .ics, the game record
    text_only: bool = False  # the reader chose `set format text`


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file a mail carries."""

    filename: str
    mimetype: str  # text/calendar, application/json, text/plain
    data: bytes


@dataclass(frozen=True, slots=True)
class Picture:
    """A PNG carried by a mail: `cid` is what the HTML's `cid:` link names."""

    cid: str
    filename: str
    png: bytes


# -- composing -------------------------------------------------------------------------------


def list_id(game_id: str, sender: str) -> str:
    """The List-Id of GAME_ID's mail: the game under the moderator's domain
    (`18TN-4 <18tn-4.moderator.example.org>`), a dot-atom as RFC 2919 asks."""
    domain = sender.rpartition("@")[2] or "localhost"
    try:
        domain = domain.encode("idna").decode("ascii").lower()
    except UnicodeError:  # the configured address is checked at start; never mind here
        domain = "localhost"
    label = re.sub(r"[^a-z0-9-]+", "-", game_id.lower()).strip("-") or "game"
    return f"{_line(game_id)} <{label}.{domain}>"


def message_id_for(cause: str, kind: str, recipient: str, domain: str, game_id: str | None,
                   serial: int = 0) -> str:
    """A Message-ID fixed by what caused the mail: processing a mail twice (it never
    commits twice, but if it did) would queue the same id, which the outbox refuses."""
    digest = hashlib.sha256(f"{cause}\x00{kind}\x00{recipient.lower()}\x00{serial}".encode())
    tag = re.sub(r"[^A-Za-z0-9.-]", "", game_id or "moderator") or "moderator"
    return f"<{digest.hexdigest()[:32]}.{tag}@{domain}>"


_UTF8_QP = email.charset.Charset("utf-8")
_UTF8_QP.body_encoding = email.charset.QP  # readable in any mail program's source view
_SIMPLE_VALUE = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")


class _Wire(email.policy.Compat32):
    """compat32 on the wire, but a header that fits one line as it is (printable
    ASCII, single spaces) is written as it is: what the `Header` folding would write
    for it, without building one (most of composing's time went there)."""

    def fold_binary(self, name: str, value: str) -> bytes:
        max_length = self.max_line_length or 0
        if isinstance(value, str) and len(name) + 2 + len(value) <= max_length \
                and _SIMPLE_VALUE.fullmatch(value):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        if self is _WIRE and isinstance(value, str):
            return _wire_folded(name, value)
        return super().fold_binary(name, value)


_WIRE = _Wire(linesep="\r\n", max_line_length=78)


@functools.lru_cache(maxsize=512)
def _wire_folded(name: str, value: str) -> bytes:
    """A header too long for one line, as compat32 folds it on `_WIRE`, kept: a
    reader's reply address and List-Unsubscribe come in every mail to them, and
    folding them was a sixth of composing under a burst (issue 14)."""
    return email.policy.Compat32.fold_binary(_WIRE, name, value)
#: For a mail to a non-ASCII address: the address stays UTF-8 (RFC 6532), where
#: compat32 would wrap the whole header, address and all, in one encoded word.
_WIRE_UTF8 = email.policy.SMTPUTF8.clone(linesep="\r\n", max_line_length=78)
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def _line(value: str) -> str:
    """VALUE without line breaks or control characters."""
    return " ".join(_CONTROL_RE.sub(" ", value).split())


def _header(value: str) -> str:
    """VALUE as a header: as is when ASCII, else an RFC 2047 encoded word."""
    value = _line(value)
    return value if value.isascii() else email.header.Header(value, "utf-8").encode()


def _address(name: str, address: str) -> str:
    """NAME <ADDRESS> as a header value (the name encoded when it is not ASCII)."""
    name, address = _line(name), _line(address).strip("<>")
    if address.isascii():
        return formataddr((name, address), charset="utf-8")
    if not name:
        return f"<{address}>"
    return f"{formataddr((name, 'x@x'), charset='utf-8').rpartition(' ')[0]} <{address}>"


def compose(mail: OutgoingMail, *, sender: str, sender_name: str, message_id: str,
            when: float, headers: Mapping[str, str] | None = None) -> bytes:
    """MAIL as the bytes the outbox sends: text/plain with an HTML alternative (only the
    text for a reader who chose `set format text`), pictures inline in the HTML (or
    attached to the plain text), then any other attachments.

    Built with the classic (compat32) MIME classes: the modern `EmailMessage` parses
    every header it is given, which made composing the slowest step of a mail. A
    picture is base64-encoded once however many mails carry it (`_encoded_png`): the
    message is generated with a marker in its place, which the encoded lines replace.
    The boundaries are chosen here, not searched for by the generator: one that
    begins with "=_" cannot begin a line of quoted-printable or base64 text."""
    texts: dict[bytes, bytes] = {}  # marker -> the text's quoted-printable lines
    plain = _qp_part("plain", mail.text, texts)
    body: MIMEMultipart | MIMENonMultipart
    if mail.text_only:
        body = plain
    else:
        html = _qp_part("html", mail.html, texts)
        body = MIMEMultipart("alternative", boundary=_boundary())
        body.attach(plain)
        if mail.images:
            related = MIMEMultipart("related", boundary=_boundary())
            related.attach(html)
            for picture in mail.images:
                related.attach(_png(picture, inline=True))
            body.attach(related)
        else:
            body.attach(html)
    message = body
    attached = mail.images if mail.text_only else ()
    if attached or mail.attachments:
        # multipart/mixed[body, the pictures of a plain-text mail, attachments]
        message = MIMEMultipart("mixed", boundary=_boundary())
        message.attach(body)
        for picture in attached:
            message.attach(_png(picture, inline=False))
        for attachment in mail.attachments:
            message.attach(_attachment(attachment))
    message["From"] = _address(sender_name, sender)
    message["To"] = _address(mail.to_name, mail.to)
    if mail.reply_to:
        message["Reply-To"] = _address(sender_name, mail.reply_to)
    message["Subject"] = _header(mail.subject)
    message["Date"] = format_datetime(datetime.fromtimestamp(when, UTC))
    message["Message-ID"] = message_id
    if mail.in_reply_to:
        message["In-Reply-To"] = mail.in_reply_to
    if mail.references:
        message["References"] = " ".join(_last_references(mail.references))
    # RFC 3834: an automatic answer; well-behaved auto-responders stay silent.
    message["Auto-Submitted"] = "auto-replied" if mail.kind == "reply" else "auto-generated"
    message["X-Auto-Response-Suppress"] = "All"  # Exchange's "no out-of-office", same idea
    message["X-Loop"] = sender
    if mail.game_id:
        message["X-Moderator-Game"] = mail.game_id
        # RFC 2919: a game is a list of its own, so that a player's mail program can
        # file or filter each game's mail (`List-Id` is what Gmail and Outlook offer).
        message["List-Id"] = list_id(mail.game_id, sender)
    if mail.next_move is not None:
        message["X-Moderator-Move"] = str(mail.next_move)
    for name, value in (headers or {}).items():
        message[name] = _header(value)
    utf8 = not (mail.to.isascii() and sender.isascii())
    raw = message.as_bytes(policy=_WIRE_UTF8 if utf8 else _WIRE)
    for picture in dict.fromkeys(mail.images):
        raw = raw.replace(_marker(picture), _encoded_png(picture.png))
    for marker, lines in texts.items():
        raw = raw.replace(marker, lines)
    return raw


def _qp_part(subtype: str, text: str, texts: dict[bytes, bytes]) -> MIMENonMultipart:
    """A text/SUBTYPE part in UTF-8, quoted-printable, as `set_payload` with a QP
    charset makes it; but encoded by binascii (in C) and put in after the generator
    ran, by a marker as the pictures are: encoding the text line by line in Python
    was a third of composing. (Its lines are not mangled: a line starting "From "
    stays as it was written.)"""
    part = MIMENonMultipart("text", subtype, charset="utf-8")
    part["Content-Transfer-Encoding"] = "quoted-printable"
    marker = f"=_text-{_MARKER_SALT}-{len(texts)}".encode()
    part.set_payload(marker.decode())
    texts[marker] = _qp(text)
    return part


@functools.lru_cache(maxsize=16)
def _qp(text: str) -> bytes:
    """TEXT in UTF-8, quoted-printable, its lines ending in CRLF (as the wire has it).
    Kept for the last few texts: a report's texts are measured (`qp_size`) before
    they are composed, and a refusal's tables are the same in every refusal at one
    position (issue 33)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")
    return binascii.b2a_qp(lines, istext=True).replace(b"\n", b"\r\n")


def qp_size(text: str) -> int:
    """The bytes TEXT takes in a mail's quoted-printable part (`compose`): HTML's
    every `=` takes three, so a fixed share over its UTF-8 would not do (issue 33)."""
    return len(_qp(text))


def _attachment(attachment: Attachment) -> MIMENonMultipart:
    maintype, _, subtype = attachment.mimetype.partition("/")
    part = MIMENonMultipart(maintype, subtype)
    if attachment.mimetype == "text/calendar":
        part.set_param("method", "PUBLISH")  # calendar programs offer to add the event
    if maintype == "text":
        part.set_payload(attachment.data.decode("utf-8"), _UTF8_QP)
    else:
        part.set_payload(attachment.data)
        email.encoders.encode_base64(part)
    part.add_header("Content-Disposition", "attachment", filename=attachment.filename)
    return part


def _boundary() -> str:
    """A multipart boundary no part's encoded text can contain at a line's start."""
    return f"=_{secrets.token_hex(16)}"


#: Why a marker is unique: a random part no mail text can know, and the picture's digest.
_MARKER_SALT = secrets.token_hex(8)


def _marker(picture: Picture) -> bytes:
    digest = hashlib.sha256(picture.png).hexdigest()[:32]
    return f"=_png-{_MARKER_SALT}-{digest}".encode()


_ENCODED: OrderedDict[bytes, bytes] = OrderedDict()
_ENCODED_LOCK = threading.Lock()


def _encoded_png(png: bytes, keep: int = 16) -> bytes:
    """PNG's base64 lines as the wire carries them (each ending in CRLF, as the
    generator writes an encoded payload): encoded once for all the mails of one
    position (keyed by the bytes themselves)."""
    with _ENCODED_LOCK:
        lines = _ENCODED.get(png)
        if lines is not None:
            _ENCODED.move_to_end(png)
            return lines
    lines = base64.encodebytes(png).replace(b"\n", b"\r\n")
    with _ENCODED_LOCK:
        _ENCODED[png] = lines
        while len(_ENCODED) > keep:
            _ENCODED.popitem(last=False)
    return lines


def _png(picture: Picture, *, inline: bool) -> MIMENonMultipart:
    # The same headers as MIMEImage's; the payload is a marker (see `compose`).
    part = MIMENonMultipart("image", "png")
    part.set_payload(_marker(picture).decode())
    part["Content-Transfer-Encoding"] = "base64"
    if inline:
        part["Content-ID"] = f"<{picture.cid}>"
        part.add_header("Content-Disposition", "inline", filename=picture.filename)
    else:
        part.add_header("Content-Disposition", "attachment", filename=picture.filename)
    return part


def _last_references(references: Sequence[str], keep: int = 10) -> list[str]:
    """The thread's first reference and the last few: RFC 5322 allows trimming, and
    some servers refuse very long headers."""
    unique = list(dict.fromkeys(references))
    if len(unique) <= keep:
        return unique
    return [unique[0], *unique[-(keep - 1):]]
