"""The text and HTML parts of a composed mail (issue 14: they are quoted-printable
encoded by binascii and put in after the generator ran): a mail program decodes
exactly what was rendered, whatever the text holds, and the wire stays 7-bit with
short lines."""

from __future__ import annotations

import email
import email.policy

import pytest

from moderator.mail.compose import OutgoingMail, Picture, compose

TEXTS = [
    "hello\n",
    "no line break at the end",
    "é ünïcode ★ and an emoji 🚂\n\n\n  indented  \n",
    ".\nFrom the moderator\n= sign, =3D and =\n",  # SMTP's dot, mbox's From, QP's =
    "trailing spaces   \nand a tab\t\n",
    "x" * 5000 + "\n",  # one long line: SMTP allows 1000 bytes a line
    "",
]


def _parts(raw: bytes) -> dict[str, str]:
    """Each text part as a mail program shows it (the wire's CRLF as line breaks)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return {part.get_content_type(): part.get_content().replace("\r\n", "\n")
            for part in message.walk() if part.get_content_maintype() == "text"}


@pytest.mark.parametrize("to", ["ann@example.org", "jörg@exämple.org"])
@pytest.mark.parametrize("text", TEXTS)
def test_each_text_part_decodes_to_what_was_rendered(text: str, to: str) -> None:
    html = f"<p>{text}</p>"
    mail = OutgoingMail(kind="reply", to=to, subject="s", text=text, html=html,
                        images=(Picture("map", "map.png", b"\x89PNG" + b"z" * 300),))
    raw = compose(mail, sender="moderator@example.org", sender_name="Moderator",
                  message_id="<a@example.org>", when=0)
    assert _parts(raw) == {"text/plain": text, "text/html": html}
    body = raw.split(b"\r\n\r\n", 1)[1]
    assert all(len(line) <= 78 for line in body.split(b"\r\n"))
    assert body.isascii()
    assert b"\n" not in body.replace(b"\r\n", b"")  # CRLF only


def test_a_plain_text_reader_gets_the_text_alone() -> None:
    mail = OutgoingMail(kind="report", to="ann@example.org", subject="s",
                        text="é\n= x\n", html="<p>never</p>", text_only=True)
    raw = compose(mail, sender="moderator@example.org", sender_name="",
                  message_id="<b@example.org>", when=0)
    assert _parts(raw) == {"text/plain": "é\n= x\n"}
    assert b"Content-Transfer-Encoding: quoted-printable" in raw
    assert b'charset="utf-8"' in raw


def test_a_kept_folding_is_the_folding_compat32_writes() -> None:
    """Headers too long for a line are folded once and kept (issue 14): asked again,
    or for another value, each is what compat32's own folding writes for it."""
    from moderator.mail.compose import _WIRE

    plain = email.policy.compat32.clone(linesep="\r\n", max_line_length=78)
    values = [("Reply-To", f"18xx moderator <moderator+18TN-{n}.Player_{n}.abcdefghijklmnop"
                           "@example.org>") for n in range(3)]
    values += [("List-Unsubscribe", f"<mailto:moderator+stop.{n}abcdefghijklmnopqrstuvwxyz"
                                    "@example.org?subject=stop>") for n in range(3)]
    values += [("Subject", "[18TN-4] refused: OR 3.1: TC to move, and a subject long "
                           "enough to be folded on two lines")]
    for _ in range(2):
        for name, value in values:
            assert _WIRE.fold_binary(name, value) == plain.fold_binary(name, value)
