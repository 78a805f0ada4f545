"""`lone_pass` ("is a pass, or ending the turn, all the player may do?"), which the
importer asks at every stock turn and which a stock round answers without listing every
option, gives the answer of the whole listing (`legal`) at every position of recorded
and kept games of every title with a stock round of its own (the 1850 record with the
options the site leaves out of it: redemptions and reissues)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.game import Game
from engine.records import import_record
from engine.rounds.base import lone_pass

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "fixtures"
RECORDS = [SHARED / "18TN" / "7818.json", SHARED / "1850" / "115810.json",
           SHARED / "1861" / "167259.json", SHARED / "1825" / "1825_game_end_bank.json",
           REPO / "tests" / "fixtures" / "1861" / "random-9-3.json",
           # (a turn ended by a lone `done`: 109 positions)
           REPO / "tests" / "fixtures" / "1850" / "random-2-22.json"]
COMPANY_OPTIONS = ("redeem ", "reissue ")


def test_the_listing_read_alone() -> None:
    assert lone_pass(["pass"]) == "pass"
    assert lone_pass(["done"]) == "done"
    assert lone_pass(["pass", "done"]) is None
    assert lone_pass([]) is None
    assert lone_pass(["buy X", "pass"]) is None
    assert lone_pass(["redeem X from PLAYER", "done"], COMPANY_OPTIONS) == "done"
    assert lone_pass(["redeem X from PLAYER", "done"]) is None


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_lone_pass_is_the_whole_listings_answer(path: Path) -> None:
    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    replayed = import_record(json.loads(path.read_text())).game
    game = Game(replayed.setup)
    seen = {"pass": 0, "done": 0, None: 0}
    for move in replayed.log:
        if not game.state.game_over:
            options = game.round.legal()
            for ignore in ((), COMPANY_OPTIONS):
                kept = [o for o in options if not o.startswith(ignore)]
                expected = kept[0] if kept in (["pass"], ["done"]) else None
                assert game.round.lone_pass(ignore) == expected, (len(game.log), options)
                assert game.lone_pass(ignore) == expected
                seen[expected] += 1
        game.append_move(move)
    assert seen[None] and (seen["pass"] or seen["done"])  # both answers were asked
    if path.stem == "random-2-22":
        assert seen["done"]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_can_hold_is_check_can_holds_answer(path: Path) -> None:
    """`shares.can_hold` (the listing's question, without words) answers as
    `check_can_hold` does, for every player and company, at every other position."""
    from engine.errors import GameError
    from engine.shares import can_hold, certificate_count, check_can_hold

    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    replayed = import_record(json.loads(path.read_text())).game
    game = Game(replayed.setup)
    answers = set()
    for number, move in enumerate(replayed.log):
        if number % 2 == 0:
            state, rules = game.state, game.rules
            for seat in state.seats:
                have = certificate_count(rules, state, seat)
                for corp in state.corporations.values():
                    if not corp.certificates:
                        continue
                    for percent in {10, corp.certificates[0].percent}:
                        try:
                            check_can_hold(rules, state, seat, corp, percent)
                            expected = True
                        except GameError:
                            expected = False
                        assert can_hold(rules, state, seat, corp, percent) == expected
                        assert can_hold(rules, state, seat, corp, percent, have,
                                        rules.certificate_limit(state)) == expected
                        answers.add(expected)
        game.append_move(move)
    assert True in answers
    if path.stem in ("115810", "7818"):  # (players at their limits)
        assert False in answers
