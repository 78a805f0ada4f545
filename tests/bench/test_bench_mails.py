"""`moderator bench mails` (issue 30): the mails a recorded game needs, without and with
the moderator passing the steps nobody decides; it fails where a skip would take a
recorded choice away."""

from __future__ import annotations

from click.testing import CliRunner

from moderator.cli.bench import bench
from moderator.cli.bench_mails import count_record
from moderator.cli.bench_replay import FIXTURES

SHORT = FIXTURES / "1850" / "pres_transfer_price_drop.json"  # 24 actions
TN = FIXTURES / "18TN" / "7818.json"


def test_bench_mails_counts_a_record_without_and_with_skipping() -> None:
    count = count_record(TN)
    assert count.title == "18TN" and count.record_actions == 577 and count.moves == 578
    assert not count.taken  # no recorded choice taken away; the game ends as recorded
    # Skipping never costs a mail, and here it saves some: the steps it passed are
    # recorded passes, or steps the record's orders jumped over.
    assert count.skipped > 0
    assert count.mails <= count.moves - count.today
    assert count.mails < count.moves
    assert count.turns_with <= count.turns_without


def test_bench_mails_command_prints_a_line_per_record() -> None:
    result = CliRunner().invoke(bench, ["mails", str(SHORT)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "pres_transfer_price_drop" in x)
    count = count_record(SHORT)
    assert line.split()[:3] == ["1850", "pres_transfer_price_drop.json", "24"]
    assert f"{count.mails} (" in line
