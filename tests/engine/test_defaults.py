"""Deadline defaults and auto pass (engine.defaults) on real positions of 18TN and 1851.

`conservative_action` is what the moderator does for a player who missed the deadline
under the `pass` policy: pass in a stock round and in an auction, decline offers, set
the lowest par a private demands, discard the least valuable train; a company lays no
track and places no station, runs for the best revenue (18TN 4.2.3.1), withholds
(4.2.4) and buys a train only when it must (4.2.5.2), the cheapest one, its president
selling the smallest share first. `sole_action` is the pass when passing is all a
player may do. Positions come from the scenario helpers: scripted openings and
prefixes of the recorded 18TN game 7818 (tn_scenarios), and 1851 openings and driven
games (scenarios_1851).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import scenarios_1851 as s51
import tn_scenarios as tn

from engine import market, trains
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RedeemShares,
    RunRoutes,
    SellPrivate,
    SellShares,
    UsePrivate,
)
from engine.defaults import conservative_action, sole_action
from engine.errors import GameError
from engine.game import Game
from engine.legal import legal_actions
from engine.optimizer import optimize
from engine.state import PlacedTile

# Actions that spend money or commit the player by choice: never a deadline default.
OPTIONAL = (LayTile, UsePrivate, PlaceToken, BuyShares, Bid, Accept, IssueShares,
            RedeemShares, SellPrivate)


def act(g: Game) -> Action:
    """Apply the conservative action for whoever is to act; returns it."""
    turn = g.turn()
    assert turn is not None
    action = conservative_action(g)
    g.apply(turn.seat, action)
    return action


def tiles(g: Game) -> dict[str, PlacedTile]:
    return dict(g.state.board.tiles)


def stations(g: Game, sym: str) -> list[tuple[str, int]]:
    """Where `sym` has station tokens on the map."""
    return sorted((hex_id, city) for hex_id, cities in g.state.board.tokens.items()
                  for city, syms in cities.items() if sym in syms)


def step(g: Game) -> str:
    turn = g.turn()
    assert turn is not None
    return turn.step


# --- stock rounds, auctions, offers, pars ---------------------------------------------


def test_a_stock_turn_is_passed_with_nothing_bought() -> None:
    # Stock Round 1 of three_company_opening: Di ($170) could start the GMO or buy SR.
    g = tn.three_company_opening(end_stock_round=False)
    assert tn.president(g) == "Di"
    assert any(isinstance(a, Par | BuyShares) for a in legal_actions(g))
    before = {c.sym: c.percent_held_by("Di") for c in g.state.corporations.values()}
    assert act(g) == Pass()
    assert g.state.players["Di"].cash == 170
    assert {c.sym: c.percent_held_by("Di") for c in g.state.corporations.values()} == before
    assert tn.president(g) == "Ann"


def test_a_recorded_stock_turn_is_passed() -> None:
    g = tn.record_game(tn.SR_8_START)
    seat = tn.president(g)
    cash = g.state.players[seat].cash
    assert act(g) == Pass()
    assert g.state.players[seat].cash == cash


def test_an_auction_is_left_to_the_other_bidder() -> None:
    # 3.1(a), 3.1.1: Ann and Bob bid on ETWCR; Cy buys TCC, so ETWCR is auctioned between
    # them and Ann, under Bob's $50, is to bid. The default drops out: Bob wins it.
    g = tn.new_game()
    value = g.state.privates["ETWCR"].spec.value
    tn.play(g, ("Ann", Bid(value + 5, "ETWCR")), ("Bob", Bid(value + 10, "ETWCR")),
            ("Cy", BuyPrivate("TCC")))
    assert step(g) == "auction of ETWCR" and tn.president(g) == "Ann"
    ann = g.state.players["Ann"].cash
    assert act(g) == Pass()
    assert g.state.privates["ETWCR"].owner == "Bob"
    assert g.state.players["Ann"].cash == ann


def test_an_offer_of_a_private_is_declined() -> None:
    # 3.2(b): Di offers OWR to Ann for $50; Ann misses the deadline.
    g = tn.three_company_opening(end_stock_round=False)
    g.apply("Di", SellPrivate("OWR", "Ann", 50))
    assert tn.president(g) == "Ann"
    assert act(g) == Decline()
    assert g.state.privates["OWR"].owner == "Di"
    assert (g.state.players["Ann"].cash, g.state.players["Di"].cash) == (75, 170)


def test_a_par_the_private_demands_is_the_lowest() -> None:
    # 18TN Table III #5: the LNR's buyer must set the L&N's par at once.
    g = tn.new_game()
    tn.sell_privates(g)
    assert step(g) == "set the par value of L&N"
    lowest = min(g.rules.par_values(g.state.corporations["L&N"]))
    assert act(g) == Par("L&N", lowest)
    assert g.state.corporations["L&N"].par_price == lowest


def test_1851_the_l_and_n_is_priced_at_the_lowest_starting_square() -> None:
    # SETTING UP: the L&O holder sets the L&N's price on a yellow square.
    g = s51.new_game()
    assert act(g) == Par("L&N", 70)
    assert s51.price(g, "L&N") == 70


def test_the_priority_holder_takes_the_free_private_in_the_fifth_stock_round() -> None:
    # 18TN 3.1.2: nobody buys TCC; in Stock Round 5 the Priority Deal holder must take it
    # for nothing, so passing is refused and the default takes it.
    g = tn.new_game()
    while g.round_name != "Stock Round 5":
        assert act(g) == Pass()
    seat = tn.president(g)
    assert seat == g.state.priority
    cash = g.state.players[seat].cash
    assert act(g) == BuyPrivate("TCC")
    assert g.state.privates["TCC"].owner == seat
    assert g.state.players[seat].cash == cash


def test_a_player_over_the_certificate_limit_sells_the_smallest_share() -> None:
    # 1851, a driven game: Di takes a presidency from Cy, who held the limit; swapping
    # the president's certificate for two shares leaves Cy one over it, and he must sell
    # before he may pass. One share of his cheapest company goes, then he passes.
    g, (buyer, seat, corp, source) = s51.limit_position("swap")
    g.apply(buyer, BuyShares(corp, source=source))  # type: ignore[arg-type]
    limit = g.rules.certificate_limit(g.state)
    assert s51.certificates(g, seat) == limit + 1
    while s51.president(g) != seat:
        assert act(g) == Pass()
    held = [c.sym for c in g.state.corporations.values() if c.percent_held_by(seat)]
    cheapest = min(held, key=lambda sym: (s51.price(g, sym), sym))
    percent = g.state.corporations[cheapest].percent_held_by(seat)
    assert act(g) == SellShares(cheapest, 1)
    assert g.state.corporations[cheapest].percent_held_by(seat) == percent - 10
    assert s51.certificates(g, seat) == limit
    assert act(g) == Pass()


# --- operating rounds -------------------------------------------------------------------


def test_a_company_without_trains_lays_no_track_and_ends_its_turn() -> None:
    g = tn.three_company_opening()
    assert tn.now(g) == "TC" and step(g) == "track"
    assert any(isinstance(a, LayTile) for a in legal_actions(g))
    before = tiles(g)
    assert act(g) == Done()
    assert tn.now(g) != "TC"
    assert tiles(g) == before
    assert g.state.corporations["TC"].cash == 900 and not g.state.corporations["TC"].trains


def test_a_company_with_nothing_to_do_ends_its_turn_at_the_token_step() -> None:
    g = tn.three_company_opening()
    g.apply("Bob", Pass())
    assert tn.now(g) == "TC" and step(g) == "token"
    before = stations(g, "TC")
    assert act(g) == Done()
    assert tn.now(g) != "TC"
    assert stations(g, "TC") == before and g.state.corporations["TC"].cash == 900


def test_a_forced_purchase_at_the_token_step_places_no_station() -> None:
    # Move 274, phase 4: TC's 2-trains have rusted; it could place a station in G12 and
    # must buy a train (4.2.5.2): it buys the 4-train and nothing else.
    g = tn.record_game(tn.OR_5_1_TC_TRAINS)
    assert tn.now(g) == "TC" and step(g) == "token"
    assert PlaceToken("G12", 0) in legal_actions(g)
    tc = g.state.corporations["TC"]
    tokens, before, cash = list(tc.token_costs), stations(g, "TC"), tc.cash
    assert act(g) == BuyTrain("4")
    assert [t.name for t in tc.trains] == ["4"] and tc.cash == cash - 300
    assert stations(g, "TC") == before and tc.token_costs == tokens


@pytest.mark.parametrize("move", [tn.OR_4_2_SR_UPGRADE, tn.OR_4_1_LN_TOKEN,
                                  tn.OR_5_1_LN_TOKEN],
                         ids=["track step", "token step", "token step, phase 4"])
def test_a_company_with_trains_runs_for_the_best_revenue(move: int) -> None:
    # In the record the president laid a tile (move 168) or placed a station (130, 263);
    # the default does neither and runs at once for the optimizer's revenue (4.2.3.1).
    g = tn.record_game(move)
    assert isinstance(tn.record_move(move).action, LayTile | PlaceToken)
    corp = g.state.corporation(tn.now(g))
    best = optimize(g.rules, g.state, corp).total
    assert best > 0
    before = tiles(g), stations(g, corp.sym)
    tokens = list(corp.token_costs)
    assert act(g) == RunRoutes(auto=True)
    assert tn.revenue(g) == best
    assert (tiles(g), stations(g, corp.sym)) == before
    assert g.state.corporation(corp.sym).token_costs == tokens


def test_the_revenue_is_withheld_and_the_price_moves_left() -> None:
    # Move 142: SR has run for $160 (the record pays it out). 4.2.4: withheld, it goes
    # to the treasury and the price moves one space left.
    g = tn.record_game(tn.OR_4_1_SR_DIVIDEND)
    assert tn.now(g) == "SR" and tn.revenue(g) == 160
    cash = {seat: p.cash for seat, p in g.state.players.items()}
    before = g.state.market.positions["SR"]
    treasury = g.state.corporations["SR"].cash
    assert act(g) == Dividend("withhold")
    assert g.state.corporations["SR"].cash == treasury + 160
    assert g.state.market.positions["SR"] == market.left(g.state.market.spec, before)
    assert g.state.market.price("SR") < 70
    assert {seat: p.cash for seat, p in g.state.players.items()} == cash


def test_a_company_with_trains_buys_none() -> None:
    # Move 172: SR (two 2-trains) at its train step; the record buys the fourth 3-train.
    g = tn.record_game(tn.OR_4_2_SR_BUYS_4TH_3)
    assert tn.now(g) == "SR" and step(g) == "train"
    assert isinstance(tn.record_move(tn.OR_4_2_SR_BUYS_4TH_3).action, BuyTrain)
    sr = g.state.corporations["SR"]
    cash, owned, offered = sr.cash, [t.name for t in sr.trains], len(g.state.trains_offered)
    assert act(g) == Done()
    assert tn.now(g) != "SR"
    assert (sr.cash, [t.name for t in sr.trains]) == (cash, owned)
    assert len(g.state.trains_offered) == offered


def test_a_company_with_a_route_and_no_train_buys_the_cheapest() -> None:
    # 4.2.5.2: TC's two tiles give it a route; it has no train and $900.
    g = tn.three_company_opening()
    tn.play(g, ("Bob", LayTile("57", "F11", 1)), ("Bob", LayTile("4", "F13", 1)))
    tc = g.state.corporations["TC"]
    cash = tc.cash
    assert act(g) == BuyTrain("2")
    assert [t.name for t in tc.trains] == ["2"] and tc.cash == cash - 80


def test_the_cheapest_train_may_come_from_the_open_market() -> None:
    # After the phase 5 discards, IC has no train and a route: the discarded 3-trains
    # in the Open Market are cheaper than the bank's next train, a 5-train.
    g = tn.phase_5_discards()
    while True:
        turn = g.turn()
        assert turn is not None and g.round_name == "Operating Round 5.1"
        if tn.operating(g).current is not None and turn.entity == "IC":
            break
        act(g)
    offered = trains.next_offered(g.state)
    assert offered is not None
    assert g.rules.title.train("3").price < g.rules.title.train(offered.name).price
    assert [t.name for t in g.state.trains_pool] == ["3", "3"]
    assert act(g) == BuyTrain("3", "pool")
    assert [t.name for t in g.state.corporations["IC"].trains] == ["3"]
    assert [t.name for t in g.state.trains_offered[:1]] == [offered.name]


def test_1851_the_l_and_n_buys_its_forced_train() -> None:
    # Louisville's two cities are a route from the start (PURCHASE TRAINS).
    g = s51.two_company_opening()
    assert act(g) == Done()  # the IC has no route yet
    assert s51.now(g) == "L&N" and not g.state.corporations["L&N"].trains
    assert act(g) == BuyTrain("2")
    assert g.state.corporations["L&N"].cash == 350 - 100


def test_a_president_sells_the_smallest_share_then_pays_the_rest() -> None:
    # forced_purchase_position: TC has $1, Bob $30; the 2-train costs $80. Bob holds
    # 20% each of GMO and NC&StL at $55 and is TC's president (4.2.5.2(d)).
    g = tn.forced_purchase_position()
    total = g.state.total_cash()
    chosen: list[Action] = []
    while tn.still_operating(g, "TC"):
        chosen.append(act(g))
    assert chosen[:2] == [SellShares("GMO", 1), BuyTrain("2")]
    assert chosen[2:] in ([], [Done()])
    assert [t.name for t in g.state.corporations["TC"].trains] == ["2"]
    assert g.state.corporations["TC"].cash == 0
    assert g.state.players["Bob"].cash == 30 + 55 - 79
    assert g.state.corporations["GMO"].percent_held_by("Bob") == 10
    assert g.state.total_cash() == total


def test_1851_a_president_sells_one_share_at_a_time() -> None:
    # A driven game where the president must sell at least two shares (PURCHASE TRAINS:
    # only enough to pay; sales at the prices when the purchase began).
    g, corp, seat, _ = s51.forced_purchase_position()
    cheapest = trains.cheapest_available(g.state)
    assert cheapest is not None
    chosen: list[Action] = []
    while s51.still_operating(g, corp):
        chosen.append(act(g))
    sales = [a for a in chosen if isinstance(a, SellShares)]
    assert len(sales) >= 2 and all(a.count == 1 for a in sales)
    assert chosen[len(sales)] == BuyTrain(cheapest[0].name, cheapest[2])
    assert [t.name for t in g.state.corporations[corp].trains] == [cheapest[0].name]
    assert g.state.players[seat].cash >= 0


def test_a_president_who_cannot_raise_the_money_goes_bankrupt() -> None:
    # bankruptcy_position: Bob cannot pay for TC's forced train (4.2.5.2, 6(c)); ending the
    # turn is all he can do, and the rules make him bankrupt.
    g = tn.bankruptcy_position()
    total = g.state.total_cash()
    assert act(g) == Done()
    assert g.state.game_over and g.state.end_reason == "bankruptcy"
    assert g.state.total_cash() == total


def test_the_least_valuable_train_is_discarded() -> None:
    # Phase 5 (limit 2): TC (4, 3, 3) and NC&StL (4, 3, 5) each give up a 3-train.
    g = tn.phase_5_discards()
    assert (tn.now(g), step(g)) == ("TC", "discard a train")
    assert act(g) == DiscardTrain("3")
    assert [t.name for t in g.state.corporations["TC"].trains] == ["4", "3"]
    assert (tn.now(g), step(g)) == ("NC&StL", "discard a train")
    assert act(g) == DiscardTrain("3")
    assert sorted(t.name for t in g.state.corporations["NC&StL"].trains) == ["4", "5"]


def test_defaults_leave_the_game_untouched() -> None:
    g = tn.record_game(tn.OR_4_2_SR_UPGRADE)
    moves, cash, before = g.next_move, g.state.total_cash(), tiles(g)
    revenue = tn.revenue(g)
    conservative_action(g)
    sole_action(g)
    assert (g.next_move, g.state.total_cash(), tn.revenue(g)) == (moves, cash, revenue)
    assert tiles(g) == before


def test_a_finished_game_has_no_default() -> None:
    g = tn.bankruptcy_position()
    act(g)
    assert g.turn() is None
    with pytest.raises(GameError):
        conservative_action(g)
    assert sole_action(g) is None


# --- whole games played by defaults alone -------------------------------------------------


def drive(g: Game, moves: int) -> Iterator[Action]:
    """Play `moves` conservative actions (fewer if the game ends), checking after each
    that money is conserved and no tile was laid."""
    total = g.state.total_cash()
    tiles = dict(g.state.board.tiles)
    for _ in range(moves):
        if g.turn() is None:
            return
        yield act(g)
        assert g.state.total_cash() == total
        assert g.state.board.tiles == tiles


@pytest.mark.parametrize("start", [tn.OR_3_1_LN, tn.OR_5_2_LN],
                         ids=["OR 3.1", "OR 5.2"])
def test_18tn_plays_on_by_defaults(start: int) -> None:
    chosen = list(drive(tn.record_game(start), 200))
    assert len(chosen) >= 100
    assert not [a for a in chosen if isinstance(a, OPTIONAL)]
    assert all(a.choice == "withhold" for a in chosen if isinstance(a, Dividend))
    assert any(isinstance(a, RunRoutes) for a in chosen)


def test_18tn_forced_purchases_and_discards_by_defaults() -> None:
    g = tn.phase_5_discards()
    chosen = list(drive(g, 200))
    kinds = {type(a) for a in chosen}
    assert {DiscardTrain, BuyTrain, SellShares, RunRoutes, Dividend} <= kinds
    assert not kinds & set(OPTIONAL)


def test_1851_plays_on_by_defaults() -> None:
    g, _, _, _ = s51.forced_purchase_position()
    chosen = list(drive(g, 200))
    assert len(chosen) == 200
    assert not [a for a in chosen if isinstance(a, OPTIONAL)]
    assert all(a.choice == "withhold" for a in chosen if isinstance(a, Dividend))


# --- sole_action ------------------------------------------------------------------------


def test_no_sole_action_at_an_ordinary_stock_turn() -> None:
    g = tn.record_game(tn.SR_4_LAST_PASS)
    assert len(legal_actions(g)) > 2
    assert sole_action(g) is None


def test_no_sole_action_at_an_ordinary_company_turn() -> None:
    g = tn.record_game(tn.OR_4_2_SR_UPGRADE)
    assert sole_action(g) is None


def test_a_sole_action_stops_at_the_second_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    # SR's track step offers dozens of tile lays; two tries settle it (RunRoutes or a
    # lay against pass), not one per candidate.
    g = tn.record_game(tn.OR_4_2_SR_UPGRADE)
    tried: list[Action] = []
    attempt = Game.attempt

    def counting(self: Game, seat: str, action: Action) -> bool:
        tried.append(action)
        return attempt(self, seat, action)

    monkeypatch.setattr(Game, "attempt", counting)
    assert sole_action(g) is None
    assert len(tried) <= 4
    assert not any(isinstance(a, LayTile) for a in tried)


def two_companies_floated() -> Game:
    """1851, Stock Round 1 of two_company_opening once the IC has floated; Ann is to act.
    Di is left with $30, which buys nothing (the L&N at $100, the IC at $110, a
    president's certificate at least $140); no shares may be sold before their company
    has operated, and 1851's privates may never be sold."""
    g = s51.ln_priced(90)
    s51.play(g, ("Cy", Par("IC", 100)), ("Di", BuyShares("L&N")), ("Ann", BuyShares("IC")),
             ("Bob", BuyShares("L&N")), ("Cy", BuyShares("IC")), ("Di", BuyShares("IC")))
    return g


def test_a_player_who_can_only_pass_passes() -> None:
    g = two_companies_floated()
    s51.play(g, ("Ann", Pass()), ("Bob", Pass()), ("Cy", Pass()))
    assert s51.president(g) == "Di" and s51.cash(g, "Di") == 30
    assert {type(a) for a in legal_actions(g)} == {Pass, Done}
    assert sole_action(g) == Pass()


def test_a_player_with_money_is_not_passed() -> None:
    g = two_companies_floated()
    assert s51.president(g) == "Ann" and s51.cash(g, "Ann") > 100
    assert sole_action(g) is None


def test_a_player_who_may_offer_a_private_is_not_passed() -> None:
    # 18TN Stock Round 1: Bob ($50) can buy nothing and sell no share in the first stock
    # round, but he may offer his ETWCR to another player (3.2(b)).
    g = tn.three_company_opening(end_stock_round=False)
    tn.play(g, ("Di", Pass()), ("Ann", Pass()))
    assert tn.president(g) == "Bob" and g.state.players["Bob"].cash == 50
    assert {type(a) for a in legal_actions(g)} == {Pass, Done}
    assert g.clone().attempt("Bob", SellPrivate("ETWCR", "Cy", 1))
    assert sole_action(g) is None


def test_a_par_to_set_is_no_pass() -> None:
    g = s51.new_game()
    assert sole_action(g) is None
