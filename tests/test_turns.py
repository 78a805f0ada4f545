"""The moves the moderator makes for a seat (`moderator.desk.turns.settle`), on real games in
a real SQLite store: `auto pass` and its cancellation, the pass of a player who can do
nothing else. (By mail, tests/test_mail_long_games.py plays the rest.)"""

from __future__ import annotations

from pathlib import Path

import scenarios_1851 as s51
from tn_scenarios import _record

from engine.actions import Pass
from engine.game import Game
from moderator.desk.turns import MODERATOR, settle
from moderator.store import Store

NOW = 1_800_000_000.0


def stored(tmp_path: Path, game: Game) -> tuple[Store, str]:
    store = Store(tmp_path / "games.sqlite")
    with store.transaction():
        game_id = store.create_game(game.setup)
        store.append(game_id, 0, list(game.log), cause="test", actor="someone@example.org")
    return store, game_id


def record_prefix(n: int) -> Game:
    setup, moves = _record()
    return Game(setup, moves[:n])


def play_record_until(store: Store, game_id: str, game: Game, seat: str) -> list[str]:
    """Apply the record's moves (settling after each) until SEAT is to act; the texts of
    what the moderator did meanwhile."""
    _, moves = _record()
    said: list[str] = []
    while (turn := game.turn()) is not None and turn.seat != seat:
        move = moves[len(game.effective)]
        start = game.next_move
        game.apply(move.seat, move.action)
        with store.transaction():
            store.append(game_id, start, list(game.log[start:]), cause="record", actor="x")
            said += [h.text for h in settle(store, game_id, game, cause="test", now=NOW)]
    return said


def test_auto_pass_passes_at_the_players_turn(tmp_path: Path) -> None:
    game = record_prefix(100)  # Stock Round 4: Player 4 is about to sell GMO
    store, game_id = stored(tmp_path, game)
    with store.transaction():
        store.update_seat(game_id, "Player 1", auto_pass_round=game.round_name,
                          auto_pass_move=game.next_move)
    said = play_record_until(store, game_id, game, "Player 2")
    passes = [(n, m) for n, m in enumerate(game.log[100:], 100) if m.seat == "Player 1"]
    assert passes and all(m.action == Pass() for _, m in passes)
    actors = store.execute("SELECT actor FROM moves WHERE game_id = ? AND seat = ? AND "
                           "number >= 100", [game_id, "Player 1"])
    assert set(actors) == {(MODERATOR,)}
    assert any(text.startswith("Player 1 (auto pass)") for text in said)


def test_auto_pass_is_cancelled_by_a_sale_of_a_company_the_player_holds(tmp_path: Path
                                                                      ) -> None:
    game = record_prefix(100)
    assert game.state.corporations["GMO"].percent_held_by("Player 2")
    store, game_id = stored(tmp_path, game)
    with store.transaction():
        store.update_seat(game_id, "Player 2", auto_pass_round=game.round_name,
                          auto_pass_move=game.next_move)
    said = play_record_until(store, game_id, game, "Player 2")
    with store.transaction():
        said += [h.text for h in settle(store, game_id, game, cause="test", now=NOW)]
    assert "Player 2's auto pass is cancelled: Player 4 sold GMO, which you hold" in said
    turn = game.turn()
    assert turn is not None and turn.seat == "Player 2"  # the player decides after all
    assert store.seat_row(game_id, "Player 2").auto_pass_round is None


def test_auto_pass_ends_with_its_stock_round(tmp_path: Path) -> None:
    game = record_prefix(100)
    store, game_id = stored(tmp_path, game)
    with store.transaction():
        store.update_seat(game_id, "Player 3", auto_pass_round="Stock Round 3",
                          auto_pass_move=60)
        settle(store, game_id, game, cause="test", now=NOW)
    play_record_until(store, game_id, game, "Player 3")
    with store.transaction():
        happened = settle(store, game_id, game, cause="test", now=NOW)
    assert happened == []
    assert store.seat_row(game_id, "Player 3").auto_pass_round is None


def test_a_player_who_can_only_pass_is_passed(tmp_path: Path) -> None:
    """1851: Di has $30, which buys nothing, and nothing she may sell."""
    game = s51.ln_priced(90)
    from engine.actions import BuyShares, Par

    s51.play(game, ("Cy", Par("IC", 100)), ("Di", BuyShares("L&N")), ("Ann", BuyShares("IC")),
             ("Bob", BuyShares("L&N")), ("Cy", BuyShares("IC")), ("Di", BuyShares("IC")),
             ("Ann", Pass()), ("Bob", Pass()), ("Cy", Pass()))
    store, game_id = stored(tmp_path, game)
    start = game.next_move
    with store.transaction():
        happened = settle(store, game_id, game, cause="test", now=NOW)
    assert happened and happened[0].seat == "Di" and happened[0].kind == "only_move"
    assert game.log[start].seat == "Di" and game.log[start].action == Pass()
    assert store.execute("SELECT actor FROM moves WHERE game_id = ? AND number = ?",
                         [game_id, start]) == [(MODERATOR,)]
    # Nobody else was made to pass: the next decision is a real one.
    assert all(h.kind == "only_move" for h in happened)
    assert game.turn() is not None
