"""18TN operating round rules (sections 4, 4.1, 4.2, 4.2.1-4.2.4, 4.2.6, Table III, 8(a),
8(b)), each played out on a real game: fresh openings or the recorded game 7818.

Revenue figures come from the map (data/18TN.json): Cincinnati A16 $50 yellow / $80
brown, Louisville B13 $30, Bowling Green D11 $10, a yellow city tile $20, a green city
$30 (Nashville's N tile $40), a town $10.
"""

from __future__ import annotations

import pytest
from tn_scenarios import (
    OR_2_1_LN_TOKEN_STEP,
    OR_3_1_IC_PRIVATES,
    OR_3_1_LN,
    OR_4_1_IC_USES_MCR,
    OR_4_1_LN_TOKEN,
    OR_4_1_SR_BUYS_ETWCR,
    OR_4_1_SR_DIVIDEND,
    OR_4_1_SR_USES_ETWCR,
    OR_4_2_LN,
    OR_4_2_SR_UPGRADE,
    OR_5_1_LN_TOKEN,
    OR_5_2_GMO,
    OR_5_2_LN,
    OR_7_2_SR,
    OR_8_1_LN_RUN,
    P1,
    P2,
    P3,
    SR_4_LAST_PASS,
    forced_purchase_position,
    four_company_opening,
    now,
    pass_stock_round,
    play,
    play_operating_round,
    president,
    record_game,
    record_move,
    replay_moves,
    revenue,
    three_company_opening,
)

from engine.actions import (
    BuyPrivate,
    BuyTrain,
    Dividend,
    Done,
    LayTile,
    Pass,
    PlaceToken,
    Route,
    RunRoutes,
    SellShares,
    UsePrivate,
)
from engine.errors import GameError
from engine.game import Game

THREE_YELLOW = frozenset({"three_yellow_first_turn"})
PHASE2_PRIVATES = frozenset({"phase2_private_sales"})


def run(g: Game, *routes: tuple[str, tuple[str, ...]]) -> int:
    """The operating company runs the declared routes; returns the revenue."""
    g.apply(president(g), RunRoutes(tuple(Route(train, hexes) for train, hexes in routes)))
    value = revenue(g)
    assert value is not None
    return value


def tc_builds_nashville_and_lebanon(g: Game) -> None:
    """TC (first to operate in `three_company_opening`) lays 57 on Nashville F11 (W-E)
    and 4 on Lebanon F13 (W-E): a route F11-F13."""
    assert now(g) == "TC"
    play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("4", "F13", 1)))


def to_second_operating_round(options: frozenset[str] = frozenset()) -> Game:
    """`three_company_opening` through OR 1 (TC builds F11/F13; everyone does the least)
    and Stock Round 2 (all pass): the start of OR 2.1, phase 2."""
    g = three_company_opening(options)
    tc_builds_nashville_and_lebanon(g)
    play_operating_round(g)
    pass_stock_round(g)
    assert g.round_name == "Operating Round 2.1"
    assert g.rules.phase(g.state).name == "2"
    return g


# --- 4, 4.1: privates pay; the order of the companies -------------------------------


def cash(g: Game) -> dict[str, int]:
    return {seat: p.cash for seat, p in g.state.players.items()}


def last_pass_of_stock_round(g: Game) -> tuple[dict[str, int], int]:
    """Pass the stock round out; the players' cash and the bank just before the pass that
    ends it (the operating round begins within that pass)."""
    while True:
        before, bank = cash(g), g.state.bank_cash
        g.apply(president(g), Pass())
        if not g.round_name.startswith("Stock Round"):
            return before, bank


def test_4_1_privates_pay_their_owners_at_the_start_of_each_operating_round() -> None:
    g = three_company_opening(end_stock_round=False)
    # Ann TCC ($5), Bob ETWCR ($10), Cy MCR ($15), Di OWR ($20); Ann's LNR was discarded.
    pays = {"Ann": 5, "Bob": 10, "Cy": 15, "Di": 20}
    before, bank = last_pass_of_stock_round(g)
    assert g.round_name == "Operating Round 1.1"
    assert {s: cash(g)[s] - before[s] for s in before} == pays
    assert g.state.bank_cash == bank - 50
    tc_builds_nashville_and_lebanon(g)
    play_operating_round(g)
    before, bank = last_pass_of_stock_round(g)
    assert g.round_name == "Operating Round 2.1"
    assert {s: cash(g)[s] - before[s] for s in before} == pays
    assert g.state.bank_cash == bank - 50


def test_4_1_a_private_owned_by_a_company_pays_the_company() -> None:
    g = record_game(SR_4_LAST_PASS)  # IC bought MCR ($15) in OR 3.1
    assert g.state.privates["MCR"].owner == "IC"
    ic = g.state.corporations["IC"].cash
    owner = g.state.players[P1].cash  # IC's president, who sold it
    move = record_move(SR_4_LAST_PASS)
    g.apply(move.seat, move.action)  # the stock round ends, OR 4.1 begins
    assert g.round_name == "Operating Round 4.1"
    assert g.state.corporations["IC"].cash == ic + 15
    assert g.state.players[P1].cash == owner


