"""Issue 31 (hostile mail, round three), by mail against the real servers (pymap IMAP,
aiosmtpd SMTP, the daemon in-process), one section per numbered case. Every test
ends with an ordinary `help` that must still be answered within the usual wait.

The helpers are those of `test_mail_hostile` (the corpus's own test); the cases that
join the corpus itself are in `hostile_corpus` (families `costly_headers`, ...).
"""

from __future__ import annotations

import asyncio
import ipaddress
import shlex
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib
import pytest
import pytest_asyncio
from hostile_corpus import MODERATOR, corpus, folded, issue_31_costly_mails
from mailservers import (
    MAIL_PATIENCE,
    daemon_settings,
    moderator_script,
    reply_to,
    run_cli,
    running_daemon,
    send_mail,
    serve_subprocess,
    text_of,
)
from test_mail_hostile import (
    QUICK_RETRY,
    answers_to,
    help_is_answered,
    message_rows,
    send_raw,
    sent,
    wait_for_answers,
)
from test_mail_processor import Harness
from test_mail_reports import Table, order_text, record_game
from test_mail_webhook import GM as WEBHOOK_GM
from test_mail_webhook import as_master
from test_mail_webhook import settings as webhook_settings
from webhookserver import hook_server

from moderator.config import Config
from moderator.mail import limits
from moderator.mail.local import LocalMail
from moderator.mail.parse import read_key
from moderator.mail.webhook import address_problem
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(180)]


@pytest_asyncio.fixture
async def daemon(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers, moderator=QUICK_RETRY)
    Store(config.moderator.database).close()
    async with running_daemon(config):
        yield config


async def quarantined_with(config: Config, key: str, timeout: float = MAIL_PATIENCE) -> str:
    """The reason KEY was quarantined with, once it is (fails after TIMEOUT)."""
    deadline = time.monotonic() + timeout
    while True:
        for row_key, _, outcome, when in message_rows(config):
            if row_key == key and when is not None:
                return outcome or ""
        assert time.monotonic() < deadline, f"{key} was not quarantined"
        await asyncio.sleep(0.05)


# -- case 1: bounded cost per mail -----------------------------------------------------------


@pytest.mark.slow
async def test_the_issues_costly_headers_are_refused_at_the_door_and_help_goes_on(
        mail_servers: LocalMail, daemon: Config) -> None:
    # Before the limits these four cost the moderator over a minute of CPU (31 s, 20 s,
    # ...) and pymap, the embedded IMAP server, 20-45 s at every FETCH: the embedded
    # SMTP server refuses them now, as a mail server's header limit does.
    for index, item in enumerate(issue_31_costly_mails()):
        with pytest.raises(aiosmtplib.SMTPDataError) as refused:
            await send_raw(mail_servers, item.raw, "attacker@evil.test")
        assert refused.value.code == 552 and item.quarantined in refused.value.message
        await help_is_answered(mail_servers, f"after{index}@example.org")
    assert {rcpt for rcpt, _ in sent(mail_servers)} == {
        f"after{i}@example.org" for i in range(4)}


async def test_costly_headers_stored_anyway_are_quarantined_unread(
        mail_servers: LocalMail, daemon: Config) -> None:
    # A mail server without such limits stores them: the moderator never parses them.
    costly = [i for i in corpus() if i.quarantined]
    assert len(costly) >= 5
    for index, item in enumerate(costly):
        await mail_servers.deliver("attacker@evil.test", MODERATOR, item.raw)
        await help_is_answered(mail_servers, f"after{index}@example.org")
        reason = await quarantined_with(daemon, read_key(item.raw)[0])
        assert "over the mail limits" in reason and item.quarantined in reason, reason
    # Nothing went to the (forged) senders.
    assert {rcpt for rcpt, _ in sent(mail_servers)} == {
        f"after{i}@example.org" for i in range(len(costly))}
    # The operator sees why.
    listed = await run_cli("quarantine", "list", "--db", str(daemon.moderator.database))
    assert "over the mail limits: a Content-Type header has 101 parameters" in listed.stdout


