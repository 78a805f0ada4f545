"""Long-running games by mail: deadlines, reminders, late players, absence, pauses,
undo, the game master's tools, held and standing orders, preferences, the game's end.

Everything goes through the real daemon, IMAP and SMTP servers on loopback and a real
SQLite file; the daemon's clock is a `FakeClock` the tests advance (the daemon looks
at it every 50 ms), so three days pass in a moment.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from email.message import EmailMessage

import icalendar
import pytest
import pytest_asyncio
from mailservers import (
    MAIL_PATIENCE,
    FakeClock,
    Inboxes,
    daemon_settings,
    opening_orders,
    reply_to,
    running_daemon,
    send_mail,
    text_of,
)

from engine.game import Game
from engine.records import import_record
from moderator import service
from moderator.config import Config
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(180)]

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
START = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.UTC).timestamp()
HOUR = 3600.0


@dataclass
class Table:
    """A game set up by mail, and the means to play it from the test."""

    servers: LocalMail
    config: Config
    inboxes: Inboxes
    clock: FakeClock
    game_id: str
    seen: dict[str, int] = field(default_factory=dict)

    @property
    def store(self) -> Store:
        return Store(self.config.moderator.database)

    def game(self) -> Game:
        store = self.store
        try:
            return store.load(self.game_id)
        finally:
            store.close()

    def acting(self) -> str:
        turn = self.game().turn()
        assert turn is not None
        return turn.seat

    def address(self, seat: str) -> str:
        return PLAYERS.get(seat, seat)

    async def send(self, who: str, body: str) -> str:
        """Reply as WHO (a seat, or an address) to the last game mail they received."""
        address = self.address(who)
        await self.inboxes.refresh(address)
        latest = next(m for m in reversed(self.inboxes.messages(address))
                      if m["X-Moderator-Game"] == self.game_id)
        return await reply_to(self.servers, address, latest, body)

    async def answer_to(self, who: str, message_id: str) -> EmailMessage:
        """The moderator's reply to the mail MESSAGE_ID that WHO sent."""
        return await self.inboxes.wait(self.address(who),
                                       lambda m: m["In-Reply-To"] == message_id)

    async def checkpoint(self) -> None:
        """Remember how much mail everyone has: `next_mail` looks only after this."""
        for address in [GM, *PLAYERS.values()]:
            self.seen[address] = len(await self.inboxes.refresh(address))

    async def advance(self, **how_long: float) -> None:
        await self.checkpoint()
        self.clock.advance(**how_long)

    async def next_mail(self, who: str, predicate: Callable[[EmailMessage], bool],
                        timeout: float = MAIL_PATIENCE) -> EmailMessage:
        """The first mail to WHO since the last checkpoint that matches PREDICATE."""
        address = self.address(who)
        seen = self.seen.get(address, 0)

        def fresh(message: EmailMessage) -> bool:
            return predicate(message) and any(
                message is m for m in self.inboxes.messages(address)[seen:])

        return await self.inboxes.wait(address, fresh, timeout)

    def since_checkpoint(self, who: str) -> list[EmailMessage]:
        address = self.address(who)
        return self.inboxes.messages(address)[self.seen.get(address, 0):]

    async def move(self, seat: str | None = None) -> str:
        """The acting player's next scripted order (or SEAT's, who must be acting)."""
        game = self.game()
        turn = game.turn()
        assert turn is not None and (seat is None or turn.seat == seat)
        orders = opening_orders(game)
        sent = await self.send(turn.seat, "\n".join(orders) + "\n")
        answer = await self.answer_to(turn.seat, sent)
        assert "Applied." in text_of(answer), text_of(answer)
        return sent

    def deadline(self) -> float | None:
        store = self.store
        try:
            clock = store.clock(self.game_id)
            return None if clock is None else clock.deadline
        finally:
            store.close()

    def times_late(self, seat: str) -> int:
        store = self.store
        try:
            return store.times_late(self.address(seat))
        finally:
            store.close()


def attachments(message: EmailMessage) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for part in message.walk():
        name = part.get_filename()
        if name and part.get_content_disposition() == "attachment":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            out[name] = payload
    return out


