"""Issue 14, items 1 and 6, by mail against the real servers (pymap IMAP, aiosmtpd SMTP,
the daemon in-process): no mail stops the service, and every odd case gets a clear
answer (or, for automatic mail, none).

Every test ends by checking that an ordinary `help` sent after the hostile mail is
still answered. The corpus (tests/hostile_corpus.py) goes into the moderator's
mailbox by IMAP APPEND, as a mail server stores what it accepted (SMTP itself refuses
some of it, e.g. lines over 1000 bytes); the helps go by SMTP. Answers are read from
what the SMTP server accepted from the moderator (`LocalMail.accepted`): that counts
each answer once, for any address, including internationalised ones.

A mail that fails is made by the store refusing its commit (an SQLite trigger in the
real database -- no input fails any more, and a disk or a bug can still refuse one).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterable
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import aiosmtplib
import pytest
import pytest_asyncio
from hostile_corpus import MODERATOR, Hostile, corpus, sample
from mailservers import (
    MAIL_PATIENCE,
    SMTP_PATIENCE,
    daemon_settings,
    moderator_script,
    run_cli,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
    write_config,
)

from moderator.config import Config
from moderator.mail.bounce import BOUNCE_TAG
from moderator.mail.local import LocalMail
from moderator.mail.parse import read_key
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

#: Failing mail is retried at once and quarantined after three tries.
QUICK_RETRY = {"retry_min": 0.05, "retry_max": 0.2, "max_attempts": 3}


@pytest_asyncio.fixture
async def daemon(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers, moderator=QUICK_RETRY)
    Store(config.moderator.database).close()  # the schema, for the tests' triggers
    async with running_daemon(config):
        yield config


# -- helpers ------------------------------------------------------------------------------


def from_moderator(sender: str) -> bool:
    """Whether SENDER is the moderator's envelope sender: its address, or one of its
    bounce addresses (moderator+bounce-ID-MAC@..., one per mail: issue 29)."""
    local, _, domain = MODERATOR.rpartition("@")
    return sender == MODERATOR or (sender.startswith(f"{local}+{BOUNCE_TAG}-")
                                   and sender.endswith(f"@{domain}"))


def sent(servers: LocalMail) -> list[tuple[str, bytes]]:
    """(recipient, content) of every mail the SMTP server accepted from the moderator."""
    return [(rcpt, content) for sender, rcpt, content in servers.accepted
            if from_moderator(sender)]


def answers_to(servers: LocalMail, address: str) -> list[EmailMessage]:
    """What the SMTP server accepted from the moderator for ADDRESS, parsed."""
    found = []
    for rcpt, content in sent(servers):
        if rcpt.lower() == address.lower():
            message = email.message_from_bytes(content, policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            found.append(message)
    return found


async def wait_for_answers(servers: LocalMail, addresses: Iterable[str],
                           timeout: float = MAIL_PATIENCE) -> None:
    """Wait until every one of ADDRESSES has had an answer."""
    wanted = {a.lower() for a in addresses}
    deadline = time.monotonic() + timeout
    while True:
        missing = wanted - {rcpt.lower() for rcpt, _ in sent(servers)}
        if not missing:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(missing)} of {len(wanted)} not answered within "
                                 f"{timeout}s: {sorted(missing)[:10]}")
        await asyncio.sleep(0.05)


async def send_help(servers: LocalMail, sender: str) -> None:
    await send_mail(servers, sender, MODERATOR, "help", "help\n")


async def help_is_answered(servers: LocalMail, sender: str = "after@example.org") -> None:
    """The ordinary mail after the hostile one: still answered."""
    await send_help(servers, sender)
    await wait_for_answers(servers, [sender])
    assert "help" in text_of(answers_to(servers, sender)[-1]).lower()


async def send_raw(servers: LocalMail, raw: bytes, sender: str, rcpt: str = MODERATOR,
                   ) -> None:
    await aiosmtplib.send(raw, sender=sender, recipients=[rcpt], hostname=servers.host,
                          port=servers.smtp_port, local_hostname="localhost", timeout=SMTP_PATIENCE)


def message_rows(config: Config) -> list[tuple[str, str, str | None, float | None]]:
    store = Store(config.moderator.database)
    try:
        return [(str(r[0]), str(r[1]), r[2], r[3]) for r in store.execute(
            "SELECT key, status, outcome, quarantined FROM messages ORDER BY rowid")]
    finally:
        store.close()


def add_trigger(config: Config, sql: str) -> None:
    """Make the real database refuse something (a failing disk or a bug, in effect)."""
    conn = sqlite3.connect(config.moderator.database, timeout=30)
    try:
        conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def refuse_finishing(config: Config, sender: str) -> None:
    """Processing SENDER's mail fails at its commit; giving it up (quarantine) does not."""
    add_trigger(config, f"""
        CREATE TRIGGER refuse_{re.sub(r"[^a-z]", "_", sender)} BEFORE UPDATE OF status
        ON messages WHEN NEW.status = 'done' AND NEW.sender = '{sender}'
        AND NEW.outcome NOT LIKE 'quarantined%'
        BEGIN SELECT RAISE(ABORT, 'the disk said no'); END""")


