"""A corpus of hostile mails, made in code: what an attacker (or a broken mail program)
sends to a public address. Issue 14, item 1: none of them may stop the service.

`corpus()` returns `Hostile` items -- a name saying what the mail tries and its raw
bytes -- in these families: header tricks, encodings, CR/LF injection, huge headers,
broken MIME, nested multiparts, bad charsets, address forms, missing and duplicate
headers, binary junk. Each family is a few shapes crossed with a few variants, so
the corpus is large (well over 200) without 200 hand-written files. Sizes stop where the
IMAP server of the tests (pymap) takes seconds to store a mail (thousands of nested
parts or of words in a header); the moderator's own limits are lower. The mails are
deterministic (a seeded random for the junk), so a failure names the same mail on
every run.

`answerable` says whether the mail has a sender the moderator can answer and a
request it would answer (`help`): those must get exactly an answer; the others must
get none and still not block anything.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from dataclasses import dataclass

MODERATOR = "moderator@localhost"


@dataclass(frozen=True)
class Hostile:
    name: str
    raw: bytes
    #: The address an answer must go to (as the moderator writes it), or None when the
    #: mail must not be answered or its sender cannot be.
    answer_to: str | None = None
    #: Words of the reason the mail is quarantined with, unread (issue 31: over a limit
    #: of `moderator.mail.limits`); None: it must be processed.
    quarantined: str | None = None


def _mail(headers: list[tuple[str, str | bytes]], body: bytes | str = b"help\r\n") -> bytes:
    lines = []
    for name, value in headers:
        value_bytes = value if isinstance(value, bytes) else value.encode("utf-8")
        lines.append(name.encode() + b": " + value_bytes)
    body_bytes = body if isinstance(body, bytes) else body.encode("utf-8")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body_bytes


class _Ids:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"<hostile-{self.count}@evil.test>"


def _standard(sender: str, ids: _Ids, subject: str = "help please"
              ) -> list[tuple[str, str | bytes]]:
    return [("From", sender), ("To", MODERATOR), ("Subject", subject),
            ("Date", "Tue, 24 Nov 2026 10:00:00 +0000"), ("Message-ID", ids())]


def header_tricks(ids: _Ids) -> Iterator[Hostile]:
    names = [
        ("crlf-in-encoded-name", "=?utf-8?q?Evil=0D=0Ax?="),
        ("lf-in-encoded-name", "=?utf-8?q?Evil=0Ax?="),
        ("nul-in-encoded-name", "=?utf-8?q?Ev=00il?="),
        ("bcc-in-encoded-name", "=?utf-8?q?Evil=0D=0ABcc=3A_victim=40else.test?="),
        ("b64-crlf-name", "=?utf-8?b?" + base64.b64encode(b"Evil\r\nTo: x@y").decode() + "?="),
        ("angle-in-encoded-name", "=?utf-8?q?=3Cother=40evil.test=3E?="),
        ("quoted-name-with-address", '"victim@else.test" '),
        ("unterminated-encoded-word", "=?utf-8?q?Evil"),
        ("unknown-charset-name", "=?x-klingon?q?Evil?="),
        ("bad-b64-name", "=?utf-8?b?!!!!?="),
        ("rtl-override-name", "\u202eliveE"),
        ("very-long-name", "A" * 5000),
        ("many-encoded-words", " ".join(["=?utf-8?q?x?="] * 2000)),
    ]
    for index, (name, display) in enumerate(names):
        sender = f"name{index}@evil.test"
        yield Hostile(f"header/{name}",
                      _mail(_standard(f"{display} <{sender}>", ids)), sender)
    subjects = [
        ("subject-crlf", "=?utf-8?q?hi=0D=0ABcc=3A_victim=40else.test?="),
        ("subject-bare-cr", "hi\rBcc: victim@else.test"),
        ("subject-nul", "hi\x00there"),
        ("subject-unknown-charset", "=?x-unknown?q?hi?="),
        ("subject-bad-qp", "=?utf-8?q?=ZZ=?="),
        ("subject-utf7", "=?utf-7?q?+AGEAYgBj-?="),
        ("subject-folded-forever", "a\r\n " * 500 + "b"),
        ("subject-game-tag-injection", "[18TN-1 ] [../../etc] <script>"),
    ]
    for index, (name, subject) in enumerate(subjects):
        sender = f"subject{index}@evil.test"
        yield Hostile(f"header/{name}", _mail(_standard(sender, ids, subject)), sender)
    odd = [
        ("no-colon-line", [("From", "odd0@evil.test"), ("To", MODERATOR)],
         b"This header has no colon\r\nSubject: x\r\n"),
        ("space-before-colon", [("From", "odd1@evil.test")], b"Subject : x\r\n"),
        ("header-name-8bit", [("From", "odd2@evil.test")], "Süb: x\r\n".encode()),
        ("continuation-first", [], b" folded: first\r\nFrom: odd3@evil.test\r\n"),
    ]
    for name, headers, extra in odd:
        sender = next((str(v) for k, v in headers if k == "From"), "odd3@evil.test")
        head = _mail([*headers, ("Message-ID", ids())], b"").rstrip(b"\r\n")
        raw = (extra + head if name == "continuation-first" else head + b"\r\n"
               + extra.rstrip(b"\r\n")) + b"\r\n\r\nhelp\r\n"
        yield Hostile(f"header/{name}", raw, sender)


def encodings(ids: _Ids) -> Iterator[Hostile]:
    bodies = [
        ("qp-bad-escapes", "quoted-printable", b"help=ZZ=\r\n=0"),
        ("qp-soft-break-only", "quoted-printable", b"=\r\n=\r\n"),
        ("b64-junk", "base64", b"!!!not base64$$$\r\n"),
        ("b64-truncated", "base64", base64.b64encode(b"help\n")[:-3]),
        ("b64-valid-help", "base64", base64.b64encode(b"help\n")),
        ("cte-unknown", "x-klingon", b"help\r\n"),
        ("cte-uuencode", "x-uuencode", b"begin 644 x\r\n#:&5L<```\r\nend\r\n"),
        ("cte-8bit-latin1", "8bit", "hélp\r\n".encode("latin-1")),
        ("cte-binary-nul", "binary", b"help\x00\x00\r\n"),
        ("cte-twice", "base64, quoted-printable", b"help\r\n"),
    ]
    for index, (name, cte, body) in enumerate(bodies):
        sender = f"enc{index}@evil.test"
        headers = [*_standard(sender, ids), ("MIME-Version", "1.0"),
                   ("Content-Type", "text/plain; charset=utf-8"),
                   ("Content-Transfer-Encoding", cte)]
        yield Hostile(f"encoding/{name}", _mail(headers, body), sender)


def charsets(ids: _Ids) -> Iterator[Hostile]:
    variants = [
        ("utf-8-lie", "utf-8", "hélp\r\n".encode("latin-1")),
        ("unknown", "x-unknown-charset", b"help\r\n"),
        ("empty", "", b"help\r\n"),
        ("quote-in-charset", 'utf-8"', b"help\r\n"),
        ("utf-16-declared-ascii-body", "utf-16", b"help\r\n"),
        ("utf-16-bom", "utf-16", "help\r\n".encode("utf-16")),
        ("iso-2022-jp", "iso-2022-jp", "help \u65e5\u672c\r\n".encode("iso-2022-jp")),
        ("utf-7", "utf-7", b"help +AGE-\r\n"),
        ("invalid-utf8", "utf-8", b"help \xff\xfe\xc3\x28\r\n"),
        ("surrogates-utf8", "utf-8", b"help \xed\xa0\x80\r\n"),
        ("charset-rfc2231", "utf-8''%ZZ", b"help\r\n"),
        ("very-long-charset", "x" * 5000, b"help\r\n"),
    ]
    for index, (name, charset, body) in enumerate(variants):
        sender = f"cs{index}@evil.test"
        headers = [*_standard(sender, ids), ("MIME-Version", "1.0"),
                   ("Content-Type", f'text/plain; charset="{charset}"')]
        yield Hostile(f"charset/{name}", _mail(headers, body), sender)
        # The same lie in a raw 8-bit header.
        sender = f"cs8h{index}@evil.test"
        raw_subject = "Grüße".encode("latin-1") if index % 2 else "Grüße".encode()
        headers = [("From", f"{sender}"), ("To", MODERATOR),
                   ("Subject", raw_subject), ("Message-ID", ids())]
        yield Hostile(f"charset/8bit-header-{name}", _mail(headers, body), sender)


def crlf_injection(ids: _Ids) -> Iterator[Hostile]:
    injections = [
        ("bare-lf-lines", b"From: inj0@evil.test\nTo: " + MODERATOR.encode()
         + b"\nSubject: x\nMessage-ID: " + ids().encode() + b"\n\nhelp\n", "inj0@evil.test"),
        ("bare-cr-lines", b"From: inj1@evil.test\rTo: " + MODERATOR.encode()
         + b"\rSubject: x\r\rhelp\r", "inj1@evil.test"),
        ("mixed-line-ends", b"From: inj2@evil.test\r\nTo: " + MODERATOR.encode()
         + b"\nSubject: x\r\r\nMessage-ID: " + ids().encode() + b"\n\r\nhelp\r\n",
         "inj2@evil.test"),
        ("header-injection-in-from-comment",
         _mail([("From", "inj3@evil.test (=?utf-8?q?x=0D=0ABcc:_v@else.test?=)"),
                ("To", MODERATOR), ("Message-ID", ids())]), "inj3@evil.test"),
        ("crlf-in-message-id", _mail([("From", "inj4@evil.test"), ("To", MODERATOR),
                                      ("Message-ID", "<a\rb@evil.test>")]), "inj4@evil.test"),
        ("crlf-in-references", _mail([
            *_standard("inj5@evil.test", ids), ("References", "<x@y>\r\nBcc: v@else.test"),
            ("In-Reply-To", "=?utf-8?q?=3Cx=0D=0ABcc=3A_v=40else.test=3E?=")]),
         "inj5@evil.test"),
        ("crlf-in-reply-to-header", _mail([
            *_standard("inj6@evil.test", ids),
            ("Reply-To", "=?utf-8?q?x=0D=0ABcc=3A?= <v@else.test>")]), "inj6@evil.test"),
        ("body-smtp-dot", _mail(_standard("inj7@evil.test", ids),
                                b"help\r\n.\r\nMAIL FROM:<x@y>\r\n"), "inj7@evil.test"),
    ]
    for name, raw, answer in injections:
        yield Hostile(f"crlf/{name}", raw, answer)


def huge_headers(ids: _Ids) -> Iterator[Hostile]:
    big = [
        ("subject-100k", [("Subject", "S" * 100_000)]),
        ("subject-2k-words", [("Subject", "word " * 2000)]),
        ("to-2k-addresses", [("To", ", ".join(f"r{i}@else.test" for i in range(2000)))]),
        ("references-1k", [("References", " ".join(f"<r{i}@x>" for i in range(1000)))]),
        ("message-id-10k", [("Message-ID", "<" + "m" * 10_000 + "@evil.test>")]),
        ("in-reply-to-10k", [("In-Reply-To", "<" + "i" * 10_000 + "@x>")]),
        ("5k-header-lines", [(f"X-Junk-{i}", "junk") for i in range(5000)]),
        ("received-2k", [("Received", f"from h{i} by h{i + 1}") for i in range(2000)]),
    ]
    for index, (name, extra) in enumerate(big):
        sender = f"huge{index}@evil.test"
        headers = [("From", sender), ("Date", "Tue, 24 Nov 2026 10:00:00 +0000")]
        if not any(k in ("To",) for k, _ in extra):
            headers.append(("To", MODERATOR))
        if not any(k == "Message-ID" for k, _ in extra):
            headers.append(("Message-ID", ids()))
        if not any(k == "Subject" for k, _ in extra):
            headers.append(("Subject", "big"))
        yield Hostile(f"huge/{name}", _mail(headers + list(extra)), sender)
    yield Hostile("huge/one-header-1mb", _mail([*_standard("huge-x@evil.test", ids),
                                                ("X-Big", "B" * 1_000_000)]),
                  None, "x-big header is 1,000,0")


def folded(items: list[str], separator: str, width: int = 900) -> str:
    """ITEMS joined by SEPARATOR, folded into lines under WIDTH bytes (as SMTP wants)."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(line) + len(item) + len(separator) > width:
            lines.append(line.rstrip())
            line = ""
        line += item + separator
    lines.append(line.rstrip(separator.strip() + " ") if line else line)
    return "\r\n ".join(lines)