def test_a_mail_over_its_cpu_budget_is_quarantined_and_the_next_is_answered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # With the raw-byte limits lifted, only the budget is left to stop a Content-Type
    # of 20,000 parameters (about 2 CPU seconds in `email`'s parser). The processor on
    # a real store, not through the servers: pymap itself spends many seconds on such a
    # mail at every FETCH, up to minutes on a loaded machine, which made this flaky.
    monkeypatch.setattr(limits, "LIMITS", limits.Limits(
        header_section_bytes=10**9, header_bytes=10**9, parameters=10**9))
    h = Harness(tmp_path, mail_budget=0.5)
    costly = (b"From: slow@evil.test\r\nTo: moderator@example.org\r\nSubject: help\r\n"
              b"Message-ID: <budget-1@evil.test>\r\nMIME-Version: 1.0\r\nContent-Type: "
              + ("text/plain; " + folded([f"p{i}=v" for i in range(20_000)], "; ")).encode()
              + b"\r\n\r\nhelp\r\n")
    key = h.deliver(costly)
    [(outcome, quarantined)] = h.store.execute(
        "SELECT outcome, quarantined FROM messages WHERE key = ?", [key])
    assert quarantined is not None
    assert "went over the budget of 0.5 CPU seconds" in (outcome or ""), outcome
    assert h.outbox("slow@evil.test") == []
    h.send("after@example.org", "help\n")
    assert "help" in text_of(h.outbox("after@example.org")[-1]).lower()


def _spin(cpu_seconds: float) -> None:
    end = time.thread_time() + cpu_seconds
    while time.thread_time() < end:
        pass


class _CostlyFinalizer:
    """Spends its CPU in __del__, where CPython swallows an exception raised in it (as
    in a gc callback: what lost the budget's first OverBudget in a CI run)."""

    def __del__(self) -> None:
        _spin(0.6)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_budget_is_raised_again_when_its_first_delivery_was_swallowed() -> None:
    with pytest.raises(limits.OverBudget), limits.budget(0.2):
        _CostlyFinalizer()  # the budget runs out (and its raise is lost) in here
        _spin(2.0)          # ordinary code: the raise that lands


def test_the_budget_waits_until_a_finalizer_has_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # Raised inside a __del__ (or a gc or weakref callback, or the hook that reports
    # their errors, where a CI run saw it break pytest's hook), the exception would be
    # swallowed there: the budget waits until the thread has left such code.
    swallowed: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)
    with pytest.raises(limits.OverBudget), limits.budget(0.2):
        _CostlyFinalizer()  # the budget runs out in here
        _spin(2.0)          # and is raised here
    assert swallowed == []


def test_a_block_within_its_budget_is_not_interrupted_afterwards() -> None:
    with limits.budget(0.5):
        _spin(0.05)
    _spin(0.8)  # past the budget's end, outside the block: nothing may land here


def test_budgets_share_one_watching_thread_and_each_still_runs_out() -> None:
    """Every budget is watched by one long-lived thread (a thread started per mail
    cost the processing its start: issue 33); among many ended budgets, and beside
    another thread's budget that ends in time, the one that runs out still does."""
    for _ in range(30):
        with limits.budget(5.0):
            pass
    watchers = [t for t in threading.enumerate() if t.name == "mail-budget"]
    assert len(watchers) == 1
    outcome: list[str] = []

    def other() -> None:
        with limits.budget(3.0):
            _spin(0.3)
        outcome.append("within")

    beside = threading.Thread(target=other)
    beside.start()
    with pytest.raises(limits.OverBudget), limits.budget(0.2):
        _spin(2.0)
    beside.join()
    assert outcome == ["within"]
    assert [t for t in threading.enumerate() if t.name == "mail-budget"] == watchers


# -- cases 2 and 3: tournament entry and creation need the sender's mailbox -----------------

DIRECTOR = "dana@example.org"


