"""Titles speak for themselves in what players read too (issue 34): a report's tables,
the position's plain text, the shortfall warning and the auto-pass answers name a
company's head and the market's pool in the title's words (`Rules.words`): 1825 and
1861 have a "Director" and a "Bank Pool", never a "president" or an "Open Market";
18TN keeps its own words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.actions import Pass, PlaceToken
from engine.board import place_token
from engine.errors import GameError
from engine.game import Game
from engine.records import import_record
from moderator.desk.orders import status_text
from moderator.desk.shortfall import Shortfall, warning
from moderator.reports.report import position, render_tables

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
# Mid-game positions of recorded games: companies floated, trains in the pool.
RECORDS = {"18TN": ("18TN/7818.json", 300), "1861": ("1861/167259.json", 400),
           "1825": ("1825/1825_game_end_bank.json", 300)}
OWN = {"18TN": ("president", "Open Market"), "1861": ("Director", "Bank Pool"),
       "1825": ("Director", "Bank Pool")}
FOREIGN = {"18TN": (), "1861": ("president", "Open Market"),
           "1825": ("president", "Open Market")}


def game_at(title: str) -> Game:
    path, moves = RECORDS[title]
    whole = import_record(json.loads((FIXTURES / path).read_text())).game
    return Game(whole.setup, whole.log[:moves])


def said(text: str, term: str) -> bool:
    return re.search(rf"\b{re.escape(term)}\b", text, re.IGNORECASE) is not None


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_the_reports_tables_and_text_name_the_head_in_the_titles_words(title: str) -> None:
    game = game_at(title)
    pos = position("G-1", game)
    text, html = render_tables(pos, None)
    plain = status_text("G-1", pos.view)
    head, _ = OWN[title]
    for shown in (text, str(html), plain):
        assert said(shown, head), shown
        for term in FOREIGN[title]:
            assert not said(shown, term), (term, shown)


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_the_shortfall_warning_names_the_head_and_the_pool_in_the_titles_words(
        title: str) -> None:
    rules = game_at(title).rules
    found = Shortfall("X", "R10", None, "3", "pool", "R180", "R170", "Ann",
                      rules.word("head"), rules.word("market"), rules.word("station"))
    said_text = warning(found, Pass(), "buy train 3")
    head, market = OWN[title]
    assert f"in the {market}" in said_text and f"its {head} Ann" in said_text, said_text
    for term in FOREIGN[title]:
        assert not said(said_text, term), (term, said_text)
    token_text = warning(found, PlaceToken("A1"), "token A1")
    assert f"after this {'Base' if title == '1825' else 'station'} X" in token_text


# A company's token and the offering's column: 1825's "Bases" ("Tokens are called
# Bases", 1.3) and "the Bank"; 1861's "Bank" too; 18TN its stations and IPO.
TOKENS = {"18TN": ("tokens left", "IPO"), "1861": ("tokens left", "Bank"),
          "1825": ("Bases left", "Bank")}


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_the_tables_name_the_tokens_and_the_offering_in_the_titles_words(title: str) -> None:
    game = game_at(title)
    pos = position("G-1", game)
    text, html = render_tables(pos, None)
    plain = status_text("G-1", pos.view)
    tokens, offering = TOKENS[title]
    for shown in (text, plain):
        assert tokens in shown, shown
        assert re.search(rf"\b{offering} \d+%", shown), shown
    assert f'<th class="n">{offering}</th>' in str(html)
    if title != "18TN":
        assert not re.search(r"\bIPO\b", text + str(html) + plain)
    if title == "1825":
        assert "tokens left" not in text + plain and "<th class=\"n\">Bases</th>" in str(html)


def test_1825_speaks_of_bases_where_a_token_is_placed_or_refused() -> None:
    game = game_at("1825")
    whole = "\n".join(game.state.log)
    assert "places its home Base in" in whole and "places its home station" not in whole
    corp = next(c for c in game.state.corporations.values() if c.floated and c.token_costs)
    corp.token_costs.clear()
    with pytest.raises(GameError, match=f"^{corp.sym} has no Bases left$"):
        place_token(game.rules, game.state, corp, corp.spec.home or "", None)


def test_the_plain_position_says_a_company_not_yet_on_the_market_as_the_tables_do() -> None:
    # 1825's companies have their face value from the start and no price until they form.
    game = Game(game_at("1825").setup)
    pos = position("G-1", game)
    plain = status_text("G-1", pos.view)
    text, _ = render_tables(pos, None)
    assert "None" not in plain, plain
    assert "LNWR    par 100, not on the market yet  Director none" in plain, plain
    assert "par 100, not on the market yet" in text