async def set_up(servers: LocalMail, inboxes: Inboxes, title: str = "18TN") -> str:
    """create game, invite, join, start -- by mail; the game's id."""
    await send_mail(servers, GM, MODERATOR, "new game", f"create game {title} seed=11\n")
    created = await inboxes.wait(GM, lambda m: "game created" in str(m["Subject"]))
    game_id = str(created["X-Moderator-Game"])
    await reply_to(servers, GM, created,
                   "".join(f"invite {address} as {seat}\n" for seat, address in PLAYERS.items()))
    for address in PLAYERS.values():
        invitation = await inboxes.wait(address, lambda m: "invitation" in m["Subject"])
        await reply_to(servers, address, invitation, "join\n")
    await inboxes.wait(GM, lambda m: "3 of 3 invited players have joined" in text_of(m))
    await reply_to(servers, GM, inboxes.latest(GM), "start")
    for address in [GM, *PLAYERS.values()]:
        await inboxes.wait(address, lambda m: m["X-Moderator-Move"] == "0")
    return game_id


@pytest_asyncio.fixture
async def table(mail_servers: LocalMail) -> AsyncIterator[Table]:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05},
                                   moderator={"tick_interval": 0.05})
    clock = FakeClock(START)
    inboxes = Inboxes(mail_servers)
    try:
        async with running_daemon(config, clock):
            game_id = await set_up(mail_servers, inboxes)
            yield Table(mail_servers, config, inboxes, clock, game_id)
    finally:
        await inboxes.close()


def deadline_of(message: EmailMessage) -> float:
    """The deadline of the .ics event a report carries."""
    ics = attachments(message)
    event = next(v for k, v in ics.items() if k.endswith(".ics"))
    calendar = icalendar.Calendar.from_ical(event)
    start = next(iter(calendar.walk("VEVENT")))["DTSTART"].dt
    return float(start.timestamp())


# -- deadlines and reminders ---------------------------------------------------------------


async def test_the_first_report_states_the_deadline_and_attaches_it(table: Table) -> None:
    seat = table.acting()
    first = table.inboxes.latest(table.address(seat))
    assert "must move by Thu 26 Nov 2026 12:00 UTC (in 3 days)" in text_of(first)
    assert "At the deadline: wait" in text_of(first)
    assert deadline_of(first) == START + 72 * HOUR
    # The others read the deadline but get no calendar event: it is not their move.
    other = next(s for s in PLAYERS if s != seat)
    report = table.inboxes.latest(table.address(other))
    assert f"{seat} must move by Thu 26 Nov 2026 12:00 UTC" in text_of(report)
    assert not any(k.endswith(".ics") for k in attachments(report))


async def test_reminders_at_half_time_and_before_then_late_under_wait(table: Table) -> None:
    seat = table.acting()
    others = [s for s in PLAYERS if s != seat]
    await table.advance(hours=36, minutes=1)
    reminder = await table.next_mail(seat, lambda m: "your move" in str(m["Subject"]))
    assert "Your deadline: Thu 26 Nov 2026 12:00 UTC" in text_of(reminder)
    await table.advance(hours=32)  # 68 h: four hours before the deadline
    second = await table.next_mail(seat, lambda m: "your move" in str(m["Subject"]))
    assert "(in 4 hours" in text_of(second) or "(in 3 hours" in text_of(second)
    for other in others:  # only the player who owes the move is reminded
        assert not any("your move" in str(m["Subject"])
                       for m in table.inboxes.messages(table.address(other)))
    await table.advance(hours=4)  # the deadline passes: `wait` tells everyone
    for who in [GM, *others]:
        late = await table.next_mail(who, lambda m: f"{seat} is late" in str(m["Subject"]))
        assert "The game waits for them" in text_of(late)
        assert ("force" in text_of(late)) == (who == GM)  # the game master's options
    mine = await table.next_mail(seat, lambda m: "is late" in str(m["Subject"]))
    assert "You are late" in text_of(mine)
    assert table.times_late(seat) == 1
    assert table.acting() == seat  # nobody moved for them
    # A day later only the late player is reminded, once.
    await table.advance(hours=24, minutes=1)
    again = await table.next_mail(seat, lambda m: "you are late" in str(m["Subject"]))
    assert "You are late" in text_of(again)
    await asyncio.sleep(0.5)
    for who in [GM, *others]:
        await table.inboxes.refresh(table.address(who))
        assert table.since_checkpoint(who) == []
    assert len([m for m in table.since_checkpoint(seat) if "late" in str(m["Subject"])]) == 1
    assert table.times_late(seat) == 1  # one late turn, however many reminders


