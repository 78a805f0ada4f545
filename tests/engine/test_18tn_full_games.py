"""18TN played from set-up to its three game ends, with money conserved after every
move: the bank breaking (the recorded game 7818, replayed here), a share value of $300
and a bankruptcy (scripted games)."""

from __future__ import annotations

import random

from tn_scenarios import RECORD_END, bankruptcy_with_a_saleable_share, record_game

from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    Done,
    LayTile,
    Par,
    Pass,
    RunRoutes,
)
from engine.game import Game, Setup
from engine.legal import legal_actions


def replay_conserving(game: Game) -> Game:
    """Replay `game`'s moves from set-up, checking the money after every one."""
    fresh = Game(game.setup)
    total = fresh.state.total_cash()
    for move in game.log:
        fresh.apply(move.seat, move.action)
        assert fresh.state.total_cash() == total, move
    return fresh


def test_6_a_the_recorded_game_from_set_up_to_the_bank_breaking() -> None:
    game = replay_conserving(record_game(RECORD_END))
    assert game.state.game_over and game.state.end_reason == "bank"
    assert game.round_name == "Operating Round 8.2"  # the round the bank broke in


def test_6_c_a_scripted_game_from_set_up_to_a_bankruptcy() -> None:
    scripted = bankruptcy_with_a_saleable_share()
    game = replay_conserving(scripted)
    total = game.state.total_cash()
    game.apply("Bob", Done())  # TC cannot buy its forced train: Bob is bankrupt
    assert game.state.game_over and game.state.end_reason == "bankruptcy"
    assert game.state.total_cash() == total
    assert game.turn() is None and game.legal() == []


# --- 6(b): a share value of $300, from set-up ---------------------------------------------


def cooperative_choice(options: list[Action], rng: random.Random) -> Action:
    """Three players who want a share value of $300: they par at the top, buy any share
    they can, never sell; every company lays a tile, runs its best route, pays out and
    buys the cheapest train it may."""
    def of(kind: type[Action]) -> list[Action]:
        return [a for a in options if isinstance(a, kind)]

    pars = of(Par)
    if pars:
        return max(pars, key=lambda a: a.price if isinstance(a, Par) else 0)
    chosen_at_random: tuple[type[Action], ...] = (BuyShares, Bid, LayTile)
    for kind in chosen_at_random:
        if of(kind):
            return rng.choice(of(kind))
    first_offered: tuple[type[Action], ...] = (BuyPrivate, RunRoutes, BuyTrain,
                                               DiscardTrain, Accept)
    for kind in first_offered:
        if of(kind):
            return of(kind)[0]
    pays = [a for a in of(Dividend) if isinstance(a, Dividend) and a.choice == "payout"]
    if pays:
        return pays[0]
    idle = of(Done) + of(Pass)
    return idle[0] if idle else options[0]


def test_6_b_a_scripted_game_from_set_up_to_a_share_value_of_300() -> None:
    rng = random.Random(3)
    game = Game(Setup("18TN", ("Ann", "Bob", "Cy"), seed=3))
    total = game.state.total_cash()
    reached_300: tuple[int, str] | None = None  # (move number, round) when it happened
    while (turn := game.turn()) is not None:
        assert len(game.log) < 1000, "the game should have ended"
        game.apply(turn.seat, cooperative_choice(legal_actions(game), rng))
        assert game.state.total_cash() == total, len(game.log)
        market = game.state.market
        top = max((market.price(c) for c in market.positions), default=0)
        if top >= 300 and reached_300 is None:
            reached_300 = (len(game.log), game.round_name)
            assert game.state.end_triggered == "market" and not game.state.game_over
    assert reached_300 is not None
    moment, round_name = reached_300
    assert round_name.startswith("Operating Round")
    # The game ends when that operating round is over, not its whole set (6(b)) ...
    assert game.state.game_over and game.state.end_reason == "market"
    assert game.round_name == round_name
    set_number = int(round_name.rsplit(".", 1)[1])
    assert set_number < game.state.operating_rounds_in_set  # more were due in the set
    # ... and that round was played out: the companies after the trigger operated too.
    assert len(game.log) > moment
    assert all(c.operated for c in game.state.corporations.values() if c.floated)
    assert game.state.bank_cash > 0  # it was the share value, not the bank
    market = game.state.market
    assert game.scores() == {
        seat: player.cash
        + sum(market.price(c.sym) * c.percent_held_by(seat) // 10
              for c in game.state.corporations.values() if c.sym in market.positions)
        + sum(p.spec.value for p in game.state.privates.values()
              if p.owner == seat and not p.closed)
        for seat, player in game.state.players.items()}
