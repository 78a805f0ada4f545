"""1825 R1: the Taff Vale's director chooses which city of Cardiff & Newport (V8, two
cities) takes its base.

18xx.games asks the minor's director (g_1825/game.rb place_home_token with
Engine::Step::HomeToken: a home hex of several cities) once V8 has track, as an
operating round begins, as the minor's turn begins or after its own lay there. Ours
asks him when the operating round after the Taff Vale's formation begins, before any
company operates: `token V8 city N` (cities numbered from 1 in orders); the kit's second
city, which the recorded game's director chose, is the default (a deadline, a record
that asks later). Data: data/1825.json, the Taff Vale's `home_choice`.

Played on the recorded R1 game: its 436th action (folded) is the site's question,
answered with V8's second city (tile 52's city "52-1-1").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scenarios_1825 import r1_record_prefix

from engine.actions import LayTile, PlaceToken
from engine.defaults import conservative_action
from engine.errors import GameError
from engine.game import Game, Move
from engine.records import (
    RecordMapper,
    expanded,
    folded_actions,
    import_record,
    replay_action,
    setup_of,
)
from engine.records.forms_1825 import SiteHomes
from engine.rounds.operating import OperatingRound
from grammar.names import names_for_title
from grammar.parser import parse_line

RECORD = Path(__file__).resolve().parents[3] / "shared/fixtures/1825/1825_game_end_bank.json"
pytestmark = pytest.mark.skipif(not RECORD.exists(), reason="shared fixtures not present")


def _asked() -> Game:
    """The position where the site asks the Taff Vale's director (before action 436)."""
    game, _ = r1_record_prefix(436)
    return game


def test_r1_the_taff_vale_s_director_is_asked_first() -> None:
    game = _asked()
    state = game.state
    assert isinstance(game.round, OperatingRound)
    turn = game.turn()
    assert turn is not None and (turn.seat, turn.entity) == ("Player 1", "TV")
    assert "token V8 city 1" in turn.step and "token V8 city 2" in turn.step
    assert game.legal() == ["token V8 city 1", "token V8 city 2 (the default)"]
    assert not any("TV" in syms for syms in state.board.tokens.get("V8", {}).values())
    # Reports: the position says who is awaited, the charter that it chooses.
    assert any(line.startswith("Waiting for Player 1 to choose the city of V8")
               for line in game.rules.position_notes(state))
    tv = state.corporations["TV"]
    assert any("chooses the city of V8" in n for n in game.rules.charter_notes(state, tv))


def test_r1_the_choice_is_refused_with_the_reason_and_the_choices() -> None:
    game = _asked()
    choices = ("token V8 city 1", "token V8 city 2 (the default)")
    with pytest.raises(GameError) as other:
        game.clone().apply("Player 2", PlaceToken("V8", 0))
    assert "Player 1 must first decide" in other.value.message
    with pytest.raises(GameError) as lay:
        game.clone().apply("Player 1", LayTile("8", "T14", 2))
    assert "must first choose the city of V8 that takes TV's Base" in lay.value.message
    assert lay.value.alternatives == choices
    with pytest.raises(GameError, match="has 2 cities free; say which"):
        game.clone().apply("Player 1", PlaceToken("V8", None))
    with pytest.raises(GameError, match="home hex V8, not V10"):
        game.clone().apply("Player 1", PlaceToken("V10", 0))
    with pytest.raises(GameError, match="city 3 of V8 has no free space"):
        game.clone().apply("Player 1", PlaceToken("V8", 2))


def test_r1_the_director_chooses_the_first_city() -> None:
    game = _asked()
    (order,) = parse_line("token V8 city 1", names_for_title(game.state.title,
                                                             game.setup.seats))
    assert order == PlaceToken("V8", 0)
    game.apply("Player 1", PlaceToken("V8", 0))
    assert game.state.board.tokens["V8"][0] == ["TV"]
    turn = game.turn()
    assert turn is not None and turn.entity == "LNWR"  # play goes on
    tv = game.state.corporations["TV"]
    assert not any("chooses the city" in n for n in game.rules.charter_notes(game.state, tv))


def test_r1_the_default_is_the_kit_s_second_city() -> None:
    game = _asked()
    assert conservative_action(game) == PlaceToken("V8", 1)
    assert game.rules.home_default(game.state) == PlaceToken("V8", 1)


def test_r1_a_record_that_does_not_ask_takes_the_default() -> None:
    """A record whose site asks later (V8 still without track when the round begins):
    the importer makes the default choice, the second city, where the record's next
    action is something else. The recorded game without its question replays to its
    scores."""
    record = json.loads(RECORD.read_text())
    record["actions"] = [a for a in record["actions"]
                         if not (a["type"] == "place_token" and a["entity"] == "TV")]
    replay = import_record(record)
    assert replay.game.state.board.tokens["V8"][1] == ["TV"]
    assert replay.game.scores() == {"Player 1": 10513, "Player 2": 11604}


def test_r1_export_writes_the_choice_as_the_site_s_only_where_it_asks() -> None:
    """With V8's track the choice is the site's `place_token`; without it, the site
    does not ask yet: the choice travels in a message, and the site's own question is
    answered once it asks (forms_1825.SiteHomes)."""
    game = _asked()
    move = Move("Player 1", PlaceToken("V8", 1))
    assert SiteHomes().chosen(game, move) is True
    tile = game.state.board.tiles.pop("V8")
    try:
        assert SiteHomes().chosen(game, move) is False
    finally:
        game.state.board.tiles["V8"] = tile
    game.apply("Player 1", PlaceToken("V8", 1))
    assert SiteHomes().chosen(game, move) is None


def test_r1_a_record_that_asks_later_gives_the_city_named_then() -> None:
    """The site asks the Taff Vale's director only once V8 has track, which may be
    after ours asks: the importer, reading a whole record, takes the city the site's
    director names later (here the first city, asked one action later than ours)."""
    record = json.loads(RECORD.read_text())
    setup, names = setup_of(record)
    game = Game(setup)
    mapper = RecordMapper(game, names)
    acts = list(expanded(folded_actions(record["actions"])))
    for index, raw in enumerate(acts[:436]):
        replay_action(game, mapper, index, raw)
    choice = {**acts[436], "city": "52-1-0"}
    mapper.ahead = [*acts[:436], acts[437], choice, *acts[438:]]
    replay_action(game, mapper, 436, acts[437])
    assert game.state.board.tokens["V8"][0] == ["TV"]
    assert game.rules.pending_decision(game.state) is None
