"""A game's webhook by mail, through the real mail servers and daemon (issue 19): the
game master sets it, each report's summary is posted to a real HTTP server on loopback
(allowed by the operator's setting), and a webhook that does not answer never holds
up the mail. Without the setting, an address on this machine is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mailservers import Inboxes, daemon_settings, running_daemon, send_mail, text_of
from test_mail_reports import Table, order_text, record_game
from webhookserver import hook_server

from moderator.config import Config
from moderator.desk.auth import MASTER_KEY, make_token, tag_address
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

GM = "gm@example.org"


@pytest_asyncio.fixture
async def inboxes(mail_servers: LocalMail) -> AsyncIterator[Inboxes]:
    boxes = Inboxes(mail_servers)
    yield boxes
    await boxes.close()


def settings(allow_private: bool) -> dict[str, dict[str, Any]]:
    return {"imap": {"idle": False, "poll_interval": 0.05},
            "moderator": {"webhook_allow_private": allow_private, "webhook_retry_min": 0.1,
                          "webhook_timeout": 60.0}}


async def as_master(servers: LocalMail, config: Config, table: Table, body: str) -> None:
    token = make_token(config.moderator.secret, table.game_id, MASTER_KEY)
    to = tag_address(config.moderator.address, table.game_id, MASTER_KEY, token)
    await send_mail(servers, GM, to, f"[{table.game_id}]", body)


async def test_each_report_is_posted_to_the_games_webhook(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **settings(allow_private=True))
    game = record_game()
    table = Table(config, game, 300)  # OR 5.2, TC (Player 1) to lay track
    seat, order = order_text(game, 300)
    async with hook_server(200) as server, running_daemon(config):
        await as_master(mail_servers, config, table, f"webhook {server.url} json\n")
        answer = await inboxes.wait(GM, lambda m: "webhook set" in text_of(m))
        assert "posted to 127.0.0.1 (json)" in text_of(answer)
        # The players are told where their game is posted (the URL, a key, is not).
        told = await inboxes.wait(table.seats["Player 2"],
                                  lambda m: "set a webhook" in text_of(m))
        assert server.url not in text_of(told)
        assert server.received == []  # setting it posts nothing
        await table.send(mail_servers, seat, order + "\n")
        report = await inboxes.wait(table.seats["Player 2"],
                                    lambda m: "next move 301" in text_of(m))
        [posted] = await server.wait_for(1)
        # The game master takes the move back: the next post says so.
        await as_master(mail_servers, config, table, "undo to move 300\n")
        _, undone = await server.wait_for(2)
    # (The log keeps the undone move and the undo; the post names the undo.)
    assert undone.json()["move"] == 302 and undone.json()["headline"] == "OR 5.2: TC to move"
    assert undone.json()["moves"] == ["#301 Player 1: Player 1 takes back the moves from "
                                      "move 300 on"]
    body = posted.json()
    assert body["game"] == table.game_id and body["move"] == 301
    assert body["moves"] == [f"#300 {seat}: " + "; ".join(
        table.store.logged_moves(table.game_id, 300)[0].said or ())]
    assert f"[{table.game_id}] {body['headline']}" in str(report["Subject"])
    assert body["to_move"] == table.store.load(table.game_id).turn().seat  # type: ignore[union-attr]


async def test_a_webhook_that_does_not_answer_does_not_hold_up_the_mail(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """The webhook takes the request and never answers while the reports go out: every
    player has the report of the move while the post is still waiting."""
    config = await daemon_settings(mail_servers, **settings(allow_private=True))
    game = record_game()
    table = Table(config, game, 300)
    seat, order = order_text(game, 300)
    async with hook_server("hang") as server, running_daemon(config):
        await as_master(mail_servers, config, table, f"webhook {server.url}\n")
        await inboxes.wait(GM, lambda m: "webhook set" in text_of(m))
        await table.send(mail_servers, seat, order + "\n")
        await server.wait_for(1)  # the post is made, and hangs
        for address in table.seats.values():
            await inboxes.wait(address, lambda m: "next move 301" in text_of(m))
        assert server.hanging == 1 and server.received == []
        # The next move's mail goes too, the first post still hanging.
        seat, order = order_text(game, 301)
        await table.send(mail_servers, seat, f"move 301\n{order}\n")
        await inboxes.wait(table.seats["Player 2"], lambda m: "next move 302" in text_of(m))
        assert server.received == []
        server.release()
        received = await server.wait_for(2)
    assert sorted(r.json()["move"] for r in received) == [301, 302]


async def test_the_webhook_is_the_game_masters_and_must_be_public(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """SSRF: by default an address on this machine is refused, with the reason; and only
    the game master sets a webhook."""
    config = await daemon_settings(mail_servers, **settings(allow_private=False))
    game = record_game()
    table = Table(config, game, 300)
    async with hook_server(200) as server, running_daemon(config):
        await as_master(mail_servers, config, table, f"webhook {server.url}\n")
        refused = await inboxes.wait(GM, lambda m: "private network" in text_of(m))
        assert "Nothing was applied" in text_of(refused) or "refused" in str(refused["Subject"])
        await as_master(mail_servers, config, table, "webhook ftp://example.org/x\n")
        await inboxes.wait(GM, lambda m: "must be an http or https URL" in text_of(m))
        await table.send(mail_servers, "Player 2", "webhook https://example.org/hook\n")
        await inboxes.wait(table.seats["Player 2"],
                           lambda m: "only the game master may `webhook`" in text_of(m))
        seat, order = order_text(game, 300)
        await table.send(mail_servers, seat, order + "\n")
        await inboxes.wait(table.seats["Player 2"], lambda m: "next move 301" in text_of(m))
    assert server.received == []
