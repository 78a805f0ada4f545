"""A game by mail through Dovecot and Postfix (issue 29, item 8), and the servers
restarted in the middle of it.

The moderator reads its mailbox over IMAP with STARTTLS and sends on the submission
port with STARTTLS and a login, as an operator configures it against a real
provider; the players write to its plus-address (Postfix's recipient_delimiter) and
read their mail from Dovecot. Each test has its own addresses on the session's pair.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import (
    Inboxes,
    opening_orders,
    reply_to,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
)
from realmail import RealMail, moderator_config, unique_address

from moderator.config import Config
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.slow,
              pytest.mark.timeout(180)]

#: Seconds to wait for an answer (a loaded machine; not a speed claim).
WAIT = 60.0


def answers(message_id: str) -> object:
    return lambda m: m["In-Reply-To"] == message_id


async def set_up_by_mail(servers: RealMail, inboxes: Inboxes, moderator: str, gm: str,
                         players: dict[str, str]) -> str:
    """create game, invite, join, start -- all by mail; the game's id."""
    await send_mail(servers, gm, moderator, "new game", "create game 18TN seed=11\n")
    created = await inboxes.wait(gm, lambda m: "game created" in str(m["Subject"]), WAIT)
    # The game's address is the moderator's plus a tag: Postfix delivers it to the
    # moderator's mailbox (recipient_delimiter = +).
    assert "+" in str(created["Reply-To"])
    game_id = str(created["X-Moderator-Game"])
    await reply_to(servers, gm, created, "".join(
        f"invite {address} as {seat}\n" for seat, address in players.items()))
    for address in players.values():
        invitation = await inboxes.wait(address, lambda m: "invitation" in m["Subject"], WAIT)
        await reply_to(servers, address, invitation, "join\n")
    joined = f"{len(players)} of {len(players)} invited players have joined"
    await inboxes.wait(gm, lambda m: joined in text_of(m), WAIT)
    await reply_to(servers, gm, inboxes.latest(gm), "start")
    for address in players.values():
        await inboxes.wait(address, lambda m: m["X-Moderator-Move"] == "0", WAIT)
    return game_id


async def play_turn(servers: RealMail, inboxes: Inboxes, store: Store, game_id: str,
                    players: dict[str, str]) -> tuple[str, int]:
    """The player to move mails his scripted orders in answer to his latest report;
    returns the Message-ID sent and the move the game is at after them."""
    game = store.load(game_id)
    turn = game.turn()
    assert turn is not None
    address = players[turn.seat]
    await inboxes.refresh(address)
    latest = next(m for m in reversed(inboxes.messages(address))
                  if m["X-Moderator-Game"] == game_id)
    orders = opening_orders(game)
    sent = await reply_to(servers, address, latest, "\n".join(orders) + "\n")
    return sent, game.next_move


def reached(move: int) -> object:
    """A predicate: a report of the position after move MOVE - 1 or later."""
    return lambda m: (m["X-Moderator-Move"] or "").isdigit() and int(
        m["X-Moderator-Move"]) >= move


async def test_a_short_game_through_dovecot_and_postfix(
        real_mail: RealMail, tmp_path: Path) -> None:
    moderator = unique_address("moderator", "localhost")
    gm = unique_address("gm")
    players = {seat: unique_address(seat.lower()) for seat in ("Ann", "Bob", "Cy")}
    config = moderator_config(real_mail, tmp_path / "moderator", moderator)
    inboxes = Inboxes(real_mail)
    store = Store(config.moderator.database)
    try:
        async with running_daemon(config):
            game_id = await set_up_by_mail(real_mail, inboxes, moderator, gm, players)
            for _ in range(3):
                sent, before = await play_turn(real_mail, inboxes, store, game_id, players)
                answer = await wait_answer(inboxes, list(players.values()), sent)
                assert "Applied." in text_of(answer), text_of(answer)
                assert store.load(game_id).next_move > before
            after = store.load(game_id).next_move
            # Every player and the game master get the position after the last move.
            for address in (gm, *players.values()):
                await inboxes.wait(address, reached(after), WAIT)
    finally:
        await inboxes.close()
        store.close()
    # The moderator's mail went out with an envelope sender of its own per mail
    # (VERP): Dovecot's Return-Path shows it.
    paths = {str(m["Return-Path"]) for m in inboxes.messages(gm)}
    local = moderator.split("@")[0]
    assert all(f"{local}+bounce-" in path for path in paths), paths
    assert len(paths) == len(inboxes.messages(gm))


async def wait_answer(inboxes: Inboxes, addresses: list[str],
                      message_id: str) -> EmailMessage:
    """The moderator's answer to MESSAGE_ID, in the mailbox of one of ADDRESSES."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        for address in addresses:
            for stored in await inboxes.refresh(address):
                if stored.message["In-Reply-To"] == message_id:
                    return stored.message
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"no answer to {message_id}")
        await asyncio.sleep(0.1)


async def send_orders(servers: RealMail, config: Config, game_id: str, seat: str,
                      address: str, store: Store) -> tuple[str, int]:
    """SEAT's scripted orders, mailed to the seat's tagged address; the Message-ID and
    the move the game was at."""
    game = store.load(game_id)
    turn = game.turn()
    assert turn is not None and turn.seat == seat
    sent = await send_mail(servers, address, seat_address(config, game_id, seat),
                           f"[{game_id}]", "\n".join(opening_orders(game)) + "\n")
    return sent, game.next_move


async def test_the_servers_restart_in_the_middle_of_a_game(
        real_mail: RealMail, tmp_path: Path) -> None:
    """Dovecot and Postfix stop while a player's orders are on their way and start
    again: the orders are applied, every report arrives, nothing is lost or doubled."""
    moderator = unique_address("moderator", "localhost")
    gm = unique_address("gm")
    players = {seat: unique_address(seat.lower()) for seat in ("Ann", "Bob", "Cy")}
    config = moderator_config(real_mail, tmp_path / "moderator", moderator)
    game_id = seat_game(config, players, master=gm)
    inboxes = Inboxes(real_mail)
    store = Store(config.moderator.database)
    applied: list[int] = []
    try:
        async with running_daemon(config):
            for turn in range(3):
                seat = store.load(game_id).turn().seat  # type: ignore[union-attr]
                sent, before = await send_orders(real_mail, config, game_id, seat,
                                                 players[seat], store)
                if turn == 1:
                    # Postfix has the mail; both servers go down before (or while)
                    # it is delivered, read and answered.
                    real_mail.stop_dovecot()
                    real_mail.stop_postfix()
                    await asyncio.sleep(1.5)
                    real_mail.start_dovecot()
                    real_mail.start_postfix()
                    real_mail.flush_postfix()
                    await inboxes.close()  # the test's own IMAP sessions died too
                answer = await wait_answer(inboxes, [players[seat]], sent)
                assert "Applied." in text_of(answer), text_of(answer)
                applied.append(before)
            final = store.load(game_id).next_move
            for address in (gm, *players.values()):
                await inboxes.wait(address, reached(final), WAIT)
            counts = store.outbox_counts()
    finally:
        await inboxes.close()
        store.close()
    assert counts["failed"] == 0 and counts["queued"] == 0, counts
    # One mail per move each (each order mail applied once, its answer sent once).
    for address in players.values():
        ids = [m["Message-ID"] for m in inboxes.messages(address)]
        assert len(ids) == len(set(ids)), ids
    assert sorted(applied) == applied and len(set(applied)) == 3
