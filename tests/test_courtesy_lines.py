"""Courtesy lines and a redundant `done` do not refuse a mail; a misspelled order still
does (issue 19, defect 2). The rule is in docs/orders.md, "submission"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.game import Game
from engine.records import import_record
from engine.title import load_title
from grammar.format import format_line
from grammar.names import names_for_title
from grammar.submission import parse_submission
from moderator.desk.orders import run_submission

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
NAMES = names_for_title(load_title("18TN"), ("Ann", "Bob", "Cy"))


@pytest.mark.parametrize("closing", [
    "Thanks!", "Cheers,\nAnn", "\nThank you, see you next round\n\nBest regards\nBob",
    "Regards, Bob"])
def test_a_closing_after_the_orders_is_named_not_refused(closing: str) -> None:
    submission = parse_submission(f"buy TCC\n{closing}\n", NAMES)
    assert submission.ok
    assert [line.text for line in submission.lines] == ["buy TCC"]
    assert [line.text for line in submission.closing] == [
        line for line in closing.splitlines() if line.strip()]


@pytest.mark.parametrize("line", ["- pass", "* pass", "then pass", "2 buy L&N",
                                  "purchase L&N", "1. pass"])
def test_a_line_with_an_order_in_it_is_no_closing(line: str) -> None:
    """Bullets, numbers, order words and company names after the orders refuse the mail:
    `all or none` must not apply the orders without them."""
    submission = parse_submission(f"buy TCC\n{line}\n", NAMES)
    assert not submission.ok and submission.closing == ()


@pytest.mark.parametrize("body", [
    "byu TCC\nThanks!",           # a misspelled order has a did-you-mean
    "buy TCC\npas\nThanks!",       # so does `pas`, wherever it stands
    "Thanks!\nbuy TCC",            # prose before an order is not a closing
    "buy TCC\nhello\npass",        # nor between orders
])
def test_a_misspelled_or_stray_line_still_refuses(body: str) -> None:
    submission = parse_submission(body, NAMES)
    assert not submission.ok
    bad = [line.text for line in submission.errors]
    assert bad and bad[0] in ("byu TCC", "pas", "Thanks!", "hello")


def test_a_misspelled_order_keeps_its_did_you_mean() -> None:
    submission = parse_submission("byu TCC\nThanks!\n", NAMES)
    error = submission.lines[0].error
    assert error is not None and "did you mean `buy`" in error.message
    assert not error.prose


def test_a_mail_of_only_thanks_has_no_orders() -> None:
    game = Game(import_record(json.loads(FIXTURE.read_text())).game.setup)
    report = run_submission(game, game.setup.seats[0], "Thanks!\n")
    assert not report.ok
    assert "not an order" in (report.lines[0].error or "")


def test_a_closing_is_named_in_the_reply_and_the_orders_apply() -> None:
    record = import_record(json.loads(FIXTURE.read_text()))
    game = Game(record.game.setup)
    move = record.game.log[0]
    names = names_for_title(load_title("18TN"), game.setup.seats)
    text = format_line([move.action], names)
    report = run_submission(game, move.seat, f"{text}\n\nThanks!\nCheers")
    assert report.ok and len(report.moves) == 1
    assert [line.said for line in report.lines[1:]] == [
        ("your closing, not an order",)] * 2


def test_a_done_after_the_order_that_ended_the_turn_is_a_courtesy() -> None:
    """In 7818: an operating order after which the company's turn ended by itself;
    `done` written after it changes nothing and refuses nothing."""
    record = import_record(json.loads(FIXTURE.read_text()))
    whole = record.game
    names = names_for_title(load_title("18TN"), whole.setup.seats)
    game = Game(whole.setup)
    checked = 0
    for index, move in enumerate(whole.log):
        turn = game.turn()
        entity = turn.entity if turn is not None else None
        if entity is not None and entity != move.seat and index + 1 < len(whole.log):
            trial = game.clone()
            trial.apply(move.seat, move.action)
            after = trial.turn()
            if after is not None and after.entity != entity and after.seat != move.seat:
                text = format_line([move.action], names)
                report = run_submission(game.clone(), move.seat, f"{text}\ndone")
                assert report.ok, report.lines
                assert len(report.moves) == 1
                assert "had ended already" in report.lines[1].said[0]
                checked += 1
                if checked == 5:
                    break
        game.apply(move.seat, move.action)
    assert checked == 5


def test_done_never_ends_the_next_company_of_the_same_president() -> None:
    """When the same president's next company is to move, the `done` meant for the
    first company (whose turn the order before it ended) is a courtesy: it must not end
    the next company's turn."""
    record = import_record(json.loads(FIXTURE.read_text()))
    whole = record.game
    names = names_for_title(load_title("18TN"), whole.setup.seats)
    game = Game(whole.setup)
    for move in whole.log:
        turn = game.turn()
        entity = turn.entity if turn is not None else None
        if entity is not None and entity != move.seat:
            trial = game.clone()
            trial.apply(move.seat, move.action)
            after = trial.turn()
            if after is not None and after.entity not in (entity, after.seat) \
                    and after.seat == move.seat:
                text = format_line([move.action], names)
                played = game.clone()
                report = run_submission(played, move.seat, f"{text}\ndone")
                assert report.ok and len(report.moves) == 1
                assert f"{entity}'s turn had ended already" in report.lines[1].said[0]
                now = played.turn()
                assert now is not None and now.entity == after.entity
                return
        game.apply(move.seat, move.action)
    raise AssertionError("7818 has no president running two companies in a row")
