"""Group commit (issue 33, item 4): the mails of a batch commit without a disk flush each,
their outgoing mail held until one flush makes the group durable; exactly once all the
same, the daemon killed (SIGKILL) at random moments of a burst."""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import random
import signal
import time
from pathlib import Path

import pytest
from mailservers import (
    daemon_process,
    mailbox,
    opening_orders,
    seat_address,
    seat_game,
    send_mail,
    write_config,
)

from engine.game import Game
from moderator import service
from moderator.config import ModeratorConfig, load_config
from moderator.desk.orders import run_submission
from moderator.desk.processor import GROUP_SECONDS, Processor, ProcessorSettings
from moderator.mail.local import LocalMail
from moderator.store import Store


def _help(number: int) -> bytes:
    """A stranger's `help`: answered by one reply."""
    return (f"From: ann@example.org\nTo: moderator@example.org\nSubject: help\n"
            f"Message-ID: <group-{number}@example.org>\n\nhelp\n").encode()


def _processor(path: Path, wall: list[float] | None = None
               ) -> tuple[Processor, Store, list[str]]:
    config = ModeratorConfig(address="moderator@example.org", secret="s",
                             database=path / "m.sqlite")
    store = Store(config.database)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    # The wall clock stands still unless the test moves it: the group is flushed by
    # the time it has been open only where a test says so.
    now = wall if wall is not None else [1000.0]
    return (Processor(store, ProcessorSettings.from_config(config), wall=lambda: now[0]),
            store, statements)


def _flushing_commits(statements: list[str]) -> int:
    """COMMITs made while synchronous was FULL (each waits for the disk)."""
    full, count = True, 0
    for statement in statements:
        said = statement.replace(" ", "").upper()
        if said.startswith("PRAGMASYNCHRONOUS="):
            full = said.endswith("=FULL")
        elif said == "COMMIT" and full:
            count += 1
    return count


def test_a_batchs_mails_wait_for_one_flush_and_their_replies_with_it(tmp_path: Path) -> None:
    processor, store, statements = _processor(tmp_path)
    processor.flush_reports()  # nothing held from an earlier run
    keys = [processor.receive(_help(n), kept_elsewhere=True)[0] for n in range(3)]
    statements.clear()
    durable = store.durable_commits
    for key in keys:
        assert processor.process(key, batch=True).queued == 1
    assert _flushing_commits(statements) == 0  # three commits, none waits for the disk
    assert store.durable_commits == durable  # the store's own count (the bench's) agrees
    other = Store(tmp_path / "m.sqlite")  # committed all the same: another connection
    assert other.execute("SELECT COUNT(*) FROM messages WHERE status = 'done'") == [(3,)]
    # ... but nothing may leave before the flush: the replies are held.
    assert other.execute("SELECT COUNT(*) FROM outbox") == [(3,)]
    assert other.due_mail(time.time() + 3600) == []
    assert other.next_mail_due() is None
    statements.clear()
    assert processor.flush_reports() == 3  # the sender has three mails to send
    assert _flushing_commits(statements) == 1  # one flush for the group
    assert store.durable_commits == durable + 1
    assert len(other.due_mail(time.time())) == 3
    assert processor.flush_reports() == 0  # nothing open: nothing written
    other.close()
    store.close()


def test_a_mail_processed_alone_still_commits_to_the_disk_and_goes_at_once(
        tmp_path: Path) -> None:
    processor, store, statements = _processor(tmp_path)
    processor.flush_reports()
    key, _ = processor.receive(_help(1))
    statements.clear()
    durable = store.durable_commits
    assert processor.process(key).queued == 1
    assert _flushing_commits(statements) == 1
    assert store.durable_commits == durable + 1
    assert len(store.due_mail(time.time())) == 1
    store.close()


def test_a_group_open_long_is_flushed_without_waiting_for_the_batchs_end(
        tmp_path: Path) -> None:
    wall = [1000.0]
    processor, store, _ = _processor(tmp_path, wall)
    processor.flush_reports()
    first, _ = processor.receive(_help(1), kept_elsewhere=True)
    second, _ = processor.receive(_help(2), kept_elsewhere=True)
    processor.process(first, batch=True)
    assert store.due_mail(time.time()) == []
    wall[0] += GROUP_SECONDS  # the group has been open long enough
    processor.process(second, batch=True)
    assert len(store.due_mail(time.time())) == 2  # both replies released, no batch end
    store.close()


def test_mail_held_when_the_daemon_died_is_released_when_it_starts_again(
        tmp_path: Path) -> None:
    processor, store, _ = _processor(tmp_path)
    processor.flush_reports()
    key, _ = processor.receive(_help(1), kept_elsewhere=True)
    processor.process(key, batch=True)
    store.close()  # gone before the batch's end: nothing flushed, nothing released
    again, store, _ = _processor(tmp_path)
    assert store.due_mail(time.time()) == []
    assert again.flush_reports() == 1  # the first flush of a new start releases it
    assert len(store.due_mail(time.time())) == 1
    store.close()