def costly_headers(ids: _Ids) -> Iterator[Hostile]:
    """Issue 31, case 1: headers whose parse costs seconds to minutes in `email`. Each
    is one step over a limit of `moderator.mail.limits` (the issue's own mails, a
    megabyte and more, are in `issue_31_costly_mails`), and a sibling one step under
    it, which is answered as any mail."""
    shapes: list[tuple[str, str, int, str, str]] = [
        # (what, header, count over the limit, item, separator)
        ("content-type-params", "Content-Type", 101, "p{}=v", "; "),
        ("subject-encoded-words", "Subject", 2001, "=?utf-8?q?x{}?=", " "),
        ("cc-addresses", "Cc", 2001, "r{}@else.test", ", "),
        ("disposition-params", "Content-Disposition", 101, "q{}=v", "; "),
    ]
    for name, header, over, item, separator in shapes:
        for count, verdict in ((over, "over"), (over - 2, "under")):
            sender = f"cost-{name}-{verdict}@evil.test"
            items = [item.format(i) for i in range(count)]
            value = ("text/plain; " if header == "Content-Type" else
                     "inline; " if header == "Content-Disposition" else "") + folded(
                items, separator)
            headers = [(k, v) for k, v in _standard(sender, ids) if k != header]
            raw = _mail([*headers, ("MIME-Version", "1.0"), (header, value)])
            yield Hostile(f"costly/{name}-{verdict}", raw,
                          sender if verdict == "under" else None,
                          f"{header.lower() if header in ('Subject', 'Cc') else header}"
                          if verdict == "over" else None)