@pytest_asyncio.fixture
async def directed(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers, moderator={
        **QUICK_RETRY, "tournament_directors": (DIRECTOR,), "tournaments_per_day": 2})
    async with running_daemon(config):
        yield config


def confirm_requests(servers: LocalMail, address: str) -> list[EmailMessage]:
    return [m for m in answers_to(servers, address) if "[confirm " in str(m["Subject"])]


async def test_a_forged_create_tournament_creates_nothing_and_the_director_confirms(
        mail_servers: LocalMail, directed: Config) -> None:
    store = Store(directed.moderator.database)
    # Forged in the director's name: the director is asked, nothing is created.
    forged = "create tournament Spring titles 18TN sizes 3-4 heats 1"
    await send_mail(mail_servers, DIRECTOR, MODERATOR, "new", forged + "\n",
                    envelope_from="mallory@evil.test")
    await wait_for_answers(mail_servers, [DIRECTOR])
    [asked] = confirm_requests(mail_servers, DIRECTOR)
    assert "waits for your confirmation" in text_of(asked)
    assert "password" not in text_of(asked).replace("password ...", "")
    assert store.tournament("Spring") is None
    # The same forged mail again: no second answer.
    await send_mail(mail_servers, DIRECTOR, MODERATOR, "new", forged + "\n")
    await help_is_answered(mail_servers)
    assert len(answers_to(mail_servers, DIRECTOR)) == 1
    # One mail of 50 create lines: refused whole (2 a day), nothing made, one answer.
    many = "".join(f"create tournament T{i} titles 18TN\n" for i in range(50))
    await send_mail(mail_servers, DIRECTOR, MODERATOR, "many", many)
    await help_is_answered(mail_servers, "after2@example.org")
    assert len(answers_to(mail_servers, DIRECTOR)) == 2
    assert "at most 2 tournaments a day" in text_of(answers_to(mail_servers, DIRECTOR)[-1])
    # The director's reply to the request creates it, and only then the password.
    await reply_to(mail_servers, DIRECTOR, asked, "yes\n")
    deadline = time.monotonic() + MAIL_PATIENCE
    while len(answers_to(mail_servers, DIRECTOR)) < 3:
        assert time.monotonic() < deadline, "the confirmation was not answered"
        await asyncio.sleep(0.05)
    created = text_of(answers_to(mail_servers, DIRECTOR)[-1])
    assert "tournament Spring created" in created and "director password" in created
    assert store.tournament("Spring") is not None
    # A second reply with the same token does nothing more.
    await reply_to(mail_servers, DIRECTOR, asked, "yes\n")
    await help_is_answered(mail_servers, "after3@example.org")
    assert "was confirmed already" in text_of(answers_to(mail_servers, DIRECTOR)[-1])
    store.close()


async def test_forged_registrations_seat_nobody_and_each_address_is_asked_once(
        mail_servers: LocalMail, directed: Config) -> None:
    store = Store(directed.moderator.database)
    await send_mail(mail_servers, DIRECTOR, MODERATOR, "new",
                    "create tournament Cup titles 18TN sizes 3-4 heats 1\n")
    await wait_for_answers(mail_servers, [DIRECTOR])
    await reply_to(mail_servers, DIRECTOR, confirm_requests(mail_servers, DIRECTOR)[0],
                   "yes\n")
    victims = [f"victim{i}@else.test" for i in range(12)]
    for victim in victims:  # forged From lines: twice each
        for _ in range(2):
            await send_mail(mail_servers, victim, MODERATOR, "entry", "register Cup\n",
                            envelope_from="mallory@evil.test")
    await help_is_answered(mail_servers)
    for victim in victims:  # one answer per request, and nobody entered
        assert len(answers_to(mail_servers, victim)) == 1, victim
    assert store.entrants("Cup") == []
    # A real player's reply enters them; a confirmation from another address does not.
    asked = confirm_requests(mail_servers, victims[0])[0]
    token = str(asked["Subject"]).split("[confirm ")[1][:10]
    await send_mail(mail_servers, "mallory@evil.test", MODERATOR, "x", f"confirm {token}\n")
    await wait_for_answers(mail_servers, ["mallory@evil.test"])
    assert "nothing waits for the confirmation" in text_of(
        answers_to(mail_servers, "mallory@evil.test")[0])
    await reply_to(mail_servers, victims[0], asked, "> register Cup\n")
    deadline = time.monotonic() + MAIL_PATIENCE
    while len(answers_to(mail_servers, victims[0])) < 2:
        assert time.monotonic() < deadline, "the confirmation was not answered"
        await asyncio.sleep(0.05)
    assert [e.address for e in store.entrants("Cup")] == [victims[0]]
    assert "you are entered in Cup" in text_of(answers_to(mail_servers, victims[0])[-1])
    await help_is_answered(mail_servers, "after2@example.org")
    store.close()