def test_a_groups_webhook_posts_wait_for_its_flush(tmp_path: Path) -> None:
    """A post tells the chat of a move: not before that move is on the disk."""
    from test_mail_processor import GM, PLAYERS, Harness

    from moderator.mail import webhook

    posts: list[webhook.Post] = []
    h = Harness(tmp_path, notify=posts.append)
    h.send(GM, "create game 18TN seed=5")
    h.reply(GM, h.last_to(GM), "\n".join(f"invite {a} as {s}" for s, a in PLAYERS.items()))
    for address in PLAYERS.values():
        h.reply(address, h.last_to(address), "join\n")
    h.reply(GM, h.last_to(GM), "webhook https://93.184.216.34/api/webhooks/1/abc discord\n")
    h.reply(GM, h.last_to(GM), "start\n")
    [started] = posts  # a mail processed alone: posted at its commit
    assert started.to_move is not None
    mover = PLAYERS[started.to_move]
    report = h.last_to(mover)
    message = h.mail(mover, "pass\n", to=str(report["Reply-To"]),
                     subject=f"Re: {report['Subject']}")
    message["In-Reply-To"] = str(report["Message-ID"])
    key, _ = h.processor.receive(message.as_bytes(), kept_elsewhere=True)
    assert h.processor.process(key, batch=True).status == "processed"
    assert h.store.moves(started.game_id) != []  # applied and committed ...
    assert posts == [started]  # ... but not on the disk yet: not posted
    h.processor.flush_reports()
    assert [p.move for p in posts] == [0, 1]
    h.store.close()


# -- the daemon killed at random moments of a burst ---------------------------------------

PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


def _burst(game: Game) -> tuple[list[tuple[str, str]], Game]:
    """Twelve mails: each turn's orders, then a refused `pass` from a player whose turn
    it is not; and the game as the burst leaves it."""
    trial = game.clone()
    mails: list[tuple[str, str]] = []
    for _ in range(6):
        turn = trial.turn()
        assert turn is not None
        text = "\n".join(opening_orders(trial))
        assert run_submission(trial, turn.seat, text).ok
        mails.append((turn.seat, text))
        after = trial.turn()
        assert after is not None
        mails.append((next(s for s in PLAYERS if s != after.seat), "pass"))
    return mails, trial


@pytest.mark.mail
@pytest.mark.slow
@pytest.mark.timeout(400)
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_killed_at_random_moments_of_a_burst_each_mail_counts_once(
        mail_servers: LocalMail, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    config_path = write_config(tmp_path / "moderator.toml", mail_servers, tmp_path,
                               moderator={"order_window": 0.0})
    config = load_config(config_path)
    await mail_servers.ensure_mailbox(service.MODERATOR_ADDRESS)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    mails, expected = _burst(store.load(game_id))
    sent: dict[str, str] = {}  # Message-ID: its sender
    for seat, text in mails:  # all in the inbox first: the daemon's first fetch is a batch
        sent[await send_mail(mail_servers, PLAYERS[seat], seat_address(config, game_id, seat),
                             f"Re: [{game_id}] orders", text + "\n")] = PLAYERS[seat]
    deadline = time.monotonic() + 60
    while len(await mailbox(mail_servers, service.MODERATOR_ADDRESS)) < len(mails):
        assert time.monotonic() < deadline, "the burst was not delivered"
        await asyncio.sleep(0.05)

    def done() -> int:
        return int(store.execute("SELECT COUNT(*) FROM messages WHERE status = 'done'")[0][0])

    # Killed twice, each time once a random number of the burst's mails is done (and a
    # random moment more): in a group's commits, its flush, its replies' sending.
    for _ in range(2):
        # (At most the whole burst: a first daemon may have done it all before its kill.)
        at = min(len(mails), done() + rng.randint(0, 3))
        async with daemon_process(config_path) as doomed:
            deadline = time.monotonic() + 120  # a start takes ~15 s on a loaded machine
            while done() < at and doomed.returncode is None:
                assert time.monotonic() < deadline, "the daemon processed nothing"
                await asyncio.sleep(0.005)
            await asyncio.sleep(rng.uniform(0.0, 0.3))
            os.kill(doomed.pid, signal.SIGKILL)
            assert await asyncio.wait_for(doomed.wait(), 30) == -9
    async with daemon_process(config_path):
        deadline = time.monotonic() + 90
        while done() < len(mails) or store.execute(
                "SELECT COUNT(*) FROM outbox WHERE sent IS NULL AND failed IS NULL") != [(0,)]:
            assert time.monotonic() < deadline, "the burst was not finished"
            await asyncio.sleep(0.05)

    # Every order applied once, in the order sent: the log is the burst's, no move twice.
    assert store.moves(game_id) == list(expected.log)
    keys = [row[0] for row in store.execute("SELECT key FROM messages ORDER BY rowid")]
    assert sorted(keys) == sorted(sent)
    # Each mail answered once: one reply queued, and only that one reaches its sender
    # (sent again after a kill between SMTP's answer and the mark: the same mail).
    replies = store.execute("SELECT cause, message_id FROM outbox WHERE kind = 'reply'")
    assert sorted(cause for cause, _ in replies) == sorted(sent)
    reply_ids = {message_id for _, message_id in replies}
    accepted: dict[str, set[str]] = {}
    for _, rcpt, content in mail_servers.accepted:
        message = email.message_from_bytes(content, policy=email.policy.default)
        answered = str(message.get("In-Reply-To", ""))
        if answered in sent:
            assert rcpt == sent[answered]
            accepted.setdefault(answered, set()).add(str(message["Message-ID"]))
    assert sorted(accepted) == sorted(sent)
    assert all(len(ids) == 1 and ids <= reply_ids for ids in accepted.values()), accepted
    store.close()
