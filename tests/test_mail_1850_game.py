"""A whole game of 1850 played by mail, from `create game 1850` to the final scores.

The orders are those of the game recorded on 18xx.games (shared/fixtures/1850/115810,
804 actions): three players, a private sale, redemptions, price protection, edge
tokens, the Mesabi Range, private lays, the bank breaking. Each player mails his own
orders in our order language (the canonical text of each move), one mail per turn,
through the real daemon, IMAP and SMTP servers on loopback and a real SQLite file.
The game must end with the scores the site recorded.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import Inboxes, daemon_settings, reply_to, running_daemon, send_mail, text_of

from engine.actions import Action
from engine.game import Move
from engine.records import import_record
from grammar.format import format_order
from grammar.names import names_for_title
from moderator import service
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(1800)]

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
RECORD = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "1850" / "115810.json"


def seed_for(order: list[str]) -> int:
    """A seed under which the service seats the players in `order` (moderator.desk.lobby
    draws the seating with the game's seed) and the priority card (3.2, drawn with the
    same seed) goes to the first of them, as in the record."""
    return next(s for s in range(1, 10_000)
                if random.Random(s).sample(order, len(order)) == order
                and random.Random(s).choice(tuple(order)) == order[0])


def answers(message_id: str) -> Callable[[EmailMessage], bool]:
    """Whether a mail is the moderator's answer to MESSAGE_ID."""
    return lambda m: bool(m["In-Reply-To"] == message_id)


def scripted_moves() -> tuple[list[Move], dict[str, int]]:
    """The record's moves with its players renamed Ann, Bob, Cy; and its final scores."""
    replay = import_record(json.loads(RECORD.read_text()))
    seat = dict(zip(replay.game.setup.seats, PLAYERS, strict=True))

    def renamed(action: Action) -> Action:
        changes = {f.name: seat[value] for f in dataclasses.fields(action)
                   if isinstance(value := getattr(action, f.name), str) and value in seat}
        return dataclasses.replace(action, **changes) if changes else action

    moves = [Move(seat[m.seat], renamed(m.action)) for m in replay.game.log]
    return moves, {seat[s]: v for s, v in replay.result.items()}


async def test_a_whole_1850_game_by_mail_ends_with_the_recorded_scores(
        mail_servers: LocalMail) -> None:
    moves, final = scripted_moves()
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    inboxes = Inboxes(mail_servers)
    try:
        async with running_daemon(config):
            await send_mail(mail_servers, GM, MODERATOR, "new game",
                            f"create game 1850 seed={seed_for(list(PLAYERS))}\n")
            created = await inboxes.wait(GM, lambda m: "game created" in str(m["Subject"]))
            game_id = str(created["X-Moderator-Game"])
            await reply_to(mail_servers, GM, created, "".join(
                f"invite {address} as {seat}\n" for seat, address in PLAYERS.items()))
            for address in PLAYERS.values():
                invitation = await inboxes.wait(address, lambda m: "invitation" in m["Subject"])
                await reply_to(mail_servers, address, invitation, "join\n")
            await inboxes.wait(GM, lambda m: "3 of 3 invited players have joined" in text_of(m))
            await reply_to(mail_servers, GM, inboxes.latest(GM), "start")
            for address in PLAYERS.values():
                await inboxes.wait(address, lambda m: m["X-Moderator-Move"] == "0")
            # Players who want mail only on their turn, as plain text: a long game by
            # mail keeps the mailboxes light (the preferences of docs/orders.md).
            for address in (GM, *PLAYERS.values()):
                await inboxes.refresh(address)
                latest = next(m for m in reversed(inboxes.messages(address))
                              if m["X-Moderator-Game"])
                sent = await reply_to(mail_servers, address, latest,
                                      "set reports none\nset format text\n")
                await inboxes.wait(address, answers(sent))
            store = Store(config.moderator.database)
            try:
                game = store.load(game_id)
                assert game.setup.seats == tuple(PLAYERS)
                assert game.state.priority == "Ann"
                names = names_for_title(game.rules.title, game.setup.seats)
                mails = 0
                while not game.state.game_over:
                    done = len(game.log)
                    # The moderator plays the moves nobody needs to think about (a pass
                    # that is all a player may do): they must be the recorded ones.
                    assert [(m.seat, m.action) for m in game.log] == \
                        [(m.seat, m.action) for m in moves[:done]], done
                    seat = moves[done].seat
                    turn = game.turn()
                    assert turn is not None and turn.seat == seat, (done, turn)
                    lines = []
                    for move in moves[done:]:
                        if move.seat != seat:
                            break
                        lines.append(format_order(move.action, names))
                    address = PLAYERS[seat]
                    await inboxes.refresh(address)
                    latest = next(m for m in reversed(inboxes.messages(address))
                                  if m["X-Moderator-Game"] == game_id)
                    sent = await reply_to(mail_servers, address, latest,
                                          f"move {done}\n" + "\n".join(lines) + "\n")
                    answer = await inboxes.wait(address, answers(sent), timeout=30)
                    assert "Applied." in text_of(answer), (done, lines, text_of(answer))
                    mails += 1
                    game = store.load(game_id)
                assert [m.action for m in game.log] == [m.action for m in moves]
                assert game.scores() == final
                assert game.state.end_reason == "bank"
            finally:
                store.close()
            for address in (GM, *PLAYERS.values()):
                mail = await inboxes.wait(address, lambda m: "Final scores" in text_of(m),
                                          timeout=30)
                for seat, score in final.items():
                    assert f"  {seat:<16} {score:>6}" in text_of(mail)
            assert mails < len(moves)  # one mail per turn, not per order
    finally:
        await inboxes.close()
