"""What a mail says: rendered from templates/ as text plus an HTML alternative.

The templates (package `moderator.templates`) receive plain data only: the engine's
`GameView`, and the small frozen records of this module (`Position`, `HistoryEntry`,
`Results`, `LineResult`, `Section`). How the mail is put together on the wire is
`moderator.mail.compose`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jinja2
import markupsafe

from engine.game import Game
from engine.views import GameView, game_view
from moderator.reports.sheet import Sheet, sheet

if TYPE_CHECKING:
    from collections.abc import Collection

    from moderator.reports.mapimage import MapPlate

__all__ = [
    "HistoryEntry",
    "LineResult",
    "Position",
    "Results",
    "Section",
    "game_map_plate",
    "headline",
    "position",
    "region_cid",
    "render",
    "render_tables",
    "replay_history",
    "section_cid",
    "warm_templates",
]


@dataclass(frozen=True, slots=True)
class LineResult:
    """One line of the submission and what became of it."""

    number: int
    text: str
    ok: bool
    said: tuple[str, ...] = ()  # what the line did, in the engine's words
    error: str | None = None  # the refusal, caret and reason included


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One move of the log as a report shows it: who did it and what the engine said."""

    number: int
    seat: str
    lines: tuple[str, ...]

    @property
    def line(self) -> str:
        """The move on one line, as histories and lists of undone moves print it."""
        return f"#{self.number} {self.seat}: {'; '.join(self.lines) or '(no effect)'}"


@dataclass(frozen=True, slots=True)
class Position:
    """Everything a report shows about the game now."""

    game_id: str
    view: GameView
    headline: str  # "OR 3.1: TC to move"
    round_short: str  # "OR 3.1"
    sheet: Sheet  # shares, certificates, bids, trains to come


@dataclass(frozen=True, slots=True)
class Results:
    """The per-line answer to a submission."""

    ok: bool
    lines: tuple[LineResult, ...]
    applied: bool  # the game changed
    next_move: int | None


@dataclass(frozen=True, slots=True)
class Section:
    """A titled block of preformatted text in a reply (help, legal orders, history)."""

    title: str
    text: str
    picture: bytes | None = None  # a PNG shown under the text (`show HEX`)


MAP_CID = "map"  # what a report's HTML names its map by (cid:map)


def region_cid(number: int) -> str:
    """What a report's HTML names the NUMBERth region of the whole board by (from 1)."""
    return f"region{number}"


def section_cid(number: int) -> str:
    """What a report's HTML names the picture of its NUMBERth section (from 1) by."""
    return f"section{number}"


def game_map_plate(game: Game, highlight: Collection[str]) -> MapPlate:
    """GAME's board drawn once, HIGHLIGHT outlined (the hexes changed since the
    reader's last report), for captions to be added to (`moderator.desk.games.
    PictureCache` makes the reports' pictures: the board as `render_game_map` draws it,
    captioned with the game and its next move)."""
    from moderator.reports.mapimage import map_plate

    state = game.state
    return map_plate(state.title, state.board, phase=game.rules.phase(state).name,
                     highlight=highlight)


# -- the position ---------------------------------------------------------------------------

_ROUND_SHORT = (("Stock Round", "SR"), ("Share Dealing Round", "SDR"),
                ("Operating Round", "OR"))


def short_round(name: str) -> str:
    for long, short in _ROUND_SHORT:
        if name.startswith(long):
            return short + name[len(long):]
    return name


def headline(view: GameView) -> str:
    """What a subject says of the position: `OR 3.1: TC to move`, `game over`."""
    if view.game_over:
        return "game over"
    who = view.acting_entity or view.acting_seat
    return f"{short_round(view.round)}: {who} to move" if who else short_round(view.round)


def position(game_id: str, game: Game) -> Position:
    """The report's view of GAME (engine state read here, so templates see plain data)."""
    view = game_view(game)  # the market and the trains left come with the view
    return Position(game_id, view, headline(view), short_round(view.round), sheet(game))


def replay_history(game: Game, start: int, end: int) -> tuple[HistoryEntry, ...]:
    """What moves START..END-1 said, found by replaying the log (for moves stored
    without it, e.g. imported games)."""
    replay = Game(game.setup)
    entries = []
    for number, move in enumerate(game.log[:end]):
        said = replay.apply(move.seat, move.action)
        if number >= start:
            entries.append(HistoryEntry(number, move.seat, tuple(said)))
    return tuple(entries)


