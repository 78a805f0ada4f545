"""Each header value is parsed into its header object once (issue 14, speed under a
burst): `parse_incoming` keeps the objects `email`'s default policy makes, which it
would otherwise make again at every read. What a mail is read as must not change:
every mail of the hostile corpus is read the same with the kept objects (read twice,
so the second reading takes them all from what the first kept) as with the plain
default policy."""

from __future__ import annotations

import email.policy

import pytest
from hostile_corpus import MODERATOR, corpus

from moderator.mail import parse


def test_every_hostile_mail_is_read_as_the_default_policy_reads_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mails = corpus()
    assert len(mails) >= 200
    first = [parse.parse_incoming(m.raw, MODERATOR) for m in mails]
    second = [parse.parse_incoming(m.raw, MODERATOR) for m in mails]
    monkeypatch.setattr(parse, "_POLICY", email.policy.default)
    plain = [parse.parse_incoming(m.raw, MODERATOR) for m in mails]
    for mail, a, b, c in zip(mails, first, second, plain, strict=True):
        assert a == c, mail.name
        assert b == c, mail.name
    # The kept objects were used: a second reading found its values kept.
    assert parse._PARSED


def test_a_kept_header_is_the_header_a_new_parse_gives() -> None:
    policy = parse._POLICY
    value = "text/plain; charset=\"utf-8\"; format=flowed"
    kept = policy.header_fetch_parse("Content-Type", value)
    again = policy.header_fetch_parse("Content-Type", value)
    fresh = email.policy.default.header_fetch_parse("Content-Type", value)
    assert again is kept
    assert (kept.content_type, dict(kept.params)) == (fresh.content_type, dict(fresh.params))
    other = policy.header_fetch_parse("Content-Type", "text/html")
    assert other.content_type == "text/html"
