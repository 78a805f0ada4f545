"""Actions: what a player (or the president of the acting company) does.

Every action is a small frozen dataclass naming things by their printed symbols
(companies, privates, hexes, tiles, trains), never by object reference, so the
action log is plain data. `to_json`/`from_json` give the stable JSON form that the
store keeps: `{"type": "lay_tile", "tile": "57", "hex": "H5", "rotation": 2}`.

Who acted is not part of an action: the game log pairs each action with the seat
that sent it (`engine.game.Move`). Company actions may name their company
(`company`, from an order prefix such as `TC:`); the engine checks it matches the
company whose turn it is.

Some actions exist for titles whose rules the engine does not carry yet; the
engine answers them with a clear "not available" error rather than a crash.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

ShareSource = Literal["ipo", "pool", "treasury"]
DividendKind = Literal["payout", "withhold", "half"]


@dataclass(frozen=True, slots=True)
class Action:
    """Base class of every action; `kind` is its JSON type name."""

    kind: ClassVar[str] = "action"


# --- Stock round, auctions, private sales -------------------------------------------


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Pass: in a stock round, in an auction (drop out), or in an operating step."""

    kind: ClassVar[str] = "pass"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class BuyShares(Action):
    """Buy `count` certificates of a corporation, from `source` (None: the title's default)."""

    kind: ClassVar[str] = "buy_shares"
    corporation: str
    count: int = 1
    source: ShareSource | None = None


@dataclass(frozen=True, slots=True)
class Par(Action):
    """Buy a corporation's president's certificate and set its par value."""

    kind: ClassVar[str] = "par"
    corporation: str
    price: int


@dataclass(frozen=True, slots=True)
class SellShares(Action):
    """Sell shares of one corporation to the open market, by count or by percent."""

    kind: ClassVar[str] = "sell_shares"
    corporation: str
    count: int | None = 1
    percent: int | None = None
    company: str | None = None  # in an operating round: the company raising the money


@dataclass(frozen=True, slots=True)
class BuyPrivate(Action):
    """Buy a private company.

    In a stock round (no `seller`): the cheapest private offered, at its price.
    In an operating round: the acting corporation buys it from `seller` for `price`.
    """

    kind: ClassVar[str] = "buy_private"
    private: str
    seller: str | None = None
    price: int | None = None
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """Bid on a private (or minor); `target` None means the auction under way."""

    kind: ClassVar[str] = "bid"
    amount: int
    target: str | None = None


@dataclass(frozen=True, slots=True)
class StartAuction(Action):
    """Put a minor or private up for auction with an opening bid (1861)."""

    kind: ClassVar[str] = "start_auction"
    target: str
    amount: int


@dataclass(frozen=True, slots=True)
class SellPrivate(Action):
    """Offer a private to another player (`buyer` a seat name) or sell it to the bank."""

    kind: ClassVar[str] = "sell_private"
    private: str
    buyer: str
    price: int | None = None


@dataclass(frozen=True, slots=True)
class Accept(Action):
    """Accept the proposal addressed to you."""

    kind: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """Decline the proposal addressed to you."""

    kind: ClassVar[str] = "decline"


@dataclass(frozen=True, slots=True)
class RedeemShares(Action):
    """A corporation buys back its own shares (1850 in the stock round, 1851 when operating)."""

    kind: ClassVar[str] = "redeem_shares"
    count: int = 1
    company: str | None = None
    # 1850 5.10.3: the player whose share is redeemed (None: the Open Market's).
    holder: str | None = None


@dataclass(frozen=True, slots=True)
class IssueShares(Action):
    """A corporation issues shares from its treasury to the pool (1851)."""

    kind: ClassVar[str] = "issue_shares"
    count: int = 1
    company: str | None = None


@dataclass(frozen=True, slots=True)
class ReissueShares(Action):
    """A corporation reissues the shares it redeemed (1850)."""

    kind: ClassVar[str] = "reissue_shares"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Protect(Action):
    """The president buys the shares another player just sold (1850 share price protection)."""

    kind: ClassVar[str] = "protect"
    corporation: str


@dataclass(frozen=True, slots=True)
class DeclineProtection(Action):
    """Let another player's sale stand (1850)."""

    kind: ClassVar[str] = "decline_protection"


