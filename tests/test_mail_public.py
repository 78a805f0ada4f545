"""A public address under abuse, by mail through the real servers and the real daemon
(issue 14, items 2-5): no spam relay, no silencing of a player, no leaked addresses,
no stale or copied orders applied. Every test ends by checking that an ordinary mail
after the abuse is still answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from email.message import EmailMessage

import pytest
import pytest_asyncio
from mailservers import (
    Inboxes,
    assert_no_mail,
    daemon_settings,
    reply_to,
    running_daemon,
    seat_address,
    seat_game,
    send_mail,
    text_of,
)

from moderator import service
from moderator.config import Config
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"
STRANGER = "someone@elsewhere.test"


PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


@dataclass
class Seated:
    """A started 18TN game in the daemon's store, seated by PLAYERS."""

    config: Config
    game_id: str
    store: Store
    to_move: str  # the seat whose turn it is

    def address_of(self, seat: str) -> str:
        """Where SEAT's own mail goes: the moderator's address tagged with its token."""
        return seat_address(self.config, self.game_id, seat)


def seated(config: Config) -> Seated:
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    turn = store.load(game_id).turn()
    assert turn is not None
    return Seated(config, game_id, store, turn.seat)


def limits(**moderator: object) -> dict[str, dict[str, object]]:
    return {"imap": {"idle": False, "poll_interval": 0.05}, "moderator": dict(moderator)}


@pytest_asyncio.fixture
async def inboxes(mail_servers: LocalMail) -> AsyncIterator[Inboxes]:
    boxes = Inboxes(mail_servers)
    yield boxes
    await boxes.close()


async def still_answered(servers: LocalMail, inboxes: Inboxes, sender: str) -> None:
    """An ordinary `help` after the abuse gets its answer."""
    await send_mail(servers, sender, MODERATOR, "a question", "help\n")
    answer = await inboxes.wait(sender, lambda m: "Topics" in text_of(m))
    assert "refused" not in str(answer["Subject"])


def subject_has(text: str):  # type: ignore[no-untyped-def]
    return lambda m: text in str(m["Subject"])


def body_has(text: str):  # type: ignore[no-untyped-def]
    return lambda m: text in text_of(m)


# -- 2. spam relay -------------------------------------------------------------------------


async def test_a_new_address_creates_a_few_games_a_day_and_is_told_why_not_more(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits(games_per_day=2))
    async with running_daemon(config):
        # One mail asking for five games (one mail once made 500): the same line five
        # times asks once (issue 31, 11).
        await send_mail(mail_servers, STRANGER, MODERATOR, "games",
                        "create game 18TN\n" * 5)
        await inboxes.wait(STRANGER, subject_has("game created"))
        # Two different games in one mail: neither (one `create game` a mail).
        await send_mail(mail_servers, STRANGER, MODERATOR, "two",
                        "create game 1850\ncreate game 1851\n")
        await inboxes.wait(STRANGER, body_has("asked for 2 `create game` lines"))
        await send_mail(mail_servers, STRANGER, MODERATOR, "one more", "create game 1851\n")
        await inboxes.wait(STRANGER, lambda m: len([
            x for x in inboxes.messages(STRANGER) if "game created" in str(x["Subject"])])
            >= 2)
        # The day's cap: the third game is refused, with why.
        await send_mail(mail_servers, STRANGER, MODERATOR, "third", "create game 1850\n")
        refusal = await inboxes.wait(STRANGER, body_has("at most 2 games a day"))
        assert "try again tomorrow" in text_of(refusal)
        await still_answered(mail_servers, inboxes, STRANGER)
    store = Store(config.moderator.database)
    assert store.execute("SELECT COUNT(*) FROM mail_games") == [(2,)]
    created = [m for m in inboxes.messages(STRANGER) if "game created" in str(m["Subject"])]
    refused = [m for m in inboxes.messages(STRANGER)
               if "at most 2 games a day" in text_of(m)]
    assert len(created) == 2 and len(refused) == 1


