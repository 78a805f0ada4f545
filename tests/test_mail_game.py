"""A game played only by mail, over the real IMAP and SMTP servers and the real daemon.

A game master creates an 18TN game by mail, invites three players, they join, the game
starts; then the whole first stock round and the first operating round are played by
replying to the moderator's reports. Every player receives every report, and the game
in the store equals the same orders applied through `apply_submission`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mailservers import (
    Inboxes,
    at_move,
    daemon_settings,
    opening_orders,
    reply_to,
    running_daemon,
    send_mail,
    text_of,
)

from engine.game import Game
from moderator import service
from moderator.config import Config
from moderator.desk.orders import apply_submission, run_submission
from moderator.mail.local import LocalMail
from moderator.store import Store

# A game by mail, some 36 s on a loaded machine: 240 leaves a margin.
pytestmark = [pytest.mark.mail, pytest.mark.timeout(240)]

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


@pytest_asyncio.fixture
async def moderator(mail_servers: LocalMail) -> AsyncIterator[Config]:
    """The daemon, polling every 50 ms: pymap's IDLE looks for new mail only once a
    second, which would make this long test slow (IDLE has its own tests)."""
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    async with running_daemon(config):
        yield config


async def set_up_by_mail(servers: LocalMail, inboxes: Inboxes) -> str:
    """create game, invite, join, start -- all by mail; the game's id."""
    await send_mail(servers, GM, MODERATOR, "new game", "create game 18TN seed=11\n")
    created = await inboxes.wait(GM, lambda m: m["Subject"] == "[18TN-1] game created")
    await reply_to(servers, GM, created,
                   "".join(f"invite {address} as {seat}\n" for seat, address in PLAYERS.items()))
    for seat, address in PLAYERS.items():
        invitation = await inboxes.wait(address, lambda m: "invitation" in m["Subject"])
        assert f"as {seat}." in text_of(invitation)
        await reply_to(servers, address, invitation, "join\n\n-- \nLooking forward to it!")
    for address in PLAYERS.values():
        joined = await inboxes.wait(address, lambda m: "you joined 18TN-1" in text_of(m))
        assert "refused" not in joined["Subject"], text_of(joined)
    await inboxes.wait(GM, lambda m: "3 of 3 invited players have joined" in text_of(m))
    await reply_to(servers, GM, inboxes.latest(GM), "start")
    return "18TN-1"


async def test_stock_round_and_first_operating_round_by_mail(
    mail_servers: LocalMail, moderator: Config, tmp_path: Path
) -> None:
    servers = mail_servers
    inboxes = Inboxes(servers)
    try:
        await play_the_opening(servers, inboxes, moderator, tmp_path)
    finally:
        await inboxes.close()


async def play_the_opening(servers: LocalMail, inboxes: Inboxes, moderator: Config,
                           tmp_path: Path) -> None:
    game_id = await set_up_by_mail(servers, inboxes)
    everyone = [GM, *PLAYERS.values()]
    for address in everyone:  # the first report
        first = await inboxes.wait(address, at_move(0))
        assert "Stock Round 1" in text_of(first)

    store = Store(moderator.moderator.database)
    setup = store.load(game_id).setup
    mirror = Game(setup)  # decides the orders, as the players would from the reports
    cli = Store(tmp_path / "cli.sqlite")  # the same orders through apply_submission
    cli_game = cli.create_game(setup)
    expected_moves = [0]
    mails = 0
    while not mirror.round_name.startswith("Stock Round 2"):
        turn = mirror.turn()
        assert turn is not None
        orders = opening_orders(mirror)
        sender = PLAYERS[turn.seat]
        report = inboxes.latest(sender)
        assert report["X-Moderator-Move"] == str(mirror.next_move)
        await reply_to(servers, sender, report, "\n".join(orders) + "\n")
        assert run_submission(mirror, turn.seat, "\n".join(orders)).ok
        assert apply_submission(cli, cli_game, turn.seat, orders).ok
        mails += 1
        expected_moves.append(mirror.next_move)
        answers = await asyncio.gather(*(inboxes.wait(address, at_move(mirror.next_move))
                                         for address in everyone))
        answer = answers[everyone.index(sender)]
        assert "Applied." in text_of(answer), text_of(answer)

    assert mails >= 25  # the stock round's privates and shares, then OR 1.1
    assert store.load(game_id).to_json() == mirror.to_json()
    assert store.moves(game_id) == cli.moves(cli_game)
    view = text_of(inboxes.latest(GM))
    assert "Stock Round 2" in view and "Tiles laid: " in view and "trains 2" in view
    for address in everyone:
        received = [m["X-Moderator-Move"] for m in inboxes.messages(address)
                    if m["X-Moderator-Move"] is not None]
        # every report exactly once, in order
        assert received == [str(n) for n in expected_moves], address
    # ... and the moderator sent each mail once (the mail system may still deliver a mail
    # twice: the same Message-ID, which mail programs show once).
    assert store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL OR attempts != 1"
                         ) == [(0,)]
    # Every mail of the game is in one thread.
    root = f"<{game_id}.thread@localhost>"
    assert all(root in str(m["References"]) for m in inboxes.messages(GM)
               if m["X-Moderator-Game"] == game_id)
