"""A reply mail's own words: the text its writer typed, without the mail it quotes.

Players answer the moderator's report with whatever program they use, and each lays the
reply out its own way: Gmail and Apple Mail write above an `On ... wrote:` line and
a `>`-quoted copy; Outlook writes above a `From:/Sent:/To:/Subject:` block (or a
`-----Original Message-----` line) and copies the report unquoted; Thunderbird users
often write below the quote or between its paragraphs; every program speaks the
writer's language (`Am ... schrieb`, `Le ... a écrit :`, `Od:/Wysłano:`, `Fra:/Sendt:`).

`own_words` keeps the writer's lines and blanks the rest, so that line numbers stay
those of the mail:

* `>`-quoted lines are never the writer's; text after a quoted block (bottom-posting,
  answers between quoted paragraphs) is.
* An attribution line (`On ... wrote:` in any of the languages below, possibly wrapped
  over three lines) goes with the quote under it; with no `>` quote under it, the
  unquoted copy of the earlier mail follows, and reading ends there.
* A header block of the earlier mail (Outlook's, in any of the languages below), an
  `Original Message`/`Forwarded message` line or a long rule of `_`, `-` or `=` ends
  the reading: what follows is the earlier mail, a footer or a disclaimer.
* A phone's or program's footer (`Sent from my iPhone`, `Get Outlook for iOS`) ends it
  too, and a security banner at the top (`CAUTION: This email originated from
  outside ...`) is not the writer's.

The patterns are those of the `mail-parser-reply` library (its languages: English,
German, French, Spanish, Italian, Dutch, Polish, Danish, Swedish, Czech, ...), with
Portuguese and Norwegian and a few common forms it lacks added here. Which lines are
orders, greetings or sign-offs is the grammar's to say (`grammar.submission`): this
module only removes what the writer did not write.

`html_to_text` turns an HTML body into such text: a real converter (inscriptis, on
lxml) lays the blocks and tables out, `<blockquote>` becomes `>` lines, and what a mail
program never shows (`display:none`, `visibility:hidden`, `mso-hide:all`, zero sizes,
the `hidden` attribute, `<head>`, `<style>`, `<script>`, `<template>`, elements hidden
by a simple class or id rule of the mail's own `<style>`) is dropped: nothing hidden
can be read as an order.

Both functions are given text already cut to the moderator's limit (`parse.py`), run in
time linear in it, and never raise.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig
from lxml import etree
from lxml.html import HtmlElement, document_fromstring
from mailparser_reply.constants import MAIL_LANGUAGES

__all__ = ["html_to_text", "own_words"]

log = logging.getLogger(__name__)

# -- quote headers -------------------------------------------------------------------------


def _library(key: str) -> list[str]:
    """Every language's pattern of KEY in mail-parser-reply (each a regex)."""
    found: list[str] = []
    for language in MAIL_LANGUAGES.values():
        value = language.get(key)
        if isinstance(value, list):
            found += [v for v in value if v]
        elif value:
            found.append(value)
    return found


#: Verbs of attribution lines, `On <date>, <name> wrote:` in many languages.
_WROTE = (r"wrote|writes|schrieb|a\s+[ée]crit|escribi[óo]|ha\s+scritto|scrisse|schreef"
          r"|napisa[łl](?:\(a\))?|skrev|escreveu|kirjoitti|написал[аи]?|написав|írta"
          r"|napsal(?:\(a\))?")
#: The attribution line ends in its verb (with or without a colon) or, in programs that
#: leave the verb out (`2017-11-24 16:32 GMT+01:00 Ann <ann@example.org>:`), in an
#: address and a colon.
_ATTRIBUTION_END = re.compile(
    rf"(?:\b(?:{_WROTE})\b[^\n]{{0,40}}?:?|<?[^\s<>@]+@[^\s<>@]+>?\)?\s*:)\s*(?:-+)?\s*$",
    re.I)
