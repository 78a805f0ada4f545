"""The tournament commands: lines of a mail outside any game (docs/orders.md,
"Tournaments"). Read by a small parser of their own, not by the order grammar: they
name a tournament, never a game's companies or hexes.

    create tournament Spring titles 18TN,1850 sizes 3-4 heats 2 final 4
        scoring share deadline 48h timeout pass seed 7
        heat deadline 14d
    register Spring [as reserve]      withdraw Spring
    close entry Spring [minimum 80%]  start heat Spring [deadline 14d]
    end table 18TN-3 [anyway]         undo end table 18TN-3
    replace ann@x.org in Spring [with rae@x.org]
    remove ann@x.org from Spring      overview Spring
    standings Spring                  reliability [Spring]
    confirm K7Q2MXPAHW (the reply `register` and `create tournament` ask for)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from grammar.commands import Command

__all__ = [
    "CloseEntry",
    "Confirm",
    "CreateTournament",
    "EndTable",
    "Overview",
    "Register",
    "ReliabilityOf",
    "RemoveEntrant",
    "ReplaceEntrant",
    "Standings",
    "StartHeat",
    "TournamentError",
    "UndoEndTable",
    "Withdraw",
    "parse_tournament_line",
    "starts_tournament_line",
]

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
_DURATION = re.compile(r"(\d+)\s*(m|min|h|d)?", re.I)
_UNITS = {"m": 1, "min": 1, "h": 60, "d": 1440, None: 60}
#: The longest a heat may be given (`heat deadline`, `start heat ... deadline`).
MAX_HEAT_DAYS = 365


#: The scoring rules a tournament may take (moderator.desk.tournament.scoring computes
#: them); `margin` is the default, the fairest across table sizes.
Scoring = Literal["margin", "placement", "winner", "share"]
SCORING_RULES: tuple[Scoring, ...] = get_args(Scoring)


class TournamentError(ValueError):
    """A tournament line that cannot be read; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class CreateTournament(Command):
    """A director's new tournament (every term has a default but its name)."""

    kind: ClassVar[str] = "create_tournament"
    game_master: ClassVar[bool] = True
    name: str
    titles: tuple[str, ...] = ()  # required: `_create` refuses a line without them
    sizes: tuple[int, ...] = (3, 4)
    heats: int = 2
    advance: int = 0  # players in the final; 0: no final
    scoring: Scoring = "margin"
    minutes: int = 48 * 60  # a player's time for a turn
    timeout: Literal["wait", "pass"] = "pass"
    seed: int | None = None
    heat_minutes: int | None = None  # `heat deadline 14d`: a heat's tables end then


@dataclass(frozen=True, slots=True)
class Register(Command):
    kind: ClassVar[str] = "register"
    name: str
    reserve: bool = False


@dataclass(frozen=True, slots=True)
class Withdraw(Command):
    kind: ClassVar[str] = "withdraw"
    name: str


@dataclass(frozen=True, slots=True)
class CloseEntry(Command):
    kind: ClassVar[str] = "close_entry"
    game_master: ClassVar[bool] = True
    name: str
    minimum: int | None = None  # reliability in percent


@dataclass(frozen=True, slots=True)
class StartHeat(Command):
    """Seat and start the next heat (after the last heat: the final)."""

    kind: ClassVar[str] = "start_heat"
    game_master: ClassVar[bool] = True
    name: str
    minutes: int | None = None  # `deadline 14d`: this heat's (else the tournament's)


@dataclass(frozen=True, slots=True)
class EndTable(Command):
    """End a tournament table's game now: it is scored on the position."""

    kind: ClassVar[str] = "end_table"
    game_master: ClassVar[bool] = True
    game: str
    anyway: bool = False  # ended before its first operating round ends, knowingly


@dataclass(frozen=True, slots=True)
class UndoEndTable(Command):
    """Take back the director's `end table`: the table plays on, its score is void."""

    kind: ClassVar[str] = "undo_end_table"
    game_master: ClassVar[bool] = True
    game: str


@dataclass(frozen=True, slots=True)
class RemoveEntrant(Command):
    """The director takes an entrant out of the tournament (not from a running seat:
    that is `replace`)."""

    kind: ClassVar[str] = "remove_entrant"
    game_master: ClassVar[bool] = True
    address: str
    name: str


@dataclass(frozen=True, slots=True)
class Overview(Command):
    """The director's view: entrants, their reliability, the tables and their progress."""

    kind: ClassVar[str] = "overview"
    game_master: ClassVar[bool] = True
    name: str


@dataclass(frozen=True, slots=True)
class ReliabilityOf(Command):
    """`reliability`: the sender's own record; `reliability NAME`: the director's view
    of every entrant's record."""

    kind: ClassVar[str] = "reliability"
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ReplaceEntrant(Command):
    """Give a player's seat at their running table to a reserve (the first in entry
    order unless one is named)."""

    kind: ClassVar[str] = "replace_entrant"
    game_master: ClassVar[bool] = True
    address: str
    name: str
    substitute: str | None = None


