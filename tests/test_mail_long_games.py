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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from email.message import EmailMessage

import icalendar
import pytest
import pytest_asyncio
from mailservers import (
    FakeClock,
    Inboxes,
    assert_no_mail,
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
from moderator.localmail import LocalMail
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
                        timeout: float = 10.0) -> EmailMessage:
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
