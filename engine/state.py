"""The game state: who owns what, where the money is, what lies on the map.

These classes are plain mutable records; the rules live in the round modules and in
`engine.rules`. The state is rebuilt by replaying the action log, so nothing here is
ever stored.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar, cast

from engine.market import StockMarket
from engine.title import CorporationSpec, PrivateSpec, Shared, Title

_T = TypeVar("_T")

# Holders of certificates other than players. A seat may not take these names.
IPO = "ipo"  # the Initial Offering: certificates never owned by anyone
POOL = "pool"  # the Open Market (bank pool)
TREASURY = "treasury"  # the corporation's own treasury (1850, 1851)
CLOSED = "closed"  # holder of the certificates of a company gone from the game
BANK = "bank"
RESERVED_NAMES = frozenset({IPO, POOL, TREASURY, BANK})


class Messages(list[str]):
    """What happened, in words: strings never change, so a copy shares them."""

    def __deepcopy__(self, memo: dict[int, object]) -> Messages:
        return Messages(self)


@dataclass
class Certificate:
    """One stock certificate; index 0 is the president's certificate."""

    corporation: str
    index: int
    percent: int
    owner: str

    def __deepcopy__(self, memo: dict[int, object]) -> Certificate:
        # Copied by the thousand when actions are tried: a direct copy is much faster.
        return Certificate(self.corporation, self.index, self.percent, self.owner)

    @property
    def president(self) -> bool:
        return self.index == 0

    @property
    def shares(self) -> int:
        """The number of 10% shares it stands for."""
        return self.percent // 10


@dataclass(frozen=True)
class Train:
    """A train card: `name` is its type ("2", "3", "2+2"), `id` its copy ("2-0").

    Never changed (a train made obsolete is replaced by its obsolete copy,
    `trains.make_obsolete`), so copies of the game share it: 1861's offering holds
    some 300 trains, which made most of the cost of every copy."""

    name: str
    id: str
    obsolete: bool = False  # 18TN 4.2.5.1: runs once more, then removed


@dataclass
class PendingSale:
    """Shares sold whose price drop waits for the president's answer (1850 5.9)."""

    corporation: str
    seller: str
    percent: int
    price: int  # per share, what the seller received
    # Who decides: the president when the shares were sold (a president who sells his
    # presidency away decides, and cannot protect his own sale).
    president: str


@dataclass
class Player:
    name: str
    cash: int = 0
    # Corporations sold this stock round (no buying them back, 18TN 3.2).
    sold_this_round: set[str] = field(default_factory=set)
    bankrupt: bool = False


@dataclass
class Corporation:
    sym: str
    spec: CorporationSpec
    certificates: list[Certificate]
    cash: int = 0
    par_price: int | None = None
    floated: bool = False
    operated: bool = False  # has completed at least one operating turn
    president: str | None = None
    trains: list[Train] = field(default_factory=list)
    token_costs: list[int] = field(default_factory=list)  # tokens still on the charter
    closed: bool = False
    markers: set[str] = field(default_factory=set)  # title markers, e.g. 18TN's civil war
    loans: int = 0  # loans outstanding (1861 10.2; engine.loans)
    interest_due: int = 0  # loans the company began its turn with (1861 10.8)

    def percent_held_by(self, owner: str) -> int:
        # (A plain loop: asked of every company at every listing of a stock turn, and
        # twice as fast as a sum over a generator.)
        percent = 0
        for cert in self.certificates:
            if cert.owner == owner:
                percent += cert.percent
        return percent

    def certificates_of(self, owner: str) -> list[Certificate]:
        return [c for c in self.certificates if c.owner == owner]

    @property
    def ipo_percent(self) -> int:
        return self.percent_held_by(IPO)

    @property
    def pool_percent(self) -> int:
        return self.percent_held_by(POOL)


@dataclass
class Private:
    sym: str
    spec: PrivateSpec
    owner: str | None = None  # a seat name, a corporation symbol, or None (the bank)
    closed: bool = False
    ability_used: bool = False
    uses: int = 0  # times its ability was used (1850's Western Land Grant: three)
    last_used: str = ""  # the operating round it was last used in, e.g. "3.1"
    price: int | None = None  # current asking price while the bank holds it

    @property
    def owned_by_player(self) -> bool:
        return self.owner is not None and not self.closed