async def test_under_the_pass_policy_a_late_player_passes(table: Table) -> None:
    sent = await table.send(GM, "set timeout pass\n")
    answer = await table.answer_to(GM, sent)
    assert "timeout policy set to pass" in text_of(answer)
    seat = table.acting()
    before = table.game().next_move
    await table.advance(hours=72, minutes=1)
    report = await table.next_mail(GM, lambda m: "did not move by the deadline" in text_of(m))
    text = text_of(report)
    assert f"{seat} did not move by the deadline" in text and "timeout policy `pass`" in text
    game = table.game()
    assert game.next_move > before and game.turn() is not None
    assert game.log[before].seat == seat and type(game.log[before].action).__name__ == "Pass"
    assert table.acting() != seat
    assert table.times_late(seat) == 1
    assert "At the deadline: pass" in text


# -- absence, pause, downtime -----------------------------------------------------------------


async def test_an_absence_window_stops_the_players_clock_and_is_announced(table: Table
                                                                          ) -> None:
    seat = table.acting()
    await table.checkpoint()
    # Away from tomorrow (24 Nov) to 28 Nov inclusive: five days in which the clock
    # stops; one day of the three had run before it.
    sent = await table.send(seat, "away 2026-11-24 to 2026-11-28\n")
    answer = await table.answer_to(seat, sent)
    assert "noted: you are away from 2026-11-24 to 2026-11-28" in text_of(answer)
    expected = START + 72 * HOUR + 5 * 24 * HOUR
    assert deadline_of(answer) == expected
    assert "must move by Tue 1 Dec 2026 12:00 UTC" in text_of(answer)
    for other in [GM, *(s for s in PLAYERS if s != seat)]:
        told = await table.next_mail(other, lambda m: "is away from" in text_of(m))
        assert f"{seat} is away from 2026-11-24 to 2026-11-28" in text_of(told)
    # The old deadline passes: nobody is late.
    await table.advance(hours=72, minutes=5)
    await asyncio.sleep(0.6)
    for who in [GM, *PLAYERS]:
        await table.inboxes.refresh(table.address(who))
        assert not any("late" in str(m["Subject"]) for m in table.since_checkpoint(who))
    assert table.times_late(seat) == 0
    # The new one does not.
    table.clock.now = expected + 60
    late = await table.next_mail(GM, lambda m: f"{seat} is late" in str(m["Subject"]))
    assert "Tue 1 Dec 2026 12:00 UTC" in text_of(late)


async def test_absence_windows_are_limited(table: Table) -> None:
    seat = table.acting()
    sent = await table.send(seat, "away 2026-11-24 to 2026-12-20\n")
    answer = await table.answer_to(seat, sent)
    assert "refused" in str(answer["Subject"]) and "15 days" in text_of(answer)
    sent = await table.send(seat, "away 2026-11-01 to 2026-11-05\n")
    answer = await table.answer_to(seat, sent)
    assert "refused" in str(answer["Subject"]) and "ended" in text_of(answer)
    for start in ("2026-12-01", "2026-12-05", "2026-12-09"):
        sent = await table.send(seat, f"away {start} to {start}\n")
        assert "noted" in text_of(await table.answer_to(seat, sent))
    sent = await table.send(seat, "away 2026-12-20 to 2026-12-21\n")
    answer = await table.answer_to(seat, sent)
    assert "the limit is 3" in text_of(answer)


