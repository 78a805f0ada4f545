"""Typical mistakes and the exact messages they get (column, wording, suggestions).

The wording is part of the interface: players read it in the reply to their mail,
so a change here should be deliberate. ("Wrong round" is the engine's business.)
"""

from __future__ import annotations

import pytest
from order_helpers import names

from engine.actions import SellPrivate
from grammar.errors import OrderError, closest, edit_distance
from grammar.names import Names
from grammar.parser import parse_line

# (title, line, column, message)
MISTAKES: list[tuple[str, str, int, str]] = [
    # missing rotation / rotation out of range / rotation cut off
    ("18TN", "lay 57 at H5", 13, "missing rotation: add `rot N` (N from 0 to 5) after the hex"),
    ("18TN", "lay 57 at H5 rot 7", 18, "rotation 7 is out of range; use 0 to 5"),
    ("18TN", "lay 57 at H5 rot", 17, "the order stops too early; expected a rotation (0 to 5)"),
    # names that do not exist in the title
    ("18TN", "buy TX", 5, "company TX does not exist in 18TN; did you mean TC?"),
    ("18TN", "lay 75 at H5 rot 2", 5, "tile 75 does not exist in 18TN; did you mean 57?"),
    ("18TN", "lay 57 at Z99 rot 1", 11, "hex Z99 is not on the 18TN map"),
    ("18TN", "token F111", 7, "hex F111 is not on the 18TN map; did you mean F11?"),
    ("18TN", "buy train 9", 11, "train 9 does not exist in 18TN (trains: 2, 3, 4, 5, 6, 8)"),
    (
        "18TN",
        "run 2+2: F11 G12",
        5,
        "train 2+2 does not exist in 18TN (trains: 2, 3, 4, 5, 6, 8)",
    ),
    ("18TN", "sell TCC to Bobb", 13, "player Bobb is not in this game; did you mean Bob?"),
    ("18TN", "force Bobby: pass", 7, "player Bobby is not in this game (players: Ann, Bob, Cy)"),
    ("18TN", "create game 18NT", 13, "there is no title 18NT; did you mean 18TN?"),
    # the wrong kind of company for the order
    ("1861", "convert NW", 9, "NW is a corporation, not a minor company"),
    ("1861", "merge N K-B into M-K", 18, "M-K is a minor company, not a corporation"),
    ("18TN", "sell 2 TCC", 8, "TCC is a private company, not a corporation"),
    ("18TN", "sell TC to Bob", 6, "TC is a corporation, not a private company"),
    ("18TN", "buy 2 TCC", 5, "there is only one TCC; drop the number"),
    # amounts and numbers
    ("18TN", "bid $9O on MCR", 5, "amount $9O is not a number; did you mean $90?"),
    ("18TN", "par IC at 9o", 11, "amount 9o is not a number; did you mean 90?"),
    ("18TN", "par IC at ninety", 11, "amount ninety is not a number; write it as 90 or $90"),
    ("1825", "par LNWR at about", 13, "amount about is not a number; write it as 90 or £90"),
    ("18TN", "buy TC for 90", 12, "shares are bought at the market price; drop the price"),
    ("18TN", "sell 120% TC", 6, "120% is not a share of a company; use 10% to 100%"),
    ("18TN", "buy 0 TC", 5, "0 is not a count; the least is 1"),
    # keywords: typos, two orders on a line, missing separators
    ("18TN", "by TC", 1, "`by` is not an order; did you mean `buy`?"),
    ("18TN", "lya 57 at H5 rot 1", 1, "`lya` is not an order; did you mean `lay`?"),
    (
        "18TN",
        "pass buy TC",
        6,
        "one order per line: `buy` begins a second order; put it on a line of its own",
    ),
    (
        "18TN",
        "lay 57 at H5 rot 2 token F11",
        20,
        "one order per line: `token` begins a second order; put it on a line of its own",
    ),
    (
        "18TN",
        "lay 57 at H5 rot 2, token F11",
        21,
        "one order per line: `token` begins a second order; put it on a line of its own",
    ),
    ("18TN", "sell 2 TC 1 IC", 11, "unexpected `1`; expected `,`, `and` or the end of the line"),
    ("18TN", "run 2: F11 G12 3: B13 C14", 16, "routes are separated by `;`: write `; 3:`"),
    ("18TN", "par IC", 7, "the order stops too early; expected an amount or `at`"),
    (
        "18TN",
        "pay 90",
        5,
        "unexpected `90`; expected `half`, `mesabi`, `out` or the end of the line",
    ),
    (
        "18TN",
        "buy TC from poo",
        13,
        "shares come from ipo, pool or treasury, not poo; did you mean pool?",
    ),
    (
        "18TN",
        "buy train 3 from pol",
        18,
        "a train comes from the bank, the pool or a company; did you mean pool?",
    ),
    # company prefixes
    (
        "18TN",
        "TC lay 57 at H5 rot 2",
        1,
        "`TC` is not an order; to give an order for TC, write `TC:` first",
    ),
    ("18TN", "TC: buy IC", 1, "`buy IC` takes no company prefix; drop `TC:`"),
    ("1850", "SOO: redeem GN", 1, "the prefix names SOO but the order is for GN"),
    ("18TN", "TC:", 4, "an order must follow `TC:`"),
    ("18TN", "TC: status", 5, "`status` must start a line of its own"),
    ("18TN", "force Ann:", 11, "an order must follow `force Ann:`"),
    # mail debris: a quoted reply, a signature without `-- `
    (
        "18TN",
        "> buy TC",
        1,
        "a quoted line (`>`) is not an order; write orders above the quoted mail",
    ),
    (
        "18TN",
        "Thanks, Ann",
        1,
        "`Thanks` is not an order (`help` lists the orders; end your orders with "
        "`sign off` or a `-- ` line)",
    ),
    ("18TN", "", 1, "there is no order on this line"),
    # meta commands
    ("18TN", "set format pdf", 12, "format pdf is not known; use text or html"),
    ("18TN", "set formt html", 5, "there is no setting formt; did you mean format?"),
    (
        "18TN",
        "set timezone Europe/Berln",
        14,
        "time zone Europe/Berln is not known; did you mean Europe/Berlin?",
    ),
    ("18TN", "set deadline 48x", 14, "deadline 48x is not a duration; write it as 48h, 2d or 90m"),
    (
        "18TN",
        "away 2026-12-10 to 2026-12-01",
        20,
        "2026-12-01 is before 2026-12-10; put the first day first",
    ),
    (
        "18TN",
        "away 2026-13-01 to 2026-12-10",
        6,
        "2026-13-01 is not a date; write it as YYYY-MM-DD",
    ),
    ("18TN", "invite ann as Ann", 8, "ann is not a mail address (such as ann@example.org)"),
    ("18TN", "history x", 9, "unexpected `x`; expected a number or the end of the line"),
    ("18TN", "force Ann", 10, "the order stops too early; expected `:`"),
]


