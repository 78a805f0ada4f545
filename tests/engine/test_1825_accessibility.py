"""1825 Unit 1, 5.2.4: a promotion must add track a company's base reaches (5.2.4.a) or
raise a route one of its trains could run now (5.2.4.b).

London (V20) is printed with its six stations joined to all six sides; its russet tile
32 keeps every side and raises each station from £50 to £70: a promotion that adds no
track, allowed only by 5.2.4.b. The GER, whose base is in London, is formed here by
giving Bob six of its new shares (the bank sells the GWR's first, 4.1, and four players'
money would not reach the GER's for rounds) and the phase is set to Three (russet tiles,
5.7.3): shortcuts that touch no rule of track.
"""

from __future__ import annotations

import pytest
from scenarios_1825 import all_pass, company_turn, first_round, lays_at, new_game, now

from engine.actions import Done, LayTile
from engine.errors import GameError
from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.state import IPO, Train

RUSSET_PHASE = 2  # the third phase of data/1825.json: yellow, green and russet tiles


def ger_in_london_in_phase_three() -> Game:
    g = new_game()
    first_round(g)
    while isinstance(g.round, OperatingRound):
        g.apply(now(g), Done())
    ger = g.state.corporations["GER"]
    for cert in [c for c in ger.certificates if c.owner == IPO][:5]:  # 20% + 4 x 10%
        cert.owner = "Bob"
    ger.president = "Bob"
    g.rules.start_company(g.state, ger)
    g.rules.float_corporation(g.state, ger)
    all_pass(g)
    while company_turn(g) != "GER":
        g.apply(now(g), Done())
    assert now(g) == "Bob" and g.state.board.tokens["V20"] == {4: ["GER"]}
    g.state.phase_index = RUSSET_PHASE
    return g


def test_5_2_4_b_a_trainless_company_may_not_make_a_promotion_that_adds_no_track() -> None:
    g = ger_in_london_in_phase_three()
    assert not g.state.corporations["GER"].trains
    assert lays_at(g, "V20") == []
    with pytest.raises(GameError, match=r"adds no track GER reaches \(5\.2\.4\.a\), and "
                                        r"GER has no train whose route it could raise"):
        g.apply("Bob", LayTile("32", "V20", 0))
    assert "V20" not in g.state.board.tiles


def test_5_2_4_b_a_promotion_that_raises_a_route_a_train_could_run() -> None:
    g = ger_in_london_in_phase_three()
    # A 5-train could run London (£50) - Tilbury (V22, £20): London's £70 raises it.
    g.state.corporations["GER"].trains.append(Train("5", "5-0"))
    assert {a.tile for a in lays_at(g, "V20")} == {"32"}
    g.apply("Bob", LayTile("32", "V20", 0))
    assert g.state.board.tiles["V20"].name == "32"