def test_4_b_highest_price_first_then_the_token_on_top_of_the_stack() -> None:
    g = three_company_opening()
    # TC and SR both sit on the $90 space, TC's token on top (it was parred first); the
    # corporations are listed SR before TC, so only the stack can put TC first.
    market = g.state.market
    assert market.positions["TC"] == market.positions["SR"]
    assert market.stacks[market.positions["TC"]][:2] == ["TC", "SR"]
    assert play_operating_round(g) == ["TC", "SR", "L&N"]


def test_4_b_on_equal_prices_the_right_most_token_goes_first() -> None:
    g = three_company_opening()
    play_operating_round(g)
    # Set up the prices for OR 2: TC at $80 far right on a low row, SR at $80 further
    # left on a higher row. The right-most token operates first.
    g.state.market.place("TC", (4, 6))
    assert g.state.market.price("TC") == 80
    assert g.state.market.positions["SR"] == (1, 3) and g.state.market.price("SR") == 80
    pass_stock_round(g)
    assert play_operating_round(g) == ["TC", "SR", "L&N"]


def test_4_b_the_recorded_game_orders_by_price_column_and_stack() -> None:
    # OR 5.1 of game 7818: L&N $90; SR $80 at column 6; TC and NC&StL $80 at column 4 with
    # TC on top; IC $75; GMO $40.
    g = record_game(261)
    positions = g.state.market.positions
    assert positions["SR"] == (4, 6) and positions["TC"] == positions["NC&StL"] == (2, 4)
    order = [now(g)]
    for n in range(261, 288):
        replay_moves(g, n, n + 1)
        if g.round_name == "Operating Round 5.1" and now(g) != order[-1]:
            order.append(now(g))
    assert order == ["L&N", "SR", "TC", "NC&StL", "IC", "GMO"]


def test_4_b_the_order_is_decided_afresh_as_each_company_finishes() -> None:
    # In OR 1 GMO and NC&StL both stood at $65 with GMO on top: GMO operated first. In
    # OR 2 both stand at $55, GMO on top again; TC operates before them and its
    # president must sell a GMO share to pay for a forced train. GMO drops to $50, so
    # NC&StL now operates before GMO.
    g = forced_purchase_position()
    market = g.state.market
    assert market.price("GMO") == market.price("NC&StL") == 55
    assert market.stacks[market.positions["GMO"]][0] == "GMO"
    g.apply("Bob", SellShares("GMO", 1))
    g.apply("Bob", BuyTrain("2"))
    if now(g) == "TC":
        g.apply("Bob", Done())
    assert g.state.market.price("GMO") == 50
    assert play_operating_round(g) == ["NC&StL", "GMO"]


# --- 4.2(a): the home station --------------------------------------------------------


def test_4_2_a_home_station_placed_free_on_the_first_turn() -> None:
    g = three_company_opening()
    tc = g.state.corporations["TC"]
    assert now(g) == "TC"
    assert g.state.board.tokens_in("F11", 0) == ["TC"]
    assert tc.cash == 900  # ten times par; the home station cost nothing
    assert tc.token_costs == [40]  # one station left on the charter
    assert g.state.board.tokens_in("F17", 0) == []  # SR places its own when it operates
    g.apply("Bob", Done())
    assert now(g) == "SR"
    assert g.state.board.tokens_in("F17", 0) == ["SR"]
    assert g.state.corporations["SR"].cash == 900


# --- 4.2(b), 4.2.1: laying tiles -------------------------------------------------------


def test_4_2_b_one_or_two_yellow_tiles_but_not_a_third() -> None:
    g = three_company_opening()
    tc_builds_nashville_and_lebanon(g)
    with pytest.raises(GameError, match="used its tile lays"):
        g.apply("Bob", LayTile("9", "F15", 1))  # connected through Lebanon, but a third
    assert "F15" not in g.state.board.tiles
    assert g.state.corporations["TC"].cash == 860


def test_4_2_b_a_yellow_tile_then_no_upgrade() -> None:
    # L&N in OR 4.2 (phase 3, green tiles available). Either lay alone is legal:
    upgrade_only = record_game(OR_4_2_LN)
    upgrade_only.apply(P3, LayTile("24", "B15", 1))
    assert upgrade_only.state.board.tiles["B15"].name == "24"
    g = record_game(OR_4_2_LN)
    g.apply(P3, LayTile("57", "G12", 2))  # the recorded first lay
    with pytest.raises(GameError, match="used its tile lays"):
        g.apply(P3, LayTile("24", "B15", 1))
    assert g.state.board.tiles["B15"].name == "8"


