"""1851 operating rounds (OPERATING ROUNDS, ROUTES, LAY OR UPGRADE TRACK, PLACE STATION
MARKER, RUN TRAIN(S), PAY DIVIDENDS, PURCHASE TRAINS, ISSUE OR REDEEM STOCK, PHASES),
each rule played out on a real game (see scenarios_1851 for the openings).

Values from data/1851.json: a yellow city tile (57, 5, 6) $20, the yellow Y tile 202
$30, Louisville's two printed cities $20 each, St. Louis A3 $40 in phases 2-3.
"""

from __future__ import annotations

import pytest
from scenarios_1851 import (
    SEATS3,
    cash,
    end_turn,
    finish_turn,
    forced_purchase_position,
    forced_purchase_with_unoperated_shares,
    ln_priced,
    ln_shareholders_opening,
    louisville_opening,
    new_game,
    next_operating_round,
    now,
    operating,
    pass_stock_round,
    play,
    play_operating_round,
    price,
    revenue,
    single_company_opening,
    square,
    still_operating,
    tc_opening,
    two_company_opening,
)

from engine import board, trains
from engine.actions import (
    Accept,
    BuyShares,
    BuyTrain,
    Decline,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RedeemShares,
    Route,
    RunRoutes,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game
from engine.legal import legal_actions
from engine.state import TREASURY

# --- OPERATING ROUNDS: privates pay, then corporations in market order ---------------------


def test_privates_pay_their_income_at_the_start_of_each_operating_round() -> None:
    g = ln_priced(90)
    play(g, ("Cy", Par("IC", 100)), ("Di", BuyShares("L&N")), ("Ann", BuyShares("IC")),
         ("Bob", BuyShares("L&N")), ("Cy", BuyShares("IC")), ("Di", BuyShares("IC")))
    before = {s: cash(g, s) for s in ("Ann", "Bob", "Cy", "Di")}
    bank = g.state.bank_cash
    pass_stock_round(g)
    assert g.round_name == "Operating Round 1.1"
    # ET&WNC $15 (Ann), L&O $5 (Bob), M&C $10 (Cy), O&W $20 (Di).
    assert {s: cash(g, s) - before[s] for s in before} == {"Ann": 15, "Bob": 5, "Cy": 10,
                                                            "Di": 20}
    assert g.state.bank_cash == bank - 50


def test_privates_pay_even_when_no_corporation_operates() -> None:
    g = ln_priced(90)
    before = cash(g, "Di")
    for seat in ("Cy", "Di", "Ann", "Bob"):
        g.apply(seat, Pass())
    # Nothing floated: the operating round is the privates' alone.
    assert g.round_name == "Stock Round 2"
    assert cash(g, "Di") == before + 20


def test_the_corporation_with_the_highest_price_operates_first() -> None:
    g = two_company_opening()  # IC 110, L&N 100
    assert now(g) == "IC"
    order = play_operating_round(g)
    assert order == ["IC", "L&N"]


def test_equal_prices_the_token_furthest_right_operates_first() -> None:
    g = two_company_opening()
    # OR 1.1: both have no train and withhold: IC 110 (1,4) -> 100 (1,3); L&N 100 -> 90.
    play(g, ("Cy", LayTile("5", "A5", 0)))
    finish_turn(g, "IC")
    finish_turn(g, "L&N")
    pass_stock_round(g)
    # OR 2.1: the IC runs A5-A3 ($60) and withholds: 100 (1,3) -> 90 (1,2); the L&N runs
    # Louisville ($40) and pays: 40 < 90, no move: 90 (2,3).
    assert now(g) == "IC"
    finish_turn(g, "IC", "withhold")
    finish_turn(g, "L&N", "payout")
    assert square(g, "IC") == (1, 2) and square(g, "L&N") == (2, 3)
    assert price(g, "IC") == price(g, "L&N") == 90
    pass_stock_round(g)
    assert now(g) == "L&N"  # same price; the L&N's token is further right
    assert play_operating_round(g) == ["L&N", "IC"]


# --- LAY OR UPGRADE TRACK -----------------------------------------------------------------


def test_a_corporation_whose_home_hex_has_no_track_may_lay_only_there() -> None:
    g = two_company_opening()
    with pytest.raises(GameError, match="home"):
        g.apply("Cy", LayTile("9", "A7", 1))  # plain track east of East St. Louis
    assert "A7" not in g.state.board.tiles
    g.apply("Cy", LayTile("5", "A5", 0))
    assert g.state.board.tiles["A5"].name == "5"


def test_phase_2_allows_one_yellow_tile_per_turn() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))  # East St. Louis to St. Louis (edge 1) and B4
    # 7 on B4 (from A5 towards B6) would fit the map and the IC's track ...
    board.check_lay(g.rules, g.state, g.state.corporations["IC"], "B4", "7", 3)
    with pytest.raises(GameError, match="tile"):
        g.apply("Cy", LayTile("7", "B4", 3))  # ... but it would be a second tile
    assert "B4" not in g.state.board.tiles


