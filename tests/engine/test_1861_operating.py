"""1861 operating rounds (10): the order by kind, two tile lays (10.4), towns skipped
(10.6), the minors' half pay (10.7), loans, their interest and repayment (10.2, 10.8,
10.9), and a company without a train (10.10).

Positions come from record 167259 (an 18xx.games game) and from `scenarios_1861`; the
expected figures are the rulebook's arithmetic, and where a run is valued, the value
the site recorded for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scenarios_1861 import (
    finish_turn,
    first_operating_round,
    new_game,
    pass_round,
    privates_at_minimum,
    record_game,
    sell_minor,
)

from engine import legal
from engine.actions import (
    Bid,
    BuyTrain,
    Dividend,
    Done,
    LayTile,
    Pass,
    PlaceToken,
    Route,
    RunRoutes,
    StartAuction,
)
from engine.errors import GameError
from engine.game import Game
from engine.records import import_record
from engine.rounds.operating import OperatingRound

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "1861"


def _operators(g: Game) -> list[str]:
    return [line.split()[0] for line in g.state.log if line.endswith(")")
            and " operates (" in line]


def test_10_minors_operate_by_price_the_top_of_a_stack_first() -> None:
    g = first_operating_round()
    # N R70, M-K R60, K-B and SP-W R50 (K-B's marker arrived first: on top).
    while isinstance(g.round, OperatingRound) and g.round.number == 1:
        turn = g.turn()
        assert turn is not None
        trainless = not g.state.corporations[turn.entity].trains
        g.apply(turn.seat, BuyTrain("2") if trainless else Done())
    assert _operators(g)[:4] == ["N", "M-K", "K-B", "SP-W"]


def test_10_10_a_company_without_a_train_must_buy_one_if_it_can() -> None:
    g = first_operating_round()
    with pytest.raises(GameError, match="must buy one"):
        g.apply("Bob", Done())
    g.apply("Bob", BuyTrain("2"))
    assert [t.name for t in g.state.corporations["N"].trains] == ["2"]


def _first_company_with_a_lay(g: Game) -> tuple[str, str, LayTile]:
    """OR 1.1 of `first_operating_round`: N's Moscow space leads only to printed
    track, so N buys its train and M-K, the next, lays."""
    g.apply("Bob", BuyTrain("2"))
    turn = g.turn()
    assert turn is not None and turn.entity == "M-K"
    lay = next(a for a in legal.legal_actions(g) if isinstance(a, LayTile)
               and g.state.title.hexes[a.hex].terrain_cost == 0)
    return turn.seat, turn.entity, lay


def test_10_4_a_second_tile_costs_r20_and_no_third() -> None:
    g = first_operating_round()
    seat, sym, first = _first_company_with_a_lay(g)
    cash = g.state.corporations[sym].cash
    g.apply(seat, first)
    assert g.state.corporations[sym].cash == cash  # the first lay is free
    second = next(a for a in legal.legal_actions(g) if isinstance(a, LayTile)
                  and g.state.title.hexes[a.hex].terrain_cost == 0)
    assert second.hex != first.hex  # 10.4: in a different hex
    g.apply(seat, second)
    assert g.state.corporations[sym].cash == cash - 20
    assert not [a for a in legal.legal_actions(g) if isinstance(a, LayTile)]


def test_10_6_and_10_7_a_minor_skips_a_town_and_pays_half_to_its_owner() -> None:
    g = record_game(70)  # OR 1.2: N (Player 2) runs its 2-train
    n = g.state.corporations["N"]
    owner = g.state.players["Player 2"]
    cash, own = n.cash, owner.cash
    assert g.state.market.price("N") == 65
    # H8 (Moscow R40) - G5 (Tver, a town, R10) - E1 (St. Petersburg R40): a 2-train
    # counts the two cities and skips the town: R80, as the site recorded.
    g.apply("Player 2", RunRoutes((Route("2", ("H8", "G7", "G5", "F4", "F2", "E1")),)))
    assert n.cash == cash + 40 and owner.cash == own + 40
    assert g.state.market.price("N") == 70  # one space right


def test_10_7_a_minor_that_earns_nothing_moves_left() -> None:
    g = first_operating_round()
    g.apply("Bob", BuyTrain("2"))  # N has no route yet: it earned nothing
    assert g.state.market.price("N") == 65  # R70 -> left: the R70 space's arrow points down


def test_10_2_a_loan_pays_for_track_it_could_not_otherwise_afford() -> None:
    g = record_game(84)  # OR 1.2: K-K, R10 in its treasury, has laid one tile
    kk = g.state.corporations["K-K"]
    assert (kk.cash, kk.loans) == (10, 0)
    g.apply("Player 3", LayTile("202", "G15", 2))  # the second lay: R20
    # One loan of R50, its first R5 of interest paid at once: R10 + R45 - R20.
    assert (kk.cash, kk.loans) == (35, 1)


def test_10_9_loans_are_repaid_once_the_treasury_holds_r50() -> None:
    g = record_game(85)  # K-K runs D14-E13-G15 for R60 (the site's value)
    kk = g.state.corporations["K-K"]
    g.apply("Player 3", RunRoutes((Route("2", ("D14", "E13", "F14", "G15")),)))
    # R35 + R30 (half of R60); no interest on this turn's loan (10.8); R65 >= R50:
    # the loan is repaid.
    assert (kk.cash, kk.loans) == (15, 0)


def test_10_8_interest_on_the_loans_held_when_the_turn_began() -> None:
    g = record_game(167)  # OR 2.2: M-V began its turn with two loans
    mv = g.state.corporations["M-V"]
    assert mv.loans == 2
    cash = mv.cash
    g.apply("Player 4", RunRoutes((Route("3", ("G15", "H14", "I13", "I11", "H10", "H8")),)))
    # Half of R120 kept, R10 interest, then one loan repaid (R50 or more left).
    assert mv.loans == 1
    assert mv.cash == cash + 60 - 10 - 50


def test_10_8_a_company_nationalised_for_its_interest_buys_no_train() -> None:
    """10.8, 11: a company that cannot pay its interest, even with loans, is nationalised
    when its dividend is settled; a train purchase that would pass its dividend step
    first is refused (its turn is over), not made for a company that is gone. (N's two
    loans and empty treasury are set directly: the position the random games reached.)"""
    g = first_operating_round()
    n = g.state.corporations["N"]
    n.loans, n.interest_due = 2, 2
    g.state.transfer_cash("N", "bank", n.cash)
    with pytest.raises(GameError, match="turn ended on the way to its train step"):
        g.apply("Bob", BuyTrain("2", "bank"))
    n = g.state.corporations["N"]  # the refusal leaves the game as it was
    assert n.floated and n.president == "Bob" and n.loans == 2


def test_10_8_after_a_nationalisation_at_done_the_next_company_operates() -> None:
    """10.8, 11: N ends its turn (`done`) and cannot pay its interest: it is nationalised
    and M-K, next in the operating order, begins its turn (it is not passed over).
    (N's two loans and empty treasury are set directly, as in the test above.)"""
    g = first_operating_round()
    n = g.state.corporations["N"]
    n.loans, n.interest_due = 2, 2
    g.state.transfer_cash("N", "bank", n.cash)
    g.apply("Bob", Done())
    assert g.state.corporations["N"].closed
    turn, rnd = g.turn(), g.round
    assert turn is not None and turn.entity == "M-K" and turn.step == "track"
    assert isinstance(rnd, OperatingRound) and "M-K" not in rnd.done


def test_10_10_a_trainless_company_that_can_pay_with_loans_must_buy() -> None:
    """10.10 with 10.2: N has no train and the 2-train costs R100: with R60 and its two
    loans (R45 each after interest) it can pay, so it must buy; its Director's purse
    plays no part (Bob's cash and most of N's are spent here first) and nobody goes
    bankrupt."""
    g = first_operating_round()
    g.state.transfer_cash("Bob", "bank", g.state.players["Bob"].cash)
    g.state.transfer_cash("N", "bank", g.state.corporations["N"].cash - 60)
    with pytest.raises(GameError, match="must buy"):
        g.apply("Bob", Done())
    assert not g.state.players["Bob"].bankrupt and not g.state.game_over
    g.apply("Bob", BuyTrain("2", "bank"))
    n = g.state.corporations["N"]
    assert [t.name for t in n.trains] == ["2"] and (n.loans, n.cash) == (1, 60 + 45 - 100)


def test_10_10_no_share_sale_for_a_train_in_an_operating_round() -> None:
    """10.10: the company takes loans for its train; its Director's money plays no part,
    so he sells no shares for it (the 18TN-style emergency sale is not 1861's)."""
    from engine.actions import SellShares

    g = record_game(392)  # OR 4.1: O-K, trainless; Player 3 holds 20% of MKN
    with pytest.raises(GameError, match=r"takes loans \(10\.10\)"):
        g.apply("Player 3", SellShares("MKN", None, 10))


def test_10_10_a_company_that_ends_its_turn_without_a_train_is_nationalised() -> None:
    g = record_game(392)  # OR 4.1: O-K has laid its tiles and cannot afford a 4-train
    ok = g.state.corporations["O-K"]
    owner = g.state.players["Player 3"]
    assert not ok.trains and ok.cash + 2 * 45 < 350
    own = owner.cash
    g.apply("Player 3", Done())
    assert ok.closed and "O-K" not in g.state.market.positions
    # 11: one space left (R110 -> R100), no loans; a minor counts as two shares.
    assert owner.cash == own + 2 * 100
    assert "RSR" in g.state.board.tokens["D20"][0]  # the RSR takes its station


def test_10_5_the_second_station_costs_r20_a_hex_from_the_first() -> None:
    g = record_game(664)  # OR 6.1: GRR (home F18, one station) has laid its tiles
    grr = g.state.corporations["GRR"]
    assert grr.token_costs == [20, 40]
    cash = grr.cash
    g.apply("Player 2", PlaceToken("G15"))
    # F18 to G15: one column east and three half-rows north, two hexes: 2 x R20.
    assert grr.cash == cash - 40
    assert "GRR" in g.state.board.tokens["G15"][0]


def test_10_2_no_lay_beyond_what_the_loans_allowed_can_pay() -> None:
    """Seed 3 game 5 of the differential, to its action 205 (the site agreed at every
    action): K-K, a minor with R1 and no loans, has laid its first tile. A second lay in
    D12 costs R20 + R80 water; its two loans (10.2: at most two for a minor) bring only
    R1 + 2 x R45 = R91, so the lay is refused, as the site refuses it, and no loan is
    taken."""
    record = json.loads((FIXTURES / "prefixes" / "prefix-3-5-205.json").read_text())
    g = import_record(record).game
    kk = g.state.corporations["K-K"]
    assert (kk.cash, kk.loans, g.state.board.tiles["E13"].name) == (1, 0, "3")
    turn = g.turn()
    assert turn is not None and turn.entity == "K-K"
    with pytest.raises(GameError, match="R100"):
        g.apply(turn.seat, LayTile("9", "D12", 2))
    kk = g.state.corporations["K-K"]
    assert (kk.cash, kk.loans) == (1, 0) and "D12" not in g.state.board.tiles


def test_10_10_in_phase_8_a_trainless_company_must_buy_a_2_plus_2_it_can_pay_with_loans(
) -> None:
    """10.10: a company without a train "will only be nationalised if, with the maximum
    loans allowed, it cannot afford the cheapest train available"; in phase 8 the Bank
    offers a 2+2 (R600, 14.2) besides the 8-train (R1000). A public with R395 and no
    loans reaches R620 with its five (10.2: R45 each), so it must buy the 2+2 (seed 7
    game 5 of the differential: ours nationalised it, the site made it buy)."""
    from scenarios_1861 import new_game

    from engine import trains
    from engine.titles.t1861 import UNLIMITED_TRAINS

    g = new_game(options=frozenset({UNLIMITED_TRAINS}))
    state = g.state
    state.phase_index = len(state.title.phases) - 1
    assert g.rules.phase(state).name == "8"
    state.trains_offered = [t for t in state.trains_offered if t.name in ("8", "5+5E", "2+2")]
    mvr = state.corporations["MVR"]
    state.transfer_cash("bank", "MVR", 395)
    assert mvr.loans == 0 and not mvr.trains
    cheapest = trains.cheapest_available(state)
    assert cheapest is not None and cheapest[1] == 1000  # the next train alone
    cheapest = g.rules.cheapest_train(state)
    assert cheapest is not None and (cheapest[0].name, cheapest[1]) == ("2+2", 600)
    assert g.rules.must_buy_train(state, mvr)


def test_10_1_a_route_may_not_include_two_separate_cities_of_one_hex() -> None:
    """10.1: "For cities such as the St. Petersburg green hex, which have two or more
    separate disconnected spaces, a route may not include two or more such spaces."
    Seed 11 game 3 of the differential: the RSR's best run went E1-G5-H8, on to H10 and
    back into another city of green Moscow (637); now no route, and never a best run."""
    from scenarios_1861 import new_game

    from engine.track import Node
    from engine.walks import Walk

    g = new_game()
    state = g.state
    rsr = state.corporations["RSR"]
    train = state.trains_offered[0]
    twice = Walk((Node("E1", "c", 0), Node("H8", "c", 0), Node("H10", "c", 0),
                  Node("H8", "c", 1)), frozenset(), ("E1", "H8", "H10", "H8"))
    once = Walk(twice.stops[:3], frozenset(), ("E1", "H8", "H10"))
    why = g.rules.why_not_walk(state, rsr, train, twice)
    assert why is not None and "10.1" in why
    assert g.rules.why_not_walk(state, rsr, train, once) is None
    assert g.rules.route_revenue(state, rsr, train, twice, [40, 50, 20, 50]) < 0
    assert g.rules.route_revenue(state, rsr, train, once, [40, 50, 20]) > 0


def _m_v_without_a_train() -> Game:
    """Issue 35's position (seats Cy, Ann, Bob): Bob wins the N and then the M-V at
    R115 against Cy; in OR 1.1 the M-V lays two tiles (the second for R20) and passes
    its token and route steps: no train, R55, short of a 2-train (R100) without a loan."""
    g = new_game(("Cy", "Ann", "Bob"))
    privates_at_minimum(g)
    sell_minor(g, "N", 100)
    for seat, action in (("Cy", Pass()), ("Ann", Pass()), ("Bob", StartAuction("M-V", 100)),
                         ("Cy", Bid(110)), ("Ann", Pass()), ("Bob", Bid(115)),
                         ("Cy", Pass())):
        g.apply(seat, action)
    pass_round(g)
    while g.turn() is not None and g.turn().entity != "M-V":  # type: ignore[union-attr]
        finish_turn(g)
    for action in (LayTile("57", "I13", 0), LayTile("9", "I15", 0), Pass(), Pass()):
        g.apply("Bob", action)
    mv = g.state.corporations["M-V"]
    assert not mv.trains and mv.cash == 55 and mv.loans == 0
    return g


def test_10_7_a_minor_has_no_dividend_choice() -> None:
    """10.7: "A Minor Company pays half of its earnings to its owner and half to its
    treasury. If its earnings are zero, the Company's stock price is moved one space
    to the left". The M-V earned nothing: the only order offered settles that."""
    g = _m_v_without_a_train()
    g.apply("Bob", Pass())  # the route step: it does not run
    assert g.turn() is not None and g.turn().step == "dividend"  # type: ignore[union-attr]
    assert "pay" in g.legal() and not any(o in g.legal() for o in ("withhold", "half"))
    assert [a for a in legal.legal_actions(g) if isinstance(a, Dividend)] == [
        Dividend("payout")]
    price = g.state.market.price("M-V")
    g.apply("Bob", Pass())  # the nil earnings settle by the rule
    assert g.state.market.price("M-V") < price
    assert g.turn() is not None and g.turn().step == "train"  # type: ignore[union-attr]


@pytest.mark.parametrize("settle", [Pass(), Dividend("payout"), Dividend("withhold")])
def test_10_10_a_minor_that_can_pay_with_loans_buys_before_any_nationalisation(
        settle: Pass | Dividend) -> None:
    """10.10: "The Company must take out loans, if necessary, in order to buy the
    required train from the Bank or Bank Pool. ... It will only be nationalised if,
    with the maximum loans allowed, it cannot afford the cheapest train available."
    However its nil earnings are settled (the order an old record of ours may carry
    included), the M-V (R55, two loans allowed) reaches its train step and must buy."""
    g = _m_v_without_a_train()
    g.apply("Bob", Pass())  # the route step; the dividend step is next
    g.apply("Bob", settle)
    turn = g.turn()
    assert turn is not None and turn.entity == "M-V" and turn.step == "train"
    assert not g.state.corporations["M-V"].closed
    assert g.legal() == ["buy train 2 (R100: M-V's R55 and 1 loan of R50)"]
    with pytest.raises(GameError, match=r"must buy one if it can.*\(10\.10\)"):
        g.apply("Bob", Done())
    g.apply("Bob", BuyTrain("2"))
    mv = g.state.corporations["M-V"]
    assert [t.name for t in mv.trains] == ["2"] and mv.loans == 1 and mv.cash == 0
    assert mv.president == "Bob" and not mv.closed