def broken_mime(ids: _Ids) -> Iterator[Hostile]:
    # (what, the Content-Type, the body, whether it is answered: all but a report)
    shapes: list[tuple[str, str, bytes, bool]] = [
        ("no-boundary", "multipart/mixed", b"--x\r\n\r\nhelp\r\n--x--\r\n", True),
        ("boundary-never-used", 'multipart/mixed; boundary="b"', b"help\r\n", True),
        ("boundary-never-closed", 'multipart/mixed; boundary="b"',
         b"--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n", True),
        ("empty-multipart", 'multipart/alternative; boundary="b"', b"--b--\r\n", True),
        ("part-without-headers", 'multipart/mixed; boundary="b"',
         b"--b\r\n\r\nhelp\r\n--b--\r\n", True),
        ("garbage-content-type", "text/", b"help\r\n", True),
        ("slash-content-type", "/", b"help\r\n", True),
        ("content-type-params-junk", "text/plain; ;;; charset=; =x; format", b"help\r\n", True),
        ("empty-boundary", 'multipart/mixed; boundary=""', b"--\r\n\r\nhelp\r\n----\r\n",
         True),
        ("boundary-70k", 'multipart/mixed; boundary="' + "b" * 70_000 + '"',
         b"--" + b"b" * 70_000 + b"\r\n\r\nhelp\r\n", True),
        ("message-rfc822-broken", "message/rfc822", b"From: \r\n\r\n", True),
        ("message-rfc822-help", "message/rfc822",
         b"From: inner@evil.test\r\nSubject: inner\r\n\r\nhelp\r\n", True),
        ("fake-report", 'multipart/report; report-type=delivery-status; boundary="b"',
         b"--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--b--\r\n", False),
        ("html-only-broken", "text/html", b"<p>help<p><b><<<<>>>><!--", True),
        ("html-script-bomb", "text/html", b"<script>" + b"x" * 200_000 + b"help", True),
        ("html-deep-tags", "text/html", b"<div>" * 20_000 + b"help", True),
        ("image-only", "image/png", base64.b64encode(b"\x89PNG" + b"\x00" * 100), True),
        ("application-octet", "application/octet-stream", b"\x00\x01\x02help", True),
        ("ms-tnef", "application/ms-tnef", b"\x78\x9f\x3e\x22", True),
        ("multipart-alternative-two-plain", 'multipart/alternative; boundary="b"',
         b"--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--b\r\nContent-Type: text/plain"
         b"\r\n\r\nstart\r\n--b--\r\n", True),
    ]
    for index, (name, content_type, body, answerable) in enumerate(shapes):
        sender = f"mime{index}@evil.test"
        headers = [*_standard(sender, ids), ("MIME-Version", "1.0"), ("Content-Type", content_type)]
        # A mail without readable text is answered too (with what was wrong with it).
        yield Hostile(f"mime/{name}", _mail(headers, body), sender if answerable else None)


