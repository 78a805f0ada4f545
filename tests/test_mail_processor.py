"""The mail processor without servers: raw mails in, game moves and queued mail out.

Each test drives `Processor.receive` / `Processor.process` on a real SQLite store and
reads what the outbox holds, the way the daemon would send it.
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import opening_orders

from engine.game import Game
from moderator.desk.auth import make_token, read_tag
from moderator.desk.orders import run_submission
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.store import Store

MODERATOR = "moderator@example.org"
SECRET = "test-secret-0123456789abcdef"
GM = "gm@example.org"
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}


def parse(raw: bytes) -> EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


class Harness:
    """A store and a processor, and the mail each address has been sent."""

    def __init__(self, tmp_path: Path, **settings: object) -> None:
        self.store = Store(tmp_path / "moderator.sqlite")
        self.processor = Processor(self.store, ProcessorSettings(
            address=MODERATOR, secret=SECRET, **settings))  # type: ignore[arg-type]
        self.count = 0
        self.seen = 0

    def deliver(self, message: EmailMessage | bytes) -> str:
        raw = message if isinstance(message, bytes) else message.as_bytes()
        key, done = self.processor.receive(raw)
        if not done:
            self.processor.process(key)
        return key

    def mail(self, sender: str, body: str, *, to: str = MODERATOR, subject: str = "orders",
             headers: dict[str, str] | None = None) -> EmailMessage:
        self.count += 1
        message = EmailMessage()
        message["From"] = sender
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = f"<m{self.count}@test>"
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(body)
        return message

    def send(self, sender: str, body: str, **kwargs: object) -> EmailMessage:
        message = self.mail(sender, body, **kwargs)  # type: ignore[arg-type]
        self.deliver(message)
        return message

    def outbox(self, recipient: str | None = None) -> list[EmailMessage]:
        rows = self.store.execute("SELECT recipient, raw FROM outbox ORDER BY id")
        return [parse(bytes(raw)) for to, raw in rows if recipient in (None, to)]

    def new_mail(self) -> list[EmailMessage]:
        """The mail queued since the last call."""
        rows = self.store.execute("SELECT raw FROM outbox WHERE id > ? ORDER BY id",
                                  [self.seen])
        self.seen = self.store.execute("SELECT COALESCE(MAX(id), 0) FROM outbox")[0][0]
        return [parse(bytes(r[0])) for r in rows]

    def last_to(self, recipient: str) -> EmailMessage:
        rows = self.store.execute("SELECT raw FROM outbox WHERE recipient = ? "
                                  "ORDER BY id DESC LIMIT 1", [recipient])
        assert rows, f"no mail for {recipient}"
        return parse(bytes(rows[0][0]))

    def reply(self, sender: str, to_message: EmailMessage, body: str) -> EmailMessage:
        """What a mail program sends when SENDER answers TO_MESSAGE."""
        reply = self.mail(sender, body, to=str(to_message["Reply-To"]),
                          subject="Re: " + str(to_message["Subject"]))
        reply["In-Reply-To"] = str(to_message["Message-ID"])
        reply["References"] = f"{to_message.get('References', '')} {to_message['Message-ID']}"
        self.deliver(reply)
        return reply


def text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content()).replace("\r\n", "\n")


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def set_up_game(h: Harness, seed: int = 5) -> str:
    """create, invite three players, join, start: the game's id."""
    h.send(GM, f"create game 18TN seed={seed}")
    created = h.last_to(GM)
    game_id = str(created["X-Moderator-Game"])
    h.reply(GM, created, "\n".join(f"invite {a} as {s}" for s, a in PLAYERS.items()))
    for seat, address in PLAYERS.items():
        invitation = h.last_to(address)
        assert f"as {seat}" in text_of(invitation)
        h.reply(address, invitation, "join\n")
    h.reply(GM, h.last_to(GM), "start")
    return game_id


# -- set-up by mail -----------------------------------------------------------------------


