"""`moderator bench mail` runs a small burst over the real local servers and reports
what it measured (the figures themselves are never asserted: a clock is not a test)."""

from __future__ import annotations

import re
import socket
from typing import Any

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
    # The mail servers and the burst's sender run in a child process, not the daemon's.
    assert re.search(r"the mail servers \(child processes: .*\): \d+ ms per mail, pymap "
                     r"\d+ ms of it", result.output), result.output


@pytest.mark.skipif(not (FIXTURES / "18TN" / "7818.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_can_send_only_refused_orders() -> None:
    result = CliRunner().invoke(bench, ["mail", "--mails", "5", "--applied-every", "0"])
    assert result.exit_code == 0, result.output
    assert "5 mails sent, 5 answered, 0 applied" in result.output.splitlines()[0]


@pytest.mark.skipif(not (FIXTURES / "18TN" / "7818.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_leaves_the_answers_out_of_the_players_mailboxes_unless_asked() -> None:
    # The bench reads the answers' times from the outbox: by default only the burst's
    # own mails are delivered into the IMAP server, as in production.
    result = CliRunner().invoke(bench, ["mail", "--mails", "4"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert "4 mails sent, 4 answered, 1 applied" in first
    assert "(answers not put into the players' mailboxes)" in first
    imap = re.search(r"^IMAP: the moderator sent (\d+) commands for 4 mails .*; "
                     r"(\d+) mails delivered into the IMAP server by APPEND$",
                     result.output, re.M)
    assert imap is not None, result.output
    assert int(imap.group(2)) == 4
    # With them, each answer (a reply to each mail, a report to every player after
    # the applied one) is delivered too.
    result = CliRunner().invoke(bench, ["mail", "--mails", "4", "--deliver-answers"])
    assert result.exit_code == 0, result.output
    assert "(answers put into the players' mailboxes too)" in result.output
    delivered = re.search(r"(\d+) mails delivered into the IMAP server by APPEND$",
                          result.output, re.M)
    assert delivered is not None and int(delivered.group(1)) >= 4 + 4 + 3


@pytest.mark.skipif(not (FIXTURES / "18TN" / "7818.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_processing_only_processes_the_burst_without_servers() -> None:
    result = CliRunner().invoke(bench, ["mail", "--mails", "8", "--processing-only",
                                        "--batch", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # Two of eight are the game's next moves; each mail is answered (one reply each)
    # and, a batch being one mail, each applied move reports to the four others.
    assert "8 mails processed (no servers) in batches of 1, 2 applied, 16 mails queued" \
        in lines[0]
    assert re.search(r"^processor CPU: [\d.]+ ms per mail \(one core: \d+ mails/s\)",
                     result.output, re.M)
    # A batch of one mail: each commits to the disk once (issue 33, group commit).
    flushes = re.search(r"\(\d+ mails/s\), (\d+) commits waited for the disk$",
                        result.output, re.M)
    assert flushes is not None, result.output
    assert 8 <= int(flushes.group(1)) <= 10
    # The store holds the game's position (as a daemon that ran keeps it): the first
    # mail replays nothing.
    assert re.search(r"^  the first mail after a start: \d+ ms, of which \d+ ms loading the "
                     r"game \(its kept position and 0 moves replayed\)$", result.output,
                     re.M), result.output
    assert re.search(r"^  the others [\d.]+ ms per mail \(one core: \d+ mails/s\)$",
                     result.output, re.M)
    assert re.search(r"meant to apply: 2 mails, CPU per mail p50 [\d.]+ ms", result.output)
    assert re.search(r"refused: 6 mails, CPU per mail p50 [\d.]+ ms", result.output)
    # In one batch each of the four others gets at most one report, covering both
    # moves: 8 replies and at most 4 reports, against 8 + 2 x 4 above.
    batched = CliRunner().invoke(bench, ["mail", "--mails", "8", "--processing-only",
                                         "--batch", "8"])
    assert batched.exit_code == 0, batched.output
    queued = re.search(r"in batches of 8, 2 applied, (\d+) mails queued", batched.output)
    assert queued is not None, batched.output
    assert 8 < int(queued.group(1)) <= 8 + 4
    # And its eight mails commit to the disk together (or in a few groups, on a slow
    # machine: a group is flushed after GROUP_SECONDS); no kept position: replayed.
    flushes = re.search(r", (\d+) commits waited for the disk$", batched.output, re.M)
    assert flushes is not None and int(flushes.group(1)) < 8, batched.output
    unkept = CliRunner().invoke(bench, ["mail", "--mails", "1", "--processing-only",
                                        "--no-kept-position"])
    assert "(300 moves replayed, no kept position)" in unkept.output, unkept.output
    loaded = CliRunner().invoke(bench, ["mail", "--mails", "1", "--processing-only",
                                        "--loaded"])
    assert re.search(r"^  the first mail, the mail of move 299 answered before: \d+ ms \(one "
                     r"mail's processing at move 300\)$", loaded.output, re.M), loaded.output
    assert "1 mails processed (no servers) in batches of 25, 1 applied" in loaded.output


@pytest.mark.skipif(not (FIXTURES / "1861" / "167259.json").exists(),
                    reason="the recorded games are not here")
def test_bench_mail_processing_only_prints_the_mails_sizes_and_the_boards_drawn() -> None:
    """Issue 33: the sizes of the mails the burst queued (a report should stay under
    60 KB) and the map boards drawn, and how many only round what changed."""
    record = FIXTURES / "1861" / "167259.json"
    result = CliRunner().invoke(bench, ["mail", "--processing-only", "--record", str(record),
                                        "--at", "360", "--mails", "6", "--applied-every",
                                        "2", "--batch", "1"])
    assert result.exit_code == 0, result.output
    sizes = re.search(r"mails queued: (\d+), size p50 ([\d.]+) KB, p95 ([\d.]+) KB, "
                      r"max ([\d.]+) KB, over 60 KB: (\d+)", result.output)
    assert sizes is not None, result.output
    queued, p50, p95, largest, over = (float(g) for g in sizes.groups())
    # Three moves applied, each reported to the four players and the game master.
    assert queued >= 3 * 4
    assert 0 < p50 <= p95 <= largest and over <= queued
    boards = re.search(r"map boards drawn: (\d+), of which (\d+) only round what changed",
                       result.output)
    assert boards is not None, result.output
    drawn, repainted = int(boards.group(1)), int(boards.group(2))
    # The first board is drawn whole, the later ones from the board before.
    assert drawn >= 2 and 1 <= repainted < drawn


@pytest.mark.asyncio
async def test_the_bench_sender_tries_a_mail_again_after_try_again_later() -> None:
    """A local delivery the loaded machine's pymap could not take in time is answered
    451 (try again later): the bench's sender tries again, as a mail program does,
    instead of stopping the bench (CI: "the bench's mail servers stopped")."""
    import aiosmtplib
    from aiosmtpd.controller import Controller

    from moderator.cli.bench_servers import _send

    class Flaky:
        def __init__(self) -> None:
            self.tries = 0
            self.kept: list[bytes] = []

        async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
            self.tries += 1
            if self.tries < 3:
                return "451 4.3.0 Local delivery failed, try again later"
            self.kept.append(envelope.content)
            return "250 OK"

    handler = Flaky()
    with socket.socket() as probe:  # a free port (the controller checks its own port)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=30)
        await smtp.connect()
        await _send(smtp, "a@example.org", "b@example.org",
                    b"Subject: x\r\nMessage-ID: <x@example.org>\r\n\r\nhello\r\n")
        await smtp.quit()
    finally:
        controller.stop()
    assert handler.tries == 3 and len(handler.kept) == 1