def nested_multiparts(ids: _Ids) -> Iterator[Hostile]:
    for depth in (2, 10, 50, 99, 120, 150):
        for kind in ("mixed", "alternative"):
            sender = f"nest{depth}{kind[0]}@evil.test"
            body = b""
            for level in range(depth):
                body += (f"--b{level}\r\nContent-Type: multipart/{kind}; "
                         f'boundary="b{level + 1}"\r\n\r\n').encode()
            body += f"--b{depth}\r\nContent-Type: text/plain\r\n\r\nhelp\r\n".encode()
            for level in range(depth, -1, -1):
                body += f"--b{level}--\r\n".encode()
            headers = [*_standard(sender, ids), ("MIME-Version", "1.0"),
                       ("Content-Type", f'multipart/{kind}; boundary="b0"')]
            yield Hostile(f"nested/{kind}-{depth}", _mail(headers, body), sender)
    # An unclosed pyramid: every part opens another, none closes.
    sender = "nestopen@evil.test"
    body = b"".join(f"--b{i}\r\nContent-Type: multipart/mixed; boundary=\"b{i + 1}\"\r\n\r\n"
                    .encode() for i in range(150))
    headers = [*_standard(sender, ids), ("MIME-Version", "1.0"),
               ("Content-Type", 'multipart/mixed; boundary="b0"')]
    yield Hostile("nested/unclosed-150", _mail(headers, body), sender)


