"""End to end: a player mails the moderator, the daemon answers, over real servers.

(The skeleton's smoke tests, updated for the service: a mail about no known game
gets a polite threaded answer; configuration files are read.)"""

from __future__ import annotations

import asyncio
import io
import socket
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from mailservers import (
    assert_no_mail,
    daemon_settings,
    mailbox,
    run_cli,
    running_daemon,
    send_mail,
    serve_subprocess,
    text_of,
    wait_for_mail,
    wait_until_seen,
)

from moderator import service
from moderator.cli import main
from moderator.config import Config
from moderator.mail.local import LocalMail, free_port, port_is_free
from moderator.service import skip_reason

# A `moderator serve` and a `moderator mail` took 27 s on a loaded machine: 120.
pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

MODERATOR = service.MODERATOR_ADDRESS


def is_reply(message: EmailMessage) -> bool:
    return str(message.get("Subject", "")).startswith("Re:")


async def test_player_gets_a_threaded_auto_reply(
    mail_servers: LocalMail, moderator: Config
) -> None:
    sent_id = await send_mail(mail_servers, "Ann <ann@localhost>", "moderator+18TN-1@localhost",
                              "[18TN-1] stock round 2", "buy 1 B&O\n\npar PRR 67\n-- \nAnn\n")

    reply = await wait_for_mail(mail_servers, "ann@localhost", predicate=is_reply)

    assert reply["Subject"] == "Re: [18TN-1] stock round 2"
    assert parseaddr(str(reply["From"]))[1] == MODERATOR
    assert reply["To"] == "Ann <ann@localhost>"
    assert reply["In-Reply-To"] == sent_id
    assert reply["References"] == sent_id
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["X-Loop"] == MODERATOR
    assert "could not tell which game" in text_of(reply)  # there is no game 18TN-1
    original = await wait_until_seen(mail_servers, MODERATOR, sent_id)
    assert original.message["Delivered-To"] == "moderator+18TN-1@localhost"


async def test_automatic_mail_is_flagged_seen_but_never_answered(
    mail_servers: LocalMail, moderator: Config
) -> None:
    automatic = [
        ("ann@localhost", {"Auto-Submitted": "auto-replied"}, None),
        ("ann@localhost", {"Precedence": "bulk"}, None),
        ("ann@localhost", {"List-Id": "<players.18xx.localhost>"}, None),
        ("MAILER-DAEMON@localhost", {}, None),
        ("ann@localhost", {}, ""),  # a bounce: MAIL FROM:<>, so Return-Path: <>
    ]
    sent = [
        await send_mail(mail_servers, sender, MODERATOR, "Out of office", "I am away.\n",
                        headers, envelope_from=envelope_from)
        for sender, headers, envelope_from in automatic
    ]
    for message_id in sent:
        await wait_until_seen(mail_servers, MODERATOR, message_id)

    await assert_no_mail(mail_servers, "ann@localhost", within=0.3)

    # The daemon works through the INBOX in order, so once a later mail is answered
    # any answer to the automatic ones would have arrived before it.
    await send_mail(mail_servers, "ann@localhost", MODERATOR, "orders", "pass\n")
    await wait_for_mail(mail_servers, "ann@localhost", predicate=is_reply)
    assert [m.message["Subject"] for m in await mailbox(mail_servers, "ann@localhost")] == [
        "Re: orders"
    ]
    assert await mailbox(mail_servers, "MAILER-DAEMON@localhost") == []


@pytest.mark.timeout(150)  # two server starts and a send each, on a loaded machine
async def test_daemon_reconnects_when_the_mail_servers_restart(tmp_path: Path) -> None:
    imap_port, smtp_port = free_port(), free_port()

    def servers() -> LocalMail:
        return LocalMail(tmp_path / "mail", imap_port=imap_port, smtp_port=smtp_port)

    async with servers() as first:
        settings = await daemon_settings(first)
    async with running_daemon(settings):
        async with servers() as first:
            await send_mail(first, "ann@localhost", MODERATOR, "one", "pass\n")
            await wait_for_mail(first, "ann@localhost", predicate=is_reply)
        async with servers() as second:  # the daemon lost its IMAP connection meanwhile
            await send_mail(second, "ann@localhost", MODERATOR, "two", "pass\n")
            reply = await wait_for_mail(
                second, "ann@localhost", predicate=lambda m: m["Subject"] == "Re: two"
            )
            assert reply["Auto-Submitted"] == "auto-replied"