# -- rendering -----------------------------------------------------------------------------


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("moderator.templates", "."),
        autoescape=lambda name: name is not None and name.endswith(".html.j2"),
        undefined=jinja2.StrictUndefined,  # a misspelt variable is a bug, not a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates are files of the install: never stat'ed per mail
    )
    env.filters["money"] = lambda amount: f"${amount}"
    env.filters["paragraphs"] = _paragraphs
    env.filters["prose"] = _prose
    env.filters["code"] = _code
    return env


_LIST_LINE = re.compile(r"^\s*(?:[-*]|\d+[.)])\s")
_CODE = re.compile(r"`([^`]+)`")


def _prose(paragraph: str) -> markupsafe.Markup:
    """A paragraph of a plain-text mail as an HTML block: its lines flowed together
    (the text's line breaks are for 80 columns, not a phone's), a list's items one a
    line, an indented block kept as it is, a `# heading` as a heading; `code` set in
    code."""
    lines = paragraph.splitlines()
    if any(line.startswith("  ") for line in lines):
        return markupsafe.Markup("<pre>{}</pre>").format(paragraph)
    if len(lines) == 1 and lines[0].startswith("#"):
        return markupsafe.Markup("<h3>{}</h3>").format(lines[0].lstrip("# "))
    items: list[str] = []
    for line in lines:
        if _LIST_LINE.match(line) or not items:
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    listed = any(_LIST_LINE.match(item) for item in items)
    if not listed:
        items = [" ".join(items)]
    body = markupsafe.Markup("<br>\n").join(markupsafe.escape(item) for item in items)
    return markupsafe.Markup("<p>{}</p>").format(markupsafe.Markup(
        _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(body))))


def _code(line: str) -> markupsafe.Markup:
    """LINE escaped, its `orders` set in code (a note such as "mail `map` for it")."""
    return markupsafe.Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>",
                                       str(markupsafe.escape(line))))


def _paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]


def warm_templates() -> None:
    """Compile every mail template now (a daemon's start), not in its first mail."""
    env = _environment()
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)


#: A report's tables of the position (`render_tables`): as text, and as HTML.
Tables = tuple[str, markupsafe.Markup]


def render(template: str, *, tables: Tables | None = None, **context: Any
           ) -> tuple[str, str]:
    """TEMPLATE's text and HTML versions (`TEMPLATE.txt.j2`, `TEMPLATE.html.j2`).

    A report's tables (`render_tables` of its `pos` and `market_cid`) are rendered
    here unless TABLES has them already (the caller keeps them for a position: every
    reply and report of it shows the same)."""
    env = _environment()
    context.setdefault("map_note", None)  # why the map is left out, or what it shows
    context.setdefault("map_regions", ())  # the whole board's regions: (cid, label)
    context.setdefault("progress", None)  # `moderator.reports.charts.Progress`
    context.setdefault("lays", None)  # the legal tile lays, for the player laying track
    context.setdefault("stations", None)  # the stations he may place, with their prices
    context.setdefault("market_cid", None)  # the stock market picture, when it goes
    context.setdefault("tournament", None)  # "Tournament X, heat N, table M", when one
    if tables is None and template == "report" and context.get("pos") is not None:
        tables = render_tables(context["pos"], context["market_cid"])
    text_tables, html_tables = tables or ("", markupsafe.Markup(""))
    text = env.get_template(f"{template}.txt.j2").render(tables=text_tables, **context)
    html = env.get_template(f"{template}.html.j2").render(plain=text, tables=html_tables,
                                                          **context)
    return _tidy(text), html


def render_tables(pos: Position, market_cid: str | None) -> Tables:
    """The tables a report shows of POS after the players' (`_tables.*.j2`: shares,
    companies, privates, trains, tiles, the market), with the market's picture or its
    table (MARKET_CID): most of a report's rendering, the same for every mail of a
    position (issue 14, speed under a burst). The players' table, which marks the
    reader's own seat, is the report's own."""
    env = _environment()
    context = {"pos": pos, "market_cid": market_cid}
    return (env.get_template("_tables.txt.j2").render(**context),
            markupsafe.Markup(env.get_template("_tables.html.j2").render(**context)))


def _tidy(text: str) -> str:
    """No trailing spaces (they would make `-- ` ambiguous) and no runs of blank lines."""
    lines = [line.rstrip() if line != "-- " else line for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n") + "\n"