def address_forms(ids: _Ids) -> Iterator[Hostile]:
    forms: list[tuple[str, str | bytes, str | None]] = [
        # (what, the From header, the address the answer must go to)
        ("idn-both-parts", "Jörg <jörg@exämple.org>", "jörg@xn--exmple-cua.org"),
        ("idn-domain", "ann@exämple.org", "ann@xn--exmple-cua.org"),
        ("idn-local", "jörg@example.org", "jörg@example.org"),
        ("idn-punycode", "bob@xn--exmple-cua.org", "bob@xn--exmple-cua.org"),
        ("cyrillic", "Иван <иван@пример.рф>", "иван@xn--e1afmkfd.xn--p1ai"),
        ("cjk", "用户@例子.广告", "用户@xn--fsqu00a.xn--4rr70v"),
        ("idn-latin1-bytes", "jörg@exämple.org".encode("latin-1"), None),
        ("encoded-word-address", "=?utf-8?q?j=C3=B6rg=40ex=C3=A4mple.org?=", None),
        ("uppercase", "Mixed.Case@Example.ORG", "mixed.case@example.org"),
        ("plus-tag", "ann+pbem@example.org", "ann+pbem@example.org"),
        ("quoted-local-space", '"ann smith"@example.org', None),
        ("quoted-local-plain", '"ann"@example.org', "ann@example.org"),
        ("ip-literal", "ann@[127.0.0.1]", None),
        ("two-ats", "a@b@evil.test", None),
        ("no-local", "@evil.test", None),
        ("no-domain", "nobody@", None),
        ("empty-angle", "<>", None),
        ("name-only", "Just A Name", None),
        ("comment-around", "(comment) ann.c@example.org (more)", "ann.c@example.org"),
        ("route-addr", "<@route.test:routed@example.org>", "routed@example.org"),
        ("group-syntax", "undisclosed-recipients:;", None),
        ("group-with-member", "friends: grp@example.org;", "grp@example.org"),
        ("two-addresses", "first@example.org, second@example.org", "first@example.org"),
        ("trailing-dot-domain", "dot@example.org.", "dot@example.org"),
        ("double-dot-domain", "dd@example..org", None),
        ("long-local-65", "l" * 65 + "@example.org", None),
        ("long-domain-label", "x@" + "d" * 64 + ".org", None),
        ("space-in-address", "sp ace@example.org", None),
        ("tab-in-angle", "<tab\t@example.org>", "tab@example.org"),
        ("moderator-itself", MODERATOR, None),
        ("moderator-tagged", "moderator+18TN-1@localhost", None),
        ("mailer-daemon", "MAILER-DAEMON@example.org", None),
        ("unbalanced-angle", "Ann <unbal@example.org", "unbal@example.org"),
        ("unbalanced-quote", '"Ann <unq@example.org>', None),
        # Issue 31, case 8: an encoded word is never an address.
        ("encoded-word-whole-address", "=?utf-8?q?ann@example.org?=", None),
        ("encoded-word-in-angles", "Ann <=?utf-8?q?ann2@example.org?=>", None),
        # Issue 31, case 9: look-alike, invisible and bidirectional characters.
        ("cyrillic-a-in-latin", "\u0430nn@example.org", None),
        ("zero-width-space", "da\u200bn@example.org", None),
        ("rtl-override-local", "\u202eevil@example.org", None),
        ("greek-omicron-domain", "bob@ex\u03bfmple.org", None),
        ("one-script-greek", "\u03b1\u03b2@\u03b5\u03bb.gr", "\u03b1\u03b2@xn--qxam.gr"),
    ]
    for name, sender, answer in forms:
        headers: list[tuple[str, str | bytes]] = [
            ("From", sender), ("To", MODERATOR), ("Subject", "help"),
            ("Message-ID", ids())]
        yield Hostile(f"address/{name}", _mail(headers), answer)


