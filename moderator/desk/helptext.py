"""`help` as a mail shows it: the reference of docs/orders.md (`grammar.help`) in plain
text (issue 30). The reference is Markdown; a mail's text part is read as it is, so its
headings, code fences and emphasis marks would show as raw `###` and ``` lines."""

from __future__ import annotations

import re

from grammar.help import help_text

__all__ = ["help_answer", "plain_text"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_EMPHASIS = re.compile(r"(\*\*|\*|__)(?=\S)(.+?)(?<=\S)\1")


def plain_text(markdown: str) -> str:
    """MARKDOWN as plain text: a heading becomes its words (a top heading underlined),
    a fenced block is indented by two spaces, emphasis marks go; `orders` in backquotes
    stay, as mail readers write them."""
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append(f"  {line}" if line.strip() else "")
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            words = _EMPHASIS.sub(r"\2", heading.group(2)).strip()
            out.append(words)
            if len(heading.group(1)) <= 2:
                out.append("=" * len(words) if len(heading.group(1)) == 1 else
                           "-" * len(words))
            continue
        out.append(_EMPHASIS.sub(r"\2", line))
    return "\n".join(out).strip("\n")


def help_answer(topic: str | None) -> str:
    """The answer to `help TOPIC` (`help`: the introduction and the topics)."""
    return plain_text(help_text(topic))
