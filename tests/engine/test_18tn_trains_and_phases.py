"""18TN trains and phases (sections 1.2, 4.2.5, 4.2.5.1, 4.2.5.2, 5.1, Table I, 8(c)),
each played out on a real game: fresh openings or the recorded game 7818."""

from __future__ import annotations

import pytest
from tn_scenarios import (
    OR_4_2_GMO_RUN,
    OR_4_2_IC_RUN,
    OR_4_2_SR_BUYS_4TH_3,
    OR_5_1_LN_BUYS_FIRST_4,
    OR_5_1_NCSTL_BUYS_4,
    OR_5_1_SR_RUN,
    OR_5_1_TC_TRAINS,
    OR_6_3_GMO_TRAIN,
    OR_7_1_NCSTL,
    OR_7_1_SR,
    P1,
    P2,
    P3,
    P4,
    buy_train_from,
    civil_war_without_a_route,
    discard,
    forced_purchase_position,
    now,
    operate_plainly,
    pass_stock_round,
    phase_4_three_trains,
    phase_5_discards,
    play,
    play_operating_round,
    record_game,
    record_move,
    replay_moves,
    revenue,
    still_operating,
    tc_turn_begins_without_a_train,
    three_company_opening,
    to_train_step,
)

from engine.actions import BuyTrain, Dividend, Done, LayTile, RunRoutes, SellShares
from engine.errors import GameError
from engine.game import Game
from engine.state import BANK, POOL

CIVIL_WAR = "civil war"
SALVAGE = frozenset({"salvage_3_trains"})


def names(trains: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(t.name for t in trains)


def trains_of(g: Game, corp: str) -> list[str]:
    return names(g.state.corporations[corp].trains)


def phase(g: Game) -> str:
    return g.rules.phase(g.state).name


# --- 1.2, 4.2.5(e), Table I: phases follow the trains -----------------------------------


def test_table_I_each_first_train_of_a_type_starts_its_phase() -> None:
    # Game 7818: the phase after each train bought from the Initial Offering.
    g = record_game(0)
    seen: list[tuple[str, str]] = []
    for n in range(578):
        move = record_move(n)
        action = move.action
        before = phase(g)
        replay_moves(g, n, n + 1)
        if isinstance(action, BuyTrain) and action.source == "bank" and phase(g) != before:
            seen.append((action.train, phase(g)))
    assert seen == [("2", "2"), ("3", "3"), ("3", "3½"), ("4", "4"), ("5", "5"),
                    ("6", "6"), ("6", "6½"), ("8", "8")]


def test_table_I_the_first_4_train_removes_every_2_train() -> None:
    g = record_game(OR_5_1_LN_BUYS_FIRST_4)
    assert trains_of(g, "L&N") == ["2", "2", "3"] and trains_of(g, "SR") == ["2", "2", "3"]
    replay_moves(g, OR_5_1_LN_BUYS_FIRST_4, OR_5_1_LN_BUYS_FIRST_4 + 1)
    assert phase(g) == "4"
    assert trains_of(g, "L&N") == ["3", "4"]
    assert trains_of(g, "SR") == ["3"] and trains_of(g, "IC") == ["3"]
    assert all(t.name != "2" for c in g.state.corporations.values() for t in c.trains)


def test_table_I_the_first_6_train_removes_every_3_train() -> None:
    g = record_game(398)  # IC is about to buy the first 6-train
    assert trains_of(g, "GMO") == ["3", "3"] and trains_of(g, "TC") == ["3", "4"]
    replay_moves(g, 398, 399)
    assert phase(g) == "6"
    assert trains_of(g, "GMO") == [] and trains_of(g, "TC") == ["4"]


# --- 4.2.5: buying trains --------------------------------------------------------------


def test_4_2_5_b_initial_offering_trains_are_bought_in_order() -> None:
    g = three_company_opening()
    with pytest.raises(GameError, match="next train of the Initial Offering is a 2-train"):
        g.apply("Bob", BuyTrain("3"))
    g.apply("Bob", BuyTrain("2"))
    assert trains_of(g, "TC") == ["2"]
    assert g.state.corporations["TC"].cash == 900 - 80
    assert phase(g) == "2"


def test_4_2_5_f_one_bank_train_per_turn_company_trains_do_not_count() -> None:
    g = three_company_opening()
    play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("4", "F13", 1)),
         ("Bob", BuyTrain("2")))
    if still_operating(g, "TC"):
        g.apply("Bob", Done())
    assert now(g) == "SR"
    g.apply("Cy", BuyTrain("2"))
    with pytest.raises(GameError, match="only one train from the bank per turn"):
        g.apply("Cy", BuyTrain("2"))
    with pytest.raises(GameError, match=r"at least \$1"):
        buy_train_from(g, "TC", "2", 0)
    buy_train_from(g, "TC", "2", 1)  # from another company: any price from $1
    assert trains_of(g, "SR") == ["2", "2"]
    assert trains_of(g, "TC") == []
    assert g.state.corporations["TC"].cash == 900 - 40 - 80 + 1


