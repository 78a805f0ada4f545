"""A director rehearses a tournament on one machine (issue 32): `moderator serve
--director` on the embedded servers, and every step by `moderator mail --as`, as the
README's walkthrough does it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from mailservers import run_cli, serve_subprocess

from moderator.cli import main

# Twelve mails by the CLI, a start each (some 7 s on a loaded machine): 400.
pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(400)]


async def test_a_small_tournament_rehearsed_on_the_embedded_service(tmp_path: Path) -> None:
    workdir = tmp_path / "moderator-data"
    async with serve_subprocess(workdir, "--director", "Dana@localhost") as served:
        assert "Tournament directors: dana@localhost" in served.banner

        async def mail(sender: str, *lines: str, new: bool = False) -> str:
            args = ["mail", "--workdir", str(workdir), "--as", sender, "--wait", "60"]
            sent = await run_cli(*args, *(["--new"] if new else []), *lines)
            assert sent.returncode == 0, sent.stderr
            return sent.stdout

        await mail("dana@localhost", "create tournament Try titles 18TN sizes 3 heats 1",
                   new=True)
        created = await mail("dana@localhost", "yes")  # the reply confirms it
        assert "tournament Try created" in created
        found = re.search(r"password ([a-z2-7]{16})", created)
        assert found is not None
        password = f"password {found.group(1)}"
        for player in ("ann", "bob", "cy"):
            await mail(f"{player}@localhost", "register Try", new=True)
            assert "entered in Try as a player" in await mail(f"{player}@localhost", "yes")
        started = await mail("dana@localhost", password, "close entry Try",
                             "start heat Try", new=True)
        assert "heat 1 of Try is seated at 1 table and started: 18TN-1" in started
        view = await mail("dana@localhost", password, "overview Try", new=True)
        assert "18TN-1 (18TN): move 0, Stock Round 1" in view
        warned = await mail("dana@localhost", password, "end table 18TN-1", new=True)
        assert "`end table 18TN-1 anyway`" in warned
        ended = await mail("dana@localhost", password, "end table 18TN-1 anyway", new=True)
        assert "18TN-1 ended and scored" in ended
        standings = await mail("ann@localhost", "standings Try", new=True)
        assert re.search(r"^\s+1\s+Ann\s+0\s+50\s+0\s+1$", standings, re.M), standings
        await served.stop()


def test_director_is_for_the_embedded_servers_only(tmp_path: Path) -> None:
    config = tmp_path / "moderator.toml"
    config.write_text("")
    result = CliRunner().invoke(main, ["serve", "--config", str(config), "--director",
                                       "ann@localhost"])
    assert result.exit_code == 2 and "tournament_directors" in result.output
    result = CliRunner().invoke(main, ["serve", "--director", "ann"])
    assert result.exit_code == 2 and "'ann' is not a mail address" in result.output
