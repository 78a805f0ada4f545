"""The warning before a costly order (issue 30, item 5), by mail through the real
servers and the real daemon.

18TN record 7818 at move 399: GMO (Player 4) is at its track step with $540 and no
train, and must buy one (it has a route, 4.2.5.2); the cheapest, a 6-train, costs $600.
Its station in Paducah (D7) would cost $100 (the charter's third token): `legal`, `show
D7` and the report list it so, with the $440 left. Player 4 mails a free lay and the
station: the mail is refused at the station with the shortfall
named ($160, his to pay) and the line that places it anyway, and nothing is applied
(a mail applies whole or not at all). He mails the same with `confirm` before the
station: both are applied. An ordinary mail after (`buy train 6`) is applied as ever:
the president pays what GMO lacks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mailgame import answers
from mailservers import Inboxes, daemon_settings, running_daemon, text_of
from test_mail_reports import Table, html_of

from engine.records import import_record
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

RECORD = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
MOVE = 399  # OR 6.2 (record 7818): GMO to lay track, no train


@pytest_asyncio.fixture
async def inboxes(mail_servers: LocalMail) -> AsyncIterator[Inboxes]:
    boxes = Inboxes(mail_servers)
    yield boxes
    await boxes.close()


async def test_a_station_that_leaves_no_money_for_the_train_is_warned_of_then_confirmed(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    record = import_record(json.loads(RECORD.read_text())).game
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    table = Table(config, record, MOVE)
    before = table.store.load(table.game_id)
    gmo = before.state.corporation("GMO")
    turn = before.turn()
    assert turn is not None and turn.entity == "GMO"
    assert (gmo.cash, gmo.trains) == (540, [])
    president = before.state.player("Player 4").cash
    address = table.seats["Player 4"]
    async with running_daemon(config):
        sent = await _send(table, mail_servers, "legal\nshow D7\nlay 8 at F7 rot 0\ntoken D7\n")
        warned_mail = await inboxes.wait(address, answers(sent))
        warned = text_of(warned_mail)
        assert table.store.load(table.game_id).next_move == MOVE  # nothing applied
        sent = await _send(table, mail_servers, "lay 8 at F7 rot 0\nconfirm token D7\n")
        confirmed = text_of(await inboxes.wait(address, answers(sent)))
        sent = await _send(table, mail_servers, "buy train 6\n")
        bought = text_of(await inboxes.wait(address, answers(sent)))
    flat = " ".join(warned.split())
    # `legal` lists the stations with their price and what GMO keeps.
    assert "The stations GMO may place now, with their price" in warned
    assert "token D7 (Paducah): $100, leaves $440" in warned
    # `show D7`: no tile to lay there, the station with its price.
    shown = warned.split("The stations GMO may place at D7, with their price", 1)[1]
    assert " ".join(shown.split("\n\n", 1)[0].split()) == \
        "token D7 (Paducah): $100, leaves $440"
    assert "Tiles at D7" not in warned
    # So does the report under the answer, in both its parts.
    report = warned.split("(The map is as in your last report", 1)[1]
    assert "The stations GMO may place now, with their price:" in report
    assert "token H7 (Corinth): $100, leaves $440" in report
    html = html_of(warned_mail)
    assert "The stations GMO may place now, with their price:</p>" in html
    assert "token D7 (Paducah): $100, leaves $440" in html
    # The warning: the shortfall, whose burden it becomes, the line that applies it.
    assert ("not applied: after this station GMO has $440; it must own a train and has "
            "none, and the cheapest the bank sells, a 6-train, costs $600: $160 short, which its "
            "president Player 4 would have to pay. Write `confirm token D7` to place it "
            "anyway.") in flat
    assert "Nothing was applied" in warned
    assert "Applied." in confirmed and "GMO places a station in D7 for $100" in confirmed
    assert "Applied." in bought
    after = table.store.load(table.game_id)
    gmo = after.state.corporation("GMO")
    assert [t.name for t in gmo.trains] == ["6"] and gmo.cash == 0
    assert after.state.player("Player 4").cash == president - 160
    assert "GMO" in after.state.board.tokens["D7"][0]


async def _send(table: Table, servers: LocalMail, body: str) -> str:
    from mailservers import send_mail

    return await send_mail(servers, table.seats["Player 4"], table.address("Player 4"),
                           f"[{table.game_id}]", body)


def test_the_warning_names_loans_where_the_company_may_take_them() -> None:
    """Unit: in 1861 the budget counts the loans a company may still take (10.2), and
    nobody is named to pay: 10.10 makes the company take loans, not its Director pay."""
    from engine.actions import LayTile
    from moderator.desk.shortfall import Shortfall, warning

    text = warning(Shortfall("M-V", "R5", "R95", "2", "pool", "R100", "R5", None,
                             "Director", "Bank Pool"),
                   LayTile("9", "I15", 0), "lay 9 at I15 rot 0")
    assert text == ("not applied: after this lay M-V has R5 (R95 with the loans it may "
                    "still take); it must own a train and has none, and the cheapest in "
                    "the Bank Pool, a 2-train, costs R100: R5 short. Write `confirm lay "
                    "9 at I15 rot 0` to lay it anyway.")
