"""Real reply mails understood (issue 29, items 1 and 2; issue 31, item 7).

The corpus (tests/fixtures/replies, see its NOTICE) holds reply mails from the test
suites of public reply parsers: Gmail, Outlook in text and HTML, Apple Mail,
Thunderbird's bottom-posting, phones, HTML-only, quoted-printable and base64, quote
headers in a dozen languages. Each has a placeholder where its writer had written; the
tests put an order there and check that exactly that order is read (fast, for every
mail) and applied in a live game through the real mail servers (`run_corpus`, which
takes any server pair: the embedded one here, Dovecot/Postfix where the suite has them).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiosmtplib
import pytest
from mailservers import (
    SMTP_PATIENCE,
    Servers,
    opening_orders,
    running_daemon,
    seat_address,
    seat_game,
    text_of,
    wait_for_mail,
)
from realmail import RealMail, moderator_config, unique_address
from reply_corpus import Reply, corpus, with_order

from engine.game import Game
from engine.title import load_title
from grammar.names import names_for_title
from grammar.submission import parse_submission
from moderator.config import Config
from moderator.desk.orders import run_submission
from moderator.mail.parse import html_to_text, parse_incoming
from moderator.store import Store

MODERATOR = "moderator@example.org"
NAMES = names_for_title(load_title("18TN"), ("Ann", "Bob", "Cy"))
PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
#: The share of the corpus that must be understood, and none applied wrong.
UNDERSTOOD = 0.95


@dataclass
class Tally:
    """Understood / refused / wrong per layout class."""

    understood: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def add(self, reply: Reply, understood: bool, wrong: bool = False) -> None:
        self.total[reply.layout] += 1
        if wrong:
            self.wrong.append(reply.name)
        elif understood:
            self.understood[reply.layout] += 1
        else:
            self.refused.append(reply.name)

    def report(self, title: str) -> str:
        lines = [f"{title}: {sum(self.understood.values())} of {sum(self.total.values())} "
                 f"understood, {len(self.wrong)} wrong"]
        lines += [f"  {layout:<18} {self.understood[layout]:>3} of {count}"
                  for layout, count in sorted(self.total.items())]
        if self.refused:
            lines.append("  refused: " + ", ".join(self.refused))
        return "\n".join(lines)

    def check(self) -> None:
        assert not self.wrong, self.wrong
        understood, total = sum(self.understood.values()), sum(self.total.values())
        assert understood >= UNDERSTOOD * total, (understood, total, self.refused)


def test_the_corpus_is_real_and_large() -> None:
    replies = corpus()
    assert len(replies) >= 80
    layouts = Counter(r.layout for r in replies)
    for layout in ("gmail-top", "outlook-text", "outlook-html", "apple-mail",
                   "bottom-posting", "mobile", "html-only", "quoted-printable", "base64",
                   "non-english", "signature", "greeting", "banner-disclaimer"):
        assert layouts[layout] >= 2, layout


@pytest.mark.parametrize("order", ["par SR at 65", "buy TC", "pass"])
def test_every_reply_reads_as_its_order(order: str) -> None:
    """Each mail, parsed as the service parses it, gives exactly ORDER (or is refused:
    never another order, never an extra one)."""
    wanted = parse_submission(order, NAMES).orders
    tally = Tally()
    for reply in corpus():
        incoming = parse_incoming(with_order(reply.raw, order), MODERATOR)
        submission = parse_submission(incoming.text, NAMES)
        read = submission.orders
        tally.add(reply, submission.ok and read == wanted,
                  wrong=bool(read) and read != wanted and submission.ok)
    print("\n" + tally.report(f"parsed with `{order}`"))
    tally.check()


def test_without_the_order_no_reply_gives_one() -> None:
    """The quoted mails, signatures and footers of the corpus hold no order of their
    own: with the writer's words left out, nothing is read as one."""
    for reply in corpus():
        incoming = parse_incoming(with_order(reply.raw, ""), MODERATOR)
        assert parse_submission(incoming.text, NAMES).orders == (), reply.name


# -- text hidden in HTML (issue 31, item 7) ------------------------------------------------

HIDDEN = [
    "<div style='display:none'>create game 18TN</div>",
    "<div style=\"DISPLAY: None !important\">create game 18TN</div>",
    "<span style='visibility:hidden'>create game 18TN</span>",
    "<p hidden>create game 18TN</p>",
    "<div style='mso-hide:all'>create game 18TN</div>",
    "<span style='font-size:0px'>create game 18TN</span>",
    "<div style='max-height:0;overflow:hidden'>create game 18TN</div>",
    "<div style='opacity:0'>create game 18TN</div>",
    "<style>.pre{display:none}</style><div class='pre x'>create game 18TN</div>",
    "<style>#h, .other { visibility: hidden }</style><div id='h'>create game 18TN</div>",
    "<head><title>create game 18TN</title></head>",
    "<script>create game 18TN</script>",
    "<template>create game 18TN</template>",
    "<!-- create game 18TN -->",
]


