"""Reading incoming mail (moderator.mail.parse) and the tokens of moderator.desk.auth."""

from __future__ import annotations

import pytest

from moderator.desk.auth import (
    make_token,
    read_tag,
    same_token,
    seat_name_problem,
    subject_tags,
    tag_address,
)
from moderator.mail.parse import html_to_text, parse_incoming, read_identity, read_key

MODERATOR = "moderator@example.org"


def raw(headers: str, body: str = "pass\r\n") -> bytes:
    return (headers.replace("\n", "\r\n") + "\r\n" + body).encode()


def test_plain_text_is_preferred_and_names_are_decoded() -> None:
    mail = parse_incoming(raw(
        "From: =?iso-8859-1?q?J=FCrgen?= <JM@Example.org>\n"
        "To: Moderator <moderator+18TN-1.Ann.abcdefghijklmnop@example.org>\n"
        "Subject: =?utf-8?q?Re=3A_=5B18TN-1=5D_z=C3=BCge?=\n"
        "Message-ID: <a@b>\nIn-Reply-To: <r2@x>\nReferences: <r1@x> <r2@x>\n"
        'Content-Type: multipart/alternative; boundary="b"\n',
        "--b\r\nContent-Type: text/plain\r\n\r\nbuy TCC\r\n"
        "--b\r\nContent-Type: text/html\r\n\r\n<p>pass</p>\r\n--b--\r\n"), MODERATOR)
    assert mail.sender == "jm@example.org" and mail.sender_name == "Jürgen"
    assert mail.subject == "Re: [18TN-1] züge"
    assert mail.key == mail.message_id == "<a@b>"
    assert mail.references == ("<r1@x>", "<r2@x>")
    assert mail.text.strip() == "buy TCC"
    assert mail.automatic is None


def test_html_only_keeps_lines_and_marks_quotes() -> None:
    text = html_to_text("<html><head><style>p{}</style></head><body><div>buy TCC</div>"
                        "<div>pass<br>done</div><blockquote><p>old</p></blockquote>"
                        "<script>x()</script></body></html>")
    # (a paragraph keeps its blank line before it, as a mail program shows it)
    assert [line for line in text.splitlines() if line] == ["buy TCC", "pass", "done",
                                                             "> old"]


def test_a_mail_without_message_id_is_keyed_by_its_bytes() -> None:
    one, two = raw("From: a@b.org\n"), raw("From: a@b.org\n", "other\r\n")
    assert read_key(one)[0].startswith("sha256:")
    assert read_key(one) != read_key(two)
    assert parse_incoming(one, MODERATOR).key == read_key(one)[0]


@pytest.mark.parametrize("headers", [
    "Auto-Submitted: auto-replied\n", "Precedence: bulk\n", "List-Id: <l.example>\n",
    "X-Autoreply: yes\n", "Return-Path: <>\n",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="x"\n',
    f"X-Loop: {MODERATOR}\n",
])
def test_automatic_mail_is_recognised(headers: str) -> None:
    assert parse_incoming(raw("From: ann@example.org\n" + headers), MODERATOR).automatic


def test_no_text_says_what_the_mail_holds() -> None:
    mail = parse_incoming(raw(
        'From: a@b.org\nContent-Type: multipart/mixed; boundary="b"\n',
        "--b\r\nContent-Type: image/jpeg\r\nContent-Disposition: attachment\r\n\r\nxx\r\n"
        "--b--\r\n"), MODERATOR)
    assert mail.text == "" and mail.no_text is not None and "image/jpeg" in mail.no_text


def test_a_huge_body_is_cut_at_a_line_end() -> None:
    mail = parse_incoming(raw("From: a@b.org\n", "pass\r\n" + "x" * 99 + "\r\n" * 0
                              + ("y" * 50 + "\r\n") * 10_000), MODERATOR)
    assert len(mail.text) <= 64_000 and mail.text.endswith("y" * 50)


def test_tokens_and_tags() -> None:
    token = make_token("secret-0123456789", "18TN-7", "Ann")
    assert len(token) == 16 and token == make_token("secret-0123456789", "18tn-7", "ann")
    assert token != make_token("secret-0123456789", "18TN-7", "Bob")
    assert token != make_token("another-secret-99", "18TN-7", "Ann")
    address = tag_address(MODERATOR, "18TN-7", "Ann", token)
    assert address == f"moderator+18TN-7.Ann.{token}@example.org"
    tag = read_tag(address.upper(), MODERATOR)
    assert tag is not None and tag.game_id == "18TN-7" and tag.key == "ANN"
    assert tag.token is not None and same_token(token, tag.token)
    assert read_tag("moderator+18TN-7@example.org", MODERATOR) == type(tag)("18TN-7")
    assert read_tag("moderator@example.org", MODERATOR) is None
    assert read_tag(f"moderator+18TN-7.Ann.{token}@elsewhere.org", MODERATOR) is None
    assert subject_tags(f"Re: [18TN-7 {token}] SR 1") == [("18TN-7", token)]
    assert subject_tags("[External] Re: [18TN-7] SR 1") == [("External", None),
                                                            ("18TN-7", None)]


@pytest.mark.parametrize("seat", ["Player 1", "gm", "obs3", "1st", "a" * 25, "Ann:Bob"])
def test_seat_names_that_cannot_travel_in_an_address(seat: str) -> None:
    assert seat_name_problem(seat) is not None


def test_ordinary_seat_names_are_fine() -> None:
    assert all(seat_name_problem(s) is None for s in ("Ann", "bob_2", "Cy-Young", "Obsidian"))


# -- issue 14: hostile input ---------------------------------------------------------------