def test_create_invite_join_start(harness: Harness) -> None:
    h = harness
    h.send(GM, "create game 18TN seed=5")
    created = h.last_to(GM)
    game_id = str(created["X-Moderator-Game"])
    assert game_id == "18TN-1"
    assert created["Subject"] == "[18TN-1] game created"
    # RFC 2919: each game's mail is a list of its own, for the players' filters.
    domain = MODERATOR.rpartition("@")[2]
    assert created["List-Id"] == f"18TN-1 <18tn-1.{domain}>"
    tag = read_tag(str(created["Reply-To"]).split("<")[-1].rstrip(">"), MODERATOR)
    assert tag is not None and tag.key == "gm"
    assert tag.token == make_token(SECRET, "18TN-1", "gm")
    assert created["Auto-Submitted"] == "auto-replied"

    h.reply(GM, created, "invite ann@example.org as Ann\ninvite bob@example.org as Bob\n"
            "invite cy@example.org as Cy\n")
    answer = text_of(h.last_to(GM))
    assert "invitation sent to bob@example.org for the seat Bob" in answer
    invitation = h.last_to("bob@example.org")
    assert invitation["Subject"] == "[18TN-1] invitation"
    assert "gm@example.org invites you to play 18TN" in text_of(invitation)

    h.reply(GM, h.last_to(GM), "start")
    assert "needs at least 3 players; 0 have joined" in text_of(h.last_to(GM))
    assert not h.store.has_game(game_id)

    for seat, address in PLAYERS.items():
        h.reply(address, h.last_to(address), "join")
        assert f"you joined 18TN-1 as {seat}" in text_of(h.last_to(address))
    assert "3 of 3 invited players have joined" in text_of(h.last_to(GM))

    h.new_mail()
    h.reply(GM, h.last_to(GM), "start")
    assert h.store.has_game(game_id)
    sent = {str(m["To"]): m for m in h.new_mail()}
    assert set(sent) == {GM, *PLAYERS.values()}
    game = h.store.load(game_id)
    first = game.turn()
    assert first is not None
    for message in sent.values():
        assert message["Subject"] == f"[18TN-1] SR 1: {first.seat} to move"
        assert "Stock Round 1" in text_of(message)
        assert message.get_body(preferencelist=("html",)) is not None
    assert "the game starts; seating order" in text_of(sent[GM])


