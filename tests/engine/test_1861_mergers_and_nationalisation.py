"""1861 merger rounds (12), nationalisation (11), the Russian State Railway (7.4) and
the end of the game (13), played at positions of record 167259 (an 18xx.games game).

Expected figures are the rulebook's arithmetic, or the site's own for the same
moves where a figure depends on positions built over many rounds."""

from __future__ import annotations

import pytest
from scenarios_1861 import now, record, record_game

from engine.actions import (
    Accept,
    BuyShares,
    Convert,
    Decline,
    Done,
    Keep,
    Merge,
    Nationalise,
    Pass,
    Route,
    RunRoutes,
)
from engine.errors import GameError
from engine.records import import_record
from engine.rounds.merger import MergerRound
from engine.state import TREASURY
from grammar import names_for_title
from grammar.parser import parse_line


def test_12_2_a_minor_in_the_conversion_zone_converts() -> None:
    g = record_game(315)  # Merger Round 3.2: K-R (Player 1) is asked
    assert isinstance(g.round, MergerRound) and g.round.current == "K-R"
    state = g.state
    kr = state.corporations["K-R"]
    price, cash, trains, loans = state.market.price("K-R"), kr.cash, list(kr.trains), kr.loans
    assert 100 <= price <= 165
    (hex_id, city), = [(h, c) for h, cities in state.board.tokens.items()
                       for c, corps in cities.items() if "K-R" in corps]
    g.apply("Player 1", Convert("K-R", "MK"))
    mk = state.corporations["MK"]
    assert state.market.price("MK") == price
    assert state.market.cell("MK").can_par  # on the red or purple space of that value
    assert (mk.cash, mk.trains, mk.loans) == (cash, trains, loans)
    assert mk.percent_held_by("Player 1") == 20 and mk.certificates[0].owner == "Player 1"
    assert mk.percent_held_by(TREASURY) == 80
    assert kr.closed and "K-R" not in state.market.positions
    assert "MK" in state.board.tokens[hex_id][city]
    # 12.4: the Director is offered the treasury's shares first.
    assert now(g) == "Player 1" and g.turn().step == "buy shares of MK"  # type: ignore[union-attr]


def test_12_2_a_minor_outside_the_zone_may_not_convert() -> None:
    g = record_game(311)  # Merger Round 3.2 begins with M-V at R50... asked in order
    assert isinstance(g.round, MergerRound)
    low = [m for m in g.rules.merger_candidates(g.state) if g.state.market.price(m) < 100]
    assert low
    with pytest.raises(GameError, match="conversion zone"):
        g.rules.convert(g.state, low[0], "NW", g.round)


def test_12_3_minors_merge_at_the_sum_of_the_highest_and_lowest_prices() -> None:
    g = record_game(328)  # M-NN (Player 3) proposes to merge with K-K (Player 3's too)
    state = g.state
    prices = [state.market.price("M-NN"), state.market.price("K-K")]
    cash = state.corporations["M-NN"].cash + state.corporations["K-K"].cash
    g.apply("Player 3", Merge(("M-NN", "K-K"), "MKN"))
    mkn = state.corporations["MKN"]
    expected = min(200, max(prices) + min(prices))
    assert state.market.price("MKN") == max(c.price for c in state.market.spec.par_cells("major")
                                            if c.price <= expected)
    assert mkn.cash == cash
    # Each minor is one share; two shares make Player 3 the Director.
    assert mkn.percent_held_by("Player 3") == 20 and mkn.president == "Player 3"
    assert state.corporations["M-NN"].closed and state.corporations["K-K"].closed
    stations = [h for h, cities in state.board.tokens.items()
                for corps in cities.values() if "MKN" in corps]
    assert len(stations) == 2  # 12.3: two stations, in different hexes