def drop_triggers(config: Config) -> None:
    conn = sqlite3.connect(config.moderator.database, timeout=30)
    try:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'"):
            conn.execute(f"DROP TRIGGER {name}")
        conn.commit()
    finally:
        conn.close()


def assert_clean_headers(message: EmailMessage, to: str) -> None:
    """One To, the right one, and no header the sender's mail smuggled in."""
    names = [k.lower() for k in message]
    assert names.count("to") == 1 and "bcc" not in names and "cc" not in names, names
    addr = message["To"].addresses[0].addr_spec  # 8-bit header bytes come as surrogates
    assert addr.encode("utf-8", "surrogateescape").decode().lower() == to.lower()


async def corpus_through_the_service(servers: LocalMail, config: Config,
                                     items: list[Hostile]) -> None:
    """Each hostile mail followed by a `help`, all stored first (a burst), then: every
    help answered, every answerable hostile mail answered once at the right address,
    the others not at all, no mail left unprocessed or quarantined."""
    helpers = [f"helper{i}@example.org" for i in range(len(items))]
    for item, helper in zip(items, helpers, strict=True):
        await servers.deliver("attacker@evil.test", MODERATOR, item.raw)
        await send_help(servers, helper)
    expected = {i.answer_to for i in items if i.answer_to}
    # A generous wait, not a claim about speed (that is `moderator bench mail`'s).
    await wait_for_answers(servers, [*helpers, *expected], timeout=60 + len(items) * 1.5)
    # Processing is in order: once the last help is answered, all mail has been read.
    rows = message_rows(config)
    assert len(rows) >= 2 * len(items) - 5  # all (a junk mail may collide with another)
    assert [r for r in rows if r[1] != "done"] == []
    # Only the mails over a limit are quarantined, each with its reason, unanswered.
    over = {read_key(i.raw)[0]: i.quarantined for i in items if i.quarantined}
    given_up = {r[0]: r[2] or "" for r in rows if r[3] is not None}
    assert set(given_up) == set(over), (sorted(given_up), sorted(over))
    for key, reason in over.items():
        assert "over the mail limits" in given_up[key] and reason in given_up[key], (
            given_up[key], reason)
    answered = {rcpt.lower() for rcpt, _ in sent(servers)}
    assert answered == {h.lower() for h in helpers} | {e.lower() for e in expected}
    for item in items:
        if item.answer_to:
            mails = answers_to(servers, item.answer_to)
            assert len(mails) == 1, (item.name, len(mails))
            assert_clean_headers(mails[0], item.answer_to)


# -- item 1: no mail stops the service ---------------------------------------------------------


