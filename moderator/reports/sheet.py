"""What a human moderator's spreadsheet shows beside the position: who holds what of
each company (players, the Initial Offering, the open market, the company itself),
certificates held against the limit, bids and the cash they tie up, and the trains
still to come with their prices and what their purchase rusts.

Read from the engine's state here, so the templates see plain data only.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import Game
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.stock import StockRound
from engine.shares import certificate_count
from engine.state import IPO, POOL, TREASURY
from moderator.reports.privates import private_rows

__all__ = ["Auction", "Bid", "HolderRow", "Sheet", "TrainRow", "auction_row", "sheet",
           "short_names"]


@dataclass(frozen=True, slots=True)
class HolderRow:
    """One company's row of the share table: the percent each holder has."""

    sym: str
    price: int | None  # its share price on the market, None before its par
    president: str | None
    players: tuple[int, ...]  # percent per seat, in seating order
    ipo: int
    pool: int
    treasury: int


@dataclass(frozen=True, slots=True)
class Bid:
    """A player's bid on a private, and whether it is the high one."""

    private: str
    seat: str
    amount: int
    high: bool
    auction: bool  # the private is being auctioned now


@dataclass(frozen=True, slots=True)
class Auction:
    """The auction under way, whatever the title (issue 30): what is sold, the high
    bid and its holder (None: no bid yet), who proposed it (None: nobody, as when
    18TN's and 1850's bids on a private come due), who is still in, and whose bid it is."""

    item: str
    high_bid: int | None
    holder: str | None
    proposer: str | None
    still_in: tuple[str, ...]
    to_bid: str
    least: int | None  # the least the next bid may be


@dataclass(frozen=True, slots=True)
class PlayerSheet:
    name: str
    certificates: int
    tied_up: int  # cash set aside for bids


@dataclass(frozen=True, slots=True)
class TrainRow:
    """A train type still to come from the bank: its price, how many, and what the
    purchases still to come of it do (start a phase, rust or obsolete trains)."""

    name: str
    price: int
    left: int | None  # None: unlimited
    next: bool  # the next one offered
    events: tuple[str, ...]  # "the 1st starts phase 4: 2-trains rust"


@dataclass(frozen=True, slots=True)
class Sheet:
    seats: tuple[str, ...]
    short: tuple[str, ...]  # the seats as the share table's narrow columns name them
    holders: tuple[HolderRow, ...]
    players: tuple[PlayerSheet, ...]
    certificate_limit: int
    bids: tuple[Bid, ...]
    auction: Auction | None
    trains: tuple[TrainRow, ...]
    operating_order: tuple[str, ...]  # floated companies in the order they operate now
    tiles_left: tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...]  # by colour
    abilities: dict[str, str]  # private -> its special ability, in the rulebook's words
    users: dict[str, str | None]  # private -> who may still use its ability (privates.py)

    def player(self, name: str) -> PlayerSheet:
        return next(p for p in self.players if p.name == name)


def sheet(game: Game) -> Sheet:
    state, rules = game.state, game.rules
    seats = tuple(state.seats)
    holders = []
    for corp in state.corporations.values():
        if corp.par_price is None:
            continue
        price = state.market.price(corp.sym) if corp.sym in state.market.positions else None
        holders.append(HolderRow(
            corp.sym, price, corp.president,
            tuple(corp.percent_held_by(seat) for seat in seats),
            corp.percent_held_by(IPO), corp.percent_held_by(POOL),
            corp.percent_held_by(TREASURY)))
    auction = game.round.s.auction if isinstance(game.round, StockRound) else None
    bids: list[Bid] = []
    for private, by_seat in state.private_bids.items():
        if not by_seat:
            continue
        high = max(by_seat.values())
        live = auction is not None and auction.private == private
        for seat, amount in sorted(by_seat.items(), key=lambda kv: -kv[1]):
            bids.append(Bid(private, seat, amount, amount == high, live))
    if auction is not None and auction.private not in state.private_bids:
        for seat, amount in sorted(auction.bids.items(), key=lambda kv: -kv[1]):
            bids.append(Bid(auction.private, seat, amount, seat == auction.high_bidder, True))
    tied = {seat: sum(b.amount for b in bids if b.seat == seat) for seat in seats}
    players = tuple(PlayerSheet(seat, certificate_count(rules, state, seat), tied[seat])
                    for seat in seats)
    order: list[str] = []  # the rules' own choice of the next company, asked in turn
    while (nxt := rules.operating_order(state, set(order))) is not None:
        order.append(nxt)
    privates = private_rows(game)
    return Sheet(seats, short_names(seats), tuple(holders), players,
                 rules.certificate_limit(state), tuple(bids), auction_row(game),
                 _trains(game), tuple(order),
                 _tiles_left(game),
                 {sym: row.ability for sym, row in privates.items()},
                 {sym: row.use for sym, row in privates.items()})