@pytest.mark.parametrize("hidden", HIDDEN)
def test_hidden_html_is_never_read(hidden: str) -> None:
    html = f"<html><body><div>pass</div>{hidden}<div>Thanks</div></body></html>"
    text = html_to_text(html)
    assert "create" not in text
    assert [line for line in text.splitlines() if line] == ["pass", "Thanks"]
    raw = (f"From: ann@example.org\r\nTo: {MODERATOR}\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
           f"Content-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n").encode()
    submission = parse_submission(parse_incoming(raw, MODERATOR).text, NAMES)
    assert [line.text for line in submission.lines] == ["pass"]


def test_text_after_a_hidden_element_is_kept() -> None:
    text = html_to_text("<div>buy TC<span style='display:none'>x</span> now</div>")
    assert text.strip() == "buy TC now"


def test_html_that_breaks_the_parser_gives_no_text_not_an_error() -> None:
    for html in ("", "<", "<<<>>>", "<div>" * 5000, "\x00<p>pass</p>", "<?xml?><p>pass"):
        assert isinstance(html_to_text(html), str)


# -- through the real servers, into a live game -----------------------------------------


@dataclass
class LiveGame:
    config: Config
    store: Store
    game_id: str = ""

    def fresh(self) -> Game:
        self.game_id = seat_game(self.config, PLAYERS, seed=int(time.time_ns() % 1000) + 1)
        return self.store.load(self.game_id)

    def in_stock_round(self) -> Game:
        """The game, or a fresh one when it has left its first stock round (every
        corpus mail carries one line: a stock-round order)."""
        game = self.store.load(self.game_id) if self.game_id else self.fresh()
        if not game.round_name.startswith("Stock"):
            game = self.fresh()
        return game


async def run_corpus(servers: Servers, config: Config, replies: list[Reply]) -> Tally:
    """Send each reply, with the acting player's next stock-round order in it, to a live
    18TN game on SERVERS (the daemon runs on CONFIG); tally what was applied. SERVERS
    needs `host`, `smtp_port` and what `wait_for_mail` reads with."""
    store = Store(config.moderator.database)
    live = LiveGame(config, store)
    tally = Tally()
    try:
        for number, reply in enumerate(replies):
            game = live.in_stock_round()
            turn = game.turn()
            assert turn is not None
            seat, sender = turn.seat, PLAYERS[turn.seat]
            (order,) = opening_orders(game)
            trial = game.clone()
            expected = run_submission(trial, seat, order)
            assert expected.ok
            message_id = f"<corpus-{number}-{time.monotonic_ns()}@example.org>"
            to = seat_address(config, live.game_id, seat)
            raw = with_order(reply.raw, order, sender=sender, to=to, message_id=message_id)
            before = len(game.log)
            await aiosmtplib.send(raw, sender=sender, recipients=[to], hostname=servers.host,
                                  port=servers.smtp_port, local_hostname="localhost",
                                  timeout=SMTP_PATIENCE)
            answer = await wait_for_mail(servers, sender,
                                         predicate=lambda m, i=message_id: m["In-Reply-To"] == i)
            after = store.load(live.game_id)
            applied = [(m.seat, m.action) for m in after.log[before:]]
            wanted = [(m.seat, m.action) for m in expected.moves]
            understood = "Applied." in text_of(answer) and applied == wanted
            tally.add(reply, understood, wrong=bool(applied) and applied != wanted)
    finally:
        store.close()
    return tally


@pytest.mark.mail
@pytest.mark.slow
@pytest.mark.realmail
@pytest.mark.timeout(900)
async def test_the_corpus_through_dovecot_and_postfix_into_a_live_game(
        real_mail: RealMail, tmp_path: Path) -> None:
    """Every corpus mail through the servers operators run (Postfix in, Dovecot's
    mailbox, IMAP STARTTLS out), into a live game: at least 95 % understood, none
    applied wrong (the embedded pair carries the same mails in the parse-level tests
    above and the rest of the mail suite)."""
    config = moderator_config(real_mail, tmp_path / "moderator",
                              unique_address("moderator", "localhost"),
                              imap={"idle": False, "poll_interval": 0.05},
                              # One mail at a time, each answered before the next: no
                              # burst to put in the order written.
                              moderator={"order_window": 0.0})
    async with running_daemon(config):
        tally = await run_corpus(real_mail, config, corpus())
    print("\n" + tally.report("through Dovecot and Postfix"))
    tally.check()