def test_green_tiles_are_not_available_in_phase_2() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    finish_turn(g, "IC")
    assert now(g) == "L&N"
    with pytest.raises(GameError, match=r"green|upgrade|tile"):
        g.apply("Bob", LayTile("511", "B16", 0))
    assert "B16" not in g.state.board.tiles


def test_from_phase_3_one_or_two_yellow_tiles() -> None:
    g = louisville_opening()
    finish_turn(g, "L&N", "withhold")
    assert now(g) == "TC"
    # Nashville's SE exit leads to G13; the second tile may extend the first.
    g.apply("Cy", LayTile("9", "G13", 2))
    g.apply("Cy", LayTile("8", "H14", 0))
    assert g.state.board.tiles["G13"].name == "9" and g.state.board.tiles["H14"].name == "8"
    with pytest.raises(GameError, match="tile"):
        g.apply("Cy", LayTile("57", "I13", 0))  # a third is one too many
    assert "I13" not in g.state.board.tiles


def test_from_phase_3_one_upgrade_instead_of_yellow_tiles() -> None:
    g = louisville_opening()
    g.apply("Bob", LayTile("511", "B16", 0))  # an upgrade ...
    with pytest.raises(GameError, match="tile"):
        g.apply("Bob", LayTile("7", "A15", 5))  # ... and nothing else
    g = louisville_opening()
    finish_turn(g, "L&N", "withhold")
    g.apply("Cy", LayTile("9", "G13", 2))  # a yellow tile ...
    with pytest.raises(GameError, match="tile"):
        g.apply("Cy", LayTile("14", "D14", 0))  # ... then no upgrade
    assert g.state.board.tiles["D14"].name == "57"


def test_louisville_first_change_is_a_green_y_tile_with_track_on_the_south_west_edge() -> None:
    g = louisville_opening()
    for tile, rotation in (("202", 0), ("57", 0), ("14", 0), ("15", 0), ("619", 0)):
        with pytest.raises(GameError):
            g.apply("Bob", LayTile(tile, "B16", rotation))  # not a green Y tile
    for rotation in (1, 3, 5):  # 511 turned away from the south-west edge (edge 0)
        with pytest.raises(GameError, match="B16"):
            g.apply("Bob", LayTile("511", "B16", rotation))
    assert "B16" not in g.state.board.tiles
    g.apply("Bob", LayTile("511", "B16", 0))
    assert g.state.board.tiles["B16"].name == "511"
    tokens = g.state.board.tokens["B16"]
    # The two printed cities become the green tile's one city, stations and all.
    assert sorted(sym for corps in tokens.values() for sym in corps) == ["L&N", "TC"]
    assert len(tokens) == 1


def test_y_cities_take_only_y_tiles() -> None:
    g = tc_opening()  # Nashville F12 is a Y city
    for tile in ("57", "5", "6"):
        with pytest.raises(GameError):
            g.apply("Cy", LayTile(tile, "F12", 0))
    g.apply("Cy", LayTile("202", "F12", 0))
    assert g.state.board.tiles["F12"].name == "202"


def test_y_tiles_may_not_be_laid_in_ordinary_cities() -> None:
    g = two_company_opening()  # East St. Louis A5 is an ordinary city
    for rotation in range(6):
        with pytest.raises(GameError):
            g.apply("Cy", LayTile("202", "A5", rotation))
    assert "A5" not in g.state.board.tiles


def test_terrain_costs_are_paid_to_the_bank_by_the_first_builder() -> None:
    g = tc_opening()
    bank = g.state.bank_cash
    g.apply("Cy", LayTile("202", "F12", 0))  # Nashville: $40 water
    assert g.state.corporations["TC"].cash == 310 - 40
    assert g.state.bank_cash == bank + 40


def test_plain_hexes_take_plain_track_and_city_hexes_city_tiles() -> None:
    g = two_company_opening()
    with pytest.raises(GameError):
        g.apply("Cy", LayTile("9", "A5", 1))  # plain track in a city hex
    g.apply("Cy", LayTile("5", "A5", 0))
    finish_turn(g, "IC")
    with pytest.raises(GameError):
        g.apply("Bob", LayTile("57", "C15", 0))  # a city tile on a plain hex
    g.apply("Bob", LayTile("9", "C15", 0))