async def test_invitations_are_capped_sent_once_and_refusals_say_why(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits(invitations_per_game=3,
                                                          invitations_per_day=3))
    async with running_daemon(config):
        await send_mail(mail_servers, GM, MODERATOR, "new", "create game 18TN\n")
        created = await inboxes.wait(GM, subject_has("[18TN-1] game created"))
        await reply_to(mail_servers, GM, created,
                       "invite ann@example.org as Ann\ninvite bob@example.org as Bob\n")
        await inboxes.wait("ann@example.org", subject_has("invitation"))
        report = await inboxes.wait(GM, body_has("invitation sent to bob@example.org"))
        # The same address again: refused, and Ann gets no second invitation.
        await reply_to(mail_servers, GM, report, "invite ann@example.org as Ann\n")
        again = await inboxes.wait(GM, body_has("was invited to 18TN-1 before"))
        # The game's cap: a third is fine, a fourth is not (the whole mail is refused).
        await reply_to(mail_servers, GM, again, "invite cy@example.org as Cy\n"
                                                "invite dee@example.org as Dee\n")
        capped = await inboxes.wait(GM, body_has("as many as a game may"))
        assert "refused" in str(capped["Subject"])
        # The day's cap, across games: the third is fine, the fourth is not.
        await send_mail(mail_servers, GM, MODERATOR, "another", "create game 1851\n")
        second = await inboxes.wait(GM, subject_has("[1851-1] game created"))
        await reply_to(mail_servers, GM, second, "invite cy@example.org as Cy\n")
        ok = await inboxes.wait(GM, subject_has("[1851-1] set-up"))
        assert "invitation sent to cy@example.org" in text_of(ok)
        await reply_to(mail_servers, GM, ok, "invite dee@example.org as Dee\n")
        await inboxes.wait(GM, body_has("invitations today"))
        await still_answered(mail_servers, inboxes, GM)
    await assert_no_mail(mail_servers, "dee@example.org", within=0.3)
    anns = [m for m in inboxes.messages("ann@example.org") if "invitation" in str(m["Subject"])]
    assert len(anns) == 1
    store = Store(config.moderator.database)
    assert store.execute("SELECT COUNT(*) FROM invitations") == [(3,)]


async def test_stop_ends_all_mail_for_good_and_every_mail_offers_it(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits())
    ann = "ann@example.org"
    async with running_daemon(config):
        await send_mail(mail_servers, GM, MODERATOR, "new", "create game 18TN\n")
        created = await inboxes.wait(GM, subject_has("[18TN-1] game created"))
        await reply_to(mail_servers, GM, created, f"invite {ann} as Ann\n")
        invitation = await inboxes.wait(ann, subject_has("invitation"))
        link = unsubscribe_address(invitation)
        assert link != unsubscribe_address(created)  # each reader's own
        assert f"write `stop` to {link}" in text_of(invitation).replace("\n", " ")
        # Ann never asked for this: she follows the List-Unsubscribe link, whose mail
        # program writes to her own unsubscribe address (with whatever body it likes).
        await send_mail(mail_servers, ann, link, "stop", "unsubscribe me\n")
        confirmed = await inboxes.wait(ann, body_has("this is the last mail"))
        assert ann in text_of(confirmed)
        # A new invitation to her is refused to the game master, and she gets nothing.
        await send_mail(mail_servers, GM, MODERATOR, "again", "create game 1851\n")
        second = await inboxes.wait(GM, subject_has("[1851-1] game created"))
        await reply_to(mail_servers, GM, second, f"invite {ann} as Ann\n")
        await inboxes.wait(GM, body_has("never to mail it (`stop`)"))
        # Not even an answer to her own mail.
        await send_mail(mail_servers, ann, MODERATOR, "help?", "help\n")
        await still_answered(mail_servers, inboxes, GM)
    count = len(inboxes.messages(ann))
    await inboxes.refresh(ann)
    assert len(inboxes.messages(ann)) == count == 2  # the invitation and the confirmation


def unsubscribe_address(mail: EmailMessage) -> str:
    header = str(mail["List-Unsubscribe"]).strip()
    assert header.startswith("<mailto:") and header.endswith("?subject=stop>"), header
    return header.removeprefix("<mailto:").removesuffix("?subject=stop>")


