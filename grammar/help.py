"""`help [topic]`: sections of the players' reference, docs/orders.md.

The reference is installed as `moderator.docs/orders.md`. Its `##` headings are the
groups (`Stock round`), its `###` headings the topics; a heading names one or more
topics separated by ` / ` (`### lay / upgrade`), and a mark such as `*(1861)*` says
which titles have the order. `help lay` returns the `lay` section, `help stock
round` the whole group, `help 1861` every section marked 1861, `help` the index.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from grammar.errors import closest, did_you_mean

_HEADING_RE = re.compile(r"^(#{1,3})\s+(.*?)\s*$")
_MARK_RE = re.compile(r"\*\(([^)]*)\)\*")


@dataclass(frozen=True, slots=True)
class Section:
    """One heading of the reference and the text under it (subsections included)."""

    level: int
    heading: str
    topics: tuple[str, ...]
    titles: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Reference:
    intro: str
    sections: tuple[Section, ...]


def _key(text: str) -> str:
    """How topics compare: case, backticks, extra spaces and end punctuation ignored."""
    return " ".join(text.replace("`", "").casefold().strip(" .?!").split())


@functools.cache
def reference() -> Reference:
    """The parsed reference (read once)."""
    text = resources.files("moderator.docs").joinpath("orders.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    heads: list[tuple[int, int, str]] = []  # (line index, level, heading)
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else _HEADING_RE.match(line)
        if m is not None and len(m.group(1)) >= 2:
            heads.append((i, len(m.group(1)), m.group(2)))
    intro_end = heads[0][0] if heads else len(lines)
    intro = "\n".join(lines[:intro_end]).strip()
    sections: list[Section] = []
    for n, (start, level, heading) in enumerate(heads):
        end = next((s for s, lv, _ in heads[n + 1 :] if lv <= level), len(lines))
        marks = _MARK_RE.findall(heading)
        plain = _MARK_RE.sub("", heading).strip()
        sections.append(
            Section(
                level=level,
                heading=plain,
                topics=tuple(_key(t) for t in plain.split(" / ")),
                titles=tuple(t.strip() for m in marks for t in m.split(",")),
                text="\n".join(lines[start:end]).strip(),
            )
        )
    return Reference(intro, tuple(sections))


def topics() -> tuple[str, ...]:
    """Every topic `help` knows, in the reference's order."""
    out: list[str] = []
    for section in reference().sections:
        out.extend(t for t in section.topics if t not in out)
    return tuple(out)


def help_text(topic: str | None) -> str:
    """The reference's section on `topic`; the index for None; a hint for an unknown topic."""
    ref = reference()
    if topic is None or not _key(topic):
        return _index(ref)
    key = _key(topic)
    if key in ("options", "option"):
        return _options()
    for section in ref.sections:
        if key in section.topics:
            return section.text
    titled = [s for s in ref.sections if key.upper() in (t.upper() for t in s.titles)]
    if titled:
        return "\n\n".join(s.text for s in titled)
    # `help buy train 3`, `help lay 57`: the longest topic the words start with.
    words = key.split()
    for size in range(len(words) - 1, 0, -1):
        shorter = " ".join(words[:size])
        for section in ref.sections:
            if shorter in section.topics:
                return section.text
    hint = closest(key, topics())
    return (
        f"There is no help on `{topic}`{did_you_mean(hint, quote=True)}\n"
        "Mail `help` for the list of topics."
    )


def _index(ref: Reference) -> str:
    rows: list[str] = []
    for section in ref.sections:
        if section.level == 2:
            rows.append(f"{section.heading}:")
        else:
            mark = f" ({', '.join(section.titles)})" if section.titles else ""
            rows.append(f"  {' / '.join(section.topics)}{mark}")
    listing = "\n".join(rows)
    return f"{ref.intro}\n\nTopics (mail `help TOPIC`):\n\n{listing}"


def _options() -> str:
    """`help options`: each title's game options, read from the titles' rules."""
    from engine.title import available_titles
    from engine.titles import title_options

    rows = ["Game options are chosen when a game is created, after its title:",
            "", "  create game 1850 finish_on_400 historical_order", ""]
    for title in available_titles():
        options = title_options(title)
        rows.append(f"{title}:" if options else f"{title}: no options")
        rows += [f"  {name}: {what}" for name, what in options.items()]
    return "\n".join(rows)