def test_4_2_5_f_several_bank_trains_per_turn_once_a_4_train_is_bought() -> None:
    g = record_game(OR_5_1_TC_TRAINS)  # phase 4: TC with $800
    g.apply(P1, BuyTrain("4"))
    g.apply(P1, BuyTrain("4"))
    assert trains_of(g, "TC") == ["4", "4"]
    g = record_game(OR_5_1_NCSTL_BUYS_4)
    g.apply(P2, BuyTrain("4"))
    g.apply(P2, BuyTrain("5"))
    assert trains_of(g, "NC&StL") == ["4", "5"]


def test_4_2_5_g_at_most_four_trains_before_phase_4() -> None:
    g = three_company_opening()
    # OR 1: TC buys a 2-train; SR buys one from the bank and TC's; the L&N buys one.
    play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("4", "F13", 1)),
         ("Bob", BuyTrain("2")))
    if still_operating(g, "TC"):
        g.apply("Bob", Done())
    g.apply("Cy", BuyTrain("2"))
    buy_train_from(g, "TC", "2", 1)
    if still_operating(g, "SR"):
        g.apply("Cy", Done())
    play_operating_round(g)
    pass_stock_round(g)
    # OR 2: TC must buy again; SR buys TC's and the L&N's trains: four, the limit.
    while now(g) != "SR":
        operate_plainly(g)
    to_train_step(g)
    buy_train_from(g, "TC", "2", 1)
    buy_train_from(g, "L&N", "2", 1)
    assert trains_of(g, "SR") == ["2", "2", "2", "2"]
    assert not still_operating(g, "SR")  # nothing more SR may buy this turn
    play_operating_round(g)
    pass_stock_round(g)
    # OR 3: SR starts its turn at the limit; TC and the L&N own trains again.
    while now(g) != "SR":
        operate_plainly(g)
    offered = g.state.trains_offered[0].name
    with pytest.raises(GameError, match="limit"):
        g.apply("Cy", BuyTrain(offered))
    with pytest.raises(GameError, match="limit"):
        buy_train_from(g, "TC", "2", 1)
    assert trains_of(g, "SR") == ["2", "2", "2", "2"]