async def test_pause_refuses_orders_and_resume_extends_the_deadline(table: Table) -> None:
    seat = table.acting()
    await table.advance(hours=10)
    sent = await table.send(GM, "pause\n")
    assert "the game is paused" in text_of(await table.answer_to(GM, sent))
    told = await table.next_mail(seat, lambda m: "has paused the game" in text_of(m))
    assert "The game is paused: no deadline runs" in text_of(told)
    sent = await table.send(seat, "pass\n")
    answer = await table.answer_to(seat, sent)
    assert "paused" in text_of(answer) and "refused" in str(answer["Subject"])
    assert table.game().next_move == 0
    # Five days of pause: no reminder, nobody late.
    await table.advance(days=5)
    await asyncio.sleep(0.6)
    await table.inboxes.refresh(table.address(seat))
    assert table.since_checkpoint(seat) == []
    sent = await table.send(GM, "resume\n")
    answer = await table.answer_to(GM, sent)
    assert "the game is resumed" in text_of(answer)
    # 10 h had run before the pause: 62 h remain after it.
    report = await table.next_mail(seat, lambda m: "has resumed the game" in text_of(m))
    assert deadline_of(report) == START + (10 + 120 + 62) * HOUR


async def test_deadlines_that_ran_out_while_the_service_was_down_are_extended(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05},
                                   moderator={"tick_interval": 0.05})
    clock = FakeClock(START)
    inboxes = Inboxes(mail_servers)
    try:
        async with running_daemon(config, clock):
            game_id = await set_up(mail_servers, inboxes)
            await asyncio.sleep(0.2)  # the clock has been looked at
        table = Table(mail_servers, config, inboxes, clock, game_id)
        seat = table.acting()
        await table.advance(hours=80)  # down past the deadline
        async with running_daemon(config, clock):
            # Extended as the daemon starts (however long a loaded machine makes that
            # take), before its first tick; then some ticks, in which nobody is late.
            extended = START + 72 * HOUR + 80 * HOUR
            limit = time.monotonic() + MAIL_PATIENCE
            while (deadline := table.deadline()) != extended and time.monotonic() < limit:
                await asyncio.sleep(0.05)
            assert deadline == extended
            await asyncio.sleep(0.8)
            for who in [GM, *PLAYERS]:
                await inboxes.refresh(table.address(who))
                assert not any("late" in str(m["Subject"])
                               for m in table.since_checkpoint(who))
            assert table.times_late(seat) == 0
            # Running, the clock counts again.
            await table.advance(hours=72, minutes=1)
            await table.next_mail(GM, lambda m: f"{seat} is late" in str(m["Subject"]))
    finally:
        await inboxes.close()


# -- mistakes and disputes ------------------------------------------------------------------


async def test_a_player_undoes_their_own_last_submission(table: Table) -> None:
    seat = table.acting()
    before = table.game()
    await table.move()
    assert table.game().next_move == 1
    await table.checkpoint()
    sent = await table.send(seat, "undo\n")
    answer = await table.answer_to(seat, sent)
    assert "your moves 0-0 are taken back" in text_of(answer), text_of(answer)
    game = table.game()
    assert game.next_move == 2  # the undo is logged; the move stays in the log
    assert type(game.log[1].action).__name__ == "Undo"
    assert game.turn() == before.turn() and game.scores() == before.scores()
    for who in [GM, *(s for s in PLAYERS if s != seat)]:
        told = await table.next_mail(who, lambda m: "were taken back" in text_of(m))
        assert "Moves 0-0 were taken back:\n  #0 " + seat in text_of(told)
    # Once someone else has acted, the player may not undo.
    await table.move(seat)
    other = table.acting()
    await table.move(other)
    sent = await table.send(seat, "undo\n")
    answer = await table.answer_to(seat, sent)
    assert "refused" in str(answer["Subject"])
    assert "someone has acted since your last submission" in text_of(answer)
    assert table.game().next_move == 4


