"""`legal_actions` lists exactly what trying every candidate on a copy of the game accepts.

`engine.legal.legal_actions` decides most candidates without trying them: tile lays by
the checks of `board.check_lay` and one tracing of the map; sales, purchases, pars,
private purchases, stations, `done` and whole steps the rounds refuse on sight; `run
auto` from `run none`; sales, share purchases, pars and trains bought from a company by
one tried candidate of each family. Its definition is the plain way: every candidate, unpruned,
applied to its own copy of the game (`try_every_candidate`). The two are compared at
the positions of games played with random choices among the plain way's answers, in
18TN and 1851 (so the games do not depend on the code under test), and of the driven
1851 game to the bank breaking (tests/engine/test_1851_games.py). The comparison counts
how often each shortcut met a candidate accepted and one refused, so that a test which
never reaches one says so. Every position of record 7818 is compared in
tests/engine/test_speed_mechanisms.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from random_play import choose

from engine import legal
from engine.actions import (
    Action,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Done,
    LayTile,
    Par,
    PlaceToken,
    RunRoutes,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game, Setup
from engine.rounds.stock import StockRound
from engine.title import available_titles
from engine.titles import rules_for

STOCK = ("stock SellShares", "stock BuyShares", "stock Par")


def try_every_candidate(game: Game) -> list[Action]:
    """legal_actions as defined: every candidate tried on its own copy of the game."""
    turn = game.turn()
    if turn is None:
        return []
    return [a for a in legal.candidates(game, prune=False)
            if game.clone().attempt(turn.seat, a)]


def shortcut_kind(game: Game, action: Action) -> str | None:
    """Which shortcut of `legal_actions` may decide `action` (None: tried on a copy)."""
    if isinstance(game.round, StockRound):
        if isinstance(action, SellShares | BuyShares | Par):
            return f"stock {type(action).__name__}"
        return None
    if isinstance(action, RunRoutes) and action.auto:
        return "run auto"
    if isinstance(action, LayTile | SellShares | BuyPrivate | PlaceToken | BuyTrain | Done):
        return type(action).__name__
    return None


class Comparison:
    """Compares the two at positions, counting what the shortcuts met."""

    def __init__(self) -> None:
        self.met: Counter[tuple[str, bool]] = Counter()
        self.positions = 0

    def check(self, game: Game, where: str) -> list[Action]:
        plain = try_every_candidate(game)
        assert legal.legal_actions(game) == plain, where
        self.positions += 1
        accepted = set(plain)
        for action in legal.candidates(game, prune=False):
            kind = shortcut_kind(game, action)
            if kind is not None:
                self.met[(kind, action in accepted)] += 1
        return plain




def play_and_compare(title: str, seed: int, players: int, moves: int, every: int,
                     comparison: Comparison) -> Game:
    """A game of `moves` random choices among the plain way's answers, compared at
    every position but track steps, and at every `every`-th track step (where trying
    every tile lay on a copy costs most)."""
    rng = random.Random(seed)
    game = Game(Setup(title, ("Ann", "Bob", "Cy", "Di", "Ed")[:players], seed=seed))
    for number in range(moves):
        turn = game.turn()
        if turn is None:
            break
        if number % every == 0 or turn.step != "track":
            options = comparison.check(game, f"{title} seed {seed} move {number}")
        else:
            options = try_every_candidate(game)
        assert options, f"no legal action for {turn} in {game.round_name}"
        game.apply(turn.seat, choose(rng, options))
    return game


def test_legal_actions_equal_trying_every_candidate_in_random_games() -> None:
    comparison = Comparison()
    for title, seed, players in (("18TN", 1, 4), ("1851", 3, 3), ("1851", 7, 5)):
        play_and_compare(title, seed, players, 200, 1, comparison)
    assert comparison.positions >= 500
    for kind in ("LayTile", "BuyPrivate", "BuyTrain", "Done", "run auto", *STOCK):
        assert comparison.met[(kind, True)], (kind, comparison.met)
    for kind in ("LayTile", "SellShares", "BuyPrivate", "BuyTrain", "Done", "PlaceToken",
                 *STOCK):
        assert comparison.met[(kind, False)], (kind, comparison.met)


def playable_titles() -> list[str]:
    """Every title whose rules the engine has (a title added later is tested too)."""
    out = []
    for title in available_titles():
        try:
            rules_for(title)
        except GameError:
            continue
        out.append(title)
    return out


@pytest.mark.parametrize("title", playable_titles())
def test_legal_actions_equal_trying_every_candidate_in_every_playable_title(
        title: str) -> None:
    """A game of each title the engine plays, 4 players, seed 11: the shortcuts read
    the rounds' checks, so a title whose rounds check differently must show here."""
    assert {"18TN", "1851"} <= set(playable_titles())
    comparison = Comparison()
    play_and_compare(title, 11, 4, 200, 2, comparison)
    assert comparison.positions >= 100
    assert comparison.met[("LayTile", True)]


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("title", "seed", "players", "moves"),
                         [("18TN", 3, 4, 700), ("1851", 5, 5, 900)])
