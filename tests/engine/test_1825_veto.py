"""1825 Unit 1, 6.4.5: when the receiver is also a director, any two other players may
veto his decisions; a tile that extends track (5.2.4.a), a promotion or base that raises
this turn's income, and what the rules oblige him to do cannot be vetoed.

The game is `gwr_in_receivership` (test_1825_receivership.py) with Ann, the LNWR's
director, made the GWR's receiver (6.4 appoints her when every other player directs a
company too; the state is set so here to keep the game short). The other players are
asked from her left: Bob, Cy, Di. The orders are read by the order parser.
"""

from __future__ import annotations

import pytest
from scenarios_1825 import now
from test_1825_receivership import GWR_ROUTE, gwr_in_receivership

from engine.actions import Action, PlaceToken
from engine.defaults import conservative_action
from engine.errors import GameError
from engine.game import Game
from grammar.names import names_for_title
from grammar.parser import parse_line


def order(g: Game, text: str) -> Action:
    (parsed,) = parse_line(text, names_for_title(g.rules.title, g.setup.seats))
    assert isinstance(parsed, Action)
    return parsed


def ann_receiver_with_route() -> Game:
    g = gwr_in_receivership()
    gwr = g.state.corporations["GWR"]
    gwr.markers.discard("receiver:Cy")
    gwr.markers.add("receiver:Ann")
    gwr.president = "Ann"
    # 5.2.4.a: new track from the base is never put to the vote.
    g.apply("Ann", GWR_ROUTE)
    assert now(g) == "Ann" and g.state.board.tiles["V12"].name == "9"
    return g


def test_6_4_5_a_base_that_raises_nothing_waits_and_two_vetoes_cancel_it() -> None:
    g = ann_receiver_with_route()
    cash = g.state.corporations["GWR"].cash
    # A base in Bristol adds nothing to the GWR's run Swindon-Bristol (£40).
    g.apply("Ann", order(g, "token V10"))
    assert now(g) == "Bob"
    assert g.legal() == ["veto", "accept"]
    with pytest.raises(GameError, match="Bob must first decide"):
        g.apply("Ann", order(g, "lease train"))
    g.apply("Bob", order(g, "veto"))
    g.apply("Cy", order(g, "accept"))
    assert now(g) == "Di"  # one veto, one voter left: two can still be reached
    g.apply("Di", order(g, "veto"))
    state = g.state
    assert "Two players veto it: GWR does not do it (6.4.5)" in state.log
    assert "V10" not in state.board.tokens or "GWR" not in str(state.board.tokens["V10"])
    assert state.corporations["GWR"].cash == cash
    assert now(g) == "Ann"  # the receiver goes on with the turn
    g.apply("Ann", order(g, "lease train"))


def test_6_4_5_the_decision_stands_once_two_vetoes_cannot_be_reached() -> None:
    g = ann_receiver_with_route()
    cash = g.state.corporations["GWR"].cash
    g.apply("Ann", PlaceToken("V10", None))
    g.apply("Bob", order(g, "accept"))
    g.apply("Cy", order(g, "accept"))  # Di alone cannot veto: it is carried out
    state = g.state
    assert "No veto: GWR goes ahead (6.4.5)" in state.log
    assert state.board.tokens["V10"] == {0: ["GWR"]}
    assert state.corporations["GWR"].cash == cash - 40
    assert now(g) == "Ann"


def test_6_4_5_an_obliged_train_is_not_put_to_the_vote_a_chosen_one_is() -> None:
    g = ann_receiver_with_route()
    g.apply("Ann", order(g, "lease train"))
    g.apply("Ann", order(g, "run auto"))
    g.apply("Ann", order(g, "buy train 2"))  # 6.4.4: trainless, a route, the money
    assert now(g) == "Ann"
    assert [t.name for t in g.state.corporations["GWR"].trains] == ["2"]
    g.apply("Ann", order(g, "buy train 2"))  # a second one, by choice
    assert now(g) == "Bob"
    g.apply("Bob", order(g, "veto"))
    g.apply("Cy", order(g, "veto"))
    assert [t.name for t in g.state.corporations["GWR"].trains] == ["2"]


def test_6_4_5_a_receiver_who_directs_nothing_is_never_vetoed() -> None:
    g = gwr_in_receivership()  # Cy directs no company
    g.apply("Cy", GWR_ROUTE)
    g.apply("Cy", PlaceToken("V10", None))
    assert now(g) == "Cy"
    assert g.state.board.tokens["V10"] == {0: ["GWR"]}


def test_6_4_5_a_refused_decision_is_refused_before_any_vote() -> None:
    g = ann_receiver_with_route()
    with pytest.raises(GameError):
        g.apply("Ann", PlaceToken("S13", None))  # not reachable for the GWR
    assert now(g) == "Ann"


def test_6_4_5_a_player_who_does_not_answer_lets_the_decision_stand() -> None:
    g = ann_receiver_with_route()
    g.apply("Ann", PlaceToken("V10", None))
    assert conservative_action(g) == order(g, "accept")


def test_reports_show_the_receiver_the_vote_and_the_new_shares_on_sale() -> None:
    from engine.views import game_view

    g = ann_receiver_with_route()
    g.apply("Ann", PlaceToken("V10", None))
    view = game_view(g)
    gwr = next(c for c in view.corporations if c.sym == "GWR")
    assert gwr.markers == ("in receivership, receiver Ann (6.4)",
                           "vote under way on a Base in V10 (6.4.5)")
    assert "The bank sells new shares of: GWR (4.1)" in view.notes
    assert "Waiting for Bob to veto or accept the receiver Ann's decision for GWR: a " \
           "Base in V10 (6.4.5)" in view.notes
    lnwr = next(c for c in view.corporations if c.sym == "LNWR")
    assert lnwr.markers == ()  # no raw "formed:0"