async def test_the_game_master_undoes_to_a_move(table: Table) -> None:
    for _ in range(3):
        await table.move()
    game = table.game()
    assert game.next_move == 3
    first = game.log[1].seat
    await table.checkpoint()
    sent = await table.send(GM, "undo to move 1\n")
    answer = await table.answer_to(GM, sent)
    assert "the game master takes back moves 1-2" in text_of(answer)
    after = table.game()
    assert after.next_move == 4 and after.turn() is not None and after.turn().seat == first
    assert after.scores() == Game(game.setup, game.log[:1]).scores()
    for seat in PLAYERS:
        told = await table.next_mail(seat, lambda m: "Moves 1-2 were taken back" in text_of(m))
        assert "#1 " in text_of(told) and "#2 " in text_of(told)
    # Only the game master may.
    sent = await table.send(first, "undo to move 0\n")
    answer = await table.answer_to(first, sent)
    assert "only the game master may `undo to`" in text_of(answer)


async def test_the_game_master_forces_an_order_for_a_seat(table: Table) -> None:
    seat = table.acting()
    sent = await table.send(GM, f"force {seat}: pass\n")
    answer = await table.answer_to(GM, sent)
    assert f"forced by the game master for {seat}" in text_of(answer)
    game = table.game()
    assert game.log[0].seat == seat and type(game.log[0].action).__name__ == "Pass"
    assert game.turn() is not None and game.turn().seat != seat


async def test_a_replaced_player_hands_the_seat_over(table: Table) -> None:
    await table.move()
    seat = table.acting()
    newcomer = "dan@example.org"
    await table.checkpoint()
    sent = await table.send(GM, f"replace {seat} with {newcomer}\n")
    answer = await table.answer_to(GM, sent)
    assert f"{newcomer} is invited to take over {seat}" in text_of(answer)
    goodbye = await table.next_mail(seat, lambda m: "you were replaced" in str(m["Subject"]))
    assert newcomer not in text_of(goodbye)  # nobody but the game master learns it
    invitation = await table.inboxes.wait(newcomer, lambda m: m["X-Moderator-Game"] ==
                                          table.game_id)
    assert f"take over the seat {seat}" in text_of(invitation)
    await reply_to(table.servers, newcomer, invitation, "join\n")
    welcome = await table.inboxes.wait(newcomer, lambda m: "you joined" in text_of(m))
    assert "#0 " in text_of(welcome)  # the seat's history comes with it
    assert "<-- your turn" in text_of(welcome)
    for other in PLAYERS.values():
        await table.inboxes.refresh(other)
        assert all(newcomer not in text_of(m) for m in table.inboxes.messages(other))
    # The old address no longer moves the seat; the new one does.
    sent = await reply_to(table.servers, PLAYERS[seat], goodbye, "pass\n")
    await asyncio.sleep(0.5)
    assert table.game().next_move == 1
    orders = opening_orders(table.game())
    sent = await reply_to(table.servers, newcomer, welcome, "\n".join(orders) + "\n")
    answer = await table.inboxes.wait(newcomer, lambda m: m["In-Reply-To"] == sent)
    assert "Applied." in text_of(answer)
    assert table.game().log[1].seat == seat


# -- less typing ----------------------------------------------------------------------------


def seats_in_turn_order(game: Game) -> list[str]:
    turn = game.turn()
    assert turn is not None
    seats = list(game.setup.seats)
    at = seats.index(turn.seat)
    return seats[at:] + seats[:at]


def cheapest_private(game: Game) -> str:
    return next(o.split(" (")[0] for o in game.legal() if o.startswith("buy ") and "(for $" in o)


async def test_orders_sent_ahead_are_applied_when_the_turn_comes(table: Table) -> None:
    first, second, third = seats_in_turn_order(table.game())
    sent = await table.send(third, "pass\n")
    answer = await table.answer_to(third, sent)
    assert "held: it is" in text_of(answer) and f"{first}'s turn" in text_of(answer)
    assert table.game().next_move == 0
    await table.move(first)
    assert table.game().next_move == 1  # not yet: it is the second player's turn
    await table.checkpoint()
    await table.move(second)
    game = table.game()
    assert game.next_move == 3  # the third player's pass followed at once
    assert game.log[2].seat == third and type(game.log[2].action).__name__ == "Pass"
    for who in [GM, first]:
        told = await table.next_mail(who, lambda m: f"{third}'s orders sent ahead" in
                                     text_of(m))
        assert "#2 " + third in text_of(told)


