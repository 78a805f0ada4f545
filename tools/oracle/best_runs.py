"""Our best runs checked by 18xx.games itself, at every run of a record.

    .venv/bin/python tools/oracle/best_runs.py RECORD.json [--companies LBSC,GWR]
    .venv/bin/python tools/oracle/best_runs.py --recorded RECORD.json ...

With --recorded, the records' own runs instead: each record replayed without its runs'
revenue, so that the site checks every route and pays it itself, against the record as
it stands (as the differential replays its games, `differential.ROUTES`).

At each recorded run (of the COMPANIES, or every company) our engine's best run at
that position (`run auto`, engine/optimizer/) is written in the site's form
(`engine.records.run_form`) and replayed by the site's engine in place of the recorded
run, followed by the record's next action (its dividend). The routes go without their
revenue: the site checks a route ("Route must contain token", its distance, its ends)
and computes its revenue only where the record gives none; a recorded revenue it takes
as it stands. The site's position after the next action is compared with the one it
reaches given our revenue (the same: it pays what ours does) and with the one after
the recorded run (the same where our best run earns what the recorded one did; a
player may run less than the best, and the site does not check that).

A refusal is ours to explain: our route or our form of it is wrong (issue #35: the R1
halt our export once left out). A 1825 double-headed pair (5.5.5) whose second half
holds no base of the company is refused as a route on its own ("Route cannot begin/end
in a town"): the site's loader resolves a route of one chain only through a base.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from differential import our_game_at, without_revenue
from oracle import Oracle

from engine.actions import LeaseTrain, RunRoutes
from engine.records import run_form
from engine.rounds.operating import OperatingRound


def trial(record: dict[str, Any], at: int, routes: list[dict[str, Any]],
          revenue: bool = False) -> dict[str, Any]:
    """RECORD up to its run AT, our ROUTES in its place without their revenue (the site
    then checks them; with REVENUE: with ours, which it takes), and the record's next
    action."""
    recorded = record["actions"][at]
    names = [r["train"] for r in recorded["routes"]]
    ours = []
    for route in routes:
        # The recorded run's own trains, type for type (ids of ours and the site's differ
        # where a minor's or a leased train is named apart).
        kind = route["train"].split("-")[0]
        train = next((n for n in names if n.split("-")[0] == kind), route["train"])
        if train in names:
            names.remove(train)
        ours.append({k: v for k, v in route.items()
                     if k != "train" and (revenue or k != "revenue")} | {"train": train})
    action = {k: v for k, v in recorded.items() if k not in ("routes", "revenue_str")}
    actions = [*record["actions"][:at], {**action, "routes": ours},
               *record["actions"][at + 1:at + 2]]
    return {**record, "actions": actions, "result": {}}


def _leased(actions: list[dict[str, Any]], at: int, sym: str) -> bool:
    """Whether the company's turn before its run AT holds a lease (`special_buy`)."""
    for action in reversed(actions[:at]):
        if action.get("entity") != sym:
            return False
        if action.get("type") == "special_buy":
            return True
    return False


def check(oracle: Oracle, record: dict[str, Any], at: int, folder: Path) -> str:
    """One line: our best run at the record's run AT, as the site takes it."""
    game = our_game_at(record, at)
    if game is None or not isinstance(game.round, OperatingRound):
        return f"{at}: our importer does not reach this run"
    corp = game.round.company()
    turn = game.turn()
    if turn is not None and _leased(record["actions"], at, corp.sym):
        # 1825 6.4.3: the receiver's lease, which our importer takes up at the run.
        game.apply(turn.seat, LeaseTrain())
    ours = run_form(game, RunRoutes(auto=True))["routes"]
    recorded = record["actions"][at]["routes"]
    mine, given, theirs = (folder / f"{name}.json" for name in ("ours", "given", "recorded"))
    mine.write_text(json.dumps(trial(record, at, ours)))
    given.write_text(json.dumps(trial(record, at, ours, revenue=True)))
    theirs.write_text(json.dumps({**record, "actions": record["actions"][:at + 2],
                                  "result": {}}))
    answer = oracle.replay(mine, states=True)
    taken = oracle.replay(given, states=True)
    site = oracle.replay(theirs, states=True)
    earned = sum(r["revenue"] for r in ours)
    # (Older records of the site's give no revenue per route.)
    said = sum(r["revenue"] for r in recorded) if all("revenue" in r for r in recorded) \
        else "?"
    head = (f"{at}: {game.round_name} {corp.sym} ours {earned} recorded {said} "
            f"{' | '.join(' '.join(r['hexes']) for r in ours)}")
    if answer.get("error") is not None:
        return f"{head}: REFUSED ({answer['error']})"
    # The site's revenue for our routes is ours where its position is the one it reaches
    # taking ours as given.
    pays = "pays ours" if answer["states"][-1] == taken["states"][-1] else "PAYS OTHERWISE"
    same = answer["states"][-1] == site["states"][-1]
    return (f"{head}: accepted, {pays}, "
            f"{'the same position as recorded' if same else 'another position than recorded'}")