async def test_the_two_mails_of_the_issue_are_answered_and_the_next_too(
        mail_servers: LocalMail, daemon: Config) -> None:
    # A display name whose encoded form hides CR/LF: answered, the name made harmless.
    evil = (b"From: =?utf-8?q?Evil=0D=0Ax?= <a@evil.test>\r\nTo: moderator@localhost\r\n"
            b"Subject: help\r\nMessage-ID: <evil-1@evil.test>\r\n\r\nhelp\r\n")
    await send_raw(mail_servers, evil, "a@evil.test")
    # An internationalised address: a real answer, by SMTPUTF8, its domain in IDNA.
    message = EmailMessage(policy=email.policy.SMTPUTF8)
    message["From"] = "Jörg <jörg@exämple.org>"
    message["To"] = MODERATOR
    message["Subject"] = "Hilfe"
    message["Message-ID"] = make_msgid(domain="example.org")
    message["Date"] = formatdate()
    message.set_content("help\n")
    await aiosmtplib.send(message, sender="jörg@exämple.org", recipients=[MODERATOR],
                          hostname=mail_servers.host, port=mail_servers.smtp_port,
                          local_hostname="localhost", timeout=SMTP_PATIENCE)
    await wait_for_answers(mail_servers, ["a@evil.test", "jörg@xn--exmple-cua.org"])
    answer = answers_to(mail_servers, "a@evil.test")[0]
    assert_clean_headers(answer, "a@evil.test")
    assert answer["To"].addresses[0].display_name == "Evil x"
    jorg = answers_to(mail_servers, "jörg@xn--exmple-cua.org")[0]
    assert jorg["To"].addresses[0].display_name == "Jörg"
    assert "help" in text_of(jorg).lower()
    await help_is_answered(mail_servers)


async def test_a_sample_of_the_hostile_corpus_blocks_nothing(
        mail_servers: LocalMail, daemon: Config) -> None:
    await corpus_through_the_service(mail_servers, daemon, sample())


@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_the_whole_hostile_corpus_blocks_nothing(
        mail_servers: LocalMail, daemon: Config) -> None:
    items = corpus()
    assert len(items) >= 200
    started = time.monotonic()
    await corpus_through_the_service(mail_servers, daemon, items)
    print(f"{len(items)} hostile mails and {len(items)} helps answered in "
          f"{time.monotonic() - started:.1f}s")


async def test_a_failing_mail_is_retried_then_quarantined_answered_once_and_released(
        mail_servers: LocalMail, daemon: Config) -> None:
    refuse_finishing(daemon, "poison@example.org")
    await send_mail(mail_servers, "poison@example.org", MODERATOR, "my orders", "help\n")
    await help_is_answered(mail_servers)  # the mail behind it goes on meanwhile
    await wait_for_answers(mail_servers, ["poison@example.org"])
    notice = answers_to(mail_servers, "poison@example.org")
    assert len(notice) == 1
    text = text_of(notice[0])
    assert 'your mail "my orders"' in text and "internal error stopped it 3 times" in text
    assert "nothing of it was done" in text and "need not send it again" in text
    [row] = [r for r in message_rows(daemon) if r[3] is not None]
    assert "the disk said no" in (row[2] or "")

    # The operator sees it, with its error ...
    db = str(daemon.moderator.database)
    listed = await run_cli("quarantine", "list", "--db", db)
    assert listed.returncode == 0, listed.stderr
    assert "quarantined  from poison@example.org" in listed.stdout
    assert "the disk said no" in listed.stdout
    number = re.search(r"#(\d+)  quarantined", listed.stdout)
    assert number is not None
    shown = await run_cli("quarantine", "show", f"#{number.group(1)}", "--db", db)
    assert "Subject: my orders" in shown.stdout and "the disk said no" in shown.stdout
    # ... fixes the fault and releases it: the service answers it for real.
    drop_triggers(daemon)
    released = await run_cli("quarantine", "release", f"#{number.group(1)}", "--db", db)
    assert released.returncode == 0, released.stderr
    await wait_for_answers(mail_servers, ["poison@example.org"])
    deadline = time.monotonic() + MAIL_PATIENCE
    while len(answers_to(mail_servers, "poison@example.org")) < 2:
        assert time.monotonic() < deadline, "the released mail was not answered"
        await asyncio.sleep(0.05)
    assert "help" in text_of(answers_to(mail_servers, "poison@example.org")[1]).lower()
    after = await run_cli("quarantine", "list", "--db", db)
    assert "No mail is quarantined" in after.stdout
    await help_is_answered(mail_servers, "later@example.org")


