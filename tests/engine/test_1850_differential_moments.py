"""The differential's reading of 1850's listed differences (docs/site-differences.md,
1850) on positions of our own: tools/oracle/differential.py and site_1850.py, not a
package."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from scenarios_1850 import companies_started, new_game, now, pass_round, privates_sold

from engine.actions import Done, Pass
from engine.game import Game
from engine.rounds.operating import OperatingRound


def _tool(name: str) -> ModuleType:
    folder = str(Path(__file__).resolve().parents[2] / "tools" / "oracle")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def _differential() -> ModuleType:
    return _tool("differential")


def first_company_turn() -> Game:
    """Operating round 1.1: the first company (trainless, as every company then) at
    its track step."""
    g = new_game()
    privates_sold(g)
    companies_started(g)
    pass_round(g)
    assert isinstance(g.round, OperatingRound)
    return g


def summary(g: Game) -> dict[str, object]:
    differential = _differential()
    ids = {seat: seat for seat in g.state.seats}
    out: dict[str, object] = {**differential.our_summary(g.state, ids),
                              "acting": differential.our_acting(g)}
    return out


def test_a_trainless_companys_lag_lasts_while_ours_is_still_in_its_turn() -> None:
    """Seed 3701 game 4: the site settled SOO's empty run at its lay (price $40 to $30)
    and went on to KATY's track and token steps, which ours skips; ours was still at
    SOO's run. The price apart while the site acts for the next company is the listed
    moment where ours is still in that company's turn, and not once ours has ended it."""
    differential = _differential()
    g = first_company_turn()
    first = g.turn()
    assert first is not None
    corp = first.entity
    ours = summary(g)
    assert ours["acting"] == corp
    # The site has gone on to another company (its acting entities), ours has not.
    assert differential.empty_run_lag([ours], [{corp}], [{"another"}], [0])
    assert differential.empty_run_lag([ours], [{corp}], [{corp}], [0])
    # Ours has ended that turn too: a lasting difference.
    while g.turn() is not None and g.turn().entity == corp:  # type: ignore[union-attr]
        g.apply(now(g), Done() if "done" in g.legal() else Pass())
    after = summary(g)
    assert after["acting"] != corp
    assert not differential.empty_run_lag([after], [{corp}], [{"another"}], [0])
    # A company holding a train is no empty run.
    with_train = {**ours, "corporations": {
        **ours["corporations"],  # type: ignore[dict-item]
        corp: {**ours["corporations"][corp], "trains": ["2"]}}}  # type: ignore[index]
    assert not differential.empty_run_lag([with_train], [{corp}], [{"another"}], [0])


def test_5_2_2_the_sites_round_ended_named_at_a_companys_stock_action() -> None:
    """Seed 3701 game 60: Ann sells her own GN and ends her turn (`done`, the record's
    pass); the site, its protection step asked after the sale, counts that pass as
    hers in a new turn and, Bob passed by itself, ends its stock round; ours goes on,
    and GN's redemption (Ann's next turn) is refused. Named 5.2.2 where the site went
    to its operating round at that pass after a player's sale and ours is still in
    its stock round; not where no sale came before the pass."""
    site_1850 = _tool("site_1850")
    g = new_game()
    privates_sold(g)
    companies_started(g)
    assert not isinstance(g.round, OperatingRound)  # ours: the stock round goes on
    players = [{"id": i} for i in range(1, 4)]
    site_states = [{"round": "Stock Round 1.1", "players": players, "acting": ["2"]},
                   {"round": "Operating Round 1.1", "players": players, "acting": ["GN"]}]
    redemption = {"type": "buy_shares", "entity": "GN", "entity_type": "corporation",
                  "shares": ["GN_1"]}
    record = [{"type": "sell_shares", "entity": 1, "entity_type": "player"},
              {"type": "pass", "entity": 1, "entity_type": "player"}, redemption]
    error = "Engine::GameError: Blocking step Lay/Upgrade Track cannot process action " \
            "buy_shares at 3"
    answer = {"error": error, "error_action_index": 2, "record_actions": record}
    assert site_1850.site_difference(g, answer, redemption, site_states) == \
        "5.2.2 the site's stock round ended"
    bought = [{"type": "buy_shares", "entity": 1, "entity_type": "player"}, *record[1:]]
    assert site_1850.site_difference(g, {**answer, "record_actions": bought}, redemption,
                                     site_states) is None
