"""`help [topic]` and the players' reference docs/orders.md."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from order_helpers import TITLES, names
from test_orders_contract import EXAMPLES

from grammar.errors import OrderError
from grammar.help import help_text, reference, topics
from grammar.parser import parse_line
from grammar.submission import stop_reason
from grammar.tournament import parse_tournament_line, starts_tournament_line


def test_help_lay_is_the_lay_section() -> None:
    text = help_text("lay")
    assert text.startswith("### lay / upgrade")
    assert "lay 57 at H5 rot 2" in text
    assert "### token" not in text
    assert help_text("upgrade") == text == help_text("LAY.")


def test_help_on_a_group_and_on_a_title() -> None:
    group = help_text("stock round")
    assert group.startswith("## Stock round")
    assert "### par" in group and "### sell" in group and "### bid" not in group
    for_1861 = help_text("1861")
    assert "### convert" in for_1861 and "### lay" not in for_1861


def test_help_falls_back_to_the_leading_words() -> None:
    assert help_text("buy train 3").startswith("### buy train")


def test_the_index() -> None:
    index = help_text(None)
    assert index.startswith("# Orders")
    assert "Topics (mail `help TOPIC`):" in index
    assert "  lay / upgrade\n" in index
    assert "  convert (1861)\n" in index
    assert help_text("") == index


def test_unknown_topic() -> None:
    assert help_text("lya") == (
        "There is no help on `lya`; did you mean `lay`?\nMail `help` for the list of topics."
    )
    assert help_text("zzzz") == ("There is no help on `zzzz`\nMail `help` for the list of topics.")


def test_every_topic_finds_its_section() -> None:
    for topic in topics():
        assert topic in help_text(topic).splitlines()[0].casefold()


DOC = resources.files("moderator.docs").joinpath("orders.md").read_text(encoding="utf-8")


def _doc_examples() -> list[tuple[tuple[str, ...], str]]:
    """(titles, example line) for every order line in the reference's code blocks.

    The titles are those a line's comment names (`# 1850`), else its section's mark,
    else 18TN. A block is read like a mail: up to a signature.
    """
    out: list[tuple[tuple[str, ...], str]] = []
    for section in reference().sections:
        if section.level != 3:
            continue
        for block in re.findall(r"^```\n(.*?)^```", section.text, re.S | re.M):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                if stop_reason(lines, i) is not None:
                    break
                if not line.split("#", 1)[0].strip():
                    continue
                named = tuple(re.findall(r"\b(18TN|1850|1851|1861|1825)\b", line.split("#")[-1]))
                out.append(((named if "#" in line else ()) or section.titles or ("18TN",), line))
    return out


@pytest.mark.parametrize(("titles", "line"), _doc_examples())
def test_every_reference_example_parses(titles: tuple[str, ...], line: str) -> None:
    assert all(t in TITLES for t in titles)
    if starts_tournament_line(line):  # read by grammar.tournament, not the order grammar
        assert parse_tournament_line(line)
        return
    failures: list[OrderError] = []
    for title in titles:
        try:
            assert parse_line(line, names(title))
            return
        except OrderError as e:
            failures.append(e)
    raise failures[0]


def test_every_contract_example_is_in_the_reference() -> None:
    documented = {line.split("#", 1)[0].strip() for _, line in _doc_examples()}
    assert sorted(set(EXAMPLES) - documented) == []


def test_the_reference_has_the_groups_the_issue_asks_for() -> None:
    groups = [s.heading for s in reference().sections if s.level == 2]
    for wanted in (
        "Submission",
        "Stock round",
        "Auctions and privates",
        "Operating round",
        "Title specials",
        "1861 merger round",
        "Not game moves",
        "Game master",
    ):
        assert wanted in groups