def test_4_2_b_an_upgrade_then_no_yellow_tile() -> None:
    g = record_game(OR_4_2_LN)
    g.apply(P3, LayTile("24", "B15", 1))
    with pytest.raises(GameError, match="used its tile lays"):
        g.apply(P3, LayTile("57", "G12", 2))  # legal as a first lay (the record's)
    assert "G12" not in g.state.board.tiles


def test_4_2_1_a_no_brown_tile_before_phase_5() -> None:
    g = record_game(272)  # TC's first turn, phase 4; Nashville holds the green N tile
    assert g.rules.phase(g.state).name == "4"
    with pytest.raises(GameError, match="brown tiles are not available in phase 4"):
        g.apply(P1, LayTile("170", "F11", 4))
    g = record_game(OR_5_2_LN)  # phase 5: the same upgrade (by the L&N) is accepted
    g.apply(P3, LayTile("170", "F11", 4))
    assert g.state.board.tiles["F11"].name == "170"


def test_4_2_1_a_no_green_tile_before_phase_3() -> None:
    g = to_second_operating_round()
    assert now(g) == "TC"
    with pytest.raises(GameError, match="green tiles are not available in phase 2"):
        g.apply("Bob", LayTile("TN2", "F11", 1))
    assert g.state.board.tiles["F11"].name == "57"
    # In phase 3 the same upgrade of Nashville is accepted (game 7818, OR 4.1).
    g = record_game(128)
    assert g.rules.phase(g.state).name == "3"
    g.apply(P3, LayTile("TN2", "F11", 1))
    assert g.state.board.tiles["F11"].name == "TN2"


def test_4_2_1_c_yellow_only_on_blank_hexes_green_only_on_yellow() -> None:
    g = record_game(OR_4_2_LN)  # L&N, phase 3; B15 holds tile 8 at rotation 1
    with pytest.raises(GameError, match="white hex takes a yellow tile"):
        g.apply(P3, LayTile("23", "G10", 0))  # green on a blank hex next to Nashville
    with pytest.raises(GameError, match="yellow hex takes a green tile"):
        g.apply(P3, LayTile("8", "B15", 1))  # another yellow 8 on the yellow 8
    with pytest.raises(GameError, match="no tile may be laid on B13"):
        g.apply(P3, LayTile("57", "B13", 0))  # Louisville is a gray hex
    g.apply(P3, LayTile("9", "G10", 0))  # a yellow tile on that blank hex is fine
    assert g.state.board.tiles["G10"].name == "9"


def test_4_2_1_d_e_cities_only_on_cities_towns_only_on_towns() -> None:
    g = three_company_opening()
    with pytest.raises(GameError, match="has 0 cities and 0 towns; the hex has 1 and 0"):
        g.apply("Bob", LayTile("9", "F11", 1))  # plain track on Nashville's city
    g.apply("Bob", LayTile("57", "F11", 1))
    with pytest.raises(GameError, match="has 1 cities and 0 towns; the hex has 0 and 0"):
        g.apply("Bob", LayTile("57", "F9", 1))  # a city tile on a plain hex
    with pytest.raises(GameError, match="has 0 cities and 0 towns; the hex has 0 and 1"):
        g.apply("Bob", LayTile("9", "F13", 1))  # plain track on Lebanon's town
    g.apply("Bob", LayTile("4", "F13", 1))
    assert g.state.board.tiles["F13"].name == "4"
    g = three_company_opening()
    g.apply("Bob", LayTile("57", "F11", 1))
    with pytest.raises(GameError, match="has 0 cities and 1 towns; the hex has 0 and 0"):
        g.apply("Bob", LayTile("4", "F9", 1))  # a town tile on a plain hex


def test_4_2_1_f_terrain_is_paid_on_the_first_lay_only() -> None:
    g = three_company_opening()
    bank = g.state.bank_cash
    g.apply("Bob", LayTile("57", "F11", 1))  # Nashville: river, $40
    assert g.state.corporations["TC"].cash == 860 and g.state.bank_cash == bank + 40
    g.apply("Bob", LayTile("4", "F13", 1))  # Lebanon: no terrain
    assert g.state.corporations["TC"].cash == 860
    # Upgrading Nashville later costs nothing (game 7818, OR 4.1, L&N).
    g = record_game(128)
    cash = g.state.corporations["L&N"].cash
    g.apply(P3, LayTile("TN2", "F11", 1))
    assert g.state.corporations["L&N"].cash == cash


def test_4_2_1_g_named_tiles_only_in_their_cities() -> None:
    g = record_game(128)  # L&N upgrades Nashville in phase 3
    with pytest.raises(GameError, match="needs a tile with label N; tile TN1 has label C"):
        g.apply(P3, LayTile("TN1", "F11", 1))
    with pytest.raises(GameError, match="needs a tile with label N; tile 14 has no label"):
        g.apply(P3, LayTile("14", "F11", 1))
    g.apply(P3, LayTile("TN2", "F11", 1))
    g = record_game(277)  # NC&StL upgrades its home, Chattanooga
    with pytest.raises(GameError, match="needs a tile with label C; tile 15 has no label"):
        g.apply(P2, LayTile("15", "H15", 5))
    g.apply(P2, LayTile("TN1", "H15", 0))
    g = record_game(OR_5_2_LN)  # brown in Nashville must be the P tile
    with pytest.raises(GameError, match="needs a tile with label P; tile 63 has no label"):
        g.apply(P3, LayTile("63", "F11", 4))
    g.apply(P3, LayTile("170", "F11", 4))
    assert g.state.board.tiles["F11"].name == "170"


