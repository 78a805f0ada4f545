"""1861 11: a nationalised company's "remaining assets are given to the Russian State
Railway"; 10.8: one that cannot pay its interest "pays all the money it has to the
Bank" (listed: the site gives that to the RSR too). The differential's 1861 module counts
what the site's RSR holds apart only in the second case: where ours' RSR receives the
money an action later (a company nationalised without a train, 10.10), both engines
agree (seed 3601 game 25: E, R40 with one loan, after laying its second tile).
"""

from __future__ import annotations

from typing import Any

from test_1861_dutch_sale import site_1861


def summary(rsr: int, e_cash: int, e_loans: int, e_price: int | None) -> dict[str, Any]:
    return {"corporations": {
        "RSR": {"cash": rsr, "loans": 0, "price": None, "trains": ["2"]},
        "E": {"cash": e_cash, "loans": e_loans, "price": e_price, "trains": []}}}


def test_money_both_engines_give_the_rsr_is_not_held_apart() -> None:
    site = site_1861()
    ours_before = summary(204, 40, 1, 45)
    theirs = summary(244, 0, 0, None)  # the site nationalised E at once
    ours_after = summary(244, 0, 0, None)  # ours at the next action
    assert site.unpaid_interest_to_rsr([ours_before], theirs, 0, [ours_after]) == 0
    assert theirs["corporations"]["RSR"]["cash"] == 244


def test_unpaid_interest_the_site_gives_the_rsr_is_held_apart() -> None:
    site = site_1861()
    ours_before = summary(204, 40, 1, 45)
    theirs = summary(244, 0, 0, None)
    ours_after = summary(204, 0, 0, None)  # ours paid the R40 to the Bank (10.8)
    assert site.unpaid_interest_to_rsr([ours_before], theirs, 0, [ours_after]) == 40
    assert theirs["corporations"]["RSR"]["cash"] == 204
