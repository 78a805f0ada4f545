"""1825 Unit 1, 6.4: a receiver's turn in the site's record forms (engine/records/writing.py,
engine/records/forms_1825.py; docs/site-differences.md, 4.4, 6.4).

The site's receiver stops at its run step wherever its graph has a route, trains or
none, and a trainless one runs nothing there (`run_routes` with no routes: its run step
takes no pass); after its run the site plays the receiver's train step itself (the
bank's next train bought where exactly one fits, 6.4.4, else the step skipped) and ends
the turn: our purchase of that train, our pass of the train step and our end of the
turn have no site form (they travel in messages or beside the next action), and the
importer makes the purchase and ends the turn when the next action comes.

Each test exports a position (`gwr_in_receivership`: the GWR's receiver Cy in Operating
Round 2.1; the recorded R1 game's GER in receivership, OR 10.1 and 10.2), asserts the
receiver's site actions in the record, and reads the record back, with our moves in it
(`moderator_actions`) and with the site's forms alone (the record as the site would give
it back), to the same position.
"""

from __future__ import annotations

import copy
from typing import Any

from scenarios_1825 import r1_record_prefix
from test_1825_receivership import GWR_ROUTE, gwr_in_receivership, gwr_leases_runs_and_buys

from engine.actions import BuyTrain, Done, LayTile, LeaseTrain, Pass, RunRoutes
from engine.game import Game
from engine.records import export_record, import_record

# Tile 4 on V16 (Reading) joins the GWR's base at Swindon (V14) to Reading's town only:
# a route in the site's graph (its base and a stop), none of ours (1.8: a route begins
# and ends at large stations), so a leased train would earn nothing (no lease, 6.4.3).
TO_READING = LayTile("4", "V16", 1)


def site_actions(record: dict[str, Any], sym: str, after: int = 0) -> list[dict[str, Any]]:
    """The site's actions (no message) from the record's action AFTER on, up to the
    first of another company or player after SYM's first: SYM's turn as the site has
    it."""
    out: list[dict[str, Any]] = []
    for action in record["actions"][after:]:
        if action["type"] == "message":
            continue
        if action.get("entity") == sym:
            out.append(action)
        elif out:
            break
    return out


def next_site_action(record: dict[str, Any], sym: str, after: int = 0) -> dict[str, Any]:
    """The site's action right after SYM's turn (from action AFTER on)."""
    seen = False
    for action in record["actions"][after:]:
        if action["type"] == "message":
            continue
        if action.get("entity") == sym:
            seen = True
        elif seen:
            return action
    raise AssertionError(f"nothing after {sym}'s turn")


def site_forms(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the site gives it back: its own actions, without our messages and
    our moves carried beside them."""
    out = copy.deepcopy(record)
    out["actions"] = [{k: v for k, v in a.items() if k != "moderator_actions"}
                      for a in out["actions"] if a["type"] != "message"]
    for i, action in enumerate(out["actions"], 1):
        action["id"] = i
    return out


def upto_run(record: dict[str, Any], sym: str) -> dict[str, Any]:
    """The record cut after SYM's last run (our moves after it carried in messages
    dropped with them)."""
    out = copy.deepcopy(record)
    last = max(i for i, a in enumerate(out["actions"])
               if a.get("entity") == sym and a["type"] == "run_routes")
    out["actions"] = out["actions"][:last + 1]
    return out


def same_position(back: Game, g: Game, syms: tuple[str, ...]) -> None:
    for sym in syms:
        ours, theirs = g.state.corporations[sym], back.state.corporations[sym]
        assert (theirs.cash, sorted(t.name for t in theirs.trains)) == \
            (ours.cash, sorted(t.name for t in ours.trains)), sym
        assert back.state.market.price(sym) == g.state.market.price(sym), sym
    assert {s: p.cash for s, p in back.state.players.items()} == \
        {s: p.cash for s, p in g.state.players.items()}


def gwr_turn(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The GWR's turn in Operating Round 2.1 (its last lay's turn) as the site has it."""
    lay = max(i for i, a in enumerate(record["actions"])
              if a.get("entity") == "GWR" and a["type"] == "lay_tile")
    return site_actions(record, "GWR", lay)


def test_6_4_a_trainless_receiver_with_a_route_runs_nothing_at_the_site_s_run_step() -> None:
    """Our `done` after the lay crosses the site's run step, where the site's graph has
    a route (Swindon to Reading's town): the site's track step's pass, then its run of
    nothing there (a pass would be refused: "Blocking step Run Routes cannot process
    action pass")."""
    g = gwr_in_receivership()
    g.apply("Cy", TO_READING)
    g.apply("Cy", Done())
    position = g.clone()
    g.apply(g.turn().seat, Pass())
    record = export_record(g)
    assert [(a["type"], a.get("routes")) for a in gwr_turn(record)] == \
        [("lay_tile", None), ("pass", None), ("run_routes", [])]
    # (The site's receiver with £900 then buys a 2-train by itself, a listed difference:
    # 6.4.4 the site's receiver buys for a route to towns only. Read back to the run.)
    for read in (upto_run(record, "GWR"), site_forms(upto_run(record, "GWR"))):
        back = import_record(read).game
        same_position(back, position, ("LNWR", "GWR"))
        assert back.state.corporations["GWR"].trains == []


