"""The names a line may use in one game, and how a written word resolves to one.

`Names` is plain data (build it directly in tests, or with `names_for_title` from the
engine's title data). The `lookup_*` functions turn what a player wrote into the
printed symbol the engine keys things by, or raise `NameProblem` with a message and
"did you mean" suggestions; the parser adds the line and column.

Matching rules, loosest last, each only if it is unambiguous:
companies and privates case-insensitively by symbol or a rulebook alias, then with
punctuation ignored (`LN` -> `L&N`, `NCSTL` -> `NC&StL`). Where two symbols differ only
by punctuation (1861's major MK and minor M-K) the exact spelling wins, unless the
position asks for the other kind (`convert MK` can only mean the minor M-K).
Hexes as `H5`, `h5`, `H-5`, `H05`; tiles by name case-insensitively (`tn1` -> `TN1`);
amounts as `90`, `$90`, `£90`, `R90`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from grammar.errors import closest, did_you_mean, join_or

if TYPE_CHECKING:
    from engine.title import Title

CompanyKind = Literal["corporation", "minor", "private"]

# Currency signs accepted in front of any amount, whatever the title's own sign:
# the contract lists `$90`, `£90` and `R90` without tying them to titles, and a
# player who writes the "wrong" sign still means the number.
_SIGNS = ("$", "£", "€", "R")

# Holder names that are not players (engine.state.RESERVED_NAMES).
BANK = "bank"


@dataclass(frozen=True, slots=True)
class Names:
    """Every name an order may mention in one game of one title.

    corporations: the share companies (majors and nationals) by printed symbol;
    minors: 1861's minor companies; privates: private companies.
    aliases: other accepted spellings (rulebook abbreviations), as (alias, symbol).
    double_heads: trains two of which may run together as one (1825: `2+2`).
    seats: the players' seat names; empty when unknown (then any name is taken
    as written, e.g. by `moderator parse` outside a game).
    """

    title: str
    corporations: tuple[str, ...] = ()
    minors: tuple[str, ...] = ()
    privates: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    tiles: tuple[str, ...] = ()
    trains: tuple[str, ...] = ()
    seats: tuple[str, ...] = ()
    currency: str = "$"
    aliases: tuple[tuple[str, str], ...] = ()
    double_heads: tuple[str, ...] = ()

    def with_seats(self, seats: Iterable[str]) -> Names:
        """The same names for a game with these seats."""
        return Names(
            self.title, self.corporations, self.minors, self.privates, self.hexes,
            self.tiles, self.trains, tuple(seats), self.currency, self.aliases,
            self.double_heads,
        )  # fmt: skip


def names_for_title(title: Title, seats: Iterable[str] = ()) -> Names:
    """The names of a title (engine.title.Title), for a game with these seats."""
    return _names_for_title(title, tuple(seats))


@functools.lru_cache(maxsize=256)
def _names_for_title(title: Title, seats: tuple[str, ...]) -> Names:
    # Kept (Names is frozen, a title is shared and immutable): every mail to a game
    # asks for its names, and its lines are parsed against them (issue 14).
    aliases: list[tuple[str, str]] = []
    for corp in title.corporations:
        aliases.extend((alias, corp.sym) for alias in corp.aliases if alias != corp.sym)
    return Names(
        title=title.name,
        corporations=tuple(c.sym for c in title.corporations if c.kind != "minor"),
        minors=tuple(c.sym for c in title.corporations if c.kind == "minor"),
        privates=tuple(p.sym for p in title.privates),
        hexes=tuple(title.hexes),
        tiles=tuple(title.tiles),
        trains=tuple(t.name for t in title.trains),
        seats=tuple(seats),
        currency=title.currency,
        aliases=tuple(aliases),
        double_heads=tuple(t.name for t in title.trains if t.double_heads_as),
    )


class NameProblem(Exception):
    """A word that names nothing suitable; the parser turns it into an OrderError."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = suggestions


def squash(word: str) -> str:
    """Case and punctuation folded away: `NC&StL` -> `ncstl`."""
    return "".join(ch for ch in word.casefold() if ch.isalnum())


