"""Issue 14, item 1 without servers: how a failing mail is retried, backed off and
quarantined, and how an answer's header stays one header (tests/test_mail_hostile.py
has the same by mail)."""

from __future__ import annotations

import email
import email.policy
import sqlite3
from email.message import EmailMessage
from pathlib import Path

import pytest

from moderator.desk.processor import Processor, ProcessorSettings, RetryPolicy
from moderator.mail.compose import OutgoingMail, compose
from moderator.store import Store

MODERATOR = "moderator@example.org"


class Wall:
    """The daemon's real time, as the test sets it."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def mail(sender: str, body: str = "help\n", message_id: str = "<m1@example.org>") -> bytes:
    return (f"From: {sender}\r\nTo: {MODERATOR}\r\nSubject: orders\r\n"
            f"Message-ID: {message_id}\r\n\r\n{body}").encode()


@pytest.fixture
def failing(tmp_path: Path) -> tuple[Store, Processor, Wall]:
    store = Store(tmp_path / "moderator.sqlite")
    # The store refuses to finish poison's mail (a disk or a bug, in effect).
    store.execute("""CREATE TRIGGER refuse BEFORE UPDATE OF status ON messages
        WHEN NEW.status = 'done' AND NEW.sender = 'poison@example.org'
        AND NEW.outcome NOT LIKE 'quarantined%'
        BEGIN SELECT RAISE(ABORT, 'the disk said no'); END""")
    wall = Wall()
    processor = Processor(store, ProcessorSettings(address=MODERATOR, secret="s" * 20),
                          retry=RetryPolicy(attempts=4, min=10.0, max=25.0), wall=wall)
    return store, processor, wall


def test_the_wait_between_tries_doubles_up_to_its_limit() -> None:
    policy = RetryPolicy(attempts=9, min=10.0, max=60.0)
    assert [policy.delay(n) for n in range(1, 6)] == [10.0, 20.0, 40.0, 60.0, 60.0]


def test_a_failing_mail_waits_backs_off_and_is_quarantined_after_its_tries(
        failing: tuple[Store, Processor, Wall]) -> None:
    store, processor, wall = failing
    key, _ = processor.receive(mail("poison@example.org"))
    assert processor.process(key).status == "deferred"
    # The next mail is not held up.
    other, _ = processor.receive(mail("ann@example.org", message_id="<m2@example.org>"))
    assert processor.process(other).status == "processed"
    waits = []
    for _ in range(2):
        state = store.message_state(key)
        assert state is not None and state.retry_at is not None
        waits.append(state.retry_at - wall.now)
        wall.now = state.retry_at - 0.1
        assert processor.retry_due() == []  # not before its time
        wall.now = state.retry_at
        assert [o.status for o in processor.retry_due()] == ["deferred"]
    assert waits == [10.0, 20.0]
    wall.now += 25.0  # the fourth try is the last
    [outcome] = processor.retry_due()
    assert outcome.status == "failed" and "given up after 4 tries" in outcome.summary
    assert "the disk said no" in outcome.summary
    state = store.message_state(key)
    assert state is not None and state.quarantined is not None and state.failures == 3
    assert store.troubled_messages()[0].key == key
    notices = store.execute("SELECT raw FROM outbox WHERE recipient = 'poison@example.org'")
    assert len(notices) == 1
    # Released after the fix: tried from the start, and answered for real.
    store.execute("DROP TRIGGER refuse")
    assert store.release(key, wall.now)
    assert [o.status for o in processor.retry_due()] == ["processed"]
    assert len(store.execute("SELECT raw FROM outbox WHERE recipient = "
                             "'poison@example.org'")) == 2
    assert store.troubled_messages() == []


def test_start_up_tries_each_left_over_mail_once_and_goes_on(
        failing: tuple[Store, Processor, Wall]) -> None:
    _, processor, _ = failing
    processor.receive(mail("poison@example.org"))
    processor.receive(mail("ann@example.org", message_id="<m2@example.org>"))
    assert [o.status for o in processor.process_pending()] == ["deferred", "processed"]


def test_a_reused_message_id_with_other_content_is_another_mail(tmp_path: Path) -> None:
    store = Store(tmp_path / "moderator.sqlite")
    processor = Processor(store, ProcessorSettings(address=MODERATOR, secret="s" * 20))
    first, _ = processor.receive(mail("ann@example.org", "help\n"))
    again, done = processor.receive(mail("ann@example.org", "help\n"))
    other, new_done = processor.receive(mail("ann@example.org", "help orders\n"))
    assert first == again == "<m1@example.org>" and not done
    assert other.startswith("<m1@example.org> sha256:") and not new_done


def test_a_database_error_that_is_not_the_mail_s_still_reaches_the_caller(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "moderator.sqlite")
    processor = Processor(store, ProcessorSettings(address=MODERATOR, secret="s" * 20))
    store.execute("DROP TABLE messages")
    with pytest.raises(sqlite3.OperationalError):
        processor.receive(mail("ann@example.org"))


@pytest.mark.parametrize(("name", "to"), [
    ("Evil\r\nBcc: victim@else.test", "a@evil.test"),
    ("Jörg\nX", "jörg@xn--exmple-cua.org"),
])
def test_an_answer_header_cannot_be_split(name: str, to: str) -> None:
    raw = compose(OutgoingMail("reply", to, "Re: hi\r\nBcc: v@else.test", "text", "<p>x</p>",
                               to_name=name),
                  sender=MODERATOR, sender_name="18xx moderator", message_id="<a@b>", when=0)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    assert [k.lower() for k in message].count("bcc") == 0
    [address] = message["To"].addresses
    assert address.addr_spec.encode("utf-8", "surrogateescape").decode() == to
    assert "\n" not in address.display_name and "\n" not in str(message["Subject"])


def test_a_mail_that_kills_the_daemon_even_while_given_up_is_not_read_again(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "moderator.sqlite")
    processor = Processor(store, ProcessorSettings(address=MODERATOR, secret="s" * 20),
                          retry=RetryPolicy(attempts=2))
    key, _ = processor.receive(mail("deadly@example.org"))
    for _ in range(3):  # died twice processing it, and once more giving it up
        store.count_attempt(key)
    outcome = processor.process(key)
    assert outcome.status == "failed" and outcome.queued == 0  # no notice: not read
    state = store.message_state(key)
    assert state is not None and state.quarantined is not None
