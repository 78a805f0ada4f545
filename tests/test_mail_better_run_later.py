"""Issue 33: a declared run is applied and answered at once; the search for a better
run (18TN 4.2.3.1) runs after the answer has gone, and what it finds is told in the
next report of everyone who saw the run without it, once (moderator.desk.later)."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import time
from pathlib import Path

import pytest
from mailservers import (
    MAIL_PATIENCE,
    daemon_settings,
    running_daemon,
    send_mail,
    text_of,
    wait_for_mail,
)

from engine.actions import RunRoutes
from engine.game import Game
from engine.records import import_record
from moderator.cli.bench_mail import BurstMail, burst, burst_message, seated_game
from moderator.config import ModeratorConfig
from moderator.desk.auth import make_token
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.mail.local import LocalMail
from moderator.store import Store

RECORD = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
RUN = 177  # a declared run of $60 where $70 was open (the engine test's first)
NOTE = "the best run for "


def _texts(store: Store, since: int) -> dict[str, list[str]]:
    """The plain texts of the outbox's mails after row SINCE, by recipient."""
    out: dict[str, list[str]] = {}
    for recipient, raw in store.execute(
            "SELECT recipient, raw FROM outbox WHERE id > ? ORDER BY id", [since]):
        message = email.message_from_bytes(bytes(raw), policy=email.policy.default)
        body = message.get_body(("plain",))
        assert body is not None
        out.setdefault(recipient, []).append(str(body.get_content()))  # type: ignore[attr-defined]
    return out


def _last_id(store: Store) -> int:
    return int(store.execute("SELECT COALESCE(MAX(id), 0) FROM outbox")[0][0])


def test_the_engine_leaves_the_search_to_its_caller_and_finds_the_same() -> None:
    whole = import_record(json.loads(RECORD.read_text())).game
    move = whole.log[RUN]
    assert isinstance(move.action, RunRoutes)
    at_once = Game(whole.setup, whole.log[:RUN])
    told = [line for line in at_once.apply(move.seat, move.action) if line.startswith(NOTE)]
    assert len(told) == 1 and "$70" in told[0]
    later = Game(whole.setup, whole.log[:RUN])
    later.declared_runs = []
    said = later.apply(move.seat, move.action)
    assert not any(line.startswith(NOTE) for line in said)
    (run,) = later.declared_runs
    assert run.move == RUN and run.action == move.action
    assert run.better_run(later.rules) == told[0]  # proven either way here
    # A fork hands the declared run to the copy; the game forked from keeps none.
    forked = Game(whole.setup, whole.log[:RUN])
    forked.declared_runs = []
    copy, _ = forked.fork(move.seat, move.action)
    assert forked.declared_runs == [] and copy.declared_runs is not None
    assert [r.move for r in copy.declared_runs] == [RUN]


def test_the_answer_goes_first_and_everyone_is_told_the_better_run_once(
        tmp_path: Path) -> None:
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORD, RUN)
    processor = Processor(store, ProcessorSettings.from_config(config))
    declarer = addresses[whole.log[RUN].seat]
    members = {m.address for m in store.members(game_id) if m.status == "active"}

    def send(number: int) -> None:
        (mail,) = burst(game_id, whole, number, 1, 1)
        key, _ = processor.receive(burst_message(mail, game_id, addresses, config.address,
                                                 config.secret).as_bytes(),
                                   kept_elsewhere=True)
        assert processor.process(key, batch=True).status == "processed"

    first = _last_id(store)
    send(RUN)
    # The answer is made without the search: no note in it, none under the move yet.
    (reply,) = _texts(store, first)[declarer]
    assert "runs for $60" in reply and NOTE not in reply
    assert not any(line.startswith(NOTE) for line in store.logged_moves(game_id, RUN)[0].said
                   or ())
    processor.flush_reports()  # the batch's reports and its flush: no search in them
    batch = _texts(store, first)
    assert set(batch) == members and not any(NOTE in t for texts in batch.values()
                                             for t in texts)
    assert not any(line.startswith(NOTE) for line in store.logged_moves(game_id, RUN)[0].said
                   or ())
    assert processor.better_runs() == 1  # as the service, once the outbox has them
    assert processor.declared == []
    said = store.logged_moves(game_id, RUN)[0].said or ()
    assert [line for line in said if line.startswith(NOTE)] == [
        line for line in Game(whole.setup, whole.log[:RUN]).apply(
            whole.log[RUN].seat, whole.log[RUN].action) if line.startswith(NOTE)]
    assert processor.later_cpu > 0
    # The next move's mails: its sender's answer and everyone else's report carry it.
    second = _last_id(store)
    send(RUN + 1)
    processor.flush_reports()
    assert processor.better_runs() == 0
    after = _texts(store, second)
    assert set(after) == members
    for texts in after.values():
        assert sum(t.count(NOTE) for t in texts) == 1
    # Told once: the move after tells it nobody again.
    third = _last_id(store)
    send(RUN + 2)
    processor.flush_reports()
    processor.better_runs()
    assert not any(NOTE in t for texts in _texts(store, third).values() for t in texts)
    store.close()