async def test_a_forged_stop_cannot_cut_anyone_off(mail_servers: LocalMail,
                                                   inboxes: Inboxes) -> None:
    """Neither a player in a game nor an invited player who has not joined yet."""
    config = await daemon_settings(mail_servers, **limits())
    players = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
    game_id = seat_game(config, players)
    async with running_daemon(config):
        await send_mail(mail_servers, players["Bob"], MODERATOR, "stop", "stop\n")
        told = await inboxes.wait(players["Bob"], body_has("to be sure"))
        assert "write `stop` to" in text_of(told)
        # An invitee: the forger writes `stop` in her name; she still joins and plays.
        await send_mail(mail_servers, GM, MODERATOR, "new", "create game 1851\n")
        created = await inboxes.wait(GM, subject_has("game created"))
        await reply_to(mail_servers, GM, created, "invite dee@example.org as Dee\n")
        invitation = await inboxes.wait("dee@example.org", subject_has("invitation"))
        await send_mail(mail_servers, "dee@example.org", MODERATOR, "stop", "stop\n")
        await inboxes.wait("dee@example.org", body_has("to be sure"))
        await reply_to(mail_servers, "dee@example.org", invitation, "join\n")
        await inboxes.wait("dee@example.org", body_has("you joined"))
        # Bob's own status request (carrying his token) is answered with the report.
        await send_mail(mail_servers, players["Bob"], seat_address(config, game_id, "Bob"),
                        f"[{game_id}]", "status\n")
        await inboxes.wait(players["Bob"], lambda m: m.get("X-Moderator-Move") == "0")
    store = Store(config.moderator.database)
    assert not store.opted_out(players["Bob"]) and not store.opted_out("dee@example.org")


# -- 3. silencing ----------------------------------------------------------------------------


async def test_forged_mail_cannot_use_up_a_players_answers(mail_servers: LocalMail,
                                                           inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits(replies_per_hour=5))
    players = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
    game_id = seat_game(config, players)
    ann = players["Ann"]
    async with running_daemon(config):
        for number in range(12):  # forged: Ann's address, no token
            await send_mail(mail_servers, ann, MODERATOR, f"[{game_id}] forged {number}",
                            "pass\n")
        await inboxes.wait(ann, lambda m: len(inboxes.messages(ann)) >= 5)
        await assert_no_mail(mail_servers, "nobody@example.org", within=1.0)  # let it settle
        refused = len(inboxes.messages(ann))
        # Her own mail, with her token, is answered whatever the budget says, and tells
        # her what was held back.
        await send_mail(mail_servers, ann, seat_address(config, game_id, "Ann"),
                        f"[{game_id}]", "status\n")
        report = await inboxes.wait(ann, lambda m: m.get("X-Moderator-Move") == "0")
        assert "7 mails from this address (or sent in its name) were not answered" in \
            text_of(report)
    assert refused == 5


# -- 4. leaks --------------------------------------------------------------------------------


async def test_only_the_game_master_sees_addresses(mail_servers: LocalMail,
                                                   inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits())
    async with running_daemon(config):
        await send_mail(mail_servers, GM, MODERATOR, "new", "create game 18TN\n")
        created = await inboxes.wait(GM, subject_has("[18TN-1] game created"))
        await reply_to(mail_servers, GM, created,
                       "invite ann@example.org as Ann\ninvite bob@example.org as Bob\n")
        gm_view = await inboxes.wait(GM, body_has("invitation sent to bob@example.org"))
        assert "ann@example.org" in text_of(gm_view.get_body(("plain",)) or gm_view)
        # Observing needs the game master's consent; the observer and a player who
        # joins see the seats by name only.
        await send_mail(mail_servers, STRANGER, MODERATOR, "watch", "observe 18TN-1\n")
        asked = await inboxes.wait(STRANGER, body_has("they have been asked"))
        assert_no_addresses(asked, [GM])
        request = await inboxes.wait(GM, body_has(f"{STRANGER} asks to follow 18TN-1"))
        await reply_to(mail_servers, GM, request, f"invite {STRANGER} as observer\n")
        confirm = await inboxes.wait(STRANGER, subject_has("invitation to observe"))
        await reply_to(mail_servers, STRANGER, confirm, "join\n")
        watching = await inboxes.wait(STRANGER, body_has("you follow 18TN-1 now"))
        invitation = await inboxes.wait("ann@example.org", subject_has("invitation"))
        await reply_to(mail_servers, "ann@example.org", invitation, "join\n")
        joined = await inboxes.wait("ann@example.org", body_has("you joined 18TN-1"))
        for mail in (watching, joined):
            assert_no_addresses(mail, ["ann@example.org", "bob@example.org", GM])
            assert "Bob" in text_of(mail)
        await still_answered(mail_servers, inboxes, STRANGER)


def assert_no_addresses(mail: EmailMessage, addresses: list[str]) -> None:
    html = mail.get_body(("html",))
    parts = [text_of(mail), html.get_content() if isinstance(html, EmailMessage) else ""]
    for part in parts:
        for address in addresses:
            assert address not in part, part


# -- 5. stale and copied orders ----------------------------------------------------------------