async def test_when_not_even_the_notice_can_go_the_mail_is_quarantined_silently(
        mail_servers: LocalMail, daemon: Config) -> None:
    add_trigger(daemon, """
        CREATE TRIGGER mute BEFORE INSERT ON outbox_queue WHEN NEW.recipient = 'mute@example.org'
        BEGIN SELECT RAISE(ABORT, 'no mail to mute'); END""")
    await send_mail(mail_servers, "mute@example.org", MODERATOR, "help", "help\n")
    await help_is_answered(mail_servers)
    deadline = time.monotonic() + MAIL_PATIENCE
    while not [r for r in message_rows(daemon) if r[3] is not None]:
        assert time.monotonic() < deadline, "the mail was not quarantined"
        await asyncio.sleep(0.05)
    assert answers_to(mail_servers, "mute@example.org") == []
    await help_is_answered(mail_servers, "later@example.org")


async def test_start_up_never_fails_because_of_a_stored_mail(mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers, moderator=QUICK_RETRY)
    from moderator.desk.processor import Processor, ProcessorSettings

    # Left by earlier runs: a mail that fails whenever it is tried; one during which
    # the daemon died three times (given up without another try, its sender told);
    # one that killed it ten times, even while being given up (given up unread).
    store = Store(config.moderator.database)
    processor = Processor(store, ProcessorSettings.from_config(config.moderator))
    failing = (b"From: poison@example.org\r\nTo: moderator@localhost\r\nSubject: a\r\n"
               b"Message-ID: <stored-1@example.org>\r\n\r\nhelp\r\n")
    deadly = failing.replace(b"stored-1", b"stored-2").replace(b"poison", b"deadly")
    deadlier = failing.replace(b"stored-1", b"stored-3").replace(b"poison", b"deadlier")
    processor.receive(failing)
    for _ in range(3):
        processor.receive(deadly)
    for _ in range(10):
        processor.receive(deadlier)
    store.close()
    refuse_finishing(config, "poison@example.org")
    async with running_daemon(config):
        await help_is_answered(mail_servers)
        await wait_for_answers(mail_servers, ["poison@example.org", "deadly@example.org"])
    text = text_of(answers_to(mail_servers, "deadly@example.org")[0])
    assert "internal error stopped it 3 times" in text
    assert answers_to(mail_servers, "deadlier@example.org") == []
    assert {r[0] for r in message_rows(config) if r[3] is not None} == {
        "<stored-1@example.org>", "<stored-2@example.org>", "<stored-3@example.org>"}


# -- item 6: clear answers ------------------------------------------------------------------


async def test_a_one_megabyte_line_gets_a_clear_answer(
        mail_servers: LocalMail, daemon: Config) -> None:
    message = EmailMessage()
    message["From"] = "long@example.org"
    message["To"] = MODERATOR
    message["Subject"] = "orders"
    message["Message-ID"] = make_msgid()
    message.set_content("x" * 1_000_000, cte="quoted-printable")  # SMTP's 1000-byte lines
    await aiosmtplib.send(message, hostname=mail_servers.host, port=mail_servers.smtp_port,
                          local_hostname="localhost", timeout=SMTP_PATIENCE)
    await wait_for_answers(mail_servers, ["long@example.org"])
    text = " ".join(text_of(answers_to(mail_servers, "long@example.org")[0]).split())
    assert "its first line is 1,000,000 characters long" in text
    assert "its text is empty" not in text
    await help_is_answered(mail_servers)


async def test_a_reused_message_id_with_other_content_is_a_new_mail(
        mail_servers: LocalMail, daemon: Config) -> None:
    headers = {"Message-ID": "<reused@example.org>"}
    await send_mail(mail_servers, "reuse@example.org", MODERATOR, "one", "help\n", headers)
    await wait_for_answers(mail_servers, ["reuse@example.org"])
    # The same Message-ID on a mail that says something else: answered.
    await send_mail(mail_servers, "reuse@example.org", MODERATOR, "two", "help orders\n",
                    headers)
    deadline = time.monotonic() + MAIL_PATIENCE
    while len(answers_to(mail_servers, "reuse@example.org")) < 2:
        assert time.monotonic() < deadline, "the second mail was not answered"
        await asyncio.sleep(0.05)
    # The first mail delivered again (same Message-ID, same content): recognised.
    first = (b"From: reuse@example.org\r\nTo: moderator@localhost\r\nSubject: one\r\n"
             b"Date: Tue, 24 Nov 2026 10:00:00 +0000\r\nMessage-ID: <reused@example.org>"
             b"\r\n\r\nhelp\r\n")
    await mail_servers.deliver("reuse@example.org", MODERATOR, first)
    await mail_servers.deliver("reuse@example.org", MODERATOR, first)
    await help_is_answered(mail_servers)
    assert len(answers_to(mail_servers, "reuse@example.org")) == 3  # the again-delivered
    assert len(answers_to(mail_servers, "reuse@example.org")) == 3  # ... only once
    keys = [r[0] for r in message_rows(daemon) if r[0].startswith("<reused@")]
    assert len(keys) == 3 and len(set(keys)) == 3


