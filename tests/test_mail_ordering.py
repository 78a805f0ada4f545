"""The order of writing (issue 29, item 5): a player's mails are applied in the order
he wrote them, whatever order they arrive in, and a mail written before one of his
that was applied first is answered as late, never applied out of order.

The rules alone (`moderator.desk.ordering`), the processor on a real store, and the
daemon on the embedded servers with mails arriving in the reverse of their writing.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, formatdate
from pathlib import Path

import pytest
from mailservers import (
    daemon_settings,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
    wait_for_mail,
)

from moderator.config import Config, ImapConfig, ModeratorConfig, SmtpConfig
from moderator.desk.ordering import CLOCK_SKEW, MAX_DELAY, arrange, ready, stamp
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.mail.local import LocalMail
from moderator.store import Store, Waiting

NOW = 1_800_000_000.0


def header_mail(sender: str, date: str | None) -> bytes:
    lines = [f"From: {sender}", "To: moderator@localhost", "Subject: orders"]
    if date is not None:
        lines.append(f"Date: {date}")
    return ("\r\n".join(lines) + "\r\n\r\nbuy TCC\r\n").encode()


# -- the rules -----------------------------------------------------------------------------


def test_the_date_is_kept_within_reason_and_the_arrival_stands_in_otherwise() -> None:
    assert stamp(header_mail("Ann <Ann+x@Example.org>", formatdate(NOW - 30)), NOW) == (
        "ann@example.org", NOW - 30)
    # A clock a little fast is kept (the order among its own mails holds).
    assert stamp(header_mail("ann@example.org", formatdate(NOW + 600)), NOW)[1] == NOW + 600
    # Days ahead, far behind, missing, unreadable: the arrival.
    for date in (formatdate(NOW + CLOCK_SKEW + 60), formatdate(NOW - MAX_DELAY - 60),
                 None, "yesterday at noon", "Tue, 31 Feb 2026 99:99:99 +0000",
                 "Mon, 01 Jan 9999 00:00:00 +0000"):
        assert stamp(header_mail("ann@example.org", date), NOW)[1] == NOW, date
    assert stamp(b"\xff\xfe garbage", NOW) == (None, NOW)


def waiting(key: str, author: str | None, written: float, seen: float, number: int
            ) -> Waiting:
    return Waiting(key, author, written, seen, number)


def test_each_author_keeps_his_places_and_fills_them_in_the_order_written() -> None:
    mails = [waiting("a3", "ann", 3, 10, 1), waiting("b1", "bob", 1, 11, 2),
             waiting("a1", "ann", 1, 12, 3), waiting("c1", None, 0, 13, 4),
             waiting("a2", "ann", 2, 14, 5), waiting("b0", "bob", 0, 15, 6)]
    assert [m.key for m in arrange(mails)] == ["a1", "b0", "a2", "c1", "a3", "b1"]


def test_a_mail_waits_for_the_window_and_brings_its_author_s_earlier_ones() -> None:
    mails = [waiting("a2", "ann", 100, 100, 1), waiting("b1", "bob", 101, 101, 2),
             waiting("a1", "ann", 99, 103, 3), waiting("a3", "ann", 104, 104, 4)]
    # Nothing is five seconds old yet: the first is ready at 105.
    assert ready(mails, 104.0, 5.0) == ([], 105.0)
    chosen, due = ready(mails, 105.0, 5.0)
    # a2 is ready; a1, younger but written before it, goes first; a3 (written after)
    # and bob's waits.
    assert [m.key for m in chosen] == ["a1", "a2"]
    assert due == 106.0
    chosen, due = ready(mails, 200.0, 5.0)
    assert [m.key for m in chosen] == ["a1", "b1", "a2", "a3"] and due is None
    assert [m.key for m in ready(mails, 100.0, 0.0)[0]] == ["a1", "a2"]


# -- the processor on a real store ----------------------------------------------------------

PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


def _config(tmp_path: Path) -> Config:
    return Config(ImapConfig(host="localhost", user="m", password="p"),
                  SmtpConfig(host="localhost"),
                  ModeratorConfig(address="moderator@localhost",
                                  secret="a test secret, long enough",
                                  database=tmp_path / "moderator.sqlite"))


def order_mail(config: Config, game_id: str, seat: str, number: int, body: str,
               written: float) -> bytes:
    message = EmailMessage()
    message["From"] = PLAYERS[seat]
    message["To"] = seat_address(config, game_id, seat)
    message["Subject"] = f"[{game_id}] orders {number}"
    message["Date"] = format_datetime(datetime.fromtimestamp(written, UTC))
    message["Message-ID"] = f"<order{number}.{written}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def replies(store: Store, recipient: str) -> list[EmailMessage]:
    rows = store.execute("SELECT raw FROM outbox WHERE recipient = ? ORDER BY id",
                         [recipient])
    out = []
    for (raw,) in rows:
        message = email.message_from_bytes(bytes(raw), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        out.append(message)
    return out


def test_a_mail_written_before_one_applied_first_is_answered_as_late(
        tmp_path: Path) -> None:
    config = _config(tmp_path)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    processor = Processor(store, ProcessorSettings.from_config(config.moderator))
    seat = store.load(game_id).turn().seat  # type: ignore[union-attr]
    address = PLAYERS[seat]
    now = processor.wall()
    # The player writes `buy TCC`, then a minute later `move 1 / undo`; the second
    # arrives first and is applied (no window here: each mail processed as it comes).
    first = order_mail(config, game_id, seat, 1, "buy TCC\n", now - 120)
    second = order_mail(config, game_id, seat, 2, "move 0\nbuy TCC\n", now - 60)
    key, _ = processor.receive(second)
    assert processor.process(key).summary.endswith("applied, next move 1")
    key, _ = processor.receive(first)
    outcome = processor.process(key)
    assert outcome.summary.startswith("refused: written before <order2.")
    assert len(store.moves(game_id)) == 1  # the late one changed nothing
    late = replies(store, address)[-1]
    assert late["In-Reply-To"] == f"<order1.{now - 120}@example.org>"
    said = " ".join(text_of(late).split())
    assert "came after your mail" in said and "orders 2" in said
    assert "this mail was not applied" in said and "send it again" in said
    # A mail written after the applied one goes on as usual.
    third = order_mail(config, game_id, seat, 3, "move 1\nundo\n", now)
    key, _ = processor.receive(third)
    assert processor.process(key).summary.endswith("next move 2")
    # Another player's mail, written before, is not late: the order is each author's.
    other = next(s for s in PLAYERS if s != seat)
    key, _ = processor.receive(order_mail(config, game_id, other, 4, "status\n",
                                          now - 600))
    assert not processor.process(key).summary.startswith("refused: written before")
    store.close()


def test_a_clock_running_behind_on_another_device_is_not_late(tmp_path: Path) -> None:
    """A mail written after the applied one had arrived is never late, whatever its
    Date says (a phone and a computer that disagree on the time)."""
    config = _config(tmp_path)
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    clock = [NOW]
    processor = Processor(store, ProcessorSettings.from_config(config.moderator),
                          wall=lambda: clock[0])
    seat = store.load(game_id).turn().seat  # type: ignore[union-attr]
    # Written on a computer ten minutes fast, arriving at NOW.
    key, _ = processor.receive(order_mail(config, game_id, seat, 1, "buy TCC\n",
                                          NOW + 600))
    assert "applied" in processor.process(key).summary
    # Written five minutes later on a phone with the right time: its Date is before
    # the first's, but after the first arrived.
    clock[0] = NOW + 300
    key, _ = processor.receive(order_mail(config, game_id, seat, 2, "move 1\nundo\n",
                                          NOW + 300))
    assert processor.process(key).summary.endswith("next move 2")
    store.close()


# -- the daemon: arrival in the reverse of writing -------------------------------------------


@pytest.mark.mail
@pytest.mark.timeout(90)
async def test_mails_arriving_in_reverse_are_applied_in_the_order_written(
        mail_servers: LocalMail) -> None:
    # The window must hold the four sendings, each waiting for its delivery into pymap:
    # a second when all is well, many on a loaded machine.
    config = await daemon_settings(mail_servers, moderator={"order_window": 10.0})
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    try:
        seat = store.load(game_id).turn().seat  # type: ignore[union-attr]
        to = seat_address(config, game_id, seat)
        written = datetime.now(UTC).timestamp() - 30
        chain = ["move 0\nbuy TCC", "move 1\nundo", "move 2\nbuy TCC", "move 3\nundo"]
        async with running_daemon(config):
            # Sent (and so arriving) last first: arrival order would apply one at most.
            sent: dict[int, str] = {}
            # Each arrives alone, fetched on its own (the daemon polls every 0.25 s),
            # all within the window of the first.
            for number in reversed(range(len(chain))):
                sent[number] = await send_mail(
                    mail_servers, PLAYERS[seat], to, f"orders {number}",
                    chain[number] + "\n", {"Date": formatdate(written + number)})
                await asyncio.sleep(0.4)
            for number in range(len(chain)):
                answer = await wait_for_mail(
                    mail_servers, PLAYERS[seat],
                    predicate=lambda m, n=number: m["In-Reply-To"] == sent[n])
                assert "Applied." in text_of(answer), text_of(answer)
        # Each move made by the mail written for it: orders 0, 1, 2, 3.
        rows = store.execute("SELECT m.raw FROM moves mv JOIN messages m ON m.key = "
                             "mv.cause WHERE mv.game_id = ? ORDER BY mv.number", [game_id])
        subjects = [str(email.message_from_bytes(bytes(raw))["Subject"]) for (raw,) in rows]
        assert subjects == [f"orders {n}" for n in range(len(chain))]
    finally:
        store.close()