def missing_and_duplicate(ids: _Ids) -> Iterator[Hostile]:
    cases: list[tuple[str, list[tuple[str, str | bytes]], str | None]] = [
        ("no-from", [("To", MODERATOR), ("Subject", "x"), ("Message-ID", ids())], None),
        ("empty-from", [("From", ""), ("To", MODERATOR), ("Message-ID", ids())], None),
        ("no-to", [("From", "dup0@evil.test"), ("Message-ID", ids())], "dup0@evil.test"),
        ("no-message-id", [("From", "dup1@evil.test"), ("To", MODERATOR)],
         "dup1@evil.test"),
        ("no-date-no-subject", [("From", "dup2@evil.test"), ("Message-ID", ids())],
         "dup2@evil.test"),
        ("two-froms", [("From", "dup3@evil.test"), ("From", "victim@else.test"),
                       ("To", MODERATOR), ("Message-ID", ids())], "dup3@evil.test"),
        ("two-message-ids", [("From", "dup4@evil.test"), ("Message-ID", ids()),
                             ("Message-ID", ids())], "dup4@evil.test"),
        ("two-subjects", [("From", "dup5@evil.test"), ("Subject", "a"), ("Subject", "b"),
                          ("Message-ID", ids())], "dup5@evil.test"),
        ("two-content-types", [("From", "dup6@evil.test"), ("Message-ID", ids()),
                               ("Content-Type", "image/png"),
                               ("Content-Type", "text/plain")], "dup6@evil.test"),
        ("two-auto-submitted", [("From", "dup7@evil.test"), ("Message-ID", ids()),
                                ("Auto-Submitted", "no"),
                                ("Auto-Submitted", "auto-replied")], None),
        ("empty-message-id", [("From", "dup8@evil.test"), ("Message-ID", "")],
         "dup8@evil.test"),
        ("message-id-no-angles", [("From", "dup9@evil.test"), ("Message-ID", "bare@id")],
         "dup9@evil.test"),
        ("empty-date", [("From", "dup10@evil.test"), ("Date", ""),
                        ("Message-ID", ids())], "dup10@evil.test"),
        ("junk-date", [("From", "dup11@evil.test"), ("Date", "yesterday at noon, maybe"),
                       ("Message-ID", ids())], "dup11@evil.test"),
        # A Return-Path the sender wrote: the delivering server's own (first) one says
        # whether it is a bounce, and through the test's servers it is not.
        ("senders-empty-return-path", [("From", "dup12@evil.test"), ("Return-Path", "<>"),
                                       ("Message-ID", ids())], "dup12@evil.test"),
        ("empty-auto-submitted", [("From", "dup13@evil.test"), ("Auto-Submitted", ""),
                                  ("Message-ID", ids())], "dup13@evil.test"),
    ]
    for name, headers, answer in cases:
        yield Hostile(f"missing/{name}", _mail(headers), answer)
    yield Hostile("missing/header-only-no-body",
                  b"From: dup14@evil.test\r\nMessage-ID: " + ids().encode() + b"\r\n",
                  "dup14@evil.test")
    yield Hostile("missing/no-blank-line-body",
                  b"From: dup15@evil.test\r\nMessage-ID: " + ids().encode()
                  + b"\r\nhelp\r\n", "dup15@evil.test")