def test_orders_by_reply_apply_and_report_to_everyone(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    game = h.store.load(game_id)
    turn = game.turn()
    assert turn is not None
    mover = PLAYERS[turn.seat]
    h.new_mail()
    h.reply(mover, h.last_to(mover), "move 0\nbuy TCC\n-- \nsent from my desk")
    mails = {str(m["To"]).split("<")[-1].rstrip(">"): m for m in h.new_mail()}
    assert set(mails) == {GM, *PLAYERS.values()}
    assert f"ok: {turn.seat} buys TCC for $20" in text_of(mails[mover])
    assert mails[mover]["Auto-Submitted"] == "auto-replied"
    for address, message in mails.items():
        assert message["X-Moderator-Move"] == "1"
        if address != mover:
            assert message["Auto-Submitted"] == "auto-generated"
            assert f"#0 {turn.seat}: {turn.seat} buys TCC for $20" in text_of(message)
    assert len(h.store.moves(game_id)) == 1


def test_forged_from_without_token_changes_nothing(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    victim = PLAYERS[turn.seat]
    h.new_mail()
    h.send(victim, "buy TCC", subject=f"[{game_id}] orders")
    assert h.store.moves(game_id) == []
    mails = h.new_mail()
    assert [str(m["To"]) for m in mails] == [victim]
    assert "did not carry your game password" in text_of(mails[0])
    # The notice carries the seat's token, so the real player can answer it.
    assert read_tag(str(mails[0]["Reply-To"]).split("<")[-1].rstrip(">"), MODERATOR)


def test_token_from_another_address_is_refused_and_the_seat_told(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    owner = PLAYERS[turn.seat]
    leaked = h.last_to(owner)
    h.new_mail()
    h.reply("mallory@evil.example", leaked, "buy TCC")
    assert h.store.moves(game_id) == []
    mails = h.new_mail()
    assert [str(m["To"]) for m in mails] == [owner, "mallory@evil.example"]
    assert "came from an address that is not" in text_of(mails[0])
    assert "mallory@evil.example" in text_of(mails[0])
    # The sender is told what to do (issue 14.6), never the seat's address.
    assert "is not registered" in text_of(mails[1]) and owner not in mails[1].as_string()


def test_password_line_and_subject_token_authenticate(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    token = make_token(SECRET, game_id, turn.seat)
    h.send(PLAYERS[turn.seat], f"password {token}\nbuy TCC\n", subject=f"[{game_id}]")
    assert len(h.store.moves(game_id)) == 1
    answer = text_of(h.last_to(PLAYERS[turn.seat]))
    assert "password ********" in answer and token not in answer.split("-- ")[0]


def test_same_message_twice_is_applied_once(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    mover = PLAYERS[turn.seat]
    report = h.last_to(mover)
    h.new_mail()
    reply = h.reply(mover, report, "buy TCC")
    queued = len(h.new_mail())
    h.deliver(reply)
    h.deliver(reply.as_bytes().replace(b"\n", b"\r\n"))  # same Message-ID, other bytes
    assert len(h.store.moves(game_id)) == 1
    assert h.new_mail() == []
    assert queued == 4


def test_stale_move_number_is_refused_with_the_current_one(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    game = h.store.load(game_id)
    first = game.turn()
    assert first is not None
    h.reply(PLAYERS[first.seat], h.last_to(PLAYERS[first.seat]), "buy TCC")
    second = h.store.load(game_id).turn()
    assert second is not None
    h.reply(PLAYERS[second.seat], h.last_to(PLAYERS[second.seat]), "move 0\npass")
    answer = h.last_to(PLAYERS[second.seat])
    assert "written for move 0; the game is at move 1 now" in text_of(answer)
    assert answer["Subject"].startswith(f"[{game_id}] refused:")
    assert len(h.store.moves(game_id)) == 1


def test_automatic_mail_is_never_answered(harness: Harness) -> None:
    h = harness
    for headers in ({"Auto-Submitted": "auto-replied"}, {"Precedence": "bulk"},
                    {"List-Id": "<x.example>"}, {"Return-Path": "<>"}):
        h.send("ann@example.org", "I am away", headers=headers)
    h.send("MAILER-DAEMON@example.org", "Delivery failed")
    assert h.outbox() == []
    statuses = h.store.execute("SELECT status, outcome FROM messages")
    assert all(s == "done" and o.startswith("skipped") for s, o in statuses)


def test_no_game_and_help(harness: Harness) -> None:
    h = harness
    h.send("ann@example.org", "buy TCC")
    assert "could not tell which game" in text_of(h.last_to("ann@example.org"))
    h.send("ann@example.org", "help")
    assert "Topics" in text_of(h.last_to("ann@example.org"))


def test_replies_are_rate_limited(tmp_path: Path) -> None:
    h = Harness(tmp_path, replies_per_hour=3)
    for _ in range(5):
        h.send("ann@example.org", "buy TCC")
    assert len(h.outbox("ann@example.org")) == 3


def test_a_whole_opening_by_mail_equals_the_same_orders_applied_directly(
        harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    mirror = Game(h.store.load(game_id).setup)
    while not mirror.round_name.startswith("Stock Round 2"):
        turn = mirror.turn()
        assert turn is not None
        orders = opening_orders(mirror)
        h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "\n".join(orders))
        assert run_submission(mirror, turn.seat, "\n".join(orders)).ok
        assert h.store.load(game_id).next_move == mirror.next_move, text_of(
            h.last_to(PLAYERS[turn.seat]))
    assert h.store.load(game_id).to_json() == mirror.to_json()
    assert h.store.execute("SELECT COUNT(*) FROM moves WHERE said IS NULL") == [(0,)]


def test_an_observer_confirms_and_then_gets_the_reports(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    h.send("kibitz@example.org", f"observe {game_id}")
    # Observing needs the game master's consent: the request goes to the game master.
    assert "they have been asked" in text_of(h.last_to("kibitz@example.org"))
    request = h.last_to(GM)
    assert "kibitz@example.org asks to follow" in text_of(request)
    h.reply(GM, request, "invite kibitz@example.org as observer")
    confirmation = h.last_to("kibitz@example.org")
    assert "reply to this mail with the single word" in text_of(confirmation)
    first = h.store.load(game_id).turn()
    assert first is not None
    h.reply(PLAYERS[first.seat], h.last_to(PLAYERS[first.seat]), "buy TCC")
    assert h.last_to("kibitz@example.org") is not None
    assert len(h.outbox("kibitz@example.org")) == 2  # not yet: no confirmation
    h.reply("kibitz@example.org", confirmation, "join")
    joined = h.last_to("kibitz@example.org")
    assert f"you follow {game_id} now" in text_of(joined)
    assert "Stock Round 1" in text_of(joined)
    second = h.store.load(game_id).turn()
    assert second is not None
    h.reply(PLAYERS[second.seat], h.last_to(PLAYERS[second.seat]), "pass")
    assert h.last_to("kibitz@example.org")["X-Moderator-Move"] == "2"


def test_without_plus_addressing_the_token_rides_in_the_subject(tmp_path: Path) -> None:
    h = Harness(tmp_path, plus_addressing=False)
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    report = h.last_to(PLAYERS[turn.seat])
    assert str(report["Reply-To"]).endswith(f"<{MODERATOR}>")
    token = make_token(SECRET, game_id, turn.seat)
    assert str(report["Subject"]).startswith(f"[{game_id} {token}]")
    h.reply(PLAYERS[turn.seat], report, "buy TCC")  # to the plain address, same subject
    assert len(h.store.moves(game_id)) == 1


def test_a_mail_too_large_to_fetch_is_answered_from_its_header(harness: Harness) -> None:
    h = harness
    header = b"From: ann@example.org\r\nSubject: huge\r\nMessage-ID: <big@x>\r\n\r\n"
    key, done = h.processor.receive(header, size=50_000_000)
    assert not done
    h.processor.process(key)
    assert "is 50000000 bytes" in text_of(h.last_to("ann@example.org"))


def test_a_crashing_mail_is_given_up_after_a_few_tries(harness: Harness) -> None:
    h = harness
    key, _ = h.processor.receive(h.mail("ann@example.org", "help").as_bytes())
    for _ in range(5):  # the daemon died while processing it, five times
        h.processor.receive(h.store.message(key).raw)  # type: ignore[union-attr]
    outcome = h.processor.process(key)
    assert outcome.status == "failed" and "given up" in outcome.summary
    assert "internal error" in text_of(h.last_to("ann@example.org"))


def test_a_seat_registers_a_second_address(harness: Harness) -> None:
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    second = f"{turn.seat.lower()}.mobile@example.net"
    h.reply(GM, h.last_to(GM), f"invite {second} as {turn.seat}")
    assert f"invitation sent to {second} for the seat {turn.seat}" in text_of(h.last_to(GM))
    invitation = h.last_to(second)
    h.reply(second, invitation, "buy TCC")  # before joining: only `join` counts
    assert h.store.moves(game_id) == []
    h.reply(second, invitation, "join")
    assert f"this address now gets {turn.seat}'s reports" in text_of(h.last_to(second))
    h.reply(second, h.last_to(second), "buy TCC")  # the seat's orders, from either address
    assert len(h.store.moves(game_id)) == 1
    assert h.last_to(PLAYERS[turn.seat])["X-Moderator-Move"] == "1"  # both get reports
    assert h.last_to(second)["X-Moderator-Move"] == "1"
    h.reply(GM, h.last_to(GM), "invite zed@example.org as Zed")
    assert "an address can be added only to its seats" in text_of(h.last_to(GM))


def test_a_mail_that_changes_nothing_draws_no_new_map(harness: Harness) -> None:
    """Refusals and `status` at an unchanged position reuse the map already drawn."""
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    pictures = h.processor.games.pictures
    h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "status")
    drawn = pictures.drawn
    for _ in range(3):
        h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "lay 57 at H5 rot 2")
        assert "refused" in str(h.last_to(PLAYERS[turn.seat])["Subject"])
    h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "status")
    assert pictures.drawn == drawn
    # A share bought changes no hex: its reports carry no map and none is drawn ...
    h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "buy TCC")
    assert pictures.drawn == drawn
    assert not [p for p in h.last_to(PLAYERS[turn.seat]).walk()
                if p.get_content_type() == "image/png"]
    # ... but the position has changed: the map asked for now is a new picture (its
    # caption names the new move).
    h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "map")
    assert pictures.drawn > drawn


def test_a_refused_mail_shows_the_position_as_stored(harness: Harness) -> None:
    """Its first line was legal and its second not: the answer shows the position
    before the mail, not the one its first line would have made (issue 19, defect 1)."""
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    address = PLAYERS[turn.seat]
    h.reply(address, h.last_to(address), "buy TCC\nlay 57 at H5 rot 2")
    answer = h.last_to(address)
    assert "refused" in str(answer["Subject"])
    assert f"{turn.seat} to move" in str(answer["Subject"])
    assert answer["X-Moderator-Move"] == "0"
    assert "the next move is 0" in text_of(answer)
    assert len(h.store.moves(game_id)) == 0


def test_a_mails_orders_leave_the_kept_game_at_the_stored_position(
        harness: Harness) -> None:
    """The orders run on the kept game until the engine accepts one, then on a copy
    (`Game.fork`): a mail refused at its first or its second line leaves the kept game
    at the stored position (not replayed again), and an applied one makes the game
    kept the stored one with its moves."""
    from engine.views import game_view

    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    address = PLAYERS[turn.seat]
    kept = h.processor.game(game_id)
    for body in ("lay 57 at H5 rot 2", "buy TCC\nlay 57 at H5 rot 2"):
        h.reply(address, h.last_to(address), body)
        assert "refused" in str(h.last_to(address)["Subject"])
        assert h.processor.game(game_id) is kept  # still the stored game: not replayed
        assert game_view(kept) == game_view(h.store.load(game_id))
    h.reply(address, h.last_to(address), "buy TCC")
    assert "refused" not in str(h.last_to(address)["Subject"])
    now = h.processor.game(game_id)
    assert now.next_move == 1 and game_view(now) == game_view(h.store.load(game_id))


def test_a_fresh_copy_of_an_applied_mail_is_not_applied_twice(harness: Harness) -> None:
    """A mail answering none, sent again with a new Message-ID while nobody has moved
    since: not applied twice -- each copy compared with the applied mail's orders (kept
    once read, `play._earlier_orders`); other orders, or `move N`, are applied."""
    h = harness
    game_id = set_up_game(h)
    turn = h.store.load(game_id).turn()
    assert turn is not None
    address = PLAYERS[turn.seat]
    token = make_token(SECRET, game_id, turn.seat)
    h.send(address, f"password {token}\nbuy TCC", subject=f"[{game_id}]")
    assert "Applied." in text_of(h.last_to(address))
    for _ in range(2):  # the earlier mail read, then kept
        h.send(address, f"password {token}\nbuy  tcc", subject=f"[{game_id}]")
        assert "it is not applied twice" in text_of(h.last_to(address))
        assert len(h.store.moves(game_id)) == 1
    turn = h.store.load(game_id).turn()
    assert turn is not None and turn.seat != next(
        s for s, a in PLAYERS.items() if a == address)
    h.send(address, f"password {token}\nmove 1\nbuy TCC", subject=f"[{game_id}]")
    assert "it is not applied twice" not in text_of(h.last_to(address))


def test_the_reply_says_the_move_number_its_header_says(harness: Harness) -> None:
    """After the moderator's automatic moves (here another player's `auto pass`), the
    sender's "Applied. The next move is N" and the mail's move number agree (issue 19,
    defect 5)."""
    h = harness
    game_id = set_up_game(h)
    game = h.store.load(game_id)
    turn = game.turn()
    assert turn is not None
    seats = list(game.setup.seats)
    following = seats[(seats.index(turn.seat) + 1) % len(seats)]
    h.reply(PLAYERS[following], h.last_to(PLAYERS[following]), "auto pass")
    h.reply(PLAYERS[turn.seat], h.last_to(PLAYERS[turn.seat]), "buy TCC")
    answer = h.last_to(PLAYERS[turn.seat])
    moves = len(h.store.moves(game_id))
    assert moves >= 2, "the auto pass was made"
    assert answer["X-Moderator-Move"] == str(moves)
    assert f"Applied. The next move is {moves}." in text_of(answer)


def test_a_members_mail_without_its_password_is_answered_in_its_thread(
        harness: Harness) -> None:
    """`moderator mail --new --subject "[18TN-1]" status` waits for the answer to its
    mail by In-Reply-To: the refusal must be that answer (issue 19, defect 5)."""
    h = harness
    game_id = set_up_game(h)
    address = PLAYERS["Ann"]
    sent = h.send(address, "status", subject=f"[{game_id}]")
    answer = h.last_to(address)
    assert "was refused" in str(answer["Subject"]) or "refused" in text_of(answer)
    assert answer["In-Reply-To"] == sent["Message-ID"]


def test_a_game_under_way_takes_one_invitation_per_mail(harness: Harness) -> None:
    """Two `invite` lines in one mail during play: a clear refusal, never an internal
    error, and nobody invited."""
    h = harness
    game_id = set_up_game(h)
    h.reply(GM, h.last_to(GM), "invite ann2@example.org as Ann\ninvite bob2@example.org as Bob")
    answer = h.last_to(GM)
    assert "one invitation per mail" in text_of(answer)
    assert "internal error" not in text_of(answer)
    assert h.outbox("ann2@example.org") == [] and h.outbox("bob2@example.org") == []
    h.reply(GM, h.last_to(GM), "invite ann2@example.org as Ann")
    assert "invitation sent to ann2@example.org" in text_of(h.last_to(GM))
    assert len(h.outbox("ann2@example.org")) == 1
    assert h.store.invited_before(game_id, "ann2@example.org")


def test_no_game_is_created_whose_password_mail_would_be_held_back(tmp_path: Path) -> None:
    h = Harness(tmp_path, replies_per_hour=2)
    for _ in range(2):
        h.send("new@example.org", "help")
    h.send("new@example.org", "create game 18TN")
    assert h.store.execute("SELECT COUNT(*) FROM mail_games") == [(0,)]
    assert len(h.outbox("new@example.org")) == 2


def test_a_strangers_mail_has_the_line_limit_too(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_order_lines=5)
    h.send("new@example.org", "help\n" * 10)
    answer = text_of(h.last_to("new@example.org"))
    assert "has 10 order lines; the moderator reads at most 5" in answer
    assert "Topics" not in answer


def test_a_newcomer_gets_two_invitations_a_day_whoever_sends_them(harness: Harness) -> None:
    """Review finding: ten throwaway game masters each invited the same address (and
    `+tags` gave each a fresh count). Now a mailbox that never joined a game gets two a
    day in all; the third game master is told why."""
    h = harness
    for number in range(4):
        master = f"throwaway{number}@example.org"
        h.send(master, "create game 18TN")
        h.reply(master, h.last_to(master), f"invite victim+{number}@example.org as Ann")
    invited = [m for number in range(4)
               for m in h.outbox(f"victim+{number}@example.org")]
    assert len(invited) == 2
    refusal = text_of(h.last_to("throwaway3@example.org"))
    assert "has been invited to 2 games today and has joined none yet" in refusal