# --- Operating round ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LayTile(Action):
    """Lay (or upgrade to) `tile` on `hex`, turned `rotation` x 60 degrees clockwise."""

    kind: ClassVar[str] = "lay_tile"
    tile: str
    hex: str
    rotation: int
    company: str | None = None
    # A lay as a record of 18xx.games has it, whose connection the site judged: the
    # site accepts track touching any hex edge the company's graph reaches, ours asks
    # that a route reach the new track (docs/site-differences.md, 1861 10.4). Set only
    # by the importer, for a lay ours refuses for its connection alone: the order
    # language has no word for it and a mail's JSON action may not carry it
    # (`IMPORTER_FIELDS`).
    as_recorded: bool = False


@dataclass(frozen=True, slots=True)
class PlaceToken(Action):
    """Place a station token in a city of `hex` (`city` index where the hex has several)."""

    kind: ClassVar[str] = "place_token"
    hex: str
    city: int | None = None
    company: str | None = None


@dataclass(frozen=True, slots=True)
class PlaceEdgeToken(Action):
    """Place an edge token on an off-board area (1850)."""

    kind: ClassVar[str] = "place_edge_token"
    hex: str
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Route:
    """One train's route: the train by name and the hexes it passes, in order.

    `cities` optionally pins which city of a multi-city hex is meant, as pairs
    `("B13", 1)`; pairs rather than a dict so the route stays hashable.
    """

    train: str
    hexes: tuple[str, ...]
    cities: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class RunRoutes(Action):
    """Run the company's trains. `auto` asks the engine for the best run; no routes: run none."""

    kind: ClassVar[str] = "run_routes"
    routes: tuple[Route, ...] = ()
    auto: bool = False
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Dividend(Action):
    """Pay out, withhold, or (where the title has it) pay half."""

    kind: ClassVar[str] = "dividend"
    choice: DividendKind
    company: str | None = None


@dataclass(frozen=True, slots=True)
class BuyTrain(Action):
    """Buy a train: from the bank (the next one), the pool, or another company (`source` sym)."""

    kind: ClassVar[str] = "buy_train"
    train: str
    source: str = "bank"
    price: int | None = None
    company: str | None = None
    trade_in: str | None = None  # a train of the buyer's, traded in for credit (1850 16.2)


@dataclass(frozen=True, slots=True)
class DiscardTrain(Action):
    """Discard a train to the pool when over the train limit."""

    kind: ClassVar[str] = "discard_train"
    train: str
    company: str | None = None


@dataclass(frozen=True, slots=True)
class TakeLoan(Action):
    """Take a loan (1861)."""

    kind: ClassVar[str] = "take_loan"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class RepayLoan(Action):
    """Repay a loan (1861)."""

    kind: ClassVar[str] = "repay_loan"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class PayMesabi(Action):
    """Pay for the Mesabi Range access rights (1850)."""

    kind: ClassVar[str] = "pay_mesabi"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class LeaseTrain(Action):
    """A company in receivership leases a train (1825)."""

    kind: ClassVar[str] = "lease_train"
    company: str | None = None


@dataclass(frozen=True, slots=True)
class SellTrain(Action):
    """A director offers a train of his company to another company at a price; its
    director accepts (`accept`) or declines in its train step (1825 5.6.5)."""

    kind: ClassVar[str] = "sell_train"
    train: str
    to: str
    price: int
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Veto(Action):
    """Veto the receiver's decision put to the vote (1825 6.4.5)."""

    kind: ClassVar[str] = "veto"


@dataclass(frozen=True, slots=True)
class UsePrivate(Action):
    """Use a private company's special ability: a tile lay or a token (`then`)."""

    kind: ClassVar[str] = "use_private"
    private: str
    then: LayTile | PlaceToken
    company: str | None = None


@dataclass(frozen=True, slots=True)
class Done(Action):
    """End the company's turn, skipping the optional steps left."""

    kind: ClassVar[str] = "done"
    company: str | None = None


# --- 1861 merger round and nationalisation ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Convert(Action):
    """Convert a minor into a major company (1861)."""

    kind: ClassVar[str] = "convert"
    minor: str
    into: str | None = None  # the public company it becomes


@dataclass(frozen=True, slots=True)
class Merge(Action):
    """Merge minors into a major company (1861)."""

    kind: ClassVar[str] = "merge"
    minors: tuple[str, ...]
    into: str
    # 12.3: the minors whose stations the new company takes (when there is a choice).
    stations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Nationalise(Action):
    """Let the national railway take a company over (1861)."""

    kind: ClassVar[str] = "nationalise"
    corporation: str


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """Keep a company out of nationalisation (1861)."""

    kind: ClassVar[str] = "keep"
    corporation: str