def binary_junk(ids: _Ids) -> Iterator[Hostile]:
    rng = random.Random(14)
    for index in range(16):
        size = rng.choice([1, 10, 100, 1000, 10_000, 100_000])
        junk = bytes(rng.randrange(256) for _ in range(size))
        yield Hostile(f"junk/random-{index}-{size}", junk, None)
    for index in range(8):
        junk = bytes(rng.randrange(256) for _ in range(2000))
        sender = f"junk{index}@evil.test"
        yield Hostile(f"junk/headers-then-binary-{index}",
                      _mail(_standard(sender, ids), junk), sender)
    yield Hostile("junk/nul-bytes", b"\x00" * 5000, None)
    yield Hostile("junk/ff-bytes", b"\xff" * 5000, None)
    yield Hostile("junk/mbox-from-line", b"From evil@evil.test Tue Nov 24 10:00:00 2026\r\n"
                  + _mail(_standard("mbox@evil.test", ids)), "mbox@evil.test")
    yield Hostile("junk/utf8-bom-first", b"\xef\xbb\xbf" + _mail(_standard("bom@evil.test",
                                                                            ids)), None)
    yield Hostile("junk/body-1mb-line", _mail(_standard("longline@evil.test", ids),
                                              b"x" * 1_000_000), "longline@evil.test")
    yield Hostile("junk/body-200k-lines", _mail(_standard("lines@evil.test", ids),
                                                b"pass\r\n" * 200_000), "lines@evil.test")
    yield Hostile("junk/only-whitespace", _mail(_standard("ws@evil.test", ids),
                                                b" \t\r\n" * 1000), "ws@evil.test")


def automatic_answers(ids: _Ids) -> Iterator[Hostile]:
    """Mail that must never be answered though it carries none of the standard headers
    of automatic mail: calendar programs' answers, plain-text auto-replies."""
    calendar = (b"BEGIN:VCALENDAR\r\nMETHOD:REPLY\r\nBEGIN:VEVENT\r\n"
                b"ATTENDEE;PARTSTAT=ACCEPTED:mailto:cal@example.org\r\nEND:VEVENT\r\n"
                b"END:VCALENDAR\r\n")
    cases: list[tuple[str, list[tuple[str, str | bytes]], bytes]] = [
        ("calendar-accepted-multipart", [
            ("Subject", "Accepted: 18TN-1: your move as Ann"),
            ("Content-Type", 'multipart/alternative; boundary="c"')],
         b"--c\r\nContent-Type: text/plain\r\n\r\nAnn has accepted.\r\n--c\r\n"
         b"Content-Type: text/calendar; charset=utf-8\r\n\r\n" + calendar + b"--c--\r\n"),
        ("calendar-method-param", [
            ("Subject", "18TN-1"), ("Content-Type", "text/calendar; method=REPLY")], calendar),
        ("calendar-subject-only", [("Subject", "Accepted: 18TN-1: your move as Ann")],
         b"Ann has accepted this invitation.\r\n"),
        ("calendar-declined-german", [("Subject", "Abgelehnt: 18TN-1: Ihr Zug")],
         b"Abgelehnt.\r\n"),
        ("calendar-tentative", [("Subject", "Tentative: 18TN-1")], b"maybe\r\n"),
        ("outlook-automatic-reply", [("Subject", "Automatic reply: [18TN-1] OR 3.1")],
         b"I am away until Monday.\r\n"),
        ("out-of-office-subject", [("Subject", "Out of Office: [18TN-1] OR 3.1")],
         b"Back on the 3rd.\r\n"),
        ("autoreply-first-line", [("Subject", "Re: [18TN-1] OR 3.1")],
         b"This is an automatic reply. I am on holiday.\r\n"),
        ("out-of-office-first-line", [("Subject", "Re: [18TN-1] OR 3.1")],
         b"I am currently out of the office with limited access to mail.\r\n"),
        ("abwesenheitsnotiz", [("Subject", "Abwesenheitsnotiz: [18TN-1] OR 3.1")],
         b"Ich bin bis Montag nicht im Buero.\r\n"),
        ("x-autogenerated", [("Subject", "help"), ("X-Autogenerated", "Reply")], b"help\r\n"),
        ("x-precedence-auto-reply", [("Subject", "help"), ("X-Precedence", "auto_reply")],
         b"help\r\n"),
        # Issue 31, case 10.
        ("precedence-with-comment", [("Subject", "help"), ("Precedence", "list (comment)")],
         b"help\r\n"),
        ("precedence-bulk-comment-first", [("Subject", "help"),
                                           ("Precedence", "(x) Bulk")], b"help\r\n"),
        ("away-subject", [("Subject", "Away: Re: [18TN-1] OR 3.1")], b"I am away.\r\n"),
        ("ooo-subject", [("Subject", "OOO: [18TN-1] OR 3.1")], b"Back Monday.\r\n"),
        ("i-am-away-first-line", [("Subject", "Re: [18TN-1] OR 3.1")],
         b"I am away until the 3rd, with no access to mail.\r\n"),
        ("on-holiday-first-line", [("Subject", "Re: [18TN-1] OR 3.1")],
         b"I am on holiday.\r\n"),
    ]
    for index, (name, extra, body) in enumerate(cases):
        headers = [("From", f"auto{index}@example.org"), ("To", MODERATOR),
                   ("Message-ID", ids()), ("MIME-Version", "1.0"), *extra]
        yield Hostile(f"automatic/{name}", _mail(headers, body), None)


