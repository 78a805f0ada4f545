"""One mail per real decision (issue 30), by mail through the real daemon, IMAP and SMTP
servers on loopback and a real SQLite file:

* the moderator passes the steps nobody decides and says so in a line: an 1861 minor
  with no tile to lay, no station marker, no train to run and no income goes straight
  to its forced train purchase, which its president settles in one mail; the game with
  those passes reads back from its 18xx.games export;
* orders sent ahead belong to their decision: a bid or a pass sent during an auction
  the sender is in is applied at his turn in that auction (1850, 1861), or dropped
  with a notice to him when the auction ends first; never at another decision;
* the smaller defects: `help` in plain text, orders read from the subject of an empty
  mail (and an empty mail's examples in the game's own title), a remark on orders
  answering an old report, the game master's lobby lines kept apart.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from email.message import EmailMessage

import pytest
import pytest_asyncio
import scenarios_1850 as s50
import scenarios_1861 as s61
from mailservers import (
    Inboxes,
    daemon_settings,
    reply_to,
    running_daemon,
    seat_address,
    send_mail,
    text_of,
)

from engine.actions import Bid, BuyPrivate, StartAuction
from engine.game import Game
from engine.records import export_record, import_record
from moderator.config import Config
from moderator.desk.auth import MASTER_KEY
from moderator.desk.turns import MODERATOR
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

GM = "gm@example.org"


@pytest_asyncio.fixture
async def inboxes(mail_servers: LocalMail) -> AsyncIterator[Inboxes]:
    boxes = Inboxes(mail_servers)
    yield boxes
    await boxes.close()


@dataclass
class Table:
    """A started game in the daemon's store, at a chosen position, seated by address."""

    servers: LocalMail
    config: Config
    inboxes: Inboxes
    game_id: str
    seats: tuple[str, ...]

    def address(self, seat: str) -> str:
        return f"{seat.lower()}@example.org"

    def game(self) -> Game:
        store = Store(self.config.moderator.database)
        try:
            return store.load(self.game_id)
        finally:
            store.close()

    def store_rows(self, sql: str, args: list[object]) -> list[tuple[object, ...]]:
        store = Store(self.config.moderator.database)
        try:
            return store.execute(sql, args)
        finally:
            store.close()

    async def send(self, seat: str, body: str) -> str:
        return await send_mail(self.servers, self.address(seat),
                               seat_address(self.config, self.game_id, seat),
                               f"[{self.game_id}]", body)

    async def answer(self, seat: str, sent: str) -> EmailMessage:
        return await self.inboxes.wait(self.address(seat),
                                       lambda m: m["In-Reply-To"] == sent, timeout=60)

    async def mail_to(self, seat: str, predicate: Callable[[EmailMessage], bool]
                      ) -> EmailMessage:
        return await self.inboxes.wait(self.address(seat), predicate, timeout=60)


def seated_at(config: Config, game: Game) -> str:
    """GAME's position stored as a started mail game (with its clock), each seat held
    by seat@example.org: what `create game` ... `start` and the moves by mail leave."""
    store = Store(config.moderator.database)
    now = time.time()
    try:
        with store.transaction():
            setup = game.setup
            game_id = store.create_mail_game(setup.title, GM, sorted(setup.options),
                                             setup.seed, now)
            store.add_member(game_id, GM, "master", MASTER_KEY, status="active", now=now)
            for seat in setup.seats:
                store.add_member(game_id, f"{seat.lower()}@example.org", "player", seat,
                                 seat=seat, status="active", now=now)
            store.create_game(setup, game_id)
            store.append(game_id, 0, list(game.log), cause="test", actor="test")
            store.mark_started(game_id, now)
            store.create_clock(game_id, 72 * 3600)
    finally:
        store.close()
    return game_id


@pytest_asyncio.fixture
async def table_maker(mail_servers: LocalMail, inboxes: Inboxes
                      ) -> AsyncIterator[Callable[[Game], Table]]:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})

    def make(game: Game) -> Table:
        return Table(mail_servers, config, inboxes, seated_at(config, game),
                     game.setup.seats)

    async with running_daemon(config):
        yield make


# -- 1. the steps nobody decides ---------------------------------------------------------


