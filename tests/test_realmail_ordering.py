"""50 quick consecutive mails of one player through Postfix and Dovecot, applied in the
order written (issue 29, item 5).

Postfix hands its queue to its LMTP delivery agents in parallel, so a burst reaches
the moderator's mailbox out of order (before the order of writing was kept, 4 to 24
of 50 such mails applied). Each mail here depends on the one before it being applied:
`move N` pins it to the game's move number, and the orders alternate `buy TCC` and
`undo` of it, so any mail applied out of place is refused and every later one with
it. The daemon runs with the default `order_window` (5 s).
"""

from __future__ import annotations

import asyncio
import email
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path

import aiosmtplib
import pytest
from mailservers import (
    SMTP_PATIENCE,
    Inboxes,
    running_daemon,
    seat_address,
    seat_game,
    text_of,
)
from realmail import RealMail, moderator_config, unique_address

from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.slow,
              pytest.mark.timeout(240)]

MAILS = 50
#: Seconds to wait for the answers (a loaded machine; not a speed claim).
WAIT = 150.0


async def test_fifty_quick_mails_of_one_player_apply_in_the_order_written(
        real_mail: RealMail, tmp_path: Path) -> None:
    moderator = unique_address("moderator", "localhost")
    players = {seat: unique_address(seat.lower()) for seat in ("Ann", "Bob", "Cy")}
    config = moderator_config(real_mail, tmp_path / "moderator", moderator)
    assert config.moderator.order_window == 5.0  # the default, as operators run it
    game_id = seat_game(config, players, master=unique_address("gm"))
    store = Store(config.moderator.database)
    inboxes = Inboxes(real_mail)
    try:
        seat = store.load(game_id).turn().seat  # type: ignore[union-attr]
        address = players[seat]
        to = seat_address(config, game_id, seat)
        # Written one a second (a Date header has whole seconds), sent together: a
        # player's outbox delivered at once.
        written = time.time() - MAILS - 5
        mails = []
        for number in range(MAILS):
            message = EmailMessage()
            message["From"] = address
            message["To"] = to
            message["Subject"] = f"orders {number}"
            message["Date"] = formatdate(written + number)
            message["Message-ID"] = make_msgid(domain="realmail.test")
            order = "buy TCC" if number % 2 == 0 else "undo"
            message.set_content(f"move {number}\n{order}\n")
            mails.append(message)
        async with running_daemon(config):
            async with aiosmtplib.SMTP(hostname=real_mail.host, port=real_mail.smtp_port,
                                       local_hostname="localhost", timeout=SMTP_PATIENCE) as smtp:
                for message in mails:
                    await smtp.send_message(message, sender=address,
                                            recipients=[parseaddr(to)[1]])
            wanted = {str(m["Message-ID"]): int(str(m["Subject"]).split()[1])
                      for m in mails}
            answers: dict[int, EmailMessage] = {}
            deadline = time.monotonic() + WAIT
            while len(answers) < MAILS and time.monotonic() < deadline:
                for stored in await inboxes.refresh(address):
                    number = wanted.get(str(stored.message["In-Reply-To"]))
                    if number is not None:
                        answers[number] = stored.message
                await asyncio.sleep(0.2)
        refused = {n: " ".join(text_of(a).split())[:300] for n, a in answers.items()
                   if "Applied." not in text_of(a)}
        assert not refused, refused
        assert sorted(answers) == list(range(MAILS))
        # The game's log: each move made by the mail written for it, in order.
        rows = store.execute("SELECT m.raw FROM moves mv JOIN messages m ON m.key = "
                             "mv.cause WHERE mv.game_id = ? ORDER BY mv.number", [game_id])
        subjects = [str(email.message_from_bytes(bytes(raw))["Subject"]) for (raw,) in rows]
        assert subjects == [f"orders {n}" for n in range(MAILS)]
        # How far from the order written the mails reached the mailbox (recorded in
        # arrival order): shown, not asserted -- it is Postfix's doing.
        arrival = [int(str(email.message_from_bytes(bytes(raw))["Subject"]).split()[1])
                   for (raw,) in store.execute(
                       "SELECT raw FROM messages WHERE author = ? ORDER BY rowid",
                       [address])]
        out_of_place = sum(1 for i, n in enumerate(arrival) if n != i)
        print(f"{MAILS} mails: {out_of_place} reached the mailbox out of the order written; "
              "all applied in order")
    finally:
        await inboxes.close()
        store.close()