@dataclass(frozen=True, slots=True)
class _Index:
    """Lookup tables of one Names, built once per Names (see `_index`)."""

    kind_of: Mapping[str, CompanyKind]  # printed symbol -> kind
    exact: Mapping[str, str]  # casefolded symbol or alias -> symbol
    loose: Mapping[str, tuple[str, ...]]  # squashed symbol or alias -> symbols
    hexes: Mapping[str, str]  # canonical upper-case id -> id as in Names
    tiles: Mapping[str, str]  # casefolded -> name
    trains: Mapping[str, str]  # casefolded -> name
    seats: Mapping[str, str]  # casefolded -> seat


@functools.lru_cache(maxsize=64)
def _index(names: Names) -> _Index:
    kind_of: dict[str, CompanyKind] = {}
    groups: tuple[tuple[CompanyKind, tuple[str, ...]], ...] = (
        ("corporation", names.corporations),
        ("minor", names.minors),
        ("private", names.privates),
    )
    for kind, syms in groups:
        for sym in syms:
            kind_of.setdefault(sym, kind)
    spellings = [(s, s) for s in kind_of] + [(a, s) for a, s in names.aliases if s in kind_of]
    exact: dict[str, str] = {}
    loose: dict[str, tuple[str, ...]] = {}
    for spelling, sym in spellings:
        exact.setdefault(spelling.casefold(), sym)
        key = squash(spelling)
        if sym not in loose.get(key, ()):
            loose[key] = (*loose.get(key, ()), sym)
    return _Index(
        kind_of=kind_of,
        exact=exact,
        loose=loose,
        hexes={h.upper(): h for h in names.hexes},
        tiles={t.casefold(): t for t in names.tiles},
        trains={t.casefold(): t for t in names.trains},
        seats={s.casefold(): s for s in names.seats},
    )


_NOUN: dict[CompanyKind, str] = {
    "corporation": "corporation",
    "minor": "minor company",
    "private": "private company",
}

# What a position asks for, by the kinds it accepts: the noun for "X does not exist"
# and the noun for "Y is a private company, not a ...".
_WANTED: dict[frozenset[str], tuple[str, str]] = {
    frozenset({"corporation", "minor", "private"}): ("company", "company"),
    frozenset({"corporation", "minor"}): ("company", "corporation"),
    frozenset({"corporation"}): ("corporation", "corporation"),
    frozenset({"minor"}): ("minor company", "minor company"),
    frozenset({"private"}): ("private company", "private company"),
    frozenset({"minor", "private"}): ("minor or private company", "minor or private company"),
}


def lookup_company(names: Names, word: str, kinds: tuple[CompanyKind, ...]) -> str:
    """The printed symbol of the company `word` names, which must be of one of `kinds`.

    Exact spellings (symbol or alias, any case) win over punctuation-free ones, so a
    title where two symbols differ only by punctuation (1861's MK and M-K) keeps
    both reachable.
    """
    index = _index(names)
    sym = index.exact.get(word.casefold())
    if sym is not None and index.kind_of[sym] not in kinds and squash(word) == word.casefold():
        # Written without punctuation, the position decides between symbols that differ
        # only by it: `convert MK` in 1861 can only mean the minor M-K. (`M-K` written
        # out is the minor, wherever it stands.)
        loose = [s for s in index.loose.get(squash(word), ()) if index.kind_of[s] in kinds]
        if len(loose) == 1:
            return loose[0]
    if sym is None:
        matches = index.loose.get(squash(word), ())
        wanted = tuple(s for s in matches if index.kind_of[s] in kinds)
        if len(wanted) == 1:
            sym = wanted[0]
        elif len(wanted) > 1:
            raise NameProblem(
                f"{word} could mean {join_or(list(wanted))}; write the symbol as printed",
                wanted,
            )
        elif len(matches) == 1:
            sym = matches[0]
    if sym is not None:
        kind = index.kind_of[sym]
        if kind in kinds:
            return sym
        raise NameProblem(f"{sym} is a {_NOUN[kind]}, not a {_WANTED[frozenset(kinds)][1]}")
    pool = [s for s, k in index.kind_of.items() if k in kinds]
    suggestions = closest(word, pool, key=squash)
    noun = _WANTED[frozenset(kinds)][0]
    if suggestions:
        raise NameProblem(
            f"{noun} {word} does not exist in {names.title}{did_you_mean(suggestions)}",
            suggestions,
        )
    listing = f" ({noun} symbols: {', '.join(pool)})" if 0 < len(pool) <= 12 else ""
    raise NameProblem(f"{noun} {word} does not exist in {names.title}{listing}")