def test_new_track_must_extend_a_route_of_the_corporation() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    finish_turn(g, "IC")
    with pytest.raises(GameError, match=r"must extend a route of L&N \(LAY OR UPGRADE "
                       r"TRACK\)"):
        g.apply("Bob", LayTile("9", "D16", 0))  # nowhere near Louisville's track
    with pytest.raises(GameError):
        g.apply("Bob", LayTile("9", "A15", 0))  # Louisville has no track to A15 yet
    assert "D16" not in g.state.board.tiles and "A15" not in g.state.board.tiles


def test_track_may_not_run_into_a_blank_gray_side_or_across_a_heavy_black_line() -> None:
    g = single_company_opening("SR")  # Knoxville F20
    g.apply("Cy", LayTile("57", "F20", 1))  # west to F18, east to F22
    end_turn(g, "SR")
    next_operating_round(g)
    sr = g.state.corporations["SR"].cash
    # F22's north-east side faces Johnson City's blank (south-west) side.
    with pytest.raises(GameError, match="blank"):
        g.apply("Cy", LayTile("8", "F22", 1))
    g.apply("Cy", LayTile("7", "F22", 1))  # to E21 instead: $60 mountain
    assert g.state.corporations["SR"].cash == sr - 60
    g = tc_opening()
    g.apply("Cy", LayTile("202", "F12", 0))
    end_turn(g, "TC")
    next_operating_round(g)
    # Hopkinsville E11 has heavy black lines on its south-west and west sides.
    for tile, rotation in (("57", 0), ("5", 0), ("6", 5)):
        with pytest.raises(GameError, match="impassable"):
            g.apply("Cy", LayTile(tile, "E11", rotation))
    assert "E11" not in g.state.board.tiles


def birmingham_opening() -> Game:
    """The Dixie (Cy) builds from Chattanooga H16 to Birmingham J12 in phase 2: 202 on
    H16 (exits SW to I15 and NW to G15, $40 water), 9 on I15, 8 on J14 (NE to the SW of
    I15 ... W into Birmingham's east side)."""
    g = single_company_opening("Dixie")
    g.apply("Cy", LayTile("202", "H16", 0))
    end_turn(g, "Dixie")
    next_operating_round(g)
    g.apply("Cy", LayTile("9", "I15", 0))
    end_turn(g, "Dixie")
    next_operating_round(g)
    return g


def test_birmingham_track_may_be_laid_in_phase_2_but_not_used_in_routes() -> None:
    g = birmingham_opening()
    assert g.rules.phase(g.state).name == "2"
    g.apply("Cy", LayTile("8", "J14", 1))  # runs into Birmingham: allowed
    assert g.state.board.tiles["J14"].name == "8"
    # Chattanooga-Birmingham is the Dixie's only track; Birmingham's track is not usable
    # yet, so the Dixie has no route and need not buy a train.
    g.apply("Cy", Done())
    assert g.state.corporations["Dixie"].trains == []
    next_operating_round(g)
    # With a train bought, no route through Birmingham may be run.
    g.apply("Cy", BuyTrain("2"))
    end_turn(g, "Dixie")
    next_operating_round(g)
    with pytest.raises(GameError):
        g.apply("Cy", RunRoutes((Route("2", ("H16", "I15", "J14", "J12")),)))
    g.apply("Cy", RunRoutes(auto=True))
    assert revenue(g) == 0


# --- PLACE STATION MARKER -------------------------------------------------------------------


def gmo_with_two_cities() -> Game:
    """The GM&O (Cy) lays 57 on its home Jackson G7 (NW to Dyersburg F6, SE to H8) in
    OR 1.1 and 6 on Dyersburg F6 in OR 2.1."""
    g = single_company_opening("GM&O")
    g.apply("Cy", LayTile("57", "G7", 2))
    end_turn(g, "GM&O")
    next_operating_round(g)
    g.apply("Cy", LayTile("6", "F6", 3))
    return g


def test_a_station_is_free_one_per_round_on_a_city_of_a_route() -> None:
    g = gmo_with_two_cities()
    gmo_cash = g.state.corporations["GM&O"].cash
    with pytest.raises(GameError):
        g.apply("Cy", PlaceToken("H4"))  # Memphis is not on a GM&O route
    with pytest.raises(GameError):
        g.apply("Cy", PlaceToken("G7"))  # one station per corporation per hex
    g.apply("Cy", PlaceToken("F6"))
    assert g.state.board.tokens["F6"] == {0: ["GM&O"]}
    assert g.state.corporations["GM&O"].cash == gmo_cash  # free of charge
    assert g.state.corporations["GM&O"].token_costs == [0, 0]


