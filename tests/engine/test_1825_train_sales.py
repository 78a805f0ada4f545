"""1825 Unit 1, 5.6.5: trains between companies at any multiple of £10 agreed by their
directors; here the seller's offer, `sell train N to XYZ for £M`, made in the seller's
turn and taken (`accept`) or dropped (`decline`) by the buyer's director in the buyer's
turn (5.6: a company buys trains in its own turn). The orders are read by the parser.

The game: `first_round` forms the LNWR (Ann) and the GWR (Bob); the LNWR buys a 2-train
in Operating Round 1.1 (`lnwr_first_turn`'s moves) and offers it to the GWR.
"""

from __future__ import annotations

import pytest
from scenarios_1825 import all_pass, company_turn, first_round, new_game, now

from engine.actions import Action, BuyTrain, LayTile, PlaceToken, SellTrain
from engine.errors import GameError
from engine.game import Game
from engine.views import game_view
from grammar.format import format_order
from grammar.names import names_for_title
from grammar.parser import parse_line


def order(g: Game, text: str) -> Action:
    (parsed,) = parse_line(text, names_for_title(g.rules.title, g.setup.seats))
    assert isinstance(parsed, Action)
    return parsed


def lnwr_offers_its_2_train(price: int = 100) -> Game:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", order(g, f"sell train 2 to GWR for £{price}"))
    g.apply("Ann", order(g, "done"))
    assert company_turn(g) == "GWR" and now(g) == "Bob"
    return g


def test_5_6_5_the_order_form() -> None:
    g = new_game()
    action = order(g, "sell train 3 to GWR for £200")
    assert action == SellTrain("3", "GWR", 200)
    names = names_for_title(g.rules.title, g.setup.seats)
    assert format_order(action, names) == "sell train 3 to GWR for 200"
    assert order(g, format_order(action, names)) == action


def test_5_6_5_the_buyer_accepts_the_seller_s_offer_in_its_own_turn() -> None:
    g = lnwr_offers_its_2_train()
    state = g.state
    lnwr, gwr = state.corporations["LNWR"], state.corporations["GWR"]
    assert "accept (LNWR's 2-train for £100, 5.6.5)" in g.legal()
    assert "LNWR offers GWR its 2-train for £100, until LNWR operates again (5.6.5)" in \
        game_view(g).notes
    lnwr_cash, gwr_cash = lnwr.cash, gwr.cash
    g.apply("Bob", order(g, "accept"))
    assert [t.name for t in gwr.trains] == ["2"] and lnwr.trains == []
    assert gwr.cash == gwr_cash - 100 and lnwr.cash == lnwr_cash + 100
    assert now(g) == "Bob"  # the GWR's turn goes on, in its train step; nobody was asked
    assert not any(line.startswith("accept") for line in g.legal())
    assert not any("offers GWR" in note for note in game_view(g).notes)


def test_5_6_5_the_buyer_declines_and_nothing_changes_hands() -> None:
    g = lnwr_offers_its_2_train()
    g.apply("Bob", order(g, "decline"))
    state = g.state
    assert "Bob declines LNWR's 2-train for £100 for GWR" in state.log
    assert [t.name for t in state.corporations["LNWR"].trains] == ["2"]
    assert state.corporations["GWR"].trains == []
    with pytest.raises(GameError):
        g.apply("Bob", order(g, "accept"))


def test_5_6_5_a_buyer_s_purchase_at_the_offered_price_needs_no_second_answer() -> None:
    g = lnwr_offers_its_2_train(price=120)
    g.apply("Bob", order(g, "buy train 2 from LNWR for £120"))
    assert [t.name for t in g.state.corporations["GWR"].trains] == ["2"]
    assert now(g) == "Bob"


def test_5_6_5_the_price_is_a_multiple_of_10_and_the_train_the_seller_s() -> None:
    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    g.apply("Ann", BuyTrain("2"))
    with pytest.raises(GameError, match="multiple of £10"):
        g.apply("Ann", order(g, "sell train 2 to GWR for £105"))
    with pytest.raises(GameError, match="owns no 3-train"):
        g.apply("Ann", order(g, "sell train 3 to GWR for £100"))
    assert not any(m.startswith("sells:") for m in g.state.corporations["LNWR"].markers)


def test_5_6_5_the_accepted_offer_is_exported_as_the_buyer_s_purchase() -> None:
    """The log keeps `accept` as the purchase at the offered price; the site's record has
    the GWR's buy_train for £100 (18xx.games replays it to the same trains and cash:
    tools/oracle), the offer itself a chat message."""
    from engine.records import export_record, import_record

    g = lnwr_offers_its_2_train()
    g.apply("Bob", order(g, "accept"))
    g.apply("Bob", order(g, "done"))
    assert g.log[-2].action == BuyTrain("2", "LNWR", 100)
    record = export_record(g)
    forms = [{k: v for k, v in a.items() if k not in ("id", "moderator_actions")}
             for a in record["actions"]]
    assert {"entity": "GWR", "entity_type": "corporation", "type": "buy_train",
            "train": "2-0", "price": 100} in forms
    assert any(f["type"] == "message" and "LNWR offers GWR its 2-train" in f["message"]
               for f in forms)
    replayed = import_record(record).game.state
    assert [t.name for t in replayed.corporations["GWR"].trains] == ["2"]
    assert replayed.corporations["LNWR"].cash == g.state.corporations["LNWR"].cash


def test_5_6_5_an_offer_not_taken_lapses_when_the_seller_operates_again() -> None:
    g = lnwr_offers_its_2_train()
    g.apply("Bob", order(g, "done"))  # the GWR leaves it
    all_pass(g)
    assert company_turn(g) == "LNWR"
    assert not any(m.startswith("sells:") for m in g.state.corporations["LNWR"].markers)


def test_5_6_5_an_offer_taken_at_the_end_of_the_turn_is_exported_before_another_s_decline(
        ) -> None:
    """The LNWR takes the GWR's standing offer (`buy train 2 from GWR for £100`: no
    second answer) as its fourth train, which ends its turn; the GWR's director then
    declines the LNWR's own offer. The purchase is made at once: the record must have
    the LNWR's buy_train (the site otherwise stays at the LNWR's train step and refuses
    the GWR's actions: "Blocking step Buy Trains cannot process action pass")."""
    from engine.actions import Decline, Dividend, Pass, RunRoutes
    from engine.records import export_record, import_record

    g = new_game()
    first_round(g)
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", order(g, "done"))
    g.apply("Bob", BuyTrain("2"))
    g.apply("Bob", order(g, "sell train 2 to LNWR for £100"))
    g.apply("Bob", order(g, "done"))
    all_pass(g)
    g.apply("Ann", Pass())
    g.apply("Ann", Pass())
    g.apply("Ann", RunRoutes(auto=True))
    g.apply("Ann", Dividend("payout"))
    g.apply("Ann", order(g, "sell train 2 to GWR for £10"))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", order(g, "buy train 2 from GWR for £100"))
    assert company_turn(g) == "GWR"  # four trains: the LNWR's turn is over
    g.apply("Bob", Decline())
    record = export_record(g)
    forms = [{k: v for k, v in a.items() if k not in ("id", "moderator_actions")}
             for a in record["actions"]]
    assert {"entity": "LNWR", "entity_type": "corporation", "type": "buy_train",
            "train": "2-1", "price": 100} in forms
    replayed = import_record(record).game.state
    assert [t.name for t in replayed.corporations["LNWR"].trains] == ["2"] * 4