@dataclass(frozen=True, slots=True)
class Confirm(Command):
    """The reply that proves the sender's mailbox: the lines of the mail that asked
    for TOKEN (`register`, `create tournament`) are carried out."""

    kind: ClassVar[str] = "confirm"
    token: str


#: A confirmation token: 10 letters and digits (no 0, 1, I, O to misread).
CONFIRM_TOKEN = re.compile(r"[A-HJ-NP-Z2-9]{10}")
_CONFIRM_RE = re.compile(r"\bconfirm\s+([A-HJ-NP-Z2-9]{10})\b", re.I)


def confirm_token_in(text: str) -> str | None:
    """The token of a `confirm TOKEN` in TEXT (a subject `Re: [confirm TOKEN] ...`)."""
    found = _CONFIRM_RE.search(text)
    return found.group(1).upper() if found else None


@dataclass(frozen=True, slots=True)
class Standings(Command):
    kind: ClassVar[str] = "standings"
    name: str


_STARTS = ("confirm", "create tournament", "register", "withdraw", "close entry", "start heat",
           "start final", "end table", "undo end table", "standings", "replace", "overview",
           "reliability", "remove")


def starts_tournament_line(line: str) -> bool:
    """Whether LINE begins like a tournament command (`replace` only with `in`,
    `remove` only with `from`, `confirm` only with one word: `confirm lay 57 at I13`
    is a game order confirmed after a warning)."""
    words = line.strip().lower().rstrip(".").split()
    text = " ".join(words)
    if not words:
        return False
    if words[0] == "confirm":
        return len(words) == 2
    if words[0] == "replace":
        return len(words) >= 4 and words[2] == "in"
    if words[0] == "remove":
        return len(words) >= 4 and words[2] == "from"
    return any(text == s or text.startswith(s + " ") for s in _STARTS)


def _name(word: str) -> str:
    if not NAME.fullmatch(word):
        raise TournamentError(f"{word!r} is not a tournament name (a letter, then letters, "
                              "digits, `-` or `_`; at most 32)")
    return word


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise TournamentError(f"{what} must be a whole number, not {word!r}")
    return int(word)


def _address(word: str) -> str:
    address = word.strip("<>").lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or ("." not in domain and domain != "localhost"):
        raise TournamentError(f"{word!r} is not a mail address")
    return address


def parse_tournament_line(line: str) -> Command:
    """The command of LINE (`starts_tournament_line` is true of it); TournamentError
    saying what is wrong otherwise."""
    words = line.strip().rstrip(".").split()
    low = [w.lower() for w in words]
    if low[:2] == ["create", "tournament"]:
        return _create(words[2:])
    if low[0] == "confirm":
        if len(words) != 2 or not CONFIRM_TOKEN.fullmatch(words[1].upper()):
            raise TournamentError("write `confirm TOKEN`, the token of the mail that asked "
                                  "for it (a reply to that mail does it)")
        return Confirm(words[1].upper())
    if low[0] in ("register", "withdraw", "standings"):
        if len(words) < 2:
            raise TournamentError(f"`{low[0]}` needs the tournament's name: `{low[0]} NAME`")
        if low[0] == "register":
            rest = low[2:]
            if rest not in ([], ["as", "reserve"], ["reserve"]):
                raise TournamentError("write `register NAME` or `register NAME as reserve`")
            return Register(_name(words[1]), bool(rest))
        if len(words) > 2:
            raise TournamentError(f"write `{low[0]} NAME`")
        return (Withdraw if low[0] == "withdraw" else Standings)(_name(words[1]))
    if low[:2] == ["close", "entry"]:
        if len(words) < 3:
            raise TournamentError("write `close entry NAME` or `close entry NAME minimum 80`")
        minimum = None
        if len(words) > 3:
            if low[3] != "minimum" or len(words) != 5:
                raise TournamentError("write `close entry NAME minimum 80` (percent on time)")
            minimum = _number(words[4].rstrip("%"), "the minimum")
            if minimum > 100:
                raise TournamentError("the minimum is a percentage: at most 100")
        return CloseEntry(_name(words[2]), minimum)
    if low[:2] in (["start", "heat"], ["start", "final"]):
        if len(words) == 3:
            return StartHeat(_name(words[2]))
        if len(words) == 5 and low[3] == "deadline":
            return StartHeat(_name(words[2]), _heat_minutes(words[4]))
        raise TournamentError(f"write `{low[0]} {low[1]} NAME` or "
                              f"`{low[0]} {low[1]} NAME deadline 14d`")
    if low[:2] == ["end", "table"]:
        if len(words) == 3 or (len(words) == 4 and low[3] == "anyway"):
            return EndTable(words[2], len(words) == 4)
        raise TournamentError("write `end table GAME` (the table's game, `18TN-3`), or "
                              "`end table GAME anyway`")
    if low[:3] == ["undo", "end", "table"]:
        if len(words) != 4:
            raise TournamentError("write `undo end table GAME`")
        return UndoEndTable(words[3])
    if low[0] == "overview":
        if len(words) != 2:
            raise TournamentError("write `overview NAME`")
        return Overview(_name(words[1]))
    if low[0] == "reliability":
        if len(words) > 2:
            raise TournamentError("write `reliability` (your own record) or "
                                  "`reliability NAME` (a director: every entrant's)")
        return ReliabilityOf(_name(words[1]) if len(words) == 2 else None)
    if low[0] == "remove":
        if len(words) != 4 or low[2] != "from":
            raise TournamentError("write `remove ADDRESS from NAME`")
        return RemoveEntrant(_address(words[1]), _name(words[3]))
    if low[0] == "replace":
        # replace ADDRESS in NAME [with ADDRESS]
        if len(words) not in (4, 6) or low[2] != "in" or (len(words) == 6 and
                                                          low[4] != "with"):
            raise TournamentError("write `replace ADDRESS in NAME` or "
                                  "`replace ADDRESS in NAME with RESERVE`")
        return ReplaceEntrant(_address(words[1]), _name(words[3]),
                              _address(words[5]) if len(words) == 6 else None)
    raise TournamentError("not a tournament command")