#: What an attribution line begins with: `On`, its translations, a weekday or a date.
_ATTRIBUTION_START = re.compile(
    r"^\s*(?:[-–—]+\s*)?(?:On|Am|Le|El|Il|Op|Den|Em|Dnia|W\s+dniu|Dne|Da|De|Na"
    r"|\d|\(?(?:man|tir|ons|tor|fre|l[øö]r|s[øö]n|m[åa]n|tis|ma|ti|ke|to|pe|la|su"
    r"|mon|tue|wed|thu|fri|sat|sun)\.?\s)", re.I)
#: Lines that begin the unquoted copy of an earlier mail in Outlook and webmail: an
#: `Original Message` or `Forwarded message` line in any language, `Begin forwarded
#: message:`, and long rules (Outlook's 32 underscores, list footers, disclaimers).
_SEPARATOR = re.compile(
    r"^\s*(?:[-=_*]{2,}\s*(?:original|forwarded|ursprüngliche|weitergeleitete|message"
    r"|mensaje|messaggio|oorspronkelijk|doorgestuurd|oryginalna|przekazana|oprindelig"
    r"|opprinnelig|ursprungligt|vidarebefordrat|videresendt|mensagem|nachricht)[^\n]*"
    r"|\[?original message\b[^\n]*|begin forwarded message:?"
    r"|anfang der weitergeleiteten nachricht:?|[_]{2,}|[-]{10,}|[=]{10,}|[*]{10,})\s*$", re.I)
#: Outlook's header block: lines `Name: value` (or `*Name:* value`, `Name : value`).
_FIELD_NAMES = (
    "from|sent|to|subject|date|cc|bcc|reply-to|organization|von|gesendet|an|betreff"
    "|datum|kopie|de|envoy[ée](?: le)?|[àa]|objet|date|copie(?: à)?|message du|para"
    "|enviado(?: el)?|asunto|fecha|da|inviato|oggetto|data|van|verzonden|aan|onderwerp"
    "|od|wysłano|wyslano|do|temat|dw|fra|sendt|til|emne|dato|kopi|från|skickat|till"
    "|ämne|enviada(?: em)?|assunto|enviado em|odesláno|komu|předmět"
    "|от|отправлено|кому|тема|дата|копия"
    "|发件人|发送时间|收件人|主题|抄送")
_FIELD = re.compile(rf"^\s*[*]*\s*(?:{_FIELD_NAMES})\s*[*]?\s*:", re.I)
_FROM_FIELD = re.compile(
    r"^\s*[*]*\s*(?:from|von|de|da|van|od|fra|från|от|发件人)\s*[*]?\s*:", re.I)
#: Footers a mail program adds: never the writer's words, and never an order.
_FOOTER = re.compile(
    r"^\s*(?:sent (?:from|with|via|using) \S|get outlook for\b|enviado (?:desde|do|de) "
    r"|envoy[ée] (?:de|depuis) |gesendet (?:von|mit) |inviato da |verzonden (?:vanaf|met) "
    r"|wysłano z |sendt fra |skickat från |hent outlook|odesláno z )", re.I)
#: A security banner a mail server puts at the top of the text.
_BANNER = re.compile(
    r"^\s*\[?(?:caution|warning|external|attention|achtung|externe?|avertissement)\b"
    r"[^\n]{0,20}[:\]][^\n]*\b(?:e-?mail|sender|organi[sz]ation|outside|extern)", re.I)
#: mail-parser-reply's attribution patterns, one per language, read over the whole text
#: (they span wrapped lines); lines that start one of its matches begin a quote header.
_LIBRARY_WROTE = re.compile("|".join(f"(?:{p})" for p in _library("wrote_header")),
                            re.I | re.M)
_QUOTED = re.compile(r"^\s*>")
_LONGEST_ATTRIBUTION = 400


def own_words(text: str) -> str:
    """TEXT with only its writer's lines kept (the others blank, the earlier mail after
    a header cut off): see the module's description."""
    try:
        lines = text.split("\n")
        kept = _read(lines)
    except Exception as exc:  # a gap in the patterns must not lose the mail
        log.warning("reading the reply's own words failed (%s: %s); reading it whole",
                    type(exc).__name__, exc)
        return text
    return "\n".join(kept)