async def test_orders_sent_ahead_that_are_no_longer_legal_are_refused(table: Table) -> None:
    first, second, third = seats_in_turn_order(table.game())
    private = cheapest_private(table.game())
    sent = await table.send(second, f"{private}\n")
    assert "held" in text_of(await table.answer_to(second, sent))
    await table.checkpoint()
    sent = await table.send(first, f"{private}\n")  # the first player buys it first
    assert "Applied." in text_of(await table.answer_to(first, sent))
    refused = await table.next_mail(second, lambda m: "your orders sent ahead" in
                                    str(m["Subject"]))
    assert "the orders you sent ahead are no longer legal" in text_of(refused)
    assert f"{private}\n^^^" in text_of(refused)
    assert "Nothing was applied" in text_of(refused)
    game = table.game()
    assert game.next_move == 1 and game.turn() is not None and game.turn().seat == second
    # Everyone's report says so in a line.
    report = await table.next_mail(third, lambda m: "were no longer legal" in text_of(m))
    assert f"{second}'s orders sent ahead were no longer legal" in text_of(report)


async def test_auto_pass_passes_until_something_concerns_the_player(table: Table) -> None:
    first, second, third = seats_in_turn_order(table.game())
    await table.move(first)
    sent = await table.send(second, "auto pass\npass\n")
    answer = await table.answer_to(second, sent)
    assert "you pass for the rest of Stock Round 1" in text_of(answer)
    await table.move(third)
    # The private sale of stock round 1: everyone keeps buying until the privates are
    # sold; the second player passes each time without a mail.
    for _ in range(6):
        game = table.game()
        if not game.round_name.startswith("Stock Round 1"):
            break
        turn = game.turn()
        assert turn is not None and turn.seat != second, game.log[-3:]
        await table.move()
    game = table.game()
    auto = [m for m in game.log[3:] if m.seat == second]
    assert auto and all(type(m.action).__name__ == "Pass" for m in auto)
    store = table.store
    actors = {r[0] for r in store.execute(
        "SELECT actor FROM moves WHERE game_id = ? AND seat = ? AND number > 3",
        [table.game_id, second])}
    store.close()
    assert actors == {"moderator"}


# -- preferences ----------------------------------------------------------------------------


async def test_preferences_text_mail_digest_reports_and_time_zone(table: Table) -> None:
    first, second, third = seats_in_turn_order(table.game())
    sent = await table.send(third, "set format text\nset reports digest\n"
                                   "set timezone america/new_york\n")
    answer = await table.answer_to(third, sent)
    text = text_of(answer)
    assert "format set to text" in text and "reports set to digest" in text
    assert "timezone set to America/New_York" in text
    # Text only: no HTML part; no picture either, the position being the one the
    # reader's last report showed ...
    assert not [p for p in answer.walk() if p.get_content_type() == "text/html"]
    assert "The map is as in your last report" in text
    # The deadline in the reader's zone.
    assert f"{first} must move by Thu 26 Nov 2026 07:00 EST" in text
    # ... and the map asked for comes attached.
    sent = await table.send(third, "map\n")
    answer = await table.answer_to(third, sent)
    assert answer.get_content_type() == "multipart/mixed"
    assert not [p for p in answer.walk() if p.get_content_type() == "text/html"]
    assert any(k.endswith(".png") for k in attachments(answer))
    # Digest: no report for the first player's move (same round, not their turn) ...
    await table.checkpoint()
    await table.move(first)
    await table.next_mail(GM, lambda m: m["X-Moderator-Move"] == "1")
    await asyncio.sleep(0.3)
    await table.inboxes.refresh(table.address(third))
    assert table.since_checkpoint(third) == []
    # ... but one when it is their turn, with everything since their last report.
    await table.move(second)
    mine = await table.next_mail(third, lambda m: m["X-Moderator-Move"] == "2")
    assert "#0 " + first in text_of(mine) and "#1 " + second in text_of(mine)
    assert "<-- your turn" in text_of(mine)
    assert deadline_of(mine) > 0  # their own move: the calendar event comes along


