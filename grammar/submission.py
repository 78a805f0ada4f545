"""A mail body -> the order lines of one submission, each parsed or refused.

The rules (shared/ORDERS.md, "A submission"): read top to bottom, one order per
line; stop at a signature line (`-- `, or a phone's or mail program's footer: `Sent
from my ...`, `Get Outlook for ...`), at `sign off`, or at the first line of the quoted
mail (`>`, `On ... wrote:`, Outlook's `-----Original Message-----`); skip blank lines
and `#` comments. (A mail's text comes here as its writer's own words: the mail layer,
`moderator.mail.reply`, has already taken out the quoted mail in any layout and
language, so text written below a quote is read.) `move N` and `game ID` lines are
headers of the whole submission, not orders.

Lines that are clearly no orders around the orders are left out, where no order could
be lost:

* before the first order, greeting lines (`Hi all,`, `Dear Bob`, `Hallo zusammen`,
  `Hej Peter,`) that resemble no order: the mail's opening;
* after the last order, lines that resemble no order ("Thanks!", a name), and from a
  sign-off line on (`Regards,`, `Mit freundlichen Grüßen`, `Hilsen`, `-Ann`) every line
  that does not begin like an order (a signature's title, address, telephone): the
  mail's closing, named in the reply, not refused.

A line that resembles an order -- a misspelled one with its did-you-mean, a bullet or
number before an order word, a company's name -- is never left out: it is refused with
its caret, and the mail with it.

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
# Phones and mail programs sign without `-- `; the line can never be an order.
_SENT_FROM_RE = re.compile(
    r"^\s*(?:Sent (?:from|with|via|using) \S|Get Outlook for\b|Gesendet von mein"
    r"|Envoy[ée] de mon|Enviado desde mi|Enviado do meu|Inviato da|Verzonden vanaf mijn"
    r"|Wysłano z mojego|Sendt fra min|Skickat från min)", re.I)
# A greeting before the orders: a salutation, then at most a few names or words.
_GREETING_RE = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|howdy|yo|dear|greetings|good (?:morning|afternoon|evening|day)"
    r"|morning|evening|hallo|moin|servus|guten (?:morgen|tag|abend)|liebe[rs]?"
    r"|sehr geehrte[rs]?|bonjour|bonsoir|salut|coucou|cher|chère|chers|hola|buenos días"
    r"|buenas(?: tardes| noches)?|estimad[oa]s?|querid[oa]s?|ciao|salve|buongiorno"
    r"|buonasera|gentile|car[oa]|cari|hoi|beste|goedemorgen|goedemiddag|hej|hejsan|hei"
    r"|heisann|god (?:morgen|dag)|kære|kjære|cześć|czesc|witam|dzień dobry|szanown[yia]"
    r"|olá|ola|oi|bom dia|boa (?:tarde|noite)|prezad[oa]s?)\b[\w\s.,:;!'&\u200b-\u200d-]{0,50}$",
    re.I)
# A sign-off after the orders, in the languages of the mail programs (the phrases of
# mail-parser-reply and a few more); what follows it is the signature.
_SIGN_OFF_WORDS = (
    "thanks|thank you|thx|ty|cheers|regards|best|kind regards|best regards|warm regards"
    "|all the best|sincerely|yours|greetings|bye|see you|take care|ciao|danke|gruß|grüße"
    "|gruss|grüsse|viele grüße|beste grüße|liebe grüße|lg|vg|mfg|mit freundlichen grüßen"
    "|merci|cordialement|salutations|amitiés|bien à vous|bonne journée|saludos|un saludo"
    "|atentamente|gracias|cordiales saludos|saluti|cordiali saluti|grazie|distinti saluti"
    "|groeten|groetjes|met vriendelijke groet|hartelijke groeten|bedankt|dank je|dank u"
    "|pozdrawiam|pozdrowienia|z poważaniem|z powazaniem|dzięki|dziekuje|dziękuję"
    "|hilsen|mvh|med venlig hilsen|venlig hilsen|vennlig hilsen|med vennlig hilsen|kh"
    "|bedste hilsner|tak|takk|tack|hälsningar|vänliga hälsningar|med vänliga hälsningar"
    "|abraços|abraço|atenciosamente|obrigad[oa]|cumprimentos|att")
_SIGN_OFF_RE = re.compile(
    rf"^\s*(?:(?:{_SIGN_OFF_WORDS})\b[\w\s.,!'&-]{{0,40}}|[-/–—]\s?[^\W\d_][\w.' -]{{0,40}})$",
    re.I)
# Some mail programs put their signature under a dash of another kind.
_DASH_LINES = frozenset({"—", "–", "—-", "–-", "---"})
_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d+[.)]?)\s+")
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
    # Greeting lines before the first order ("Hi all,"): the mail's opening, left out.
    opening: tuple[SubmissionLine, ...] = ()

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
    if text.rstrip() == "--" or text.strip() in _DASH_LINES or _SENT_FROM_RE.match(text):
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
    opening = _opening(lines, names)
    lines = lines[len(opening):]
    closing = _closing(lines, names)
    return Submission(tuple(lines[: len(lines) - len(closing)]), tuple(headers), move, game,
                      stop, closing, tuple(opening))


def _resembles_order(line: SubmissionLine, names: Names) -> bool:
    """Whether LINE is an order or looks like one. A bullet or number before prose
    (`- how about bullets`) does not make it one; before an order word it does."""
    error = line.error
    if error is None:
        return True
    bullet = _BULLET_RE.match(line.text)
    if bullet is not None and not error.prose:
        text = line.text[bullet.end():]
        try:
            parse_line(text, names)
        except OrderError as inner:
            return not inner.prose and (not inner.suggestions or _mistyped(text, inner, names))
        return True
    return not error.prose and (not error.suggestions or _mistyped(line.text, error, names))


def _mistyped(text: str, error: OrderError, names: Names) -> bool:
    """Whether a line whose word has a did-you-mean is a mistyped order: the corrected
    line is an order, or the word stands alone (`pas`), or what follows it resembles an
    order (`byu TCC`). `John Doe` (`join`?) and `how about bullets` (`show`?) are not."""
    code = code_of(text)
    start = error.column - 1
    if code[:start].strip() or start >= len(code):
        return True  # not the line's first word: the line began like an order
    rest = code[start + error.width:]
    for suggestion in error.suggestions:
        try:
            parse_line(suggestion + rest, names)
        except OrderError as fixed:
            if fixed.suggestions and fixed.column > len(suggestion) + 1:
                return True  # a second slip further on (`byu TCX`)
            continue
        return True
    if not rest.strip():
        return True
    try:
        parse_line(rest, names)
    except OrderError as inner:
        # Only what resembles an order by itself counts, not a near miss of a word:
        # `Doe` is near `done`, `under` near `undo`.
        return not inner.prose and not inner.suggestions
    return True


def _begins_like_order(text: str, names: Names) -> bool:
    """Whether TEXT's first word (after a bullet) is an order's or a mistyped one, or a
    company's name: in a signature, only such a line could be a lost order."""
    bullet = _BULLET_RE.match(text)
    if bullet is not None:
        text = text[bullet.end():]
    words = code_of(text).split()
    if not words:
        return False
    first = words[0].rstrip(",.;!?")
    if not first:
        return False
    try:
        parse_line(first, names)
    except OrderError as error:
        if error.prose:
            return False
        if not error.suggestions:
            return True
        try:
            parse_line(text, names)
        except OrderError as whole:
            return whole.suggestions == () or _mistyped(text, whole, names)
        return True
    return True


