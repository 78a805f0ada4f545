"""`confirm ORDER` (issue 30, item 5): the order the moderator warned of, given again to
be applied all the same. The word stands alone -- `Confirmed, thanks!` after the
orders stays the mail's closing, as before the form existed -- and a tournament's
`confirm TOKEN` is still read by grammar.tournament."""

from __future__ import annotations

import pytest
from order_helpers import names

from engine.actions import Action, LayTile, PlaceToken, UsePrivate
from grammar.errors import OrderError
from grammar.parser import Confirmed, parse_line
from grammar.submission import parse_submission
from grammar.tournament import starts_tournament_line


@pytest.mark.parametrize(("line", "actions"), [
    ("confirm token D7", (PlaceToken("D7"),)),
    ("CONFIRM lay 57 at H5 rot 2", (LayTile("57", "H5", 2),)),
    ("confirm TC: token F11 city 1", (PlaceToken("F11", 0, company="TC"),)),
    ("Confirm use TCC lay 8 at H17 rot 1", (UsePrivate("TCC", LayTile("8", "H17", 1)),)),
])
def test_confirm_wraps_the_order(line: str, actions: tuple[Action, ...]) -> None:
    assert parse_line(line, names()) == (Confirmed(actions),)
    assert not starts_tournament_line(line)


@pytest.mark.parametrize(("line", "message"), [
    ("confirm", "an order must follow `confirm`"),
    ("confirm status", "`status` must start a line of its own"),
    ("confirm confirm token D7", "is not an order"),
])
def test_confirm_needs_an_order(line: str, message: str) -> None:
    with pytest.raises(OrderError, match=message):
        parse_line(line, names())


def test_words_that_begin_with_confirm_are_no_confirmation() -> None:
    submission = parse_submission("token D7\nConfirmed, thanks!\n", names())
    assert [line.text for line in submission.lines] == ["token D7"]
    assert [line.text for line in submission.closing] == ["Confirmed, thanks!"]


def test_a_tournament_confirmation_is_one_word() -> None:
    assert starts_tournament_line("confirm K7Q2MXPAHW")