def test_legal_actions_equal_trying_every_candidate_at_every_position_of_long_games(
        title: str, seed: int, players: int, moves: int) -> None:
    comparison = Comparison()
    play_and_compare(title, seed, players, moves, 2, comparison)
    assert comparison.positions >= 250
    assert comparison.met[("LayTile", True)] and comparison.met[("LayTile", False)]
    assert comparison.met[("run auto", True)]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_legal_actions_equal_trying_every_candidate_in_the_driven_1851_bank_game() -> None:
    """The 1851 game of tests/engine/test_1851_games.py played to the bank breaking
    (seed 5): forced train purchases with the president's sales, privates bought,
    stations placed and refused; every shortcut meets candidates it accepts and
    candidates it refuses."""
    from scenarios_1851 import SEATS, Driver, new_game, train_hungry

    driven = new_game(SEATS, 5)
    Driver(driven, 5, dividend=train_hungry(random.Random(5)), sells_shares=0.15,
           buys_shares=0.9).play(max_moves=1500)
    assert driven.state.game_over
    comparison = Comparison()
    game = Game(driven.setup)
    for number, move in enumerate(driven.log):
        turn = game.turn()
        if number % 2 == 0 or turn is None or turn.step != "track":
            comparison.check(game, f"driven 1851 seed 5 move {number}")
        game.apply(move.seat, move.action)
    assert comparison.positions >= 300
    for kind in ("LayTile", "SellShares", "PlaceToken", "BuyTrain", "Done", "run auto",
                 *STOCK):
        assert comparison.met[(kind, True)], (kind, comparison.met)
    for kind in ("LayTile", "SellShares", "BuyPrivate", "PlaceToken", "BuyTrain", "Done",
                 *STOCK):
        assert comparison.met[(kind, False)], (kind, comparison.met)


@pytest.mark.parametrize("title", playable_titles())
def test_the_tile_lays_judged_alone_are_those_of_legal_actions(title: str) -> None:
    """`legal_tile_lays` (what a report lists for the player laying track) judges only
    the tile lays: at every position of a random game of each title, they are the
    tile lays of `legal_actions`, in the same order -- in track steps and elsewhere
    (a private's lay, none at all)."""
    rng = random.Random(5)
    game = Game(Setup(title, ("Ann", "Bob", "Cy", "Di"), seed=5))
    laid = 0
    for _ in range(400):
        turn = game.turn()
        if turn is None:
            break
        options = legal.legal_actions(game)
        lays = [a for a in options if isinstance(a, LayTile)]
        assert legal.legal_tile_lays(game) == lays, (title, game.next_move)
        laid += bool(lays)
        game.apply(turn.seat, choose(rng, options))
    assert laid >= 5