async def test_move_n_holds_for_orders_sent_ahead(mail_servers: LocalMail,
                                                  inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits())
    table = seated(config)
    players, game_id, store = PLAYERS, table.game_id, table.store
    turn_seat = table.to_move
    first = turn_seat
    waiting = next(s for s in players if s != first)
    async with running_daemon(config):
        await send_mail(mail_servers, players[first], seat_address(config, game_id, first),
                        f"[{game_id}]", "pass\n")
        await inboxes.wait(players[waiting], lambda m: m.get("X-Moderator-Move") == "1")
        # Written against move 0, sent ahead of the turn: refused at once, not held.
        await send_mail(mail_servers, players[waiting],
                        seat_address(config, game_id, waiting), f"[{game_id}]",
                        "move 0\npass\n")
        stale = await inboxes.wait(players[waiting], body_has("written for move 0"))
        assert "refused" in str(stale["Subject"])
        await still_answered(mail_servers, inboxes, players[waiting])
    assert store.execute("SELECT COUNT(*) FROM held_orders") == [(0,)]


async def test_a_copy_of_an_applied_mail_is_not_applied_again(mail_servers: LocalMail,
                                                              inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits())
    table = seated(config)
    players, game_id, store = PLAYERS, table.game_id, table.store
    turn_seat = table.to_move
    seat = turn_seat
    address = players[seat]
    async with running_daemon(config):
        await send_mail(mail_servers, address, seat_address(config, game_id, seat),
                        f"[{game_id}]", "status\n")
        report = await inboxes.wait(address, lambda m: m.get("X-Moderator-Move") == "0")
        await reply_to(mail_servers, address, report, "buy TCC\n")
        await inboxes.wait(address, body_has("Applied."))
        moves = len(store.moves(game_id))
        # The same mail sent again with a new Message-ID, answering the same report.
        await reply_to(mail_servers, address, report, "buy TCC\n")
        copy = await inboxes.wait(address, body_has("it is not applied twice"))
        assert f"move {moves}" in text_of(copy)
        assert len(store.moves(game_id)) == moves
        await still_answered(mail_servers, inboxes, address)


async def test_a_courtesy_closing_does_not_cost_a_day(mail_servers: LocalMail,
                                                      inboxes: Inboxes) -> None:
    """Issue 19, defect 2, by mail: orders, a blank line, "Thanks!" and a name."""
    config = await daemon_settings(mail_servers, **limits())
    table = seated(config)
    players, game_id, store = PLAYERS, table.game_id, table.store
    turn_seat = table.to_move
    address = players[turn_seat]
    async with running_daemon(config):
        await send_mail(mail_servers, address, table.address_of(turn_seat),
                        f"[{game_id}]", f"buy TCC\n\nThanks!\n{turn_seat}\n")
        answer = await inboxes.wait(address, body_has("Applied."))
        assert "your closing, not an order" in text_of(answer)
        await send_mail(mail_servers, address, table.address_of(turn_seat),
                        f"[{game_id}]", "byu TCC\nThanks!\n")
        refused = await inboxes.wait(address, body_has("did you mean `buy`"))
        assert "refused" in str(refused["Subject"])
    assert len(store.moves(game_id)) == 1


