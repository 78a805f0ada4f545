"""Titles speak for themselves: the core's refusals and reports use the title's own
names for its terms (`Rules.words`, engine.citations.WORDS), never a term the title's
rulebook does not use (1825 and 1861 have a "Director" and a "Bank Pool", never a
"president" or an "Open Market").

Refusals are provoked by a battery of orders (buying shares from each source, par,
selling, buying each train from each source, orders from the wrong seat) at positions
of the scenario helpers, of recorded games and of random games, each tried on a copy
of the game; the reports of the orders accepted and the players' certificates in the
game's view (engine.views) are checked too."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from functools import cache

import pytest
import scenarios_1825
import scenarios_1850
import scenarios_1851
import scenarios_1861
import tn_scenarios
from random_play import choose
from rule_coverage_tool import rule_coverage

from engine.actions import (
    Action,
    BuyShares,
    BuyTrain,
    Par,
    Pass,
    PlaceToken,
    Route,
    RunRoutes,
    SellShares,
)
from engine.board import city_count
from engine.errors import GameError
from engine.game import Game, Setup
from engine.legal import legal_actions
from engine.rounds.base import Turn
from engine.state import Corporation
from engine.titles import rules_for
from engine.views import game_view

TITLES = ("18TN", "1825", "1850", "1851", "1861")
# The core's terms, as the core once wrote them for every title (18TN's words).
TERMS = ("president", "Open Market", "Initial Offering", "station token")


@cache
def rulebook(title: str) -> str:
    rc = rule_coverage()
    return (rc.rules_dir() / rc.RULEBOOKS[title]).read_text(encoding="utf-8")


def uses(text: str, term: str) -> bool:
    return re.search(rf"\b{re.escape(term)}s?\b", text, re.IGNORECASE) is not None  # or plural


def foreign_terms(title: str) -> tuple[str, ...]:
    """The core's terms this title's rulebook never uses."""
    return tuple(term for term in TERMS if not uses(rulebook(title), term))


def test_each_title_has_a_word_for_every_term_its_rulebook_lacks() -> None:
    from engine.citations import WORDS

    for title in TITLES:
        words = {key: rules_for(title).word(key) for key in WORDS}
        for word in words.values():
            assert uses(rulebook(title), word), (title, word)
    assert foreign_terms("1825") == TERMS
    assert foreign_terms("1861") == ("president", "Open Market", "station token")
    assert foreign_terms("1851") == ("Open Market", "station token")


def battery(game: Game) -> Iterator[tuple[str, Action]]:
    state = game.state
    trains = sorted({t.name for t in state.title.trains})
    for seat in state.seats:
        for sym in state.corporations:
            for source in ("ipo", "pool", "treasury", None):
                yield seat, BuyShares(sym, 1, source)  # type: ignore[arg-type]
            yield seat, Par(sym, 1)
            yield seat, SellShares(sym, 1)
            yield seat, SellShares(sym, 5)
        for name in trains:
            yield seat, BuyTrain(name)
            yield seat, BuyTrain(name, "pool")
        yield seat, Pass()
    # Station tokens where a company may be placing them: its own hexes and others
    # (refused as "not connected", "no free space", "already has one" or accepted).
    turn = game.turn()
    if turn is not None:
        occupied = sorted(state.board.tokens)[:3]
        cities = [h for h in sorted(state.title.hexes) if city_count(state, h)][:3]
        for hex_id in (*occupied, *cities):
            yield turn.seat, PlaceToken(hex_id)


def said(game: Game) -> list[str]:
    """The refusals of the battery at this position, and what the accepted orders of
    the battery report (each tried on its own copy)."""
    out = []
    for seat, action in battery(game):
        trial = game.clone()
        before = len(trial.state.log)
        try:
            trial.apply(seat, action)
        except GameError as err:
            out.append(err.message)
            continue
        out.extend(str(line) for line in list(trial.state.log)[before:])
    return out


def random_positions(title: str, seed: int, moves: int, every: int) -> Iterator[Game]:
    rng = random.Random(seed)
    game = Game(Setup(title, ("Ann", "Bob", "Cy", "Di")[:3 + seed % 2], seed=seed))
    for move in range(moves):
        turn = game.turn()
        if turn is None:
            return
        if move % every == 0:
            yield game
        game.apply(turn.seat, choose(rng, legal_actions(game)))


def _1850_operating() -> Game:
    g = scenarios_1850.new_game()
    scenarios_1850.privates_sold(g)
    scenarios_1850.companies_started(g)
    scenarios_1850.pass_round(g)
    return g


def _1825_operating() -> Game:
    g = scenarios_1825.new_game()
    scenarios_1825.first_round(g)
    return g


def _1825_recorded(count: int) -> Callable[[], Game]:
    return lambda: scenarios_1825.r1_record_prefix(count)[0]


def _1861_recorded(stop_before_id: int) -> Callable[[], Game]:
    return lambda: scenarios_1861.record_game(stop_before_id)


# Scenario positions, and positions of the recorded games (late rounds, public
# companies, second-hand shares and trains).
POSITIONS: dict[str, tuple[Callable[[], Game], ...]] = {
    "18TN": (tn_scenarios.three_company_opening,),
    "1825": (scenarios_1825.new_game, _1825_operating, _1825_recorded(424),
             _1825_recorded(490)),
    "1850": (_1850_operating,),
    "1851": (scenarios_1851.new_game, scenarios_1851.two_company_opening),
    "1861": (scenarios_1861.first_operating_round, _1861_recorded(315),
             _1861_recorded(700)),
}


@pytest.mark.parametrize("title", TITLES)
def test_refusals_and_reports_speak_only_the_titles_words(title: str) -> None:
    games = [make() for make in POSITIONS[title]]
    games += random_positions(title, seed=1, moves=120, every=12)
    texts = [text for game in games for text in said(game)]
    texts += [cert for game in games for player in game_view(game).players
              for cert in player.certificates]  # "LNWR 20% (Director)"
    assert len(texts) > 100
    foreign = foreign_terms(title)
    wrong = sorted({text for text in texts if any(uses(text, term) for term in foreign)})
    assert wrong == []
    # The title's own words are spoken where 18TN's would be.
    rules = rules_for(title)
    for key in ("head", "market"):
        assert any(uses(text, rules.word(key)) for text in texts), (title, key)


@pytest.mark.parametrize("title, word", [("1825", "Base"), ("18TN", "station")])
def test_a_route_refused_names_the_companys_token_in_the_titles_word(title: str,
                                                                    word: str) -> None:
    # The first position of a random game where a company with a train may run it.
    game, turn, corp = _at_a_run(title)
    far = sorted(game.state.title.hexes)
    route = Route(corp.trains[0].name, (far[0], far[-1]))
    with pytest.raises(GameError, match=rf"through a {corp.sym} {word}, without"):
        game.apply(turn.seat, RunRoutes((route,)))


def _at_a_run(title: str) -> tuple[Game, Turn, Corporation]:
    for seed in range(1, 20):
        rng = random.Random(seed)
        game = Game(Setup(title, ("Ann", "Bob", "Cy"), seed=seed))
        while (turn := game.turn()) is not None:
            corp = game.state.corporations.get(turn.entity)
            # (A run given at the track or token step passes the steps before it.)
            if turn.step in ("track", "token", "route") and corp is not None and corp.trains:
                return game, turn, corp
            game.apply(turn.seat, choose(rng, legal_actions(game)))
    raise AssertionError("no company with a train reached its turn")
