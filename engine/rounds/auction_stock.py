"""A stock round in which companies are sold by open auction (1861 9.2, 9.4).

A title switches it on by returning `AuctionStockRound` from `Rules.first_round` and
`Rules.next_round`. Everything of the 1830-family stock round stays (sales, share
purchases, the certificate limit, the Priority Deal); in addition:

- Opening auctions (1861 9.4): while `Rules.opening_lots` names items (the privates,
  in their printed order), each turn is a bid of at least the item's minimum on the
  first of them, or a pass. A full round of passes lowers that minimum
  (`Rules.lower_opening_minimum`); the round cannot end while opening lots remain.
- Proposals (1861 9.2): instead of buying a certificate a player may put a company up
  for auction (`propose M-K at 100`: `StartAuction`, or the site's `bid 100 on M-K`)
  when `Rules.why_not_propose` allows it.
- Either way the auction is open: clockwise from the proposer each player still in
  raises by a multiple of the increment or passes and is out; the last one in wins
  (`Rules.win_auction` carries the purchase out), and the next turn is the player
  after the winner (`Rules.seat_after_auction`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.actions import Action, Bid, Done, Par, Pass, PlaceToken, StartAuction
from engine.errors import GameError, require
from engine.rounds.base import Round, Turn
from engine.rounds.stock import StockRound, StockTurn
from engine.shares import certificate_count
from engine.state import GameState, Private, money

if TYPE_CHECKING:
    from engine.rules import Rules


@dataclass
class Lot:
    """An auction under way: the item, its high bid, and who is still in."""

    target: str
    proposer: str
    high_bidder: str
    high_bid: int
    bidders: list[str]  # still in, in seat order
    current: str


class AuctionStockRound(StockRound):
    def __init__(self, state: GameState, rules: Rules) -> None:
        super().__init__(state, rules)
        self.lot: Lot | None = None
        # A company just started whose Director must now choose its home (1861 9.3).
        self.home_pending: str | None = None

    # --- no 18TN-style private sale: privates are auctioned ----------------------------
    def unsold_privates(self) -> list[Private]:
        return []

    def cheapest(self) -> Private | None:
        return None

    def opening(self) -> str | None:
        """The item the opening auctions are at, if any remain."""
        lots = self.rules.opening_lots(self.state, self)
        return lots[0] if lots else None

    # --- who acts ----------------------------------------------------------------------
    def turn(self) -> Turn | None:
        if self.home_pending is not None:
            corp = self.state.corporation(self.home_pending)
            seat = corp.president or ""
            return Turn(seat, corp.sym, f"place {corp.sym}'s home station")
        lot = self.lot
        if lot is not None:
            return Turn(lot.current, lot.current, f"auction of {lot.target}")
        if self.opening() is not None:
            seat = self.s.current
            return Turn(seat, seat, f"auction of {self.opening()}")
        return super().turn()

    def over(self) -> bool:
        if self.lot is not None or self.opening() is not None or self.home_pending:
            return False
        return super().over()

    # --- legal actions -----------------------------------------------------------------
    def legal(self) -> list[str]:
        state = self.state
        if self.home_pending is not None:
            return [f"token HEX (a free city no track connects: "
                    f"{', '.join(self.rules.home_choices(state, self.home_pending))})"]
        lot = self.lot
        if lot is not None:
            least = lot.high_bid + self.rules.auction_increment
            free = self._purse(lot.current, lot.target)
            if free < least:
                return ["pass"]  # he cannot raise the bid
            return [f"bid {least} (or more, up to {money(state, free)})", "pass"]
        item = self.opening()
        seat = self.s.current
        if item is not None:
            least = self.rules.auction_minimum(state, item)
            free = self._purse(seat, item)
            out = [f"bid {least} on {item} (or more, up to {money(state, free)})"] \
                if free >= least else []
            return [*out, "pass"]
        out = super().legal()
        if self.s.par_pending is None and self.s.proposal is None and \
                not self.s.turn.bought and self.s.auction is None:
            items = self.rules.auction_items(state)
            # (The purse is the same for every minor: counted once, if any is for sale.)
            purse = self._purse(seat, items[0]) if items else 0
            for sym in self._proposable(seat, items, purse):
                least = self.rules.auction_minimum(state, sym)
                out.insert(0, f"propose {sym} at {least} (or more, up to "
                              f"{money(state, purse)})")
        return out

    def lone_pass(self, ignore: tuple[str, ...] = ()) -> str | None:
        if self.home_pending is not None or self.lot is not None or \
                self.opening() is not None:
            return Round.lone_pass(self, ignore)  # (`legal`: a few options at most)
        lone = super().lone_pass(ignore)
        if lone is None or self.s.par_pending is not None or \
                self.s.proposal is not None or self.s.turn.bought or \
                self.s.auction is not None:
            return lone
        # (A minor he may put up for auction is listed before the rest: `legal`.)
        items = self.rules.auction_items(self.state)
        seat = self.s.current
        if items and self._proposable(seat, items, self._purse(seat, items[0])):
            return None
        return lone

    def _proposable(self, seat: str, items: list[str], purse: int) -> list[str]:
        """The `items` (`auction_items`) `seat` may put up for auction, with `purse`
        (`_purse`) to bid."""
        state = self.state
        out = []
        for sym in items:
            if self.rules.why_not_propose(state, seat, sym) is None and \
                    purse >= self.rules.auction_minimum(state, sym):
                out.append(sym)
        return out

    def _purse(self, seat: str, target: str) -> int:
        """What `seat` may bid on `target`: his cash, or nothing at the certificate
        limit (9.3: a player there may not take another certificate)."""
        if certificate_count(self.rules, self.state, seat) >= \
                self.rules.certificate_limit(self.state):
            return 0
        return self.state.player(seat).cash

    # --- processing --------------------------------------------------------------------
    def process(self, seat: str, action: Action) -> None:
        turn = self.turn()
        require(turn is not None, "the stock round is over")
        assert turn is not None
        if self.home_pending is not None:
            require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
            if not isinstance(action, PlaceToken):  # (`legal` only on a refusal)
                raise GameError(f"{seat} must first place {self.home_pending}'s home "
                                "station (`token HEX`)", tuple(self.legal()))
            assert isinstance(action, PlaceToken)
            self.rules.place_home(self.state, self.state.corporation(self.home_pending),
                                  action.hex, action.city)
            self.home_pending = None
            return
        if self.lot is not None:
            require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
            self._lot_action(seat, action)
            return
        item = self.opening()
        if item is not None:
            require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
            self._opening_action(seat, item, action)
            return
        if isinstance(action, StartAuction) or (
                isinstance(action, Bid) and action.target is not None):
            require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
            target = action.target
            assert target is not None
            self._propose_lot(seat, target, action.amount)
            return
        super().process(seat, action)
        if isinstance(action, Par):
            corp = self.state.corporation(action.corporation)
            if self.rules.home_choices(self.state, corp.sym):
                self.home_pending = corp.sym

    def _opening_action(self, seat: str, item: str, action: Action) -> None:
        state = self.state
        if isinstance(action, Pass | Done):
            state.say(f"{seat} passes on {item}")
            self.s.passes += 1
            self.s.current = state.next_seat(seat)
            if self.s.passes >= len(state.seats):
                # 9.4: a full round of passes: the minimum falls; play resumes with the
                # player who began the passes (the one to act now).
                self.s.passes = 0
                if self.rules.lower_opening_minimum(state, item):
                    self._won(self.s.current, item, 0)
            return
        if isinstance(action, Bid | StartAuction):
            target = action.target if action.target is not None else item
            if target != item:
                raise GameError(f"{item} is up for auction now; {target} cannot be bid on "
                                "yet", tuple(self.legal()))
            self._open(seat, item, action.amount)
            return
        raise GameError(f"{item} is up for auction: bid on it or pass", tuple(self.legal()))

    def _propose_lot(self, seat: str, target: str, amount: int) -> None:
        target = self.check_proposal(seat, target, amount, self.legal)
        self._open(seat, target, amount)

    def routes_to_proposal(self, action: Action) -> bool:
        """Whether `process` takes `action` as a proposal (`_propose_lot`): a regular
        turn's `StartAuction` or bid naming a company."""
        return self.home_pending is None and self.lot is None and \
            self.opening() is None and (isinstance(action, StartAuction) or (
                isinstance(action, Bid) and action.target is not None))

    def check_proposal(self, seat: str, target: str, amount: int,
                       listed: Callable[[], list[str]] | None = None) -> str:
        """What `_propose_lot` checks before anything changes (9.2 to 9.4): the target
        it names, or GameError (with `listed()` as the alternatives where the rule
        itself refuses). `legal_actions` asks it of the proposals it lists."""
        state = self.state
        target = self.rules.auction_target(state, target)
        require(self.s.auction is None and self.s.par_pending is None,
                "finish what is under way first")
        require(not self.s.turn.bought,
                f"{seat} has bought this turn; a proposal takes the place of the purchase")
        why = self.rules.why_not_propose(state, seat, target)
        if why:
            raise GameError(why, tuple(listed()) if listed is not None else ())
        self._check_bid(seat, target, amount, self.rules.auction_minimum(state, target))
        return target

    def _open(self, seat: str, target: str, amount: int) -> None:
        state = self.state
        least = self.rules.auction_minimum(state, target)
        self._check_bid(seat, target, amount, least)
        bidders = state.seats_from(seat)
        self.lot = Lot(target, seat, seat, amount, bidders, seat)
        self.s.passes = 0
        state.say(f"{seat} puts {target} up for auction at {money(state, amount)}")
        self._after_bid(seat)

    def _check_bid(self, seat: str, target: str, amount: int, least: int) -> None:
        state = self.state
        step = self.rules.auction_increment
        require(amount % step == 0, f"bids are multiples of {money(state, step)}")
        require(amount >= least, f"the bid on {target} must be at least {money(state, least)}")
        purse = self._purse(seat, target)
        require(purse > 0 or certificate_count(self.rules, state, seat) <
                self.rules.certificate_limit(state),
                self.rules.cite("bid_at_limit", seat=seat))
        require(amount <= purse, f"{seat} has {money(state, purse)}; the bid is "
                f"{money(state, amount)}")

    def _lot_action(self, seat: str, action: Action) -> None:
        lot = self.lot
        assert lot is not None
        state = self.state
        if isinstance(action, Pass | Done):
            lot.bidders.remove(seat)
            state.say(f"{seat} passes in the auction of {lot.target}")
        elif isinstance(action, Bid):
            require(action.target in (None, lot.target),
                    f"the auction under way is for {lot.target}")
            self._check_bid(seat, lot.target, action.amount,
                            lot.high_bid + self.rules.auction_increment)
            lot.high_bidder, lot.high_bid = seat, action.amount
            state.say(f"{seat} bids {money(state, action.amount)} on {lot.target}")
        else:
            raise GameError(f"the auction of {lot.target} is under way: bid or pass",
                            tuple(self.legal()))
        self._after_bid(seat)

    def _after_bid(self, after: str) -> None:
        lot = self.lot
        assert lot is not None
        if lot.bidders == [lot.high_bidder]:
            self.lot = None
            self._won(lot.high_bidder, lot.target, lot.high_bid, lot.proposer)
            return
        for seat in self.state.seats_from(after)[1:]:
            if seat in lot.bidders:
                lot.current = seat
                return

    def _won(self, seat: str, target: str, price: int, proposer: str | None = None) -> None:
        state = self.state
        self.rules.win_auction(state, seat, target, price)
        self.s.last_actor = seat
        self.s.passes = 0
        self.s.turn = StockTurn()
        self.s.current = self.rules.seat_after_auction(state, seat, proposer or seat)


__all__ = ["AuctionStockRound", "Lot"]