def test_4_2_1_h_an_upgrade_keeps_the_track_and_the_refusal_names_the_rotations() -> None:
    g = record_game(OR_4_2_SR_UPGRADE)  # Knoxville F17: tile 5 joining NE and E
    with pytest.raises(GameError, match=r"does not keep all existing track; "
                                        r"tile 14 fits F17 at rotation 0"):
        g.apply(P2, LayTile("14", "F17", 1))
    g.apply(P2, LayTile("14", "F17", 0))
    assert g.state.board.tiles["F17"].name == "14"
    assert g.state.board.tokens_in("F17", 0) == ["SR"]  # the station moved onto it


def test_4_2_1_i_no_track_off_the_map() -> None:
    g = three_company_opening()
    play(g, ("Bob", Done()), ("Cy", Done()))
    assert now(g) == "L&N"
    # B15, east of Louisville: its NW side is the edge of the map.
    with pytest.raises(GameError, match="would run off the map"):
        g.apply("Ann", LayTile("7", "B15", 1))  # Louisville (W) to NW
    g.apply("Ann", LayTile("8", "B15", 1))  # Louisville (W) to Cincinnati (NE)
    assert g.state.board.tiles["B15"].name == "8"
    assert g.state.corporations["L&N"].cash == 700 - 60  # mountain


def test_4_2_1_j_a_tile_must_connect_to_a_station() -> None:
    g = three_company_opening()
    with pytest.raises(GameError, match="does not connect to a TC station"):
        g.apply("Bob", LayTile("57", "H7", 1))  # Corinth, far from Nashville
    g.apply("Bob", LayTile("57", "F11", 1))  # Nashville W-E
    # G10 touches Nashville's SW side, which has no track: adjacent is not connected.
    with pytest.raises(GameError, match="does not connect to a TC station"):
        g.apply("Bob", LayTile("9", "G10", 0))
    g.apply("Bob", LayTile("7", "F9", 4))  # on Nashville's W track
    assert g.state.board.tiles["F9"].name == "7"


def test_4_2_1_j_an_upgrade_needs_new_track_reached_from_a_station() -> None:
    # Appendix 1: an upgrade whose new track the company cannot reach is refused, even
    # though its station reaches the old track. B15 holds 8 joining Louisville (W) and
    # Cincinnati (NE); the L&N's station is in Louisville.
    g = record_game(OR_4_2_LN)
    # 23 keeps W-NE and adds NE-SW: reached only by reversing at the NE side.
    with pytest.raises(GameError, match="does not connect to a L&N station"):
        g.apply(P3, LayTile("23", "B15", 3))
    g.apply(P3, LayTile("24", "B15", 1))  # 24 keeps W-NE and adds W-E, from Louisville
    assert g.state.board.tiles["B15"].name == "24"


def test_4_2_1_b_a_tile_whose_copies_are_all_on_the_map_cannot_be_laid() -> None:
    def opening(curves: bool) -> Game:
        """OR 1 laying all four sharp curves (tile 7), or only two of them; then OR 2."""
        g = three_company_opening()
        play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("7", "F9", 4)),
             ("Bob", Done()),
             ("Cy", LayTile("57", "F17", 1)), ("Cy", LayTile("7", "F15", 3)),
             ("Cy", Done()))
        if curves:
            play(g, ("Ann", LayTile("7", "B15", 0)), ("Ann", LayTile("7", "C14", 3)))
        else:
            play(g, ("Ann", LayTile("9", "B15", 1)))
        play_operating_round(g)
        pass_stock_round(g)
        assert now(g) == "TC"
        return g

    g = opening(curves=True)
    assert g.state.board.supply["7"] == 0
    with pytest.raises(GameError, match="no tile 7 is left"):
        g.apply("Bob", LayTile("7", "G10", 1))  # would join F9's SE track
    g.apply("Bob", LayTile("8", "G10", 0))
    assert g.state.board.tiles["G10"].name == "8"
    twin = opening(curves=False)
    assert twin.state.board.supply["7"] == 2
    twin.apply("Bob", LayTile("7", "G10", 1))  # the same lay, with a 7 in the supply
    assert twin.state.board.tiles["G10"].name == "7"