def recorded_routes(oracle: Oracle, path: Path, folder: Path) -> str:
    """One line: the record at PATH replayed by the site with its runs' revenue left out
    (so that it checks each route and pays it itself) against the record as it stands:
    the first route refused, or the first action after which the positions differ (a
    revenue of the site's own), or the same positions throughout. A 1825 double-headed
    half without a base is refused so (listed, 5.5.5): named, not counted."""
    record = json.loads(path.read_text())
    bare = folder / "bare.json"
    bare.write_text(json.dumps(without_revenue(record, set())))
    answer = oracle.replay(bare, states=True)
    given = oracle.replay(path, states=True)
    # (Only the runs before the record's own stop, where it has one, are replayed.)
    upto = given.get("error_action_index")
    runs = [a for a in record["actions"][:upto] if a.get("type") == "run_routes"]
    count = sum(len(a.get("routes") or ()) for a in runs)
    head = f"{path.name}: {len(runs)} runs, {count} routes"
    # (The record's own stop, where it has one, is the same action in both.)
    if answer.get("error") is not None and \
            answer.get("error_action_index") != given.get("error_action_index"):
        at = answer["error_action_index"]
        action = record["actions"][at] if at is not None else {}
        pair = " (a double-headed pair: 5.5.5, listed)" \
            if any(r.get("train") == "2+2" for m in action.get("moderator_actions", ())
                   for r in m.get("routes", ())) else ""
        return f"{head}: REFUSED at action {at}{pair}: {answer['error']}"
    apart = next((i for i, (a, b) in enumerate(zip(answer["states"], given["states"],
                                                   strict=False)) if a != b), None)
    if apart is not None:
        return f"{head}: PAID OTHERWISE from action {apart}"
    return f"{head}: every route accepted and paid as recorded"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", type=Path, nargs="+")
    parser.add_argument("--companies", help="comma-separated; default: every company")
    parser.add_argument("--recorded", action="store_true",
                        help="check the records' own routes (each record replayed without "
                             "its runs' revenue) instead of our best runs")
    args = parser.parse_args(argv)
    if args.recorded:
        lines = []
        with Oracle() as oracle, tempfile.TemporaryDirectory() as scratch:
            for path in args.record:
                lines.append(recorded_routes(oracle, path, Path(scratch)))
                print(lines[-1], flush=True)
        refused = sum("REFUSED" in line and "listed" not in line for line in lines)
        otherwise = sum("PAID OTHERWISE" in line for line in lines)
        print(f"{len(lines)} records, {refused} with a route refused, {otherwise} paid "
              "otherwise")
        return 1 if refused or otherwise else 0
    if len(args.record) != 1:
        parser.error("our best runs are checked in one record at a time")
    args.record = args.record[0]
    record = json.loads(args.record.read_text())
    wanted = set(args.companies.split(",")) if args.companies else None
    runs = [i for i, a in enumerate(record["actions"]) if a.get("type") == "run_routes"
            and a.get("routes") and (wanted is None or a.get("entity") in wanted)]
    refused = otherwise = 0
    with Oracle() as oracle, tempfile.TemporaryDirectory() as scratch:
        for at in runs:
            line = check(oracle, record, at, Path(scratch))
            refused += "REFUSED" in line
            otherwise += "PAYS OTHERWISE" in line
            print(line, flush=True)
    print(f"{len(runs)} runs, {refused} refused, {otherwise} paid otherwise than ours")
    return 1 if refused or otherwise else 0


if __name__ == "__main__":
    sys.exit(main())
