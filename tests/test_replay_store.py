"""tools/replay_store.py: every stored game replayed with this engine before an upgrade
goes live, the first move it refuses named (a rule fixed, as 1861 10.1's off-board
areas, refuses a run an older engine logged). The real tool on a real store."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from engine.actions import Route, RunRoutes
from moderator.cli.bench_mail import seated_game
from moderator.store import Store

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT.parent / "shared" / "fixtures" / "18TN" / "7818.json"
RUN = 177  # a declared run of the record (tests/test_mail_better_run_later.py)


def test_every_game_replays_and_a_refused_move_is_named(tmp_path: Path) -> None:
    database = tmp_path / "m.sqlite"
    store = Store(database)
    good, _, whole = seated_game(store, RECORD, RUN + 1)
    bad, _, _ = seated_game(store, RECORD, RUN)
    run = whole.log[RUN]
    assert isinstance(run.action, RunRoutes) and run.action.routes
    # As an older engine might have logged it: a route this engine refuses.
    (first, *rest) = run.action.routes
    refused = dataclasses.replace(run, action=dataclasses.replace(
        run.action, routes=(Route(first.train, (first.hexes[0], "Z99")), *rest)))
    with store.transaction():
        store.append(bad, RUN, [refused, *whole.log[RUN + 1:RUN + 3]])
    store.close()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "replay_store.py"),
                           str(database)], capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [f"{good} (18TN): {RUN + 1} moves replay",
                     f"{bad} (18TN): move {RUN} of {RUN + 3} refused: Z99 is not on the map"]


def test_a_store_whose_games_all_replay_passes(tmp_path: Path) -> None:
    database = tmp_path / "m.sqlite"
    store = Store(database)
    seated_game(store, RECORD, 40)
    store.close()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "replay_store.py"),
                           str(database)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("(18TN): 40 moves replay\n")