async def test_a_minor_with_nothing_to_decide_before_its_train_takes_one_mail(
        table_maker: Callable[[Game], Table]) -> None:
    """1861: N (Bob's) has no lay, no station marker, no train and so no income in its
    first turn; its only decision is the train it must buy (10.10)."""
    game = s61.first_operating_round()
    last = game.log[-1]  # the last pass of the stock round, to be mailed
    table = table_maker(Game(game.setup, game.log[:-1]))
    start = len(game.log)
    sent = await table.send(last.seat, "pass\n")
    assert "Applied." in text_of(await table.answer(last.seat, sent))
    report = await table.mail_to("Bob", lambda m: "buy train 2" in text_of(m)
                                 and "Operating Round" in text_of(m))
    text = text_of(report)
    for line in ("N has no tile to lay: track step skipped",
                 "N has no station marker to place: token step skipped",
                 "N has no train to run: route step skipped",
                 "N earned nothing to pay out: dividend step skipped"):
        assert line in text, text
    stored = table.game()
    turn = stored.turn()
    assert turn is not None and (turn.entity, turn.step) == ("N", "train")
    actors = table.store_rows("SELECT actor FROM moves WHERE game_id = ? AND number >= ?",
                              [table.game_id, start])
    assert actors == [(MODERATOR,)] * 4  # four steps passed, by the moderator
    sent = await table.send("Bob", "buy train 2\n")
    assert "Applied." in text_of(await table.answer("Bob", sent))
    after = table.game()
    assert [t.name for t in after.state.corporations["N"].trains] == ["2"]
    assert after.turn() is not None and after.turn().entity != "N"  # type: ignore[union-attr]
    # The moderator's passes are moves like any other: the export reads back.
    replay = import_record(export_record(after, game_id=table.game_id))
    assert replay.game.state.corporations["N"].trains[0].name == "2"
    assert {p: replay.game.state.players[p].cash for p in after.setup.seats} == \
        {p: after.state.players[p].cash for p in after.setup.seats}


# -- 3. orders sent ahead belong to their decision ------------------------------------------


def auction_1850() -> Game:
    """1850: Ann and Bob bid on CM; Cy buys GRSC, so CM is auctioned between them, Ann
    to bid first (5.7)."""
    game = s50.new_game()
    game.apply("Ann", Bid(45, "CM"))
    game.apply("Bob", Bid(50, "CM"))
    game.apply("Cy", BuyPrivate("GRSC"))
    turn = game.turn()
    assert turn is not None and (turn.seat, turn.step) == ("Ann", "auction of CM")
    return game


async def test_1850_a_bid_sent_ahead_in_an_auction_is_applied_at_the_senders_turn_in_it(
        table_maker: Callable[[Game], Table]) -> None:
    table = table_maker(auction_1850())
    sent = await table.send("Bob", "bid 60\n")
    held = text_of(await table.answer("Bob", sent))
    assert "applied at your turn in the auction of CM" in held, held
    sent = await table.send("Ann", "bid 55\n")
    assert "Applied." in text_of(await table.answer("Ann", sent))
    game = table.game()
    assert game.log[-1].seat == "Bob" and game.log[-1].action == Bid(60)
    turn = game.turn()
    assert turn is not None and (turn.seat, turn.step) == ("Ann", "auction of CM")
    assert table.store_rows("SELECT COUNT(*) FROM held_orders", []) == [(0,)]


async def test_1850_a_bid_sent_ahead_is_dropped_with_a_notice_when_the_auction_ends_first(
        table_maker: Callable[[Game], Table]) -> None:
    table = table_maker(auction_1850())
    sent = await table.send("Ann", "bid 55\n")
    assert "Applied." in text_of(await table.answer("Ann", sent))
    sent = await table.send("Ann", "bid 70\n")  # still in, while Bob is to bid
    assert "held" in text_of(await table.answer("Ann", sent))
    sent = await table.send("Bob", "pass\n")  # Ann wins CM at 55
    assert "Applied." in text_of(await table.answer("Bob", sent))
    notice = await table.mail_to("Ann", lambda m: "auction of CM ended before your turn"
                                 in text_of(m))
    assert "> bid 70" in text_of(notice)
    game = table.game()
    assert game.state.privates["CM"].owner == "Ann"
    assert game.state.players["Ann"].cash == 700 - 55
    assert table.store_rows("SELECT COUNT(*) FROM held_orders", []) == [(0,)]
    # Her next stock turn is hers to decide: nothing of the auction is used there.
    assert all(m.seat != "Ann" or m.action != Bid(70) for m in game.log)


