"""`moderator bench mail` runs a small burst over the real local servers and reports
what it measured (the figures themselves are never asserted: a clock is not a test)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from moderator.cli.bench import bench
from moderator.cli.bench_replay import FIXTURES

pytestmark = [pytest.mark.mail, pytest.mark.timeout(300)]


@pytest.mark.skipif(not (FIXTURES / "18TN" / "7818.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_answers_the_burst_and_prints_its_figures() -> None:
    result = CliRunner().invoke(bench, ["mail", "--mails", "8", "--at", "300"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # Every fourth mail is the game's next recorded move: two of eight are applied,
    # and every mail, applied or refused, is answered.
    assert "7818.json at move 300: 8 mails sent, 8 answered, 2 applied" in lines[0]
    assert re.search(r"^throughput: [\d.]+ mails/s", result.output, re.M)
    assert re.search(r"p50 [\d.]+ s, p95 [\d.]+ s, p99 [\d.]+ s, max [\d.]+ s", result.output)
    assert re.search(r"^processor CPU: [\d.]+ ms per mail \(one core: \d+ mails/s\)",
                     result.output, re.M)
    assert re.search(r"^CPU: \d+ ms per mail in this process", result.output, re.M)


@pytest.mark.skipif(not (FIXTURES / "18TN" / "7818.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_can_send_only_refused_orders() -> None:
    result = CliRunner().invoke(bench, ["mail", "--mails", "5", "--applied-every", "0"])
    assert result.exit_code == 0, result.output
    assert "5 mails sent, 5 answered, 0 applied" in result.output.splitlines()[0]