@pytest.mark.parametrize(("title", "line", "column", "message"), MISTAKES)
def test_mistake(title: str, line: str, column: int, message: str) -> None:
    with pytest.raises(OrderError) as caught:
        parse_line(line, names(title))
    err = caught.value
    assert (err.column, err.message) == (column, message)
    assert err.line == line


def test_enough_mistakes_are_covered() -> None:
    assert len(MISTAKES) >= 20


def test_format_error_puts_a_caret_under_the_problem() -> None:
    with pytest.raises(OrderError) as caught:
        parse_line("lay 75 at H-5 rot 2   # the city", names("18TN"))
    assert caught.value.format_error() == (
        "lay 75 at H-5 rot 2   # the city\n    ^^\ntile 75 does not exist in 18TN; did you mean 57?"
    )
    assert caught.value.suggestions == ("57",)


def test_format_error_at_the_end_of_the_line_and_with_tabs() -> None:
    with pytest.raises(OrderError) as caught:
        parse_line("\tlay 57 at H5", names("18TN"))
    assert caught.value.format_error(indent="> ") == (
        "> \tlay 57 at H5\n"
        "> \t            ^\n"
        "> missing rotation: add `rot N` (N from 0 to 5) after the hex"
    )


def test_expected_forms_are_listed() -> None:
    with pytest.raises(OrderError) as caught:
        parse_line("run", names("18TN"))
    assert caught.value.message == "the order stops too early; expected a train, `auto` or `none`"
    assert caught.value.expected == ("a train", "auto", "none")


def test_near_misses_are_suggested_never_applied() -> None:
    for line in ("buy TX", "lay 75 at H5 rot 2", "token F111", "by TC"):
        with pytest.raises(OrderError) as caught:
            parse_line(line, names("18TN"))
        assert caught.value.suggestions


def test_unknown_seats_are_taken_as_written_without_a_seat_list() -> None:
    bare = Names(title="18TN", privates=("TCC",))
    assert parse_line("sell TCC to Dora for 5", bare) == (SellPrivate("TCC", "Dora", 5),)


def test_edit_distance_counts_a_swap_as_half() -> None:
    assert edit_distance("75", "57") == 0.5
    assert edit_distance("by", "buy") == 1
    assert edit_distance("lay", "lay") == 0
    assert closest("75", ["5", "7", "57", "70"]) == ("57",)
    assert closest("x", ["y", "z"]) == ()
