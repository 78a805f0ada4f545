"""Meta commands: lines that are not game moves (requests, preferences, game master).

Each is a small frozen dataclass, like the engine's actions, with a `kind` name and
a JSON form `{"command": kind, ...fields}` (`command_to_json`). The service acts on
them; the engine never sees them. Game-master commands are marked `game_master`
so that the service can refuse them from anyone else without a list of its own.
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from engine.actions import Action, Undo, to_json

Format = Literal["text", "html"]
Reports = Literal["all", "digest", "none"]
TimeoutPolicy = Literal["pass", "wait"]


@dataclass(frozen=True, slots=True)
class Command:
    """Base class of every meta command; `kind` is its JSON name."""

    kind: ClassVar[str] = "command"
    game_master: ClassVar[bool] = False


# --- requests and preferences of a player ------------------------------------------


@dataclass(frozen=True, slots=True)
class Status(Command):
    """Mail me the full current report."""

    kind: ClassVar[str] = "status"


@dataclass(frozen=True, slots=True)
class ShowMap(Command):
    """Mail me the map picture."""

    kind: ClassVar[str] = "map"


@dataclass(frozen=True, slots=True)
class History(Command):
    """The last `count` moves (None: the service's default)."""

    kind: ClassVar[str] = "history"
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Legal(Command):
    """What may I do now."""

    kind: ClassVar[str] = "legal"


@dataclass(frozen=True, slots=True)
class ShowHex(Command):
    """Mail me the tiles I may lay on `hex` now, drawn in each legal rotation."""

    kind: ClassVar[str] = "show_hex"
    hex: str


@dataclass(frozen=True, slots=True)
class Help(Command):
    """The order reference, or its section on `topic` (grammar.help.help_text)."""

    kind: ClassVar[str] = "help"
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class UndoLast(Command):
    """Take back my last submission, while nobody has acted since."""

    kind: ClassVar[str] = "undo_last"


@dataclass(frozen=True, slots=True)
class Resign(Command):
    """Leave the game."""

    kind: ClassVar[str] = "resign"


@dataclass(frozen=True, slots=True)
class SetFormat(Command):
    """Receive mail as plain text or HTML."""

    kind: ClassVar[str] = "set_format"
    format: Format


@dataclass(frozen=True, slots=True)
class SetReports(Command):
    """Receive every report, a daily digest, or none (only what is addressed to me)."""

    kind: ClassVar[str] = "set_reports"
    mode: Reports


@dataclass(frozen=True, slots=True)
class SetTimezone(Command):
    """Show times in this IANA zone (`Europe/Berlin`)."""

    kind: ClassVar[str] = "set_timezone"
    zone: str


@dataclass(frozen=True, slots=True)
class Away(Command):
    """I am away from `start` to `end` (inclusive): deadlines wait or pass for me."""

    kind: ClassVar[str] = "away"
    start: datetime.date
    end: datetime.date


@dataclass(frozen=True, slots=True)
class MoveNumber(Command):
    """Submission header: apply only if the game's next action number is still `number`."""

    kind: ClassVar[str] = "move"
    number: int


@dataclass(frozen=True, slots=True)
class GameId(Command):
    """Submission header: the orders are for game `game` (`18TN-7`)."""

    kind: ClassVar[str] = "game"
    game: str


@dataclass(frozen=True, slots=True)
class Password(Command):
    """Authenticate with a token (the service decides what it proves)."""

    kind: ClassVar[str] = "password"
    token: str


@dataclass(frozen=True, slots=True)
class AutoPass(Command):
    """Pass for me whenever passing is my only sensible move (`auto pass off` ends it)."""

    kind: ClassVar[str] = "auto_pass"
    enabled: bool = True


# --- game master ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateGame(Command):
    """Create a game of `title`; `options` are passed on as written (`seed=7`)."""

    kind: ClassVar[str] = "create_game"
    game_master: ClassVar[bool] = True
    title: str
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Invite(Command):
    """Invite `address` to take the seat `seat`."""

    kind: ClassVar[str] = "invite"
    game_master: ClassVar[bool] = True
    address: str
    seat: str


@dataclass(frozen=True, slots=True)
class Join(Command):
    """The invited player's reply."""

    kind: ClassVar[str] = "join"


@dataclass(frozen=True, slots=True)
class Start(Command):
    """Start the game with the players who have joined."""

    kind: ClassVar[str] = "start"
    game_master: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Observe(Command):
    """Receive a game's reports without a seat."""

    kind: ClassVar[str] = "observe"
    game: str


@dataclass(frozen=True, slots=True)
class Stop(Command):
    """Never mail this address again (one confirmation is the last mail)."""

    kind: ClassVar[str] = "stop"


@dataclass(frozen=True, slots=True)
class SetDeadline(Command):
    """Time each player has to move, in minutes (`set deadline 48h`)."""

    kind: ClassVar[str] = "set_deadline"
    game_master: ClassVar[bool] = True
    minutes: int


@dataclass(frozen=True, slots=True)
class SetTimeout(Command):
    """What happens at a deadline: pass for the late player, or wait."""

    kind: ClassVar[str] = "set_timeout"
    game_master: ClassVar[bool] = True
    policy: TimeoutPolicy


@dataclass(frozen=True, slots=True)
class Pause(Command):
    """Stop deadlines and refuse orders until `resume`."""

    kind: ClassVar[str] = "pause"
    game_master: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Resume(Command):
    """End a pause."""

    kind: ClassVar[str] = "resume"
    game_master: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Replace(Command):
    """Give seat `seat` to a new player at `address`."""

    kind: ClassVar[str] = "replace"
    game_master: ClassVar[bool] = True
    seat: str
    address: str


@dataclass(frozen=True, slots=True)
class Force(Command):
    """Submit `actions` (one order line) on behalf of the player in `seat`."""

    kind: ClassVar[str] = "force"
    game_master: ClassVar[bool] = True
    seat: str
    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class UndoTo(Command):
    """Fold the game back so that move `move` and everything after it never happened.

    The game log records this as the engine's `Undo` action (`to_action`); it is a
    command here because only the game master may send it.
    """

    kind: ClassVar[str] = "undo_to"
    game_master: ClassVar[bool] = True
    move: int

    def to_action(self) -> Undo:
        return Undo(to_move=self.move)


@dataclass(frozen=True, slots=True)
class EndGame(Command):
    """End the game now (scores as they stand)."""

    kind: ClassVar[str] = "end_game"
    game_master: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Webhook(Command):
    """Post each report's summary to `url` in `form` ("discord", "slack", "json"; None:
    as the URL suggests); `url` None stops the posts (`webhook off`)."""

    kind: ClassVar[str] = "webhook"
    game_master: ClassVar[bool] = True
    url: str | None = None
    form: str | None = None


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.kind: cls
    for cls in (
        Status, ShowMap, History, Legal, ShowHex, Help, UndoLast, Resign, SetFormat, SetReports,
        SetTimezone, Away, MoveNumber, GameId, Password, AutoPass, CreateGame, Invite, Join,
        Start, Observe, Stop, SetDeadline, SetTimeout, Pause, Resume, Replace, Force, UndoTo,
        EndGame, Webhook,
    )
}  # fmt: skip


def command_to_json(command: Command) -> dict[str, Any]:
    """`{"command": kind, ...}` with every field that differs from its default.

    Dates are ISO strings; a forced order's actions use the engine's JSON form.
    """
    out: dict[str, Any] = {"command": command.kind}
    for field in dataclasses.fields(command):
        value = getattr(command, field.name)
        if field.default is not dataclasses.MISSING and value == field.default:
            continue
        out[field.name] = _value_to_json(value)
    return out


def _value_to_json(value: Any) -> Any:
    if isinstance(value, Action):
        return to_json(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_value_to_json(v) for v in value]
    return value
