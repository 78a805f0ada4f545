"""Bounces of the moderator's own mail: the envelope sender that names the mail, and
reading the delivery-status report that comes back.

Every mail goes out with an envelope sender of its own (VERP), ``moderator+bounce-
ID-MAC@domain``: ID is its outbox row, MAC an HMAC of it with the service's secret.
A bounce comes back to that address, so it is attributed by the address alone,
never by what its text claims; a forged bounce (a wrong MAC) is known as such. The
plus-address needs the mail system's plus-addressing (``plus_addressing``); without
it the envelope sender is the moderator's plain address and bounces are only skipped
as automatic mail.

`read_report` reads what happened: an RFC 3464 report (``multipart/report`` with a
``message/delivery-status`` part: its ``Action`` and ``Status``), else the text of
the common non-standard bounces (qmail, old Exim and Microsoft gateways: an enhanced
status code such as 5.2.2, or an SMTP reply code after "said:" or at a line's start,
or their words for a delay). Pure functions: no I/O.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import hmac
import re
from dataclasses import dataclass
from email.message import Message

__all__ = ["BOUNCE_TAG", "BounceReport", "bounce_address", "bounce_id", "read_report"]

#: The tag's first word: moderator+bounce-ID-MAC@domain.
BOUNCE_TAG = "bounce"
_MAC_LENGTH = 12
_TAG_RE = re.compile(rf"^{BOUNCE_TAG}-(\d{{1,12}})-([a-z2-7]{{{_MAC_LENGTH}}})$")
_ENHANCED_RE = re.compile(r"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
_REPLY_CODE_RE = re.compile(r"(?:said:|^|\s)([45])\d\d[ -]", re.M)
_COPY_RE = re.compile(r"^-+ *(below this line is a copy|this is a copy of the message|"
                      r"original message)", re.I | re.M)
_DELAY_RE = re.compile(r"\b(delayed|will (?:be )?retr(?:y|ied)|temporar(?:y|ily)|"
                       r"not yet been delivered|still trying)\b", re.I)


def _mac(secret: str, mail_id: int) -> str:
    message = f"pbem-18xx-bounce-v1\x00{mail_id}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:_MAC_LENGTH]


def bounce_address(moderator: str, secret: str, mail_id: int) -> str:
    """The envelope sender of outbox mail MAIL_ID: where its bounce comes back."""
    local, _, domain = moderator.rpartition("@")
    return f"{local}+{BOUNCE_TAG}-{mail_id}-{_mac(secret, mail_id)}@{domain}"


def bounce_id(address: str, moderator: str, secret: str) -> int | bool | None:
    """The outbox row ADDRESS names when it is one of our bounce addresses; False when
    it has the form but a wrong MAC (forged); None when it is no bounce address."""
    local, _, domain = address.strip().strip("<>").lower().rpartition("@")
    base_local, _, base_domain = moderator.lower().rpartition("@")
    if domain != base_domain or not local.startswith(base_local + "+"):
        return None
    tag = local[len(base_local) + 1:]
    if not tag.startswith(BOUNCE_TAG + "-"):
        return None
    found = _TAG_RE.match(tag)
    if found is None:
        return False
    mail_id = int(found.group(1))
    return mail_id if hmac.compare_digest(found.group(2), _mac(secret, mail_id)) else False


@dataclass(frozen=True, slots=True)
class BounceReport:
    """What a bounce says: permanent (5.x.x, `failed`) or not, the status code, the
    recipient it names (if it names one) and the server's words."""

    permanent: bool
    status: str | None
    recipient: str | None
    diagnostic: str | None


def read_report(raw: bytes) -> BounceReport:
    """What the bounce RAW says (see the module's text). A report that says nothing we
    can read counts as permanent: a bounce is a failure unless it says it is a delay."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    for part in message.walk():
        if part.get_content_type() == "message/delivery-status":
            found = _delivery_status(part)
            if found is not None:
                return found
    return _plain_bounce(_text_of(message))


def _delivery_status(part: Message) -> BounceReport | None:
    """The first recipient's fields of a message/delivery-status part (RFC 3464: the
    per-message fields, then a block per recipient)."""
    payload = part.get_payload()
    blocks: list[Message] = []
    if isinstance(payload, list):
        blocks = [p for p in payload if isinstance(p, Message)]
    elif isinstance(payload, str):
        text = payload.replace("\r\n", "\n")
        blocks = [email.message_from_string(b.strip() + "\n")
                  for b in re.split(r"\n\s*\n", text) if b.strip()]
    for block in blocks:
        action = str(block.get("Action", "")).strip().lower()
        status = str(block.get("Status", "")).strip()
        if not action and not status:
            continue  # the per-message block
        code = _ENHANCED_RE.search(status)
        status_code = ".".join(code.groups()) if code else None
        if action in ("delivered", "relayed", "expanded", "delayed"):
            permanent = False
        elif action == "failed":
            permanent = status_code is None or status_code.startswith("5")
        else:
            permanent = status_code is not None and status_code.startswith("5")
        recipient = _address_field(str(block.get("Final-Recipient", "")
                                       or block.get("Original-Recipient", "")))
        diagnostic = " ".join(str(block.get("Diagnostic-Code", "")).split()) or None
        return BounceReport(permanent, status_code, recipient, diagnostic)
    return None


def _address_field(value: str) -> str | None:
    """The address of `rfc822; ann@example.org`."""
    _, _, address = value.partition(";")
    address = address.strip().strip("<>")
    return address.lower() or None


def _plain_bounce(text: str) -> BounceReport:
    code = _ENHANCED_RE.search(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    diagnostic = None
    if code is not None:
        status = ".".join(code.groups())
        diagnostic = next((line for line in lines if status in line), None)
        return BounceReport(status.startswith("5"), status, None, diagnostic)
    reply = _REPLY_CODE_RE.search(text)
    if reply is not None:
        diagnostic = next((line for line in lines if reply.group(0).strip() in line), None)
        return BounceReport(reply.group(1) == "5", None, None, diagnostic)
    if _DELAY_RE.search(text):
        return BounceReport(False, None, None, None)
    return BounceReport(True, None, None, lines[0][:200] if lines else None)


def _text_of(message: Message) -> str:
    """The text parts of MESSAGE, not those of the returned mail (which may quote
    anything, orders and codes alike)."""
    texts: list[str] = []
    for part in message.walk():
        if part.get_content_type() in ("message/rfc822", "text/rfc822-headers"):
            break  # the returned mail begins: what follows is not the bounce's
        if part.get_content_maintype() == "text":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                charset = part.get_content_charset() or "utf-8"
                try:
                    texts.append(payload.decode(charset, errors="replace"))
                except LookupError:
                    texts.append(payload.decode("utf-8", errors="replace"))
    text = "\n".join(texts)
    # qmail and old Exim quote the returned mail inline, below a line that says so.
    copy = _COPY_RE.search(text)
    return text[:copy.start()] if copy else text