def test_no_station_in_birmingham_or_johnson_city() -> None:
    g = birmingham_opening()
    g.apply("Cy", LayTile("8", "J14", 1))
    with pytest.raises(GameError):
        g.apply("Cy", PlaceToken("J12"))
    with pytest.raises(GameError):
        g.apply("Cy", PlaceToken("E23"))
    assert "J12" not in g.state.board.tokens and "E23" not in g.state.board.tokens


def test_a_home_space_is_kept_free_until_that_corporation_floats() -> None:
    g = ln_shareholders_opening()  # L&N floated, one 2-train; the TC is not started
    pass_stock_round(g)
    for hex_id, tile, rotation in (("C15", "9", 0), ("D14", "57", 0), ("E13", "9", 0)):
        g.apply("Bob", LayTile(tile, hex_id, rotation))
        finish_turn(g, "L&N")
        pass_stock_round(g)
    g.apply("Bob", LayTile("202", "F12", 3))  # Nashville: the TC's home, one space
    with pytest.raises(GameError, match=r"a space is left free for a Corporation not yet "
                       r"floated \(PLACE STATION MARKER\)"):
        g.apply("Bob", PlaceToken("F12"))
    assert "F12" not in g.state.board.tokens
    finish_turn(g, "L&N")
    # The TC floats: its home station takes the space at once.
    play(g, ("Bob", Pass()), ("Cy", Par("TC", 90)), ("Di", BuyShares("TC")),
         ("Ann", BuyShares("TC")), ("Bob", Pass()), ("Cy", BuyShares("TC")))
    assert g.state.board.tokens["F12"] == {0: ["TC"]}


# --- ROUTES and RUN TRAIN(S) ----------------------------------------------------------------


def test_the_two_louisville_cities_are_separate_stops() -> None:
    g = ln_shareholders_opening()
    pass_stock_round(g)
    g.apply("Bob", RunRoutes(auto=True))
    assert revenue(g) == 40  # north-east city $20 + south-west city $20
    run = operating(g).current.run  # type: ignore[union-attr]
    assert run is not None
    stops = run.runs[0].walk.stops
    assert [s.hex for s in stops] == ["B16", "B16"] and stops[0] != stops[1]


def test_an_off_board_counts_its_lowest_value_in_phase_2() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    finish_turn(g, "IC")
    finish_turn(g, "L&N")
    pass_stock_round(g)
    g.apply("Cy", RunRoutes(auto=True))
    assert revenue(g) == 20 + 40  # East St. Louis (tile 5) + St. Louis (40/50/70)


def test_a_route_may_end_in_but_not_run_through_a_city_full_of_other_stations() -> None:
    g = louisville_opening()
    # In OR 2.1 the TC ran Louisville c1 (its station) to c0 (the L&N's, full): $40.
    # The L&N buys a 3-train: from its station in c0 the only way out of Louisville is
    # through c1, full of the TC's station: it may end there but not go on to D14.
    finish_turn(g, "L&N", "withhold")
    finish_turn(g, "TC")
    assert g.round_name == "Operating Round 4.2"
    while now(g) != "L&N":
        finish_turn(g, now(g))
    play(g, ("Bob", RunRoutes(auto=True)), ("Bob", Dividend("withhold")),
         ("Bob", BuyTrain("3")))
    end_turn(g, "L&N")
    next_operating_round(g)
    while now(g) != "L&N":
        finish_turn(g, now(g))
    with pytest.raises(GameError):
        g.apply("Bob", RunRoutes((Route("3", ("B16", "C15", "D14")),)))
    g.apply("Bob", RunRoutes(auto=True))
    assert revenue(g) == 40  # c0-c1 only; through c1 to Bowling Green would be $60


def test_a_route_may_end_in_a_city_full_of_another_corporations_stations() -> None:
    g = louisville_opening()
    finish_turn(g, "L&N", "withhold")
    assert now(g) == "TC"  # trains 2, 2, 3
    g.apply("Cy", RunRoutes(auto=True))
    run = operating(g).current.run  # type: ignore[union-attr]
    assert run is not None
    stops = {frozenset(str(s) for s in r.walk.stops): r.revenue for r in run.runs}
    # Louisville's south-west city (the TC's station) to its north-east city (the L&N's
    # only space): $40, ending in the full city.
    assert stops[frozenset({"B16.c1", "B16.c0"})] == 40
    assert revenue(g) == 50 + 40 + 40  # and Nashville-Bowling Green, Louisville-Bowling Green


# --- PAY DIVIDENDS --------------------------------------------------------------------------


