"""What a report shows (issue 19, "Reports worth reading"), by mail through the real
servers and the real daemon: who is to move comes before the map and the tables; a
players x companies share table; certificates against the limit; bids and the cash they
tie up; the trains to come with their prices and what their purchase rusts; and the map
sent only where it tells the reader something (the part that changed, at full scale).
"""

from __future__ import annotations

import html as html_lib
import io
import json
import re
import time
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path

import pytest
import pytest_asyncio
from mailservers import Inboxes, daemon_settings, running_daemon, send_mail, text_of
from PIL import Image

from engine.game import Game
from engine.records import import_record
from moderator.config import Config
from moderator.desk.auth import MASTER_KEY, make_token, tag_address
from moderator.desk.orders import apply_submission
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

RECORD = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
GM = "gm@example.org"


@pytest_asyncio.fixture
async def inboxes(mail_servers: LocalMail) -> AsyncIterator[Inboxes]:
    boxes = Inboxes(mail_servers)
    yield boxes
    await boxes.close()


def limits() -> dict[str, dict[str, object]]:
    return {"imap": {"idle": False, "poll_interval": 0.05}}


def html_of(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("html",))
    assert isinstance(body, EmailMessage)
    return str(body.get_content())


def pngs(message: EmailMessage, cid: str | None = None) -> list[bytes]:
    """The pictures a mail carries (inline in the HTML, each once); those named CID."""
    return [bytes(p.get_content()) for p in message.walk()
            if p.get_content_type() == "image/png" and p.get("Content-ID")
            and cid in (None, p.get("Content-ID").strip("<>"))]