@dataclass(frozen=True)
class PlacedTile:
    name: str
    rotation: int

    def __deepcopy__(self, memo: dict[int, object]) -> PlacedTile:
        return self


@dataclass
class Board:
    """The map as it stands: laid tiles, station tokens, the tile supply."""

    tiles: dict[str, PlacedTile] = field(default_factory=dict)
    # hex -> city index -> corporations with a station there, in slot order
    tokens: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    supply: dict[str, int | None] = field(default_factory=dict)  # None: unlimited
    laid_once: set[str] = field(default_factory=set)  # hexes whose terrain was paid
    # hex -> companies with a token on the hex outside its cities (1850: an edge token
    # on its red area, 7.4; a Mesabi token, 6.5.1), in the order placed
    markers: dict[str, list[str]] = field(default_factory=dict)

    def tokens_in(self, hex_id: str, city: int) -> list[str]:
        return self.tokens.get(hex_id, {}).get(city, [])


@dataclass
class GameState:
    """Everything the rules look at. Built by `engine.game.Game` from the log."""

    title: Title
    seats: tuple[str, ...]
    players: dict[str, Player]
    corporations: dict[str, Corporation]
    privates: dict[str, Private]
    market: StockMarket
    board: Board
    bank_cash: int
    trains_offered: list[Train]  # the Initial Offering, in buying order
    trains_pool: list[Train] = field(default_factory=list)  # the Open Market
    phase_index: int = 0
    priority: str = ""  # the seat holding the Priority Deal
    stock_round_number: int = 0
    operating_round_number: int = 0  # within the current set
    operating_rounds_in_set: int = 1
    # Bids on privates not yet auctioned: private -> seat -> amount (18TN 3.1(b)).
    private_bids: dict[str, dict[str, int]] = field(default_factory=dict)
    game_over: bool = False
    end_reason: str | None = None
    end_triggered: str | None = None  # a game end that completes a round first
    # Sales waiting for share price protection, in the order sold (1850 5.9).
    pending_sales: list[PendingSale] = field(default_factory=list)
    # 1825: companies run on company credit, not the bank's money: payments between the
    # bank and a company change only the company; `credit` is the net credit issued.
    company_credit: bool = False
    credit: int = 0
    log: Messages = field(default_factory=Messages)

    def say(self, text: str) -> None:
        """Record what just happened, in words a player reads in the report."""
        self.log.append(text)

    def player(self, name: str) -> Player:
        return self.players[name]

    def corporation(self, sym: str) -> Corporation:
        return self.corporations[sym]

    def next_seat(self, seat: str, offset: int = 1) -> str:
        """The seat `offset` places clockwise (to the left) of `seat`."""
        i = self.seats.index(seat)
        return self.seats[(i + offset) % len(self.seats)]

    def seats_from(self, seat: str) -> list[str]:
        """All seats in clockwise order, starting with `seat`."""
        i = self.seats.index(seat)
        return list(self.seats[i:] + self.seats[:i])

    def total_cash(self) -> int:
        """Bank + players + corporations: constant through the game (conservation)."""
        return (
            self.bank_cash
            + sum(p.cash for p in self.players.values())
            + sum(c.cash for c in self.corporations.values())
            - self.credit
        )

    def transfer_cash(self, payer: str, payee: str, amount: int) -> None:
        """Move money between the bank, a player, or a corporation (by name)."""
        if self.company_credit and BANK in (payer, payee) and (
                payer in self.corporations or payee in self.corporations):
            # 1825: company credit comes from and goes to its own unlimited stock.
            company = payee if payer == BANK else payer
            delta = amount if payer == BANK else -amount
            self.corporations[company].cash += delta
            self.credit += delta
            return
        self._adjust(payer, -amount)
        self._adjust(payee, amount)

    def _adjust(self, who: str, delta: int) -> None:
        if who == BANK:
            self.bank_cash += delta
        elif who in self.players:
            self.players[who].cash += delta
        else:
            self.corporations[who].cash += delta

    def cash_of(self, who: str) -> int:
        if who == BANK:
            return self.bank_cash
        if who in self.players:
            return self.players[who].cash
        return self.corporations[who].cash