def test_8_a_three_yellow_tiles_on_the_first_turn_only() -> None:
    g = three_company_opening(THREE_YELLOW)
    tc_builds_nashville_and_lebanon(g)
    g.apply("Bob", LayTile("9", "F15", 1))  # a third yellow tile, Lebanon to Knoxville
    assert g.state.board.tiles["F15"].name == "9"
    play_operating_round(g)
    pass_stock_round(g)
    assert now(g) == "TC"
    play(g, ("Bob", LayTile("7", "F9", 4)), ("Bob", LayTile("7", "G10", 1)))
    with pytest.raises(GameError, match="used its tile lays"):
        g.apply("Bob", LayTile("9", "G8", 1))


# --- 4.2.2: station tokens ---------------------------------------------------------------


def test_4_2_2_a_token_only_in_a_connected_city_first_for_40() -> None:
    g = record_game(OR_4_1_LN_TOKEN)  # L&N has just upgraded Nashville to TN2
    with pytest.raises(GameError, match="G12 is not connected to a L&N station"):
        g.apply(P3, PlaceToken("G12"))
    cash = g.state.corporations["L&N"].cash
    g.apply(P3, PlaceToken("F11"))
    assert "L&N" in g.state.board.tokens_in("F11", 0)
    assert g.state.corporations["L&N"].cash == cash - 40


def test_4_2_2_later_stations_cost_100() -> None:
    g = record_game(OR_5_1_LN_TOKEN)  # the L&N's second station beyond its home
    cash = g.state.corporations["L&N"].cash
    g.apply(P3, PlaceToken("F17"))
    assert g.state.corporations["L&N"].cash == cash - 100


def test_4_2_2_b_one_station_per_company_in_a_hex() -> None:
    g = record_game(446)  # L&N has just laid the gray P tile (3 spaces) on Nashville
    assert sorted(g.state.board.tokens_in("F11", 0)) == ["L&N", "TC"]
    with pytest.raises(GameError, match="already has a station in F11"):
        g.apply(P3, PlaceToken("F11"))
    replay_moves(g, 446, 457)  # IC takes the free space in OR 7.1
    assert sorted(g.state.board.tokens_in("F11", 0)) == ["IC", "L&N", "TC"]


def test_4_2_2_c_a_home_city_keeps_a_space_for_its_company() -> None:
    g = record_game(OR_2_1_LN_TOKEN_STEP)  # Nashville (1 space) is TC's unfloated home
    assert not g.state.corporations["TC"].floated
    with pytest.raises(GameError, match=r"one circle must be left open for a company which "
                       r"has not yet placed its home station \(4\.2\.2\(c\)\)"):
        g.apply(P3, PlaceToken("F11"))
    # On the two-space N tile the L&N takes one space; TC's home space stays open.
    g = record_game(OR_4_1_LN_TOKEN)
    g.apply(P3, PlaceToken("F11"))
    replay_moves(g, OR_4_1_LN_TOKEN + 1, 273)  # to TC's first turn (OR 5.1)
    assert sorted(g.state.board.tokens_in("F11", 0)) == ["L&N", "TC"]


def test_4_2_2_one_station_per_turn() -> None:
    g = record_game(OR_5_2_GMO)  # GMO may reach both Paducah D7 and Corinth H7
    seat = president(g)
    alone = record_game(OR_5_2_GMO)
    alone.apply(seat, PlaceToken("H7"))  # H7 alone would have been fine
    assert "GMO" in alone.state.board.tokens_in("H7", 0)
    cash = g.state.corporations["GMO"].cash
    g.apply(seat, PlaceToken("D7"))
    with pytest.raises(GameError, match="token"):
        g.apply(seat, PlaceToken("H7"))
    assert "GMO" not in g.state.board.tokens_in("H7", 0)
    assert g.state.corporations["GMO"].cash == cash - 100


# --- 4.2.3, 4.2.3.1: routes and revenue ---------------------------------------------------


