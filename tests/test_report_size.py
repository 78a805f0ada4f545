"""A report's size (issue 19: "keep a typical report under 60 KB"), and the parts of the
map that keep the worst cases there: the first report after a stock round to the player
laying track carried the whole map, the charts and the market picture (112 KB in 18TN
7818 at move 333). Played by the processor on a real store, no servers.
"""

from __future__ import annotations

import io
import json
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image
from test_mail_processor import GM, MODERATOR, Harness, text_of

import moderator.desk.answers as answers_module
from engine.game import Game
from engine.records import import_record
from engine.title import load_title
from grammar.format import format_line
from grammar.names import names_for_title
from moderator.desk.answers import MAP_PART_BUDGET, NEAR_LAYS, Answers
from moderator.desk.auth import MASTER_KEY, make_token, tag_address
from moderator.mail.parse import parse_incoming
from moderator.reports.crop import OVERVIEW_WIDTH, crop_box, crop_map, neighbourhood
from moderator.reports.lays import legal_lays
from moderator.reports.mapimage import render_game_map

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
TN = FIXTURES / "18TN" / "7818.json"


def record_game() -> Game:
    return import_record(json.loads(TN.read_text())).game


def seat(h: Harness, game: Game, moves: int) -> tuple[str, dict[str, str]]:
    """GAME at move MOVES as a mail game, each member's last report at that move."""
    store = h.store
    seats = {s: f"p{i + 1}@example.org" for i, s in enumerate(game.setup.seats)}
    now = time.time()
    with store.transaction():
        game_id = store.create_mail_game(game.setup.title, GM, [], game.setup.seed, now)
        store.add_member(game_id, GM, "master", MASTER_KEY, status="active", now=now)
        for i, (name, address) in enumerate(seats.items()):
            store.add_member(game_id, address, "player", f"p{i + 1}", seat=name,
                             status="active", now=now)
        store.create_game(game.setup, game_id)
        store.mark_started(game_id, now)
        store.append(game_id, 0, list(game.log[:moves]))
        at = Game(game.setup, game.log[:moves])
        for address in [GM, *seats.values()]:
            store.set_reported(game_id, address, at.next_move, at.round_name)
    return game_id, seats


def play(h: Harness, game_id: str, seats: dict[str, str], game: Game, move: int) -> None:
    """Move MOVE of GAME, mailed by its seat."""
    logged = game.log[move]
    names = names_for_title(load_title(game.setup.title), list(game.setup.seats))
    key = f"p{list(seats).index(logged.seat) + 1}"
    to = tag_address("moderator@example.org", game_id, key,
                     make_token("test-secret-0123456789abcdef", game_id, key))
    h.send(seats[logged.seat], f"move {move}\n{format_line([logged.action], names)}\n",
           to=to, subject=f"[{game_id}]")


def picture(message: EmailMessage, cid: str) -> bytes | None:
    found = [bytes(p.get_content()) for p in message.walk()
             if p.get("Content-ID") == f"<{cid}>"]
    return found[0] if found else None


