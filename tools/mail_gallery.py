"""Every kind of mail the moderator sends, made offline (the real processor on a real
store, no servers) and written out to be looked at, with their sizes.

    python tools/mail_gallery.py OUT            # .eml, .html (pictures beside) per mail
    python tools/mail_gallery.py OUT --shots    # and headless Chromium screenshots at
                                                # 390 and 1280 px (OUT/NAME-390.png)
    python tools/mail_gallery.py OUT --sizes    # the sizes of every mail while 40 moves
                                                # of 18TN 7818 (twice), 1850 115810,
                                                # 1861 167259 and 1825 R1 are played,
                                                # and of each title's status mail (the
                                                # whole board); the largest mail of
                                                # each kept as OUT/largest-*.eml

Run from the repository root (its packages first: PYTHONPATH=.). The positions are
the recorded games in /work/shared/fixtures (or $FIXTURES).
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import os
import re
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from engine.game import Game
from engine.records import import_record
from engine.title import load_title
from grammar.format import format_line
from grammar.names import names_for_title
from moderator.desk.auth import MASTER_KEY, make_token, tag_address
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.store import Store

MODERATOR = "moderator@example.org"
SECRET = "gallery-secret-0123456789abcdef"
GM = "gm@example.org"
DIRECTOR = "dana@example.org"
FIXTURES = Path(os.environ.get("FIXTURES", "/work/shared/fixtures"))
TN = FIXTURES / "18TN" / "7818.json"
MIDWEST = FIXTURES / "1850" / "115810.json"
NORTH = FIXTURES / "1861" / "167259.json"
UNIT1_R1 = FIXTURES / "1825" / "1825_game_end_bank.json"


class Desk:
    """A store and a processor; the mail sent since the last look."""

    def __init__(self, db: Path) -> None:
        db.unlink(missing_ok=True)
        self.store = Store(db)
        self.now = time.time()  # the games' clock: moved on for reminders and late notices
        self.processor = Processor(self.store, ProcessorSettings(
            address=MODERATOR, secret=SECRET, tournament_directors=(DIRECTOR,)),
            clock=lambda: self.now)
        self.count = 0
        self.seen = 0
        self.records: dict[str, Game] = {}

    def send(self, sender: str, body: str, to: str = MODERATOR, subject: str = "orders"
             ) -> list[tuple[str, bytes]]:
        self.count += 1
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, to, subject
        message["Message-ID"] = f"<gallery{self.count}@example.org>"
        message.set_content(body)
        key, done = self.processor.receive(message.as_bytes())
        if not done:
            self.processor.process(key)
        return self.since()

    def since(self) -> list[tuple[str, bytes]]:
        """The mail queued since the last look."""
        rows = self.store.execute("SELECT recipient, raw FROM outbox WHERE id > ? "
                                  "ORDER BY id", [self.seen])
        self.seen = self.store.execute("SELECT COALESCE(MAX(id), 0) FROM outbox")[0][0]
        return [(str(to), bytes(raw)) for to, raw in rows]

    def seat_game(self, record: Path, moves: int, *, clock: bool = False
                  ) -> tuple[str, dict[str, str]]:
        """A mail game at move MOVES of RECORD, each seat's address known and each
        member's last report at that move; with CLOCK, the turn's clock that a game
        started by mail has (the moderator then makes its own moves: issue 30)."""
        game = import_record(json.loads(record.read_text())).game
        seats = {seat: f"p{i + 1}@example.org" for i, seat in enumerate(game.setup.seats)}
        now = time.time()
        store = self.store
        with store.transaction():
            game_id = store.create_mail_game(game.setup.title, GM, list(game.setup.options),
                                             game.setup.seed, now)
            store.add_member(game_id, GM, "master", MASTER_KEY, status="active", now=now)
            for i, (seat, address) in enumerate(seats.items()):
                store.add_member(game_id, address, "player", f"p{i + 1}", seat=seat,
                                 status="active", now=now)
            store.create_game(game.setup, game_id)
            store.mark_started(game_id, now)
            store.append(game_id, 0, list(game.log[:moves]))
            at = Game(game.setup, game.log[:moves])
            for address in [GM, *seats.values()]:
                store.set_reported(game_id, address, at.next_move, at.round_name)
            if clock:
                store.create_clock(game_id, 72 * 3600)
        self.records[game_id] = game
        return game_id, seats

    def as_seat(self, game_id: str, seats: dict[str, str], seat: str, body: str
                ) -> list[tuple[str, bytes]]:
        key = f"p{list(seats).index(seat) + 1}"
        to = tag_address(MODERATOR, game_id, key, make_token(SECRET, game_id, key))
        return self.send(seats[seat], body, to=to, subject=f"[{game_id}]")

    def next_order(self, game_id: str) -> tuple[str, str]:
        """The recorded game's next move, as its seat's order."""
        record = self.records[game_id]
        move = record.log[self.store.load(game_id).next_move]
        names = names_for_title(load_title(record.setup.title), list(record.setup.seats))
        return move.seat, format_line([move.action], names)


def write(out: Path, name: str, raw: bytes) -> int:
    """RAW as OUT/NAME.eml, its HTML as OUT/NAME.html with the pictures beside it."""
    (out / f"{name}.eml").write_bytes(raw)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    html: str | None = None
    for part in message.walk():
        cid = part.get("Content-ID")
        if cid and part.get_content_maintype() == "image":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            (out / f"{name}-{cid.strip('<>')}.png").write_bytes(payload)
        if part.get_content_type() == "text/html" and html is None:
            html = str(part.get_content())
    if html is not None:
        html = re.sub(r'src="cid:([^"]+)"', lambda m: f'src="{name}-{m.group(1)}.png"', html)
        (out / f"{name}.html").write_text(html)
    print(f"{name:36s} {len(raw) / 1000:7.1f} KB")
    return len(raw)


def gallery(out: Path) -> list[str]:
    """Every mail kind; the names written."""
    desk = Desk(out / "gallery.sqlite")
    names: list[str] = []

    def keep(prefix: str, mails: list[tuple[str, bytes]]) -> None:
        for to, raw in mails:
            name = f"{prefix}-{to.split('@')[0]}"
            name += f"-{sum(n.startswith(name) for n in names) + 1}" if name in names else ""
            write(out, name, raw)
            names.append(name)

    # Set-up: created, invitations, joined, the first report; help; a forged mail.
    keep("created", desk.send(GM, "create game 18TN seed=11\n", subject="new game"))
    master = tag_address(MODERATOR, "18TN-1", "gm", make_token(SECRET, "18TN-1", "gm"))
    keep("invite", desk.send(GM, "invite ann@example.org as Ann\ninvite bob@example.org as "
                                 "Bob\ninvite cy@example.org as Cy\n", to=master,
                             subject="[18TN-1]"))
    for seat in ("Ann", "Bob", "Cy"):
        to = tag_address(MODERATOR, "18TN-1", seat, make_token(SECRET, "18TN-1", seat))
        keep(f"join-{seat}", desk.send(f"{seat.lower()}@example.org", "join\n", to=to,
                                       subject="[18TN-1]"))
    keep("start", desk.send(GM, "start\n", to=master, subject="[18TN-1]"))
    keep("help", desk.send("someone@example.org", "help\n", subject="a question"))
    keep("forged", desk.send("ann@example.org", "pass\n", subject="[18TN-1]"))
    # Orders sent ahead in a stock round: held.
    turn = desk.store.load("18TN-1").turn()
    assert turn is not None
    waiting = next(s for s in ("Ann", "Bob", "Cy") if s != turn.seat)
    to = tag_address(MODERATOR, "18TN-1", waiting, make_token(SECRET, "18TN-1", waiting))
    keep("held", desk.send(f"{waiting.lower()}@example.org", "buy TCC\n", to=to,
                           subject="[18TN-1]"))
    # The clock: a reminder before the deadline; under `timeout wait` the late notices
    # (to everyone once, then the late player daily).
    desk.send(GM, "set timeout wait\n", to=master, subject="[18TN-1]")
    desk.since()
    clock = desk.store.clock("18TN-1")
    assert clock is not None and clock.deadline is not None
    desk.now = clock.deadline - 3600
    desk.processor.tick()
    keep("reminder", desk.since())
    desk.now = clock.deadline + 60
    desk.processor.tick()
    keep("late", desk.since())
    desk.now = clock.deadline + 86400 + 120
    desk.processor.tick()
    keep("late-again", desk.since())
    # A mail given up after its tries: its sender is told.
    desk.count += 1
    failing = EmailMessage()
    failing["From"], failing["To"], failing["Subject"] = "bob@example.org", to, "[18TN-1]"
    failing["Message-ID"] = f"<gallery{desk.count}@example.org>"
    failing.set_content("pass\n")
    key, _ = desk.processor.receive(failing.as_bytes())
    desk.processor._quarantine(key, 3, "RuntimeError: the gallery's stand-in failure")
    keep("quarantined", desk.since())
    # 18TN in operating round 5.2, TC to lay track: status, legal and show, a refusal,
    # then the record's next three moves (a lay, a run, a dividend) to everyone.
    game_id, seats = desk.seat_game(TN, 300)
    keep("tn-status", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    keep("tn-legal-show", desk.as_seat(game_id, seats, "Player 1", "legal\nshow E10\n"))
    keep("tn-refused", desk.as_seat(game_id, seats, "Player 1", "buy train 2\n"))
    for n in range(3):
        seat, order = desk.next_order(game_id)
        keep(f"tn-move{n}", desk.as_seat(game_id, seats, seat, order + "\n"))
    # 18TN at move 399, GMO with $540 and no train: its stations with their prices,
    # and the warning before a station that leaves it short of a train (issue 30).
    game_id, seats = desk.seat_game(TN, 399)
    seat, _ = desk.next_order(game_id)
    keep("tn-stations", desk.as_seat(game_id, seats, seat, "legal\n"))
    keep("tn-shortfall", desk.as_seat(game_id, seats, seat, "token D7\n"))
    # The first reports after 18TN's stock round 6: L&N lays track first, its stations
    # and lays spread over the board (the largest report: charts and a part of the map).
    game_id, seats = desk.seat_game(TN, 332)
    seat, order = desk.next_order(game_id)
    keep("tn-after-sr", desk.as_seat(game_id, seats, seat, order + "\n"))
    # 1850 in operating round 6.1, and a finished 18TN.
    game_id, seats = desk.seat_game(MIDWEST, 400)
    keep("midwest-status", desk.as_seat(game_id, seats, "Player 2", "status\n"))
    # 1861 in operating round 4.1 (loans, minors, the RSR) and in merger round 3.2.
    game_id, seats = desk.seat_game(NORTH, 360)
    keep("russia-status", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    game_id, seats = desk.seat_game(NORTH, 310)
    keep("russia-merger", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    # 1825 with the R1 kit in its third operating round: company credit, the new shares.
    game_id, seats = desk.seat_game(UNIT1_R1, 300)
    keep("unit1-status", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    game_id, seats = desk.seat_game(TN, 10**6)
    keep("tn-over", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    issue_30(desk, keep)
    try:
        tournament(desk, keep)
    except (AssertionError, IndexError) as failed:  # its director's steps now ask more
        print(f"the tournament's mails stopped short: {failed!r}")
    return names


def issue_30(desk: Desk, keep: Callable[[str, list[tuple[str, bytes]]], None]) -> None:
    """One mail per real decision (issue 30): steps nobody decides passed by the
    moderator, an auction shown, a forced purchase with its loans, a bid held for its
    auction, `help` in plain text."""
    # 1861 OR 2.1: M-K lays its tile; its token, route and dividend steps need nobody.
    game_id, seats = desk.seat_game(NORTH, 121, clock=True)
    seat, order = desk.next_order(game_id)
    keep("russia-skipped", desk.as_seat(game_id, seats, seat, order + "\n"))
    # 1861 stock round 1: a minor's auction under way; OR 2.1: M-V must buy a train
    # with loans.
    game_id, seats = desk.seat_game(NORTH, 21, clock=True)
    keep("russia-auction", desk.as_seat(game_id, seats, "Player 1", "status\n"))
    game_id, seats = desk.seat_game(NORTH, 130, clock=True)
    keep("russia-forced-train", desk.as_seat(game_id, seats, "Player 4", "legal\n"))
    # 18TN stock round 1: a bid sent ahead by a bidder in the auction under way.
    record = import_record(json.loads(TN.read_text())).game
    game = Game(record.setup)
    for at, move in enumerate(record.log):
        rnd = game.round
        auction = getattr(getattr(rnd, "s", None), "auction", None)
        turn = game.turn()
        if auction is not None and turn is not None and len(auction.order) > 1:
            waiting = next(s for s in auction.order if s != turn.seat)
            game_id, seats = desk.seat_game(TN, at, clock=True)
            keep("tn-held-bid", desk.as_seat(game_id, seats, waiting,
                                                  f"bid {max(auction.bids.values()) + 10}\n"))
            break
        game.apply(move.seat, move.action)
    keep("help-bid", desk.send("someone@example.org", "help bid\n", subject="a question"))


def tournament(desk: Desk, keep: Callable[[str, list[tuple[str, bytes]]], None]) -> None:
    """A tournament's mail: created, an entry, entry closed, a heat seated (the first
    reports say the table), a table ended, the standings, the final order."""
    mails = desk.send(DIRECTOR, "create tournament Cup titles 18TN sizes 3 heats 1 final 3 "
                      "scoring share deadline 24h timeout pass seed 5\n", subject="a cup")
    keep("tournament-asked", mails)
    # A director's mail that creates a tournament waits for the director's confirmation.
    code = re.search(r"confirm ([A-Z0-9]{10})", _text(mails[0][1]))
    assert code is not None
    mails = desk.send(DIRECTOR, f"confirm {code.group(1)}\n", subject="a cup")
    keep("tournament-created", mails)
    password = re.search(r"password ([a-z2-7]{16})", _text(mails[0][1]))
    assert password is not None
    entrants = [f"{name}@example.org" for name in ("ann", "bob", "cy", "dee", "eve", "fay")]
    for n, address in enumerate(entrants):
        mails = desk.send(address, "register Cup\n", subject="entry")
        # An entry is carried out on the entrant's confirmation (issue 31).
        token = re.search(r"confirm ([A-Z0-9]{10})", _text(mails[0][1]))
        assert token is not None
        if n == 0:
            keep("tournament-asked-entry", mails)
        mails = desk.send(address, f"confirm {token.group(1)}\n", subject="entry")
        if n == 0:
            keep("tournament-registered", mails)

    def direct(name: str, line: str) -> None:
        keep(name, desk.send(DIRECTOR, f"password {password.group(1)}\n{line}\n",
                             subject="Cup"))

    direct("tournament-closed", "close entry Cup")
    direct("tournament-heat", "start heat Cup")
    for table in desk.store.tournament_tables("Cup"):
        direct("tournament-ended", f"end table {table.game_id} anyway")
    keep("tournament-standings", desk.send("bob@example.org", "standings Cup\n",
                                           subject="standings"))
    direct("tournament-final", "start heat Cup")
    final = desk.store.tournament_tables("Cup")[-1]
    direct("tournament-over", f"end table {final.game_id} anyway")


def _text(raw: bytes) -> str:
    """The plain text part of the mail RAW."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    body = message.get_body(preferencelist=("plain",))
    return str(body.get_content()) if body is not None else ""  # type: ignore[union-attr]


