"""`moderator bench replay` runs and reports what it measured (the figures themselves
are never asserted: a clock is not a test)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from click.testing import CliRunner

from moderator.cli.bench import bench
from moderator.cli.bench_replay import FIXTURES, order_times, replay_curve

RECORD = FIXTURES / "18TN" / "7818.json"


def test_bench_replay_reports_every_record_and_the_curve(tmp_path: Path) -> None:
    extra = tmp_path / "again.json"
    extra.write_text(RECORD.read_text())
    result = CliRunner().invoke(
        bench, ["replay", "--runs", "1", "--no-legal", "--site-lib", str(tmp_path / "none"),
                str(extra)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("18xx.games engine not available" in line for line in lines)
    ours = [line for line in lines if line.startswith("18TN/7818.json")]
    assert len(ours) == 1 and re.search(r"\s578\s+[\d.]+ ms\s+[\d.]+ ms\s+-\s+-$", ours[0])
    assert any("again.json" in line and " 578 " in line for line in lines)
    # Every other fixture is listed, with why our engine cannot replay it yet.
    for path in FIXTURES.glob("*/*.json"):
        name = str(path.relative_to(FIXTURES))
        assert any(line.startswith(name) for line in lines), name
    curve = lines[lines.index(next(x for x in lines if x.startswith("replay curve"))) + 1:]
    assert len(curve) == 10 and curve[-1].split()[0] == "578"


def test_the_curve_and_the_order_times_cover_the_whole_game() -> None:
    record = json.loads(RECORD.read_text())
    curve = replay_curve(record, points=4)
    assert [p.moves for p in curve] == [144, 289, 434, 578]
    assert all(b.seconds > a.seconds for a, b in itertools.pairwise(curve))
    assert abs(sum(p.segment for p in curve) - curve[-1].seconds) < 1e-9
    assert len(order_times(record)) == 578