def rows(html: str, heading: str) -> list[list[str]]:
    """The cells of the table under HEADING, tags stripped."""
    table = html.split(f"<h3>{heading}</h3>", 1)[1].split("</table>", 1)[0]
    return [[html_lib.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in
             re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]


class Table:
    """A game in the daemon's store, each seat's address and password known."""

    def __init__(self, config: Config, game: Game, moves: int) -> None:
        self.config = config
        self.store = Store(config.moderator.database)
        self.seats = {seat: f"p{i + 1}@example.org" for i, seat in enumerate(game.setup.seats)}
        self.keys = {seat: f"p{i + 1}" for i, seat in enumerate(game.setup.seats)}
        now = time.time()
        with self.store.transaction():
            self.game_id = self.store.create_mail_game(game.setup.title, GM, [],
                                                       game.setup.seed, now)
            self.store.add_member(self.game_id, GM, "master", MASTER_KEY, status="active",
                                  now=now)
            for seat, address in self.seats.items():
                self.store.add_member(self.game_id, address, "player", self.keys[seat],
                                      seat=seat, status="active", now=now)
            self.store.create_game(game.setup, self.game_id)
            self.store.mark_started(self.game_id, now)
            self.store.append(self.game_id, 0, list(game.log[:moves]))
            round_name = Game(game.setup, game.log[:moves]).round_name
            for address in [GM, *self.seats.values()]:  # each has had the report of now
                self.store.set_reported(self.game_id, address, moves, round_name)

    def address(self, seat: str) -> str:
        key = self.keys[seat]
        return tag_address(self.config.moderator.address, self.game_id, key,
                           make_token(self.config.moderator.secret, self.game_id, key))

    async def send(self, servers: LocalMail, seat: str, body: str) -> None:
        await send_mail(servers, self.seats[seat], self.address(seat), f"[{self.game_id}]",
                        body)


def record_game() -> Game:
    return import_record(json.loads(RECORD.read_text())).game


async def test_the_report_puts_the_move_first_and_shows_the_players_sheet(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    config = await daemon_settings(mail_servers, **limits())
    table = Table(config, record_game(), 300)  # OR 5.2, TC (Player 1) to lay track
    game = table.store.load(table.game_id)
    async with running_daemon(config):
        await table.send(mail_servers, "Player 2", "status\n")
        report = await inboxes.wait(table.seats["Player 2"],
                                    lambda m: "the full report follows" in text_of(m))
    html = html_of(report)
    # Who is to move and what they may do, before the map and every table.
    assert html.index("To move: <b>Player 1</b> for <b>TC</b>") < html.index('src="cid:map"') \
        < html.index("<h3>Players</h3>") < html.index("<h3>Shares (%)</h3>")
    # The share table: one row per started company, a column per player, then the
    # Initial Offering and the pool. Each row accounts for the whole company (100%), and
    # each cell is what the engine says the holder has.
    shares = rows(html, "Shares (%)")
    # Long seat names head their columns short, with a key ("Player 1": "P1").
    assert shares[0] == ["Co.", "P1", "P2", "P3", "P4", "IPO", "Pool"]
    assert "P1 Player 1, P2 Player 2, P3 Player 3, P4 Player 4." in html
    state = game.state
    started = [c for c in state.corporations.values() if c.par_price is not None]
    assert [r[0] for r in shares[1:]] == [c.sym for c in started]
    for row, corp in zip(shares[1:], started, strict=True):
        numbers = [0 if cell == "-" else int(cell.rstrip("*")) for cell in row[1:]]
        assert sum(numbers) == 100, row
        for seat, cell in zip(game.setup.seats, row[1:], strict=False):
            assert cell.endswith("*") == (corp.president == seat)
            assert (0 if cell == "-" else int(cell.rstrip("*"))) == corp.percent_held_by(seat)
    # Certificates against the limit: 18TN's limit for four players is 12 (rule 3.3).
    players = rows(html, "Players")
    assert players[0][-1] == "Certs /12"
    # 3.3(b): each certificate counts one (a president's too), each private one, but
    # not the shares of a company whose price is in the yellow or green section.
    counted = [c for c in started if state.market.cell(c.sym).zone not in ("yellow", "green")]
    assert "GMO" not in {c.sym for c in counted}  # at $30, in the yellow section
    cells = {r[0].removesuffix(" (priority)"): r for r in players[1:]}
    for seat in game.setup.seats:
        held = sum(len(c.certificates_of(seat)) for c in counted) + sum(
            1 for p in state.privates.values() if p.owner == seat and not p.closed)
        assert cells[seat][-1] == str(held)
    # The trains to come: 18TN 4.2.5 -- the first 6-train starts phase 6 and rusts the
    # 3-trains; the second starts phase 6½, after which the 4-trains are obsolete.
    trains = rows(html, "Trains")
    six = next(r for r in trains if r[0].startswith("6"))
    assert six[1] == "600" and "the 1st starts phase 6: 3-trains rust" in six[3]
    assert "the 2nd starts phase 6½: 4-trains become obsolete" in six[3]


async def test_the_map_goes_where_it_tells_the_reader_something(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """`status` carries the whole map; after a lay the others get the part that changed
    (smaller, the hex outlined and named); a run changes no hex: no picture."""
    config = await daemon_settings(mail_servers, **limits())
    table = Table(config, record_game(), 300)
    async with running_daemon(config):
        await table.send(mail_servers, "Player 2", "status\n")
        status = await inboxes.wait(table.seats["Player 2"],
                                    lambda m: "the full report follows" in text_of(m))
        await table.send(mail_servers, "Player 1", "lay 141 at E10 rot 2\n")
        other = await inboxes.wait(table.seats["Player 2"],
                                   lambda m: "outlined: E10" in text_of(m))
        # The whole board as its overview and its regions at full scale (issue 30).
        whole = pngs(status, "map") + [png for n in range(1, 9)
                                       for png in pngs(status, f"region{n}")]
        assert len(whole) == 5
        [part] = pngs(other, "map")
        assert len(part) < sum(map(len, whole)) / 2
        assert "The part of the map that changed since your report of move 300 " \
            "(outlined: E10)" in text_of(other)
        await table.send(mail_servers, "Player 1", "pass\n")  # no token
        await inboxes.wait(table.seats["Player 1"], lambda m: "move 302" in text_of(m))
        await table.send(mail_servers, "Player 1", "run auto\n")
        later = await inboxes.wait(table.seats["Player 2"], lambda m: "runs" in text_of(m)
                                   and "has not changed" in text_of(m))
        assert pngs(later) == []  # neither map nor market in the middle of a round
        assert "The map has not changed since your report of move 302" in text_of(later)


async def test_bids_on_privates_and_the_cash_they_tie_up(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """18TN 3.1(b): a bid on a private not yet for sale sets its cash aside."""
    config = await daemon_settings(mail_servers, **limits())
    game = record_game()
    table = Table(config, Game(game.setup), 0)
    first = table.store.load(table.game_id).turn()
    assert first is not None
    assert apply_submission(table.store, table.game_id, first.seat, ["bid 45 on ETWCR"]).ok
    async with running_daemon(config):
        await table.send(mail_servers, first.seat, "status\n")
        report = await inboxes.wait(table.seats[first.seat],
                                    lambda m: "Bids on privates" in text_of(m))
    html = html_of(report)
    assert rows(html, "Bids on privates")[1] == ["ETWCR", first.seat, "45"]
    cash = table.store.load(table.game_id).state.players[first.seat].cash
    mine = next(r for r in rows(html, "Players")[1:] if r[0].startswith(first.seat))
    assert mine[1] == f"{cash}45 bid"  # the cash in hand, of which $45 is bid
    assert f"{first.seat:<16} cash {cash:>5}" in text_of(report)
    assert "bids 45" in text_of(report)
    # The tiles left and each private's ability, in the rulebook's words.
    state = table.store.load(table.game_id).state
    supply = state.board.supply
    assert f"yellow 3 x{supply['3']}, 4 x{supply['4']}," in text_of(report)
    # (#2 lays "under the same conditions as #1": spelt out, in its own hex.)
    ability = "A major company owning it may lay one free yellow tile in F-19, without " \
        "connection to its stations and outside its normal two yellow lays; does not " \
        "close the private; lost if another tile is laid in F-19 first."
    assert ability in " ".join(text_of(report).split())
    assert "may use it: the company that buys it" in " ".join(text_of(report).split())


async def test_legal_lists_the_lays_and_show_draws_them(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """In a track step `legal` lists each hex's legal tiles and rotations, and `show HEX`
    draws them; every listed lay is one the game takes, and every other rotation of a
    listed tile there is refused -- or lays the same track as a listed one (a
    symmetrical tile's rotations are listed once)."""
    from engine.actions import LayTile
    from engine.errors import GameError
    from engine.tiles import placement_key

    config = await daemon_settings(mail_servers, **limits())
    table = Table(config, record_game(), 300)  # TC (Player 1) to lay track
    game = table.store.load(table.game_id)
    async with running_daemon(config):
        await table.send(mail_servers, "Player 1", "legal\nshow E10\n")
        reply = await inboxes.wait(table.seats["Player 1"], lambda m: "show E10" in text_of(m))
    text = text_of(reply)
    listing = text.split("(mail `show HEX` to see them)", 1)[1].split("\n\n", 1)[0]
    # Each hex's lays end with their price (issue 30): "(free)" in E10.
    assert "E10 (Clarksville): 141 rot 2; 143 rot 3; 144 rot 1 (free)" in listing
    lines = [re.sub(r" \((free|\$\d+, leaves \$\d+)\)$", "", line.strip())
             for line in listing.strip().splitlines()]
    for line in lines:
        hex_id = line.split()[0].rstrip(":")
        for option in line.split(": ", 1)[1].split("; "):
            tile, _, rotations = option.partition(" rot ")
            listed = {int(r) for r in rotations.split(" or ")}
            for rotation in range(6):
                trial = game.clone()
                try:
                    trial.apply("Player 1", LayTile(tile, hex_id, rotation))
                    taken = True
                except GameError:
                    taken = False
                spec = game.state.title.tiles[tile]
                same = {placement_key(spec, r) for r in listed}
                assert taken == (rotation in listed or placement_key(spec, rotation) in same), \
                    (tile, hex_id, rotation)
    # The report to the player laying track lists the lays too, under what they may do.
    box = text.split("The tiles TC may lay (hex: tile and rotations", 1)[1]
    assert "E10 (Clarksville): 141 rot 2; 143 rot 3; 144 rot 1" in box.split("\n\n")[0]
    # `show E10`: one picture of the three lays, and no map (the position is the one the
    # player's last report showed).
    assert "The tiles TC may lay at E10" in text
    html = html_of(reply)
    assert 'src="cid:section3"' in html and 'src="cid:map"' not in html
    [picture] = pngs(reply)
    with Image.open(io.BytesIO(picture)) as image:
        image.verify()


def order_text(game: Game, move: int) -> tuple[str, str]:
    """Move MOVE of GAME's log as its seat's order."""
    from engine.title import load_title
    from grammar.format import format_line
    from grammar.names import names_for_title

    names = names_for_title(load_title(game.setup.title), list(game.setup.seats))
    logged = game.log[move]
    return logged.seat, format_line([logged.action], names)


def charts(message: EmailMessage) -> list[bytes]:
    return [bytes(p.get_content()) for p in message.walk()
            if p.get_content_type() == "image/png" and p.get("Content-ID") == "<charts>"]


async def test_charts_after_each_stock_round_and_at_the_end(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """The first report after a stock round charts each player's net worth and each
    company's share price at the end of every stock round so far; the next report of
    the round does not. At the end, the last net worths are the scores 18xx.games gave
    the recorded game."""
    config = await daemon_settings(mail_servers, **limits())
    record = import_record(json.loads(RECORD.read_text()))
    game = record.game
    table = Table(config, game, 74)  # the last move of stock round 3 is move 74
    async with running_daemon(config):
        seat, order = order_text(game, 74)
        await table.send(mail_servers, seat, order + "\n")
        other = next(s for s in table.seats if s != seat)
        first = await inboxes.wait(table.seats[other], lambda m: "OR 3.1" in str(m["Subject"]))
        assert len(charts(first)) == 1
        assert "Net worth after each stock round (SR 1, SR 2, SR 3;" in text_of(first)
        assert 'src="cid:charts"' in html_of(first)
        # The stock market as a picture only where the reader decides by it (a stock
        # round): after one, beside the charts, it is a table (a report under 60 KB).
        assert pngs(first, "market") == []
        assert "Companies (top of the stack first)" in html_of(first)
        seat, order = order_text(game, 75)  # `pass` again: `move 75` says it is meant
        await table.send(mail_servers, seat, f"move 75\n{order}\n")
        second = await inboxes.wait(table.seats[other], lambda m: "next move 76" in text_of(m))
        assert charts(second) == [] and "Net worth after" not in text_of(second)
        assert pngs(second, "market") == []  # the market as a table instead
        assert "Companies (top of the stack first)" in html_of(second)

    ended = Table(await daemon_settings(mail_servers, **limits()), game, len(game.log))
    async with running_daemon(ended.config):
        await ended.send(mail_servers, "Player 1", "status\n")
        last = await inboxes.wait(ended.seats["Player 1"], lambda m: "game is over" in text_of(m)
                                  and "Net worth after" in text_of(m))
    assert len(charts(last)) == 1
    assert len(pngs(last, "market")) == 1
    text = text_of(last)
    assert "(SR 1, SR 2, SR 3, SR 4, SR 5, SR 6, SR 7, SR 8, end;" in text
    for seat, score in record.result.items():
        row = next(line for line in text.splitlines()
                   if line.startswith(f"  {seat:<16} ") and line.count(" ") > 10)
        assert row.split()[-1] == str(score)


async def test_the_stock_market_picture_goes_to_whoever_is_to_move_in_a_stock_round(
        mail_servers: LocalMail, inboxes: Inboxes) -> None:
    """In a stock round the player to move gets the market as a picture (the part of
    the chart with the tokens and the start spaces); a player who already had this
    round's report and is not to move gets it as a table (the typical mail stays small)."""
    config = await daemon_settings(mail_servers, **limits())
    game = record_game()
    table = Table(config, game, 313)  # stock round 6, its second move
    assert Game(game.setup, game.log[:313]).round_name == "Stock Round 6"
    seat, order = order_text(game, 313)
    after = Game(game.setup, game.log[:314])
    turn = after.turn()
    assert turn is not None and after.round_name == "Stock Round 6"
    idle = next(s for s in table.seats if s not in (seat, turn.seat))
    async with running_daemon(config):
        await table.send(mail_servers, seat, order + "\n")
        mover = await inboxes.wait(table.seats[turn.seat], lambda m: "your turn" in text_of(m))
        other = await inboxes.wait(table.seats[idle], lambda m: "next move 314" in text_of(m))
    [market] = pngs(mover, "market")
    with Image.open(io.BytesIO(market)) as picture:
        assert picture.width < 1000  # a part of 18TN's chart (1376 px whole)
    assert 'src="cid:market"' in html_of(mover)
    assert pngs(other, "market") == []
    assert "Companies (top of the stack first)" in html_of(other)