def test_4_2_5_g_at_most_three_trains_in_phase_4() -> None:
    g = phase_4_three_trains()  # TC: 4, 3, 3, the most phase 4 allows
    assert phase(g) == "4"
    assert not still_operating(g, "TC")  # TC may buy nothing more this turn
    # The rest of OR 5.1 without a 5-train: NC&StL buys the last 4-train; IC buys GMO's
    # last 3-train and GMO the L&N's 3-train, each for $1.
    replay_moves(g, 277, OR_5_1_NCSTL_BUYS_4 + 1)
    g.apply(P2, Done())
    assert now(g) == "IC"
    to_train_step(g)
    buy_train_from(g, "GMO", "3", 1)
    if still_operating(g, "IC"):
        g.apply(P1, Done())
    assert now(g) == "GMO"
    to_train_step(g)
    buy_train_from(g, "L&N", "3", 1)
    if still_operating(g, "GMO"):
        g.apply(P4, Done())
    assert g.round_name == "Operating Round 5.2" and phase(g) == "4"
    while now(g) != "TC":
        operate_plainly(g)
    # TC starts its turn with three trains. After running them and withholding it can
    # afford the 5-train on offer, yet its turn is over: it may own no fourth train.
    g.apply(P1, RunRoutes(auto=True))
    g.apply(P1, Dividend("withhold"))
    assert g.state.trains_offered[0].name == "5"
    assert g.state.corporations["TC"].cash >= 450
    assert not still_operating(g, "TC")
    assert trains_of(g, "TC") == ["3", "3", "4"]


def test_4_2_5_f_the_first_4_train_lifts_the_limit_in_that_same_turn() -> None:
    g = record_game(OR_5_1_LN_BUYS_FIRST_4)
    # Reach the position quickly: the L&N with the $600 for two 4-trains.
    g.state.transfer_cash(BANK, "L&N", 600 - g.state.corporations["L&N"].cash)
    g.apply(P3, BuyTrain("4"))
    g.apply(P3, BuyTrain("4"))
    assert trains_of(g, "L&N") == ["3", "4", "4"]
    assert g.state.corporations["L&N"].cash == 0


def test_4_2_5_g_a_phase_change_forces_discards_to_the_open_market_first() -> None:
    g = phase_5_discards()
    assert phase(g) == "5"
    cash = {sym: c.cash for sym, c in g.state.corporations.items()}
    bank = g.state.bank_cash
    turn = g.turn()
    assert turn is not None and turn.step == "discard a train"
    # Nothing else happens until the discards are made: not even the buyer's next order.
    with pytest.raises(GameError):
        g.apply(P2, Done())
    asked = discard(g, {"NC&StL": "4", "TC": "3"})
    assert sorted(asked) == ["NC&StL", "TC"]
    assert trains_of(g, "NC&StL") == ["3", "5"] and trains_of(g, "TC") == ["3", "4"]
    assert names(g.state.trains_pool) == ["3", "4"]
    assert {sym: c.cash for sym, c in g.state.corporations.items()} == cash  # no refund
    assert g.state.bank_cash == bank
    assert now(g) == "NC&StL"  # the buyer's turn goes on
    with pytest.raises(GameError, match="limit"):  # two trains: phase 5's limit
        g.apply(P2, BuyTrain("3", source=POOL))


def test_4_2_5_c_open_market_trains_at_face_value() -> None:
    g = phase_5_discards()
    discard(g, {"NC&StL": "4", "TC": "3"})
    g.apply(P2, Done())
    replay_moves(g, 281, 283)  # IC ($450, no train) lays a tile
    assert now(g) == "IC"
    with pytest.raises(GameError, match=r"costs \$180"):
        g.apply(P1, BuyTrain("3", source=POOL, price=150))
    cash = g.state.corporations["IC"].cash
    g.apply(P1, BuyTrain("3", source=POOL))
    assert trains_of(g, "IC") == ["3"] and names(g.state.trains_pool) == ["4"]
    assert g.state.corporations["IC"].cash == cash - 180


# --- 4.2.5.1: obsolete 4-trains --------------------------------------------------------


def test_4_2_5_1_at_phase_6_and_a_half_pool_4s_go_and_company_4s_become_obsolete() -> None:
    g = record_game(OR_6_3_GMO_TRAIN)  # GMO is about to buy the second 6-train
    # Reach the position quickly: a 4-train lying in the Open Market (TC's), and GMO
    # able to pay the $600 itself (its president hands over the $60 it lacks).
    tc = g.state.corporations["TC"]
    four = tc.trains.pop()
    assert four.name == "4"
    g.state.trains_pool.append(four)
    g.state.transfer_cash(P4, "GMO", 60)
    g.apply(P4, BuyTrain("6"))
    assert phase(g) == "6½"
    assert g.state.trains_pool == []  # removed from play at once
    for corp in ("SR", "L&N"):
        trains = g.state.corporations[corp].trains
        assert [(t.name, t.obsolete) for t in trains] == [("4", True)]


