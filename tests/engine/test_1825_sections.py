"""1825 Unit 1 rule sections no other test names (issue 35, item 8; docs/rule-coverage.md),
played out from scenarios_1825's positions against shared/rules/1825-unit1.txt."""

from __future__ import annotations

import copy
import json

import pytest
from scenarios_1825 import (
    R1_RECORD,
    first_round,
    lnwr_first_turn,
    new_game,
    now,
    pass_company,
    r1_record_prefix,
)

from engine import board
from engine.actions import (
    BuyPrivate,
    Done,
    LayTile,
    Pass,
    PlaceToken,
    RunRoutes,
    SellPrivate,
)
from engine.errors import GameError
from engine.game import Game
from engine.legal import legal_actions
from engine.records import expanded, folded_actions
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import BANK


def second_share_dealing_round() -> Game:
    """Share Dealing Round 2: the LNWR and the GWR operated once (the LNWR as in
    `lnwr_first_turn`, the GWR did nothing); Cy holds the Priority Deal."""
    g = new_game()
    first_round(g)
    lnwr_first_turn(g)
    while isinstance(g.round, OperatingRound):
        legal = g.legal()
        if "done" in legal:
            pass_company(g)
        elif any(line.startswith("run") for line in legal):
            g.apply(now(g), RunRoutes(auto=True))
        else:
            g.apply(now(g), Pass())
    assert isinstance(g.round, StockRound)
    return g


def with_phase(g: Game, name: str) -> Game:
    """A copy of `g` in phase `name`, the rest of the position kept."""
    copied = copy.deepcopy(g)
    copied.state.phase_index = next(i for i, p in enumerate(copied.state.title.phases)
                                    if p.name == name)
    return copied


def lay_cost(g: Game, hex_id: str, tile: str) -> int | str:
    """What laying `tile` on `hex_id` costs the LNWR at its best rotation, by the tile
    rules alone (no connection asked); the reason when no rotation is allowed."""
    corp = g.state.corporations["LNWR"]
    reason = ""
    for rotation in range(6):
        try:
            return board.check_lay(g.rules, g.state, corp, hex_id, tile, rotation,
                                   need_connection=False)
        except GameError as err:
            reason = str(err)
    return reason


def test_1_4_a_private_sells_to_the_bank_at_30_off_and_the_bank_sells_it_at_face_value(
        ) -> None:
    # "They can be sold to the bank at £30 off face value to free up certificate space or
    # just for immediate money. They can be bought from the bank"
    g = second_share_dealing_round()
    assert now(g) == "Cy"
    cash = g.state.players["Cy"].cash
    g.apply("Cy", SellPrivate("C&W", BANK))  # face value £130
    assert g.state.players["Cy"].cash == cash + 130 - 30
    assert g.state.privates["C&W"].owner != "Cy"
    g.apply("Cy", Done())
    assert now(g) == "Di"
    cash = g.state.players["Di"].cash
    g.apply("Di", BuyPrivate("C&W"))
    assert g.state.privates["C&W"].owner == "Di"
    assert g.state.players["Di"].cash == cash - 130


def test_5_1_4_track_then_a_base_then_trains_all_paid_by_company_credit() -> None:
    # "In order, companies have the opportunity to: * Build track (5.2) * Build a Base
    # (5.4) * Run Trains ... * Buy Trains (5.6) Any costs incurred during Operations are
    # paid with company credit, never with players' money."
    g = new_game()
    first_round(g)
    ann = g.state.players["Ann"].cash
    lnwr = g.state.corporations["LNWR"]
    credit = lnwr.cash
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    with pytest.raises(GameError):  # no track after the base
        g.apply("Ann", LayTile("9", "S15", 0))
    lnwr = g.state.corporations["LNWR"]
    g.apply("Ann", Done())
    assert lnwr.cash == credit - 40  # the base, from the company's credit
    assert g.state.players["Ann"].cash == ann


def test_5_2_2_phase_one_lays_only_yellow_tiles() -> None:
    # "Early in the game, in Phase One (see 5.7) only yellow Tiles can be placed. Later in
    # the game green and then russet Tiles will be available"
    g = new_game()
    first_round(g)
    lays = [a for a in legal_actions(g) if isinstance(a, LayTile)]
    assert lays and {g.state.title.tile(a.tile).color for a in lays} == {"yellow"}
    one = lay_cost(g, "R12", "14")  # a green tile onto the printed yellow R12
    assert isinstance(one, str) and "green tiles are not available in phase 1" in one
    two = lay_cost(with_phase(g, "2"), "R12", "14")
    assert not (isinstance(two, str) and "not available" in two)
    russet = next(name for name, spec in g.state.title.tiles.items()
                  if spec.color == "brown" and spec.label == "OO")
    three = lay_cost(with_phase(g, "2"), "R12", russet)
    assert isinstance(three, str) and "brown tiles are not available in phase 2" in three


def test_5_2_4_a_new_track_must_be_reached_from_a_base() -> None:
    # "Some new track on the Tile could be reached by following track from one of the
    # Company's Bases via a possible Route ... of any length."
    g = new_game()
    first_round(g)
    reachable = {a.hex for a in legal_actions(g) if isinstance(a, LayTile)}
    assert reachable == {"S15", "S17", "T14", "U17"}  # around Wolverton, its base
    lnwr = g.state.corporations["LNWR"]
    far = []  # the town R20, far from any LNWR base: it fits, but is not reached
    for rotation in range(6):
        try:
            board.check_lay(g.rules, g.state, lnwr, "R20", "3", rotation)
        except GameError as err:
            far.append(str(err))
    assert any(why.startswith("no new track on the tile in R20 could be reached") and
               why.endswith("(5.2.4.a)") for why in far)
    g.apply("Ann", LayTile("8", "T14", 2))


def test_5_2_7_promotions_never_cost_construction() -> None:
    # "Tile promotions never incur construction costs." The recorded R1 game: the SECR
    # lays yellow tile 6 on Ashford (W23, £40 terrain), later promotes it to green 13.
    record = json.loads(R1_RECORD.read_text())
    lays = [i for i, raw in enumerate(expanded(folded_actions(record["actions"])))
            if raw.get("type") == "lay_tile" and raw.get("hex") == "W23"]
    assert len(lays) == 2
    costs = []
    for index in lays:
        g, _ = r1_record_prefix(index, record)
        cash = g.state.corporations["SECR"].cash
        g, _ = r1_record_prefix(index + 1, record)
        costs.append(cash - g.state.corporations["SECR"].cash)
        assert g.state.board.tiles["W23"].name in ("6", "13")
    assert costs == [40, 0]
