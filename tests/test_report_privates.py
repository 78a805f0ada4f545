"""Private companies in the report (issue 19): each ability in the rulebook's words
without the notes the title data keeps for us, and who may still use it, checked against
what the engine lets the owning company do (the `use` orders it lists)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.actions import LayTile
from engine.game import Game
from engine.records import import_record
from engine.title import available_titles, load_title
from engine.views import game_view
from moderator.desk.answers import Footer
from moderator.reports.privates import ability_text, who_may_use
from moderator.reports.report import position as report_position
from moderator.reports.report import render

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
TN = FIXTURES / "18TN" / "7818.json"


@pytest.fixture(scope="module")
def tn() -> Game:
    return import_record(json.loads(TN.read_text())).game


@pytest.mark.parametrize("title_name", available_titles())
def test_no_ability_shows_a_note_meant_for_us(title_name: str) -> None:
    title = load_title(title_name)
    for spec in title.privates:
        text = ability_text(title, spec)
        assert text, spec.sym
        for note in ("18xx.games", "see decisions", "see notes", "map data", "Rulebook:",
                     "#1", "#2", "its hex"):
            assert note not in text, (spec.sym, text)
        assert not text.startswith("None"), text


def test_18tn_privates_2_to_4_say_their_conditions_in_full() -> None:
    """Table III: #2-#4 lay "under the same conditions as #1" -- spelt out for each, in
    its own hex (the report may no longer show #1); M&C's hex is Memphis, H3 (the data's
    decision on the rulebook's misprint), and no word of the decision reaches players."""
    title = load_title("18TN")
    tcc = ability_text(title, title.private("TCC"))
    assert "without connection to its stations" in tcc and "lost if another tile is laid " \
        "in H-17 first" in tcc
    for sym, where in (("ETWCR", "F-19"), ("MCR", "H3"), ("OWR", "E-16")):
        text = ability_text(title, title.private(sym))
        assert "A major company owning it may lay one free yellow tile in " \
            f"{where}, without connection to its " \
            "stations and outside its normal two yellow lays; does not close the private; " \
            f"lost if another tile is laid in {where} first." == text, text
    assert "H-5" not in ability_text(title, title.private("MCR"))


def test_who_may_use_agrees_with_the_use_orders_the_engine_lists(tn: Game) -> None:
    """At every track step of the recorded 18TN game where the company to move owns a
    private with a tile lay, the report names that company as its user exactly when the
    engine offers it `use PRIVATE`; after the lay, nobody may."""
    replay = Game(tn.setup)
    checked = 0
    for move in tn.log:
        turn = replay.turn()
        if turn is not None and turn.step == "track":
            legal = game_view(replay).legal
            for private in replay.state.privates.values():
                if private.owner != turn.entity or private.closed or not private.spec.tiles:
                    continue
                offered = any(o.startswith(f"use {private.sym} ") for o in legal)
                assert (who_may_use(replay, private) == turn.entity) == offered
                checked += 1
        replay.apply(move.seat, move.action)
    assert checked >= 8
    used = Game(tn.setup, tn.log[:139])  # SR has just laid ETWCR's tile in F19
    assert who_may_use(used, used.state.privates["ETWCR"]) == "nobody: its tile lay is used"
    # Held by a player, nobody uses it yet; LNR's ability is its buyer's at once.
    early = Game(tn.setup, tn.log[:20])
    tcc = early.state.privates["TCC"]
    assert who_may_use(early, tcc) == f"a company that buys it from {tcc.owner}"
    assert who_may_use(early, early.state.privates["LNR"]) is None


def test_another_tile_in_the_hex_loses_the_free_lay(tn: Game) -> None:
    """18TN Table III: the free tile is lost if another tile is laid in the hex first.
    SR owns ETWCR and lays a yellow tile in F19 with its normal lay: the report says
    nobody may use ETWCR, and the engine no longer offers it."""
    game = Game(tn.setup, tn.log[:138])
    turn = game.turn()
    assert turn is not None and turn.entity == "SR" and turn.step == "track"
    private = game.state.privates["ETWCR"]
    assert who_may_use(game, private) == "SR"
    game.apply(turn.seat, LayTile("7", "F19", 0))
    assert who_may_use(game, game.state.privates["ETWCR"]) == "nobody: a tile lies on F19"
    after = game.turn()
    assert after is not None and after.step == "track"  # its second yellow lay is left
    assert not any(o.startswith("use ETWCR") for o in game_view(game).legal)


def test_the_report_shows_the_ability_and_its_user(tn: Game) -> None:
    game = Game(tn.setup, tn.log[:138])
    text, html = render("report", pos=report_position("18TN-1", game), you=None, history=(),
                        results=None, sections=(), lobby=None, intro=None, subject="s",
                        footer=Footer("moderator@example.org"), game_id="18TN-1",
                        deadline=None, withheld=None,
                        map_cid=None)
    flat = " ".join(text.split())
    assert "may use it: SR" in flat and "May use it: L&amp;N" in html
    assert "(same conditions as #1)" not in flat and "18xx.games" not in html
    assert "lay one free yellow tile in F-19, without connection" in flat