def test_12_4_shares_are_dealt_to_the_director_then_to_every_player() -> None:
    g = record_game(315)
    g.apply("Player 1", Convert("K-R", "MK"))
    asked = []
    while isinstance(g.round, MergerRound) and g.round.dealing is not None:
        asked.append(now(g))
        g.apply(now(g), Pass())
    # The Director, then each player from his left, once; who cannot pay is skipped.
    assert asked[0] == "Player 1"
    assert len(asked) == len(set(asked))


def test_12_4_the_director_buys_several_shares_in_one_order() -> None:
    """12.4: the shareholders buy any number: `buy 2 MK` is two shares at once."""
    g = record_game(315)
    g.apply("Player 1", Convert("K-R", "MK"))
    mk, me = g.state.corporations["MK"], g.state.players["Player 1"]
    price = g.state.market.price("MK")
    cash, held = me.cash, mk.percent_held_by("Player 1")
    assert cash >= 2 * price
    g.apply("Player 1", BuyShares("MK", 2))
    mk, me = g.state.corporations["MK"], g.state.players["Player 1"]
    assert mk.percent_held_by("Player 1") == held + 20 and me.cash == cash - 2 * price


def test_12_2_convert_without_a_public_named_takes_the_only_one_left() -> None:
    """`convert M-K` (the order reference's short form) names no public: it is refused
    with the choices while several wait, and takes the one left otherwise."""
    g = record_game(315)
    free = g.rules.unstarted_publics(g.state)  # type: ignore[attr-defined]
    assert len(free) > 1
    with pytest.raises(GameError, match="name the public company"):
        g.apply("Player 1", Convert("K-R"))
    for sym in free[1:]:
        g.state.corporations[sym].floated = True  # as if formed before, in this test
    assert g.rules.unstarted_publics(g.state) == free[:1]  # type: ignore[attr-defined]
    g.apply("Player 1", Convert("K-R"))
    assert g.state.corporations[free[0]].percent_held_by("Player 1") == 20


def test_11_phase_4_nationalises_the_minors_left_without_a_train() -> None:
    g = record_game(380)  # OR 4.1: T-R buys the first 4-train
    state = g.state
    before = {p: state.players[p].cash for p in ("Player 1", "Player 2")}
    assert {c.sym for c in state.corporations.values() if c.spec.kind == "minor"
            and not c.closed and c.floated} >= {"K-B", "SP-W"}
    from engine.actions import BuyTrain

    g.apply("Player 1", BuyTrain("4"))
    assert state.corporations["K-B"].closed and state.corporations["SP-W"].closed
    # One space left, two shares each: K-B R70 -> R65, SP-W R100 -> R90 (the site paid
    # the same: R130 and R180).
    assert state.players["Player 1"].cash - before["Player 1"] == 130
    assert state.players["Player 2"].cash - before["Player 2"] == 180


