"""1825 Unit 1, 5.5.5: two 2-trains may be double-headed, run on one route legal for a
single 3-train, earning exactly what a 3-train would.

The GWR (Bob) lays tile 4 through Wantage (V16, a town) from its base at Swindon (V14)
and buys two 2-trains in Operating Round 1.1; in 2.1 tile 9 on V18 joins Wantage to
Reading (V20). Swindon-Wantage-Reading is three stops: no 2-train may run it, and a
route ending at the town is none (5.5.2); double-headed, the two 2-trains earn
£10 + £10 + £50 = £70 on it. The orders are read by the order parser.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest
from scenarios_1825 import company_turn, first_round, new_game, now

from engine.actions import Action, BuyTrain, Done, LayTile, Pass, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.records import export_record
from engine.rounds.stock import StockRound
from engine.routes import train_distance
from engine.state import Train
from grammar.names import names_for_title
from grammar.parser import parse_line


def order(g: Game, text: str) -> Action:
    (parsed,) = parse_line(text, names_for_title(g.rules.title, g.setup.seats))
    assert isinstance(parsed, Action)
    return parsed


def gwr_with_two_2_trains() -> Game:
    g = new_game()
    first_round(g)
    g.apply("Ann", Done())
    g.apply("Bob", LayTile("4", "V16", 1))
    g.apply("Bob", BuyTrain("2"))
    g.apply("Bob", BuyTrain("2"))
    g.apply("Bob", Done())
    while isinstance(g.round, StockRound):
        g.apply(now(g), Pass())
    g.apply("Ann", Done())
    assert company_turn(g) == "GWR"
    g.apply("Bob", LayTile("9", "V18", 1))
    g.apply("Bob", Pass())  # no base
    return g


def test_5_5_5_two_2_trains_double_headed_run_as_a_3_train() -> None:
    g = gwr_with_two_2_trains()
    assert train_distance(g.state, Train("2+2", "2-0+2-1")) == 3
    with pytest.raises(GameError, match="no legal route for the 2-train"):
        g.apply("Bob", order(g, "run 2: V14 V16 V20"))
    g.apply("Bob", order(g, "run 2+2: V14 V16 V20"))
    rnd = g.round
    assert rnd.current is not None and rnd.current.revenue == 70  # type: ignore[attr-defined]


def test_5_5_5_the_best_run_double_heads_where_that_earns_more() -> None:
    g = gwr_with_two_2_trains()
    g.apply("Bob", RunRoutes(auto=True))
    assert "GWR runs for £70: 2+2: V14 V16 V20 (70)" in g.state.log


def test_5_5_5_a_double_header_uses_both_2_trains() -> None:
    g = gwr_with_two_2_trains()
    with pytest.raises(GameError, match=r"no \(further\) 2-train"):
        g.apply("Bob", order(g, "run 2+2: V14 V16 V20; 2: V14 V16"))


def test_5_5_5_a_double_header_goes_to_18xx_games_as_two_2_train_routes() -> None:
    g = gwr_with_two_2_trains()
    g.apply("Bob", RunRoutes(auto=True))
    record = export_record(g)
    run = [a for a in record["actions"] if a["type"] == "run_routes"][-1]
    assert [r["hexes"] for r in run["routes"]] == [["V14", "V16"], ["V16", "V20"]]
    assert len({r["train"] for r in run["routes"]}) == 2


def _site_1825() -> ModuleType:
    """tools/oracle/site_1825.py, the differential's 1825 module (not a package)."""
    folder = str(Path(__file__).resolve().parents[2] / "tools" / "oracle")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("site_1825")


def test_5_5_5_a_double_headed_half_without_a_base_is_named_at_its_run() -> None:
    """5.5.5: the two 2-trains "run on one Route which is legal for a single '3' Train",
    here Swindon (the GWR's base) - Wantage (a town) - Reading: legal, as one route
    begins and ends at large stations (5.5.2). The site, given no revenue, loads each
    half as a route of its own and finds a route of one chain only through a base:
    Wantage-Reading holds none, and it refuses it ("Route cannot begin/end in a
    town"). The differential names that refusal the listed difference only where our
    position at the run shows such a half."""
    site_1825 = _site_1825()
    g = gwr_with_two_2_trains()
    before = g.clone()
    g.apply("Bob", RunRoutes(auto=True))
    run = [a for a in export_record(g)["actions"] if a["type"] == "run_routes"][-1]
    refusal = "Engine::GameError: Route cannot begin/end in a town"
    assert site_1825.half_without_base(before, run)
    assert site_1825.double_heading_unchecked(before, run, refusal)
    assert not site_1825.double_heading_unchecked(before, run, "Engine::GameError: other")
    # A run of one 2-train is no pair; a pair whose halves both hold a base, none.
    single = {**run, "routes": run["routes"][:1], "moderator_actions": []}
    assert not site_1825.double_heading_unchecked(before, single, refusal)
    before.state.board.tokens.setdefault("V20", {}).setdefault(0, []).append("GWR")
    assert not site_1825.half_without_base(before, run)