def test_4_2_3_declared_routes_earn_the_printed_values() -> None:
    g = record_game(OR_3_1_LN)  # L&N with two 2-trains, phase 2
    # Cincinnati 50 + Louisville 30; Louisville 30 + Bowling Green 10. Both trains use
    # Louisville, each on its own track: allowed (4.2.3(j)).
    assert run(g, ("2", ("A16", "B15", "B13")), ("2", ("B13", "C12", "D11"))) == 120
    ln = g.state.corporations["L&N"]
    shares = {seat: ln.percent_held_by(seat) for seat in g.state.seats}
    cash = {seat: p.cash for seat, p in g.state.players.items()}
    g.apply(P3, Dividend("payout"))
    assert {seat: g.state.players[seat].cash - cash[seat] for seat in cash} == {
        seat: 120 * pct // 100 for seat, pct in shares.items()}
    assert shares[P3] >= 50  # the president's share, paid $12 a share


def test_4_2_3_j_two_trains_may_not_share_track() -> None:
    g = record_game(OR_3_1_LN)
    with pytest.raises(GameError, match="share track"):
        run(g, ("2", ("A16", "B15", "B13")), ("2", ("A16", "B15", "B13")))


def test_4_2_3_f_a_route_needs_one_of_the_company_stations() -> None:
    g = record_game(OR_3_1_LN)
    with pytest.raises(GameError, match="no legal route"):
        run(g, ("2", ("C4", "C6", "D7")))  # St. Louis - Paducah: IC's, not the L&N's


def test_4_2_3_i_no_more_stops_than_the_train_counts() -> None:
    g = record_game(OR_3_1_LN)
    with pytest.raises(GameError, match="at most 2 stops"):
        run(g, ("2", ("A16", "B15", "B13", "C12", "D11")))


def test_4_2_3_g_no_city_twice() -> None:
    g = record_game(OR_7_2_SR)  # SR's 8-train; a loop Knoxville-Chattanooga-Murfreesboro
    loop = ("F17", "G16", "H15", "H13", "G12", "F13", "F15", "F17")
    with pytest.raises(GameError, match="no legal route"):
        run(g, ("8", loop))
    g = record_game(OR_7_2_SR)
    assert run(g, ("8", loop[:-2])) > 0  # the same track, stopping before Knoxville again


def test_4_2_3_g_an_off_board_area_is_one_place_whatever_its_arrows() -> None:
    g = record_game(576)  # GMO's 6-train; Little Rock H1 touches Memphis H3 and I2
    with pytest.raises(GameError, match="no legal route"):
        run(g, ("6", ("H1", "H3", "I2", "H1")))  # out by one arrow, back by another
    g = record_game(576)
    assert run(g, ("6", ("H1", "H3"))) > 0


def test_4_2_3_h_no_running_through_an_off_board_area() -> None:
    g = record_game(OR_8_1_LN_RUN)  # L&N's 8-train; Cincinnati joins B15 and B17
    with pytest.raises(GameError, match="no legal route"):
        run(g, ("8", ("B13", "B15", "A16", "B17")))
    g = record_game(OR_8_1_LN_RUN)
    assert run(g, ("8", ("A16", "B15", "B13"))) == 80 + 30  # ending there is fine; brown


def test_4_2_3_e_no_running_through_a_blocked_city() -> None:
    g = record_game(OR_5_2_LN)  # Murfreesboro G12: both spaces hold SR and NC&StL
    assert sorted(g.state.board.tokens_in("G12", 0)) == ["NC&StL", "SR"]
    with pytest.raises(GameError, match="no legal route"):
        run(g, ("4", ("E10", "F11", "G12", "F13")))
    g = record_game(OR_5_2_LN)
    # Ending in the blocked city is allowed: Clarksville 10 + Nashville N 40 + 30.
    assert run(g, ("3", ("E10", "F11", "G12"))) == 80


def test_4_2_3_1_off_board_yellow_value_then_brown_after_the_first_5_train() -> None:
    g = record_game(OR_4_2_LN)  # phase 3
    assert run(g, ("2", ("A16", "B15", "B13"))) == 50 + 30
    g = record_game(OR_5_2_LN)  # phase 5: the first 5-train has been bought
    assert g.rules.phase(g.state).name == "5"
    assert run(g, ("3", ("A16", "B15", "B13"))) == 80 + 30


@pytest.mark.parametrize("n", [OR_3_1_LN, OR_5_2_LN, OR_8_1_LN_RUN])
def test_4_2_3_1_run_auto_is_at_least_as_good_as_the_declared_run(n: int) -> None:
    declared = record_game(n)
    while not isinstance(record_move(n).action, RunRoutes):
        replay_moves(declared, n, n + 1)
        n += 1
    auto = record_game(n)
    replay_moves(declared, n, n + 1)
    auto.apply(president(auto), RunRoutes(auto=True))
    assert revenue(auto) >= revenue(declared)  # type: ignore[operator]
    if n == OR_3_1_LN + 1:
        # Only Louisville holds an L&N station and each 2-train needs it: Cincinnati-
        # Louisville (80) and Louisville-Bowling Green (40) is the best there is.
        assert revenue(auto) == 120


# --- 4.2.4: dividends and the share price -------------------------------------------------


def test_4_2_4_a_payout_pays_each_share_and_pool_shares_pay_the_company() -> None:
    g = record_game(OR_4_1_SR_DIVIDEND)  # SR earned $160
    assert revenue(g) == 160
    sr = g.state.corporations["SR"]
    holdings = {seat: sr.percent_held_by(seat) for seat in g.state.seats}
    assert holdings == {P1: 10, P2: 60, P3: 10, "Player 4": 0}
    assert sr.pool_percent == 10 and sr.ipo_percent == 10
    cash = {seat: p.cash for seat, p in g.state.players.items()}
    company, bank = sr.cash, g.state.bank_cash
    g.apply(P2, Dividend("payout"))
    paid = {seat: g.state.players[seat].cash - cash[seat] for seat in cash}
    assert paid == {P1: 16, P2: 96, P3: 16, "Player 4": 0}
    assert g.state.corporations["SR"].cash == company + 16  # the pool's 10%
    assert g.state.bank_cash == bank - 144  # nothing for the 10% in the Initial Offering
    assert g.state.market.positions["SR"] == (4, 5)  # from (4, 4): one space right


def test_4_2_4_b_withholding_pays_the_company_and_moves_left() -> None:
    g = record_game(OR_4_1_SR_DIVIDEND)
    cash = {seat: p.cash for seat, p in g.state.players.items()}
    company = g.state.corporations["SR"].cash
    g.apply(P2, Dividend("withhold"))
    assert {seat: p.cash for seat, p in g.state.players.items()} == cash
    assert g.state.corporations["SR"].cash == company + 160
    assert g.state.market.positions["SR"] == (4, 3)


def test_4_2_4_payout_at_the_end_of_a_row_moves_up() -> None:
    g = record_game(OR_4_1_SR_DIVIDEND)
    g.state.market.place("SR", (4, 6))  # the last space of its row, $80
    g.apply(P2, Dividend("payout"))
    assert g.state.market.positions["SR"] == (3, 6)
    assert g.state.market.price("SR") == 90


def test_4_2_4_withholding_in_the_first_column_moves_down() -> None:
    g = record_game(OR_4_1_SR_DIVIDEND)
    g.state.market.place("SR", (2, 0))  # $50, left edge
    g.apply(P2, Dividend("withhold"))
    assert g.state.market.positions["SR"] == (3, 0)
    g = record_game(OR_4_1_SR_DIVIDEND)
    g.state.market.place("SR", (6, 0))  # the lower left corner does not move
    g.apply(P2, Dividend("withhold"))
    assert g.state.market.positions["SR"] == (6, 0)


def test_4_2_4_no_run_moves_the_price_left() -> None:
    g = three_company_opening()
    cash = g.state.corporations["TC"].cash
    g.apply("Bob", Done())  # no train: no run
    assert g.state.market.positions["TC"] == (1, 3)  # from the $90 par space, (1, 4)
    assert g.state.corporations["TC"].cash == cash


# --- 4.2.6: companies buying privates ---------------------------------------------------


def test_4_2_6_first_operating_round_at_face_value_only() -> None:
    g = three_company_opening()
    with pytest.raises(GameError, match="face value"):
        g.apply("Bob", BuyPrivate("OWR", seller="Di", price=99))
    with pytest.raises(GameError, match="face value"):
        g.apply("Bob", BuyPrivate("OWR", seller="Di", price=150))
    di = g.state.players["Di"].cash
    g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))
    assert g.state.privates["OWR"].owner == "TC"
    assert g.state.corporations["TC"].cash == 800
    assert g.state.players["Di"].cash == di + 100