def test_4_2_5_1_obsolete_trains_run_once_more_and_go_after_the_dividend() -> None:
    g = record_game(OR_7_1_SR)  # SR's only train is an obsolete 4-train
    assert [(t.name, t.obsolete) for t in g.state.corporations["SR"].trains] == [("4", True)]
    replay_moves(g, OR_7_1_SR, OR_7_1_SR + 2)  # lays a tile and runs it
    assert revenue(g)
    assert trains_of(g, "SR") == ["4"]
    g.apply(P2, Dividend("payout"))
    assert trains_of(g, "SR") == []
    assert trains_of(g, "L&N") == ["4"]  # the L&N's waits for the L&N's own turn
    with pytest.raises(GameError, match="must buy"):
        g.apply(P2, Done())


def test_4_2_5_1_no_company_may_buy_an_obsolete_train() -> None:
    g = record_game(OR_7_1_NCSTL + 3)  # NC&StL has run and paid; its train step
    assert now(g) == "NC&StL"
    with pytest.raises(GameError, match="obsolete"):
        buy_train_from(g, "L&N", "4", 1)
    assert trains_of(g, "NC&StL") == ["5"]


# --- 4.2.5.2: forced purchase ----------------------------------------------------------


def test_4_2_5_2_no_train_and_a_route_the_turn_cannot_end_without_buying() -> None:
    g = record_game(OR_6_3_GMO_TRAIN)  # GMO: no train, $540; the next train costs $600
    with pytest.raises(GameError, match="must buy"):
        g.apply(P4, Done())
    president_cash = g.state.players[P4].cash
    g.apply(P4, BuyTrain("6"))
    assert trains_of(g, "GMO") == ["6"]
    assert g.state.corporations["GMO"].cash == 0  # the president paid only the $60 lacking
    assert g.state.players[P4].cash == president_cash - 60


def test_4_2_5_2_d_the_president_sells_just_enough_and_keeps_the_presidency() -> None:
    g = forced_purchase_position()  # TC $1, Bob $30: $49 short of a $80 2-train
    priority = g.state.priority
    with pytest.raises(GameError, match="must sell shares"):
        g.apply("Bob", BuyTrain("2"))
    # Two GMO shares ($55 each) when one is enough: refused.
    with pytest.raises(GameError, match="only enough"):
        g.apply("Bob", SellShares("GMO", 2))
    # One TC share would be enough, but Ann (20%) would take the presidency from Bob.
    with pytest.raises(GameError, match="its president changes"):
        g.apply("Bob", SellShares("TC", 1))
    g.apply("Bob", SellShares("GMO", 1))
    assert g.state.players["Bob"].cash == 30 + 55
    assert g.state.market.price("GMO") == 50  # one row down, as in a stock round
    assert g.state.corporations["GMO"].pool_percent == 10
    g.apply("Bob", BuyTrain("2"))
    assert trains_of(g, "TC") == ["2"]
    assert g.state.corporations["TC"].cash == 0
    assert g.state.players["Bob"].cash == 30 + 55 - 79
    assert g.state.corporations["TC"].president == "Bob"
    assert g.state.priority == priority  # not a stock turn


def test_4_2_5_2_d_the_president_may_sell_as_soon_as_the_purchase_is_forced() -> None:
    # TC's turn has just begun: no train to run, so the optional steps may be skipped
    # straight to the forced purchase, and with it the sale that pays for it.
    g = tc_turn_begins_without_a_train()
    assert now(g) == "TC" and g.turn().step == "track"  # type: ignore[union-attr]
    with pytest.raises(GameError, match="must sell shares"):
        g.apply("Bob", BuyTrain("2"))
    g.apply("Bob", SellShares("GMO", 1))
    g.apply("Bob", BuyTrain("2"))
    assert trains_of(g, "TC") == ["2"]
    assert g.state.corporations["TC"].cash == 0