FAMILIES = (header_tricks, encodings, charsets, crlf_injection, huge_headers, broken_mime,
            nested_multiparts, address_forms, missing_and_duplicate, binary_junk,
            automatic_answers, costly_headers)


def corpus() -> list[Hostile]:
    """Every hostile mail, in a fixed order."""
    ids = _Ids()
    return [item for family in FAMILIES for item in family(ids)]


#: The quick sample the default run sends (the full corpus is `slow`): the two mails
#: of the issue and one or two of every family.
SAMPLE = (
    "header/crlf-in-encoded-name", "address/idn-both-parts", "header/bcc-in-encoded-name",
    "encoding/b64-junk", "charset/utf-8-lie", "charset/8bit-header-invalid-utf8",
    "crlf/bare-lf-lines", "crlf/crlf-in-references", "huge/subject-100k",
    "huge/message-id-10k", "mime/boundary-never-closed", "mime/html-deep-tags",
    "nested/mixed-150", "address/cyrillic", "address/two-ats", "missing/no-from",
    "missing/two-froms", "junk/random-3-", "junk/body-1mb-line",
    "automatic/calendar-accepted-multipart", "costly/content-type-params-over",
    "costly/subject-encoded-words-under", "address/encoded-word-whole-address",
    "address/cyrillic-a-in-latin", "address/rtl-override-local", "address/one-script-greek",
)


def sample() -> list[Hostile]:
    """The items SAMPLE names (a name ending in "-": the first that starts so)."""
    items = corpus()
    return [next(i for i in items if i.name == name or (name.endswith("-")
                                                         and i.name.startswith(name)))
            for name in SAMPLE]


def issue_31_costly_mails() -> list[Hostile]:
    """The four mails of issue 31, case 1, as big as there: a Content-Type of 150,000
    parameters (1.5 MB), a Subject of 100,000 encoded words (1.4 MB), Cc headers of
    20,000 and 100,000 addresses. Together a minute of CPU before the limits."""
    ids = _Ids()
    mails: list[tuple[str, str, str, str]] = [
        ("content-type-150k-params", "Content-Type",
         "text/plain; " + folded([f"p{i}=v" for i in range(150_000)], "; "),
         "header is 1,5"),
        ("subject-100k-encoded-words", "Subject",
         folded(["=?utf-8?q?x?="] * 100_000, " "), "header is 1,4"),
        ("cc-20k", "Cc", folded([f"r{i}@else.test" for i in range(20_000)], ", "),
         "cc header is"),
        ("cc-100k", "Cc", folded([f"r{i}@else.test" for i in range(100_000)], ", "),
         "header is 1,"),
    ]
    found = []
    for name, header, value, reason in mails:
        sender = f"issue31-{name}@evil.test"
        headers = [(k, v) for k, v in _standard(sender, ids) if k != header]
        found.append(Hostile(f"issue31/{name}", _mail([*headers, (header, value)]), None,
                             reason))
    return found