def tc_with_route() -> Game:
    """The TC (Cy) lays 202 on Nashville F12 in OR 1.1 (SW to G11, NW to Hopkinsville
    E11) and 6 on Hopkinsville E11 in OR 2.1 (joined by F12's NW side): a route F12-E11
    worth 30 + 20 = $50. It buys a 2-train (forced) in OR 2.1."""
    g = tc_opening()
    g.apply("Cy", LayTile("202", "F12", 0))
    end_turn(g, "TC")
    next_operating_round(g)
    g.apply("Cy", LayTile("6", "E11", 3))
    with pytest.raises(GameError, match="train"):
        g.apply("Cy", Done())  # a route and no train: it must buy one
    g.apply("Cy", BuyTrain("2"))
    return g


def test_a_half_dividend_is_rounded_up_to_10_and_the_rest_kept() -> None:
    g = tc_with_route()
    end_turn(g, "TC")
    next_operating_round(g)
    before = {s: cash(g, s) for s in ("Ann", "Bob", "Cy", "Di")}
    tc_cash = g.state.corporations["TC"].cash
    bank = g.state.bank_cash
    g.apply("Cy", RunRoutes(auto=True))
    assert revenue(g) == 50
    pos = square(g, "TC")
    g.apply("Cy", Dividend("half"))
    # Half of $50 is $25, rounded up to $30 paid ($3 a share); $20 kept.
    assert {s: cash(g, s) - before[s] for s in before} == {"Ann": 3, "Bob": 0, "Cy": 9,
                                                            "Di": 3}
    assert g.state.corporations["TC"].cash == tc_cash + 20 + 5 * 3  # treasury 50%
    assert g.state.bank_cash == bank - 50
    assert square(g, "TC") == pos  # 10 x $3 is below the price: no move


def test_pool_shares_dividends_are_lost_and_treasury_shares_pay_the_corporation() -> None:
    g = tc_with_route()
    g.apply("Cy", IssueShares(1))  # treasury 40%, pool 10%
    next_operating_round(g)
    before = {s: cash(g, s) for s in ("Ann", "Bob", "Cy", "Di")}
    tc_cash = g.state.corporations["TC"].cash
    bank = g.state.bank_cash
    play(g, ("Cy", RunRoutes(auto=True)), ("Cy", Dividend("payout")))
    # $50: $5 a share. Cy 30% 15, Ann and Di 10% 5 each, treasury 40% 20 to the TC,
    # the pool's 10% is paid to nobody.
    assert {s: cash(g, s) - before[s] for s in before} == {"Ann": 5, "Bob": 0, "Cy": 15,
                                                            "Di": 5}
    assert g.state.corporations["TC"].cash == tc_cash + 20
    assert g.state.bank_cash == bank - 45


def test_full_payout_below_the_price_does_not_move_it() -> None:
    g = tc_with_route()
    end_turn(g, "TC")
    next_operating_round(g)
    pos = square(g, "TC")
    assert price(g, "TC") > 50
    play(g, ("Cy", RunRoutes(auto=True)), ("Cy", Dividend("payout")))
    assert square(g, "TC") == pos


def test_withholding_moves_left_and_down_at_the_left_edge_until_the_bottom_left() -> None:
    g = new_game(SEATS3, seed=0)  # Ann holds the L&O: the L&N's president
    g.apply("Ann", Par("L&N", 70))
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("L&N")), ("Bob", Pass()),
         ("Cy", Pass()), ("Ann", BuyShares("L&N")), ("Bob", Pass()), ("Cy", Pass()),
         ("Ann", BuyShares("L&N")))
    assert square(g, "L&N") == (3, 2)  # floated: 70 (4,2) -> 75 (3,2)
    pass_stock_round(g)
    finish_turn(g, "L&N")  # no train yet: nothing earned, left to 70 (3,1)
    assert square(g, "L&N") == (3, 1)
    expected = [(3, 0), (4, 0), (5, 0), (6, 0), (6, 0)]  # down arrows, then bottom left
    for want in expected:
        pass_stock_round(g)
        g.apply("Ann", RunRoutes(auto=True))
        assert revenue(g) == 40
        g.apply("Ann", Dividend("withhold"))
        assert square(g, "L&N") == want
        end_turn(g, "L&N")
    assert price(g, "L&N") == 40
    # Paying $40 at $40: ten times $4 reaches the price: one square right.
    pass_stock_round(g)
    play(g, ("Ann", RunRoutes(auto=True)), ("Ann", Dividend("payout")))
    assert square(g, "L&N") == (6, 1) and price(g, "L&N") == 50
    end_turn(g, "L&N")
    # $40 at $50: not enough; no move.
    pass_stock_round(g)
    play(g, ("Ann", RunRoutes(auto=True)), ("Ann", Dividend("payout")))
    assert square(g, "L&N") == (6, 1)


