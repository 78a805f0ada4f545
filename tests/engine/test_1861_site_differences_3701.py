"""1861: the differential's recognisers of listed site differences at the actions where
seed 3701 (28 November 2026) first found them unnamed (docs/site-differences.md, 1861).

Each position is ours, read back through our importer from a prefix of the record our
engine exported for that game (tests/fixtures/1861/prefixes/prefix-3701-GAME-N.json,
the record's first N actions, the last the one the site refused or first differed at);
the site's side is what its engine answered there, quoted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_1861_dutch_sale import site_1861

from engine.game import Game
from engine.records import import_record

PREFIXES = Path(__file__).resolve().parents[1] / "fixtures" / "1861" / "prefixes"


def record(game: int, actions: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (PREFIXES / f"prefix-3701-{game}-{actions}.json").read_text())
    return data


def ours_before(data: dict[str, Any], at: int) -> Game:
    """Ours just before record action AT, as the differential reads it (`our_game_at`)."""
    return import_record({**data, "actions": data["actions"][:at], "result": {}}).game


STALE_GRAPH = "10.5 a city freed by a nationalisation (the site's stale graph)"


def test_10_5_shown_where_the_rsr_turn_before_is_still_open_in_ours() -> None:
    """Game 89, action 2400: MVR, first in operating round 23.2, passes its token step
    in ours (S-V, nationalised in 23.1, freed N10 in its reach); the site's graph keeps
    its answer from before (`can_token?` false, true once cleared), skips the token
    step and refuses the pass at its train step. Our importer leaves the RSR's turn of
    23.1 open until another company acts: the recogniser ends it first."""
    site = site_1861()
    data = record(89, 2401)
    at = 2400
    game = ours_before(data, at)
    turn = game.turn()
    assert turn is not None and turn.entity == "RSR"  # (the RSR's turn still open)
    action = data["actions"][at]
    assert action["entity"] == "MVR" and action["type"] == "pass"
    assert "N10" in site.freed_by_nationalisation(game)
    answer = {"error": "Engine::GameError: Blocking step Buy Trains cannot process "
                       "action pass at 2401"}
    trainless_mvr = [{"round": "Operating Round 23.2",
                      "corporations": [{"id": "MVR", "trains": []}]}]
    assert site.site_difference(game, answer, action, trainless_mvr) == STALE_GRAPH
    assert site.may_token(game, action)
    # Not where the site's MVR holds a train (no longer the trainless case).
    with_train = [{"round": "Operating Round 23.2",
                   "corporations": [{"id": "MVR", "trains": ["4"]}]}]
    assert site.site_difference(game, answer, action, with_train) is None


SPENT = "10.6 the RSR's train that ran for its former owner (the site: spent)"


def _site_positions(tr_trains: list[str]) -> list[dict[str, Any]]:
    """The site's positions before and after T-R's nationalisation in operating round
    27.2 (record actions 2237 and 2238; T-R, closed, is no longer listed)."""
    now = "Operating Round 27.2"
    return [{"round": now, "corporations": [{"id": "TR", "trains": tr_trains, "cash": 0},
                                            {"id": "RSR", "trains": ["4", "4", "4"]}]},
            {"round": now, "corporations": [{"id": "RSR",
                                             "trains": ["4", "4", "4", *tr_trains]}]}]


def test_10_6_shown_for_a_company_nationalised_after_an_empty_run() -> None:
    """Game 3, action 2258: T-R, holding a 3-train with no route, runs no train ("T-R
    runs for R0: no trains run"), cannot pay its interest and is nationalised in its
    own turn (10.8); the RSR takes the 3-train. The site, which settled T-R's skipped
    run as "does not run", marks that train as run, and refuses the RSR's run with it
    ("Cannot run train that operated")."""
    site = site_1861()
    data = record(3, 2259)
    at = 2258
    game = ours_before(data, at)
    log = game.state.log
    assert "T-R runs for R0: no trains run" in log[-40:] and "T-R is nationalised" in log[-40:]
    action = data["actions"][at]
    assert action["entity"] == "RSR" and action["type"] == "run_routes"
    assert "3-3" in {r["train"] for r in action["routes"]}
    answer = {"error": "Engine::GameError: Cannot run train that operated",
              "record_actions": data["actions"], "error_action_index": at}
    assert site.site_difference(game, answer, action, _site_positions(["3"])) == SPENT
    # Not where the site shows T-R without a train when it was nationalised: the RSR
    # then took nothing of it that could have been marked as run.
    assert site.site_difference(game, answer, action, _site_positions([])) is None


def test_10_10_shown_where_the_rsr_buys_on_after_a_directors_nationalisation() -> None:
    """Game 58, action 1838: the RSR's run in operating round 16.2; at its train step
    its 6-train begins phase 6 (the minors' nationalisations bring their treasuries)
    and it buys a second 6-train; NW, a public without a train, is then nationalised
    by its Director (11, the next record action), giving the RSR R1112. Ours: the RSR,
    its train step not over, buys the R800 7-train with it (10.10); the site's RSR,
    its purchases done before the choice, ends its turn with R1358 and no 7-train."""
    site = site_1861()
    data = record(58, 1840)
    at = 1838
    assert data["actions"][at + 1]["type"] == "choose"
    after_run = ours_before(data, at + 1)
    nw = after_run.state.corporations["NW"]
    ours = {"corporations": {"NW": {"cash": nw.cash, "loans": nw.loans}}}
    # The site's RSR and players after its run and purchases, before NW's choice (its
    # summary there; the players by the record's ids: Ann 1, Bob 2, Cy 3, Di 4, Ed 5).
    theirs: dict[str, Any] = {
        "corporations": {"RSR": {"cash": 246, "loans": 0, "price": None,
                                 "trains": ["4", "4", "4", "5", "5", "5", "5", "6", "6"]}},
        "players": {"1": {"cash": 603}, "2": {"cash": 603}, "3": {"cash": 142},
                    "4": {"cash": 434}, "5": {"cash": 1685}}}
    diff = ["company cash", "company trains", "player cash", "player shares"]
    assert site.difference_at(data, at, diff, ours, theirs) == site.RSR_AFTER_CHOICE
    # Not where the site's RSR holds some other sum (no longer what NW brought less
    # the 7-train ours bought with it), nor where a player's cash is not what ours
    # paid him for NW's shares more than the site's.
    theirs["corporations"]["RSR"]["cash"] = 296
    assert site.difference_at(data, at, diff, ours, theirs) is None
    theirs["corporations"]["RSR"]["cash"] = 246
    theirs["players"]["1"]["cash"] = 783  # (Ann's R180 for NW counted twice)
    assert site.difference_at(data, at, diff, ours, theirs) is None
