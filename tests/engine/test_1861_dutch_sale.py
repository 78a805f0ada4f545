"""1861 9.4: a private whose minimum a full round of passes lowered, as the site sells it.

9.4: the privates "are auctioned in the same manner as Minor Companies"; "If all
players pass ... the minimum bid for the next Private Company to be auctioned is
reduced by R5, and the Stock Round resumes with the player who initiated the round of
passes." Ours resumes the auction (a raise allowed). 18xx.games sells the private to
the first bidder at once (its "Dutch" mode) and refuses a raise ("Minimum bid is ...";
seed 3501 game 167: the Warsaw-Vienna at R55, a raise to R60). Listed in
docs/site-differences.md; here: our rule, the export and import of such a sale as the
site records it (the other bidders' passes are the site's own), the differential's
recognizer of the refused raise, and the random players' avoidance of it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from scenarios_1861 import new_game, now, win_lot
from test_export_records import assert_reads_back

from engine.actions import Bid, Pass, StartAuction
from engine.game import Game
from engine.records import export_record, forms_1861

SITE_IDS = {"Ann": "1", "Bob": "2", "Cy": "3", "Dee": "4"}
PLAYERS = [{"id": int(i), "name": name} for name, i in SITE_IDS.items()]
OPTIONS = frozenset({"unlimited_trains"})  # (14.2, as the site plays it)


def site_1861() -> ModuleType:
    """tools/oracle/site_1861.py, the differential's 1861 module (not a package)."""
    folder = str(Path(__file__).resolve().parents[2] / "tools" / "oracle")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("site_1861")


def ann_bids_the_lowered_minimum() -> Game:
    """Everyone passes on the Tsarskoye Selo (R20): its minimum falls to R15; Ann, who
    began the passes, bids R15."""
    g = new_game(options=OPTIONS)
    for seat in ("Ann", "Bob", "Cy", "Dee"):
        g.apply(seat, Pass())
    assert g.state.privates["TSR"].price == 15
    g.apply("Ann", Bid(15, "TSR"))
    return g


def test_9_4_ours_resumes_the_auction_after_the_minimum_falls() -> None:
    g = ann_bids_the_lowered_minimum()
    assert forms_1861.sold_at_once(g) == "TSR"
    g.apply("Bob", Bid(20))  # a raise, "in the same manner as Minor Companies"
    win_lot(g)
    assert g.state.privates["TSR"].owner == "Bob"
    assert g.state.players["Bob"].cash == 315 - 20


def test_9_4_no_sale_at_once_without_a_fall_of_the_minimum() -> None:
    g = new_game()
    g.apply("Ann", Bid(20, "TSR"))
    assert forms_1861.sold_at_once(g) is None


def test_9_4_the_sale_to_the_first_bidder_exports_and_reads_back_as_the_sites() -> None:
    """The others pass (the site's own passes, not recorded): the record goes on with
    the next private's bid, and imports to the same game."""
    g = ann_bids_the_lowered_minimum()
    passes = len(g.log)
    win_lot(g)
    assert g.state.privates["TSR"].owner == "Ann" and g.state.players["Ann"].cash == 300
    g.apply(now(g), Bid(30, "BSS"))
    record = export_record(g)
    bids = [(a["entity"], a["type"], a.get("company"), a.get("price"))
            for a in record["actions"][-6:]]
    assert [b for b in bids if b[1] == "bid"] == [(1, "bid", "TSR", 15), (2, "bid", "BSS", 30)]
    assert bids[-2:] == [(1, "bid", "TSR", 15), (2, "bid", "BSS", 30)]  # no passes between
    assert len(g.log) - passes == 4  # (ours: the three passes, then the bid)
    assert_reads_back(g, record)


