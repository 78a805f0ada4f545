"""Names of a title, and how written words resolve to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from order_helpers import SEATS, TITLES, names

from engine.title import load_title
from grammar.names import (
    CompanyKind,
    NameProblem,
    Names,
    lookup_company,
    lookup_hex,
    lookup_seat,
    lookup_tile,
    lookup_train,
    names_for_title,
    parse_amount,
)

REFERENCE = Path("/work/shared/reference")
REFERENCE_FILE = {"1825": "1825-unit1"}


@pytest.mark.parametrize("title", TITLES)
def test_names_for_title_match_the_reference_data(title: str) -> None:
    path = REFERENCE / f"{REFERENCE_FILE.get(title, title)}.json"
    if not path.exists():
        pytest.skip("the shared reference data is not on this machine")
    ref = json.loads(path.read_text(encoding="utf-8"))
    n = names_for_title(load_title(title), SEATS)  # (1825: Unit 1 without the R1 kit)
    corps = ref["corporations"]
    assert set(n.corporations) == {c["sym"] for c in corps if c["type"] != "minor"}
    assert set(n.minors) == {c["sym"] for c in corps if c["type"] == "minor"}
    assert set(n.privates) == {p["sym"] for p in ref["privates"]}
    assert set(n.hexes) == {h["id"] for h in ref["hexes"]}
    assert set(n.trains) == {t["name"] for t in ref["trains"]}
    assert set(n.tiles) == set(ref["tile_manifest"])
    assert n.currency == ref["currency"]


def test_companies_case_and_punctuation() -> None:
    tn = names("18TN")
    shares: tuple[CompanyKind, ...] = ("corporation", "minor")
    for word in ("L&N", "l&n", "LN", "ln"):
        assert lookup_company(tn, word, shares) == "L&N"
    for word in ("NC&StL", "NCSTL", "nc&stl", "NCSL"):
        assert lookup_company(tn, word, shares) == "NC&StL"
    assert lookup_company(tn, "SOU", shares) == "SR"  # the rulebook's abbreviation
    assert lookup_company(tn, "lnr", ("private",)) == "LNR"


def test_symbols_that_differ_only_by_punctuation() -> None:
    ru = names("1861")
    assert lookup_company(ru, "MK", ("corporation", "minor")) == "MK"
    assert lookup_company(ru, "M-K", ("corporation", "minor")) == "M-K"
    assert lookup_company(ru, "MK", ("minor",)) == "M-K"
    with pytest.raises(NameProblem, match="M-K is a minor company, not a corporation"):
        lookup_company(ru, "M-K", ("corporation",))


def test_hexes_tiles_trains() -> None:
    tn = names("18TN")
    assert {lookup_hex(tn, w) for w in ("H5", "h5", "H-5", "H05", "h - 5")} == {"H5"}
    assert lookup_hex(names("1851"), "@18") == "@18"
    assert lookup_tile(tn, "tn1") == "TN1"
    assert lookup_tile(tn, "057") == "57"
    assert lookup_train(names("1861"), "5+5e") == "5+5E"
    assert lookup_train(names("1825"), "2+2", double_heading=True) == "2+2"
    with pytest.raises(NameProblem):
        lookup_train(names("1825"), "2+2")  # not a train one can buy
    with pytest.raises(NameProblem):
        lookup_train(tn, "2+2", double_heading=True)  # 18TN has no double-heading


def test_amounts() -> None:
    tn = names("18TN")
    for word in ("90", "$90", "£90", "R90", "r90", "€90"):
        assert parse_amount(tn, word) == 90
    with pytest.raises(NameProblem, match=r"did you mean \$90\?"):
        parse_amount(tn, "$9O")


def test_seats() -> None:
    n = names("18TN")
    assert lookup_seat(n, "bob") == "Bob"
    assert lookup_seat(Names(title="18TN"), "Zed") == "Zed"
    assert Names(title="x").with_seats(["A"]).seats == ("A",)


def test_kept_names_and_parses_are_those_of_their_own_title_and_seats() -> None:
    """`names_for_title` and `parse_line` keep what they made (issue 14): asked again,
    for another title or other seats, each answers as if asked the first time -- a seat
    known to one game is unknown to another, a company of one title to another -- and
    a refused line is refused every time."""
    import dataclasses

    from engine.title import load_title
    from grammar.errors import OrderError
    from grammar.names import names_for_title
    from grammar.parser import parse_line

    tn, fifty = load_title("18TN"), load_title("1850")
    ann = names_for_title(tn, ["Ann", "Bob", "Cy"])
    assert names_for_title(tn, ("Ann", "Bob", "Cy")) is ann  # kept, lists and tuples
    dee = names_for_title(tn, ("Dee", "Eve", "Fay"))
    assert dee.seats == ("Dee", "Eve", "Fay") and dee == dataclasses.replace(
        ann, seats=("Dee", "Eve", "Fay"))
    assert names_for_title(fifty, ("Ann", "Bob", "Cy")).title == "1850"
    for _ in range(2):  # made, then kept
        assert parse_line("buy TC", ann) == parse_line.__wrapped__("buy TC", ann)
        with pytest.raises(OrderError):
            parse_line("buy TC", names_for_title(fifty, ("Ann", "Bob", "Cy")))
        forced = parse_line("force Ann: pass", ann)
        assert forced == parse_line.__wrapped__("force Ann: pass", ann)
        with pytest.raises(OrderError):
            parse_line("force Ann: pass", dee)
        with pytest.raises(OrderError):
            parse_line("buy", ann)
