"""A recorded game played again by mail (tests/test_mail_1850_game.py,
tests/test_mail_1861_game.py): each player mails his own orders in our order language
(the canonical text of each move), one mail per turn, through the real daemon, IMAP and
SMTP servers on loopback and a real SQLite file, from `create game` to the final scores.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from mailservers import Inboxes, daemon_settings, reply_to, running_daemon, send_mail, text_of

from engine.actions import Action, Done, Pass
from engine.game import Game, Move
from engine.records import import_record
from grammar.format import format_order
from grammar.names import names_for_title
from moderator import service
from moderator.mail.local import LocalMail
from moderator.store import Store

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"
FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
#: Seconds to wait for an answer: generous, not a speed claim (a loaded machine took
#: more than 30 s for one in a late 1861 operating round).
WAIT = 300


def seed_for(order: list[str]) -> int:
    """A seed under which the service seats the players in `order` (moderator.desk.lobby
    draws the seating with the game's seed) and the Priority Deal (drawn with the same
    seed, engine.rules.first_priority) goes to the first of them, as in the record."""
    return next(s for s in range(1, 10_000)
                if random.Random(s).sample(order, len(order)) == order
                and random.Random(s).choice(tuple(order)) == order[0])


def answers(message_id: str) -> Callable[[EmailMessage], bool]:
    """Whether a mail is the moderator's answer to MESSAGE_ID."""
    return lambda m: bool(m["In-Reply-To"] == message_id)


def scripted_moves(record: Path, players: list[str]) -> tuple[list[Move], dict[str, int]]:
    """The record's moves with its players renamed PLAYERS (in the record's order); and
    its final scores."""
    replay = import_record(json.loads(record.read_text()))
    seat = dict(zip(replay.game.setup.seats, players, strict=True))

    def renamed(action: Action) -> Action:
        changes = {f.name: seat[value] for f in dataclasses.fields(action)
                   if isinstance(value := getattr(action, f.name), str) and value in seat}
        return dataclasses.replace(action, **changes) if changes else action

    moves = [Move(seat[m.seat], renamed(m.action)) for m in replay.game.log]
    return moves, {seat[s]: v for s, v in replay.result.items()}


def followed(store: Store, game_id: str, game: Game, moves: list[Move], index: int
             ) -> tuple[Game, int]:
    """GAME with the moves stored since it, and the index of the record's next move.

    Each stored move is the record's next one, or a step the moderator passed itself
    because nobody had anything to decide at it (issue 30): a pass or `done` that
    stands for the record's next move when that is the same pass, or a pass or `done`
    that ended the turn the record's recorded `pass`/`done` was for; otherwise the
    record's next move is for a later step of the same turn, and still to come."""
    with game.reading_log():
        for logged in store.logged_moves(game_id, len(game.log)):
            move = logged.move
            before = game.turn()
            game.apply(move.seat, move.action)
            recorded = moves[index]
            if (move.seat, move.action) == (recorded.seat, recorded.action):
                index += 1
                continue
            assert isinstance(move.action, Pass | Done), (index, move, recorded)
            after = game.turn()
            assert before is not None
            if isinstance(recorded.action, Pass | Done) and (
                    after is None or (after.seat, after.entity) != (before.seat,
                                                                    before.entity)):
                index += 1
    return game, index


async def seat_by_mail(mail_servers: LocalMail, inboxes: Inboxes, create: str,
                       players: dict[str, str]) -> str:
    """The game master mails CREATE (`create game TITLE OPTIONS`) with the seed that
    seats PLAYERS (seat: address) in their order, invites them, each joins, and he
    starts it once everyone got the first report; the game's id."""
    await send_mail(mail_servers, GM, MODERATOR, "new game",
                    f"{create} seed={seed_for(list(players))}\n")
    created = await inboxes.wait(GM, lambda m: "game created" in str(m["Subject"]))
    game_id = str(created["X-Moderator-Game"])
    await reply_to(mail_servers, GM, created, "".join(
        f"invite {address} as {seat}\n" for seat, address in players.items()))
    for address in players.values():
        invitation = await inboxes.wait(address, lambda m: "invitation" in m["Subject"])
        await reply_to(mail_servers, address, invitation, "join\n")
    joined = f"{len(players)} of {len(players)} invited players have joined"
    await inboxes.wait(GM, lambda m: joined in text_of(m))
    await reply_to(mail_servers, GM, inboxes.latest(GM), "start")
    for address in players.values():
        await inboxes.wait(address, lambda m: m["X-Moderator-Move"] == "0")
    return game_id


async def play_by_mail(mail_servers: LocalMail, create: str, players: dict[str, str],
                       moves: list[Move], final: dict[str, int],
                       received: dict[str, list[EmailMessage]] | None = None) -> Game:
    """Create a game with the command CREATE (`create game TITLE OPTIONS`), seat PLAYERS
    (seat: address) in their order, mail MOVES turn by turn, and check that every player
    is mailed FINAL; returns the game as stored at its end. RECEIVED, if given, is filled
    with every mail each address got (address: mails), for the test to read."""
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    inboxes = Inboxes(mail_servers)
    try:
        async with running_daemon(config):
            game_id = await seat_by_mail(mail_servers, inboxes, create, players)
            # Players who want mail only on their turn, as plain text: a long game by
            # mail keeps the mailboxes light (the preferences of docs/orders.md).
            for address in (GM, *players.values()):
                await inboxes.refresh(address)
                latest = next(m for m in reversed(inboxes.messages(address))
                              if m["X-Moderator-Game"])
                sent = await reply_to(mail_servers, address, latest,
                                      "set reports none\nset format text\n")
                await inboxes.wait(address, answers(sent))
            store = Store(config.moderator.database)
            try:
                game = store.load(game_id)
                assert game.setup.seats == tuple(players)
                assert game.state.priority == next(iter(players))
                names = names_for_title(game.rules.title, game.setup.seats)
                mails = 0
                # The moderator passes the steps nobody has to decide (issue 30): the
                # record is followed past them (`followed`).
                game, done = followed(store, game_id, Game(game.setup), moves, 0)
                while not game.state.game_over:
                    seat = moves[done].seat
                    turn = game.turn()
                    assert turn is not None and turn.seat == seat, (done, turn)
                    lines = []
                    for move in moves[done:]:
                        if move.seat != seat:
                            break
                        lines.append(format_order(move.action, names))
                    address = players[seat]
                    await inboxes.refresh(address)
                    latest = next(m for m in reversed(inboxes.messages(address))
                                  if m["X-Moderator-Game"] == game_id)
                    sent = await reply_to(mail_servers, address, latest,
                                          f"move {len(game.log)}\n" + "\n".join(lines)
                                          + "\n")
                    answer = await inboxes.wait(address, answers(sent), timeout=WAIT)
                    assert "Applied." in text_of(answer), (done, lines, text_of(answer))
                    mails += 1
                    game, done = followed(store, game_id, game, moves, done)
                assert done == len(moves)  # every recorded move, by mail or skipped
                game = store.load(game_id)  # the stored game, rebuilt from its moves
                assert game.scores() == final
            finally:
                store.close()
            for address in (GM, *players.values()):
                mail = await inboxes.wait(address, lambda m: "Final scores" in text_of(m),
                                          timeout=WAIT)
                for seat, score in final.items():
                    assert f"  {seat:<16} {score:>6}" in text_of(mail)
            assert mails < len(moves)  # one mail per turn, not per order
            if received is not None:
                for address in (GM, *players.values()):
                    received[address] = inboxes.messages(address)
            return game
    finally:
        await inboxes.close()