def sizes(out: Path, titles: set[str] | None = None) -> None:
    """The sizes of every mail while 40 recorded moves of each game are played by mail
    (of TITLES' games only, if given); each mail over 60 KB named with its parts."""
    # 18TN from move 280: operating rounds 5.1-5.2 and the start of stock round 6; from
    # 312 stock round 6 (the market picture goes to the player to move) and OR 6.1.
    # 1861 from 330: stock round 4 into OR 4.1; 1825 from 260: operating rounds.
    for record, start in ((TN, 280), (TN, 312), (MIDWEST, 380), (NORTH, 330),
                          (UNIT1_R1, 260)):
        if titles and record.parent.name not in titles:
            continue
        desk = Desk(out / f"sizes-{record.stem}.sqlite")
        game_id, seats = desk.seat_game(record, start)
        found: list[int] = []
        worst = b""
        for n in range(40):
            seat, order = desk.next_order(game_id)
            move = desk.store.load(game_id).next_move
            mails = desk.as_seat(game_id, seats, seat, f"move {move}\n{order}\n")
            found += [len(raw) for _, raw in mails]
            for _, raw in mails:
                if len(raw) > 60_000:
                    print(f"  over 60 KB: {len(raw) / 1000:.1f} KB: {parts(raw)}")
            worst = max([worst, *(raw for _, raw in mails)], key=len)
            assert desk.store.load(game_id).next_move == move + 1, (n, order)
        found.sort()
        print(f"{record.parent.name} {record.stem} moves {start}-{start + 39}: "
              f"{len(found)} mails, median {statistics.median(found) / 1000:.1f} KB, "
              f"mean {statistics.mean(found) / 1000:.1f} KB, "
              f"p90 {found[len(found) * 9 // 10] / 1000:.1f} KB, "
              f"p95 {found[len(found) * 19 // 20] / 1000:.1f} KB, max {found[-1] / 1000:.1f} "
              f"KB, over 60 KB: {sum(size > 60_000 for size in found)}/{len(found)}")
        print(f"  the largest: {parts(worst)}")
        (out / f"largest-{record.stem}-{start}.eml").write_bytes(worst)
        # The status mail: the whole board (overview and regions) to the player asking.
        seat, _ = desk.next_order(game_id)
        status = desk.as_seat(game_id, seats, seat, "status\n")
        for _, raw in status:
            print(f"  status: {len(raw) / 1000:.1f} KB: {parts(raw)}")
        (out / f"status-{record.stem}-{start}.eml").write_bytes(status[0][1])