def test_9_4_a_raise_in_the_record_is_not_taken_for_the_sites_sale() -> None:
    """Our own record may hold the raise the site refuses (ours accepts it): the
    importer makes the site's passes only when the record goes on with something else,
    never before a raise on that private, so Bob's raise is read as his and he wins."""
    g = ann_bids_the_lowered_minimum()
    g.apply("Bob", Bid(20))
    win_lot(g)
    assert g.state.privates["TSR"].owner == "Bob"
    g.apply(now(g), Bid(30, "BSS"))
    record = export_record(g)
    raises = [(a["entity"], a["company"], a["price"]) for a in record["actions"]
              if a["type"] == "bid" and a.get("company") == "TSR"]
    assert raises == [(1, "TSR", 15), (2, "TSR", 20)]
    back = assert_reads_back(g, record)
    assert back.game.state.privates["TSR"].owner == "Bob"
    assert back.game.state.players["Bob"].cash == 315 - 20


def _site_after_the_sale(holder: str | None, cash: int) -> list[dict[str, Any]]:
    """The site's last position before the refused raise: HOLDER owns the TSR."""
    return [{"round": "Stock Round 1", "players": [
        {"id": int(i), "cash": cash if seat == holder else 315, "shares": {},
         "companies": ["TSR"] if seat == holder else []}
        for seat, i in SITE_IDS.items()]}]


def test_9_4_the_refused_raise_is_named_where_the_site_has_sold_it() -> None:
    site = site_1861()
    g = ann_bids_the_lowered_minimum()
    raise_ = {"type": "bid", "entity": 2, "company": "TSR", "price": 20}
    answer = {"ok": False, "error": "Engine::GameError: Minimum bid is 100₽ for Tsarskoye "
              "Selo Railway", "record_players": PLAYERS}
    assert site.site_difference(g, answer, raise_, _site_after_the_sale("Ann", 300)) == \
        site.DUTCH_SALE
    # Not where the positions differ otherwise: the site's holder another player, or
    # not having paid the bid; nobody holding it; a bid that is no raise.
    for holder, cash in (("Bob", 300), ("Ann", 315), (None, 315)):
        assert not site.raise_after_dutch_sale(g, raise_, _site_after_the_sale(holder, cash),
                                               PLAYERS)
    assert not site.raise_after_dutch_sale(g, {**raise_, "price": 15},
                                           _site_after_the_sale("Ann", 300), PLAYERS)


def test_9_4_the_raise_is_named_past_a_bidder_who_cannot_raise() -> None:
    """Seed 3501 game 167: the player after the first bidder had no money (9.2: dropped,
    unrecorded); the refused raise is the next one's."""
    site = site_1861()
    g = ann_bids_the_lowered_minimum()
    g.state.players["Bob"].cash = 10
    assert now(g) == "Bob" and g.legal() == ["pass"]
    raise_ = {"type": "bid", "entity": 3, "company": "TSR", "price": 20}
    assert site.raise_after_dutch_sale(g, raise_, _site_after_the_sale("Ann", 300), PLAYERS)
    assert now(g) == "Bob"  # (judged on a copy)


def test_9_4_no_name_for_a_refused_raise_on_a_private_at_its_printed_minimum() -> None:
    site = site_1861()
    g = new_game()
    g.apply("Ann", Bid(20, "TSR"))
    raise_ = {"type": "bid", "entity": 2, "company": "TSR", "price": 25}
    assert not site.raise_after_dutch_sale(g, raise_, _site_after_the_sale("Ann", 295),
                                           PLAYERS)


def test_9_4_the_random_players_leave_the_raise_and_pass() -> None:
    site = site_1861()
    g = ann_bids_the_lowered_minimum()
    assert site.AVOID_DUTCH_RAISE
    assert site.site_refuses(g, Bid(20))
    assert not site.site_refuses(g, Pass())
    fresh = new_game()
    fresh.apply("Ann", Bid(20, "TSR"))
    assert not site.site_refuses(fresh, Bid(25))
    assert not site.site_refuses(new_game(), StartAuction("TSR", 20))