# -- cases 4 and 5: webhooks ------------------------------------------------------------------


async def test_one_games_hung_webhook_does_not_delay_another_games_posts(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers, **webhook_settings(allow_private=True))
    game = record_game()
    slow, quick = Table(config, game, 300), Table(config, game, 300)
    async with hook_server("hang") as hung, hook_server(200) as server, \
            running_daemon(config):
        await as_master(mail_servers, config, slow, f"webhook {hung.url}\n")
        await as_master(mail_servers, config, quick, f"webhook {server.url}\n")
        await wait_for_answers(mail_servers, [WEBHOOK_GM])
        for table in (slow, quick):  # the two hooks set
            deadline = time.monotonic() + MAIL_PATIENCE
            while webhook_of(table) is None:
                assert time.monotonic() < deadline, "the webhook was not set"
                await asyncio.sleep(0.05)
        # Game A moves twice: its first post hangs, the second waits behind it.
        seat, order = order_text(game, 300)
        await slow.send(mail_servers, seat, order + "\n")
        await hung.wait_for(1)
        seat, order = order_text(game, 301)
        await slow.send(mail_servers, seat, f"move 301\n{order}\n")
        deadline = time.monotonic() + MAIL_PATIENCE
        while slow.store.load(slow.game_id).next_move < 302:
            assert time.monotonic() < deadline, "game A's second move was not made"
            await asyncio.sleep(0.05)
        # Before issue 31 two shared workers took A's posts, and B waited for them.
        for move in (300, 301, 302):
            seat, order = order_text(game, move)
            await quick.send(mail_servers, seat, f"move {move}\n{order}\n")
            await server.wait_for(move - 299)
        assert [r.json()["move"] for r in server.received] == [301, 302, 303]
        assert hung.hanging == 1 and hung.received == []
        hung.release()
        await help_is_answered(mail_servers)


def webhook_of(table: Table) -> str | None:
    return table.store.meta(f"webhook:{table.game_id.casefold()}")


@pytest.mark.parametrize("url", [
    "http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://0177.0.0.1/",
    "http://0/", "http://localhost./", f"http://{socket.gethostname()}/hook"])
async def test_a_webhook_that_would_never_be_posted_to_is_refused_when_set(
        mail_servers: LocalMail, url: str) -> None:
    # The machine's own name resolves to a loopback or private address (/etc/hosts).
    assert all(address_problem(ipaddress.ip_address(i[4][0])) for i in
               socket.getaddrinfo(socket.gethostname(), 80))
    config = await daemon_settings(mail_servers, **webhook_settings(allow_private=False))
    table = Table(config, record_game(), 300)
    async with running_daemon(config):
        await as_master(mail_servers, config, table, f"webhook {url}\n")
        await wait_for_answers(mail_servers, [WEBHOOK_GM])
        text = " ".join(text_of(answers_to(mail_servers, WEBHOOK_GM)[0]).split())
        assert "webhook set" not in text
        assert "this machine or a private network" in text, text
        assert webhook_of(table) is None
        await help_is_answered(mail_servers)


# -- cases 8 and 9: what is an address ---------------------------------------------------------