def test_4_2_6_first_operating_round_one_private_per_company() -> None:
    g = three_company_opening()
    g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))
    with pytest.raises(GameError, match="one private"):
        g.apply("Bob", BuyPrivate("TCC", seller="Ann", price=20))
    assert g.state.privates["TCC"].owner == "Ann"


def test_4_2_6_first_operating_round_one_private_per_selling_player() -> None:
    g = four_company_opening()  # Cy owns ETWCR and MCR
    g.apply("Ann", BuyPrivate("ETWCR", seller="Cy", price=40))  # L&N buys one of them
    g.apply("Ann", BuyTrain("2"))
    assert now(g) == "TC"
    with pytest.raises(GameError, match="Cy has sold a private"):
        g.apply("Bob", BuyPrivate("MCR", seller="Cy", price=70))
    g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))  # another seller: fine
    assert g.state.privates["MCR"].owner == "Cy"
    assert g.state.privates["OWR"].owner == "TC"


def test_4_2_6_no_purchase_in_phase_2_after_the_first_operating_round() -> None:
    g = to_second_operating_round()
    assert now(g) == "TC"
    with pytest.raises(GameError, match="first operating round and from phase 3"):
        g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))


def test_4_2_6_from_phase_3_between_half_and_one_and_a_half_par() -> None:
    g = record_game(OR_3_1_IC_PRIVATES)  # IC; MCR (par $70) belongs to its president
    assert g.rules.phase(g.state).name == "3"
    with pytest.raises(GameError, match=r"\$35 to \$105"):
        g.apply(P1, BuyPrivate("MCR", seller=P1, price=34))
    with pytest.raises(GameError, match=r"\$35 to \$105"):
        g.apply(P1, BuyPrivate("MCR", seller=P1, price=106))
    cash = g.state.corporations["IC"].cash
    g.apply(P1, BuyPrivate("MCR", seller=P1, price=35))
    assert g.state.privates["MCR"].owner == "IC"
    assert g.state.corporations["IC"].cash == cash - 35


def test_8_b_phase_2_private_sales_from_1_dollar_to_face_value() -> None:
    g = to_second_operating_round(PHASE2_PRIVATES)
    assert now(g) == "TC"
    g.apply("Bob", BuyPrivate("TCC", seller="Ann", price=1))
    g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))  # several, any time
    assert g.state.privates["TCC"].owner == g.state.privates["OWR"].owner == "TC"
    with pytest.raises(GameError, match=r"\$1 to \$70"):
        g.apply("Bob", BuyPrivate("MCR", seller="Cy", price=71))
    with pytest.raises(GameError, match=r"\$1 to \$70"):
        g.apply("Bob", BuyPrivate("MCR", seller="Cy", price=0))


