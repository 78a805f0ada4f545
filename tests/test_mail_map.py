"""Every report carries the map: inline in the HTML part (multipart/related, cid:) and
attached for readers of the plain text; it opens as a PNG, and the hexes changed since
the reader's last report are outlined."""

from __future__ import annotations

import io
from email.message import EmailMessage
from pathlib import Path

from PIL import Image
from test_mail_processor import PLAYERS, Harness, set_up_game

from moderator.reports.mapimage import changed_hexes


def pictures(message: EmailMessage) -> tuple[list[EmailMessage], list[EmailMessage]]:
    inline, attached = [], []
    for part in message.walk():
        if part.get_content_type() == "image/png":
            assert isinstance(part, EmailMessage)
            (inline if part.get("Content-ID") else attached).append(part)
    return inline, attached


def test_a_report_shows_the_map_inline_once(tmp_path: Path) -> None:
    """The picture goes once: inline in the HTML, with a file name to save it by (a
    second attached copy doubled every report's size)."""
    h = Harness(tmp_path)
    set_up_game(h)
    report = h.last_to(PLAYERS["Ann"])
    assert report.get_content_type() == "multipart/mixed"  # the deadline's .ics
    html = report.get_body(preferencelist=("html",))
    assert isinstance(html, EmailMessage)
    assert 'src="cid:map"' in str(html.get_content())
    related = next(p for p in report.walk() if p.get_content_type() == "multipart/related")
    # The map, and (a stock round's first report) the stock market: each once.
    assert [p.get_content_type() for p in related.iter_parts()] == ["text/html", "image/png",
                                                                    "image/png"]
    inline, attached = pictures(report)
    assert [p["Content-ID"] for p in inline] == ["<map>", "<market>"]
    assert 'src="cid:market"' in str(html.get_content())
    assert attached == [] and inline[0].get_filename() == "18TN-1-move-0.png"
    for part in inline:
        png = part.get_content()
        assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
        assert len(png) < 300_000
    text = report.get_body(preferencelist=("plain",))
    assert isinstance(text, EmailMessage)
    assert "(The map is attached as a picture.)" in str(text.get_content())


def test_notices_carry_no_picture(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.send("gm@example.org", "create game 18TN seed=5")
    created = h.last_to("gm@example.org")
    assert pictures(created) == ([], [])


def test_changed_hexes_compares_tiles_and_tokens() -> None:
    from engine.game import Game, Setup
    from engine.state import PlacedTile

    game = Game(Setup("18TN", ("Ann", "Bob", "Cy")))
    before = game.clone()
    game.state.board.tiles["H5"] = PlacedTile("8", 0)
    game.state.board.tokens.setdefault("F11", {}).setdefault(0, []).append("TC")
    assert changed_hexes(before.state.board, game.state.board) == {"H5", "F11"}
