"""The reply corpus (tests/fixtures/replies): real reply mails of public reply-parser
test suites, each with the placeholder `XORDERX` where its writer had written; NOTICE
there names each file's origin and licence, corpus.json its layout class.

`with_order` puts an order in the placeholder's place, encoded as the part is
(base64, quoted-printable, HTML), and gives the mail the addresses of a test."""

from __future__ import annotations

import base64
import email
import email.policy
import html
import json
import quopri
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "fixtures" / "replies"
PLACEHOLDER = "XORDERX"


@dataclass(frozen=True)
class Reply:
    name: str
    layout: str  # the layout class: gmail-top, outlook-text, bottom-posting, ...
    raw: bytes


def corpus() -> list[Reply]:
    labels = json.loads((CORPUS / "corpus.json").read_text())
    return [Reply(name, entry["class"], (CORPUS / f"{name}.eml").read_bytes())
            for name, entry in sorted(labels.items())]


def with_order(raw: bytes, order: str, *, sender: str = "player@example.org",
               to: str = "moderator@example.org", message_id: str | None = None) -> bytes:
    """RAW with ORDER in place of the placeholder (every text part), From SENDER, To TO."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    placed = 0
    for part in message.walk():
        if part.is_multipart():
            continue
        encoding = (part.get("Content-Transfer-Encoding") or "7bit").lower()
        charset = part.get_content_charset() or "us-ascii"
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        text = payload.decode(charset)
        long_lines = any(len(line) > 900 for line in payload.splitlines())
        if PLACEHOLDER not in text and not (long_lines and encoding in ("7bit", "8bit")):
            continue
        value = html.escape(order) if part.get_content_type() == "text/html" else order
        placed += PLACEHOLDER in text
        data = text.replace(PLACEHOLDER, value).encode(charset)
        if encoding == "base64":
            part.set_payload(base64.encodebytes(data).decode("ascii"))
        elif encoding == "quoted-printable":
            part.set_payload(quopri.encodestring(data).decode("ascii"))
        elif any(len(line) > 900 for line in data.splitlines()):
            # SMTP allows no line over 998 octets: a mail program sends such a body
            # quoted-printable.
            part.set_payload(quopri.encodestring(data).decode("ascii"))
            del part["Content-Transfer-Encoding"]
            part["Content-Transfer-Encoding"] = "quoted-printable"
        else:  # 7bit or 8bit: the bytes as they are (the generator writes them back)
            part.set_payload(data.decode("ascii", "surrogateescape"))
    assert placed, "no placeholder in the mail"
    for name in ("From", "To", "Message-ID", "Date", "Cc", "Reply-To"):
        del message[name]
    message["From"] = sender
    message["To"] = to
    message["Date"] = "Sat, 28 Nov 2026 10:00:00 +0000"
    if message_id is not None:
        message["Message-ID"] = message_id
    return message.as_bytes()
