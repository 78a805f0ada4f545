"""Submissions against a real SQLite store: all or nothing, per-line reports."""

from __future__ import annotations

from pathlib import Path

from engine.game import Setup
from moderator.desk.orders import apply_submission
from moderator.store import Store

SEATS = ("Ann", "Bob", "Cy")


def store_with_game(tmp_path: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "games.sqlite")
    return store, store.create_game(Setup("18TN", SEATS, seed=1, priority="Ann"))


def test_every_line_applies_and_is_reported(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    report = apply_submission(store, game_id, "Ann", ["move 0", "buy TCC"])
    assert report.ok
    assert report.text == ("> buy TCC\n  ok: Ann buys TCC for $20\n"
                           "Applied. The next move is 1.")
    assert [m.action.kind for m in store.moves(game_id)] == ["buy_private"]


def test_a_refused_line_applies_nothing(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    report = apply_submission(store, game_id, "Ann", ["buy TCC", "bid 45 on ETWCR"])
    assert not report.ok
    assert store.moves(game_id) == []  # the first line's purchase is not kept either
    assert report.text == (
        "> buy TCC\n  ok: Ann buys TCC for $20\n"
        "bid 45 on ETWCR\n^^^^^^^^^^^^^^^\n"
        "it is Bob's turn (stock turn), not Ann's\n"
        "What the game expects now: buy ETWCR (for $40); bid 75 on MCR; bid 105 on OWR; "
        "bid 180 on LNR; pass\n"
        "Nothing was applied: a submission applies whole or not at all.")


def test_a_stale_move_number_is_refused_with_the_current_one(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    assert apply_submission(store, game_id, "Ann", ["buy TCC"]).ok
    report = apply_submission(store, game_id, "Bob", ["move 0", "buy ETWCR"])
    assert not report.ok
    assert "written for move 0; the game is at move 1 now" in report.text
    assert len(store.moves(game_id)) == 1


def test_signature_and_quoted_reply_end_the_orders(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    body = ["buy TCC", "-- ", "Ann Example", "> bid 45 on ETWCR"]
    report = apply_submission(store, game_id, "Ann", body)
    assert report.ok and len(store.moves(game_id)) == 1


def test_a_wrong_round_order_names_the_round(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    report = apply_submission(store, game_id, "Ann", ["lay 57 at H3 rot 0"])
    assert not report.ok
    assert "`lay tile` is not available in 18TN during Stock Round 1" in report.text


def test_a_json_action_line_is_accepted(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    report = apply_submission(store, game_id, "Ann", ['{"type": "buy_private", '
                                                      '"private": "TCC"}'])
    assert report.ok and store.moves(game_id)[0].action.kind == "buy_private"


def test_unknown_game_and_seat(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    assert "there is no game 18TN-9" in apply_submission(store, "18TN-9", "Ann",
                                                         ["pass"]).text
    assert "Zed has no seat in 18TN-1; the seats are Ann, Bob, Cy" in apply_submission(
        store, game_id, "Zed", ["pass"]).text


def test_the_store_replays_what_it_stored(tmp_path: Path) -> None:
    store, game_id = store_with_game(tmp_path)
    apply_submission(store, game_id, "Ann", ["buy TCC"])
    apply_submission(store, game_id, "Bob", ["bid 80 on MCR"])
    again = Store(tmp_path / "games.sqlite").load(game_id)
    assert again.state.privates["TCC"].owner == "Ann"
    assert again.state.private_bids == {"MCR": {"Bob": 80}}
    assert again.next_move == 2
