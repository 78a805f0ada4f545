"""Every mail the service sends: rendered from templates/ as text plus an HTML alternative.

The templates (package `moderator.templates`) receive plain data only: the engine's
`GameView`, and the small frozen records of this module (`Position`, `HistoryEntry`,
`Results`). `compose` turns an `OutgoingMail` into bytes with the headers that keep a
game in one thread (a stable subject ``[18TN-7] OR 3.1: TC to move``, Message-ID,
In-Reply-To, References) and that mark it as automatic (`Auto-Submitted`, `X-Loop`),
so that no well-behaved program answers it and the moderator never answers itself.
"""

from __future__ import annotations

import email.charset
import email.encoders
import email.header
import email.policy
import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from email.utils import format_datetime, formataddr
from typing import Any, Literal

import jinja2

from engine.game import Game
from engine.views import GameView, game_view
from moderator.play import LineResult

MailKind = Literal["reply", "report", "invitation", "notice", "reminder"]

__all__ = [
    "HistoryEntry",
    "MailKind",
    "OutgoingMail",
    "Position",
    "Results",
    "Section",
    "compose",
    "headline",
    "message_id_for",
    "position",
    "render",
]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One move of the log as a report shows it: who did it and what the engine said."""

    number: int
    seat: str
    lines: tuple[str, ...]

    @property
    def line(self) -> str:
        """The move on one line, as histories and lists of undone moves print it."""
        return f"#{self.number} {self.seat}: {'; '.join(self.lines) or '(no effect)'}"


@dataclass(frozen=True, slots=True)
class Position:
    """Everything a report shows about the game now."""

    game_id: str
    view: GameView
    headline: str  # "OR 3.1: TC to move"
    round_short: str  # "OR 3.1"


@dataclass(frozen=True, slots=True)
class Results:
    """The per-line answer to a submission."""

    ok: bool
    lines: tuple[LineResult, ...]
    applied: bool  # the game changed
    next_move: int | None


@dataclass(frozen=True, slots=True)
class Section:
    """A titled block of preformatted text in a reply (help, legal orders, history)."""

    title: str
    text: str


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
    # Pictures: shown inline in the HTML part (by Content-ID) and attached for readers of
    # the plain text.
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


MAP_CID = "map"


def map_picture(game_id: str, game: Game, since: Game | None) -> Picture:
    """The board as it stands, the hexes changed since `since` (the reader's last report)
    outlined."""
    from moderator.mapimage import changed_hexes, render_game_map

    changed = changed_hexes(since.state.board, game.state.board) if since else frozenset()
    png = render_game_map(game, highlight=changed,
                          caption=f"{game_id} - next move {game.next_move}")
    return Picture(MAP_CID, f"{game_id}-move-{game.next_move}.png", png)


# -- the position ---------------------------------------------------------------------------

_ROUND_SHORT = (("Stock Round", "SR"), ("Operating Round", "OR"))


def short_round(name: str) -> str:
    for long, short in _ROUND_SHORT:
        if name.startswith(long):
            return short + name[len(long):]
    return name


def headline(view: GameView) -> str:
    """What a subject says of the position: `OR 3.1: TC to move`, `game over`."""
    if view.game_over:
        return "game over"
    who = view.acting_entity or view.acting_seat
    return f"{short_round(view.round)}: {who} to move" if who else short_round(view.round)


def position(game_id: str, game: Game) -> Position:
    """The report's view of GAME (engine state read here, so templates see plain data)."""
    view = game_view(game)  # the market and the trains left come with the view
    return Position(game_id, view, headline(view), short_round(view.round))


def replay_history(game: Game, start: int, end: int) -> tuple[HistoryEntry, ...]:
    """What moves START..END-1 said, found by replaying the log (for moves stored
    without it, e.g. imported games)."""
    replay = Game(game.setup)
    entries = []
    for number, move in enumerate(game.log[:end]):
        said = replay.apply(move.seat, move.action)
        if number >= start:
            entries.append(HistoryEntry(number, move.seat, tuple(said)))
    return tuple(entries)


# -- rendering -----------------------------------------------------------------------------


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("moderator.templates", "."),
        autoescape=lambda name: name is not None and name.endswith(".html.j2"),
        undefined=jinja2.StrictUndefined,  # a misspelt variable is a bug, not a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["money"] = lambda amount: f"${amount}"
    env.filters["paragraphs"] = _paragraphs
    return env


def _paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]