# --- Table III: the privates' free tiles --------------------------------------------------


def test_table_III_tcc_free_tile_needs_no_connection_and_no_normal_lay() -> None:
    g = record_game(OR_4_2_LN)  # L&N owns TCC; H17 (mountain, $120) is far from its track
    assert g.state.privates["TCC"].owner == "L&N"
    cash = g.state.corporations["L&N"].cash
    with pytest.raises(GameError, match="does not own OWR"):
        g.apply(P3, UsePrivate("OWR", LayTile("9", "E16", 0)))  # OWR is Player 4's
    g.apply(P3, UsePrivate("TCC", LayTile("9", "H17", 0)))
    assert g.state.board.tiles["H17"].name == "9"
    assert g.state.corporations["L&N"].cash == cash  # free: no terrain either
    assert not g.state.privates["TCC"].closed  # using it does not close it
    # Its two normal yellow lays remain (the recorded ones).
    g.apply(P3, LayTile("57", "G12", 2))
    g.apply(P3, LayTile("8", "H13", 2))
    assert g.state.board.tiles["H13"].name == "8"


def test_table_III_etwcr_free_tile_in_f19() -> None:
    g = record_game(OR_4_1_SR_USES_ETWCR)
    cash = g.state.corporations["SR"].cash
    g.apply(P2, UsePrivate("ETWCR", LayTile("9", "F19", 0)))  # not joined to Knoxville
    assert g.state.board.tiles["F19"].name == "9"
    assert g.state.corporations["SR"].cash == cash  # F19 is a $120 mountain
    with pytest.raises(GameError, match="has been used"):
        g.apply(P2, UsePrivate("ETWCR", LayTile("9", "F19", 1)))


def test_table_III_mcr_free_tile_in_memphis() -> None:
    # The data lays the M&C tile in Memphis, H3 (Table III prints H-5; see the title's
    # decision "mcr-hex").
    g = record_game(OR_4_1_IC_USES_MCR)
    cash = g.state.corporations["IC"].cash
    g.apply(P1, UsePrivate("MCR", LayTile("6", "H3", 1)))
    assert g.state.board.tiles["H3"].name == "6"
    assert g.state.corporations["IC"].cash == cash  # Memphis' $60 river is waived


def test_table_III_owr_bought_in_the_first_round_and_laid_at_once() -> None:
    g = three_company_opening()
    g.apply("Bob", BuyPrivate("OWR", seller="Di", price=100))
    g.apply("Bob", UsePrivate("OWR", LayTile("9", "E16", 0)))  # $60 mountain, unconnected
    assert g.state.board.tiles["E16"].name == "9"
    assert g.state.corporations["TC"].cash == 800
    tc_builds_nashville_and_lebanon(g)  # and both normal yellow lays
    assert g.state.board.tiles["F13"].name == "4"


def test_table_III_ability_lost_once_another_tile_is_laid_there() -> None:
    g = record_game(OR_4_1_SR_BUYS_ETWCR)
    assert g.state.privates["ETWCR"].owner == P2  # a player's private blocks nothing
    g.apply(P2, LayTile("9", "F19", 1))  # an ordinary lay in F19, paying $120
    g.apply(P2, BuyPrivate("ETWCR", seller=P2, price=60))
    with pytest.raises(GameError, match="lost"):
        g.apply(P2, UsePrivate("ETWCR", LayTile("9", "F19", 1)))


def test_table_III_free_tile_only_in_the_tile_laying_step() -> None:
    g = record_game(OR_4_1_SR_USES_ETWCR)
    g.apply(P2, Pass())  # past the tile step
    with pytest.raises(GameError, match="passed the track step"):
        g.apply(P2, UsePrivate("ETWCR", LayTile("9", "F19", 1)))


def test_table_III_privates_close_when_the_first_5_train_is_bought() -> None:
    g = record_game(280)  # NC&StL is about to buy the first 5-train
    assert not g.state.privates["TCC"].closed and not g.state.privates["OWR"].closed
    replay_moves(g, 280, 281)
    assert all(p.closed for p in g.state.privates.values())
    replay_moves(g, 281, 284)  # to GMO's turn: it owns the (closed) OWR
    assert now(g) == "GMO"
    with pytest.raises(GameError, match="closed"):
        g.apply(president(g), UsePrivate("OWR", LayTile("9", "E16", 0)))
    # OR 5.2 begins: no private pays any more.
    g = record_game(287)
    cash = {sym: c.cash for sym, c in g.state.corporations.items() if sym != "GMO"}
    replay_moves(g, 287, 288)
    assert g.round_name == "Operating Round 5.2"
    assert {sym: c.cash for sym, c in g.state.corporations.items() if sym != "GMO"} == cash
