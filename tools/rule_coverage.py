"""Which rule sections of each title's rulebook the test suite names.

    python tools/rule_coverage.py              # per title: sections, the tests naming them
    python tools/rule_coverage.py --markdown   # the same written to docs/rule-coverage.md

A test names a section by its function name: `test_6_4_6_a_receiver_buys...` in
tests/engine/test_1825_*.py names 1825 section 6.4.6 (6.4.6.a where the rulebook has
such a section). A test of 6.4.6 also counts for 6.4 and 6, not the reverse. The title
is the one in the test file's name (test_1825_..., test_mail_1861_game.py), else the one
in the function's name (test_1850_..., test_a_whole_1825_game...), else the one given in
the data file's [test_titles]. 1851's rulebook has no numbers: its sections are its
ALL-CAPS headings, and the data file's [topics_1851] says which tests name each (by
function-name patterns). Tests are read by AST, never imported.

The data file (tests/rule_coverage.toml) says, for every section no test names, the
tests that cover it under other names, why it cannot be tested, or "todo".

Rulebooks come from $RULES, else ../shared/rules beside the repository.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "rule_coverage.toml"
MARKDOWN = ROOT / "docs" / "rule-coverage.md"

TITLES = ("18TN", "1825", "1850", "1851", "1861")
RULEBOOKS = {"18TN": "18TN.md", "1825": "1825-unit1.txt", "1850": "1850.md",
             "1851": "1851.txt", "1861": "1861.md"}
TITLE_WORD = re.compile(r"(?:^|_)(18tn|1825|1850|1851|1861)(?=_|$)", re.IGNORECASE)


def rules_dir() -> Path:
    return Path(os.environ.get("RULES") or ROOT.parent / "shared" / "rules")


# --- sections -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Section:
    id: str          # "6.4.6", "5.2.4.a", "A1" (18TN's appendices), "front", "SELLING STOCK"
    heading: str

    @property
    def parent(self) -> str | None:
        return self.id.rsplit(".", 1)[0] if "." in self.id else None


MD_HEADING = re.compile(r"^(#+)\s*(.*?)\s*$")
MD_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d+)*)\.?\s+(.+)$")
MD_APPENDIX = re.compile(r"^Appendix (\d+)\.?\s*(.*)$")


def _plain(text: str) -> str:
    return re.sub(r"[*\\]", "", text).strip()


def markdown_sections(text: str) -> list[Section]:
    """18TN and 1850: numbered headings (`## 3.1.`, `#### **9.1.4 Dividend Collection**`),
    18TN's appendices, the front matter before the first numbered heading (title page and
    table of contents) and an unnumbered top-level heading after it (18TN's score sheet).
    Other unnumbered headings belong to the section they stand in."""
    sections: list[Section] = []
    front: list[str] = []
    for line in text.splitlines():
        m = MD_HEADING.match(line)
        if not m:
            continue
        level, heading = len(m.group(1)), _plain(m.group(2))
        numbered = MD_NUMBERED.match(heading)
        appendix = MD_APPENDIX.match(heading)
        if numbered:
            sections.append(Section(numbered.group(1), numbered.group(2).strip()))
        elif appendix:
            sections.append(Section(f"A{appendix.group(1)}", heading))
        elif not sections:
            front.append(heading)
        elif level == 1 and (heading[:1].isupper() or heading[:1].isdigit()):
            sections.append(Section(re.sub(r"\W+", "-", heading.lower()).strip("-"), heading))
    if front:
        sections.insert(0, Section("front", " / ".join(front)))
    return sections


def sections_1861(text: str) -> list[Section]:
    """Plain lines `10.7 DISTRIBUTE EARNINGS` after the table of contents (whose lines hold
    tabs); the optional rules 14.1-14.5 are numbered sentences, headed by their start."""
    lines = text.splitlines()
    toc = next(i for i, line in enumerate(lines) if "\t" in line)
    body = next(i for i in range(toc, len(lines)) if "\t" not in lines[i] and lines[i].strip())
    sections = [Section("front", "title page and table of contents")]
    for line in lines[body:]:
        m = re.match(r"^(\d{1,2}(?:\.\d+)*) (\S.*)$", line.strip())
        if m:
            heading = m.group(2)
            sections.append(Section(m.group(1), heading if len(heading) < 60
                                    else heading[:57].rsplit(" ", 1)[0] + " ..."))
    return sections


# A number standing alone before a capital word, not a cross-reference (those end in a
# dot, "5.2.4.", or go on in lower case, "5.5.3 of the Route rules").
NUMBER_1825 = re.compile(r"(?:^| )(\d+(?:\.\d+)+(?:\.[a-z])?) (?=[A-Z'*])")
TOP_1825 = re.compile(r"(?:^| )(\d+):? ([A-Z][A-Za-z' ]*?) =+")


def sections_1825(text: str) -> list[Section]:
    """One long line: `4: Share Dealing Rounds ====` (or `6 General Topics ====`) and
    inline numbers `5.2.4.a Some new track ...`. An inline section has no heading of its
    own apart from its text: its first words stand for it."""
    found: dict[str, tuple[int, str]] = {}
    for m in TOP_1825.finditer(text):
        if len(m.group(1)) <= 2:  # not the title, "1825 Rules ===="
            found.setdefault(m.group(1), (m.start(), m.group(2).strip()))
    for m in NUMBER_1825.finditer(text):
        excerpt = text[m.end():m.end() + 48]
        excerpt = excerpt[:excerpt.rfind(" ")] + " ..."
        found.setdefault(m.group(1), (m.start(), excerpt))
    return [Section(number, heading)
            for number, (_, heading) in sorted(found.items(), key=lambda kv: kv[1][0])]


HEADING_1851 = re.compile(r"(?<![\w&])((?:[A-Z]{2,}|OR)(?: (?:[A-Z]{2,}|OR))*(?:\(S\))?)"
                          r"(?= [A-Z]?[a-z]| A [A-Z]| 1851)")


def sections_1851(text: str) -> list[Section]:
    """No numbers: the ALL-CAPS headings (`LAY OR UPGRADE TRACK`, `SELLING STOCK`) are the
    sections; a company's initials (`ET&WNC`) are not headings."""
    seen: dict[str, Section] = {}
    for m in HEADING_1851.finditer(text):
        heading = m.group(1)
        if len(heading) >= 5 and heading not in seen:
            seen[heading] = Section(heading, heading.title().replace("(S)", "(s)"))
    return list(seen.values())


PARSERS = {"18TN": markdown_sections, "1850": markdown_sections, "1861": sections_1861,
           "1825": sections_1825, "1851": sections_1851}


def read_sections(title: str, rules: Path | None = None) -> list[Section]:
    text = ((rules or rules_dir()) / RULEBOOKS[title]).read_text(encoding="utf-8")
    return PARSERS[title](text)


# --- tests ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class TestFunction:
    path: str        # relative to the repository, posix
    name: str
    line: int

    @property
    def key(self) -> str:
        return f"{self.path}::{self.name}"


def test_functions(root: Path = ROOT) -> list[TestFunction]:
    """Every test function of the suite (module level and in classes), by AST."""
    found: list[TestFunction] = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                    and node.name.startswith("test_")):
                found.append(TestFunction(path.relative_to(root).as_posix(), node.name,
                                          node.lineno))
    return found


