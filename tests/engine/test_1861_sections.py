"""1861 rule sections no other test names (issue 35, item 8; docs/rule-coverage.md),
played out from scenarios_1861's positions against shared/rules/1861.md."""

from __future__ import annotations

from collections import Counter

import pytest
from scenarios_1861 import (
    SEATS,
    first_operating_round,
    new_game,
    now,
    privates_at_minimum,
    sell_minor,
)

from engine.actions import BuyTrain, Dividend, Done, RunRoutes, StartAuction
from engine.errors import GameError
from engine.game import Game
from engine.rounds.auction_stock import AuctionStockRound
from engine.titles.t1861 import UNLIMITED_TRAINS

AT_THE_START = ("N", "K-B", "K-K", "K-R", "M-K", "M-NN", "M-V", "O-K", "R-O", "SP-W")
FROM_PHASE_3 = ("D", "E", "M-B", "S-V", "T-R", "V")
PUBLICS = ("GRR", "MK", "MKV", "MKN", "MVR", "NW", "SE", "SW")


def finish_operating_round(g: Game) -> None:
    """Every company runs its best (paid out), buys the next train when it must, and ends
    its turn."""
    label = g.round_name
    while g.round_name == label:
        seat, legal = now(g), g.legal()
        if any(line.startswith("run") for line in legal):
            g.apply(seat, RunRoutes(auto=True))
        elif any(line.startswith("pay") for line in legal):
            g.apply(seat, Dividend("payout"))
        else:
            try:
                g.apply(seat, Done())
            except GameError:
                g.apply(seat, BuyTrain(g.state.trains_offered[0].name))


def test_4_a_stock_round_first_then_sets_of_two_operating_rounds() -> None:
    # "The game proceeds in a series of alternating Stock Rounds and sets of Operating
    # Rounds, beginning with a Stock Round ... There are two Operating Rounds between
    # Stock Rounds ... The game starts in Phase 2"
    g = new_game()
    assert isinstance(g.round, AuctionStockRound)
    assert g.rules.phase(g.state).name == "2"
    g = first_operating_round()
    rounds = [g.round_name]
    for _ in range(2):
        finish_operating_round(g)
        rounds.append(g.round_name)
    assert rounds == ["Operating Round 1.1", "Operating Round 1.2", "Stock Round 2"]
    assert isinstance(g.round, AuctionStockRound)


def test_7_2_ten_minors_at_the_start_the_other_six_from_phase_3() -> None:
    # "Ten of them (N, K-B, K-K, K-R, M-K, M-NN, M-V, O-K, R-O, and SP-W) are available
    # at the start of the game. The other six (D, E, M-B, S-V, T-R, and V) are available
    # from Phase 3 onwards. ... Once sold, the Minor Company is always completely owned by
    # a single player (who is also its Director)."
    g = new_game()
    assert {s for s, c in g.state.corporations.items()
            if c.spec.kind == "minor"} == set(AT_THE_START + FROM_PHASE_3)
    privates_at_minimum(g)
    seat = sell_minor(g, "N", 100)  # 9.4: the Nikolaev first
    n = g.state.corporations["N"]
    assert n.president == seat and n.percent_held_by(seat) == 100
    for minor in FROM_PHASE_3:
        with pytest.raises(GameError):
            g.apply(now(g), StartAuction(minor, 100))
    sell_minor(g, "M-V", 100)  # one of the ten


def test_7_3_a_public_is_a_20_percent_directors_certificate_and_eight_10s() -> None:
    # "Each has a Director's Certificate, worth 20%, or two shares, and eight ordinary
    # certificates each worth 10%, or one share."
    g = new_game()
    for sym in PUBLICS:
        corp = g.state.corporations[sym]
        assert corp.spec.kind != "minor"
        percents = Counter(c.percent for c in corp.certificates)
        assert percents == Counter({20: 1, 10: 8}), sym
        assert [c.percent for c in corp.certificates if c.president] == [20], sym


def test_14_2_unlimited_2_plus_2_and_5_plus_5e_trains() -> None:
    # "Play with unlimited 2+2 and 5+5E trains." (Table 2: two 5+5E, no 2+2)
    standard = new_game()
    unlimited = new_game(SEATS, frozenset({UNLIMITED_TRAINS}))
    assert standard.state.title.train("5+5E").count == 2
    assert standard.state.title.train("2+2").count == 0
    for name in ("2+2", "5+5E"):
        assert unlimited.state.title.train(name).count is None
        # the bank's offering holds them as it holds the unlimited 8-trains
        offered = Counter(t.name for t in unlimited.state.trains_offered)
        assert offered[name] == offered["8"]
    # the rest of the trains are as in the standard game
    assert [t for t in standard.state.title.trains if t.name not in ("2+2", "5+5E")] == [
        t for t in unlimited.state.title.trains if t.name not in ("2+2", "5+5E")]