# --- copying the state ---------------------------------------------------------------------
# `copy.deepcopy` of a game costs about as much as playing an action, and copies are taken
# to try actions and to put a refused one back; `copy_records` makes the same copy several
# times faster by knowing which values never change: atoms, frozen dataclasses (actions,
# placed tiles, runs) and title data (`Shared`) are shared, the mutable records are copied
# field by field. The memo keeps aliasing as deepcopy does (a round and the state it plays
# on, a train listed twice).

# Grows with every class found to be shared (see `_copier_for`), so containers skip them.
_ATOMS: set[type] = {int, str, bool, float, type(None), bytes, frozenset, type, range}
_Copier = Callable[[Any, dict[int, Any]], Any]
_COPIERS: dict[type, _Copier] = {}


def money(state: GameState, amount: int) -> str:
    """An amount in the title's currency, as the rulebook prints it: `$90`."""
    return f"{state.title.currency}{amount}"


def copy_records(obj: _T, memo: dict[int, Any] | None = None) -> _T:
    """A deep copy of `obj` that shares what never changes (see above)."""
    if memo is None:
        memo = {}
    return cast(_T, _copy(obj, memo))


def _copy(obj: Any, memo: dict[int, Any]) -> Any:
    cls = type(obj)
    if cls in _ATOMS:
        return obj
    found = memo.get(id(obj), memo)
    if found is not memo:
        return found
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _copier_for(cls)
    return copier(obj, memo)


def _copy_list(obj: list[Any], memo: dict[int, Any]) -> list[Any]:
    atoms = _ATOMS
    out = [x if type(x) in atoms else _copy(x, memo) for x in obj]
    memo[id(obj)] = out
    return out


def _copy_dict(obj: dict[Any, Any], memo: dict[int, Any]) -> dict[Any, Any]:
    # Keys are names, positions and other hashable values: never copied.
    atoms = _ATOMS
    out = {k: v if type(v) in atoms else _copy(v, memo) for k, v in obj.items()}
    memo[id(obj)] = out
    return out


def _copy_set(obj: set[Any], memo: dict[int, Any]) -> set[Any]:
    out = set(obj)  # members of a set are hashable, hence treated as values
    memo[id(obj)] = out
    return out


def _copy_tuple(obj: tuple[Any, ...], memo: dict[int, Any]) -> tuple[Any, ...]:
    atoms = _ATOMS
    for x in obj:
        if type(x) not in atoms:
            return tuple(_copy(x, memo) for x in obj)
    return obj


def _share(obj: Any, memo: dict[int, Any]) -> Any:
    return obj


def _copier_for(cls: type) -> _Copier:
    params = getattr(cls, "__dataclass_params__", None)
    if issubclass(cls, (Shared, Enum)) or (params is not None and params.frozen):
        _ATOMS.add(cls)
        return _share
    if cls is list:
        return _copy_list
    if cls is dict:
        return _copy_dict
    if cls is set:
        return _copy_set
    if cls is tuple:
        return _copy_tuple
    if getattr(cls, "__deepcopy__", None) is not None:
        return _own_deepcopy
    if (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
            and cls.__getstate__ is object.__getstate__
            and not hasattr(cls, "__setstate__")
            and not any(getattr(c, "__slots__", None) for c in cls.__mro__)
            and not issubclass(cls, (list, dict, set, tuple))):
        return _copy_object
    return copy.deepcopy  # anything else: the general way


def _own_deepcopy(obj: Any, memo: dict[int, Any]) -> Any:
    out = obj.__deepcopy__(memo)
    memo[id(obj)] = out
    return out


def _copy_object(obj: Any, memo: dict[int, Any]) -> Any:
    out = object.__new__(type(obj))
    memo[id(obj)] = out
    fields = obj.__dict__.copy()
    atoms = _ATOMS
    for key, value in fields.items():
        if type(value) not in atoms:
            fields[key] = _copy(value, memo)
    out.__dict__ = fields
    return out