def title_of(test: TestFunction, overrides: dict[str, str]) -> str | None:
    if test.key in overrides:
        return overrides[test.key]
    stem = Path(test.path).stem
    for text in (stem, test.name):
        m = TITLE_WORD.search(text)
        if m:
            word = m.group(1).upper()
            return "18TN" if word == "18TN" else word
    return overrides.get(test.path)


NUMBER = r"\d+(?:_\d+)*(?:_[a-z](?=_|$))?(?=_|$)"
NAMED = re.compile(rf"^test_({NUMBER}(?:_and_{NUMBER})*)")


def numbers_named(name: str) -> list[str]:
    """`test_10_6_and_10_7_a_minor...` -> ["10.6", "10.7.a"]: what the name says, before
    it is matched to the rulebook (a trailing letter may be an article: `test_4_a_share`)."""
    m = NAMED.match(re.sub(r"^test_(?:18tn|1825|1850|1851|1861)_", "test_", name))
    if not m:
        return []
    return [part.replace("_", ".") for part in m.group(1).split("_and_")]


def resolve(number: str, ids: set[str]) -> str | None:
    """The most specific section of the rulebook that `number` falls in, else None."""
    parts = number.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in ids:
            return candidate
        parts.pop()
    return None


# --- coverage -------------------------------------------------------------------------------

@dataclass
class TitleCoverage:
    title: str
    sections: list[Section]
    named: dict[str, list[str]] = field(default_factory=dict)   # section -> test keys
    unknown: list[str] = field(default_factory=list)            # names of no section

    def ancestors(self, section_id: str) -> Iterable[str]:
        ids = {s.id for s in self.sections}
        parts = section_id.split(".")
        while parts:
            candidate = ".".join(parts)
            if candidate in ids:
                yield candidate
            parts.pop()

    @property
    def unnamed(self) -> list[Section]:
        return [s for s in self.sections if not self.named.get(s.id)]


def load_data(path: Path = DATA) -> dict[str, object]:
    with path.open("rb") as f:
        return tomllib.load(f)


