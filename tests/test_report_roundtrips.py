"""What a report shows so that no mail is wasted (issue 30): the auction under way for
every title -- item, high bid and its holder, the proposer, who is still in, whose bid
it is -- in the text and the HTML part of the report (`status` sends the same); no
market picture while no token is on it; 1825's par before its price and its Share
Dealing Round."""

from __future__ import annotations

from pathlib import Path

import scenarios_1825 as s25
import scenarios_1850 as s50
import scenarios_1861 as s61

from engine.actions import Bid, BuyPrivate, StartAuction
from engine.game import Game
from moderator.config import ModeratorConfig
from moderator.desk.answers import Answers
from moderator.desk.settings import ProcessorSettings
from moderator.desk.timekeeper import timer_incoming
from moderator.reports.report import position, render_tables
from moderator.store import Store


def tables(game: Game) -> tuple[str, str]:
    text, html = render_tables(position("G-1", game), None)
    return text, str(html)


def test_1861_a_minors_auction_shows_bid_holder_proposer_and_who_is_still_in() -> None:
    game = s61.new_game()
    s61.privates_at_minimum(game)
    game.apply("Bob", StartAuction("N", 140))
    game.apply("Cy", Bid(150))
    text, html = tables(game)
    assert "Auction of N (proposed by Bob)" in text, text
    assert "high bid R150 by Cy; still in: Bob, Cy, Dee, Ann" in text, text
    assert "Dee to bid (at least R155) or pass" in text
    assert "<h3>Auction of N</h3>" in html and "R150 by Cy" in html
    assert "proposed by Bob" in html


def test_1861_an_opening_lot_without_a_bid_is_shown() -> None:
    text, _ = tables(s61.new_game())
    assert "Auction of TSR" in text and "high bid none yet" in text, text
    assert "Ann to bid (at least R20) or pass" in text


def test_1850_an_auction_among_the_bidders_on_a_private_is_shown() -> None:
    game = s50.new_game()
    game.apply("Ann", Bid(45, "CM"))
    game.apply("Bob", Bid(50, "CM"))
    game.apply("Cy", BuyPrivate("GRSC"))
    text, html = tables(game)
    assert "Auction of CM\n" in text, text
    assert "high bid $50 by Bob; still in: Ann, Bob" in text
    assert "Ann to bid (at least $55) or pass" in text
    assert "<h3>Auction of CM</h3>" in html


def test_no_auction_no_block() -> None:
    game = s50.new_game()
    text, html = tables(game)
    assert "Auction of" not in text and "Auction of" not in html


def test_no_market_picture_while_no_token_is_on_the_market(tmp_path: Path) -> None:
    """Stock round 1 before any par: a full-screen picture of empty spaces told nothing."""
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    try:
        answers = Answers(store, ProcessorSettings.from_config(config),
                          timer_incoming("t"), 0.0)
        game = s50.new_game()
        assert answers.market_for("g", game, "a@example.org", whole=True) == ()
        s50.privates_sold(game)
        s50.companies_started(game)  # two companies parred: their tokens are shown
        assert any(game.state.market.stacks.values())
        picture, = answers.market_for("g", game, "a@example.org", whole=True)
        assert picture.png
    finally:
        store.close()


def test_1825_a_company_not_on_the_market_yet_shows_its_par_not_price_none() -> None:
    """1825's companies have their pars from the start, on the market only once
    floated; and its stock round is the Share Dealing Round (as its moves say)."""
    game = s25.new_game()
    text, html = tables(game)
    assert "price None" not in text and "None (" not in html
    assert "GWR     par 90, not on the market yet" in text, text
    assert "<td class=\"n\">- (90)</td>" in html
    pos = position("1825-1", game)
    assert pos.view.round == "Share Dealing Round 1"
    assert pos.headline.startswith("SDR 1: ")


def test_legal_lays_are_listed_with_their_price_and_what_the_company_keeps() -> None:
    """18TN record 7818, move 300: TC lays track; F9's river costs $40 (the engine's own
    charge, found by laying it on a copy), the other hexes nothing."""
    from tn_scenarios import _record

    from moderator.reports.lays import lay_costs, lays_text, legal_lays

    setup, moves = _record()
    game = Game(setup, moves[:300])
    turn = game.turn()
    assert turn is not None and (turn.entity, turn.step) == ("TC", "track")
    lays = legal_lays(game)
    cash = game.state.corporations["TC"].cash
    text = lays_text(game.state.title, lays, lay_costs(game, lays))
    assert f"F9: 7 rot 3 or 4; 8 rot 2 or 4; 9 rot 1 ($40, leaves ${cash - 40})" in text
    assert "G10: 7 rot 2 or 3; 8 rot 1 or 3; 9 rot 0 (free)" in text
