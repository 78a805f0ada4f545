"""A mail body -> the order lines of one submission, each parsed or refused.

The rules (shared/ORDERS.md, "A submission"): read top to bottom, one order per
line; stop at a signature line (`-- `, or a phone's `Sent from my ...`), at `sign
off`, or at the first line of the quoted mail (`>`, `On ... wrote:`, Outlook's
`-----Original Message-----`); skip blank lines and `#` comments. `move N`
and `game ID` lines are headers of the whole submission, not orders. Lines after the
last order that resemble no order at all ("Thanks!", a name) are the mail's closing:
named in the reply, not refused.

Nothing here applies anything: `SubmissionLine.result` is left empty for the code
that applies the submission (all or nothing) to fill with what each line did, via
`dataclasses.replace`, so that the reply can repeat every line with its outcome.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from grammar.commands import GameId, MoveNumber
from grammar.errors import OrderError
from grammar.names import Names
from grammar.parser import Order, code_of, parse_line

StopReason = Literal["signature", "sign off", "quote"]

# `On Tue, 1 Dec 2026 at 10:00, Ann <ann@example.org> wrote:` -- mail programs often
# wrap it, so an `On ...` line whose next line ends in `wrote:` counts too.
_ON_RE = re.compile(r"^\s*On\s", re.I)
_WROTE_RE = re.compile(r"\bwrote:\s*$", re.I)
# Phones sign without `-- `; the line can never be an order.
_SENT_FROM_RE = re.compile(r"^\s*Sent from my\b", re.I)
# Outlook quotes without `>`, under a separator line.
_ORIGINAL_RE = re.compile(r"^\s*-{2,}\s*Original Message\s*-{2,}\s*$", re.I)


@dataclass(frozen=True, slots=True)
class SubmissionLine:
    """One line that counts: its 1-based line number in the body, its text as written,
    and either the orders it gives or the error that refuses it.

    `result` is for the applier: what the line did ("ok", "TC buys a 3-train for $180")
    or why the engine refused it; None until the submission is applied.
    """

    number: int
    text: str
    orders: tuple[Order, ...] = ()
    error: OrderError | None = None
    result: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class Stop:
    """Where and why reading stopped (for the reply: "read up to line 7, the signature")."""

    number: int
    reason: StopReason


@dataclass(frozen=True, slots=True)
class Submission:
    """The order lines of one mail, in order, plus its headers.

    lines: order lines and meta commands, blank and comment lines left out;
    headers: the `move N` / `game ID` lines; move, game: what they say (None: absent).
    """

    lines: tuple[SubmissionLine, ...]
    headers: tuple[SubmissionLine, ...] = ()
    move: int | None = None
    game: str | None = None
    stop: Stop | None = None
    # Lines after the last order that resemble no order ("Thanks!", "Cheers, Ann"):
    # the mail's closing, left out of the orders and named in the reply.
    closing: tuple[SubmissionLine, ...] = ()

    @property
    def errors(self) -> tuple[SubmissionLine, ...]:
        """The refused lines, headers included."""
        return tuple(line for line in (*self.headers, *self.lines) if not line.ok)

    @property
    def ok(self) -> bool:
        """Every line parsed (the engine may still refuse the orders)."""
        return not self.errors

    @property
    def orders(self) -> tuple[Order, ...]:
        """Every order of the submission, in order."""
        return tuple(order for line in self.lines for order in line.orders)


def stop_reason(lines: Sequence[str], index: int) -> StopReason | None:
    """Why reading stops at `lines[index]`, or None when it does not."""
    text = lines[index]
    if text.rstrip() == "--" or _SENT_FROM_RE.match(text):
        # `-- ` is the signature separator; many mail programs strip its space.
        return "signature"
    if " ".join(code_of(text).split()).casefold() in ("sign off", "signoff", "sign-off"):
        return "sign off"
    if text.lstrip().startswith(">") or _ORIGINAL_RE.match(text):
        return "quote"
    if _ON_RE.match(text):
        following = next((s for s in lines[index + 1 :] if s.strip()), "")
        if _WROTE_RE.search(text) or _WROTE_RE.search(following):
            return "quote"
    return None


def _counts(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def parse_submission(body: str, names: Names) -> Submission:
    """Split a mail body into its order lines and parse each one."""
    raw = body.removeprefix("\ufeff").splitlines()
    lines: list[SubmissionLine] = []
    headers: list[SubmissionLine] = []
    move: int | None = None
    game: str | None = None
    stop: Stop | None = None
    for index, text in enumerate(raw):
        number = index + 1
        reason = stop_reason(raw, index)
        if reason is not None:
            stop = Stop(number, reason)
            break
        if not _counts(text):
            continue
        try:
            orders = parse_line(text, names)
        except OrderError as e:
            lines.append(SubmissionLine(number, text, error=e))
            continue
        head = orders[0] if len(orders) == 1 else None
        if isinstance(head, MoveNumber):
            if move is not None and move != head.number:
                error = _repeat(text, f"this submission already names move {move}")
                headers.append(SubmissionLine(number, text, error=error))
                continue
            move = head.number
            headers.append(SubmissionLine(number, text, orders))
        elif isinstance(head, GameId):
            if game is not None and game.casefold() != head.game.casefold():
                error = _repeat(text, f"this submission already names game {game}")
                headers.append(SubmissionLine(number, text, error=error))
                continue
            game = head.game
            headers.append(SubmissionLine(number, text, orders))
        else:
            lines.append(SubmissionLine(number, text, orders))
    closing = _closing(lines)
    return Submission(tuple(lines[: len(lines) - len(closing)]), tuple(headers), move, game,
                      stop, closing)


def _closing(lines: list[SubmissionLine]) -> tuple[SubmissionLine, ...]:
    """The trailing lines that resemble no order, when an order comes before them: a
    courtesy line must not cost a player a day, but a misspelled order (`byu TCC`, which
    has a did-you-mean) or a stray word between orders still refuses the mail."""
    end = len(lines)
    while end > 0 and (error := lines[end - 1].error) is not None and error.prose:
        end -= 1
    return tuple(lines[end:]) if end > 0 else ()


def _repeat(text: str, message: str) -> OrderError:
    start = len(text) - len(text.lstrip())
    return OrderError(text, start + 1, message, width=max(1, len(text.strip())))


def read_game_id(body: str) -> str | None:
    """The game a body names by a `game ID` line, before any names are known.

    The service needs the game to know which title's names to parse with; this
    reads only the header lines (commands need no title names).
    """
    raw = body.removeprefix("\ufeff").splitlines()
    empty = Names(title="")
    for index, text in enumerate(raw):
        if stop_reason(raw, index) is not None:
            return None
        words = code_of(text).split()
        if not words or words[0].casefold() != "game":
            continue
        try:
            orders = parse_line(text, empty)
        except OrderError:
            continue
        if len(orders) == 1 and isinstance(orders[0], GameId):
            return orders[0].game
    return None
