"""A newcomer on one machine: `moderator serve` on its embedded defaults, and a game set
up and begun with nothing but `moderator mail` (which replies as a mail program would)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mailservers import run_cli, serve_subprocess

from moderator.store import Store

# A CLI start per mail, seven mails: some 50 s on a loaded machine, so 300.
pytestmark = [pytest.mark.mail, pytest.mark.timeout(300)]


async def test_a_game_set_up_and_played_with_moderator_mail(tmp_path: Path) -> None:
    workdir = tmp_path / "moderator-data"
    async with serve_subprocess(workdir):

        async def mail(sender: str, *lines: str) -> str:
            result = await run_cli("mail", "--workdir", str(workdir), "--as", sender,
                                   "--wait", "60", *lines)
            assert result.returncode == 0, result.stderr
            assert "No answer within" not in result.stdout, result.stdout
            return result.stdout

        created = await mail("gm@example.org", "create game 18TN seed=3")
        assert "as a new mail" in created and "Game 18TN-1 (18TN) is created" in created
        invited = await mail("gm@example.org", "invite ann@example.org as Ann",
                             "invite bob@example.org as Bob", "invite cy@example.org as Cy")
        assert 'in reply to "[18TN-1] game created"' in invited
        assert "invitation sent to cy@example.org for the seat Cy" in invited
        for player in ("ann", "bob", "cy"):
            joined = await mail(f"{player}@example.org", "join")
            assert "you joined 18TN-1" in joined
        started = await mail("gm@example.org", "start")
        assert "the game starts; seating order" in started

        store = Store(workdir / "moderator.sqlite")  # the CLI commands' default database
        turn = store.load("18TN-1").turn()
        assert turn is not None
        moved = await mail(f"{turn.seat.lower()}@example.org", "buy TCC")
        assert f"ok: {turn.seat} buys TCC for $20" in moved and "Applied." in moved
        assert len(store.moves("18TN-1")) == 1