def _read(lines: list[str]) -> list[str]:
    attributions = _attributions(lines)
    kept: list[str] = []
    index = 0
    seen_text = False
    while index < len(lines):
        line = lines[index]
        if _QUOTED.match(line):
            kept.append("")
            index += 1
            continue
        span = attributions.get(index)
        if span is not None:
            following = _next_text(lines, span)
            if following is not None and _QUOTED.match(lines[following]):
                kept += [""] * (span - index)  # the attribution goes with its quote
                index = span
                continue
            break  # the earlier mail follows unquoted
        if _SEPARATOR.match(line) or _FOOTER.match(line) or _header_block(lines, index):
            break
        if not seen_text and _BANNER.match(line):
            kept.append("")
            index += 1
            continue
        seen_text = seen_text or bool(line.strip())
        kept.append(line)
        index += 1
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def _next_text(lines: list[str], start: int) -> int | None:
    """The index of the first non-blank line from START on, or None."""
    for index in range(start, len(lines)):
        if lines[index].strip():
            return index
    return None


def _attributions(lines: list[str]) -> dict[int, int]:
    """Attribution lines: {first line: the line after the last} for each, found by the
    library's patterns over the whole text and by ours line by line (up to three lines:
    programs wrap a long one)."""
    found: dict[int, int] = {}
    covered: set[int] = set()
    # Attribution lines are short: longer ones are left out of the search, whose
    # patterns would take time growing with the square of a line's length.
    short = [line if len(line) <= _LONGEST_ATTRIBUTION else "" for line in lines]
    text = "\n".join(short)
    starts = [0]
    for line in short:
        starts.append(starts[-1] + len(line) + 1)
    for match in _LIBRARY_WROTE.finditer(text):
        first = _line_of(starts, match.start())
        last = _line_of(starts, max(match.start(), match.end() - 1))
        if last - first <= 3 and not _QUOTED.match(lines[first]):
            found.setdefault(first, last + 1)
            covered.update(range(first, last + 1))
    for index, line in enumerate(short):
        if _QUOTED.match(line) or not _ATTRIBUTION_END.search(line):
            continue
        first = index
        while first > index - 2 and first > 0 and not _ATTRIBUTION_START.match(lines[first]) \
                and lines[first - 1].strip() and not _QUOTED.match(lines[first - 1]):
            first -= 1
        if not _ATTRIBUTION_START.match(lines[first]):
            continue
        if first not in covered:
            found.setdefault(first, index + 1)
            covered.update(range(first, index + 1))
    return found


def _line_of(starts: list[int], offset: int) -> int:
    """The index of the line holding OFFSET (STARTS: each line's first offset)."""
    low, high = 0, len(starts) - 2
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _header_block(lines: list[str], index: int) -> bool:
    """Whether an earlier mail's header block starts at INDEX: at least two fields in
    the next five lines, a From among them (Outlook wraps a long From; Hotmail puts the
    Date first)."""
    if not _FIELD.match(lines[index]):
        return False
    block = lines[index:index + 5]
    return sum(1 for line in block if _FIELD.match(line)) >= 2 and any(
        _FROM_FIELD.match(line) for line in block)


# -- HTML -----------------------------------------------------------------------------------

_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
    r"|mso-hide\s*:\s*all|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:!important)?"
    r"\s*(?:;|$)|(?:max-)?height\s*:\s*0(?:px)?\s*(?:!important)?\s*(?:;|$)"
    r"|opacity\s*:\s*0(?:\.0+)?\s*(?:!important)?\s*(?:;|$))", re.I)
_UNSHOWN_TAGS = ("head", "style", "script", "template", "title", "noframes")
_STYLE_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_SIMPLE_SELECTOR = re.compile(r"^\s*([a-z0-9]*)(?:([.#])([\w-]+))?\s*$", re.I)
#: The converter's strict profile (no indentation); `<blockquote>` is annotated so
#: that its lines can be marked `> `.
_CONFIG = ParserConfig(css=CSS_PROFILES["strict"], annotation_rules={"blockquote": ["quote"]})


