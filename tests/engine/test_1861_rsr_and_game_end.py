"""1861: the Russian State Railway's Moscow station and its last train (7.4), played at
positions of record 167259 (an 18xx.games game).

Where a position needs what the record never shows (a Moscow without an RSR station,
a richer RSR), the test says what it changes before playing the rule out."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scenarios_1861 import now, record, record_game

from engine.actions import BuyTrain, DiscardTrain, Done, Keep, LayTile, Nationalise, PlaceToken
from engine.errors import GameError
from engine.game import Game, Setup
from engine.national import RESERVE
from engine.rounds.merger import MergerRound
from engine.rounds.operating import OperatingRound
from engine.state import BANK
from engine.titles.t1861 import BANK_BROKEN, LONG_GAME


def _rsr_stations(g: object, hex_id: str) -> int:
    tokens = g.state.board.tokens.get(hex_id, {})  # type: ignore[attr-defined]
    return sum(corps.count("RSR") for corps in tokens.values())


def test_7_4_the_rsr_places_its_station_when_moscow_upgrades_to_grey() -> None:
    g = record_game(586)  # OR 5.2: M-V lays the grey Moscow (639)
    state = g.state
    rsr = state.corporations["RSR"]
    # In the record the RSR already holds a Moscow station (a nationalised company's);
    # here it is taken back, as if that company had never stationed in Moscow.
    for corps in state.board.tokens["H8"].values():
        if "RSR" in corps:
            corps.remove("RSR")
            rsr.token_costs.append(0)
    rsr.markers.add(RESERVE + "H8")
    left = len(rsr.token_costs)
    assert _rsr_stations(g, "H8") == 0
    g.apply(now(g), LayTile("639", "H8", 0))
    assert _rsr_stations(g, "H8") == 1  # 7.4, on the space kept for it (10.5)
    assert len(rsr.token_costs) == left - 1
    assert RESERVE + "H8" not in rsr.markers
    assert "RSR places its station in Moscow" in state.log


def test_7_4_the_rsr_with_a_moscow_station_places_no_second_one() -> None:
    g = record_game(586)
    rsr = g.state.corporations["RSR"]
    assert _rsr_stations(g, "H8") == 1  # taken from a nationalised company (11)
    left = len(rsr.token_costs)
    g.apply(now(g), LayTile("639", "H8", 0))
    assert _rsr_stations(g, "H8") == 1 and len(rsr.token_costs) == left


def test_7_4_the_rsr_buys_the_first_8_train_and_no_more() -> None:
    """7.4: it may buy the first 8-train and no longer operates once one is bought;
    10.10: it buys the cheapest new trains while it can pay."""
    g = record_game(595)  # OR 5.2: the RSR has run and buys its trains at its turn's end
    state = g.state
    rsr = state.corporations["RSR"]
    assert [t.name for t in state.trains_offered[:5]] == ["6", "7", "7", "8", "8"]
    # R3000 more from the bank: enough for a 6, two 7s and two 8s (R4250 with its own).
    state.transfer_cash(BANK, "RSR", 3000)
    assert rsr.cash >= 650 + 2 * 800 + 2 * 1000
    start = len(state.log)
    g.apply(now(g), Done())
    bought = [line for line in state.log[start:] if line.startswith("RSR buys")]
    assert [line.split()[3] for line in bought] == ["6-train", "7-train", "7-train",
                                                    "8-train"]
    assert [t.name for t in rsr.trains].count("8") == 1
    assert g.rules.phase(state).name == "8"
    assert rsr.cash >= 1000  # it could pay for another 8-train, and buys none (7.4)
    assert not g.rules.national_operates(state)  # type: ignore[attr-defined]


def test_10_10_a_company_over_the_limit_the_rsrs_train_lowers_discards_at_once() -> None:
    """10.10: "If the purchase of a train lowers the train limit, Companies with too
    many trains discard the excess into the Bank Pool"; the RSR's purchase at its
    turn's end (7.4) is such a purchase. (Found by the differential check: the site
    asks for the discard before play goes on; ours asked only at the next purchase.)"""
    g = record_game(549)  # OR 4.2 (phase 5): the RSR at its train step, R771
    state = g.state
    nw = state.corporations["NW"]
    # NW holds the three 5-trains of the offering (its limit in phase 5: three), so the
    # RSR's next train is the first 6-train: phase 6, a major's limit two.
    fives = [t for t in state.trains_offered if t.name == "5"]
    for train in fives:
        state.trains_offered.remove(train)
    nw.trains[:] = fives
    g.apply(now(g), Done())
    assert "RSR buys a 6-train for R650" in state.log and "Phase 6 begins" in state.log
    # 11: the phase's nationalisation choices come first, then the discard.
    while (turn := g.turn()) is not None and turn.step != "discard a train":
        assert turn.entity in ("SW", "MKN")
        g.apply(turn.seat, Keep(turn.entity))
    assert turn is not None and turn.entity == "NW" and turn.seat == nw.president
    assert isinstance(g.round, OperatingRound)
    with pytest.raises(GameError, match="over its train limit"):
        g.apply(turn.seat, Done())
    g.apply(turn.seat, DiscardTrain("5"))
    state = g.state  # (a refused action puts back a copy of the position)
    assert [t.name for t in state.corporations["NW"].trains] == ["5", "5"]
    assert [t.name for t in state.trains_pool] == ["5"]
    assert isinstance(g.round, MergerRound)


def test_11_the_choices_of_a_phase_begun_by_the_rsrs_last_purchase_come_first() -> None:
    """11: at the start of phase 6 the Director of a public that has operated and owns
    no train may have it nationalised. Begun by the RSR's purchase at the end of its
    turn, the last of the operating round, the choices are asked before the next round
    (found by the differential check, seed 3 game 3: ours went on to the next round
    and never asked; the site asks them first)."""
    g = record_game(549)  # OR 4.2 (phase 5): the RSR at its train step, R771
    state = g.state
    # The three 5-trains left are taken out of the offering, so that the RSR's next
    # train is the first 6-train (phase 6).
    for train in [t for t in state.trains_offered if t.name == "5"]:
        state.trains_offered.remove(train)
    g.apply(now(g), Done())
    assert "RSR buys a 6-train for R650" in state.log and "Phase 6 begins" in state.log
    asked = []
    while isinstance(g.round, OperatingRound):
        turn = g.turn()
        assert turn is not None and turn.step.startswith("nationalise")
        asked.append(turn.entity)
        g.apply(turn.seat, Keep(turn.entity))
    # Each public that has operated and lost its trains (phase 6 removes the 3-trains).
    trainless = {c.sym for c in g.state.corporations.values() if c.spec.kind == "major"
                 and c.operated and not c.trains and not c.closed}
    assert sorted(asked) == sorted(trainless) and len(asked) >= 2
    assert isinstance(g.round, MergerRound)


def test_10_10_the_rsr_goes_on_buying_with_what_the_phases_nationalisations_bring() -> None:
    """10.10: the RSR "always buys the cheapest new train(s) from the Bank if it has
    sufficient money"; 11: "Any remaining assets are given to the Russian State
    Railway". Its purchase at its turn's end begins phase 6 and the Directors of the
    trainless publics nationalise them: with MKN's treasury the RSR pays for the next
    train before the round ends (as the site has it: seed 5 game 4 of the differential,
    where the site's RSR then bought the first 8-train)."""
    g = record_game(549)  # OR 4.2 (phase 5): the RSR at its train step
    state = g.state
    for train in [t for t in state.trains_offered if t.name == "5"]:
        state.trains_offered.remove(train)  # its next train: the first 6-train
    g.apply(now(g), Done())
    rsr = g.state.corporations["RSR"]
    cash, mkn = rsr.cash, g.state.corporations["MKN"].cash
    nxt = g.state.trains_offered[0]
    price = g.state.title.train(nxt.name).price
    assert cash < price <= cash + mkn  # R570 + R272: a R800 7-train
    while isinstance(g.round, OperatingRound):
        turn = g.turn()
        assert turn is not None
        g.apply(turn.seat, Nationalise(turn.entity))
    assert g.state.log[-2:] == [f"RSR buys a {nxt.name}-train for R{price}",
                                "Merger Round 5.1 begins"]


def _replay_changing(change_before: int, change: Callable[[Game], None]) -> Game:
    """Record 167259 replayed with `change` made before site action `change_before`,
    then on until the record ends or our game does."""
    from engine.records import (
        RecordMapper,
        expanded,
        folded_actions,
        replay_action,
        setup_of,
    )

    data = record()
    setup, names = setup_of(data)
    g = Game(setup)
    mapper = RecordMapper(g, names)
    changed = False
    for index, raw in enumerate(expanded(folded_actions(data["actions"]))):  # type: ignore[arg-type]
        if raw.get("id") == change_before and not changed:
            change(g)
            changed = True
        if g.state.game_over:
            break
        replay_action(g, mapper, index, raw)
    return g


def _bank_of(amount: int) -> Callable[[Game], None]:
    def change(g: Game) -> None:
        # The bank holds `amount` (the rest moved to no one), as if play had drained it.
        g.state.bank_cash = amount
    return change


def test_13_the_bank_breaking_in_an_operating_round_ends_the_game_after_it() -> None:
    """13: R50 left in the bank as OR 5.1 begins (the privates' revenue breaks it):
    OR 5.1 is completed and the game ends, with no merger round after it; 13's loan
    adjustment and scores apply as at any end."""
    g = _replay_changing(489, _bank_of(50))  # 489: OR 5.1's first action
    state = g.state
    assert state.game_over and state.end_reason == BANK_BROKEN
    assert isinstance(g.round, OperatingRound) and g.round.name == "Operating Round 5.1"
    assert state.bank_cash < 0  # IOUs: players and companies were paid in full (13)
    scores = g.scores()
    for seat, player in state.players.items():  # 13: cash, shares, minors twice
        shares = sum(state.market.price(c.sym) * (2 if c.spec.kind == "minor"
                                                  else c.percent_held_by(seat) // 10)
                     for c in state.corporations.values()
                     if c.percent_held_by(seat) and c.sym in state.market.positions)
        privates = sum(p.spec.value for p in state.privates.values() if p.owner == seat)
        assert scores[seat] == player.cash + shares + privates


def test_13_an_8_train_after_the_bank_breaks_sets_the_longer_end() -> None:
    """13: the bank breaks in Stock Round 6 (starting the public companies draws on
    it): the round is completed and one operating round is due; but the first 8-train
    is bought in that round (OR 6.1), so 6.2 and 6.3 follow, and the game ends as the
    record's did, with the record's scores."""
    g = _replay_changing(601, _bank_of(0))  # 601: Stock Round 6 begins
    state = g.state
    assert state.game_over and g.round.name == "Operating Round 6.3"
    assert g.scores() == {"Player 1": 2731, "Player 2": 2460, "Player 3": 2336,
                          "Player 4": 3354}
    assert any(line.startswith("The bank has broken") for line in state.log)


def test_14_4_the_long_game_ignores_the_8_train() -> None:
    """14.4: no end at the first 8-train; the bank breaking ends it even in phase 8
    (which 13 alone ignores)."""
    g = Game(Setup("1861", ("Ann", "Bob", "Cy", "Dee"), 0, frozenset({LONG_GAME}),
                   priority="Ann"))
    g.state.phase_index = len(g.state.title.phases) - 1  # the first 8-train: phase 8
    assert g.rules.phase(g.state).name == "8"
    g.rules.on_phase_change(g.state, g.state.title.phases[-1])
    assert g.state.end_triggered is None
    g.state.bank_cash = -1
    g.rules.check_end(g.state)  # in phase 8 the bank still ends it
    assert g.state.end_triggered == BANK_BROKEN


def test_13_the_bank_breaking_in_phase_8_does_not_end_the_standard_game() -> None:
    g = Game(Setup("1861", ("Ann", "Bob", "Cy", "Dee"), 0, priority="Ann"))
    g.state.phase_index = len(g.state.title.phases) - 1
    g.state.bank_cash = -1
    g.rules.check_end(g.state)  # 13: only before the first 8-train
    assert g.state.end_triggered is None


def test_10_10_the_rsr_buys_no_train_from_a_company_and_sells_none() -> None:
    g = record_game(595)  # the RSR's train step: it holds a 4 and a 5
    assert not any(" from " in option for option in g.round.legal())
    with pytest.raises(GameError, match="from the bank only"):
        g.apply(now(g), BuyTrain("4", source="MK", price=1))
    state = g.state
    rsr, mk = state.corporations["RSR"], state.corporations["MK"]
    why = g.rules.why_not_train_price(state, mk, rsr, rsr.trains[0], 1)
    assert why is not None and "no company buys trains from the RSR" in why


def test_10_the_rsr_places_no_station_marker_in_its_turn() -> None:
    """10: the RSR runs, withholds, pays interest, repays loans and buys trains; its
    stations come only from 7.4 (St. Petersburg, grey Moscow) and 11. (Found by the
    differential check: the site has no token step for it.)"""
    g = record_game(548)  # OR 4.2: the RSR operates, a station marker left
    turn = g.turn()
    assert turn is not None and turn.entity == "RSR"
    assert g.state.corporations["RSR"].token_costs
    assert not any(option.startswith("token") for option in g.legal())
    with pytest.raises(GameError, match="places no station markers"):
        g.apply(turn.seat, PlaceToken("B4", 0))