# --- Log control -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Undo(Action):
    """Fold history back: the actions from move `to_move` on never happened.

    Undo is appended to the log, never a deletion, so undone moves stay visible.
    """

    kind: ClassVar[str] = "undo"
    to_move: int


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        Pass, BuyShares, Par, SellShares, BuyPrivate, Bid, StartAuction, SellPrivate,
        Accept, Decline, RedeemShares, IssueShares, ReissueShares, Protect,
        DeclineProtection, LayTile, PlaceToken, PlaceEdgeToken, RunRoutes,
        Dividend, BuyTrain, DiscardTrain, TakeLoan, RepayLoan, PayMesabi, LeaseTrain,
        Veto, SellTrain, UsePrivate, Done, Convert, Merge, Nationalise, Keep, Undo,
    )
}  # fmt: skip


#: Fields set only by the importer of 18xx.games records (`LayTile.as_recorded`): an
#: action given as JSON in a mail may not carry them (`moderator.desk.orders`).
IMPORTER_FIELDS: frozenset[str] = frozenset({"as_recorded"})


def importer_fields(data: Any) -> set[str]:
    """The importer-only fields named anywhere in an action's JSON form."""
    if isinstance(data, dict):
        found = IMPORTER_FIELDS & data.keys()
        for value in data.values():
            found |= importer_fields(value)
        return set(found)
    if isinstance(data, list):
        return set().union(*(importer_fields(v) for v in data)) if data else set()
    return set()


def to_json(action: Action) -> dict[str, Any]:
    """The stable JSON form: `type` plus every field that differs from its default."""
    return {"type": action.kind, **_fields_to_json(action)}


def _fields_to_json(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if field.default is not dataclasses.MISSING and value == field.default:
            continue
        out[field.name] = _value_to_json(value)
    return out


def _value_to_json(value: Any) -> Any:
    if isinstance(value, Action):
        return to_json(value)
    if dataclasses.is_dataclass(value):
        return _fields_to_json(value)
    if isinstance(value, tuple):
        return [_value_to_json(v) for v in value]
    return value


def from_json(data: dict[str, Any]) -> Action:
    """Rebuild an action from its JSON form; raises ValueError on an unknown type or field."""
    try:
        cls = ACTION_TYPES[data["type"]]
    except (KeyError, TypeError):
        raise ValueError(f"unknown action type in {data!r}") from None
    fields = {k: v for k, v in data.items() if k != "type"}
    action = _dataclass_from_json(cls, fields)
    assert isinstance(action, Action)
    return action


@functools.cache
def _fields_of(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """CLS's type hints and field names, found once per class: resolving the hints
    was a tenth of reading a stored log (issue 14)."""
    return typing.get_type_hints(cls), frozenset(f.name for f in dataclasses.fields(cls))


def _dataclass_from_json(cls: type, data: dict[str, Any]) -> Any:
    hints, names = _fields_of(cls)
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown field(s) {sorted(unknown)}")
    try:
        return cls(**{k: _value_from_json(hints[k], v) for k, v in data.items()})
    except TypeError as exc:
        raise ValueError(f"{cls.__name__}: {exc}") from None


def _value_from_json(hint: Any, value: Any) -> Any:
    """Rebuild `value` by its type hint: nested actions, dataclasses and tuples."""
    if isinstance(value, dict):
        if "type" in value:
            return from_json(value)
        for candidate in _hint_options(hint):
            if isinstance(candidate, type) and dataclasses.is_dataclass(candidate):
                return _dataclass_from_json(candidate, value)
        return value
    if isinstance(value, list):
        for candidate in _hint_options(hint):
            if typing.get_origin(candidate) is tuple:
                args = typing.get_args(candidate)
                if len(args) == 2 and args[1] is Ellipsis:
                    return tuple(_value_from_json(args[0], v) for v in value)
                return tuple(_value_from_json(a, v) for a, v in zip(args, value, strict=False))
        return tuple(value)
    return value


def _hint_options(hint: Any) -> tuple[Any, ...]:
    """The alternatives of a union hint (or the hint itself)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return (hint,)