def _duration_minutes(value: str, what: str) -> int:
    match = _DURATION.fullmatch(value)
    if match is None or int(match.group(1)) == 0:
        raise TournamentError(f"{what} {value!r}: write minutes, hours or days (`90m`, "
                              "`48h`, `3d`)")
    unit = match.group(2).lower() if match.group(2) else None
    return int(match.group(1)) * _UNITS[unit]


def _heat_minutes(value: str) -> int:
    minutes = _duration_minutes(value, "a heat's deadline")
    if minutes > MAX_HEAT_DAYS * 1440:
        raise TournamentError(f"a heat's deadline is at most {MAX_HEAT_DAYS} days")
    return minutes


_TERMS = ("titles", "sizes", "heats", "final", "scoring", "deadline", "timeout", "seed",
          "heat deadline")


def _create(words: list[str]) -> CreateTournament:
    """Every fault of the line is named, not only the first (a director fixes them all
    at once); a term given twice is a fault, not the last one winning."""
    if not words:
        raise TournamentError("write `create tournament NAME titles 18TN,1850 ...`")
    faults: list[str] = []
    name = words[0]
    if not NAME.fullmatch(name):
        faults.append(f"{name!r} is not a tournament name (a letter, then letters, "
                      "digits, `-` or `_`; at most 32)")
    terms: dict[str, object] = {}
    given: set[str] = set()
    rest = words[1:]
    keys = {"titles", "sizes", "heats", "final", "scoring", "deadline", "timeout", "seed"}
    index = 0
    while index < len(rest):
        key = rest[index].lower()
        if key == "no" and index + 1 < len(rest) and rest[index + 1].lower() == "final":
            key, value, index = "final", "0", index + 2
        else:
            if key == "heat" and index + 1 < len(rest) and rest[index + 1].lower() == \
                    "deadline":
                key, index = "heat deadline", index + 1
            elif key not in keys:
                faults.append(f"{rest[index]!r} is not a term of a tournament (terms: "
                              f"{', '.join(_TERMS)})")
                index += 1
                continue
            if index + 1 >= len(rest):
                faults.append(f"`{key}` needs a value")
                break
            value = rest[index + 1]
            index += 2
        if key in given:
            faults.append(f"`{'final' if key == 'final' else key}` is given twice: give "
                          "each term once")
            continue
        given.add(key)
        try:
            _term(terms, key, value)
        except TournamentError as exc:
            faults.append(str(exc))
    if "titles" not in given:
        faults.append("name the titles: `titles 18TN,1850`")
    if faults:
        raise TournamentError("; ".join(faults))
    return CreateTournament(name, **terms)  # type: ignore[arg-type]


def _term(terms: dict[str, object], key: str, value: str) -> None:
    """Read one term of `create tournament` into TERMS."""
    if key == "titles":
        terms["titles"] = tuple(t for t in value.split(",") if t)
    elif key == "sizes":
        low, dash, high = value.partition("-")
        if dash:
            first, last = _number(low, "a size"), _number(high, "a size")
            if first > last:
                raise TournamentError(f"sizes {value}: the smaller first")
            terms["sizes"] = tuple(range(first, last + 1))
        else:
            terms["sizes"] = tuple(_number(s, "a size") for s in value.split(",") if s)
    elif key == "heats":
        heats = _number(value, "heats")
        if not 1 <= heats <= 9:
            raise TournamentError("a tournament has 1 to 9 heats")
        terms["heats"] = heats
    elif key == "final":
        terms["advance"] = _number(value, "the final's players")
    elif key == "scoring":
        if value.lower() not in SCORING_RULES:
            raise TournamentError("scoring is " + ", ".join(
                f"`{rule}`" for rule in SCORING_RULES[:-1]) + f" or `{SCORING_RULES[-1]}`")
        terms["scoring"] = value.lower()
    elif key == "deadline":
        terms["minutes"] = _duration_minutes(value, "deadline")
    elif key == "heat deadline":
        terms["heat_minutes"] = _heat_minutes(value)
    elif key == "timeout":
        if value.lower() not in ("pass", "wait"):
            raise TournamentError("timeout is `pass` or `wait`")
        terms["timeout"] = value.lower()
    elif key == "seed":
        terms["seed"] = _number(value, "the seed")