async def test_moderator_serve_subprocess_answers_moderator_mail(tmp_path: Path) -> None:
    workdir = tmp_path / "moderator-data"
    async with serve_subprocess(workdir) as served:
        mail = served.endpoints.mail
        assert MODERATOR in served.banner
        assert f"{mail.host}:{mail.smtp_port}" in served.banner
        assert f"{mail.host}:{mail.imap_port}" in served.banner
        assert '--as gm@example.org --new "create game 18TN"' in served.banner

        sent = await run_cli("mail", "--workdir", str(workdir), "--as", "gm@example.org",
                             "--wait", "60", "create game 18TN")
        assert sent.returncode == 0, sent.stderr
        assert MODERATOR in sent.stdout
        assert "Game 18TN-1 (18TN) is created" in sent.stdout  # the answer, printed

        reply = await wait_for_mail(served.servers, "gm@example.org")
        assert reply["Subject"] == "[18TN-1] game created"
        assert reply["Auto-Submitted"] == "auto-replied"

        returncode, printed = await served.stop()
        assert returncode == 0, "".join(served.stderr_lines)
        assert "Moderator stopped." in printed
    assert not (workdir / service.ENDPOINTS_FILE).exists()
    assert port_is_free(mail.host, mail.imap_port)  # pymap is gone too
    assert (workdir / "mail" / "moderator@localhost").is_dir()  # the mail stays on disk


async def test_serve_embedded_in_process_and_one_service_per_workdir(tmp_path: Path) -> None:
    workdir, printed, stop = tmp_path / "data", io.StringIO(), asyncio.Event()
    taken = socket.create_server(("127.0.0.1", 0))  # a preferred port that is in use
    taken_port = taken.getsockname()[1]
    serving = asyncio.create_task(service.serve_embedded(
        workdir, imap_port=taken_port, smtp_port=0, stop_event=stop, out=printed
    ))
    try:
        while not (workdir / service.ENDPOINTS_FILE).exists():
            assert not serving.done(), serving
            await asyncio.sleep(0.02)
        endpoints = service.read_endpoints(workdir)
        assert endpoints.moderator == MODERATOR
        assert endpoints.mail.imap_port != taken_port  # fell back to a free port
        assert f"{endpoints.mail.host}:{endpoints.mail.smtp_port}" in printed.getvalue()

        with pytest.raises(click.ClickException, match="already running"):
            await service.serve_embedded(workdir, imap_port=0, smtp_port=0,
                                         stop_event=asyncio.Event())
    finally:
        taken.close()
        stop.set()
        await asyncio.wait_for(serving, 10)
    assert "Moderator stopped." in printed.getvalue()
    assert not (workdir / service.ENDPOINTS_FILE).exists()


async def test_moderator_mail_without_a_running_service_says_so(tmp_path: Path) -> None:
    result = await run_cli("mail", "--workdir", str(tmp_path), "--as", "ann@localhost", "x")

    assert result.returncode == 1
    assert "no running service" in result.stderr


def test_serve_with_an_unusable_config_file_says_why(tmp_path: Path) -> None:
    config = tmp_path / "moderator.toml"
    config.write_text("")

    result = CliRunner().invoke(main, ["serve", "--config", str(config),
                                       "--workdir", str(tmp_path)])

    assert result.exit_code == 2
    assert "[imap] section is missing" in result.output
    assert not (tmp_path / "mail").exists()


# -- the pure steps, without servers ---------------------------------------------------------


def mail(headers: dict[str, str], body: str = "pass\n") -> EmailMessage:
    message = EmailMessage()
    message["From"] = "ann@localhost"
    message["To"] = MODERATOR
    message["Subject"] = "orders"
    for name, value in headers.items():
        del message[name]
        message[name] = value
    message.set_content(body)
    return message


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"Auto-Submitted": "auto-generated; owner-email=x@y"},
        {"Precedence": "Bulk"},
        {"Precedence": "junk"},
        {"Precedence": "list"},
        {"List-Id": "<list.example>"},
        {"From": "MAILER-DAEMON@example.org"},
        {"Return-Path": "<>"},
        {"Return-Path": "<mailer-daemon@example.org>"},
        {"X-Loop": MODERATOR},
        {"From": MODERATOR},
        {"From": "moderator+18TN-1@localhost"},
        {"From": "no address"},
    ],
)
def test_automatic_and_looping_mail_is_skipped(headers: dict[str, str]) -> None:
    assert skip_reason(mail(headers), MODERATOR) is not None


@pytest.mark.parametrize(
    "headers",
    [{}, {"Auto-Submitted": "no"}, {"Precedence": "first-class"},
     {"Return-Path": "<ann@localhost>"}],
)
def test_player_mail_is_answered(headers: dict[str, str]) -> None:
    assert skip_reason(mail(headers), MODERATOR) is None
