"""A report bounces for good (issue 29, item 3): a player's mailbox at Dovecot is
full, Postfix returns the report (552 5.2.2) to its VERP envelope sender, and the
moderator records it without answering it; the game master and the other players
are told in their next report, the game's webhook at once, `moderator status` and
`moderator health` show it, and the player's missed moves come in the answer to his
next mail, which lifts the mark.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from mailservers import (
    Inboxes,
    opening_orders,
    run_cli,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
)
from realmail import REFUSED_PREFIX, RealMail, moderator_config, unique_address
from test_realmail_game import WAIT, reached, send_orders, wait_answer
from webhookserver import hook_server

from moderator.desk.orders import run_submission
from moderator.desk.webhooks import Hook, set_hook
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.realmail, pytest.mark.slow,
              pytest.mark.timeout(180)]


async def until(check: object, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)


async def test_a_report_to_a_full_mailbox_bounces_and_the_game_master_is_told(
        real_mail: RealMail, tmp_path: Path) -> None:
    moderator = unique_address("moderator", "localhost")
    gm = unique_address("gm")
    players = {seat: unique_address(seat.lower()) for seat in ("Ann", "Bob", "Cy")}
    config = moderator_config(real_mail, tmp_path / "moderator", moderator,
                              moderator={"webhook_allow_private": True,
                                         "webhook_retry_min": 0.1})
    game_id = seat_game(config, players, master=gm)
    store = Store(config.moderator.database)
    # Who moves first and second; the third's mailbox is full (a 1 KB quota: the
    # first report is larger).
    game = store.load(game_id)
    first = game.turn().seat  # type: ignore[union-attr]
    for order in opening_orders(game):
        assert run_submission(game, first, order).ok
    second = game.turn().seat  # type: ignore[union-attr]
    full = next(seat for seat in players if seat not in (first, second))
    real_mail.add_user(players[full], quota="1K")
    inboxes = Inboxes(real_mail)
    try:
        async with hook_server(200) as hooks, running_daemon(config):
            with store.transaction():
                set_hook(store, game_id, Hook(hooks.url, "json"))
            sent, _ = await send_orders(real_mail, config, game_id, first, players[first],
                                        store)
            assert "Applied." in text_of(await wait_answer(inboxes, [players[first]], sent))
            # The report to FULL bounces back to its VERP address and is recorded.
            await until(lambda: store.undeliverable(players[full]))
            [mark] = store.undeliverable(players[full])
            bounced = next(p for p in await hooks.wait_for(2)
                           if "cannot be delivered" in p.json()["headline"])
            # The game master hears of it in his next report.
            sent, _ = await send_orders(real_mail, config, game_id, second,
                                        players[second], store)
            assert "Applied." in text_of(await wait_answer(inboxes, [players[second]], sent))
            after = store.load(game_id).next_move
            report = await inboxes.wait(gm, reached(after), WAIT)
            status = await run_cli("status", game_id, "--db", str(config.moderator.database))
            health = await run_cli("health", "--db", str(config.moderator.database))
            full_mails = list(inboxes.messages(players[full]))
            outbox = store.execute("SELECT recipient, kind FROM outbox_queue ORDER BY id")
            bounce_rows = store.execute("SELECT outcome FROM messages WHERE outcome LIKE "
                                        "'skipped: bounce%'")
            # A forged bounce (the right form, a wrong MAC) for the game master's mail
            # is ignored: no mark, no answer.
            mallory = unique_address("mallory")
            local, _, domain = moderator.partition("@")
            forged = await send_mail(real_mail, mallory,
                                     f"{local}+bounce-1-aaaaaaaaaaaa@{domain}",
                                     "Undelivered Mail Returned to Sender",
                                     "Status: 5.1.1\ncreate game 18TN\n")
            await until(lambda: store.execute("SELECT outcome FROM messages WHERE key = ? "
                                              "AND status = 'done'", [forged]) != [])
            [(forged_outcome,)] = store.execute("SELECT outcome FROM messages WHERE key = ?",
                                                [forged])
            # FULL mails the moderator (his mailbox may take mail again): the mark is
            # lifted and his answer carries the moves he missed.
            real_mail.set_quota(players[full], None)
            asked = await send_mail(real_mail, players[full],
                                    seat_address(config, game_id, full), f"[{game_id}]",
                                    "status\n")
            answer = await wait_answer(inboxes, [players[full]], asked)
            lifted = not store.undeliverable(players[full])
            marks_after = store.undeliverable()
            to_mallory = store.execute("SELECT COUNT(*) FROM outbox_queue WHERE "
                                       "recipient = ?", [mallory])
    finally:
        await inboxes.close()
        store.close()
    print(f"bounce recorded: {mark}; webhook: {bounced.json()}; gm's report line: "
          + next(line for line in text_of(report).splitlines() if "receives no mail" in line))
    print("health:\n" + health.stdout)
    assert mark.status == "5.2.2" and "quota" in (mark.diagnostic or "").lower(), mark
    assert bounced.json()["headline"] == f"mail to {full} cannot be delivered"
    assert "the mailbox is full (5.2.2)" in text_of(report)
    assert f"{full} ({players[full]}) receives no mail" in text_of(report)
    assert f"Not receiving mail: {full} ({players[full]}): 5.2.2" in status.stdout
    assert health.returncode == 0, health.stdout
    assert f"1 address not receiving mail: {players[full]} (5.2.2)" in health.stdout
    assert full_mails == []  # nothing reached the full mailbox
    # The bounce was never answered: every mail went to the game's members, and the
    # second move's report did not go to FULL.
    members = {gm, *players.values()}
    assert {recipient for recipient, _ in outbox} <= members
    assert sum(1 for recipient, _ in outbox if recipient == players[full]) == 1
    assert len(bounce_rows) == 1 and "permanent, 5.2.2" in bounce_rows[0][0]
    assert lifted
    assert forged_outcome == "skipped: a bounce address with a wrong MAC"
    assert [mark.address for mark in marks_after] == []
    assert to_mallory == [(0,)]
    # The moves FULL missed since the last mail that reached him (none did): both.
    missed = text_of(answer).split("Since your last report", 1)[1]
    assert f"#0 {first}:" in missed and f" {second}:" in missed, missed



async def test_a_recipient_refused_at_sending_counts_as_a_bounce(
        real_mail: RealMail, tmp_path: Path) -> None:
    """Postfix refuses a player's address at RCPT (550 5.1.1): no bounce mail comes,
    the refusal itself marks the address."""
    moderator = unique_address("moderator", "localhost")
    players = {"Ann": unique_address("ann"), "Bob": unique_address(f"{REFUSED_PREFIX}bob"),
               "Cy": unique_address("cy")}
    config = moderator_config(real_mail, tmp_path / "moderator", moderator)
    game_id = seat_game(config, players, master=unique_address("gm"))
    store = Store(config.moderator.database)
    first = store.load(game_id).turn().seat  # type: ignore[union-attr]
    assert first != "Bob"  # (seat_game's seed) Bob gets a report, not the reply
    inboxes = Inboxes(real_mail)
    try:
        async with running_daemon(config):
            sent, _ = await send_orders(real_mail, config, game_id, first, players[first],
                                        store)
            assert "Applied." in text_of(await wait_answer(inboxes, [players[first]], sent))
            await until(lambda: store.undeliverable(players["Bob"]))
            [mark] = store.undeliverable(players["Bob"])
            [bounce] = store.execute("SELECT cause, permanent, status FROM bounces")
            failed = store.execute("SELECT recipient FROM outbox_queue WHERE failed IS NOT "
                                   "NULL")
    finally:
        await inboxes.close()
        store.close()
    assert mark.status == "5.1.1" and "550" in (mark.diagnostic or ""), mark
    assert bounce == (None, 1, "5.1.1")  # no bounce mail: the refusal at sending
    assert failed == [(players["Bob"],)]