async def test_1861_a_pass_sent_ahead_in_an_auction_passes_there_not_at_the_stock_turn(
        table_maker: Callable[[Game], Table]) -> None:
    """The issue's case: Ann's `pass`, sent while Cy was to bid on a minor, is used at
    Ann's turn in that auction; her next stock turn waits for her."""
    game = s61.new_game()
    s61.privates_at_minimum(game)
    assert s61.now(game) == "Bob"
    game.apply("Bob", StartAuction("N", 140))
    turn = game.turn()
    assert turn is not None and (turn.seat, turn.step) == ("Cy", "auction of N")
    table = table_maker(game)
    sent = await table.send("Ann", "pass\n")
    assert "auction of N" in text_of(await table.answer("Ann", sent))
    for seat in ("Cy", "Dee"):
        sent = await table.send(seat, "pass\n")
        assert "Applied." in text_of(await table.answer(seat, sent))
    played = table.game()
    assert played.state.corporations["N"].president == "Bob"  # Ann's pass ended it
    ann = table.store_rows("SELECT actor FROM moves WHERE game_id = ? AND seat = 'Ann' "
                           "ORDER BY number DESC LIMIT 1", [table.game_id])
    assert ann == [("ann@example.org",)]  # her own order, held, not the moderator's
    # The stock turns go on; Ann is asked at hers, nothing is played for her.
    while (turn := played.turn()) is not None and turn.seat != "Ann":
        sent = await table.send(turn.seat, "pass\n")
        assert "Applied." in text_of(await table.answer(turn.seat, sent))
        played = table.game()
    assert turn is not None and turn.step == "stock turn"
    assert table.store_rows("SELECT COUNT(*) FROM held_orders", []) == [(0,)]


# -- 8. smaller defects ----------------------------------------------------------------------


async def test_help_comes_as_plain_text(table_maker: Callable[[Game], Table]) -> None:
    table = table_maker(s61.new_game())
    sent = await table.send("Ann", "help bid\n")
    text = text_of(await table.answer("Ann", sent))
    assert "###" not in text and "```" not in text, text
    assert "\n    bid 45 on MCR\n" in text  # the example, indented in the section


async def test_orders_in_the_subject_of_an_empty_mail_are_read(
        table_maker: Callable[[Game], Table]) -> None:
    """1861: Ann's opening bid written in the subject, the body left empty."""
    table = table_maker(s61.new_game())
    sent = await send_mail(table.servers, table.address("Ann"),
                           seat_address(table.config, table.game_id, "Ann"),
                           f"Re: [{table.game_id}] bid 20 on TSR", "")
    answer = text_of(await table.answer("Ann", sent))
    assert "Applied." in answer, answer
    assert table.game().log[0].action == Bid(20, "TSR")


async def test_an_empty_mail_gets_examples_of_its_own_title(
        table_maker: Callable[[Game], Table]) -> None:
    table = table_maker(s61.new_game())
    sent = await send_mail(table.servers, table.address("Ann"),
                           seat_address(table.config, table.game_id, "Ann"),
                           f"Re: [{table.game_id}] SR 1: Ann to move", "")
    answer = text_of(await table.answer("Ann", sent))
    assert "its text is empty" in answer
    assert "buy TCC" not in answer and "par SR at 65" not in answer  # 18TN's
    assert "  bid 20 on TSR\n" in answer, answer  # what 1861 expects of Ann now


async def test_orders_answering_an_old_report_are_applied_with_a_remark(
        table_maker: Callable[[Game], Table]) -> None:
    game = auction_1850()
    table = table_maker(game)
    sent = await table.send("Ann", "status\n")
    old_report = await table.answer("Ann", sent)
    assert old_report["X-Moderator-Move"] == "3"
    sent = await table.send("Ann", "bid 55\n")
    assert "Applied." in text_of(await table.answer("Ann", sent))
    sent = await table.send("Bob", "bid 60\n")
    assert "Applied." in text_of(await table.answer("Bob", sent))
    sent = await reply_to(table.servers, table.address("Ann"), old_report, "bid 65\n")
    answer = text_of(await table.answer("Ann", sent))
    assert "Applied." in answer
    assert "your mail answers the report of move 3; 2 moves were made since" in answer


async def test_the_game_masters_invite_answer_keeps_its_lines_apart(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    async with running_daemon(config):
        await send_mail(mail_servers, GM, config.moderator.address, "new game",
                        "create game 1861\n")
        created = await inboxes.wait(GM, lambda m: "game created" in str(m["Subject"]))
        sent = await reply_to(mail_servers, GM, created, "invite ann@example.org as Ann\n")
        answer = text_of(await inboxes.wait(GM, lambda m: m["In-Reply-To"] == sent))
    assert "Game master: gm@example.org\n  Ann " in answer, answer