# -- deals between players ---------------------------------------------------------------------


async def test_a_private_sale_offer_expires_at_the_proposers_deadline(table: Table) -> None:
    while not table.game().round_name.startswith("Stock Round 2"):
        await table.move()
    game = table.game()
    owners = {p.owner: p.sym for p in game.state.privates.values()
              if p.owner in PLAYERS and not p.closed}
    while table.acting() not in owners:
        await table.move()  # `pass` until a private owner is to act
    seller = table.acting()
    private = owners[seller]
    buyer = next(s for s in PLAYERS if s != seller)
    await table.advance(hours=10)
    sent = await table.send(seller, f"sell {private} to {buyer} for 20\n")
    answer = await table.answer_to(seller, sent)
    assert "Applied." in text_of(answer), text_of(answer)
    offer = await table.next_mail(buyer, lambda m: "<-- your turn" in text_of(m))
    assert f"answer {seller}'s offer" in text_of(offer)
    # The offer runs out with the seller's time: 62 hours from now, not 72.
    assert deadline_of(offer) == table.clock.now + 62 * HOUR
    await table.advance(hours=62, minutes=1)
    told = await table.next_mail(seller, lambda m: "expired unanswered" in text_of(m))
    assert f"the offer to {buyer} expired unanswered" in text_of(told)
    game = table.game()
    assert game.state.privates[private].owner == seller
    assert game.turn() is not None and game.turn().seat == seller
    assert table.times_late(buyer) == 0  # an unanswered offer is not lateness
    # A second offer, accepted by mail.
    sent = await table.send(seller, f"sell {private} to {buyer} for 20\n")
    await table.answer_to(seller, sent)
    sent = await table.send(buyer, "accept\n")
    assert "Applied." in text_of(await table.answer_to(buyer, sent))
    assert table.game().state.privates[private].owner == buyer


# -- leaving and ending ----------------------------------------------------------------------


async def test_a_resigned_seat_is_played_by_its_conservative_default(table: Table) -> None:
    first, second, third = seats_in_turn_order(table.game())
    await table.checkpoint()
    sent = await table.send(second, "resign\n")
    assert "you have resigned" in text_of(await table.answer_to(second, sent))
    told = await table.next_mail(GM, lambda m: f"{second} has resigned" in text_of(m))
    assert f"replace {second} with ADDRESS" in text_of(told)
    await table.move(first)
    game = table.game()
    assert game.log[1].seat == second and type(game.log[1].action).__name__ == "Pass"
    assert game.turn() is not None and game.turn().seat == third
    report = await table.next_mail(third, lambda m: "<-- your turn" in text_of(m))
    assert f"{second} has resigned; the moderator played" in text_of(report)


async def test_a_game_from_create_to_final_scores_by_mail(table: Table) -> None:
    for _ in range(4):
        await table.move()
    await table.checkpoint()
    sent = await table.send(GM, "end game\n")
    answer = await table.answer_to(GM, sent)
    assert "the game ends now" in text_of(answer)
    game = table.game()
    scores = game.scores()
    for who in [GM, *PLAYERS]:
        final = await table.next_mail(who, lambda m: "Final scores" in text_of(m))
        text = text_of(final)
        # Over on the game master's word: no "to move" and no list of orders (issue 32).
        assert "game over" in str(final["Subject"]) and "to move" not in str(final["Subject"])
        for seat, score in scores.items():
            assert f"  {seat:<16} {score:>6}" in text
        files = attachments(final)
        history = files[f"{table.game_id}-history.txt"].decode()
        assert history.count("\n") == game.next_move
        assert history.startswith("#0 ")
        record = json.loads(files[f"{table.game_id}.json"])
        # The record reads back into the same game.
        imported = import_record(record).game
        assert [m.action for m in imported.log] == [m.action for m in game.log]
        assert imported.scores() == scores
    # No more orders.
    sent = await table.send(table.acting(), "pass\n")
    answer = await table.answer_to(table.acting(), sent)
    assert "the game has ended" in text_of(answer)
    assert table.game().next_move == game.next_move