async def test_an_order_that_can_never_be_held_is_refused_at_once(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """Issue 19, defect 3: an operating-round order sent ahead in a stock round."""
    config = await daemon_settings(mail_servers, **limits())
    table = seated(config)
    players, game_id, store = PLAYERS, table.game_id, table.store
    turn_seat = table.to_move
    waiting = next(s for s in players if s != turn_seat)
    async with running_daemon(config):
        await send_mail(mail_servers, players[waiting], seat_address(config, game_id, waiting),
                        f"[{game_id}]", "lay 57 at H5 rot 2\n")
        refused = await inboxes.wait(players[waiting], body_has("not a stock-round order"))
        assert "refused" in str(refused["Subject"])
        await still_answered(mail_servers, inboxes, players[waiting])
    assert store.execute("SELECT COUNT(*) FROM held_orders") == [(0,)]


async def test_requests_to_observe_cannot_flood_a_game_master(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """Review finding: `observe` mailed the game master once per request. Now: once per
    address and game, a few a day per game, one third-party mail per stranger's mail."""
    config = await daemon_settings(mail_servers, **limits())
    async with running_daemon(config):
        for title in ("18TN", "1851"):
            await send_mail(mail_servers, GM, MODERATOR, "new", f"create game {title}\n")
            await inboxes.wait(GM, subject_has(f"[{title}-1] game created"))
        # One mail asking to observe both games, three times over.
        await send_mail(mail_servers, STRANGER, MODERATOR, "watch",
                        "observe 18TN-1\nobserve 1851-1\nobserve 18TN-1\n")
        await inboxes.wait(STRANGER, body_has("more than one game"))
        # Five more strangers for 18TN-1: the game master hears of three in a day.
        for number in range(5):
            await send_mail(mail_servers, f"kibitz{number}@elsewhere.test", MODERATOR,
                            "watch", "observe 18TN-1\n")
        await inboxes.wait("kibitz4@elsewhere.test", body_has("as many requests"))
        await still_answered(mail_servers, inboxes, GM)
    requests = [m for m in inboxes.messages(GM) if "asks to follow" in text_of(m)]
    assert len(requests) == 3


async def test_a_late_copy_is_not_applied_or_held_again(mail_servers: LocalMail,
                                                         inboxes: Inboxes) -> None:
    """Review finding: a copy that arrives after others moved was held and applied."""
    config = await daemon_settings(mail_servers, **limits())
    table = seated(config)
    store, first = table.store, table.to_move
    async with running_daemon(config):
        await send_mail(mail_servers, PLAYERS[first], table.address_of(first),
                        f"[{table.game_id}]", "status\n")
        report = await inboxes.wait(PLAYERS[first], lambda m: m.get("X-Moderator-Move") == "0")
        await reply_to(mail_servers, PLAYERS[first], report, "pass\n")
        await inboxes.wait(PLAYERS[first], body_has("Applied."))
        second = store.load(table.game_id).turn()
        assert second is not None and second.seat != first
        await send_mail(mail_servers, PLAYERS[second.seat], table.address_of(second.seat),
                        f"[{table.game_id}]", "pass\n")
        await inboxes.wait(PLAYERS[second.seat], body_has("Applied."))
        moves = len(store.moves(table.game_id))
        # The copy of the first player's reply, answering the same report, comes late.
        await reply_to(mail_servers, PLAYERS[first], report, "pass\n")
        copy = await inboxes.wait(PLAYERS[first], body_has("it is not applied twice"))
        assert "refused" in str(copy["Subject"])
        await still_answered(mail_servers, inboxes, PLAYERS[first])
    assert len(store.moves(table.game_id)) == moves
    assert store.execute("SELECT COUNT(*) FROM held_orders") == [(0,)]


async def test_a_bid_in_an_auction_one_is_not_in_is_refused_at_once(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """Issue 19, defect 3: 18TN 3.1.1 -- an auction of a private is among those who bid
    on it; a bid sent ahead by anyone else, or on a private sold already, is refused
    with the reason. A bidder's own bid sent ahead is held."""
    from moderator.desk.orders import apply_submission

    config = await daemon_settings(mail_servers, **limits())
    game_id = seat_game(config, PLAYERS)
    store = Store(config.moderator.database)
    # Cy and Ann bid on the second private; Bob's purchase of the first puts it up for
    # auction between them, Cy to bid.
    for seat, order in (("Cy", "bid 45 on ETWCR"), ("Ann", "bid 50 on ETWCR"),
                        ("Bob", "buy TCC")):
        assert store.load(game_id).turn().seat == seat  # type: ignore[union-attr]
        assert apply_submission(store, game_id, seat, [order]).ok
    turn = store.load(game_id).turn()
    assert turn is not None and turn.seat == "Cy" and "auction" in turn.step
    async with running_daemon(config):
        await send_mail(mail_servers, PLAYERS["Bob"], seat_address(config, game_id, "Bob"),
                        f"[{game_id}]", "bid 60\n")
        refused = await inboxes.wait(PLAYERS["Bob"], body_has("takes no part"))
        assert "refused" in str(refused["Subject"])
        assert "among Ann, Cy only" in text_of(refused)
        await send_mail(mail_servers, PLAYERS["Bob"], seat_address(config, game_id, "Bob"),
                        f"[{game_id}]", "bid 30 on TCC\n")
        refused = await inboxes.wait(PLAYERS["Bob"], body_has("sold already (to Bob)"))
        assert "refused" in str(refused["Subject"])
        assert store.execute("SELECT COUNT(*) FROM held_orders") == [(0,)]
        await send_mail(mail_servers, PLAYERS["Ann"], seat_address(config, game_id, "Ann"),
                        f"[{game_id}]", "bid 60\n")
        await inboxes.wait(PLAYERS["Ann"], body_has("held: it is Cy's turn"))
    assert store.execute("SELECT seat FROM held_orders") == [("Ann",)]
