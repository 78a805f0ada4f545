"""1851 rules an independent audit found broken (issue 21, W1-W6), each played out.

Quotes are from shared/rules/1851.txt. The forced-purchase positions start from
`louisville_opening` (four players, Operating Round 4.1, phase 3; the L&N (Bob) has
operated, its price is $75; the TC (Cy) $70; the next train is a 3-train for $200)
and take the L&N's trains away, so that it has a route (Louisville's two cities) and
no train: "If the Corporation has a route on which it could legally run a Train, but
it has no Train, it must buy one even if it has insufficient resources." Treasury
and personal cash, and who holds which shares, are then set for each rule (such
positions arise in play; setting them directly keeps each test to its rule). Four
passes take the L&N to its train step: it does not run, withholds nothing and its
price moves left to $70, the price at the start of the train purchase.
"""

from __future__ import annotations

import pytest
from scenarios_1851 import (
    end_turn,
    ln_priced,
    louisville_opening,
    next_operating_round,
    now,
)
from test_1851_operating import birmingham_opening

from engine import trains
from engine.actions import (
    BuyShares,
    BuyTrain,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game
from engine.legal import legal_actions
from engine.rounds.operating import OperatingRound
from engine.shares import certificate_count
from engine.state import IPO, TREASURY

START = 70  # the L&N's price at the start of its train purchase
TRAIN = 200  # the cheapest train: a 3-train from the bank


def move_share(g: Game, sym: str, frm: str, to: str) -> None:
    """One plain 10% certificate of `sym` from `frm` to `to`."""
    corp = g.state.corporations[sym]
    cert = next(c for c in corp.certificates if c.owner == frm and not c.president)
    cert.owner = to


def forced(ln_cash: int, bob_cash: int) -> Game:
    """The L&N at its train step with a route, no train and `ln_cash`; Bob (president,
    30%; Di 20%, treasury 50%) has `bob_cash`. Adjust holdings before `to_train_step`."""
    g = louisville_opening()
    ln = g.state.corporations["L&N"]
    ln.trains = []
    ln.cash = ln_cash
    g.state.players["Bob"].cash = bob_cash
    return g


def to_train_step(g: Game) -> None:
    rnd = g.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    while rnd.current.step < rnd.steps.index("train"):
        g.apply("Bob", Pass())
        rnd = g.round
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
    assert g.state.market.price("L&N") == START
    cheapest = trains.cheapest_available(g.state)
    assert cheapest is not None and cheapest[1] == TRAIN


def cash(g: Game, seat: str) -> int:
    return g.state.players[seat].cash


# --- W1: BUYING STOCK, the certificate limit ------------------------------------------------


def over_the_limit_before_anyone_operated() -> Game:
    """Stock Round 1, four players (limit 12): Ann pars the IC; she then holds the
    ET&WNC and the M&C, six L&N and five IC certificates: 13, and no company has
    operated, so none of them may be sold."""
    g = ln_priced(90)
    g.apply("Cy", Pass())
    g.apply("Di", Pass())
    g.apply("Ann", Par("IC", 100))
    state = g.state
    for sym, count in (("L&N", 6), ("IC", 4)):
        corp = state.corporations[sym]
        for cert in [c for c in corp.certificates if c.owner == IPO][:count]:
            cert.owner = "Ann"
    state.privates["M&C"].owner = "Ann"
    assert certificate_count(g.rules, state, "Ann") == 13 > g.rules.certificate_limit(state)
    for seat in ("Bob", "Cy", "Di"):
        g.apply(seat, Pass())
    assert now(g) == "Ann"
    return g


def test_w1_over_the_limit_must_sell_if_possible_else_may_pass() -> None:
    """"must sell stock, if possible, to bring himself within the limit": with nothing
    he may sell, he passes (the engine refused the pass and offered no action)."""
    g = over_the_limit_before_anyone_operated()
    assert g.legal() == ["pass"]
    assert Pass() in legal_actions(g)
    assert all(isinstance(a, Pass | Done) for a in legal_actions(g))
    with pytest.raises(GameError):
        g.apply("Ann", BuyShares("IC"))  # over the limit: no purchase
    g.apply("Ann", Pass())
    assert now(g) == "Bob"


# --- W2: PURCHASE TRAINS, sales stop as soon as the cash is raised ------------------------


def test_w2_forced_sales_stop_as_soon_as_the_cash_is_raised_at_the_start_price() -> None:
    """"The sales ... must stop as soon as the necessary cash is raised", and each
    share is paid "its value at the start of the Train-buying action". Bob ($60, L&N
    with $0) needs $140: after one share ($70, the price falls to $65) he needs $70,
    which one more share at $70 raises: two are refused (the engine measured them at
    $65 and let both go, paying $140)."""
    g = forced(ln_cash=0, bob_cash=60)
    move_share(g, "L&N", "Di", "Bob")
    move_share(g, "L&N", "Di", "Bob")  # Bob 50%: three shares he may sell
    to_train_step(g)
    g.apply("Bob", SellShares("L&N", 1))
    assert cash(g, "Bob") == 60 + START
    assert g.state.market.price("L&N") < START
    with pytest.raises(GameError, match="only enough"):
        g.apply("Bob", SellShares("L&N", 2))
    g.apply("Bob", SellShares("L&N", 1))
    assert cash(g, "Bob") == TRAIN
    with pytest.raises(GameError):
        g.apply("Bob", SellShares("L&N", 1))  # enough has been raised
    g.apply("Bob", BuyTrain("3"))
    assert [t.name for t in g.state.corporations["L&N"].trains] == ["3"]
    assert cash(g, "Bob") == 0


# --- W3: bankrupt only when the president cannot pay ----------------------------------------


def test_w3_the_president_is_not_bankrupt_while_start_price_sales_can_pay() -> None:
    """"If the President is unable to raise the purchase price of the Train, he is
    bankrupt." Bob ($60) may sell two L&N shares at the start price: $60 + 2 x $70 =
    $200. After the first sale the price is $65; valued at that price the second share
    looked short and `done` declared him bankrupt."""
    g = forced(ln_cash=0, bob_cash=60)
    move_share(g, "L&N", TREASURY, "Bob")  # Bob 40%, Di 20%: two shares he may sell
    to_train_step(g)
    g.apply("Bob", SellShares("L&N", 1))
    assert g.state.market.price("L&N") < START
    with pytest.raises(GameError, match="must buy"):
        g.apply("Bob", Done())
    assert not g.state.game_over
    g.apply("Bob", SellShares("L&N", 1))
    g.apply("Bob", BuyTrain("3"))
    assert not g.state.players["Bob"].bankrupt


def test_w3_a_train_of_a_company_with_the_same_president_averts_the_bankruptcy() -> None:
    """"The Train may be from another Corporation with the same President as the active
    Corporation; the price is any amount, at least $1 and not exceeding the active
    Corporation's treasury." Bob presides the TC too (its 2, 2, 3 trains); the L&N has
    $10 and Bob could raise only $70 of $200: he is not bankrupt, the L&N buys a TC
    train (see the title's decision "sister-trains-when-short")."""
    g = forced(ln_cash=10, bob_cash=0)
    assert "$1" in g.state.title.decision("sister-trains-when-short")
    tc = g.state.corporations["TC"]
    for cert in tc.certificates:
        if cert.owner == "Cy":
            cert.owner = "Bob"
    tc.president = "Bob"
    to_train_step(g)
    assert any(text.startswith("buy train 2 from TC") for text in g.legal())
    with pytest.raises(GameError, match="must buy"):
        g.apply("Bob", Done())
    g.apply("Bob", BuyTrain("2", "TC", 10))
    assert [t.name for t in g.state.corporations["L&N"].trains] == ["2"]
    assert not g.state.game_over


# --- W4: the sell-off before a bankruptcy ---------------------------------------------------


def test_w4_the_bankruptcy_sell_off_is_paid_the_start_prices() -> None:
    """The sales before a bankruptcy are forced sales too: "the President receives the
    full value of each share sold (i.e. its value at the start of the Train-buying
    action)". Bob ($0, L&N $0) may sell two L&N shares: $140 < $200. He sells one
    ($70; the price falls to $65); `done` sells the other at $70, not $65, and he is
    bankrupt."""
    g = forced(ln_cash=0, bob_cash=0)
    move_share(g, "L&N", TREASURY, "Bob")  # Bob 40%, Di 20%
    to_train_step(g)
    g.apply("Bob", SellShares("L&N", 1))
    assert g.state.market.price("L&N") < START
    g.apply("Bob", Done())
    assert g.state.game_over and g.state.players["Bob"].bankrupt
    assert cash(g, "Bob") == 2 * START
    assert g.state.corporations["L&N"].percent_held_by("Bob") == 20  # his certificate


# --- W5: a president who cannot pay is bankrupt, not stuck ----------------------------------


def test_w5_the_operating_presidents_certificate_is_not_for_sale_so_he_is_bankrupt() -> None:
    """"the President must retain the President's Certificate of the active
    Corporation". Bob holds only that certificate (20%; Ann, Cy, Di 10% each) and $130:
    he can raise nothing more, so `done` makes him bankrupt and ends the game (the
    engine counted a share of that certificate as saleable, refused `done` and every
    sale: no legal action was left)."""
    g = forced(ln_cash=0, bob_cash=130)
    move_share(g, "L&N", "Bob", "Ann")
    move_share(g, "L&N", "Di", "Cy")
    to_train_step(g)
    assert legal_actions(g)
    assert not any(text.startswith("sell") for text in g.legal())
    with pytest.raises(GameError):
        g.apply("Bob", SellShares("L&N", 1))
    g.apply("Bob", Done())
    assert g.state.game_over and g.state.end_reason == "bankruptcy"
    assert g.state.players["Bob"].bankrupt


# --- W6: Birmingham before phase 4 -------------------------------------------------------------


def dixie_into_birmingham() -> Game:
    """Phase 2: the Dixie (Cy) runs track from Chattanooga into Birmingham's east side
    (8 on J14); the next operating round it may lay again. Birmingham's other sides lead
    to I11 and Huntsville I13."""
    g = birmingham_opening()
    g.apply("Cy", LayTile("8", "J14", 1))
    end_turn(g, "Dixie")
    next_operating_round(g)
    assert g.rules.phase(g.state).name == "2" and now(g) == "Dixie"
    return g


def test_w6_track_beyond_birmingham_does_not_extend_a_route_before_phase_4() -> None:
    """"the track on the tile must extend a route of the Corporation" and "the track in
    the Birmingham hex itself may not be used as part of a route before Phase 4": a
    tile on Huntsville joined to the Dixie only through Birmingham extends no route."""
    g = dixie_into_birmingham()
    from engine import board

    toward_birmingham = [r for r in board.legal_rotations(g.rules, g.state, "I13", "57")
                         if 0 in _exits(g, "57", r)]
    assert toward_birmingham
    for rotation in toward_birmingham:
        with pytest.raises(GameError,
                           match=r"must extend a route of Dixie \(LAY OR UPGRADE TRACK\)"):
            g.apply("Cy", LayTile("57", "I13", rotation))
    assert "I13" not in g.state.board.tiles


def test_w6_no_station_reached_through_birmingham_before_phase_4() -> None:
    """PLACE STATION MARKER: "on a vacant city space which is on a route of the
    Corporation". With a tile on Huntsville joined to Birmingham (laid by hand here,
    as another company might), the Dixie reaches it only through Birmingham."""
    from engine.state import PlacedTile

    g = dixie_into_birmingham()
    from engine import board

    rotation = next(r for r in board.legal_rotations(g.rules, g.state, "I13", "57")
                    if 0 in _exits(g, "57", r))
    g.state.board.tiles["I13"] = PlacedTile("57", rotation)
    with pytest.raises(GameError, match=r"is not on a route of Dixie \(PLACE STATION MARKER\)"):
        g.apply("Cy", PlaceToken("I13"))


def _exits(g: Game, tile: str, rotation: int) -> set[int]:
    from engine.tiles import exits

    return set(exits(g.state.title.tile(tile), rotation))


# --- legal() and apply at a forced purchase -----------------------------------------------------


def test_no_issue_is_offered_or_accepted_while_a_train_must_be_bought() -> None:
    """ISSUE OR REDEEM STOCK comes after PURCHASE TRAINS, and "stock in the
    Corporation Treasury is useless at this time": while the L&N must still buy a
    train, `issue N` is neither listed by `legal()` (it was) nor accepted."""
    g = forced(ln_cash=0, bob_cash=60)
    move_share(g, "L&N", "Di", "Bob")
    to_train_step(g)
    assert g.state.corporations["L&N"].operated  # issuing is otherwise open to it
    assert not any("issue" in text for text in g.legal())
    assert "done" not in g.legal()
    with pytest.raises(GameError, match="must buy"):
        g.apply("Bob", IssueShares(1))
    assert IssueShares(1) not in legal_actions(g)


def test_issuing_does_not_declare_a_bankruptcy() -> None:
    """A president who cannot pay is bankrupt by `done` (or `pass`); an `issue` then is
    refused, not taken as his bankruptcy followed by the issue."""
    g = forced(ln_cash=0, bob_cash=0)
    move_share(g, "L&N", "Di", "Bob")
    to_train_step(g)
    with pytest.raises(GameError, match="bankrupt"):
        g.apply("Bob", IssueShares(1))
    assert not g.state.game_over
    assert [text.split(" (")[0] for text in g.legal() if text.startswith("done")] == ["done"]
    g.apply("Bob", Pass())
    assert g.state.game_over and g.state.players["Bob"].bankrupt