def test_6_4_the_receiver_s_pass_at_the_site_s_run_step_is_its_run_of_nothing() -> None:
    """Our passes, step by step: the track step's goes out as the site's pass of its
    track and base step, the base step's as nothing of the site's (a message), the run
    step's as the run of nothing, carrying our pass; the dividend and train steps'
    passes after it have no site form."""
    g = gwr_in_receivership()
    g.apply("Cy", TO_READING)
    steps = []
    while g.turn().entity == "GWR":
        steps.append(g.turn().step)
        g.apply("Cy", Pass())
    assert steps == ["track", "token", "route", "dividend", "train"]
    record = export_record(g)
    turn = gwr_turn(record)
    assert [(a["type"], a.get("routes")) for a in turn] == \
        [("lay_tile", None), ("pass", None), ("run_routes", [])]
    assert [m["type"] for m in turn[-1]["moderator_actions"]] == ["pass"]
    for read in (upto_run(record, "GWR"), site_forms(upto_run(record, "GWR"))):
        back = import_record(read).game
        assert back.state.corporations["GWR"].trains == []
        assert back.state.corporations["GWR"].cash == g.state.corporations["GWR"].cash


def test_6_4_4_the_site_s_own_purchase_is_left_out_and_made_by_the_importer() -> None:
    """The trainless GWR with a route and £900 must buy the bank's 2-train (6.4.4): the
    site buys it by itself after the run; the record has no `buy_train` and no pass or
    done after the run, and the importer makes the purchase when the next action
    comes."""
    g = gwr_leases_runs_and_buys()
    g.apply(g.turn().seat, Pass())
    record = export_record(g)
    assert [a["type"] for a in gwr_turn(record)] == \
        ["lay_tile", "pass", "special_buy", "run_routes"]
    assert next_site_action(record, "GWR", len(record["actions"]) - 3)["entity"] != "GWR"
    assert not any(a["type"] == "buy_train" and a.get("entity") == "GWR"
                   for a in record["actions"])
    assert [t.name for t in g.state.corporations["GWR"].trains] == ["2"]
    # The GWR is the round's last company: the importer makes the site's purchase
    # before the next stock round's first action too, with our moves or without them.
    for read in (record, site_forms(record)):
        back = import_record(read).game
        same_position(back, g, ("LNWR", "GWR"))
        assert back.turn() == g.turn()


def test_6_4_4_the_receiver_s_train_step_pass_is_left_out() -> None:
    """Our pass of the train step after the purchase (where `done` was above) has no
    site form either: the site's receiver's train step is its own."""
    g = gwr_in_receivership()
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", LeaseTrain())
    g.apply("Cy", RunRoutes(auto=True))
    g.apply("Cy", BuyTrain("2"))
    assert g.turn().step == "train"
    g.apply("Cy", Pass())
    assert g.turn().entity != "GWR"
    g.apply(g.turn().seat, Pass())
    record = export_record(g)
    assert [a["type"] for a in gwr_turn(record)] == \
        ["lay_tile", "pass", "special_buy", "run_routes"]
    assert not any(a["type"] in ("buy_train", "pass") and a.get("entity") == "GWR"
                   for a in record["actions"][-3:])
    back = import_record(record).game  # (our moves in it: see above)
    same_position(back, g, ("LNWR", "GWR"))
    assert back.turn() == g.turn()


#: The recorded R1 game read to its LSWR's second pass of OR 10.2 (action 496): the
#: GER's two turns in receivership before it, its lease and the site's own purchase
#: (OR 10.1), then its run on its 5-train, no train fitting after it (OR 10.2).
R1_GER = 497


def test_6_4_4_the_receiver_s_pass_after_its_run_is_left_out() -> None:
    """The GER in receivership (the recorded R1 game): in OR 10.1 it leases, runs, buys
    the bank's 5-train (the site by itself) and ends its turn; in OR 10.2 it runs its
    5-train and no new train fits (£550): the site skips its train step and ends the
    turn. Our `done` after each run, and the purchase, have no site form: the LSWR's
    action follows the GER's run at once."""
    g, _ = r1_record_prefix(R1_GER)
    moves = [m.action for m in g.log]
    leased = next(i for i, a in enumerate(moves) if isinstance(a, LeaseTrain))
    assert [type(a).__name__ for a in moves[leased:leased + 4]] == \
        ["LeaseTrain", "RunRoutes", "BuyTrain", "Done"]
    second_lay = max(i for i, a in enumerate(moves)
                     if isinstance(a, LayTile) and a.hex == "R20")
    assert [type(a).__name__ for a in moves[second_lay:second_lay + 4]] == \
        ["LayTile", "Pass", "RunRoutes", "Done"]
    record = export_record(g)
    lease = next(i for i, a in enumerate(record["actions"]) if a["type"] == "special_buy")
    first = site_actions(record, "GER", lease - 2)
    assert [a["type"] for a in first] == ["lay_tile", "pass", "special_buy", "run_routes"]
    assert next_site_action(record, "GER", lease - 2)["entity"] == "LSWR"
    second_at = next(i for i, a in enumerate(record["actions"]) if i > lease + 3
                     and a.get("entity") == "GER")
    second = site_actions(record, "GER", second_at)
    assert [a["type"] for a in second] == ["lay_tile", "pass", "run_routes"]
    assert next_site_action(record, "GER", second_at)["entity"] == "LSWR"
    assert not any(a.get("entity") == "GER" and a["type"] == "buy_train"
                   for a in record["actions"][lease:])
    for read in (record, site_forms(record)):
        back = import_record(read).game
        same_position(back, g, ("GER", "LSWR", "LNWR"))

