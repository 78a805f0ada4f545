"""Every refusal cites its own title's rulebook, in its words (issue 35, item 3).

The core's refusals are shared by every title; each title maps them to its own words and
sections (engine.citations, `Rules.citations`). Here every refusal text of every title is
walked: each rule the core cites, as each title says it; every text a title module writes
itself; and refusals provoked in positions of each title. Each cited section must exist
in that title's rulebook in ../shared/rules, read by tools/rule_coverage.py's parser.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import scenarios_1825
import scenarios_1850
import scenarios_1851
import scenarios_1861
import tn_scenarios
from rule_coverage_tool import rule_coverage

from engine.actions import Action, BuyTrain, LayTile, PlaceToken
from engine.citations import PLAIN, SECTION_NUMBER, check_citations, cite, fields_of
from engine.errors import GameError
from engine.game import Game
from engine.titles import rules_for

ROOT = Path(__file__).resolve().parents[2]
TITLES = ("18TN", "1825", "1850", "1851", "1861")


def rc() -> ModuleType:
    return rule_coverage()


@cache
def section_ids(title: str) -> frozenset[str]:
    return frozenset(s.id for s in rc().read_sections(title))


@cache
def rulebook(title: str) -> str:
    return (rc().rules_dir() / rc().RULEBOOKS[title]).read_text(encoding="utf-8")


CITED = re.compile(r"^(\d{1,2}(?:\.\d+)*(?:\.[a-z])?)((?:\([a-z0-9]+\))*)$")


def why_not_in_rulebook(title: str, cited: str) -> str | None:
    """Why `cited` ("4.2.2(a)", "10.7.2", "PURCHASE TRAINS") names nothing in the title's
    rulebook, or None."""
    ids = section_ids(title)
    if title == "1851":  # headings, no numbers
        return None if cited in ids else f"1851 has no heading {cited!r}"
    m = CITED.match(cited)
    if m is None:
        return f"{cited!r} is not a section number"
    number, clauses = m.groups()
    text = rulebook(title)
    if number not in ids:
        # 1850 numbers paragraphs in bold inside a section (**5.10.1.**), which the
        # parser, reading headings, does not list.
        parent = number.rsplit(".", 1)[0]
        if not (parent in ids and re.search(rf"\*\*{re.escape(number)}\.?\*\*", text)):
            return f"{title} has no section {number}"
    for clause in re.findall(r"\([a-z0-9]+\)", clauses):
        heading = re.search(rf"^#+\s*\**{re.escape(number)}\.?\s", text, re.MULTILINE)
        if heading is None:
            return f"{title} {number}: no heading to find its clause {clause} under"
        end = re.search(r"^#", text[heading.end():], re.MULTILINE)
        body = text[heading.end():heading.end() + end.start() if end else len(text)]
        if not re.search(rf"(?:^|\s){re.escape(clause)}\s", body, re.MULTILINE):
            return f"{title} {number} has no clause {clause}"
    return None


# A section number as a text cites it: "(4.2.2(a))", "(1861 10.8: ...)", "(5.10.9, 5.11)".
NUMBER_IN_TEXT = re.compile(r"(?<![\w.$£])(\d{1,2}(?:\.\d+)+(?:\.[a-z](?![a-z]))?"
                            r"(?:\([a-z0-9]+\))*|(?<=\()\d{1,2}(?:\([a-z0-9]+\))*(?=[),;:]))")


def texts_of(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are not docstrings, f-strings joined with
    `{}` for their fields: the texts it can say."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    parts, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts.update(id(v) for v in node.values)
            found.append((node.lineno, "".join(
                v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings and id(node) not in parts):
            found.append((node.lineno, node.value))
    return found


def title_modules(title: str) -> list[Path]:
    return sorted((ROOT / "engine" / "titles").glob(f"t{title.lower()}*.py"))


def core_modules() -> list[Path]:
    """Every engine module but the titles', at any depth (a package split keeps its
    modules here)."""
    titles = ROOT / "engine" / "titles"
    return sorted(p for p in (ROOT / "engine").rglob("*.py") if titles not in p.parents)


# --- the mapping --------------------------------------------------------------------------

def test_the_plain_words_cite_no_title() -> None:
    # A rule a title does not map is said plainly: no title's section number.
    numbered = {key: words for key, words in PLAIN.items() if SECTION_NUMBER.search(words)}
    assert numbered == {}


def test_the_plain_words_name_a_company_s_token_in_the_title_s_word() -> None:
    # A title naming its tokens otherwise (1825's Bases) is heard in the plain words of
    # every rule about reaching a company's token, mapped by the title or not.
    base = {"station": "Base"}
    for key in ("track_connects", "station_once_per_hex", "station_connects"):
        said = cite({}, key, {"hex": "X1", "corp": "AB"}, base)
        assert "AB Base" in said or "a Base in" in said, (key, said)
        assert "station" not in said, (key, said)


@pytest.mark.parametrize("title", TITLES)
def test_every_rule_the_core_cites_in_the_titles_words_and_sections(title: str) -> None:
    rules = rules_for(title)
    assert check_citations(rules.citations) == []
    assert rules.citations, f"{title} maps none of the core's rules"
    wrong = {}
    for key, plain in PLAIN.items():
        fields = {name: f"<{name}>" for name in fields_of(plain)}
        said = rules.cite(key, **fields)  # every key says itself with the core's fields
        citation = rules.citations.get(key)
        if citation is None:
            assert said == plain.format_map(fields)
            continue
        assert citation.section, f"{title} {key}: a mapping with no section"
        assert said.endswith(f" ({citation.section})")
        for cited in citation.section.split(", "):
            why = why_not_in_rulebook(title, cited)
            if why:
                wrong[key] = why
    assert wrong == {}


def test_no_title_borrows_another_titles_mapping() -> None:
    # 18TN's sections are 18TN's alone: the 1830-family core does not default to them.
    mappings = {title: rules_for(title).citations for title in TITLES}
    tn = mappings["18TN"]
    for title, mapping in mappings.items():
        if title != "18TN":
            shared = {k for k, c in mapping.items() if k in tn and c.section == tn[k].section}
            assert shared == set(), f"{title} cites 18TN's sections for {sorted(shared)}"


# --- the texts the modules write --------------------------------------------------------

def test_the_core_writes_no_section_number() -> None:
    # The core speaks for every title: a section number in it would be one title's.
    numbered = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
                for path in core_modules() for line, text in texts_of(path)
                if NUMBER_IN_TEXT.search(text)]
    assert numbered == []


@pytest.mark.parametrize("title", TITLES)
def test_a_title_module_cites_its_own_rulebook(title: str) -> None:
    modules = title_modules(title)
    assert modules
    wrong = []
    for path in modules:
        for line, text in texts_of(path):
            for m in NUMBER_IN_TEXT.finditer(text):
                why = why_not_in_rulebook(title, m.group(1))
                if why:
                    wrong.append(f"{path.name}:{line}: {why}: {text!r}")
    assert wrong == []


# --- refusals provoked in play ----------------------------------------------------------

def _1850_second_bank_train() -> tuple[Game, str, Action]:
    g = scenarios_1850.new_game()
    scenarios_1850.privates_sold(g)
    scenarios_1850.companies_started(g)
    scenarios_1850.pass_round(g)
    g.apply("Cy", BuyTrain("2"))  # GN; then the CB&Q's turn
    g.apply("Bob", BuyTrain("2"))
    return g, "Bob", BuyTrain("2")


def _1825_base_out_of_reach() -> tuple[Game, str, Action]:
    g = scenarios_1825.new_game()
    scenarios_1825.first_round(g)  # the LNWR (Ann) operates
    return g, "Ann", PlaceToken("R12")


def _1861_track_away_from_the_minor() -> tuple[Game, str, Action]:
    g = scenarios_1861.first_operating_round()  # N (Bob) operates
    return g, "Bob", LayTile("57", "I13", 0)


def _18tn_station_out_of_reach() -> tuple[Game, str, Action]:
    g = tn_scenarios.three_company_opening()  # the TC (Bob) operates
    return g, "Bob", PlaceToken("B17")


def _1851_station_out_of_reach() -> tuple[Game, str, Action]:
    g = scenarios_1851.two_company_opening()  # the IC (Cy) operates
    return g, "Cy", PlaceToken("B10")


@pytest.mark.parametrize(("title", "position", "refusal"), [
    ("18TN", _18tn_station_out_of_reach, "B17 is not connected to a TC station (4.2.2(a))"),
    ("1825", _1825_base_out_of_reach,
     "R12 is not reachable from one of LNWR's existing Bases (5.4)"),
    ("1850", _1850_second_bank_train,
     "CBQ has bought its new train from the bank this turn: a company may purchase one "
     "new train a turn from the bank (10.3)"),
    ("1851", _1851_station_out_of_reach, "B10 is not on a route of IC (PLACE STATION MARKER)"),
    ("1861", _1861_track_away_from_the_minor,
     "the track on I13 must extend a route of N (10.4)"),
])
def test_a_core_refusal_in_play_cites_the_titles_rulebook(
        title: str, position: Callable[[], tuple[Game, str, Action]], refusal: str) -> None:
    g, seat, action = position()
    assert g.state.title.name == title
    with pytest.raises(GameError) as err:
        g.apply(seat, action)
    assert err.value.message == refusal
    cited = refusal[refusal.rindex(" (") + 2:-1]
    assert why_not_in_rulebook(title, cited) is None
