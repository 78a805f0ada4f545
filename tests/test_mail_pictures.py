"""The reports' maps and their mail parts, made once and shared (issue 14, speed under a
burst): what is shared must be what a fresh drawing would give, never an older one.

The reference is the uncached path (`render_game_map`, the map the goldens check);
positions come from the recorded game 7818, so the boards are real ones.
"""

from __future__ import annotations

import email
import email.policy
import io
import json
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from engine.game import Game
from engine.records import import_record
from moderator.desk.games import BoardSnapshot, PictureCache
from moderator.mail.compose import OutgoingMail, Picture, compose
from moderator.reports.mapimage import changed_hexes, render_game_map

RECORD = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"


@pytest.fixture(scope="module")
def record_game() -> Game:
    if not RECORD.exists():
        pytest.skip("the recorded games are not here")
    return import_record(json.loads(RECORD.read_text())).game


def at(whole: Game, move: int) -> Game:
    return Game(whole.setup, whole.log[:move])


def same_picture(a: bytes, b: bytes) -> bool:
    """The same pixels but for the odd anti-aliased edge (palettes chosen apart)."""
    first = Image.open(io.BytesIO(a)).convert("RGB")
    second = Image.open(io.BytesIO(b)).convert("RGB")
    if first.size != second.size:
        return False
    histogram = ImageChops.difference(first, second).convert("L").histogram()
    return sum(histogram[48:]) / (first.size[0] * first.size[1]) < 0.001


def reference(game_id: str, game: Game, since: int) -> bytes:
    """The map as drawn without any cache."""
    before = at(game, since).state.board if 0 < since < game.next_move else None
    changed = changed_hexes(before, game.state.board) if before is not None else frozenset()
    return render_game_map(game, highlight=changed,
                           caption=f"{game_id} - next move {game.next_move}")


def test_a_cached_map_is_the_map_a_fresh_drawing_gives(record_game: Game) -> None:
    """Across moves that lay tiles and moves that change no hex, with and without an
    outline, every picture the cache hands out is the position's own."""
    cache = PictureCache()
    for move, since in [(250, 0), (250, 240), (251, 250), (252, 250), (300, 300), (251, 250),
                        (300, 250)]:
        game = at(record_game, move)
        picture = cache.map_for("18TN-1", game, since)
        assert picture.filename == f"18TN-1-move-{move}.png"
        assert same_picture(picture.png, reference("18TN-1", game, since)), (move, since)
    # The boards after the first were drawn from the one before, round what changed.
    assert cache.repainted >= cache.plates - 2


def test_a_move_that_changes_no_hex_draws_only_a_new_caption(record_game: Game) -> None:
    """The board drawing is shared by positions with the same tiles, tokens and phase;
    each position still gets its own caption (the move number on the map)."""
    first = next(m for m in range(250, 300)
                 if at(record_game, m).state.board.tiles == at(record_game, m + 1).state.board.tiles
                 and at(record_game, m).state.board.tokens
                 == at(record_game, m + 1).state.board.tokens
                 and at(record_game, m).rules.phase(at(record_game, m).state).name
                 == at(record_game, m + 1).rules.phase(at(record_game, m + 1).state).name)
    cache = PictureCache()
    one = cache.map_for("18TN-1", at(record_game, first), 0)
    two = cache.map_for("18TN-1", at(record_game, first + 1), 0)
    assert (cache.plates, cache.drawn) == (1, 2)
    assert one.png != two.png  # the caption differs
    again = cache.map_for("18TN-1", at(record_game, first + 1), 0)
    assert again is two and cache.drawn == 2


def test_the_board_at_a_readers_last_report_is_the_one_its_moves_made(
        record_game: Game) -> None:
    """The board a map outlines changes against is kept by move number with the moves
    that led there: a board kept for the same number after other moves (as after an
    `undo` and another move) is not taken for it."""
    cache = PictureCache()
    game = at(record_game, 300)
    other_history = at(record_game, 290)  # its board stands in for another history's
    cache._boards[("18TN-1", 280)] = ((*game.log[:279], game.log[0]),
                                      BoardSnapshot.of(other_history))
    picture = cache.map_for("18TN-1", game, 280)
    assert same_picture(picture.png, reference("18TN-1", game, 280))
    assert not same_picture(picture.png, render_game_map(
        game, highlight=changed_hexes(other_history.state.board, game.state.board),
        caption="18TN-1 - next move 300"))


def parse(raw: bytes) -> EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def test_a_picture_encoded_once_is_the_picture_in_every_mail() -> None:
    """The PNG is base64-encoded once and spliced into each mail: the picture (inline in
    an HTML mail, attached to a plain-text one, once either way) decodes to the PNG's
    bytes, and a text naming the splice's marker stays text."""
    png = (Path(__file__).parent / "golden" / "map_18TN_end.png").read_bytes()
    other = (Path(__file__).parent / "golden" / "map_18TN_start.png").read_bytes()
    for to, picture_bytes, text_only in (("a@example.org", png, False),
                                         ("jörg@exämple.org", other, False),
                                         ("b@example.org", png, True)):
        mail = OutgoingMail(kind="report", to=to, subject="[18TN-1] OR 5.2",
                            text="=_png- is not a picture\n--=_ nor a boundary\n",
                            html="<p>=_png-</p>", images=(Picture("map", "m.png",
                                                                  picture_bytes),),
                            game_id="18TN-1", next_move=3, text_only=text_only)
        message = parse(compose(mail, sender="moderator@example.org", sender_name="M",
                                message_id="<1@example.org>", when=0.0))
        parts = [p for p in message.walk() if p.get_content_type() == "image/png"]
        assert len(parts) == 1
        assert parts[0].get_content_disposition() == ("attachment" if text_only
                                                      else "inline")
        assert all(p.get_payload(decode=True) == picture_bytes for p in parts)
        text = next(p for p in message.walk() if p.get_content_type() == "text/plain")
        assert text.get_content().replace("\r\n", "\n") == mail.text