def test_a_corporation_with_no_train_falls_on_its_first_turn() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    finish_turn(g, "IC")
    assert square(g, "IC") == (1, 3)  # 110 -> 100: nothing earned
    finish_turn(g, "L&N")
    assert square(g, "L&N") == (2, 3)  # 100 -> 90


# --- PURCHASE TRAINS ------------------------------------------------------------------------


def test_a_corporation_with_a_route_and_no_train_must_buy_one() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    with pytest.raises(GameError, match="train"):
        g.apply("Cy", Done())
    assert now(g) == "IC"
    g.apply("Cy", BuyTrain("2"))
    assert [t.name for t in g.state.corporations["IC"].trains] == ["2"]


def test_several_trains_per_turn_up_to_the_limit_of_four_in_phase_2() -> None:
    g = ln_shareholders_opening()  # the L&N owns one 2-train, $450
    pass_stock_round(g)
    play(g, ("Bob", RunRoutes(auto=True)), ("Bob", Dividend("payout")))
    for _ in range(3):
        g.apply("Bob", BuyTrain("2"))
    ln = g.state.corporations["L&N"]
    assert [t.name for t in ln.trains] == ["2", "2", "2", "2"]
    assert ln.cash == 450 + 12 - 300  # $40 paid out: the treasury's 30% brought $12
    with pytest.raises(GameError, match="limit"):
        g.apply("Bob", BuyTrain("2"))
    assert len(g.state.corporations["L&N"].trains) == 4


def test_a_bank_train_costs_its_face_value() -> None:
    g = two_company_opening()
    g.apply("Cy", LayTile("5", "A5", 0))
    with pytest.raises(GameError):
        g.apply("Cy", BuyTrain("2", price=50))
    bank = g.state.bank_cash
    g.apply("Cy", BuyTrain("2"))
    assert g.state.corporations["IC"].cash == 300 and g.state.bank_cash == bank + 100
    with pytest.raises(GameError):
        g.apply("Cy", BuyTrain("3"))  # only the next train of the bank's offering


def test_trains_between_corporations_of_one_president_at_any_price_from_1() -> None:
    g = ln_priced(90)
    play(g, ("Cy", Par("IC", 70)), ("Di", BuyShares("IC")), ("Ann", BuyShares("IC")),
         ("Bob", BuyShares("IC")), ("Cy", Par("TC", 70)), ("Di", BuyShares("TC")),
         ("Ann", BuyShares("TC")), ("Bob", BuyShares("TC")))
    pass_stock_round(g)
    assert now(g) == "IC"  # both on 75; the IC floated first and lies on top
    play(g, ("Cy", LayTile("5", "A5", 0)), ("Cy", BuyTrain("2")))
    end_turn(g, "IC")
    assert now(g) == "TC"
    g.apply("Cy", LayTile("202", "F12", 0))
    tc = g.state.corporations["TC"].cash
    with pytest.raises(GameError):
        g.apply("Cy", BuyTrain("2", "IC", 0))
    with pytest.raises(GameError):
        g.apply("Cy", BuyTrain("2", "IC", tc + 1))  # no more than its treasury
    ic = g.state.corporations["IC"].cash
    g.apply("Cy", BuyTrain("2", "IC", 1))  # no consent needed: one president
    assert [t.name for t in g.state.corporations["TC"].trains] == ["2"]
    assert g.state.corporations["IC"].trains == []
    assert g.state.corporations["TC"].cash == tc - 1
    assert g.state.corporations["IC"].cash == ic + 1


def test_a_train_from_another_presidents_corporation_costs_face_value_with_consent() -> None:
    g = two_company_opening()
    play(g, ("Cy", LayTile("5", "A5", 0)), ("Cy", BuyTrain("2")), ("Cy", BuyTrain("2")))
    end_turn(g, "IC")
    assert now(g) == "L&N"
    with pytest.raises(GameError, match="face value"):
        g.apply("Bob", BuyTrain("2", "IC", 50))
    g.apply("Bob", BuyTrain("2", "IC", 100))
    turn = g.turn()
    assert turn is not None and turn.seat == "Cy"  # the IC's president must answer
    with pytest.raises(GameError):
        g.apply("Bob", Done())
    g.apply("Cy", Decline())
    assert len(g.state.corporations["IC"].trains) == 2
    assert g.state.corporations["L&N"].trains == []
    g.apply("Bob", BuyTrain("2", "IC", 100))
    ic = g.state.corporations["IC"].cash
    g.apply("Cy", Accept())
    assert len(g.state.corporations["IC"].trains) == 1
    assert [t.name for t in g.state.corporations["L&N"].trains] == ["2"]
    assert g.state.corporations["IC"].cash == ic + 100
    assert g.state.corporations["L&N"].cash == 350 - 100