def auction_row(game: Game) -> Auction | None:
    """The auction under way, as the reports show it (None: none)."""
    rnd = game.round
    rules = game.rules
    if isinstance(rnd, AuctionStockRound) and rnd.home_pending is None:
        lot = rnd.lot
        if lot is not None:  # 1861 9.2, 9.4: a lot proposed, bid on in turn
            return Auction(lot.target, lot.high_bid, lot.high_bidder, lot.proposer,
                           tuple(lot.bidders), lot.current,
                           lot.high_bid + rules.auction_increment)
        item = rnd.opening()
        if item is not None:  # 1861 9.4: the opening lots, no bid yet
            return Auction(item, None, None, None, game.setup.seats, rnd.s.current,
                           rules.auction_minimum(game.state, item))
    if isinstance(rnd, StockRound) and rnd.s.auction is not None:
        auction = rnd.s.auction  # 18TN 3.1.1, 1850 5.7: the bidders on a private
        high = max(auction.bids.values(), default=None)
        return Auction(auction.private, high, auction.high_bidder if high else None, None,
                       tuple(s for s in auction.order if s not in auction.passed),
                       auction.current, (high or 0) + rules.auction_increment)
    return None


#: A seat name up to this long heads a column of the share table as it is.
SHORT = 6


def short_names(seats: tuple[str, ...]) -> tuple[str, ...]:
    """Seat names for narrow columns: as they are when short, else each shortened the
    same way -- initials and a short last word ("Player 1": "P1"), or the shortest
    prefix of three letters or more that no other seat shares ("Alexandra": "Ale")."""
    if all(len(seat) <= SHORT for seat in seats):
        return seats

    def initials(seat: str) -> str:
        words = seat.split()
        if len(words) > 1 and len(words[-1]) <= 2:
            return "".join(w[0] for w in words[:-1]) + words[-1]
        return "".join(w[0] for w in words) if len(words) > 1 else seat

    for shorten in (initials, *(lambda seat, n=n: seat[:n] for n in range(3, SHORT + 1))):
        names = tuple(seat if len(seat) <= SHORT else shorten(seat) for seat in seats)
        if len(set(names)) == len(names) and all(len(n) <= SHORT for n in names):
            return names
    return seats


COLOUR_ORDER = ("yellow", "green", "brown", "gray")


def _tiles_left(game: Game) -> tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...]:
    """The tiles still in the supply, by colour (yellow first), in number order."""
    state = game.state
    by_colour: dict[str, list[tuple[str, int | None]]] = {}
    for name, left in state.board.supply.items():
        spec = state.title.tiles.get(name)
        if spec is None or left == 0:
            continue
        by_colour.setdefault(spec.color, []).append((name, left))
    ordered = sorted(by_colour, key=lambda c: (COLOUR_ORDER.index(c)
                                               if c in COLOUR_ORDER else len(COLOUR_ORDER), c))
    return tuple((colour, tuple(sorted(by_colour[colour], key=lambda t: _number(t[0]))))
                 for colour in ordered)


def _number(tile: str) -> tuple[int, str]:
    digits = "".join(c for c in tile if c.isdigit())
    return (int(digits) if digits else 0, tile)


def _trains(game: Game) -> tuple[TrainRow, ...]:
    state = game.state
    title = state.title
    counts: dict[str, int | None] = {}
    for train in state.trains_offered:
        unlimited = title.train(train.name).count is None
        counts[train.name] = None if unlimited else (counts.get(train.name) or 0) + 1
    first = state.trains_offered[0].name if state.trains_offered else None
    rows = []
    for name, left in counts.items():
        spec = title.train(name)
        events = []
        for i, phase in enumerate(title.phases):
            if i <= state.phase_index or phase.starts_on != name:
                continue
            what = [f"{t.name}-trains rust" for t in title.trains
                    if t.rusts_on == phase.name]
            what += [f"{t.name}-trains become obsolete" for t in title.trains
                     if t.obsolete_on == phase.name]
            events.append(f"the {_ordinal(phase.starts_on_nth)} starts phase {phase.name}"
                          + (": " + ", ".join(what) if what else ""))
        rows.append(TrainRow(name, spec.price, left, name == first, tuple(events)))
    return tuple(rows)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
