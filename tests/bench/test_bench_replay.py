"""`moderator bench replay` runs and reports what it measured (the figures themselves
are never asserted: a clock is not a test)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from click.testing import CliRunner

from moderator.cli.bench import bench
from moderator.cli.bench_replay import (
    FIXTURES,
    KEPT,
    kept_records,
    order_times,
    replay_curve,
    title_legal_rows,
    title_records,
)

RECORD = FIXTURES / "18TN" / "7818.json"


def test_bench_replay_reports_every_record_and_the_curve(tmp_path: Path) -> None:
    extra = tmp_path / "again.json"
    extra.write_text(RECORD.read_text())
    result = CliRunner().invoke(
        bench, ["replay", "--runs", "1", "--no-legal", "--no-kept", "--site-lib",
                str(tmp_path / "none"), str(extra)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # Without the site's engine ours are timed alone, and the output says so.
    assert any("18xx.games engine not available" in line and "the site is absent" in line
               for line in lines)
    ours = [line for line in lines if line.startswith("18TN/7818.json")]
    assert len(ours) == 1 and re.search(
        r"\s578\s+[\d.]+ ms\s+[\d.]+ ms\s+-\s+-\s+[\d.]+ ms\s+-\s+-$", ours[0])
    assert not any(line.startswith("kept/") for line in lines)
    assert any("again.json" in line and " 578 " in line for line in lines)
    # Every other fixture is listed, with why our engine cannot replay it yet.
    for path in FIXTURES.glob("*/*.json"):
        name = str(path.relative_to(FIXTURES))
        assert any(line.startswith(name) for line in lines), name
    # The curve is of the longest record our engine replays (1850's 115810 by now).
    replayed = [int(line.split()[1]) for line in lines
                if line.split()[0].endswith(".json") and "ours:" not in line]
    curve = lines[lines.index(next(x for x in lines if x.startswith("replay curve"))) + 1:]
    assert len(curve) == 10 and curve[-1].split()[0] == str(max(replayed))


def test_the_curve_and_the_order_times_cover_the_whole_game() -> None:
    record = json.loads(RECORD.read_text())
    curve = replay_curve(record, points=4)
    assert [p.moves for p in curve] == [144, 289, 434, 578]
    assert all(b.seconds > a.seconds for a, b in itertools.pairwise(curve))
    assert abs(sum(p.segment for p in curve) - curve[-1].seconds) < 1e-9
    assert len(order_times(record)) == 578


def test_bench_legal_reports_every_position_by_step() -> None:
    result = CliRunner().invoke(bench, ["legal", "--runs", "2", str(RECORD)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.match(r"legal_actions over the 578 positions of 7818.json, the first call at "
                    r"each: median [\d.]+ ms, p95 [\d.]+ ms, max [\d.]+ ms$", lines[0])
    assert lines[1].startswith("the fastest of 2 calls at each position: median")
    rows = {line[:28].strip(): line[28:].split() for line in lines[3:]}
    # Every position counted once, in the row of its round and step.
    assert sum(int(row[0]) for row in rows.values()) == 578
    assert {"stock: turn", "operating: track", "operating: train"} <= set(rows)


def test_legal_timings_list_what_legal_actions_lists() -> None:
    from engine.legal import legal_actions
    from moderator.cli.bench_replay import legal_timings, positions

    record = json.loads(RECORD.read_text())
    timings = legal_timings(record)
    counts = [len(legal_actions(game)) for game, _ in itertools.islice(positions(record), 40)]
    assert [t.actions for t in timings[:40]] == counts
    assert all(t.fastest <= t.first for t in timings)


def test_the_kept_records_are_those_the_site_replays_whole() -> None:
    kept = kept_records()
    for facts in KEPT.glob("*/site_results.json"):
        results = json.loads(facts.read_text())["results"]
        assert {p.name for p in kept if p.parent == facts.parent} == set(results)
    assert {p.parent.name for p in kept} == {"18TN", "1850", "1861", "1825"}


def test_bench_legal_by_title_takes_each_titles_longest_record() -> None:
    records = title_records()
    assert {t: p.name for t, p in records.items()} == {
        "18TN": "7818.json", "1850": "115810.json", "1861": "167259.json",
        "1825": "1825_game_end_bank.json"}


def test_the_title_rows_split_the_track_steps_and_stock_rounds_at_half_way() -> None:
    from moderator.cli.bench_replay import LegalTiming

    timings = [LegalTiming(where, 1, 0.001 * i, 0.0, 0.0) for i, where in enumerate(
        ["stock: turn", "operating: track", "operating: train", "operating: track",
         "stock: turn", "operating: track"])]
    rows = {label: [t.first for t in group] for label, group in title_legal_rows(timings)}
    assert rows == {"track step": [0.001, 0.003, 0.005], "track step, late": [0.003, 0.005],
                    "stock round": [0.0, 0.004], "stock round, late": [0.004]}
