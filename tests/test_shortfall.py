"""When an order is warned of (issue 30, item 5; moderator.desk.shortfall): a lay or a
station that leaves a company that must own a train, and has none, short of the
cheapest one -- counting the loans it may still take (1861 10.2), never its
president's money -- and nothing else: a free order, a company with a train, one that
can still pay, an order the engine refuses (its own reason answers it). And the
`confirm` form the warning asks for, read by the grammar and applied by a submission."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from engine.actions import LayTile, PlaceToken
from engine.game import Game
from engine.records import import_record
from engine.state import BANK
from grammar.names import names_for_title
from grammar.parser import Confirmed, parse_line
from moderator.desk.orders import run_submission
from moderator.desk.shortfall import Shortfall, shortfall
from moderator.reports.lays import lay_costs, legal_lays

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


@cache
def record(name: str) -> Game:
    return import_record(json.loads((FIXTURES / name).read_text())).game


def at(name: str, move: int) -> Game:
    full = record(name)
    return Game(full.setup, full.log[:move])


def test_18tn_a_station_that_leaves_the_president_to_pay_is_warned_of() -> None:
    """7818 move 399: GMO, $540, no train, must buy one; the cheapest, a 6-train, is
    $600. Its $100 station leaves $440, $160 short (its president's to pay); a $60 lay
    in D5 leaves $480, $120 short; a free lay is no warning."""
    game = at("18TN/7818.json", 399)
    assert shortfall(game, "Player 4", PlaceToken("D7")) == Shortfall(
        "GMO", "$440", None, "6", "bank", "$600", "$160", "Player 4")
    d5 = lay_costs(game, legal_lays(game))[("D5", "7")]
    assert d5.paid == 60
    found = shortfall(game, "Player 4", LayTile("7", "D5", 3))
    assert found is not None and (found.cash, found.short) == ("$480", "$120")
    assert game.clone().attempt("Player 4", LayTile("8", "F7", 0))
    assert shortfall(game, "Player 4", LayTile("8", "F7", 0)) is None  # free
    assert not game.clone().attempt("Player 4", PlaceToken("F11"))
    assert shortfall(game, "Player 4", PlaceToken("F11")) is None  # the engine refuses it


def test_18tn_a_company_with_a_train_is_not_warned() -> None:
    """7818 move 308: GMO owns two 3-trains; its $100 station is no warning."""
    game = at("18TN/7818.json", 308)
    assert [t.name for t in game.state.corporation("GMO").trains] == ["3", "3"]
    assert game.clone().attempt("Player 4", PlaceToken("D7"))
    assert shortfall(game, "Player 4", PlaceToken("D7")) is None


def _m_v_second_lay() -> tuple[Game, str, LayTile]:
    """167259 move 71: M-V (R110, no loans, no train) has laid its first tile; a
    second lay costs R20 (10.4)."""
    game = at("1861/167259.json", 71)
    turn = game.turn()
    assert turn is not None and turn.entity == "M-V"
    costs = lay_costs(game, legal_lays(game))
    hex_id, tile = next(key for key, c in sorted(costs.items()) if c.paid == 20)
    rotation = legal_lays(game)[hex_id][tile][0]
    lay = LayTile(tile, hex_id, rotation)
    assert game.clone().attempt(turn.seat, lay)
    return game, turn.seat, lay


def test_1861_the_loans_a_company_may_still_take_count() -> None:
    """With its two loans (10.2: R45 each, net) M-V keeps R180 after the R20 lay: no
    warning. With one loan taken and R60, it could pay for a 2-train (R60 + R45) before
    the lay and not after (R40 + R45): R15 short, and nobody is named to pay (10.10:
    the company takes loans; its Director does not pay)."""
    game, seat, lay = _m_v_second_lay()
    assert shortfall(game, seat, lay) is None
    m_v = game.state.corporation("M-V")
    m_v.loans = 1
    game.state.transfer_cash("M-V", BANK, m_v.cash - 60)
    assert shortfall(game, seat, lay) == Shortfall(
        "M-V", "R40", "R85", "2", "bank", "R100", "R15", None, "Director", "Bank Pool")


def test_confirm_applies_the_order_warned_of() -> None:
    """The grammar reads `confirm ORDER` (with a company prefix too); a submission
    refuses the bare order with the warning and applies the confirmed one."""
    game = at("18TN/7818.json", 399)
    names = names_for_title(game.rules.title, game.setup.seats)
    assert parse_line("Confirm GMO: token D7", names) == (
        Confirmed((PlaceToken("D7", company="GMO"),)),)
    refused = run_submission(game.clone(), "Player 4", "lay 8 at F7 rot 0\ntoken D7\n")
    assert not refused.ok and "Write `confirm token D7` to place it anyway" in refused.text
    confirmed = run_submission(game.clone(), "Player 4",
                               "lay 8 at F7 rot 0\nconfirm token D7\n")
    assert confirmed.ok and len(confirmed.moves) == 2
    # A confirmation where nothing was to be warned of is no fault.
    assert run_submission(game.clone(), "Player 4", "confirm lay 8 at F7 rot 0\n").ok