@pytest.mark.asyncio
async def test_the_daemon_searches_once_the_answer_is_on_its_way(
        mail_servers: LocalMail) -> None:
    """The service over real local servers: the declarer's answer comes without the
    note, and the daemon then searches and puts it under the run's move."""
    config = await daemon_settings(mail_servers)
    store = Store(config.moderator.database)
    game_id, addresses, whole = seated_game(store, RECORD, RUN, players="p{n}@example.org")
    (mail,) = burst(game_id, whole, RUN, 1, 1)
    declarer = addresses[mail.seat]
    await mail_servers.ensure_mailbox(declarer)
    token = make_token(config.moderator.secret, game_id, mail.seat)
    async with running_daemon(config):
        await send_mail(mail_servers, declarer, config.moderator.address,
                        f"[{game_id}] orders", f"password {token}\n{mail.body}\n")
        reply = await wait_for_mail(mail_servers, declarer)
        assert "runs for $60" in text_of(reply) and NOTE not in text_of(reply)
        deadline = time.monotonic() + MAIL_PATIENCE
        while not any(line.startswith(NOTE) for line in
                      store.logged_moves(game_id, RUN)[0].said or ()):
            assert time.monotonic() < deadline, "the better run was never searched"
            await asyncio.sleep(0.1)
    store.close()


def test_a_run_taken_back_before_the_search_is_never_told(tmp_path: Path) -> None:
    """The declarer's `undo` comes before the search: the run is no longer in effect, so
    nothing is searched for it, nothing is said under its move and nobody is owed a note
    (`Processor._better_run`: the move must still be in effect)."""
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORD, RUN)
    processor = Processor(store, ProcessorSettings.from_config(config))
    seat = whole.log[RUN].seat

    def send(mail: BurstMail) -> None:
        key, _ = processor.receive(burst_message(mail, game_id, addresses, config.address,
                                                 config.secret).as_bytes(),
                                   kept_elsewhere=True)
        assert processor.process(key, batch=True).status == "processed"

    (run,) = burst(game_id, whole, RUN, 1, 1)
    send(run)
    assert len(processor.declared) == 1
    first = _last_id(store)
    send(BurstMail(f"<undo.{time.time_ns()}@bench.test>", seat, "undo", True))
    (answer,) = _texts(store, first)[addresses[seat]]
    assert "taken back" in answer or "takes back" in answer, answer
    processor.flush_reports()
    assert processor.better_runs() == 0 and processor.declared == []
    assert not any(line.startswith(NOTE) for line in store.logged_moves(game_id, RUN)[0].said
                   or ())
    # The next move (the run declared again) is answered, and no report tells a note.
    second = _last_id(store)
    (again,) = burst(game_id, whole, RUN, 1, 1)
    send(again)
    processor.flush_reports()
    assert not any(NOTE in t for texts in _texts(store, second).values() for t in texts)
    store.close()


def test_no_search_once_the_game_has_ended(tmp_path: Path) -> None:
    """The game master ends the game (`end game`: its clock ended, the final scores
    sent) between the answer and the search: the search is not made, nothing is said
    under the move and no later mail is owed a note (`Processor._better_run`)."""
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORD, RUN)
    with store.transaction():
        store.create_clock(game_id, 3600.0)
    processor = Processor(store, ProcessorSettings.from_config(config))
    (run,) = burst(game_id, whole, RUN, 1, 1)
    key, _ = processor.receive(burst_message(run, game_id, addresses, config.address,
                                             config.secret).as_bytes(), kept_elsewhere=True)
    assert processor.process(key, batch=True).status == "processed"
    processor.flush_reports()
    assert len(processor.declared) == 1
    with store.transaction():  # as `end game` leaves it
        store.update_clock(game_id, ended=time.time(), seat=None, deadline=None)
    assert processor.better_runs() == 0 and processor.declared == []
    assert not any(line.startswith(NOTE) for line in store.logged_moves(game_id, RUN)[0].said
                   or ())
    store.close()
