"""Crash recovery: the daemon killed (SIGKILL) at each step of processing a mail.

The daemon runs as a real `moderator serve --config` process against the test's mail
servers; MODERATOR_CRASH_AT makes it kill itself at a named point (moderator.crash).
After a restart the mail is applied exactly once, every report reaches every member,
and no member gets two different reports of the same change. (Killed after the SMTP
server accepted a mail but before it was marked sent, that one mail is sent again --
the same bytes with the same Message-ID: SMTP cannot do better, see moderator.mail.outbox.)
"""

from __future__ import annotations

import asyncio
import email
import email.policy
from pathlib import Path

import pytest
from mailservers import (
    MAIL_PATIENCE,
    daemon_process,
    seat_address,
    seat_game,
    send_mail,
    text_of,
    wait_for_mail,
    write_config,
)

from moderator import service
from moderator.config import load_config
from moderator.crash import CRASH_ENV, POINTS
from moderator.mail.local import LocalMail
from moderator.store import Store

# Two daemon starts and eight reports: 25 s on a loaded machine, so 180.
pytestmark = [pytest.mark.mail, pytest.mark.timeout(180)]

MODERATOR = service.MODERATOR_ADDRESS
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
MEMBERS = ("gm@example.org", *PLAYERS.values())


@pytest.mark.parametrize("point", POINTS)
async def test_killed_at_each_point_applies_once_and_reports_once(
    mail_servers: LocalMail, tmp_path: Path, point: str
) -> None:
    config_path = write_config(tmp_path / "moderator.toml", mail_servers, tmp_path)
    config = load_config(config_path)
    await mail_servers.ensure_mailbox(MODERATOR)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    first = store.load(game_id).turn()
    assert first is not None
    mover = PLAYERS[first.seat]

    async with daemon_process(config_path, **{CRASH_ENV: point}) as doomed:
        await send_mail(mail_servers, mover, seat_address(config, game_id, first.seat),
                        f"Re: [{game_id}] SR 1", "buy TCC\n")
        # SIGKILL, at POINT (after a start, a delivery and the work: a minute at most)
        assert await asyncio.wait_for(doomed.wait(), MAIL_PATIENCE) == -9

    async with daemon_process(config_path):
        for address in MEMBERS:  # every report arrives after the restart
            report = await wait_for_mail(mail_servers, address,
                                         predicate=lambda m: m["X-Moderator-Move"] == "1")
            assert f"{first.seat} buys TCC for $20" in text_of(report)
        # A second mail is processed normally after the restart.
        second = store.load(game_id).turn()
        assert second is not None
        await send_mail(mail_servers, PLAYERS[second.seat],
                        seat_address(config, game_id, second.seat), "Re: orders", "pass\n")
        for address in MEMBERS:
            await wait_for_mail(mail_servers, address,
                                predicate=lambda m: m["X-Moderator-Move"] == "2")

    assert len(store.moves(game_id)) == 2  # the first mail applied once, the second once
    assert store.execute("SELECT status, COUNT(*) FROM messages GROUP BY status") == [
        ("done", 2)]
    assert store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL") == [(0,)]
    assert store.execute("SELECT COUNT(*) FROM outbox") == [(8,)]  # 4 members x 2 changes
    sent: dict[tuple[str, str], list[str]] = {}  # (recipient, move) -> Message-IDs
    for _, rcpt, content in mail_servers.accepted:
        message = email.message_from_bytes(content, policy=email.policy.default)
        if message["X-Moderator-Move"] is not None:
            key = (rcpt, str(message["X-Moderator-Move"]))
            sent.setdefault(key, []).append(str(message["Message-ID"]))
    assert sorted(sent) == sorted((a, m) for a in MEMBERS for m in ("1", "2"))
    # One report per member and change; a mail sent again is the same mail.
    assert all(len(set(ids)) == 1 for ids in sent.values()), sent
    again = [key for key, ids in sent.items() if len(ids) > 1]
    if point == "sent":
        assert len(again) == 1  # only the one in doubt when the daemon died
    else:
        assert again == []
