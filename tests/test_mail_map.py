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
    # The first report carries the whole board as a phone can read it: an overview
    # and the board's four regions at full scale (18TN: six columns each), each once;
    # no market picture while no token is on the market (issue 30).
    inline, attached = pictures(report)
    regions = [f"<region{n}>" for n in range(1, 5)]
    assert [p.get_content_type() for p in related.iter_parts()] == \
        ["text/html"] + ["image/png"] * 5
    assert [p["Content-ID"] for p in inline] == ["<map>", *regions]
    assert all(f'src="cid:{cid.strip("<>")}"' in str(html.get_content()) for cid in regions)
    assert 'src="cid:market"' not in str(html.get_content())
    assert attached == [] and inline[0].get_filename() == "18TN-1-move-0-overview.png"
    assert inline[1].get_filename() == "18TN-1-move-0-region-1.png"
    for part in inline:
        png = part.get_content()
        assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
        assert len(png) < 300_000
    text = report.get_body(preferencelist=("plain",))
    assert isinstance(text, EmailMessage)
    assert "(The map is attached as pictures. The whole board: an overview with its " \
        "4 regions numbered, then each region at full scale (1: columns 1-6, 2: columns 7-12, " \
        in " ".join(str(text.get_content()).split())


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
