"""One line of text -> engine actions or a meta command, or an OrderError.

`parse_line(text, names)` is the whole interface. The grammar (orders.lark) gives the
structure; this module resolves every name against the game's `Names` and turns
Lark's errors into messages a player can act on. One line may yield several actions
(`sell 2 TC, 1 IC`), hence a tuple.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import re
import zoneinfo
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.lexer import PatternStr

from engine import actions as a
from grammar import commands as cmd
from grammar.errors import OrderError, closest, did_you_mean, join_or
from grammar.names import (
    BANK,
    CompanyKind,
    NameProblem,
    Names,
    lookup_company,
    lookup_hex,
    lookup_seat,
    lookup_tile,
    lookup_train,
    parse_amount,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Confirmed:
    """`confirm ORDER`: the actions of ORDER, to be applied even though the moderator
    warns of what they cost (a company left unable to pay for the train it must own;
    `moderator.desk.shortfall`)."""

    actions: tuple[a.Action, ...]


Order = a.Action | cmd.Command | Confirmed
"""What a line yields: engine actions (game moves), a meta command, or actions
confirmed after a warning."""

_T = TypeVar("_T")

_SHARES: tuple[CompanyKind, ...] = ("corporation", "minor")
_ANY_COMPANY: tuple[CompanyKind, ...] = ("corporation", "minor", "private")
_SHARE_SOURCES: tuple[a.ShareSource, ...] = ("ipo", "pool", "treasury")

# What a syntax error says the parser wanted, per terminal of orders.lark.
_ROLE_TEXT: dict[str, str] = {
    "COUNT": "a number",
    "PERCENT": "a percentage",
    "ROTATION": "a rotation (0 to 5)",
    "CITYNUM": "a city number",
    "MOVENUM": "a move number",
    "COMPANY": "a company",
    "HEXID": "a hex",
    "TILEID": "a tile",
    "TRAINID": "a train",
    "AMOUNT": "an amount",
    "SOURCE": "where from (ipo, pool, treasury, a company or a player)",
    "SEAT": "a player",
    "ADDRESS": "a mail address",
    "TOPIC": "a topic",
    "SETTING": "a setting (format, reports, timezone, deadline or timeout)",
    "VALUE": "a value",
    "DATE": "a date (YYYY-MM-DD)",
    "GAMEID": "a game id",
    "SECRET": "a password",
    "TITLE": "a title",
    "OPTION": "an option",
    "ONOFF": "`on` or `off`",
    "PREFIX": "a company prefix such as `TC:`",
}
_END = "$END"

# `#` starts a comment at the start of a line or after white space (not inside a
# word, so a password such as `ab#c` survives).
_COMMENT_RE = re.compile(r"(^|\s)#.*$", re.S)
# Trailing punctuation players add out of habit: `pass.`, `buy TC!`, `run 2: A B;`.
_TRAILING_RE = re.compile(r"[\s.!?,;]+$")
# Dashes that mail programs substitute for `-` (`H–5`); one character for one, so
# columns stay those of the original line.
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-"})


@functools.cache
def _parser() -> Lark:
    text = resources.files("grammar").joinpath("orders.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", start="line", maybe_placeholders=True)


@functools.cache
def _keywords() -> dict[str, str]:
    """Keyword terminal name -> its text (`LAY` -> `lay`)."""
    return {
        t.name: t.pattern.value
        for t in _parser().terminals
        if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha()
    }


@functools.cache
def _line_starts() -> tuple[frozenset[str], frozenset[str]]:
    """(terminals, keyword texts) acceptable as the first word of a line."""
    try:
        _parser().parse("")
    except UnexpectedInput as e:
        expected = frozenset(_expected(e))
    else:  # pragma: no cover - the grammar has no empty line
        expected = frozenset()
    words = frozenset(_keywords()[n] for n in expected if n in _keywords())
    return expected, words


@functools.cache
def _order_verbs() -> frozenset[str]:
    """Keywords that begin a game order (what may follow `TC:`)."""
    try:
        _parser().parse("TC:")
    except UnexpectedInput as e:
        return frozenset(_keywords()[n] for n in _expected(e) if n in _keywords())
    return frozenset()  # pragma: no cover


def _expected(e: UnexpectedInput) -> set[str]:
    if isinstance(e, UnexpectedToken):
        return set(e.accepts or e.expected)
    if isinstance(e, UnexpectedCharacters):
        return set(e.allowed or ())
    if isinstance(e, UnexpectedEOF):
        return set(e.expected)
    return set()  # pragma: no cover


def code_of(text: str) -> str:
    """The part of a line the grammar reads: no comment, no trailing punctuation."""
    code = _COMMENT_RE.sub("", text.rstrip("\r\n"))
    return _TRAILING_RE.sub("", code).translate(_DASHES)


@functools.lru_cache(maxsize=1024)
def parse_line(text: str, names: Names) -> tuple[Order, ...]:
    """Parse one line into the orders it gives, or raise OrderError.

    Every failure is an OrderError carrying the line and the column of the problem;
    nothing is guessed: a near-miss name is reported with a suggestion, never used.

    Orders parsed are kept (a pure function of the line and the names, its orders
    frozen): a burst brings the same lines again and again -- each player's `password`,
    `pass`, `done` -- and a mail's lines are read more than once (issue 14). A line
    refused is parsed again each time."""
    code = code_of(text)
    if not code.strip():
        raise OrderError(text, 1, "there is no order on this line")
    try:
        tree = _parser().parse(code)
    except UnexpectedInput as e:
        raise _syntax_error(text, code, e, names) from None
    try:
        result: tuple[Order, ...] = _Build(text, names).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, OrderError):
            raise e.orig_exc from None
        raise
    return result


def warm_parser(names: Names) -> None:
    """Build the grammar's parser and read a line with it now (a daemon's start), not
    in the first mail; the line is read afresh, not answered from `parse_line`'s kept
    orders, so the parser is built whatever was parsed before."""
    with contextlib.suppress(OrderError):
        parse_line.__wrapped__("pass", names)


# --- syntax errors -----------------------------------------------------------------------


def _describe(expected: set[str]) -> str:
    """`a hex`, `` `at` or a hex ``: what the parser would have accepted."""
    roles = [_ROLE_TEXT[n] for n in _ROLE_TEXT if n in expected]
    words = sorted(
        f"`{_keywords()[n]}`" if n in _keywords() else f"`{_punct(n)}`"
        for n in expected
        if n not in _ROLE_TEXT and n != _END
    )
    items = roles + words + (["the end of the line"] if _END in expected else [])
    return join_or(items)


def _punct(name: str) -> str:
    for t in _parser().terminals:
        if t.name == name and isinstance(t.pattern, PatternStr):
            return t.pattern.value
    return name.lower()  # pragma: no cover


def _syntax_error(line: str, code: str, e: UnexpectedInput, names: Names) -> OrderError:
    """A player's explanation of what Lark could not parse.

    The typical slips get their own sentence (an unknown verb, two orders on a line,
    routes without `;`); anything else says what the grammar expected instead.
    """
    expected = _expected(e)
    # An order may start here: the line's start, or after `TC:` / `force Ann:`.
    at_order_start = {"PASS", "LAY"} <= expected
    if isinstance(e, UnexpectedToken) and e.token.type != _END:
        word = str(e.token.value)
        pos = e.token.start_pos if isinstance(e.token.start_pos, int) else 0
    elif isinstance(e, UnexpectedCharacters):
        rest = code[e.pos_in_stream :] if e.pos_in_stream is not None else ""
        word = rest.split(maxsplit=1)[0] if rest.strip() else ""
        pos = e.pos_in_stream or 0
    else:  # the line ended too early
        end = len(code.rstrip()) + 1
        if at_order_start:
            return OrderError(line, end, f"an order must follow `{code.strip()}`")
        return OrderError(
            line,
            end,
            f"the order stops too early; expected {_describe(expected)}",
            expected=_expected_texts(expected),
        )
    column, width = pos + 1, max(1, len(word))
    if at_order_start:
        message, suggestions, prose = _not_an_order(word, expected, names)
        first = pos == len(code) - len(code.lstrip())
        return OrderError(line, column, message, suggestions, width=width,
                          prose=prose and first and _no_order_in(code, names))
    if word == ":" and ";" in {_punct(n) for n in expected if n not in _keywords()}:
        # `run 2: A B 3: C D`: the lexer took `3` for a hex; point at `3:`.
        before = code[:pos].split()
        train = before[-1] if before else "2"
        start = code.rfind(train, 0, pos)
        message = f"routes are separated by `;`: write `; {train}:`"
        return OrderError(line, start + 1, message, width=pos + 1 - start)
    verbs = _order_verbs() | _line_starts()[1]
    if _END in expected and word in (",", ";", "and"):
        # `lay 57 at H5 rot 2, token F11`: point at the second order, not the comma.
        following = code[pos + len(word) :].split(maxsplit=1)
        if following and following[0].casefold() in verbs:
            pos = code.index(following[0], pos + len(word))
            word, column, width = following[0], pos + 1, len(following[0])
    if word.casefold() in verbs and _END in expected:
        message = f"one order per line: `{word}` begins a second order; put it on a line of its own"
        return OrderError(line, column, message, width=width)
    return OrderError(
        line,
        column,
        f"unexpected `{word}`; expected {_describe(expected)}",
        expected=_expected_texts(expected),
        width=width,
    )


_BULLET = re.compile(r"^\s*([-*•+>]|\d+[.)]?)\s")
_WORD = re.compile(r"[\w&'-]+")


def _no_order_in(code: str, names: Names) -> bool:
    """Whether CODE is plain prose: no bullet or number before it, and no word that
    begins an order or names a company (`- pass`, `then pass`, `purchase L&N` are not
    prose: the mail must not apply without them)."""
    if _BULLET.match(code):
        return False
    verbs = _order_verbs() | _line_starts()[1]
    for word in _WORD.findall(code):
        if word.casefold() in verbs:
            return False
        try:
            lookup_company(names, word, _SHARES)
        except NameProblem:
            continue
        return False
    return True


def _not_an_order(word: str, expected: set[str], names: Names
                  ) -> tuple[str, tuple[str, ...], bool]:
    """(message, suggestions, whether the word resembles no order at all) for a word
    where an order should begin."""
    starts, start_words = _line_starts()
    if word.startswith(">"):
        return ("a quoted line (`>`) is not an order; write orders above the quoted mail",
                (), False)
    if word.casefold() in start_words:  # `TC: status`, `force Ann: undo`
        return f"`{word}` must start a line of its own", (), False
    try:
        sym = lookup_company(names, word, _SHARES)
    except NameProblem:
        pass
    else:  # `TC lay ...`: the prefix without its colon
        return (f"`{word}` is not an order; to give an order for {sym}, write `{sym}:` first",
                (), False)
    pool = start_words if expected == starts else _order_verbs()
    suggestions = closest(word, sorted(pool))
    if suggestions:
        return (f"`{word}` is not an order{did_you_mean(suggestions, quote=True)}",
                suggestions, False)
    # Most often a greeting or a signature that lacks its `-- ` line.
    return (
        f"`{word}` is not an order (`help` lists the orders; end your orders with "
        "`sign off` or a `-- ` line)",
        (),
        True,
    )


def _expected_texts(expected: set[str]) -> tuple[str, ...]:
    out = [_ROLE_TEXT[n] for n in _ROLE_TEXT if n in expected]
    out += sorted(_keywords()[n] for n in expected if n in _keywords())
    return tuple(out)


# --- the tree -> orders ----------------------------------------------------------------------

Tok = Token | None


def _pos(tok: Token) -> int:
    return tok.start_pos if tok.start_pos is not None else 0


@v_args(inline=True)
class _Build(Transformer[Token, Any]):
    """Builds the orders of one parsed line; every problem is an OrderError at its word."""

    def __init__(self, line: str, names: Names) -> None:
        super().__init__()
        self.text = line
        self.names = names

    # -- helpers

    def _fail(self, tok: Token, message: str, suggestions: tuple[str, ...] = ()) -> OrderError:
        return OrderError(self.text, _pos(tok) + 1, message, suggestions, width=len(tok))

    def _resolve(self, tok: Token, fn: Callable[[], _T]) -> _T:
        try:
            return fn()
        except NameProblem as p:
            raise self._fail(tok, p.message, p.suggestions) from None

    def _company(self, tok: Token, kinds: tuple[CompanyKind, ...] = _SHARES) -> str:
        return self._resolve(tok, lambda: lookup_company(self.names, str(tok), kinds))

    def _hex(self, tok: Token) -> str:
        return self._resolve(tok, lambda: lookup_hex(self.names, str(tok)))

    def _amount(self, tok: Token) -> int:
        return self._resolve(tok, lambda: parse_amount(self.names, str(tok)))

    def _seat(self, tok: Token) -> str:
        return self._resolve(tok, lambda: lookup_seat(self.names, str(tok)))

    def _train(self, tok: Token, double_heading: bool = False) -> str:
        return self._resolve(tok, lambda: lookup_train(self.names, str(tok), double_heading))

    def _count(self, tok: Tok, default: int = 1) -> int:
        if tok is None:
            return default
        value = int(tok)
        if value < 1:
            raise self._fail(tok, f"{value} is not a count; the least is 1")
        return value

    def _price(self, tok: Tok) -> int | None:
        return None if tok is None else self._amount(tok)

    def _holder(self, tok: Token) -> str:
        """A player or a company that owns something being bought."""
        word = str(tok)
        if self.names.seats:
            try:
                return lookup_seat(self.names, word)
            except NameProblem as p:
                try:
                    return lookup_company(self.names, word, _SHARES)
                except NameProblem:
                    raise self._fail(tok, p.message, p.suggestions) from None
        try:
            return lookup_company(self.names, word, _SHARES)
        except NameProblem:
            return word

    # -- the line

    def line(self, item: tuple[a.Action, ...] | cmd.Command | Confirmed
             ) -> tuple[Order, ...]:
        return (item,) if isinstance(item, cmd.Command | Confirmed) else item

    def confirmed(self, actions: tuple[a.Action, ...]) -> Confirmed:
        return Confirmed(actions)

    def game_line(self, prefix: Tok, actions: tuple[a.Action, ...]) -> tuple[a.Action, ...]:
        if prefix is None:
            return actions
        word = str(prefix).rstrip(":").strip()
        tok = Token("PREFIX", word, start_pos=_pos(prefix))
        company = self._company(tok)
        out: list[a.Action] = []
        for action in actions:
            if not hasattr(action, "company"):
                order = code_of(self.text)[prefix.end_pos :].strip()
                raise self._fail(prefix, f"`{order}` takes no company prefix; drop `{prefix}`")
            named = action.company
            if named is not None and named != company:
                raise self._fail(prefix, f"the prefix names {company} but the order is for {named}")
            out.append(_with_company(action, company))
        return tuple(out)

    # -- stock round, auctions, privates

    def pass_(self) -> tuple[a.Action, ...]:
        return (a.Pass(),)

    def source(self, tok: Token) -> Token:
        return tok

    def price(self, tok: Token) -> Token:
        return tok

    def trade_in(self, tok: Token) -> Token:
        return tok

    def buy(self, count: Tok, company: Token, source: Tok, price: Tok) -> tuple[a.Action, ...]:
        sym = self._company(company, _ANY_COMPANY)
        if sym in self.names.privates:
            if count is not None:
                raise self._fail(count, f"there is only one {sym}; drop the number")
            seller = None if source is None else self._holder(source)
            return (a.BuyPrivate(sym, seller=seller, price=self._price(price)),)
        if price is not None:
            raise self._fail(price, "shares are bought at the market price; drop the price")
        where: a.ShareSource | None = None
        if source is not None:
            folded = str(source).casefold()
            if folded not in _SHARE_SOURCES:
                hint = closest(str(source), _SHARE_SOURCES)
                raise self._fail(
                    source,
                    f"shares come from ipo, pool or treasury, not {source}{did_you_mean(hint)}",
                    hint,
                )
            where = next(src for src in _SHARE_SOURCES if src == folded)
        return (a.BuyShares(sym, count=self._count(count), source=where),)

    def buy_train(self, train: Token, source: Tok, price: Tok, trade_in: Tok = None
                  ) -> tuple[a.Action, ...]:
        name = self._train(train)
        traded = self._train(trade_in) if trade_in is not None else None
        where = "bank"
        if source is not None:
            folded = str(source).casefold()
            if folded in ("bank", "pool"):
                where = folded
            else:
                try:
                    where = lookup_company(self.names, str(source), _SHARES)
                except NameProblem as p:
                    hint = closest(str(source), ("bank", "pool"))
                    reason = did_you_mean(hint) if hint else f"; {p.message}"
                    raise self._fail(
                        source,
                        f"a train comes from the bank, the pool or a company{reason}",
                        hint or p.suggestions,
                    ) from None
        return (a.BuyTrain(name, source=where, price=self._price(price), trade_in=traded),)

    def buy_private(self, company: Token, source: Tok, price: Tok) -> tuple[a.Action, ...]:
        sym = self._company(company, ("private",))
        seller = None if source is None else self._holder(source)
        return (a.BuyPrivate(sym, seller=seller, price=self._price(price)),)

    def par(self, company: Token, amount: Token) -> tuple[a.Action, ...]:
        return (a.Par(self._company(company), self._amount(amount)),)

    def sell_shares(self, *sales: a.SellShares) -> tuple[a.Action, ...]:
        return sales

    def sale_count(self, count: Tok, company: Token) -> a.SellShares:
        return a.SellShares(self._company(company), count=self._count(count))

    def sale_percent(self, percent: Token, company: Token) -> a.SellShares:
        value = int(str(percent).rstrip("%"))
        if not 0 < value <= 100:
            raise self._fail(percent, f"{percent} is not a share of a company; use 10% to 100%")
        return a.SellShares(self._company(company), count=None, percent=value)

    def sell_private(self, company: Token, buyer: Token, price: Tok) -> tuple[a.Action, ...]:
        sym = self._company(company, ("private",))
        to = BANK if str(buyer).casefold() == BANK else self._seat(buyer)
        return (a.SellPrivate(sym, to, price=self._price(price)),)

    def bid(self, amount: Token, target: Tok) -> tuple[a.Action, ...]:
        sym = None if target is None else self._company(target, ("minor", "private"))
        return (a.Bid(self._amount(amount), sym),)

    def auction(self, target: Token, amount: Token) -> tuple[a.Action, ...]:
        return (a.StartAuction(self._company(target, ("minor", "private")), self._amount(amount)),)

    def accept(self) -> tuple[a.Action, ...]:
        return (a.Accept(),)

    def decline(self) -> tuple[a.Action, ...]:
        return (a.Decline(),)

    def protect(self, company: Token) -> tuple[a.Action, ...]:
        return (a.Protect(self._company(company)),)

    def decline_protection(self) -> tuple[a.Action, ...]:
        return (a.DeclineProtection(),)

    # -- operating round

    def lay(self, tile: Token, hex_: Token, rot: tuple[Token, int] | None) -> tuple[a.Action, ...]:
        name = self._resolve(tile, lambda: lookup_tile(self.names, str(tile)))
        where = self._hex(hex_)
        if rot is None:
            end = (hex_.end_pos if hex_.end_pos is not None else len(self.text)) + 1
            raise OrderError(
                self.text, end, "missing rotation: add `rot N` (N from 0 to 5) after the hex"
            )
        return (a.LayTile(name, where, rot[1]),)

    def rot(self, tok: Token) -> tuple[Token, int]:
        value = int(tok)
        if not 0 <= value <= 5:
            raise self._fail(tok, f"rotation {value} is out of range; use 0 to 5")
        return tok, value

    def token(self, hex_: Token, city: int | None) -> tuple[a.Action, ...]:
        return (a.PlaceToken(self._hex(hex_), city=city),)

    def city(self, tok: Token) -> int:
        # Players count a hex's cities from 1, as they read them; the engine from 0.
        number = int(tok)
        if number < 1:
            raise self._fail(tok, "cities are numbered from 1")
        return number - 1

    def edge_token(self, hex_: Token) -> tuple[a.Action, ...]:
        return (a.PlaceEdgeToken(self._hex(hex_)),)

    def run_auto(self) -> tuple[a.Action, ...]:
        return (a.RunRoutes(auto=True),)

    def run_none(self) -> tuple[a.Action, ...]:
        return (a.RunRoutes(),)

    def run_routes(self, *routes: a.Route) -> tuple[a.Action, ...]:
        return (a.RunRoutes(routes=routes),)

    def route(self, train: Token, *stops: tuple[str, int | None]) -> a.Route:
        name = self._train(train, double_heading=True)
        hexes = tuple(h for h, _ in stops)
        cities = tuple((h, c) for h, c in stops if c is not None)
        return a.Route(name, hexes, cities)

    def stop(self, hex_: Token, city: int | None) -> tuple[str, int | None]:
        return self._hex(hex_), city

    def payout(self) -> tuple[a.Action, ...]:
        return (a.Dividend("payout"),)

    def withhold(self) -> tuple[a.Action, ...]:
        return (a.Dividend("withhold"),)

    def half(self) -> tuple[a.Action, ...]:
        return (a.Dividend("half"),)

    def mesabi(self) -> tuple[a.Action, ...]:
        return (a.PayMesabi(),)

    def discard(self, train: Token) -> tuple[a.Action, ...]:
        return (a.DiscardTrain(self._train(train)),)

    def issue(self, count: Tok, company: Tok) -> tuple[a.Action, ...]:
        sym = None if company is None else self._company(company)
        return (a.IssueShares(self._count(count), company=sym),)

    def redeem(self, count: Tok, company: Tok, source: Tok) -> tuple[a.Action, ...]:
        sym = None if company is None else self._company(company)
        holder = None
        if source is not None and str(source).casefold() != "pool":
            holder = self._holder(source)  # 1850 5.10.3: a player's share, with consent
        return (a.RedeemShares(self._count(count), company=sym, holder=holder),)

    def reissue(self, company: Tok) -> tuple[a.Action, ...]:
        return (a.ReissueShares(None if company is None else self._company(company)),)

    def take_loan(self) -> tuple[a.Action, ...]:
        return (a.TakeLoan(),)

    def repay_loan(self) -> tuple[a.Action, ...]:
        return (a.RepayLoan(),)

    def sell_train(self, train: Token, buyer: Token, price: Token) -> tuple[a.Action, ...]:
        return (a.SellTrain(self._train(train), self._company(buyer), self._amount(price)),)

    def lease(self) -> tuple[a.Action, ...]:
        return (a.LeaseTrain(),)

    def veto(self) -> tuple[a.Action, ...]:
        return (a.Veto(),)

    def use(self, private: Token, then: tuple[a.Action, ...]) -> tuple[a.Action, ...]:
        sym = self._company(private, ("private",))
        step = then[0]
        assert isinstance(step, a.LayTile | a.PlaceToken)
        return (a.UsePrivate(sym, step),)

    def done(self) -> tuple[a.Action, ...]:
        return (a.Done(),)

    # -- 1861

    def convert(self, minor: Token, into: Tok = None) -> tuple[a.Action, ...]:
        target = None if into is None else self._company(into, ("corporation",))
        return (a.Convert(self._company(minor, ("minor",)), target),)

    def merge(self, *companies: Any) -> tuple[a.Action, ...]:
        *named, stations = companies
        minors = tuple(self._company(t, ("minor",)) for t in named[:-1])
        return (a.Merge(minors, self._company(named[-1], ("corporation",)),
                        tuple(stations or ())),)

    def merge_stations(self, *companies: Token) -> tuple[str, ...]:
        return tuple(self._company(t, ("minor",)) for t in companies)

    def nationalise(self, company: Token) -> tuple[a.Action, ...]:
        return (a.Nationalise(self._company(company)),)

    def keep(self, company: Token) -> tuple[a.Action, ...]:
        return (a.Keep(self._company(company)),)

    # -- meta commands

    def status(self) -> cmd.Command:
        return cmd.Status()

    def show_map(self) -> cmd.Command:
        return cmd.ShowMap()

    def history(self, count: Tok) -> cmd.Command:
        return cmd.History(None if count is None else self._count(count))

    def legal(self) -> cmd.Command:
        return cmd.Legal()

    def show_hex(self, hex_: Token) -> cmd.Command:
        return cmd.ShowHex(self._hex(hex_))

    def help(self, *topic: Token) -> cmd.Command:
        return cmd.Help(" ".join(str(t) for t in topic).casefold() or None)

    def undo_last(self) -> cmd.Command:
        return cmd.UndoLast()

    def undo_to(self, move: Token) -> cmd.Command:
        return cmd.UndoTo(int(move))

    def resign(self) -> cmd.Command:
        return cmd.Resign()

    def setting(self, key: Token, value: Token) -> cmd.Command:
        name = str(key).casefold()
        if name not in _SETTINGS:
            hint = closest(str(key), tuple(_SETTINGS))
            raise self._fail(
                key,
                f"there is no setting {key}"
                + (did_you_mean(hint) if hint else f"; settings are {join_or(list(_SETTINGS))}"),
                hint,
            )
        try:
            return _SETTINGS[name](str(value))
        except NameProblem as p:
            raise self._fail(value, p.message, p.suggestions) from None

    def away(self, start: Token, end: Token) -> cmd.Command:
        first, last = self._date(start), self._date(end)
        if last < first:
            raise self._fail(end, f"{last} is before {first}; put the first day first")
        return cmd.Away(first, last)

    def _date(self, tok: Token) -> datetime.date:
        try:
            return datetime.date.fromisoformat(str(tok))
        except ValueError:
            raise self._fail(tok, f"{tok} is not a date; write it as YYYY-MM-DD") from None

    def move(self, number: Token) -> cmd.Command:
        return cmd.MoveNumber(int(number))

    def game(self, game: Token) -> cmd.Command:
        return cmd.GameId(self._game_id(game))

    def observe(self, game: Token) -> cmd.Command:
        return cmd.Observe(self._game_id(game))

    def _game_id(self, tok: Token) -> str:
        # A subject's `[18TN-7]` pasted as it is.
        ident = str(tok).removeprefix("[").removesuffix("]")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", ident):
            raise self._fail(tok, f"{tok} is not a game id (such as 18TN-7)")
        return ident

    def password(self, secret: Token) -> cmd.Command:
        return cmd.Password(str(secret))

    def auto_pass(self, onoff: Tok) -> cmd.Command:
        return cmd.AutoPass(onoff is None or str(onoff).casefold() == "on")

    def create_game(self, title: Token, *options: Token) -> cmd.Command:
        return cmd.CreateGame(self._title(title), tuple(str(o) for o in options))

    def _title(self, tok: Token) -> str:
        from engine.title import available_titles, load_title

        try:
            return load_title(str(tok)).name
        except ValueError:
            known = available_titles()
            hint = closest(str(tok), known)
            raise self._fail(
                tok,
                f"there is no title {tok}"
                + (did_you_mean(hint) if hint else f"; titles are {join_or(known)}"),
                hint,
            ) from None

    def invite(self, address: Token, seat: Token) -> cmd.Command:
        name = str(seat)
        if name.casefold() in ("bank", "pool", "ipo", "treasury"):
            raise self._fail(seat, f"{name} cannot be a seat name; it names a holder of shares")
        # A seat already in the game keeps its spelling; a new one is as written.
        known = {s.casefold(): s for s in self.names.seats}
        return cmd.Invite(self._address(address), known.get(name.casefold(), name))

    def _address(self, tok: Token) -> str:
        text = str(tok).removeprefix("<").removesuffix(">")
        # Local domains without a dot (ann@localhost) are real addresses too.
        if not re.fullmatch(r"[^@\s<>]+@[^@\s<>.][^@\s<>]*", text):
            raise self._fail(tok, f"{tok} is not a mail address (such as ann@example.org)")
        return text

    def join(self) -> cmd.Command:
        return cmd.Join()

    def start(self) -> cmd.Command:
        return cmd.Start()

    def stop_mail(self) -> cmd.Command:
        return cmd.Stop()

    def pause(self) -> cmd.Command:
        return cmd.Pause()

    def resume(self) -> cmd.Command:
        return cmd.Resume()

    def replace(self, seat: Token, address: Token) -> cmd.Command:
        return cmd.Replace(self._seat(seat), self._address(address))

    def force(self, seat: Token, actions: tuple[a.Action, ...]) -> cmd.Command:
        return cmd.Force(self._seat(seat), actions)

    def end_game(self) -> cmd.Command:
        return cmd.EndGame()

    def webhook(self, url: Token, form: Tok) -> cmd.Command:
        if form is None:
            return cmd.Webhook(str(url))
        forms = {"discord": "discord", "slack": "slack", "json": "json"}
        return cmd.Webhook(str(url), self._resolve(form, lambda: _choice(str(form),
                                                                          "webhook form",
                                                                          forms)))

    def webhook_off(self, onoff: Token) -> cmd.Command:
        if str(onoff).casefold() == "on":
            raise self._fail(onoff, "name the webhook's address: webhook https://...")
        return cmd.Webhook()


def _with_company(action: a.Action, company: str) -> a.Action:
    # Only called for actions that have a `company` field (checked by the caller);
    # mypy cannot see that through the base class.
    changes: dict[str, Any] = {"company": company}
    return dataclasses.replace(action, **changes)


# --- settings ---------------------------------------------------------------------------------


def _choice(word: str, what: str, choices: dict[str, str]) -> str:
    found = choices.get(word.casefold())
    if found is not None:
        return found
    primary = list(dict.fromkeys(choices.values()))
    hint = closest(word, list(choices))
    raise NameProblem(
        f"{what} {word} is not known"
        + (did_you_mean(hint) if hint else f"; use {join_or(primary)}"),
        hint,
    )


def _set_format(word: str) -> cmd.Command:
    fmt = _choice(word, "format", {"text": "text", "html": "html", "plain": "text"})
    return cmd.SetFormat("html" if fmt == "html" else "text")


def _set_reports(word: str) -> cmd.Command:
    mode = _choice(
        word,
        "reports",
        {"all": "all", "digest": "digest", "none": "none", "every": "all", "off": "none"},
    )
    return cmd.SetReports("all" if mode == "all" else "digest" if mode == "digest" else "none")


@functools.cache
def _zones() -> dict[str, str]:
    return {z.casefold(): z for z in zoneinfo.available_timezones()}


def _set_timezone(word: str) -> cmd.Command:
    zones = _zones()
    found = zones.get(word.casefold())
    if found is None:
        hint = closest(word, sorted(zones.values()))
        raise NameProblem(
            f"time zone {word} is not known"
            + (did_you_mean(hint) if hint else "; write it as Area/City, e.g. Europe/Berlin"),
            hint,
        )
    return cmd.SetTimezone(found)


_DURATION_RE = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$", re.I)


def _set_deadline(word: str) -> cmd.Command:
    m = _DURATION_RE.match(word)
    minutes = 0
    if m is not None and any(m.groups()):
        days, hours, mins = (int(g or 0) for g in m.groups())
        minutes = days * 1440 + hours * 60 + mins
    if minutes <= 0:
        raise NameProblem(f"deadline {word} is not a duration; write it as 48h, 2d or 90m")
    return cmd.SetDeadline(minutes)


def _set_timeout(word: str) -> cmd.Command:
    policy = _choice(word, "timeout", {"pass": "pass", "wait": "wait"})
    return cmd.SetTimeout("pass" if policy == "pass" else "wait")


_SETTINGS: dict[str, Callable[[str], cmd.Command]] = {
    "format": _set_format,
    "reports": _set_reports,
    "timezone": _set_timezone,
    "deadline": _set_deadline,
    "timeout": _set_timeout,
}
