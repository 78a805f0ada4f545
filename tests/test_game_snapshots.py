"""A game loaded from its kept position and the moves since is the game its whole log
replays to (issue 33: the first mail after a start loads the game quickly), in every
title's recorded game; a position another engine made, or of another log, is not used."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from engine.game import Game
from engine.records import import_record
from engine.views import game_view
from moderator.cli.bench_mail import seated_game
from moderator.cli.bench_replay import FIXTURES
from moderator.desk.games import SNAPSHOT_EVERY, GameCache, engine_digest
from moderator.store import Store

RECORDS = [FIXTURES / "18TN" / "7818.json", FIXTURES / "1861" / "167259.json",
           FIXTURES / "1850" / "115810.json", FIXTURES / "1825" / "1825_game_end_bank.json"]

pytestmark = pytest.mark.skipif(not all(r.exists() for r in RECORDS),
                                reason="the recorded games are not here")


def _same(loaded: Game, replayed: Game) -> None:
    """The same position, and the same answer to what comes next."""
    assert loaded.log == replayed.log
    assert loaded.next_move == replayed.next_move
    assert game_view(loaded) == game_view(replayed)
    assert loaded.legal() == replayed.legal()


def _append(store: Store, game_id: str, whole: Game, start: int, stop: int) -> None:
    with store.transaction():
        store.append(game_id, start, list(whole.log[start:stop]))


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.parent.name)
def test_a_game_loaded_from_its_kept_position_is_the_replayed_game(
        tmp_path: Path, record: Path) -> None:
    store = Store(tmp_path / "m.sqlite")
    whole = import_record(json.loads(record.read_text())).game
    total = len(whole.log)
    at = total // 2
    game_id, _, _ = seated_game(store, record, at)
    first = GameCache(store)
    first.game(game_id)  # replayed from move 0 (nothing kept yet) ...
    assert first.replayed == at
    with store.transaction():
        assert first.keep_positions() == 1  # ... and kept at AT
    assert first.keep_positions() == 0  # not again until SNAPSHOT_EVERY moves more
    # Later moves come (the daemon stopped meanwhile): a new start loads the kept
    # position and replays only those.
    tail = min(SNAPSHOT_EVERY - 1, total - at - 1)
    _append(store, game_id, whole, at, at + tail)
    again = GameCache(store)
    loaded = again.game(game_id)
    assert again.replayed == tail
    replayed = Game(whole.setup, whole.log[:at + tail])
    _same(loaded, replayed)
    # And it plays on as the replayed game does: the next move as a mail applies it,
    # then the rest of the record, each move saying the same.
    move = whole.log[at + tail]
    assert loaded.clone().apply(move.seat, move.action) == \
        replayed.clone().apply(move.seat, move.action)
    with loaded.reading_log(), replayed.reading_log():
        for move in whole.log[at + tail:]:
            assert loaded.apply(move.seat, move.action) == \
                replayed.apply(move.seat, move.action)
    _same(loaded, replayed)
    store.close()


def test_a_position_of_another_engine_or_another_log_is_replayed_instead(
        tmp_path: Path) -> None:
    record = RECORDS[0]
    store = Store(tmp_path / "m.sqlite")
    whole = import_record(json.loads(record.read_text())).game
    game_id, _, _ = seated_game(store, record, 100)
    wrong = pickle.dumps(Game(whole.setup, whole.log[:50]))  # not the stored log's start:
    with store.transaction():  # an undo happened there and the log went on otherwise
        store.save_snapshot(game_id, 60, engine_digest(), wrong)
    cache = GameCache(store)
    _same(cache.game(game_id), Game(whole.setup, whole.log[:100]))
    assert cache.replayed == 100
    right = pickle.dumps(Game(whole.setup, whole.log[:60]))
    with store.transaction():  # the right position, by an engine not running
        store.save_snapshot(game_id, 60, "another engine", right)
    cache = GameCache(store)
    cache.game(game_id)
    assert cache.replayed == 100
    with store.transaction():  # unreadable
        store.save_snapshot(game_id, 60, engine_digest(), b"not a pickle")
    cache = GameCache(store)
    _same(cache.game(game_id), Game(whole.setup, whole.log[:100]))
    assert cache.replayed == 100
    with store.transaction():  # and the right one by this engine is taken
        store.save_snapshot(game_id, 60, engine_digest(), right)
    cache = GameCache(store)
    _same(cache.game(game_id), Game(whole.setup, whole.log[:100]))
    assert cache.replayed == 40
    store.close()


def test_the_batchs_end_keeps_the_position_and_the_next_start_loads_it(
        tmp_path: Path) -> None:
    from moderator.cli.bench_mail import burst, burst_message
    from moderator.config import ModeratorConfig
    from moderator.desk.processor import Processor, ProcessorSettings

    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORDS[0], 300)
    raws = [burst_message(mail, game_id, addresses, config.address, config.secret
                          ).as_bytes() for mail in burst(game_id, whole, 300, 8)]
    processor = Processor(store, ProcessorSettings.from_config(config))
    for raw in raws[:4]:  # the first applies move 300
        processor.process(processor.receive(raw, kept_elsewhere=True)[0], batch=True)
    processor.flush_reports()
    assert processor.games.replayed == 300
    assert store.execute("SELECT move FROM snapshots") == [(301,)]
    store.close()
    store = Store(config.database)  # started again
    processor = Processor(store, ProcessorSettings.from_config(config))
    for raw in raws[4:]:  # the first applies move 301
        processor.process(processor.receive(raw, kept_elsewhere=True)[0], batch=True)
    assert processor.games.replayed == 0  # loaded from the kept position alone
    assert len(store.moves(game_id)) == 302
    store.close()
