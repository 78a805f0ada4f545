"""A mail body -> the order lines of one submission."""

from __future__ import annotations

import dataclasses

from order_helpers import names

from engine import actions as a
from grammar import commands as c
from grammar.submission import Stop, parse_submission, read_game_id

N = names("18TN")


def test_headers_orders_comments_and_signature() -> None:
    body = (
        "game 18TN-7\n"
        "move 212\n"
        "\n"
        "# my plan for this round\n"
        "buy TC\n"
        "sell 2 TC, 1 IC   # raise money\n"
        "-- \n"
        "Ann\n"
        "buy IC\n"
    )
    sub = parse_submission(body, N)
    assert (sub.game, sub.move) == ("18TN-7", 212)
    assert [h.number for h in sub.headers] == [1, 2]
    assert [(line.number, line.text) for line in sub.lines] == [
        (5, "buy TC"),
        (6, "sell 2 TC, 1 IC   # raise money"),
    ]
    assert sub.orders == (
        a.BuyShares("TC"),
        a.SellShares("TC", count=2),
        a.SellShares("IC", count=1),
    )
    assert sub.stop == Stop(7, "signature")
    assert sub.ok


def test_sign_off_and_a_signature_without_its_space() -> None:
    assert parse_submission("pass\nSign off.\nbuy TC\n", N).stop == Stop(2, "sign off")
    sub = parse_submission("pass\n--\nAnn\n", N)
    assert sub.stop == Stop(2, "signature")
    assert sub.orders == (a.Pass(),)
    assert parse_submission("pass\n\nSent from my iPhone\n", N).stop == Stop(3, "signature")


def test_stops_at_the_quoted_mail() -> None:
    body = "buy TC\n\n> Your turn in [18TN-7].\n> buy IC\n"
    sub = parse_submission(body, N)
    assert sub.orders == (a.BuyShares("TC"),)
    assert sub.stop == Stop(3, "quote")
    body = "pass\nOn Tue, 1 Dec 2026 at 10:00, Moderator <m@example.org> wrote:\nYour turn\n"
    assert parse_submission(body, N).stop == Stop(2, "quote")


def test_a_wrapped_on_wrote_line_is_a_quote_too() -> None:
    body = "pass\nOn Tue, 1 Dec 2026 at 10:00, Moderator\n<moderator@example.org> wrote:\n\n> x\n"
    sub = parse_submission(body, N)
    assert sub.stop == Stop(2, "quote")
    assert sub.ok


def test_outlook_original_message() -> None:
    body = "pass\r\n-----Original Message-----\r\nFrom: moderator\r\n"
    assert parse_submission(body, N).stop == Stop(2, "quote")


def test_orders_below_the_quote_are_not_read() -> None:
    sub = parse_submission("> Your turn.\n\npass\n", N)
    assert sub.lines == ()
    assert sub.stop == Stop(1, "quote")


def test_refused_lines_keep_their_number_and_error() -> None:
    body = "buy TC\nlay 75 at H5 rot 2\nThanks,\nAnn\n"
    sub = parse_submission(body, N)
    assert not sub.ok
    # The closing after the last order is not an error of its own (issue 19).
    assert [line.number for line in sub.errors] == [2]
    assert sub.lines[0].ok and sub.lines[0].orders == (a.BuyShares("TC"),)
    error = sub.lines[1].error
    assert error is not None
    assert error.message == "tile 75 does not exist in 18TN; did you mean 57?"
    assert [line.number for line in sub.closing] == [3, 4]
    closing = sub.closing[0].error
    assert closing is not None and closing.prose
    assert closing.message == (
        "`Thanks` is not an order (`help` lists the orders; end your orders with "
        "`sign off` or a `-- ` line)"
    )


def test_a_second_move_header_must_agree() -> None:
    sub = parse_submission("move 5\nmove 6\npass\n", N)
    assert sub.move == 5
    (bad,) = sub.errors
    assert bad.number == 2
    assert bad.error is not None
    assert bad.error.message == "this submission already names move 5"
    assert parse_submission("move 5\nmove 5\n", N).ok


def test_the_applier_records_what_each_line_did() -> None:
    sub = parse_submission("buy TC\nstatus\n", N)
    done = [dataclasses.replace(line, result="ok") for line in sub.lines]
    assert [line.result for line in done] == ["ok", "ok"]
    assert sub.lines[1].orders == (c.Status(),)
    assert sub.lines[0].result is None


def test_read_game_id_before_names_are_known() -> None:
    assert read_game_id("\ufeff# hi\ngame [18TN-7]\nbuy TC\n") == "18TN-7"
    assert read_game_id("buy TC\n") is None
    assert read_game_id("pass\n-- \ngame 1850-2\n") is None