def parts(raw: bytes) -> str:
    """What makes up the mail RAW: each part's type (or picture's name) and size."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    subject = message["Subject"]
    sizes = [f"{part.get('Content-ID') or part.get_filename() or part.get_content_type()}"
             f" {len(part.as_bytes()) / 1000:.1f} KB" for part in message.walk()
             if not part.is_multipart()]
    return f"{subject}: {', '.join(sizes)}"


def screenshots(out: Path, names: list[str]) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium: no screenshots")
        return
    for name in names:
        if not (out / f"{name}.html").exists():
            continue
        for width in (390, 1280):
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-quic", "--no-first-run",
                            "--disable-background-networking",
                            "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={out / 'chromium'}",
                            f"--window-size={width},2400",
                            f"--screenshot={out / f'{name}-{width}.png'}",
                            (out / f"{name}.html").resolve().as_uri()],
                           capture_output=True, timeout=120, check=False)
    print(f"screenshots of {len(names)} mails in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--shots", action="store_true", help="screenshots with Chromium")
    parser.add_argument("--sizes", action="store_true", help="sizes over 40 moves a game")
    parser.add_argument("--titles", nargs="*", help="with --sizes: only these titles' games")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.sizes:
        sizes(args.out, set(args.titles or ()))
        return
    names = gallery(args.out)
    if args.shots:
        screenshots(args.out, names)


if __name__ == "__main__":
    main()
