"""1825 R1: a minor nobody holds 40% of is in receivership and does not operate.

A minor's director's certificate is 40% (four shares; its other certificates are 20%,
two shares each): a player becomes its director by holding 40%, and its director may
sell the certificate into the pool when nobody else holds that much (4.4; 18xx.games:
presidents_percent, share_pool.rb: "President's share sold to pool ... enters
receivership"). Unit 1 appoints a receiver for a Major Company only (6.4): the minor
gets none and does nothing in its turns: no track, base, run or train (18xx.games
g_1825/game.rb `silent_receivership?`, `can_run_route?`; its steps offer the minor no
action). With no income its price moves left (6.3), to bankruptcy below £5, unless a
player comes to hold 40% (6.4.7). Data: data/1825.json, the kit's minors'
`receivership` "idle".

Played on the recorded R1 game: in Share Dealing Round 10 (its 424th action) Player 1
holds the Cambrian's director's certificate and one 20% share, Player 2 none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scenarios_1825 import r1_record_prefix

from engine.actions import BuyShares, Pass, SellShares
from engine.defaults import conservative_action
from engine.errors import GameError
from engine.game import Game
from engine.rounds.stock import StockRound
from engine.state import POOL

RECORD = Path(__file__).resolve().parents[3] / "shared/fixtures/1825/1825_game_end_bank.json"
pytestmark = pytest.mark.skipif(not RECORD.exists(), reason="shared fixtures not present")


def _sdr10() -> Game:
    game, _ = r1_record_prefix(424)
    assert isinstance(game.round, StockRound)
    assert game.turn().seat == "Player 1"  # type: ignore[union-attr]
    return game


def _past_turn_of(game: Game, sym: str) -> None:
    """Every player does the least he may until `sym` has had its turn."""
    seen = len(game.state.log)
    for _ in range(400):
        if any(line.startswith(f"{sym} operates") for line in game.state.log[seen:]):
            return
        turn = game.turn()
        assert turn is not None
        game.apply(turn.seat, conservative_action(game))
    raise AssertionError(f"{sym} never operated")


def _sell_a_share(game: Game, seat: str) -> None:
    """A plain share of a major sold, to make room under the certificate limit."""
    state = game.state
    sym = next(c.sym for c in state.corporations.values()
               if not c.closed and c.president != seat and c.percent_held_by(seat) >= 10
               and c.certificates[0].percent == 20)
    game.apply(seat, SellShares(sym, 1))


def test_r1_4_4_a_minor_s_director_sells_his_40_into_the_pool() -> None:
    game = _sdr10()
    cam = game.state.corporations["Cam"]
    assert cam.percent_held_by("Player 1") == 60 and cam.president == "Player 1"
    # 20% alone: an ordinary sale; he keeps the 40% certificate and the directorship.
    trial = game.clone()
    trial.apply("Player 1", SellShares("Cam", percent=20))
    assert trial.state.corporations["Cam"].president == "Player 1"
    # 30%: not whole certificates.
    with pytest.raises(GameError, match=r"four shares.*`sell 4 Cam`"):
        game.clone().apply("Player 1", SellShares("Cam", percent=50))
    # 40%: nobody else holds 40%: the certificate goes to the pool, he keeps his 20%.
    game.apply("Player 1", SellShares("Cam", percent=40))
    assert cam.president is None and cam.certificates[0].owner == POOL
    assert cam.percent_held_by("Player 1") == 20
    notes = game.rules.charter_notes(game.state, cam)
    assert "in receivership, no receiver: does not operate until a player holds 40% (R1)" \
        in notes


def test_r1_6_4_a_minor_in_receivership_does_not_operate() -> None:
    game = _sdr10()
    game.apply("Player 1", SellShares("Cam", percent=40))
    state = game.state
    cam = state.corporations["Cam"]
    price = state.market.price("Cam")
    _past_turn_of(game, "Cam")
    # The Cambrian's turn settled itself: no receiver, no run, its price one space left.
    assert not any(m.startswith("receiver:") for m in cam.markers)
    assert state.market.price("Cam") < price
    assert cam.trains and cam.cash >= 0
    log = [line for line in state.log if "Cam" in line][-3:]
    assert any("a minor in receivership does not operate" in line for line in log)
    assert not any("Cam runs" in line for line in log)


def test_r1_6_4_7_a_player_holding_40_becomes_the_minor_s_director() -> None:
    """Player 2 buys the Cambrian's two 20% shares from the bank: with 40% he exchanges
    them for the director's certificate in the pool, and the receivership ends."""
    game = _sdr10()
    game.apply("Player 1", SellShares("Cam", percent=40))
    game.apply("Player 1", Pass())
    cam = game.state.corporations["Cam"]
    _sell_a_share(game, "Player 2")
    game.apply("Player 2", BuyShares("Cam", 1, "ipo"))
    assert cam.president is None and cam.percent_held_by("Player 2") == 20
    game.apply("Player 2", Pass())
    game.apply("Player 1", Pass())
    _sell_a_share(game, "Player 2")
    game.apply("Player 2", BuyShares("Cam", 1, "ipo"))
    assert cam.president == "Player 2" and cam.certificates[0].owner == "Player 2"
    assert game.rules.idle_turn(game.state, cam) is None