def test_a_phase_change_takes_effect_at_once_and_the_set_of_rounds_is_not_lengthened() -> None:
    g = louisville_opening()
    # The TC's 3-train in OR 3.1 started phase 3 during a set of one operating round:
    # Stock Round 4 followed at once, and now the sets have two rounds.
    assert g.rules.phase(g.state).name == "3"
    assert g.state.operating_rounds_in_set == 2
    play_operating_round(g)
    assert g.round_name == "Operating Round 4.2"
    play_operating_round(g)
    assert g.round_name == "Stock Round 5"


# --- ISSUE OR REDEEM STOCK -------------------------------------------------------------------


def test_no_issuing_in_a_corporations_first_operating_turn() -> None:
    g = tc_opening()
    g.apply("Cy", LayTile("202", "F12", 0))
    with pytest.raises(GameError, match="first"):
        g.apply("Cy", IssueShares(1))
    assert g.state.corporations["TC"].percent_held_by(TREASURY) == 50


def test_issuing_sells_treasury_shares_to_the_pool_and_drops_the_price() -> None:
    g = tc_with_route()
    start = square(g, "TC")
    unit = price(g, "TC")
    tc_cash = g.state.corporations["TC"].cash
    bank = g.state.bank_cash
    g.apply("Cy", IssueShares(2))
    tc = g.state.corporations["TC"]
    assert tc.percent_held_by(TREASURY) == 30 and tc.pool_percent == 20
    assert tc.cash == tc_cash + 2 * unit  # the price before the drop, for each share
    assert g.state.bank_cash == bank - 2 * unit
    assert square(g, "TC") == (start[0] + 2, start[1])


def test_issue_or_redeem_not_both_in_one_turn() -> None:
    g = tc_with_route()
    g.apply("Cy", IssueShares(1))
    with pytest.raises(GameError):
        g.apply("Cy", RedeemShares(1))
    assert g.state.corporations["TC"].pool_percent == 10
    assert g.state.corporations["TC"].percent_held_by(TREASURY) == 40


def test_issuing_may_not_put_more_than_half_the_stock_in_the_pool() -> None:
    g = tc_with_route()
    # Treasury 50%: issuing all five would be allowed by the treasury, but Ann and Di's
    # shares could follow; here the pool may take five (50%), not six.
    with pytest.raises(GameError):
        g.apply("Cy", IssueShares(6))
    g.apply("Cy", IssueShares(5))
    assert g.state.corporations["TC"].pool_percent == 50


def test_redeeming_buys_pool_shares_at_the_price_without_moving_it() -> None:
    g = tc_with_route()
    g.apply("Cy", IssueShares(2))  # treasury 30%, pool 20%
    next_operating_round(g)
    finish_turn_before_issue(g)
    pos = square(g, "TC")
    unit = price(g, "TC")
    tc_cash = g.state.corporations["TC"].cash
    bank = g.state.bank_cash
    with pytest.raises(GameError):
        g.apply("Cy", RedeemShares(3))  # the pool holds two
    g.apply("Cy", RedeemShares(2))
    tc = g.state.corporations["TC"]
    assert tc.percent_held_by(TREASURY) == 50 and tc.pool_percent == 0
    assert tc.cash == tc_cash - 2 * unit and g.state.bank_cash == bank + 2 * unit
    assert square(g, "TC") == pos


def test_redemptions_may_not_take_the_treasury_over_half_the_stock() -> None:
    g = tc_with_route()
    g.apply("Cy", IssueShares(1))  # treasury 40%, pool 10%
    end_turn(g, "TC")
    assert g.round_name == "Stock Round 3"
    # Ann sells her share: the pool holds 20%.
    while now(g) != "Ann":
        g.apply(now(g), Pass())
    play(g, ("Ann", SellShares("TC", 1)), ("Ann", Done()))
    pass_stock_round(g)
    finish_turn_before_issue(g)
    with pytest.raises(GameError, match="50%"):
        g.apply("Cy", RedeemShares(2))
    g.apply("Cy", RedeemShares(1))
    tc = g.state.corporations["TC"]
    assert tc.percent_held_by(TREASURY) == 50 and tc.pool_percent == 10


def finish_turn_before_issue(g: Game) -> None:
    """Run, pay out and pass the train step, stopping at the issue step."""
    corp = now(g)
    play(g, ("Cy", RunRoutes(auto=True)), ("Cy", Dividend("payout")))
    assert still_operating(g, corp)
    turn = g.turn()
    assert turn is not None
    if turn.step == "train":
        g.apply("Cy", Pass())
    assert still_operating(g, corp)