def test_a_name_hiding_cr_lf_keeps_its_address_and_becomes_one_line() -> None:
    mail = parse_incoming(raw("From: =?utf-8?q?Evil=0D=0ABcc=3A_x=40y.org?= <a@evil.test>\n"
                              "Subject: =?utf-8?q?hi=0D=0ABcc=3A_v=40else.test?=\n"), MODERATOR)
    assert mail.sender == "a@evil.test"
    assert mail.sender_name == "Evil Bcc: x@y.org"  # harmless as one quoted name
    assert mail.subject == "hi Bcc: v@else.test" and "\n" not in mail.subject


@pytest.mark.parametrize(("header", "address"), [
    ("Jörg <jörg@exämple.org>", "jörg@xn--exmple-cua.org"),  # IDNA 2003: nameprep+punycode
    ("ann@EXÄMPLE.org", "ann@xn--exmple-cua.org"),
    ('"ann"@example.org', "ann@example.org"),
    ("Ann <ann@example.org.>", "ann@example.org"),
    ("a@b@evil.test", None),
    ("x@exa..mple.org", None),
    ('"a b"@example.org', None),
    ("l" * 65 + "@example.org", None),  # RFC 5321 4.5.3.1.1: 64 octets at most
])
def test_sender_addresses_are_kept_in_one_form_or_refused(header: str,
                                                            address: str | None) -> None:
    mail = parse_incoming(("From: " + header + "\r\n\r\nhelp\r\n").encode(), MODERATOR)
    assert mail.sender == address


def test_a_one_megabyte_line_says_so() -> None:
    mail = parse_incoming(raw("From: a@b.org\n", "x" * 1_000_000), MODERATOR)
    assert mail.text == "" and mail.no_text is not None
    assert "first line is 1,000,000 characters long" in mail.no_text


@pytest.mark.parametrize(("headers", "body"), [
    ('Subject: Accepted: 18TN-1\nContent-Type: multipart/alternative; boundary="c"\n',
     "--c\r\nContent-Type: text/plain\r\n\r\nAnn accepted\r\n--c\r\nContent-Type: "
     "text/calendar\r\n\r\nBEGIN:VCALENDAR\r\nMETHOD:REPLY\r\nEND:VCALENDAR\r\n--c--\r\n"),
    ("Subject: 18TN-1\nContent-Type: text/calendar; method=REPLY\n", "BEGIN:VCALENDAR\r\n"),
    ("Subject: Declined: 18TN-1: your move\n", "no\r\n"),
    ("Subject: Automatic reply: [18TN-1] OR 3.1\n", "Away.\r\n"),
    ("Subject: Out of Office: [18TN-1]\n", "Away.\r\n"),
    ("Subject: Re: [18TN-1]\n", "\r\nThis is an automatic reply: I am away.\r\n"),
    ("Subject: Re: [18TN-1]\n", "I'm out of the office until Monday.\r\n"),
    ("Auto-Submitted: no\nAuto-Submitted: auto-replied\n", "help\r\n"),
])
def test_auto_replies_without_standard_headers_and_calendar_answers(headers: str,
                                                                    body: str) -> None:
    assert parse_incoming(raw("From: ann@example.org\n" + headers, body), MODERATOR).automatic


@pytest.mark.parametrize("body", [
    "buy TCC\r\nI am out of the office next week: away 2026-12-01 to 2026-12-05\r\n",
    "help\r\n",
])
def test_orders_are_not_taken_for_auto_replies(body: str) -> None:
    mail = parse_incoming(raw("From: ann@example.org\nSubject: Re: [18TN-1] accepted\n", body),
                          MODERATOR)
    assert mail.automatic is None


def test_the_content_digest_ignores_the_way_a_mail_travelled() -> None:
    mail = raw("From: a@b.org\nSubject: x\nMessage-ID: <m@b>\n", "buy TCC\r\n")
    travelled = b"Received: from relay\r\nDelivered-To: moderator@example.org\r\n" + mail
    other = raw("From: a@b.org\nSubject: x\nMessage-ID: <m@b>\n", "pass\r\n")
    assert read_identity(mail) == read_identity(travelled)
    assert read_identity(mail)[0] == read_identity(other)[0] == "<m@b>"
    assert read_identity(mail)[1] != read_identity(other)[1]


@pytest.mark.parametrize("junk", [b"", b"\x00" * 100, b"\xff" * 100, b"From:\r\n",
                                  b"Content-Type: multipart/mixed\r\n" * 500])
def test_junk_never_raises(junk: bytes) -> None:
    mail = parse_incoming(junk, MODERATOR)
    assert mail.sender is None and mail.automatic is not None


def test_a_kept_token_is_the_one_its_secret_game_and_key_make() -> None:
    """`make_token` keeps what it made (issue 14): asked again, for another secret,
    game or key, it gives what the HMAC gives for those, never an earlier answer."""
    import base64
    import hashlib
    import hmac

    def fresh(secret: str, game_id: str, key: str) -> str:
        message = f"pbem-18xx-token-v1\x00{game_id.lower()}\x00{key.lower()}".encode()
        digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
        return base64.b32encode(digest).decode("ascii").lower()[:16]

    asked = [(s, g, k) for s in ("secret-one-1234", "secret-two-1234")
             for g in ("18TN-1", "18TN-2") for k in ("Ann", "Bob", "gm")]
    for _ in range(2):  # made, then kept
        tokens = [make_token(*args) for args in asked]
        assert tokens == [fresh(*args) for args in asked]
        assert len(set(tokens)) == len(asked)
    assert make_token("secret-one-1234", "18tn-1", "ANN") == make_token(
        "secret-one-1234", "18TN-1", "Ann")  # folded as before