def render(template: str, **context: Any) -> tuple[str, str]:
    """TEMPLATE's text and HTML versions (`TEMPLATE.txt.j2`, `TEMPLATE.html.j2`)."""
    env = _environment()
    text = env.get_template(f"{template}.txt.j2").render(**context)
    html = env.get_template(f"{template}.html.j2").render(plain=text, **context)
    return _tidy(text), html


def _tidy(text: str) -> str:
    """No trailing spaces (they would make `-- ` ambiguous) and no runs of blank lines."""
    lines = [line.rstrip() if line != "-- " else line for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n") + "\n"


# -- composing -------------------------------------------------------------------------------


def message_id_for(cause: str, kind: str, recipient: str, domain: str, game_id: str | None,
                   serial: int = 0) -> str:
    """A Message-ID fixed by what caused the mail: processing a mail twice (it never
    commits twice, but if it did) would queue the same id, which the outbox refuses."""
    digest = hashlib.sha256(f"{cause}\x00{kind}\x00{recipient.lower()}\x00{serial}".encode())
    tag = re.sub(r"[^A-Za-z0-9.-]", "", game_id or "moderator") or "moderator"
    return f"<{digest.hexdigest()[:32]}.{tag}@{domain}>"


_UTF8_QP = email.charset.Charset("utf-8")
_UTF8_QP.body_encoding = email.charset.QP  # readable in any mail program's source view
_WIRE = email.policy.compat32.clone(linesep="\r\n", max_line_length=78)


def _header(value: str) -> str:
    """VALUE as a header: as is when ASCII, else an RFC 2047 encoded word."""
    return value if value.isascii() else email.header.Header(value, "utf-8").encode()


def _address(name: str, address: str) -> str:
    return formataddr((name, address), charset="utf-8")


def compose(mail: OutgoingMail, *, sender: str, sender_name: str, message_id: str,
            when: float, headers: Mapping[str, str] | None = None) -> bytes:
    """MAIL as the bytes the outbox sends: text/plain with an HTML alternative (only the
    text for a reader who chose `set format text`), pictures inline in the HTML and
    attached, then any other attachments.

    Built with the classic (compat32) MIME classes: the modern `EmailMessage` parses
    every header it is given, which made composing the slowest step of a mail."""
    plain = MIMENonMultipart("text", "plain")
    plain.set_payload(mail.text, _UTF8_QP)
    body: MIMEMultipart | MIMENonMultipart
    if mail.text_only:
        body = plain
    else:
        html = MIMENonMultipart("text", "html")
        html.set_payload(mail.html, _UTF8_QP)
        body = MIMEMultipart("alternative")
        body.attach(plain)
        if mail.images:
            related = MIMEMultipart("related")
            related.attach(html)
            for picture in mail.images:
                related.attach(_png(picture, inline=True))
            body.attach(related)
        else:
            body.attach(html)
    message = body
    if mail.images or mail.attachments:
        # multipart/mixed[body, the pictures for plain-text readers, attachments]
        message = MIMEMultipart("mixed")
        message.attach(body)
        for picture in mail.images:
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
    if mail.next_move is not None:
        message["X-Moderator-Move"] = str(mail.next_move)
    for name, value in (headers or {}).items():
        message[name] = _header(value)
    return message.as_bytes(policy=_WIRE)


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


def _png(picture: Picture, *, inline: bool) -> MIMEImage:
    part = MIMEImage(picture.png, "png")
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