def html_to_text(html: str) -> str:
    """The text a mail program shows for HTML, one block per line, `<blockquote>` as
    `> ` lines, hidden elements left out ("" when nothing is shown)."""
    try:
        tree = _tree(html)
        if tree is None:
            return ""
        _drop_hidden(tree)
        converter = Inscriptis(tree, _CONFIG)
        text = converter.get_text()
        quotes = [(a.start, a.end) for a in converter.get_annotations()]
    except Exception as exc:  # lxml or the converter gave up on broken markup
        log.warning("the HTML body could not be converted (%s: %s)", type(exc).__name__, exc)
        return ""
    return _mark_quotes(text, quotes)


def _tree(html: str) -> HtmlElement | None:
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)
    if not html.strip():
        return None
    try:
        return document_fromstring(html)
    except (etree.ParserError, ValueError):
        return document_fromstring("<pre>" + html.replace("<", "&lt;") + "</pre>")


def _drop_hidden(tree: HtmlElement) -> None:
    """Remove what a mail program does not show (see the module's description)."""
    hidden_classes, hidden_ids, hidden_tags = _hiding_rules(tree)
    doomed: list[HtmlElement] = []
    for element in tree.iter():
        if not isinstance(element.tag, str):  # comments, processing instructions
            doomed.append(element)
            continue
        tag = element.tag.lower()
        classes = set((element.get("class") or "").split())
        if (tag in _UNSHOWN_TAGS or tag in hidden_tags
                or element.get("hidden") is not None
                or (element.get("type") or "").lower() == "hidden"
                or _HIDING_STYLE.search(element.get("style") or "")
                or classes & hidden_classes or element.get("id") in hidden_ids):
            doomed.append(element)
    for element in doomed:
        parent = element.getparent()
        if parent is None:
            continue
        # Keep the text that follows the element (its tail): it is shown.
        tail = element.tail
        previous = element.getprevious()
        parent.remove(element)
        if tail:
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail


def _hiding_rules(tree: HtmlElement) -> tuple[set[str], set[str], set[str]]:
    """Class names, ids and tag names that the mail's own `<style>` hides with simple
    rules (`.preheader { display: none }`); complex selectors are not followed."""
    classes: set[str] = set()
    ids: set[str] = set()
    tags: set[str] = set()
    for style in _elements(tree, "style"):
        css = re.sub(r"/\*.*?\*/", "", style.text_content() or "", flags=re.S)
        for selectors, body in _STYLE_RULE.findall(css[:100_000]):
            if not _HIDING_STYLE.search(body.strip()):
                continue
            for selector in selectors.split(","):
                match = _SIMPLE_SELECTOR.match(selector)
                if match is None:
                    continue
                tag, kind, name = match.groups()
                if kind == ".":
                    classes.add(name)
                elif kind == "#":
                    ids.add(name)
                elif tag and tag.lower() not in ("html", "body"):
                    tags.add(tag.lower())
    return classes, ids, tags


def _elements(tree: HtmlElement, tag: str) -> Iterable[HtmlElement]:
    return (e for e in tree.iter() if isinstance(e.tag, str) and e.tag.lower() == tag)


def _mark_quotes(text: str, quotes: list[tuple[int, int]]) -> str:
    """TEXT with each line inside a quote annotation prefixed by one `> ` per level."""
    events = sorted([(first, 1) for first, _ in quotes] + [(end, -1) for _, end in quotes])
    out: list[str] = []
    offset = depth = done = 0
    for line in text.split("\n"):
        start, offset = offset, offset + len(line) + 1
        stripped = line.strip()
        if not stripped:
            if out and out[-1]:
                out.append("")
            continue
        middle = start + len(line) - len(line.lstrip())
        while done < len(events) and events[done][0] <= middle:
            depth += events[done][1]
            done += 1
        out.append("> " * min(depth, 20) + stripped)
    return "\n".join(out).strip("\n") + "\n" if out else ""