def coverage(data: dict[str, object], tests: list[TestFunction],
             rules: Path | None = None) -> dict[str, TitleCoverage]:
    overrides = dict(data.get("test_titles", {}))  # type: ignore[call-overload]
    topics = dict(data.get("topics_1851", {}))  # type: ignore[call-overload]
    result = {t: TitleCoverage(t, read_sections(t, rules)) for t in TITLES}
    for test in tests:
        title = title_of(test, overrides)
        if title is None:
            continue
        cov = result[title]
        ids = {s.id for s in cov.sections}
        hits: list[str] = []
        if title == "1851":
            hits = [heading for heading, patterns in topics.items()
                    if any(fnmatch.fnmatchcase(test.name, p) for p in patterns)]
        for number in numbers_named(test.name):
            section = resolve(number, ids)
            if section is None:
                cov.unknown.append(test.key)
            else:
                hits.append(section)
        for hit in hits:
            for section_id in cov.ancestors(hit):
                keys = cov.named.setdefault(section_id, [])
                if test.key not in keys:
                    keys.append(test.key)
    return result


def entries(data: dict[str, object], title: str) -> dict[str, object]:
    sections = data.get("sections", {})
    assert isinstance(sections, dict)
    table = sections.get(title, {})
    assert isinstance(table, dict)
    return table


def classify(entry: object) -> str:
    """A data-file entry: a list of tests ("other names"), "todo", or a reason."""
    if isinstance(entry, list):
        return "other names"
    return "todo" if entry == "todo" else "untestable"


def counts(cov: TitleCoverage, table: dict[str, object]) -> dict[str, int]:
    figures = {"sections": len(cov.sections), "named": len(cov.sections) - len(cov.unnamed),
               "other names": 0, "untestable": 0, "todo": 0, "unlisted": 0}
    for section in cov.unnamed:
        kind = classify(table[section.id]) if section.id in table else "unlisted"
        figures[kind] += 1
    return figures


# --- output ---------------------------------------------------------------------------------

def short(key: str) -> str:
    path, name = key.split("::")
    return f"{Path(path).name}::{name}"


def render(result: dict[str, TitleCoverage], data: dict[str, object], markdown: bool) -> str:
    out: list[str] = []
    if markdown:
        out += ["# Rule coverage", "",
                "Written by `python tools/rule_coverage.py --markdown`; do not edit by hand.",
                "Each rule section of each title's rulebook (../shared/rules), the tests that",
                "name it (a test of 6.4.6 also counts for 6.4 and 6), and for a section no",
                "test names, what tests/rule_coverage.toml says: the tests covering it under",
                "other names, why it cannot be tested, or *todo*.", "",
                "| Title | Sections | Named by tests | Other names | Untestable | Todo |",
                "|---|---|---|---|---|---|"]
        for title, cov in result.items():
            f = counts(cov, entries(data, title))
            out.append(f"| {title} | {f['sections']} | {f['named']} | {f['other names']} "
                       f"| {f['untestable']} | {f['todo']} |")
        out.append("")
    for title, cov in result.items():
        table = entries(data, title)
        f = counts(cov, table)
        summary = (f"{f['sections']} sections, {f['named']} named by tests, "
                   f"{f['other names']} under other names, {f['untestable']} untestable, "
                   f"{f['todo']} todo" + (f", {f['unlisted']} UNLISTED" if f["unlisted"] else ""))
        out += [f"## {title}" if markdown else f"== {title}: {summary}", ""]
        if markdown:
            out += [summary + ".", "", "| Section | Heading | Tests naming it | Otherwise |",
                    "|---|---|---|---|"]
        for s in cov.sections:
            named = cov.named.get(s.id, [])
            entry = table.get(s.id)
            if named:
                note = ""
            elif entry is None:
                note = "UNLISTED"
            elif isinstance(entry, list):
                note = "other names: " + ", ".join(short(k) for k in entry)
            else:
                note = str(entry)
            if markdown:
                tests = "<br>".join(f"`{short(k)}`" for k in named[:6])
                if len(named) > 6:
                    tests += f"<br>and {len(named) - 6} more"
                note = note.replace("|", "\\|")
                if isinstance(entry, list) and not named:
                    note = "other names: " + "<br>".join(f"`{short(k)}`" for k in entry)
                out.append(f"| {s.id} | {s.heading.replace('|', '/')} | {tests} | {note} |")
            else:
                status = f"{len(named)} test(s)" if named else note
                out.append(f"  {s.id:<10} {s.heading[:40]:<40} {status}")
        if not markdown:
            unnamed = [s.id for s in cov.unnamed]
            out += ["", f"  not named by a test: {', '.join(unnamed) or 'none'}"]
        if cov.unknown:
            out += ["", ("Test names whose number is no section here (record numbers): "
                          if markdown else "  numbers naming no section: ")
                    + ", ".join(sorted({short(k) for k in cov.unknown}))]
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--markdown", action="store_true",
                        help=f"write {MARKDOWN.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    data = load_data()
    result = coverage(data, test_functions())
    if args.markdown:
        MARKDOWN.write_text(render(result, data, markdown=True), encoding="utf-8")
        print(f"wrote {MARKDOWN.relative_to(ROOT)}")
    else:
        print(render(result, data, markdown=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
