"""1825 Unit 1: what a seat does when nobody decides for it (engine/defaults.py) keeps
to the rules of 6.3: a late director withholds, but never into bankruptcy; a late
receiver does what 6.4 obliges him to and nothing more."""

from __future__ import annotations

from scenarios_1825 import all_pass, first_round, lnwr_first_turn, new_game

from engine.actions import BuyShares, Dividend, Done, Pass, RunRoutes
from engine.defaults import conservative_action, sole_action


def lnwr_with_income(price_index: int | None = None):  # type: ignore[no-untyped-def]
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    g.apply("Bob", Done())
    all_pass(g)
    if price_index is not None:
        g.state.market.move("LNWR", (0, price_index))
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    return g


def test_6_3_a_late_director_withholds() -> None:
    g = lnwr_with_income()
    assert conservative_action(g) == Dividend("withhold")


def test_6_3_a_late_director_at_5_pays_out_rather_than_bankrupt_the_company() -> None:
    g = lnwr_with_income(price_index=1)  # £5
    assert g.state.market.price("LNWR") == 5
    assert conservative_action(g) == Dividend("payout")


def test_4_a_share_dealing_turn_with_nothing_left_is_ended_for_the_player() -> None:
    g = new_game()
    g.apply("Ann", BuyShares("LNWR"))
    # Nothing is sold in the first round: ending the turn is all Ann may do.
    assert isinstance(sole_action(g), Pass | Done)
    g.apply("Ann", Done())
    assert sole_action(g) is None  # Bob may buy


def test_6_4_3_a_late_receiver_leases_runs_withholds_and_buys_the_train_it_must() -> None:
    from test_1825_receivership import GWR_ROUTE, gwr_in_receivership

    from engine.actions import BuyTrain, LeaseTrain

    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    chosen = []
    while g.turn() is not None and g.turn().entity == "GWR":  # type: ignore[union-attr]
        action = conservative_action(g)
        chosen.append(action)
        g.apply("Cy", action)
    # 6.4.3 the lease that improves the income; 6.4.1 withheld without asking; 6.4.4
    # the next new train, which it can pay for and has a route for.
    assert chosen == [LeaseTrain(), RunRoutes(auto=True), BuyTrain("2", "bank"), Done()]
