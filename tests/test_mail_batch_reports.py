"""One report per reader for a batch of mail (issue 14, speed under a burst).

Several orders to one game fetched in one batch of the inbox: each sender gets their
reply at once, and every other member ONE report at the batch's end covering all of
the batch's moves (`moderator.desk.batching`). The reports a batch owes survive the
daemon's death: the next start sends them.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from mailservers import (
    at_move,
    daemon_settings,
    mailbox,
    opening_orders,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
    wait_for_mail,
)

from engine.game import Game
from moderator import service
from moderator.config import Config
from moderator.desk import batching
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

MODERATOR = service.MODERATOR_ADDRESS
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org",
           "Di": "di@example.org"}
MASTER = "gm@example.org"


def _orders(game: Game, count: int) -> list[tuple[str, str]]:
    """The next COUNT mails of a scripted opening: (seat, orders), one mail a turn."""
    from moderator.desk.orders import run_submission

    trial = game.clone()
    mails = []
    for _ in range(count):
        turn = trial.turn()
        assert turn is not None
        text = "\n".join(opening_orders(trial))
        assert run_submission(trial, turn.seat, text).ok
        mails.append((turn.seat, text))
    return mails



async def deliver_before_start(mail_servers: LocalMail, config: Config, game_id: str,
                               mails: list[tuple[str, str]]) -> None:
    """Each order mailed by its seat, all of them in the inbox before the daemon starts,
    so that its first fetch takes them as one batch."""
    for seat, text in mails:
        await send_mail(mail_servers, PLAYERS[seat], seat_address(config, game_id, seat),
                        f"Re: [{game_id}] orders", text + "\n")
    deadline = time.monotonic() + 60  # generous: a loaded machine delivers slowly
    while len(await mailbox(mail_servers, MODERATOR)) < len(mails):
        assert time.monotonic() < deadline, "the mails were not delivered"
        await asyncio.sleep(0.05)

async def test_a_batch_of_moves_gives_each_other_member_one_report(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    mails = _orders(store.load(game_id), 3)
    senders = {PLAYERS[seat] for seat, _ in mails}
    assert len(senders) == 3  # three players, one move each; the fourth only reads
    # All three are in the inbox before the daemon starts: its first fetch is one batch.
    await deliver_before_start(mail_servers, config, game_id, mails)
    async with running_daemon(config):
        for number, (seat, _) in enumerate(mails, 1):  # each sender's reply, at once
            await wait_for_mail(mail_servers, PLAYERS[seat],
                                predicate=at_move(number))
        reader = next(a for a in PLAYERS.values() if a not in senders)
        said = [line for move in store.logged_moves(game_id) for line in move.said or ()]
        assert len(said) >= 3
        for address in (reader, MASTER):
            report = await wait_for_mail(mail_servers, address,
                                         predicate=at_move(3))
            text = " ".join(text_of(report).split())
            for line in said:  # the batch's three moves in the one report
                assert " ".join(line.split()) in text, (line, text)
        # The first two senders are caught up too; the last one's reply showed move 3.
        for seat, _ in mails[:2]:
            await wait_for_mail(mail_servers, PLAYERS[seat],
                                predicate=at_move(3))
        deadline = time.monotonic() + 60
        while store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL") != [(0,)]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    assert len(store.moves(game_id)) == 3
    reports: dict[str, list[str]] = {}
    for address in (MASTER, *PLAYERS.values()):
        reports[address] = sorted(str(m.message["X-Moderator-Move"])
                                  for m in await mailbox(mail_servers, address))
    assert reports[reader] == ["3"]  # one report for the batch, not one per move
    assert reports[MASTER] == ["3"]
    last = PLAYERS[mails[2][0]]
    assert reports[last] == ["3"]  # the reply only
    for number, (seat, _) in enumerate(mails[:2], 1):
        assert reports[PLAYERS[seat]] == [str(number), "3"]  # the reply, then the report
    assert batching.owed(store) == []
    store.close()


async def test_reports_a_batch_owes_are_sent_after_the_daemon_died(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    (seat, text), = _orders(store.load(game_id), 1)
    # The mail processed as a batch's is, and the daemon gone before the batch's end.
    processor = Processor(store, ProcessorSettings.from_config(config.moderator))
    raw = (f"From: {PLAYERS[seat]}\nTo: {seat_address(config, game_id, seat)}\n"
           f"Subject: Re: [{game_id}] orders\nMessage-ID: <batch-died@example.org>\n\n"
           f"{text}\n").encode()
    key, _ = processor.receive(raw)
    assert processor.process(key, batch=True).queued == 1  # the reply alone
    assert batching.owed(store) == [game_id]
    async with running_daemon(config):
        for address in (MASTER, *PLAYERS.values()):
            report = await wait_for_mail(mail_servers, address,
                                         predicate=at_move(1))
            said = store.logged_moves(game_id)[0].said or ()
            assert said and all(" ".join(line.split()) in " ".join(text_of(report).split())
                                for line in said)
    assert batching.owed(store) == []
    assert len(store.moves(game_id)) == 1
    store.close()


async def test_a_batch_cut_short_sends_what_it_owes_and_its_rest_follows(
        mail_servers: LocalMail) -> None:
    """The database fails as the batch's third mail is recorded: the batch is cut
    short (the inbox reconnects after a pause). Meanwhile the retry loop sends the
    reports the first two moves owe; after the pause the third mail is fetched again
    and processed once, and its report follows. Nobody gets a report twice."""
    import sqlite3

    # The inbox waits 3 s before it fetches again: time for the retry loop (every
    # 0.2 s) to be seen sending the owed reports first.
    config = await daemon_settings(mail_servers,
                                   imap={"reconnect_min": 3.0, "reconnect_max": 3.0},
                                   moderator={"retry_min": 0.2})
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    mails = _orders(store.load(game_id), 3)
    await deliver_before_start(mail_servers, config, game_id, mails)
    received: list[bytes] = []

    def failing(processor: Processor) -> None:
        real = processor.receive

        def receive(raw: bytes, size: int | None = None,
                    kept_elsewhere: bool = False) -> tuple[str, bool]:
            received.append(raw)
            if len(received) == 3:  # the third mail, once
                raise sqlite3.OperationalError("disk I/O error")
            return real(raw, size, kept_elsewhere)

        processor.receive = receive  # type: ignore[method-assign]

    stop = asyncio.Event()
    daemon = asyncio.create_task(service.serve_forever(config, stop, started=failing))
    try:
        senders = {PLAYERS[seat] for seat, _ in mails}
        reader = next(a for a in PLAYERS.values() if a not in senders)
        for address in (reader, MASTER):
            await wait_for_mail(mail_servers, address, predicate=at_move(2))
        # Sent before the inbox fetched the third mail again.
        assert len(store.moves(game_id)) == 2
        assert len(received) == 3
        for address in (reader, MASTER):
            await wait_for_mail(mail_servers, address, predicate=at_move(3))
        await wait_for_mail(mail_servers, PLAYERS[mails[2][0]],
                            predicate=at_move(3))
        deadline = time.monotonic() + 60
        while store.execute("SELECT COUNT(*) FROM outbox WHERE sent IS NULL") != [(0,)]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(daemon, 30)
    assert len(store.moves(game_id)) == 3
    # The batch is flagged at its end: it is fetched again whole, the first two mails
    # known as done (not applied again), the third recorded and processed.
    assert len(received) == 6
    reports = {address: sorted(str(m.message["X-Moderator-Move"])
                               for m in await mailbox(mail_servers, address))
               for address in (MASTER, *PLAYERS.values())}
    assert reports[reader] == reports[MASTER] == ["2", "3"]  # the cut batch's, the third's
    first, second, third = (PLAYERS[seat] for seat, _ in mails)
    assert reports[first] == ["1", "2", "3"]  # their reply, then the two reports
    assert reports[second] == ["2", "3"]
    assert reports[third] == ["2", "3"]  # the cut batch's report, then their reply
    assert batching.owed(store) == []
    store.close()