def test_11_a_director_may_have_his_trainless_public_nationalised() -> None:
    g = record_game(583)  # phase 6 has begun: MKN, NW and SW own no train
    state = g.state
    turn = g.turn()
    assert turn is not None and turn.entity == "MKN"
    holders = {s: state.corporations["MKN"].percent_held_by(s) for s in state.seats}
    cash = {s: state.players[s].cash for s in state.seats}
    price = state.market.price("MKN")
    g.apply(turn.seat, Nationalise("MKN"))
    after = state.market.price("MKN") if "MKN" in state.market.positions else None
    assert after is None and state.corporations["MKN"].president is None
    paid = {s: state.players[s].cash - cash[s] for s in state.seats}
    assert all(paid[s] == 0 for s in state.seats if not holders[s])
    assert all(0 < paid[s] < price * holders[s] // 10 + 1 for s in state.seats if holders[s])


def test_7_4_the_rsr_keeps_its_earnings() -> None:
    g = record_game(477)  # OR 4.2: the RSR runs its 4-train
    rsr = g.state.corporations["RSR"]
    cash, due, loans = rsr.cash, rsr.interest_due, rsr.loans
    g.apply(now(g), RunRoutes((Route("4", ("H8", "G7", "G5", "F4", "F2", "E1", "D2", "C3",
                                          "B4", "A5", "B6", "B8", "A9")),)))
    # R210 (the site's value) into its treasury (10.7), R5 interest per loan it began
    # the turn with (10.8), then as many loans repaid as R50s it holds (10.9).
    kept = cash + 210 - 5 * due
    repaid = min(loans, kept // 50)
    assert (rsr.cash, rsr.loans) == (kept - 50 * repaid, loans - repaid)
    assert "RSR" not in g.state.market.positions  # no price, no shares (7.4)


def test_13_the_first_8_train_in_a_first_operating_round_ends_the_game_two_rounds_on() -> None:
    replay = import_record(record())
    g = replay.game
    assert g.state.game_over
    assert g.round.name == "Operating Round 6.3"  # 6.1 (the 8-train), 6.2, 6.3
    assert g.scores() == replay.result == {"Player 1": 2731, "Player 2": 2460,
                                           "Player 3": 2336, "Player 4": 3354}
    # (The final mail's record, in the site's forms, reads back to the same game:
    # test_1861_export.py.)


def test_11_phase_6_nationalises_the_privates_at_face_value() -> None:
    from engine.actions import BuyTrain

    g = record_game(582)  # OR 5.2: E buys the first 6-train
    state = g.state
    owners = {p.sym: p.owner for p in state.privates.values()}
    assert all(owner in state.seats for owner in owners.values())
    start = len(state.log)
    g.apply("Player 1", BuyTrain("6"))
    assert {p.owner for p in state.privates.values()} == {"RSR"}
    said = state.log[start:]
    for sym, owner in owners.items():  # each owner paid the face value of Table 1
        value = {"TSR": 30, "BSS": 45, "MYR": 60, "MRR": 75, "WVR": 90}[sym]
        assert f"{sym} is nationalised; {owner} receives R{value}" in said


def _stations(g: object, sym: str) -> list[str]:
    tokens = g.state.board.tokens  # type: ignore[attr-defined]
    return sorted(h for h, cities in tokens.items() for corps in cities.values() if sym in corps)


def test_12_3_the_director_chooses_two_of_three_stations() -> None:
    """12.3: M-NN (Moscow), K-K (Kiev) and M-V (I13) merge: three hexes, so the order
    names the two stations the new company takes; the third is removed."""
    g = record_game(328)
    with pytest.raises(GameError, match="name them"):
        g.apply("Player 3", Merge(("M-NN", "K-K", "M-V"), "MKN"))
    with pytest.raises(GameError, match="merging minors"):
        g.apply("Player 3", Merge(("M-NN", "K-K", "M-V"), "MKN", ("M-NN", "M-K")))
    (order,) = parse_line("merge M-NN K-K M-V into MKN stations of M-NN M-V",
                          names_for_title(g.state.title, g.state.seats))
    assert order == Merge(("M-NN", "K-K", "M-V"), "MKN", ("M-NN", "M-V"))
    g.apply("Player 3", order)  # type: ignore[arg-type]
    g.apply("Player 4", Accept())  # M-V's owner agrees (12.1)
    assert _stations(g, "MKN") == ["H8", "I13"]
    assert _stations(g, "K-K") == [] and _stations(g, "M-V") == []
    assert g.state.corporations["MKN"].president == "Player 3"  # two shares of three


def test_12_3_two_stations_in_one_hex_are_one_station_of_the_new_company() -> None:
    """12.3: the public cannot take two stations in the same hex: M-NN and M-K both
    stand in Moscow; with K-K (Kiev) the company takes Moscow and Kiev by itself, and
    an order naming both Moscow stations is refused."""
    g = record_game(328)
    with pytest.raises(GameError, match="different hexes"):
        g.apply("Player 3", Merge(("M-NN", "M-K", "K-K"), "MKN", ("M-NN", "M-K")))
    g.apply("Player 3", Merge(("M-NN", "M-K", "K-K"), "MKN"))
    g.apply("Player 4", Accept())
    assert _stations(g, "MKN") == ["D14", "H8"]
    assert _stations(g, "M-K") == []


def test_12_4_a_merger_where_nobody_comes_to_hold_two_shares_is_reversed() -> None:
    """12.4: M-NN (Player 3) and M-K (Player 4) merge: one share each; both decline
    to buy, so nobody holds two shares and the merger is reversed."""
    g = record_game(328)
    state = g.state
    before = {s: state.players[s].cash for s in state.seats}
    prices = {m: state.market.price(m) for m in ("M-NN", "M-K")}
    cash = {m: state.corporations[m].cash for m in ("M-NN", "M-K")}
    g.apply("Player 3", Merge(("M-NN", "M-K"), "MKN"))
    g.apply("Player 4", Accept())
    rnd = g.round
    assert isinstance(rnd, MergerRound) and rnd.dealing is not None
    assert state.corporations["MKN"].percent_held_by("Player 3") == 10
    g.apply(now(g), Pass())
    g.apply(now(g), Pass())
    state = g.state
    assert rnd.dealing is None
    assert not state.corporations["MKN"].floated and "MKN" not in state.market.positions
    assert {m: state.market.price(m) for m in ("M-NN", "M-K")} == prices
    assert {m: state.corporations[m].cash for m in ("M-NN", "M-K")} == cash
    assert _stations(g, "M-NN") == ["H8"] and _stations(g, "M-K") == ["H8"]
    assert {s: state.players[s].cash for s in state.seats} == before
    assert "the merger is not allowed and is reversed (12.4)" in state.log[-1]
    assert rnd.current not in ("M-NN", "M-K")  # both have had their turn


def test_12_1_the_other_owners_must_agree_to_a_merger() -> None:
    """12.1: all parties to a proposed merger must agree: M-K's owner (Player 4) is
    asked; when he declines nothing merges and M-NN may propose again or pass."""
    g = record_game(328)
    with pytest.raises(GameError):  # a merger that may not take place is not proposed
        g.apply("Player 3", Merge(("M-NN", "R-O"), "MKN"))
    state = g.state  # (a refused order leaves the game as it was, in a new copy)
    g.apply("Player 3", Merge(("M-NN", "M-K"), "MKN"))
    turn = g.turn()
    assert turn is not None and turn.seat == "Player 4"
    assert g.round.legal() == ["accept", "decline"]
    assert not state.corporations["MKN"].floated  # nothing happens before he agrees
    g.apply("Player 4", Decline())
    assert not state.corporations["MKN"].floated and not state.corporations["M-K"].closed
    rnd = g.round
    assert isinstance(rnd, MergerRound) and rnd.current == "M-NN" and now(g) == "Player 3"
    g.apply("Player 3", Merge(("M-NN", "K-K"), "MKN"))  # his own two: nobody to ask
    assert state.corporations["MKN"].floated


def test_10_8_a_company_that_cannot_pay_its_interest_is_nationalised() -> None:
    """10.8, 11: MK (OR 4.2, no money left after its tile) is given five loans, its
    limit, as if it had begun its turn with them, and its treasury's shares are put in
    the Bank Pool and with Player 2, as if sold: it pays out its run (the pool's share
    of it is lost), cannot pay the R25 interest nor take another loan, pays what it has
    (nothing) and is nationalised at once: one space left and one more per loan (none
    repaid), each share paid that price, its train to the RSR, the next company on."""
    from engine import market
    from engine.actions import Dividend
    from engine.state import POOL

    g = record_game(460)  # OR 4.2: MK has laid its tile
    state = g.state
    mk, rsr = state.corporations["MK"], state.corporations["RSR"]
    assert (mk.cash, mk.loans) == (0, 0) and mk.percent_held_by("Player 1") == 20
    for i, cert in enumerate(mk.certificates_of(TREASURY)):
        cert.owner = POOL if i < 5 else "Player 2"
    mk.loans = mk.interest_due = 5
    pos = state.market.positions["MK"]
    rsr_trains = len(rsr.trains)
    g.apply("Player 1", RunRoutes(auto=True))
    g.apply("Player 1", Dividend("payout"))
    assert "MK owes R25 interest and has only R0 (10.8)" in state.log
    # The price moved right for the dividend, then left 1 + 5 for the nationalisation.
    pos = market.right(state.market.spec, pos)
    for _ in range(1 + 5):
        pos = market.left(state.market.spec, pos)
    price = market.cell_at(state.market.spec, pos).price  # type: ignore[union-attr]
    assert "MK" not in state.market.positions and mk.president is None and mk.loans == 0
    for seat, shares in (("Player 1", 2), ("Player 2", 3)):
        assert f"{seat} receives R{shares * price} for {shares} share(s) of MK" in state.log
    assert len(rsr.trains) == rsr_trains + 1 and mk.trains == []
    turn = g.turn()
    assert turn is not None and turn.entity != "MK"


def test_11_the_rsrs_turn_goes_on_after_the_directors_choices() -> None:
    """10 and 11: a phase begun by the last company's purchase leaves the Directors'
    choices pending as the RSR's turn begins; once they have chosen, the RSR runs its
    trains (10.6), and buys only then (10.10). Seed 8 game 2 of the differential: ours
    ended the RSR's turn at the first choice (the RSR never floats, so it was taken
    for a company gone), its purchases came without its run."""
    from engine.titles.t1861 import TRAINLESS

    g = record_game(477)  # OR 4.2: the RSR's turn, its run to come
    state = g.state
    turn = g.turn()
    assert turn is not None and turn.entity == "RSR"
    public = next(c for c in state.corporations.values()
                  if c.spec.kind == "major" and c.president is not None)
    public.markers.add(TRAINLESS)  # as the start of phase 6 would leave it (11)
    turn = g.turn()
    assert turn is not None and turn.entity == public.sym
    g.apply(turn.seat, Keep(public.sym))
    turn = g.turn()
    assert turn is not None and turn.entity == "RSR"
    cash = state.corporations["RSR"].cash
    g.apply(now(g), RunRoutes((Route("4", ("H8", "G7", "G5", "F4", "F2", "E1", "D2", "C3",
                                          "B4", "A5", "B6", "B8", "A9")),)))
    assert state.corporations["RSR"].cash > cash


def test_12_4_a_shareholder_who_declined_is_not_offered_one_share_at_once() -> None:
    """12.4: after the shareholders, every player may buy one share from the Director
    to the left. When nobody before him can buy, the player who has just declined any
    number would be asked again at once, nothing changed: his decline stands for both
    (as 18xx.games reads it; differential seed 16 game 0)."""
    g = record_game(328)
    g.apply("Player 3", Merge(("M-NN", "M-K"), "MKN"))
    g.apply("Player 4", Accept())
    assert now(g) == "Player 3"
    g.apply("Player 3", BuyShares("MKN", 1))  # R320 at R200 a share: one, no more
    assert g.state.players["Player 3"].cash < g.state.market.price("MKN")
    assert now(g) == "Player 4"
    g.apply("Player 4", Pass())
    rnd = g.round
    assert isinstance(rnd, MergerRound) and rnd.dealing is not None
    # Player 4 is not asked again: the single shares go on with Player 1.
    assert now(g) == "Player 1" and "Player 4" not in rnd.dealing.waiting


def test_12_4_a_shareholder_is_offered_one_share_after_the_director() -> None:
    """12.4: the same, the Director able to buy: the single shares begin with him, and
    the shareholder who declined is asked again after him."""
    g = record_game(328)
    g.apply("Player 3", Merge(("M-NN", "M-K"), "MKN"))
    g.apply("Player 4", Accept())
    g.state.players["Player 3"].cash += 400  # richer than in the record: may buy more
    g.apply("Player 3", BuyShares("MKN", 1))
    g.apply("Player 3", Done())
    g.apply("Player 4", Pass())
    assert now(g) == "Player 3"
    g.apply("Player 3", Pass())
    assert now(g) == "Player 4"
