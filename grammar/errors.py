"""The one error type of the order language, and "did you mean" suggestions."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


class OrderError(Exception):
    """A line that is not a valid order, with what a player needs to fix it.

    `line` is the text as written, `column` the 1-based position of the problem
    (one past the end for "the order stops too early"), `width` how many characters
    the caret marks. `suggestions` are near-miss names ("did you mean"), never
    applied silently; `expected` lists what the grammar would accept at that point;
    `prose` says that nothing in the line begins or resembles an order.
    `message` already reads as a sentence that mentions both where useful; the
    fields are there for callers that lay the reply out themselves.

    A plain Exception subclass rather than a frozen dataclass: Python assigns
    `__traceback__`/`__context__`/`__notes__` on exceptions, which a frozen
    dataclass would refuse.
    """

    def __init__(
        self,
        line: str,
        column: int,
        message: str,
        suggestions: Sequence[str] = (),
        expected: Sequence[str] = (),
        width: int = 1,
        prose: bool = False,
    ) -> None:
        super().__init__(message)
        # Nothing in the line begins or resembles an order: a greeting, thanks, a name.
        self.prose = prose
        self.line = line
        self.column = max(1, column)
        self.message = message
        self.suggestions = tuple(suggestions)
        self.expected = tuple(expected)
        self.width = max(1, width)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"OrderError(line={self.line!r}, column={self.column}, message={self.message!r})"

    def format_error(self, indent: str = "") -> str:
        """The line, a caret under the problem, and the reason: what the reply quotes.

        The caret line copies the tabs of the line so that it stays aligned however
        the reader's mail program expands them.
        """
        line = self.line.rstrip("\r\n")
        pad = "".join("\t" if ch == "\t" else " " for ch in line[: self.column - 1])
        pad += " " * max(0, self.column - 1 - len(line))
        return f"{indent}{line}\n{indent}{pad}{'^' * self.width}\n{indent}{self.message}"


def edit_distance(a: str, b: str) -> float:
    """Optimal-string-alignment distance, with a swap of two neighbours costing 0.5.

    Swapped neighbours are the commonest slip when typing numbers and symbols
    (`75` for `57`); counting them as half an edit ranks them ahead of the many
    one-edit neighbours a short tile number has (`5`, `7`, `70`).
    """
    rows = len(a) + 1
    cols = len(b) + 1
    d = [[0.0] * cols for _ in range(rows)]
    for i in range(rows):
        d[i][0] = float(i)
    for j in range(cols):
        d[0][j] = float(j)
    for i in range(1, rows):
        for j in range(1, cols):
            cost = 0.0 if a[i - 1] == b[j - 1] else 1.0
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 0.5)
    return d[-1][-1]


def closest(
    word: str,
    candidates: Iterable[str],
    limit: int = 3,
    key: Callable[[str], str] = str.casefold,
) -> tuple[str, ...]:
    """The candidates nearest to `word` (compared by `key`), best first, or ().

    Only candidates within a small distance count (none for one-letter words, where
    any other letter is "one edit" away), and of those only the ones that tie for
    best, so that a suggestion is a real hint rather than a list of neighbours.
    """
    wkey = key(word)
    if len(wkey) > 40:  # nobody mistypes a 40-letter name; spare the quadratic distance
        return ()
    allowed = 0.0 if len(wkey) <= 1 else 1.0 if len(wkey) <= 5 else 2.0
    scored: list[tuple[float, int, str]] = []
    seen: set[str] = set()
    for order, cand in enumerate(candidates):
        ckey = key(cand)
        if ckey in seen or ckey == wkey:
            continue
        seen.add(ckey)
        dist = edit_distance(wkey, ckey)
        if 0 < dist <= allowed:
            scored.append((dist, order, cand))
    if not scored:
        return ()
    best = min(s[0] for s in scored)
    return tuple(c for d, _, c in sorted(scored) if d == best)[:limit]


def did_you_mean(suggestions: Sequence[str], quote: bool = False) -> str:
    """`; did you mean X?` (or `X or Y`), empty when there is nothing to suggest."""
    if not suggestions:
        return ""
    shown = [f"`{s}`" if quote else s for s in suggestions]
    return f"; did you mean {join_or(shown)}?"


def join_or(items: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
