"""1825 Unit 1, 4.4 and 6.4 (receivership): a company without a director, its receiver
chosen by the tie-breaks of 6.4, income always withheld (6.4.1), the leased train
(6.4.3), the trains it must and may buy (6.4.4), its payments at the end of its turn
(6.4.6), and the end of the receivership (6.4.7).

`gwr_in_receivership` plays Share Dealing Round 2 after `first_round`: Bob, the GWR's
director with 30% (the director's certificate and a share), sells all three shares;
nobody else holds two GWR shares (Cy, Di, Ann one each), so the director's certificate
goes to the pool and the GWR has no director (4.4). In Operating Round 2.1 the LNWR
runs and pays; then the GWR operates under its receiver.
"""

from __future__ import annotations

import pytest
from scenarios_1825 import all_pass, company_turn, first_round, new_game, now

from engine.actions import (
    Accept,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    Done,
    LayTile,
    LeaseTrain,
    Pass,
    PlaceToken,
    RunRoutes,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import POOL
from engine.titles import t1825_receivership as rcv

# The one tile that joins the GWR's base at Swindon (V14) to a large station: tile 9
# on V12 towards Bristol (V10); a 2-train earns £40 there (£10 + £30).
GWR_ROUTE = LayTile("9", "V12", 1)


def gwr_in_receivership() -> Game:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", Done())
    g.apply("Bob", Done())  # the GWR does nothing in Operating Round 1.1
    for seat in ("Cy", "Di", "Ann"):
        g.apply(seat, Pass())
    g.apply("Bob", SellShares("GWR", 3))
    g.apply("Bob", Done())  # four turns without a purchase: the round ends (4)
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    if company_turn(g) == "LNWR":
        g.apply("Ann", Done())
    assert company_turn(g) == "GWR"
    return g


def gwr_leases_runs_and_buys() -> Game:
    """The GWR's receiver (Cy) lays to a route, leases, runs and buys the bank's 2-train
    (6.4.3, 6.4.4), and ends its turn."""
    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    g.apply("Cy", BuyTrain("2"))
    g.apply("Cy", Done())
    return g


def test_4_4_with_nobody_holding_two_shares_the_director_s_certificate_stays_in_the_pool(
) -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", Done())
    g.apply("Bob", Done())
    for seat in ("Cy", "Di", "Ann"):
        g.apply(seat, Pass())
    state = g.state
    gwr = state.corporations["GWR"]
    assert "sell GWR (you hold 30%)" in g.legal()
    cash = state.player("Bob").cash
    g.apply("Bob", SellShares("GWR", 2))  # the certificate: two shares
    assert gwr.certificates[0].owner == POOL and gwr.president is None
    assert rcv.in_receivership(gwr)
    assert gwr.percent_held_by("Bob") == 10  # he keeps a plain share
    assert state.player("Bob").cash == cash + 2 * state.market.price("GWR")
    assert "GWR has no director (4.4)" in state.log[-1]


def test_4_4_a_director_s_certificate_is_sold_whole() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", Done())
    g.apply("Bob", Done())
    for seat in ("Cy", "Di", "Ann"):
        g.apply(seat, Pass())
    g.apply("Bob", SellShares("GWR"))  # his plain share: he keeps the certificate
    assert g.state.corporations["GWR"].president == "Bob"
    # Nobody else holds two shares: the certificate goes whole or not at all.
    assert "sell GWR (you hold 20%)" in g.legal()
    with pytest.raises(GameError, match=r"sells it whole \(`sell 2 GWR`, 4.4\)"):
        g.apply("Bob", SellShares("GWR"))
    g.apply("Bob", SellShares("GWR", 2))
    assert rcv.in_receivership(g.state.corporations["GWR"])


def test_6_4_the_receiver_is_a_player_neither_receiver_nor_director_holding_a_share() -> None:
    g = gwr_in_receivership()
    # Ann directs the LNWR; Bob, Cy and Di direct nothing; Cy and Di hold a GWR share;
    # the first of them clockwise from the Priority Deal (Cy, nobody bought in SDR 2).
    assert g.state.priority == "Cy"
    assert now(g) == "Cy"
    assert "GWR has no director: Cy is appointed its receiver (6.4)" in g.state.log
    with pytest.raises(GameError, match="Director Cy gives its orders"):
        g.apply("Bob", Done())


def test_6_4_receiver_tie_breaks() -> None:
    g = gwr_in_receivership()
    state = g.state
    gwr = state.corporations["GWR"]
    gwr.markers.discard("receiver:Cy")
    # Priority Deal with Di: among Cy and Di (both holding a share) Di comes first.
    state.priority = "Di"
    assert rcv.choose_receiver(state, gwr) == "Di"
    # Nobody holds a GWR share: Bob too is a candidate; from Di: Di, Ann, Bob, Cy.
    for cert in gwr.certificates:
        if cert.owner in state.seats:
            cert.owner = POOL
    state.priority = "Ann"
    assert rcv.choose_receiver(state, gwr) == "Bob"
    # Everyone directs a company: the lowest total share price decides.
    lnwr_price = state.market.price("LNWR")
    for seat, sym in (("Bob", "GER"), ("Cy", "LSWR"), ("Di", "SECR")):
        corp = state.corporations[sym]
        corp.certificates[0].owner = seat
        g.rules.start_company(state, corp)  # type: ignore[attr-defined]
    prices = {s: state.market.price(c) for s, c in
              (("Ann", "LNWR"), ("Bob", "GER"), ("Cy", "LSWR"), ("Di", "SECR"))}
    assert prices["Ann"] == lnwr_price
    lowest = min(prices.values())
    expected = next(s for s in state.seats_from("Ann") if prices[s] == lowest)
    assert rcv.choose_receiver(state, gwr) == expected


def test_6_4_3_a_receiver_leases_a_train_only_when_it_improves_income() -> None:
    g = gwr_in_receivership()
    state = g.state
    # No route yet: a leased train would earn nothing.
    with pytest.raises(GameError, match=r"would not improve GWR's income.*\(6.4.3\)"):
        g.apply("Cy", LeaseTrain())
    g.apply("Cy", GWR_ROUTE)
    assert any(o.startswith("lease train") for o in g.legal())
    # Now it does: running (or not running) without the lease is refused.
    with pytest.raises(GameError, match=r"must lease it first \(6.4.3\)"):
        g.apply("Cy", RunRoutes(auto=True))
    with pytest.raises(GameError, match=r"must lease it first \(6.4.3\)"):
        g.apply("Cy", Done())
    offered = [t.id for t in state.trains_offered]
    phase = state.phase_index
    cash = state.corporations["GWR"].cash
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    state = g.state
    gwr = state.corporations["GWR"]
    # The train stays the bank's: it is no purchase and starts no phase.
    assert [t.id for t in state.trains_offered] == offered
    assert state.phase_index == phase
    assert gwr.trains == []  # back to the bank once run
    # 6.4.1: the £40 is withheld; 6.4.6: the £10 is paid at the end of the turn.
    assert gwr.cash == cash + 40
    g.apply("Cy", BuyTrain("2"))  # 6.4.4: it has none and a route (see below)
    g.apply("Cy", Done())
    assert g.state.corporations["GWR"].cash == cash + 40 - 180 - 10
    assert any("pays £10 for its leased train at the end of its turn (6.4.6)" in m
               for m in g.state.log)


def test_6_4_1_income_is_always_withheld() -> None:
    g = gwr_in_receivership()
    price = g.state.market.price("GWR")
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    state = g.state
    assert "GWR withholds £40" in state.log
    assert state.market.price("GWR") < price  # withheld: one space down (6.3)
    assert "pay" not in g.legal() and "payout" not in g.legal()


def test_6_4_4_a_trainless_company_must_buy_the_next_new_train_when_funds_permit() -> None:
    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    with pytest.raises(GameError, match=r"must buy a Train as soon as funds permit "
                       r"\(6\.4\.4\)"):
        g.apply("Cy", Done())
    # Only the bank's new train, or another company's of that type for less.
    with pytest.raises(GameError, match=r"for less than the bank's £180 \(6.4.4\)"):
        g.apply("Cy", BuyTrain("2", "LNWR", 180))
    g.apply("Cy", BuyTrain("2", "LNWR", 170))
    g.apply("Ann", Accept())
    assert [t.name for t in g.state.corporations["GWR"].trains] == ["2"]


def test_6_4_4_no_second_hand_train_from_the_bank_and_never_a_sale() -> None:
    g = gwr_in_receivership()
    state = g.state
    train = state.corporations["LNWR"].trains[0]
    state.corporations["LNWR"].trains.remove(train)
    state.trains_pool.append(train)
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    assert not any("from pool" in o for o in g.legal())
    with pytest.raises(GameError, match=r"second-hand train from the bank \(6.4.4\)"):
        g.apply("Cy", BuyTrain("2", POOL))
    g.apply("Cy", BuyTrain("2"))
    all_pass_company(g)
    all_pass(g)
    # Operating Round 3.1: the LNWR may not buy the GWR's train.
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    with pytest.raises(GameError, match=r"GWR is in receivership and may never sell a train"):
        g.apply("Ann", BuyTrain("2", "GWR", 100))


def all_pass_company(g: Game) -> None:
    """Ends the operating round: each company's turn is ended with `done`."""
    while isinstance(g.round, OperatingRound):
        g.apply(now(g), Done())


def test_6_4_7_receivership_ends_when_a_player_holds_two_shares() -> None:
    g = gwr_in_receivership()
    g.apply("Cy", Done())
    assert isinstance(g.round, StockRound)
    gwr = g.state.corporations["GWR"]
    assert gwr.president is None  # the receiver directs only during its turn
    while now(g) != "Di":
        g.apply(now(g), Pass())
    g.apply("Di", BuyShares("GWR"))  # a new share: Di now holds two
    state = g.state
    gwr = state.corporations["GWR"]
    assert gwr.president == "Di" and gwr.certificates[0].owner == "Di"
    assert gwr.percent_held_by("Di") == 20 and not rcv.in_receivership(gwr)
    assert rcv.receiver(gwr) is None
    assert "Di holds two shares of GWR and becomes its director: its receivership " \
           "ends (6.4.7)" in state.log


def test_6_4_the_receiver_discards_for_the_company_outside_its_turn() -> None:
    g = gwr_in_receivership()
    g.apply("Cy", Done())  # no route yet: nothing to lease or buy
    all_pass(g)
    state = g.state
    # The GWR holds four trains (given here); the LNWR buys the first 5-train.
    gwr = state.corporations["GWR"]
    while state.trains_offered[0].name == "2":
        state.trains_offered.pop(0)
    for _ in range(4):
        gwr.trains.append(state.trains_offered.pop(0))
    while state.trains_offered[0].name != "5":
        state.trains_offered.pop(0)
    assert [t.name for t in gwr.trains] == ["3", "3", "3", "3"]
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    g.apply("Ann", BuyTrain("5"))
    # 5.7.3: phase three allows three trains; the GWR's receiver discards one (6.4).
    assert now(g) == "Cy" and g.legal() == ["discard train 3"] * 4
    g.apply("Cy", DiscardTrain("3"))
    assert len(g.state.corporations["GWR"].trains) == 3


def test_6_4_3_a_game_with_a_lease_goes_out_as_a_record_and_comes_back_alike() -> None:
    from engine.records import export_record, import_record

    g = gwr_leases_runs_and_buys()
    # (A later move: the purchase the site's receiver makes by itself is unrecorded,
    # and made by the importer, where the record goes on.)
    g.apply(g.turn().seat, Pass())
    back = import_record(export_record(g)).game
    assert [m.action for m in back.log] == [m.action for m in g.log]
    assert back.state.corporations["GWR"].cash == g.state.corporations["GWR"].cash


def test_6_4_3_the_lease_after_the_lays_goes_out_after_the_track_step_s_pass() -> None:
    """The site's receiver leases in its track step before a lay or in its run step:
    after the lays, its track step's pass comes first (a random game of the
    differential, seed 41 game 2). After the run the site's receiver has nothing to
    choose (6.4.4's purchase it makes by itself): our pass of the train step, like our
    `done`, has no site form."""
    from engine.records import export_record

    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    g.apply("Cy", BuyTrain("2"))
    g.apply("Cy", Pass())
    assert not isinstance(g.round, OperatingRound) or company_turn(g) != "GWR"
    g.apply(g.turn().seat, Pass())  # a later move: the site's end of the turn shows
    actions = [a for a in export_record(g)["actions"] if a.get("entity") == "GWR"]
    kinds = [a["type"] for a in actions]
    assert kinds[kinds.index("lay_tile") + 1:] == ["pass", "special_buy", "run_routes"]


def test_6_4_6_a_receiver_buys_no_train_its_lease_would_leave_it_unable_to_pay() -> None:
    # Seed 41 game 9 of the differential: the LBSC's receiver, £550 after its run with a
    # leased train, bought a 5-train for £550 and ended its turn £10 short (the site's
    # cash, its lease paid, was £540: no purchase). 6.4.6: "It must still have
    # sufficient funds to make those payments by the end of the OR."
    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.state.corporations["GWR"].cash = 140  # £180 after the run: a 2-train's price
    g.apply("Cy", RunRoutes(auto=True))
    assert g.state.corporations["GWR"].cash == 180
    assert not rcv.must_buy(g.rules, g.state, g.state.corporations["GWR"])
    with pytest.raises(GameError, match=r"pays £10 at the end of its turn and must "
                                        r"keep it.*\(6.4.6\)"):
        g.apply("Cy", BuyTrain("2"))
    assert "buy train 2 (£180)" not in g.legal()
    g.apply("Cy", Done())  # 6.4.4: funds do not permit it yet
    assert g.state.corporations["GWR"].cash == 170
    assert g.state.corporations["GWR"].trains == []