_HEX_RE = re.compile(r"^([A-Za-z@]{1,2})\s*-?\s*0*(\d+)$")


def lookup_hex(names: Names, word: str) -> str:
    """The map's id of the hex `word` names: `H5`, `h5`, `H-5` and `H05` are one hex."""
    index = _index(names)
    m = _HEX_RE.match(word)
    canonical = f"{m.group(1).upper()}{m.group(2)}" if m else word.upper()
    found = index.hexes.get(canonical)
    if found is not None:
        return found
    suggestions = closest(canonical, names.hexes)
    raise NameProblem(
        f"hex {word} is not on the {names.title} map{did_you_mean(suggestions)}", suggestions
    )


def lookup_tile(names: Names, word: str) -> str:
    """The tile `word` names, by number (`57`, `057`) or name (`tn1`)."""
    index = _index(names)
    key = word.casefold()
    if key.isascii() and key.isdecimal():
        key = str(int(key))
    found = index.tiles.get(key)
    if found is not None:
        return found
    suggestions = closest(word, names.tiles)
    raise NameProblem(
        f"tile {word} does not exist in {names.title}{did_you_mean(suggestions)}", suggestions
    )


def lookup_train(names: Names, word: str, double_heading: bool = False) -> str:
    """The train type `word` names; with `double_heading`, also `2+2` where two
    2-trains may run as one (1825). A title's own `2+2` train (1861) is a name."""
    index = _index(names)
    found = index.trains.get(word.casefold())
    if found is not None:
        return found
    parts = word.split("+")
    if double_heading and len(parts) == 2:
        heads = [index.trains.get(p.casefold()) for p in parts]
        if heads[0] is not None and heads[0] == heads[1] and heads[0] in names.double_heads:
            return f"{heads[0]}+{heads[1]}"
    suggestions = closest(word, names.trains)
    if suggestions:
        raise NameProblem(
            f"train {word} does not exist in {names.title}{did_you_mean(suggestions)}",
            suggestions,
        )
    raise NameProblem(
        f"train {word} does not exist in {names.title} (trains: {', '.join(names.trains)})"
    )


def lookup_seat(names: Names, word: str) -> str:
    """The seat name `word` names (any case); taken as written when seats are unknown."""
    if not names.seats:
        return word
    found = _index(names).seats.get(word.casefold())
    if found is not None:
        return found
    suggestions = closest(word, names.seats)
    if suggestions:
        raise NameProblem(
            f"player {word} is not in this game{did_you_mean(suggestions)}", suggestions
        )
    raise NameProblem(f"player {word} is not in this game (players: {', '.join(names.seats)})")


_AMOUNT_RE = re.compile(r"^(\D{0,3}?)(\d+)$")
# Letters that slip in for digits: `$9O`, `l00`.
_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"})


def parse_amount(names: Names, word: str) -> int:
    """The number an amount names: `90`, `$90`, `£90`, `R90` (or the title's sign)."""
    m = _AMOUNT_RE.match(word)
    signs = (*_SIGNS, names.currency)
    if m is not None and (m.group(1) == "" or m.group(1).upper() in signs):
        return int(m.group(2))
    fixed = word.translate(_LOOKALIKES)
    fm = _AMOUNT_RE.match(fixed)
    if fixed != word and fm is not None and (fm.group(1) == "" or fm.group(1) in signs):
        raise NameProblem(f"amount {word} is not a number{did_you_mean([fixed])}", (fixed,))
    raise NameProblem(f"amount {word} is not a number; write it as 90 or {names.currency}90")