def test_4_2_5_2_a_with_the_presidents_money_only_the_cheapest_train() -> None:
    g = phase_5_discards()
    discard(g, {"NC&StL": "4", "TC": "3"})  # the Open Market: a 3-train and a 4-train
    g.apply(P2, Done())
    replay_moves(g, 281, 284)  # IC buys the second 5-train; GMO's turn
    assert now(g) == "GMO" and trains_of(g, "GMO") == []
    assert g.state.trains_offered[0].name == "6"
    to_train_step(g)
    gmo = g.state.corporations["GMO"]
    assert gmo.cash == 122 and g.state.players[P4].cash == 12
    with pytest.raises(GameError, match="cheapest"):
        g.apply(P4, BuyTrain("4", source=POOL))
    with pytest.raises(GameError, match="cheapest"):
        g.apply(P4, BuyTrain("6"))
    # $46 short of the $180 3-train; GMO's shares sell for $30 each.
    price = g.state.market.price("GMO")
    assert price == 30
    with pytest.raises(GameError, match="only enough"):
        g.apply(P4, SellShares("GMO", 3))
    g.apply(P4, SellShares("GMO", 2))
    g.apply(P4, BuyTrain("3", source=POOL))
    assert trains_of(g, "GMO") == ["3"]
    assert g.state.corporations["GMO"].cash == 0
    assert g.state.players[P4].cash == 12 + 2 * price - (180 - 122)
    assert names(g.state.trains_pool) == ["4"]


def test_4_2_5_2_a_no_train_from_another_company_with_the_presidents_money() -> None:
    g = forced_purchase_position()  # TC $1; the L&N owns a 2-train
    with pytest.raises(GameError, match=r"TC has \$1"):
        buy_train_from(g, "L&N", "2", 50)  # Bob may not top this price up
    assert g.state.players["Bob"].cash == 30
    assert trains_of(g, "TC") == [] and trains_of(g, "L&N") == ["2"]


def test_4_2_5_2_a_d_after_the_presidents_sale_no_train_from_another_company() -> None:
    """4.2.5.2(a): "No train may be purchased from another company if the president
    contributes personal funds"; (d): "If the president does not have the needed cash,
    he must sell stock" -- a sale under (d) is his contribution, so the company may no
    longer buy the L&N's train, even for the $1 it holds, which would have made the
    sale needless."""
    g = forced_purchase_position()  # TC $1, Bob $30: $49 short of a $80 2-train
    assert "buy train 2 from L&N for PRICE ($1, if Ann agrees)" in g.legal()
    g.apply("Bob", SellShares("GMO", 1))
    assert not any("from L&N" in order for order in g.legal())
    with pytest.raises(GameError, match=r"Bob contributes to TC's train: no train may be "
                       r"purchased from another company if the president contributes "
                       r"personal funds \(4\.2\.5\.2\(a\)\)"):
        g.apply("Bob", BuyTrain("2", source="L&N", price=1))
    assert trains_of(g, "TC") == [] and trains_of(g, "L&N") == ["2"]
    g.apply("Bob", BuyTrain("2"))
    assert trains_of(g, "TC") == ["2"] and g.state.corporations["TC"].cash == 0


# --- 5.1: the Civil War ----------------------------------------------------------------


def test_5_1_the_fourth_3_train_starts_the_civil_war() -> None:
    g = record_game(OR_4_2_SR_BUYS_4TH_3)
    assert phase(g) == "3" and g.state.trains_offered[0].name == "3"
    assert all(CIVIL_WAR not in c.markers for c in g.state.corporations.values())
    replay_moves(g, OR_4_2_SR_BUYS_4TH_3, OR_4_2_SR_BUYS_4TH_3 + 1)
    assert phase(g) == "3½"
    hit = sorted(c.sym for c in g.state.corporations.values() if CIVIL_WAR in c.markers)
    assert hit == ["GMO", "IC", "L&N", "SR"]  # every company with trains, SR included


