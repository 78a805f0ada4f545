"""`moderator bench mail --config FILE` against Dovecot and Postfix (issue 29, item 7):
the burst sent by the configured SMTP server with its login, read over IMAP with
STARTTLS, answered to the players' mailboxes; a mailbox holding unprocessed mail is
refused (the bench would answer it)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from mailservers import mailbox, run_cli, send_mail
from realmail import RealMail, config_file, unique_address

pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.slow,
              pytest.mark.timeout(300)]


async def test_bench_mail_measures_the_configured_servers(
        real_mail: RealMail, tmp_path: Path) -> None:
    moderator = unique_address("bench", "localhost")
    config = config_file(real_mail, tmp_path / "moderator.toml", moderator,
                         moderator={"order_window": 1.0})
    players = f"bench-{{n}}-{uuid.uuid4().hex[:6]}@example.org"
    result = await run_cli("bench", "mail", "--config", str(config), "--players", players,
                           "--mails", "8", "--at", "40", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"SMTP 127.0.0.1:{real_mail.ports.submission} (starttls) as {moderator}" in out
    assert "8 mails sent, 8 answered, 2 applied" in out, out
    assert "each mail waits order_window = 1 s" in out and "latency" in out
    # The configuration's own database was not used.
    assert not (tmp_path / "moderator.sqlite").exists()
    # Mail waiting in the folder: refused, nothing answered.
    sent = await send_mail(real_mail, "someone@example.org", moderator, "hello", "help\n")
    for _ in range(100):
        if any(m.message["Message-ID"] == sent for m in await mailbox(real_mail, moderator)):
            break
        await asyncio.sleep(0.1)
    refused = await run_cli("bench", "mail", "--config", str(config), "--players", players,
                            "--mails", "2", "--at", "40", timeout=120)
    assert refused.returncode == 1, refused.stdout
    assert "holds 1 unprocessed mail(s)" in refused.stderr, refused.stderr
    print(out)