async def test_a_wrong_from_is_told_what_to_do_without_the_seat_address(
        mail_servers: LocalMail, daemon: Config) -> None:
    players = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
    game_id = seat_game(daemon, players)
    # A leaked reply address (it carries Ann's password), used from another address.
    for seat in players:
        await send_mail(mail_servers, "mallory@evil.test",
                        seat_address(daemon, game_id, seat), f"Re: [{game_id}]", "pass\n")
    await wait_for_answers(mail_servers, ["mallory@evil.test", *players.values()])
    for mail in answers_to(mail_servers, "mallory@evil.test"):
        raw = mail.as_string()
        assert not any(address in raw for address in players.values())
        text = " ".join(text_of(mail).split())
        assert "is not registered for it, so nothing was done" in text
        assert "invite mallory@evil.test as" in text
    assert "came from an address that is not" in text_of(
        answers_to(mail_servers, "ann@example.org")[0])
    await help_is_answered(mail_servers)


async def test_calendar_answers_and_plain_auto_replies_are_ignored(
        mail_servers: LocalMail, daemon: Config) -> None:
    automatic = [i for i in corpus() if i.name.startswith("automatic/")]
    for index, item in enumerate(automatic):
        await send_raw(mail_servers, item.raw, f"auto{index}@example.org")
    await help_is_answered(mail_servers)
    # The help came after them: they were read, and not answered.
    assert {rcpt for rcpt, _ in sent(mail_servers)} == {"after@example.org"}
    outcomes = [r[2] or "" for r in message_rows(daemon)][:len(automatic)]
    assert all(o.startswith("skipped: ") for o in outcomes), outcomes
    assert any("calendar" in o for o in outcomes) and any("auto-reply" in o for o in outcomes)


def _as_nobody() -> list[str]:
    """Run a command as an unprivileged user (root writes read-only files)."""
    return (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            if os.geteuid() == 0 else [])


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="needs setpriv to drop root")
async def test_an_unwritable_database_stops_the_start_with_one_sentence(
        mail_servers: LocalMail, daemon: Config) -> None:
    folder = Path(tempfile.mkdtemp(prefix="readonly-db-"))
    try:
        folder.chmod(0o755)
        database = folder / "moderator.sqlite"
        Store(database).close()
        database.chmod(0o444)
        for name in ("moderator.sqlite-wal", "moderator.sqlite-shm"):
            (folder / name).unlink(missing_ok=True)
        config = write_config(folder / "moderator.toml", mail_servers, folder)
        config.chmod(0o644)
        result = subprocess.run(
            [*_as_nobody(), moderator_script(), "serve", "--config", str(config)],
            capture_output=True, text=True, timeout=60, cwd=folder,
            env={**os.environ, "HOME": str(folder)})
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        error = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(error) == 1 and error[0].startswith("Error: the database "), error
        assert "read-only for this user" in error[0]
        # Unwritable in another way: its folder does not exist and cannot be made.
        blocked = folder / "a-file"
        blocked.write_text("")
        bad = write_config(folder / "bad.toml", mail_servers, blocked)
        result = subprocess.run([moderator_script(), "serve", "--config", str(bad)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "cannot be opened or created" in result.stderr
    finally:
        for path in folder.rglob("*"):
            path.chmod(stat.S_IRUSR | stat.S_IWUSR)
        shutil.rmtree(folder)
    await help_is_answered(mail_servers)  # the service on a usable database answers