def _opening(lines: list[SubmissionLine], names: Names) -> list[SubmissionLine]:
    """The greeting lines before the first order, when an order follows them."""
    count = 0
    while count < len(lines) and not _resembles_order(lines[count], names) \
            and _GREETING_RE.match(lines[count].text):
        count += 1
    if not any(_resembles_order(line, names) for line in lines[count:]):
        return []
    return lines[:count]


def _closing(lines: list[SubmissionLine], names: Names) -> tuple[SubmissionLine, ...]:
    """The trailing lines that resemble no order, when an order comes before them: a
    courtesy line must not cost a player a day, but a misspelled order (`byu TCC`, which
    has a did-you-mean) or a stray word between orders still refuses the mail. From a
    sign-off line on, a signature's lines (a title naming a company, a telephone) are the
    closing too, unless one begins like an order or holds an order word."""
    end = len(lines)
    while end > 0 and not _resembles_order(lines[end - 1], names):
        end -= 1
    if end == 0:
        return ()
    for index in range(1, end):
        line = lines[index]
        if _resembles_order(line, names) or not _SIGN_OFF_RE.match(line.text):
            continue
        if any(_begins_like_order(later.text, names) or _has_order_word(later.text, names)
               for later in lines[index + 1:]):
            break  # an order may follow the sign-off: nothing is left out
        return tuple(lines[index:])
    return tuple(lines[end:])


def _has_order_word(text: str, names: Names) -> bool:
    """Whether a word of TEXT is a whole order (`then pass`) or begins one (`and buy`)."""
    for word in re.findall(r"[A-Za-z]{2,}", code_of(text)):
        try:
            parse_line(word, names)
        except OrderError as error:
            if error.expected:
                return True
            continue
        return True
    return False


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