async def test_look_alike_and_invisible_invitations_are_refused_with_the_reason(
        mail_servers: LocalMail, daemon: Config) -> None:
    gm = "gm@example.org"
    await send_mail(mail_servers, gm, MODERATOR, "new game", "create game 18TN\n")
    await wait_for_answers(mail_servers, [gm])
    created = answers_to(mail_servers, gm)[0]
    for address, reason in [("\u0430nn@example.org", "mixes letters of cyrillic and latin"),
                            ("da\u200bn@example.org", "invisible or direction-changing"),
                            ("\u202eevil@example.org", "invisible or direction-changing")]:
        count = len(answers_to(mail_servers, gm))
        await reply_to(mail_servers, gm, created, f"invite {address} as Ann\n")
        deadline = time.monotonic() + MAIL_PATIENCE
        while len(answers_to(mail_servers, gm)) == count:
            assert time.monotonic() < deadline, "the invitation was not answered"
            await asyncio.sleep(0.05)
        text = " ".join(text_of(answers_to(mail_servers, gm)[-1]).split())
        assert reason in text, text
    # Nobody was invited; one script stays allowed.
    ivan = "\u0438\u0432\u0430\u043d@example.org"
    await reply_to(mail_servers, gm, created, f"invite {ivan} as Ivan\n")
    await help_is_answered(mail_servers)
    invited = {rcpt for rcpt, _ in sent(mail_servers)} - {gm, "after@example.org"}
    assert invited == {ivan}, invited


# -- case 11: `moderator mail ... | head -3` -----------------------------------------------------


async def test_moderator_mail_into_a_closed_pipe_is_no_failed_send(tmp_path: Path) -> None:
    workdir = tmp_path / "moderator-data"
    async with serve_subprocess(workdir):
        # A real shell pipe: `head -3` leaves after three lines of the help's answer.
        command = (f"{shlex.quote(moderator_script())} mail --workdir "
                   f"{shlex.quote(str(workdir))} --as ann@example.org --wait 60 help "
                   "| head -3; echo \"status ${PIPESTATUS[0]}\"")
        process = await asyncio.create_subprocess_exec(
            "bash", "-c", command, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 120)
        assert "could not mail" not in err.decode() and "Traceback" not in err.decode()
        assert out.decode().splitlines()[-1] == "status 0", (out, err)
        # The mail went, and was answered.
        again = await run_cli("mail", "--workdir", str(workdir), "--as", "bob@example.org",
                              "--wait", "60", "help")
        assert again.returncode == 0 and "Subject:" in again.stdout


# -- case 11: one mail causes a few mails, each of a bounded size ----------------------------


async def test_a_hundred_help_lines_get_one_answer_of_a_few_topics(
        mail_servers: LocalMail, daemon: Config) -> None:
    # Before: 100 `help` lines gave a 0.52 MB answer. Each distinct topic is answered
    # once, at most three of them, in one mail.
    topics = ["", "lay", "buy", "run", "pay", "token"]
    lines = "".join(f"help {topics[i % len(topics)]}\n" for i in range(100))
    await send_mail(mail_servers, "victim@example.org", MODERATOR, "help", lines)
    await wait_for_answers(mail_servers, ["victim@example.org"])
    await help_is_answered(mail_servers)
    [answer] = answers_to(mail_servers, "victim@example.org")
    assert len(answer.as_bytes()) < 100_000
    assert "3 more help topics were asked; one mail answers 3" in text_of(answer)


async def test_twenty_create_game_lines_create_nothing_and_get_one_answer(
        mail_servers: LocalMail, daemon: Config) -> None:
    # Before: 20 `create game` lines from a From that may be forged made 20 games and
    # 20 mails to that address.
    lines = "create game 18TN\n" * 19 + "create game 1850\n"
    await send_mail(mail_servers, "victim@example.org", MODERATOR, "games", lines)
    await wait_for_answers(mail_servers, ["victim@example.org"])
    await help_is_answered(mail_servers)
    [answer] = answers_to(mail_servers, "victim@example.org")
    assert "asked for 2 `create game` lines" in text_of(answer)  # the 19 alike count once
    assert Store(daemon.moderator.database).games() == []