def test_5_1_no_civil_war_for_a_company_without_a_route() -> None:
    g = civil_war_without_a_route()
    sr = g.state.corporations["SR"]
    assert trains_of(g, "SR") == ["2"]  # a train, but no track from Knoxville
    assert CIVIL_WAR in g.state.corporations["TC"].markers
    assert CIVIL_WAR in g.state.corporations["L&N"].markers
    assert CIVIL_WAR not in sr.markers  # "should not receive a Civil War token"
    # So SR, which does not run, moves left as usual (4.2.4): no one-train exception.
    row, col = g.state.market.positions["SR"]
    g.apply("Cy", Done())
    assert g.state.market.positions["SR"] == (row, col - 1)


def test_5_1_a_company_loses_the_income_of_one_train_in_its_next_run() -> None:
    g = record_game(OR_4_2_IC_RUN)  # IC: a 2-train and a 3-train, hit by the war
    # 2-train St. Louis 40 + Paducah 20 = 60; 3-train Dyersburg 10 + Memphis (green) 30 +
    # Little Rock 20 = 60. One of them earns nothing.
    replay_moves(g, OR_4_2_IC_RUN, OR_4_2_IC_RUN + 1)
    assert revenue(g) == 60
    position = g.state.market.positions["IC"]
    g.apply(P1, Dividend("payout"))
    assert g.state.market.positions["IC"] == (position[0], position[1] + 1)  # 2 trains
    assert CIVIL_WAR not in g.state.corporations["IC"].markers


def test_5_1_a_one_train_company_runs_for_nothing_and_keeps_its_price() -> None:
    g = record_game(OR_4_2_GMO_RUN)  # GMO: one 3-train
    position = g.state.market.positions["GMO"]
    cash = g.state.corporations["GMO"].cash
    replay_moves(g, OR_4_2_GMO_RUN, OR_4_2_GMO_RUN + 1)  # Gulf Coast-Corinth-Jackson
    assert revenue(g) == 0
    if now(g) == "GMO" and g.turn().step == "dividend":  # type: ignore[union-attr]
        g.apply(P4, Dividend("withhold"))
    assert g.state.market.positions["GMO"] == position  # no move left
    assert g.state.corporations["GMO"].cash == cash
    assert CIVIL_WAR not in g.state.corporations["GMO"].markers


def test_5_1_the_company_that_triggered_the_war_is_hit_too() -> None:
    g = record_game(OR_5_1_SR_RUN)  # SR bought the fourth 3-train; now one 3-train
    assert CIVIL_WAR in g.state.corporations["SR"].markers
    position = g.state.market.positions["SR"]
    replay_moves(g, OR_5_1_SR_RUN, OR_5_1_SR_RUN + 1)
    assert revenue(g) == 0
    assert g.state.market.positions["SR"] == position


# --- 8(c): salvage -----------------------------------------------------------------------


def test_8_c_salvage_50_per_3_train_removed_at_phase_6() -> None:
    plain, salvage = record_game(398), record_game(398, SALVAGE)
    before = {sym: c.cash for sym, c in salvage.state.corporations.items()}
    assert before == {sym: c.cash for sym, c in plain.state.corporations.items()}
    threes = {sym: sum(1 for t in c.trains if t.name == "3")
              for sym, c in salvage.state.corporations.items()}
    assert threes == {"SR": 1, "GMO": 2, "L&N": 1, "IC": 0, "NC&StL": 0, "TC": 1}
    for g in (plain, salvage):
        replay_moves(g, 398, 399)  # IC buys the first 6-train: the 3-trains go
    for sym, c in salvage.state.corporations.items():
        assert c.cash == plain.state.corporations[sym].cash + 50 * threes[sym]
    assert salvage.state.bank_cash == plain.state.bank_cash - 250