def test_issue_and_redeem_only_after_the_train_step() -> None:
    g = tc_with_route()
    g.apply("Cy", IssueShares(1))
    with pytest.raises(GameError):
        g.apply("Cy", BuyTrain("2"))  # the train step is behind it
    assert len(g.state.corporations["TC"].trains) == 1
    assert g.state.corporations["TC"].pool_percent == 10


# --- forced purchases -------------------------------------------------------------------------


def test_a_forced_purchase_takes_the_treasury_then_the_presidents_cash_then_sales() -> None:
    g, sym, seat, other = forced_purchase_position()
    corp_cash = g.state.corporation(sym).cash
    cheapest = trains.cheapest_available(g.state)
    assert cheapest is not None
    train, cost, _ = cheapest
    assert corp_cash + cash(g, seat) < cost
    with pytest.raises(GameError, match="train"):
        g.apply(seat, Done())  # a route and no train: it must buy one
    with pytest.raises(GameError, match="sell"):
        g.apply(seat, BuyTrain(train.name))  # the president must first sell shares
    # Selling is allowed only until the money is there; then the cheapest train.
    while corp_cash + cash(g, seat) < cost:
        g.apply(seat, SellShares(other, 1))
    with pytest.raises(GameError):
        g.apply(seat, SellShares(other, 1))  # enough has been raised
    before, bank = cash(g, seat), g.state.bank_cash
    g.apply(seat, BuyTrain(train.name))
    assert g.state.corporation(sym).cash == 0
    assert cash(g, seat) == before - (cost - corp_cash)
    assert g.state.bank_cash == bank + cost
    assert [t.name for t in g.state.corporation(sym).trains] == [train.name]


def test_forced_sales_keep_the_operating_companys_presidents_certificate() -> None:
    g, sym, seat, _ = forced_purchase_position()
    corp = g.state.corporation(sym)
    held = corp.percent_held_by(seat)
    others = max(corp.percent_held_by(s) for s in g.state.seats if s != seat)
    # Selling down below another holder, or the president's certificate itself, is
    # refused: the president keeps the operating company.
    with pytest.raises(GameError):
        g.apply(seat, SellShares(sym, (held - others) // 10 + 1))
    assert g.state.corporation(sym).president == seat
    assert g.state.corporation(sym).certificates[0].owner == seat


def test_forced_sales_are_paid_the_price_at_the_start_of_the_train_purchase() -> None:
    # PURCHASE TRAINS: "the President receives the full value of each share sold (i.e.
    # its value at the start of the Train-buying action), even if the price drops as a
    # result of those sales".
    g, _, seat, other = forced_purchase_position()
    start = price(g, other)
    before = cash(g, seat)
    g.apply(seat, SellShares(other, 1))
    assert price(g, other) < start  # the sale dropped the price
    g.apply(seat, SellShares(other, 1))
    assert cash(g, seat) == before + 2 * start


def test_brown_tiles_are_not_available_before_phase_5() -> None:
    g = louisville_opening()  # phase 3
    g.apply("Bob", LayTile("511", "B16", 0))
    finish_turn(g, "L&N", "withhold")
    finish_turn(g, "TC")
    while now(g) != "L&N":
        finish_turn(g, now(g))
    with pytest.raises(GameError, match="brown"):
        g.apply("Bob", LayTile("216", "B16", 0))
    assert g.state.board.tiles["B16"].name == "511"


def test_legal_actions_list_issuing_when_it_is_allowed() -> None:
    # ISSUE OR REDEEM STOCK comes after the train purchase: at that point issuing is a
    # legal action and engine.legal.legal_actions (the list players' defaults and tools
    # use) should offer it, as Game.legal() should mention it.
    g = tc_with_route()
    assert g.clone().attempt("Cy", IssueShares(1))  # the engine accepts it here
    assert IssueShares(1) in legal_actions(g)
    assert any("issue" in text for text in g.legal())


def test_forced_sales_may_not_include_a_company_that_has_not_yet_operated() -> None:
    # PURCHASE TRAINS: "The normal constraints on stock sales apply"; SELLING STOCK:
    # "Shares in a Corporation which has not yet completed its turn in an Operating
    # Round may not be sold".
    g, seat, sym = forced_purchase_with_unoperated_shares()
    held = g.state.corporations[sym].percent_held_by(seat)
    with pytest.raises(GameError, match="operat"):
        g.apply(seat, SellShares(sym, 1))
    assert g.state.corporations[sym].percent_held_by(seat) == held
