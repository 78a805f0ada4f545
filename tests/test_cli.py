"""The real `moderator` command: new, order, status, games, import."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from mailservers import moderator_script

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"


ROOT = Path(__file__).resolve().parents[1]


def moderator(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The checkout's code, not only the installed one's (a worktree of an editable
    # install would run the other tree's).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([moderator_script(), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, check=False, env=env)


def test_new_order_status_round_trip(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite")
    new = moderator("new", "18TN", "--players", "Ann,Bob,Cy", "--seed", "4", "--db", db,
                    cwd=tmp_path)
    assert new.returncode == 0 and new.stdout.strip() == "18TN-1"
    status = json.loads(moderator("status", "18TN-1", "--json", "--db", db,
                                  cwd=tmp_path).stdout)
    first = status["acting_seat"]
    assert status["next_move"] == 0 and status["round"] == "Stock Round 1"
    assert [p["cash"] for p in status["players"]] == [600, 600, 600]
    order = moderator("order", "18TN-1", "--as", first, "buy TCC", "--db", db, cwd=tmp_path)
    assert order.returncode == 0, order.stdout
    assert f"ok: {first} buys TCC for $20" in order.stdout
    refused = moderator("order", "18TN-1", "--as", first, "buy ETWCR", "--db", db,
                        cwd=tmp_path)
    assert refused.returncode == 1 and "not " + first + "'s" in refused.stdout
    after = json.loads(moderator("status", "18TN-1", "--json", "--db", db,
                                 cwd=tmp_path).stdout)
    assert after["next_move"] == 1
    cash = {p["name"]: p["cash"] for p in after["players"]}
    assert cash[first] == 580
    text = moderator("status", "18TN-1", "--db", db, cwd=tmp_path).stdout
    assert "18TN-1 (18TN) - Stock Round 1" in text and "TCC (private)" in text
    assert moderator("games", "--db", db, cwd=tmp_path).stdout.startswith("18TN-1\t18TN")


def test_import_check_and_store(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite")
    check = moderator("import", str(FIXTURE), "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Player 2             ours    5615   record    5615" in check.stdout
    stored = moderator("import", str(FIXTURE), "--db", db, cwd=tmp_path)
    assert "stored as 18TN-1" in stored.stdout
    status = json.loads(moderator("status", "18TN-1", "--json", "--db", db,
                                  cwd=tmp_path).stdout)
    assert status["game_over"] and dict(status["scores"])["Player 2"] == 5615


def test_import_stores_a_lay_taken_as_the_record_has_it(tmp_path: Path) -> None:
    """A lay the site accepted and ours refuses for its connection alone is named, and
    the game stored with it loads again (docs/site-differences.md, 1861 10.4)."""
    record = Path(__file__).parent / "fixtures" / "1825" / "random-3601-20.json"
    db = str(tmp_path / "g.sqlite")
    stored = moderator("import", str(record), "--db", db, cwd=tmp_path)
    assert stored.returncode == 0, stored.stdout + stored.stderr
    assert "5 tile lay(s) taken as the record has them" in stored.stdout
    assert "46 at T18" in stored.stdout and "stored as 1825-1" in stored.stdout
    status = json.loads(moderator("status", "1825-1", "--json", "--db", db,
                                  cwd=tmp_path).stdout)
    assert status["game_over"] and dict(status["scores"])["Bob"] == 3822


def test_new_refuses_a_wrong_player_count(tmp_path: Path) -> None:
    out = moderator("new", "18TN", "--players", "Ann,Bob", "--db", str(tmp_path / "g"),
                    cwd=tmp_path)
    assert out.returncode == 2 and "18TN takes 3 to 5 players, not 2" in out.stderr


def test_new_refuses_an_unknown_option_and_lists_each_titles_options(tmp_path: Path) -> None:
    """Issue 19, defect 6: `--option foo` is refused (with the title's options), not
    stored; a known option is stored with the game."""
    db = tmp_path / "g.sqlite"
    out = moderator("new", "18TN", "--players", "Ann,Bob,Cy", "--option", "foo",
                    "--db", str(db), cwd=tmp_path)
    assert out.returncode == 2 and "18TN has no option foo" in out.stderr
    assert "salvage_3_trains (8(c)" in out.stderr
    assert not db.exists()
    ok = moderator("new", "1850", "--players", "Ann,Bob,Cy", "--option", "finish_on_400",
                   "--db", str(db), cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    from moderator.store import Store

    assert Store(db).load("1850-1").setup.options == frozenset({"finish_on_400"})
    usage = " ".join(moderator("new", "--help", cwd=tmp_path).stdout.split())
    for listed in ("1850: finish_on_400 (16.1:", "reduced_tokens (16.3:",
                   "historical_order (16.4:", "18TN: three_yellow_first_turn (8(a):",
                   "phase2_private_sales (8(b):", "1851: none"):
        assert listed in usage


def test_reading_commands_create_no_database(tmp_path: Path) -> None:
    """Issue 19, defect 6: `moderator games` where there is no database says so."""
    for args in (("games",), ("status", "18TN-1"), ("order", "18TN-1", "--as", "Ann",
                                                     "pass")):
        out = moderator(*args, cwd=tmp_path)
        assert out.returncode == 2 and "there is no database at" in out.stderr, args
    assert list(tmp_path.iterdir()) == []