# -- the game master's settings, reading the game, several games -----------------------------


async def test_set_deadline_changes_the_running_turn_and_is_announced(table: Table) -> None:
    seat = table.acting()
    await table.checkpoint()
    sent = await table.send(GM, "set deadline 48h\n")
    answer = await table.answer_to(GM, sent)
    assert "deadline set to 2 days per turn" in text_of(answer)
    report = await table.next_mail(seat, lambda m: "The time per turn is now 2 days" in
                                   text_of(m))
    assert deadline_of(report) == START + 48 * HOUR
    sent = await table.send(GM, "set deadline 10m\n")
    answer = await table.answer_to(GM, sent)
    assert "between 1 hour and 30 days" in text_of(answer)
    assert "refused" in str(answer["Subject"])


async def test_status_legal_and_history_by_mail(table: Table) -> None:
    await table.move()
    await table.move()
    seat = table.acting()
    sent = await table.send(seat, "history 5\nlegal\nstatus\n")
    answer = await table.answer_to(seat, sent)
    text = text_of(answer)
    game = table.game()
    assert "The last 2 moves" in text and f"#0 {game.log[0].seat}" in text
    assert f"What {seat} may do now" in text
    for option in game.legal()[:3]:
        assert option in text
    assert "the full report follows" in text and "Players" in text
    assert table.game().next_move == 2  # reading changes nothing


async def test_two_games_in_one_mailbox_keep_apart(table: Table) -> None:
    await send_mail(table.servers, GM, MODERATOR, "another", "create game 1851 seed=3\n")
    created = await table.inboxes.wait(GM, lambda m: "game created" in str(m["Subject"])
                                       and m["X-Moderator-Game"] != table.game_id)
    other = str(created["X-Moderator-Game"])
    assert other.startswith("1851-") and other != table.game_id
    await table.move()
    # The first game's clock runs alone: the second has not started.
    await table.advance(hours=72, minutes=1)
    late = await table.next_mail(GM, lambda m: "is late" in str(m["Subject"]))
    assert late["X-Moderator-Game"] == table.game_id
    store = table.store
    assert store.clock(other) is None and store.clock(table.game_id) is not None
    store.close()


def calendar_of(message: EmailMessage) -> icalendar.Calendar | None:
    found = [v for k, v in attachments(message).items() if k.endswith(".ics")]
    return icalendar.Calendar.from_ical(found[0]) if found else None


async def test_one_calendar_event_per_seat_updated_and_cancelled(table: Table) -> None:
    """Issue 19, defect 4: a seat's deadline is one event per game (one UID), cancelled
    when the turn passes and sent again with a higher SEQUENCE when it comes back."""
    seat = table.acting()
    first = calendar_of(table.inboxes.latest(table.address(seat)))
    assert first is not None and first["METHOD"] == "PUBLISH"
    event = next(iter(first.walk("VEVENT")))
    uid, sequence = str(event["UID"]), int(event["SEQUENCE"])
    sent = await table.move(seat)
    answer = await table.answer_to(seat, sent)
    cancel = calendar_of(answer)
    assert cancel is not None and cancel["METHOD"] == "CANCEL"
    cancelled = next(iter(cancel.walk("VEVENT")))
    assert str(cancelled["UID"]) == uid and int(cancelled["SEQUENCE"]) > sequence
    assert str(cancelled["STATUS"]) == "CANCELLED"
    while table.acting() != seat:
        await table.move()
    now = table.game().next_move
    report = await table.inboxes.wait(table.address(seat),
                                      lambda m: m["X-Moderator-Move"] == str(now))
    again = calendar_of(report)
    assert again is not None and again["METHOD"] == "PUBLISH"
    renewed = next(iter(again.walk("VEVENT")))
    assert str(renewed["UID"]) == uid
    assert int(renewed["SEQUENCE"]) > int(cancelled["SEQUENCE"])