def test_the_first_report_after_a_stock_round_to_the_player_laying_track(
        tmp_path: Path) -> None:
    """L&N lays track first in OR 6.1; its stations (B13, F11, F17) and legal lays are
    spread over the board. Its president's report has the charts, the part of the map
    with those hexes and their neighbours (not the whole map), the market as a table
    (no picture), and stays under 60 KB."""
    h = Harness(tmp_path)
    game = record_game()
    game_id, seats = seat(h, game, 332)  # the last move of stock round 6
    play(h, game_id, seats, game, 332)
    after = Game(game.setup, game.log[:333])
    turn = after.turn()
    assert turn is not None and turn.entity == "L&N" and turn.step == "track"
    report = h.last_to(seats[turn.seat])
    assert "OR 6.1: L&N to move" in str(report["Subject"])
    assert picture(report, "charts") is not None
    assert picture(report, "market") is None
    html = str(report.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    assert "Companies (top of the stack first)" in html
    # The note under the part names the order in code, as the text's backticks mean.
    assert "with their neighbours; mail <code>map</code> for the whole map.</p>" in html
    part = picture(report, "map")
    assert part is not None
    whole = render_game_map(after)
    with Image.open(io.BytesIO(part)) as p, Image.open(io.BytesIO(whole)) as w:
        assert p.width * p.height < w.width * w.height
    assert len(part) < len(whole) * 0.6
    assert "The part of the map where L&N may lay track: its stations and the hexes of " \
        "its legal lays, with their neighbours" in " ".join(text_of(report).split())
    assert len(report.as_bytes()) < 60_000


def white_share(png: bytes) -> float:
    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(rgb.width * rgb.height) or []
        white = sum(n for n, colour in colours if min(colour) >= 250)  # quantized
        return white / (rgb.width * rgb.height)


@pytest.fixture(scope="module")
def board() -> tuple[Game, bytes]:
    game = record_game()
    at = Game(game.setup, game.log[:333])
    return at, render_game_map(at)


def test_a_part_for_hexes_far_apart_shows_them_and_leaves_the_rest_blank(
        board: tuple[Game, bytes]) -> None:
    """Louisville (B13) and Gulf Coast (J5): a plain cut holding both is most of the
    board; the part shows them and their neighbours, the hexes between blank, in far
    fewer bytes than the cut."""
    game, whole = board
    title = game.state.title
    part = crop_map(whole, title, {"B13", "J5"})
    assert part is not None
    with Image.open(io.BytesIO(whole)) as image:
        box = crop_box(title, {"B13", "J5"}, image.size, most=1.0)
        assert box is not None
        cut = io.BytesIO()
        image.crop(box).save(cut, "PNG", optimize=True)
    assert len(part) < len(cut.getvalue()) / 2
    assert white_share(part) > white_share(cut.getvalue()) + 0.2  # the blank hexes


def test_a_part_for_hexes_close_together_is_a_plain_cut(board: tuple[Game, bytes]) -> None:
    """Nashville (F11) and its neighbour Lebanon (F13): nothing blank."""
    game, whole = board
    part = crop_map(whole, game.state.title, {"F11", "F13"})
    assert part is not None
    with Image.open(io.BytesIO(part)) as p, Image.open(io.BytesIO(whole)) as w:
        box = crop_box(game.state.title, {"F11", "F13"}, w.size)
        assert box is not None and p.width < w.width / 2
        # The cut of the box, with the coordinates' band along its top and left.
        assert p.width - (box[2] - box[0]) == p.height - (box[3] - box[1]) > 0
        cut = io.BytesIO()
        w.crop(box).save(cut, "PNG")
    assert white_share(part) == pytest.approx(white_share(cut.getvalue()), abs=0.1)


def test_a_part_for_most_of_the_board_is_none(board: tuple[Game, bytes]) -> None:
    """The whole map serves when the hexes and their neighbours are most of the board."""
    game, whole = board
    title = game.state.title
    assert crop_map(whole, title, set(list(title.hexes)[::2])) is None


NORTH = FIXTURES / "1861" / "167259.json"


def test_a_company_whose_lays_cover_the_board_is_shown_those_near_its_stations(
        tmp_path: Path) -> None:
    """1861 167259 move 368: the T-R's 4-train rusts the 2-trains, the RSR takes two
    stations, and E (in Ekaterinburg, its track joined to the whole network) lays
    next. Its legal lays cover most of the board: a part showing them all weighed
    60 KB (a report of 101 KB, issue 33). Its president's report shows its stations
    and the lays near them, says so, lists every lay, and stays under 60 KB."""
    h = Harness(tmp_path)
    game = import_record(json.loads(NORTH.read_text())).game
    game_id, seats = seat(h, game, 368)
    play(h, game_id, seats, game, 368)
    after = Game(game.setup, game.log[:369])
    turn = after.turn()
    assert turn is not None and turn.entity == "E" and turn.step == "track"
    report = h.last_to(seats[turn.seat])
    text = " ".join(text_of(report).split())
    assert "its stations and the hexes of its legal lays near them (all are listed " \
        "below)" in text
    part = picture(report, "map")
    assert part is not None and len(part) <= MAP_PART_BUDGET
    # Every legal lay is in the text, the far ones too.
    lays = legal_lays(after)
    far = set(lays) - neighbourhood(after.state.title, {"Q3"}, NEAR_LAYS)
    assert far and all(f" {hex_id}" in text for hex_id in far)
    assert len(report.as_bytes()) < 60_000


def test_where_no_part_fits_the_board_goes_reduced_to_a_phones_width(
        tmp_path: Path) -> None:
    """The last resort of `map_choice`: when no part of the map fits what the rest of
    a report leaves, the report carries the board reduced to a phone's width (the
    changes outlined in it), not the whole map at full scale (1861's weighs 107 KB)."""
    h = Harness(tmp_path)
    game = import_record(json.loads(NORTH.read_text())).game
    game_id, seats = seat(h, game, 368)
    play(h, game_id, seats, game, 368)
    after = h.store.load(game_id)
    reader = seats["Player 2"]  # not E's president: shown what changed (E1, D14)
    h.store.set_reported(game_id, reader, 368, after.round_name)  # as before move 368
    answers = Answers(h.store, h.processor.settings,
                      parse_incoming(h.mail(reader, "status\n").as_bytes(), MODERATOR),
                      time.time())
    fitting, _ = answers.map_choice(game_id, after, reader, False)
    assert len(fitting) == 1 and fitting[0].filename.endswith("-part.png")
    budget = len(fitting[0].png) - 1
    pictures, note = answers.map_choice(game_id, after, reader, False, budget=budget)
    assert [p.filename for p in pictures] == [f"{game_id}-move-369-overview.png"]
    assert note is not None and "reduced to a phone's width (outlined: " in note
    with Image.open(io.BytesIO(pictures[0].png)) as overview:
        assert overview.width == OVERVIEW_WIDTH
    assert len(pictures[0].png) < len(answers.map_for(game_id, after, reader).png) / 3


def test_a_report_whose_map_cannot_give_way_leaves_it_out_rather_than_pass_60_kb(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """1861 167259 in stock round 4: a report with the market's picture and the part
    of the map that changed weighed 60.1 KB on the wire (its HTML's `=` signs take three
    bytes each in quoted-printable, which the estimate missed), and no smaller part
    shows what changed. The map is left out with a note; every mail stays under the
    limit. Since the parts are deflated by zlib-ng (issue 33) that report weighs 59.0 KB
    and keeps its map: the limit is lowered to 59 KB for the case to arise again."""
    limit = 59_000
    monkeypatch.setattr(answers_module, "REPORT_LIMIT", limit)
    h = Harness(tmp_path)
    game = import_record(json.loads(NORTH.read_text())).game
    game_id, seats = seat(h, game, 330)
    left_out = 0
    for move in range(330, 344):
        play(h, game_id, seats, game, move)
        for raw, in h.store.execute("SELECT raw FROM outbox"):
            assert len(bytes(raw)) < limit
        left_out += sum("The map is left out of this report" in " ".join(text_of(m).split())
                        for m in h.new_mail())
    assert left_out >= 1


def test_a_mail_to_an_ended_game_is_not_given_the_whole_board_again(
        tmp_path: Path) -> None:
    """The final report carries the whole board (its overview and regions: 1861's weigh
    over 200 KB); a mail to the game after its end is answered without the board, which
    its sender's last report showed already (a `map` still sends it)."""
    h = Harness(tmp_path)
    game = import_record(json.loads(NORTH.read_text())).game
    last = len(game.log) - 1
    game_id, seats = seat(h, game, last)
    play(h, game_id, seats, game, last)
    assert h.store.load(game_id).state.game_over
    finals = h.new_mail()
    assert finals and all(picture(m, "region1") is not None for m in finals)
    player = seats[game.log[last].seat]
    key = f"p{list(seats).index(game.log[last].seat) + 1}"
    to = tag_address("moderator@example.org", game_id, key,
                     make_token("test-secret-0123456789abcdef", game_id, key))
    h.send(player, "done\n", to=to, subject=f"[{game_id}]")
    (answer,) = h.new_mail()
    assert "the game is over" in text_of(answer)
    assert picture(answer, "region1") is None and picture(answer, "map") is None
    assert len(answer.as_bytes()) < 60_000
    h.send(player, "map\n", to=to, subject=f"[{game_id}]")
    (board,) = h.new_mail()
    assert picture(board, "region1") is not None
