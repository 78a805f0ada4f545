"""Every rule section of every title's rulebook is named by a test or accounted for in
tests/rule_coverage.toml (issue 35, item 8); the accounts stay true.

Reads the rulebooks and the suite's sources (by AST), plays nothing."""

from __future__ import annotations

import fnmatch
from functools import cache
from types import ModuleType

import pytest
from rule_coverage_tool import rule_coverage


def rc() -> ModuleType:
    return rule_coverage()


@cache
def data() -> dict[str, object]:
    return rc().load_data()  # type: ignore[no-any-return]


@cache
def suite() -> tuple[object, ...]:
    return tuple(rc().test_functions())


@cache
def result() -> dict[str, object]:
    return rc().coverage(data(), list(suite()))  # type: ignore[no-any-return]


TITLES = ("18TN", "1825", "1850", "1851", "1861")


# --- the accounts -----------------------------------------------------------------------------

@pytest.mark.parametrize("title", TITLES)
def test_every_section_no_test_names_is_listed(title: str) -> None:
    cov = result()[title]
    table = rc().entries(data(), title)
    missing = [s.id for s in cov.unnamed if s.id not in table]  # type: ignore[attr-defined]
    assert not missing, (f"{title} sections no test names and tests/rule_coverage.toml does "
                         f"not list: {missing}")


@pytest.mark.parametrize("title", TITLES)
def test_no_listed_section_is_named_by_a_test_now(title: str) -> None:
    cov = result()[title]
    stale = [sid for sid in rc().entries(data(), title)
             if cov.named.get(sid)]  # type: ignore[attr-defined]
    assert not stale, (f"{title} sections now named by tests: remove them from "
                       f"tests/rule_coverage.toml: {stale}")


@pytest.mark.parametrize("title", TITLES)
def test_every_listed_section_is_in_the_rulebook(title: str) -> None:
    ids = {s.id for s in result()[title].sections}  # type: ignore[attr-defined]
    unknown = [sid for sid in rc().entries(data(), title) if sid not in ids]
    assert not unknown, f"{title} has no sections {unknown}"


@pytest.mark.parametrize("title", TITLES)
def test_every_test_listed_under_other_names_exists(title: str) -> None:
    keys = {t.key for t in suite()}  # type: ignore[attr-defined]
    absent = [(sid, key) for sid, entry in rc().entries(data(), title).items()
              if isinstance(entry, list) for key in entry if key not in keys]
    assert not absent, f"listed tests that do not exist: {absent}"


@pytest.mark.parametrize("title", TITLES)
def test_every_entry_is_tests_todo_or_a_reason(title: str) -> None:
    for sid, entry in rc().entries(data(), title).items():
        if isinstance(entry, list):
            assert entry, sid
        else:
            assert isinstance(entry, str) and (entry == "todo" or len(entry) > 10), sid


def test_every_1851_topic_pattern_names_a_test_of_1851() -> None:
    overrides = dict(data()["test_titles"])  # type: ignore[call-overload]
    names = [t.name for t in suite()  # type: ignore[attr-defined]
             if rc().title_of(t, overrides) == "1851"]
    headings = {s.id for s in result()["1851"].sections}  # type: ignore[attr-defined]
    for heading, patterns in data()["topics_1851"].items():  # type: ignore[attr-defined]
        assert heading in headings, heading
        for pattern in patterns:
            assert fnmatch.filter(names, pattern), (heading, pattern)


def test_every_test_given_a_title_exists() -> None:
    keys = {t.key for t in suite()}  # type: ignore[attr-defined]
    paths = {t.path for t in suite()}  # type: ignore[attr-defined]
    for key, title in data()["test_titles"].items():  # type: ignore[attr-defined]
        assert key in keys or key in paths, key
        assert title in TITLES, key


# --- the tool reads what the rulebooks and the names say -------------------------------------

def test_sections_of_each_rulebook() -> None:
    ids = {t: [s.id for s in rc().read_sections(t)] for t in TITLES}
    assert {"3.1.1", "4.2.3.1", "4.2.5.2", "5.1", "A1"} <= set(ids["18TN"])
    assert {"4.2.8", "5.10", "10.7.2", "9.1.4"} <= set(ids["1850"])
    assert "1850" not in ids["1850"]  # the title page is "front", not a section 1850
    assert {"10.10", "12.4", "14.5"} <= set(ids["1861"])
    assert "1861" not in ids["1861"]  # sentences starting "1861 is ..." are no headings
    assert {"2", "5.2.4.a", "5.2.4.b", "6.4.6", "6.4.7"} <= set(ids["1825"])
    # cross-references ("5.5.3 of the Route rules", "requirements of 5.2.4.") are not sections
    assert "5.5.3" not in ids["1825"] and "5.5.2.a" not in ids["1825"]
    assert {"SELLING STOCK", "LAY OR UPGRADE TRACK", "RUN TRAIN(S)",
            "ENDING THE GAME"} <= set(ids["1851"])
    assert not {"ET&WNC", "CNO&TP", "L&O"} & set(ids["1851"])
    for title, found in ids.items():
        assert len(found) == len(set(found)), title


def test_a_name_says_its_sections() -> None:
    named = rc().numbers_named
    assert named("test_6_4_6_a_receiver_buys") == ["6.4.6.a"]
    assert named("test_10_6_and_10_7_a_minor_skips") == ["10.6", "10.7.a"]
    assert named("test_1850_5_7_bidding") == ["5.7"]
    assert named("test_1850_export_is_all") == []
    assert named("test_18tn_plays_on_by_defaults") == []
    assert named("test_w6_no_station") == []


def test_a_test_counts_for_its_section_and_the_sections_above_it_not_below() -> None:
    named = result()["1825"].named  # type: ignore[attr-defined]
    receiver = "tests/engine/test_1825_receivership.py::test_6_4_1_income_is_always_withheld"
    assert receiver in named["6.4.1"] and receiver in named["6.4"] and receiver in named["6"]
    assert receiver not in named.get("6.4.3", [])


def test_a_trailing_letter_that_is_no_section_counts_for_the_section() -> None:
    ids = {"4.2.5.2", "4.2.5", "4.2", "4", "5.2.4", "5.2.4.a"}
    assert rc().resolve("4.2.5.2.d", ids) == "4.2.5.2"
    assert rc().resolve("5.2.4.a", ids) == "5.2.4.a"
    assert rc().resolve("7818", ids) is None


def test_the_markdown_report_has_every_title_and_section() -> None:
    text = rc().render(result(), data(), markdown=True)
    for title, cov in result().items():
        assert f"## {title}" in text
        for s in cov.sections:  # type: ignore[attr-defined]
            assert f"| {s.id} |" in text
