"""1825 0, 5.1.2: a company's money is company credit, not the bank's: reports call it so
(issue #18, "What players see"); other titles keep "treasury"."""

from __future__ import annotations

from engine.game import Game, Setup
from engine.views import game_view


def test_5_1_2_reports_name_a_company_s_money_its_company_credit() -> None:
    assert game_view(Game(Setup("1825", ("A", "B", "C"), 1))).treasury_word == \
        "company credit"
    assert game_view(Game(Setup("18TN", ("A", "B", "C"), 1))).treasury_word == "treasury"
