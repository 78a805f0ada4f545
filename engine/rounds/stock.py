"""The stock round (18TN 3), including the private sale while privates remain (3.1).

Turns go clockwise from the Priority Deal holder. While the bank holds unsold
privates a turn is one of: buy the cheapest, bid on another, pass (3.1). After that a
turn is any sales and at most one purchase, the purchase before or after all sales
(3.2). The round ends when every player has passed in a row (3.6).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    Decline,
    DeclineProtection,
    Done,
    Par,
    Pass,
    Protect,
    RedeemShares,
    ReissueShares,
    SellPrivate,
    SellShares,
)
from engine.errors import GameError, require
from engine.rounds import protection
from engine.rounds.base import Round, Turn, lone_pass, not_here
from engine.shares import (
    SOURCE_NAMES,
    buy_certificate,
    can_hold,
    certificate_count,
    check_can_hold,
    check_sale,
    resolve_presidency,
    sell_shares,
)
from engine.state import BANK, IPO, POOL, TREASURY, Corporation, GameState, Private, money

if TYPE_CHECKING:
    from engine.rules import Rules


# What a stock round of the 1830 family knows; title rounds extend it.
STOCK_ACTIONS = (Pass, Done, BuyPrivate, Bid, BuyShares, Par, SellShares, SellPrivate,
                 Accept, Decline, RedeemShares, ReissueShares, Protect, DeclineProtection)


@dataclass
class StockTurn:
    """What the acting player has done so far this turn."""

    bought: bool = False
    sold: bool = False
    sold_before_buying: bool = False
    sold_companies: set[str] = field(default_factory=set)
    # 1850 5.1.1 BROWN AREA: the company whose Open Market shares this turn's purchase
    # took; more of them may follow, one by one, until the player sells or ends his turn.
    several_of: str | None = None


@dataclass
class Auction:
    """18TN 3.1.1: bidders on one private bid in turn until all but one pass."""

    private: str
    bids: dict[str, int]  # seat -> their highest bid so far
    order: list[str]  # participants, clockwise
    current: str
    passes: int = 0
    # Who passed since his last bid: 18TN 3.1.1 lets him bid again; 1850 5.7 and the
    # site (and so a record from it) never give him another turn
    # (docs/site-differences.md).
    passed: set[str] = field(default_factory=set)

    @property
    def high_bidder(self) -> str:
        return max(self.bids, key=lambda s: (self.bids[s], -self.order.index(s)))

    @property
    def high_bid(self) -> int:
        return self.bids[self.high_bidder]


@dataclass
class ParPending:
    """A private whose buyer must set a corporation's par value at once (18TN #5)."""

    seat: str
    corporation: str


@dataclass
class Proposal:
    """A private offered by one player to another, waiting for an answer (3.2(b))."""

    seller: str
    buyer: str
    private: str
    price: int


@dataclass
class Redemption:
    """A company asks a player to let it redeem one of his shares (1850 5.10.4)."""

    corporation: str
    president: str
    holder: str


@dataclass
class StockRoundState:
    current: str
    passes: int = 0
    last_actor: str | None = None
    turn: StockTurn = field(default_factory=StockTurn)
    # Bids placed under 3.1(b), per private, seat -> amount; they reserve the cash.
    bids: dict[str, dict[str, int]] = field(default_factory=dict)
    auction: Auction | None = None
    par_pending: ParPending | None = None
    proposal: Proposal | None = None
    resume_after: str | None = None  # whose turn follows the auctions
    redemption: Redemption | None = None
    # Share price protection (1850 5.9): the seller whose sales wait for answers, and
    # the last president who protected (play resumes to his left, 5.9.6).
    protection_seller: str | None = None
    last_protector: str | None = None
    # What companies did this round (1850 5.10.1, 5.11: once per round each):
    # "redeem:SYM", "reissue:SYM"; and money from reissued shares sold this round,
    # which the company may not spend before the round ends (5.3.1).
    company_actions: set[str] = field(default_factory=set)
    reissue_proceeds: dict[str, int] = field(default_factory=dict)


class StockRound(Round):
    def __init__(self, state: GameState, rules: Rules) -> None:
        super().__init__(state)
        self.rules = rules
        state.stock_round_number += 1
        self.number = state.stock_round_number
        self.s = StockRoundState(current=state.priority)
        self.s.bids = state.private_bids  # bids stay in force across rounds (3.1(b))
        for player in state.players.values():
            player.sold_this_round.clear()
        rules.start_of_stock_round(state, self)
        state.say(f"Stock Round {self.number} begins; {state.priority} has priority")

    @property
    def name(self) -> str:
        return f"Stock Round {self.number}"

    # --- who acts ----------------------------------------------------------------------
    def turn(self) -> Turn | None:
        s = self.s
        if self.over():
            return None
        if s.proposal is not None:
            return Turn(s.proposal.buyer, s.proposal.buyer, f"answer {s.proposal.seller}'s offer")
        if s.redemption is not None:
            r = s.redemption
            return Turn(r.holder, r.holder, f"answer {r.corporation}'s request to redeem a share")
        if s.protection_seller is not None and self.state.pending_sales:
            sale = self.state.pending_sales[0]
            president = protection.protector(self.state, sale)
            return Turn(president, president,
                        f"protect {sale.corporation}'s price or let {sale.seller}'s sale stand")
        if s.par_pending is not None:
            p = s.par_pending
            return Turn(p.seat, p.seat, f"set the par value of {p.corporation}")
        if s.auction is not None:
            return Turn(s.auction.current, s.auction.current, f"auction of {s.auction.private}")
        return Turn(s.current, s.current, "stock turn")

    def over(self) -> bool:
        return self.s.passes >= len(self.state.seats) and self._idle()

    def _idle(self) -> bool:
        s = self.s
        return s.auction is None and s.par_pending is None and s.proposal is None \
            and s.redemption is None and s.protection_seller is None

    # --- privates still in the bank ------------------------------------------------------
    def unsold_privates(self) -> list[Private]:
        # The title lists privates in their printed (numbered) order.
        return [p for p in self.state.privates.values() if p.owner is None and not p.closed]

    def cheapest(self) -> Private | None:
        unsold = self.unsold_privates()
        return unsold[0] if unsold else None

    def reserved(self, seat: str, except_private: str | None = None) -> int:
        """Cash a player has set aside for bids on privates not yet auctioned (3.1(b))."""
        return sum(
            bids[seat] for sym, bids in self.s.bids.items()
            if seat in bids and sym != except_private
        )

    def available(self, seat: str, except_private: str | None = None) -> int:
        return self.state.player(seat).cash - self.reserved(seat, except_private)

    # --- legal actions -----------------------------------------------------------------
    def legal(self) -> list[str]:
        s = self.s
        turn = self.turn()
        if turn is None:
            return []
        if s.proposal is not None or s.redemption is not None:
            return ["accept", "decline"]
        if s.protection_seller is not None and self.state.pending_sales:
            return protection.options(self.state, self.state.pending_sales[0])
        if s.par_pending is not None:
            corp = self.state.corporation(s.par_pending.corporation)
            return [f"par {corp.sym} at {v}" for v in self.rules.par_values(corp)]
        if s.auction is not None:
            a = s.auction
            free = self.available(a.current, a.private)
            if free < a.high_bid + 5:
                return ["pass"]  # he cannot raise the bid
            return [f"bid {a.high_bid + 5} (or more, up to {money(self.state, free)})", "pass"]
        seat = s.current
        cheapest = self.cheapest()
        if cheapest is not None:
            out = []
            price = self.rules.private_price(self.state, cheapest, self.number)
            if self.available(seat) >= price:
                out.append(f"buy {cheapest.sym} (for {money(self.state, price)})")
            for p in self.unsold_privates()[1:]:
                floor = max([p.spec.value, *self.s.bids.get(p.sym, {}).values()])
                # (Raising his own bid frees what that bid set aside.)
                if self.available(seat, p.sym) >= floor + 5:
                    out.append(f"bid {floor + 5} on {p.sym}")
            out.append("pass")
            return out
        return self._regular_legal(seat)

    def lone_pass(self, ignore: tuple[str, ...] = ()) -> str | None:
        # An ordinary stock turn stops at its first option other than a pass.
        s = self.s
        if type(self)._regular_legal is not StockRound._regular_legal or \
                self.turn() is None or s.proposal is not None or \
                s.redemption is not None or s.protection_seller is not None or \
                s.par_pending is not None or s.auction is not None or \
                self.cheapest() is not None:
            return super().lone_pass(ignore)  # (the whole listing: `legal`)
        return lone_pass(self._regular_options(s.current), ignore)

    def _regular_legal(self, seat: str) -> list[str]:
        return list(self._regular_options(seat))

    def _regular_options(self, seat: str) -> Iterator[str]:
        """`_regular_legal`, one option at a time (`lone_pass` stops early)."""
        state, rules = self.state, self.rules
        if not self._acted():
            yield from self._company_legal(seat)
        for corp in state.corporations.values():
            if self._why_not_sell(seat, corp) is None:
                held = corp.percent_held_by(seat)
                yield f"sell {corp.sym} (you hold {held}%)"
        # Counted once: the listing changes nothing.
        have = certificate_count(rules, state, seat)
        limit = rules.certificate_limit(state)
        over_limit = have > limit
        for corp in state.corporations.values():
            if not corp.certificates or \
                    self._why_not_buy(seat, corp, over_limit) is not None:
                continue  # (1861's RSR has no certificates)
            if corp.par_price is None:
                # (Whether the company may be started asked first: it mostly may not, and
                # is cheaper to ask than the par values he can afford.)
                if not self.rules.may_par(state, corp):
                    continue
                pres = corp.certificates[0].percent
                cash = state.player(seat).cash
                values = [v for v in rules.par_values(corp) if v * pres // 10 <= cash]
                if values and self._may_hold(seat, corp, pres, have, limit):
                    yield f"par {corp.sym} at {', '.join(str(v) for v in values)}"
                continue
            if not self._may_hold(seat, corp, 10, have, limit):
                continue
            for source in (IPO, POOL, TREASURY):
                if source == TREASURY and not rules.treasury_shares_for_sale:
                    continue
                if self.s.turn.bought and source != POOL:
                    continue  # more of a brown company: from the Open Market only
                if corp.certificates_of(source) and self._can_afford(seat, corp, source):
                    suffix = "" if source == IPO else f" from {source}"
                    yield f"buy {corp.sym}{suffix}"
        if not (over_limit and self._may_sell_any(seat)):
            yield "pass" if not self._acted() else "done"

    def _may_hold(self, seat: str, corp: Corporation, percent: int, have: int,
                  limit: int | None = None) -> bool:
        """Whether the limits of 3.3 let `seat`, holding `have` certificates that count,
        take one more certificate of `corp` (`limit`: the certificate limit, if asked)."""
        return can_hold(self.rules, self.state, seat, corp, percent, have, limit)

    def _acted(self) -> bool:
        t = self.s.turn
        return t.bought or t.sold

    def _can_afford(self, seat: str, corp: Corporation, source: str) -> bool:
        from engine.shares import next_certificate, price_per_share

        # The certificate a purchase takes: from the pool a plain share before a
        # director's certificate sold into receivership (1825 4.4); from the bank the
        # first in order (1825 4.1: the director's certificate).
        cert = next_certificate(corp, source) if source == POOL else \
            min(corp.certificates_of(source), key=lambda c: c.index)
        assert cert is not None
        price = price_per_share(self.rules, self.state, corp, source) * cert.percent // 10
        return self.state.player(seat).cash >= price

    # --- processing --------------------------------------------------------------------
    def process(self, seat: str, action: Action) -> None:
        turn = self.turn()
        require(turn is not None, "the stock round is over")
        assert turn is not None
        if not isinstance(action, STOCK_ACTIONS) or (
                isinstance(action, Protect | DeclineProtection)
                and not self.rules.price_protection) or (
                isinstance(action, RedeemShares | ReissueShares)
                and not self.rules.companies_act_in_stock_rounds):
            raise not_here(action, self.name, self.state.title.name, self.legal())
        s = self.s
        if s.proposal is not None:
            self._answer_proposal(seat, action)
            return
        if seat != turn.seat:  # (the words made only when refused)
            raise GameError(f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
        if s.redemption is not None:
            self._answer_redemption(seat, action)
            return
        if s.protection_seller is not None:
            self._protection_action(seat, action)
            return
        if s.par_pending is not None:
            if not isinstance(action, Par) or \
                    action.corporation != s.par_pending.corporation:  # (`legal`: refused)
                raise GameError(f"{seat} must first set the par value of "
                                f"{s.par_pending.corporation}", tuple(self.legal()))
            assert isinstance(action, Par)
            self._par(seat, action, after_private=True)
            return
        if s.auction is not None:
            self._auction_action(seat, action)
            return
        if self.cheapest() is not None:
            self._private_sale_turn(seat, action)
            return
        self._regular_turn(seat, action)

    # --- 3.1: while unsold privates remain ------------------------------------------------
    def _private_sale_turn(self, seat: str, action: Action) -> None:
        cheapest = self.cheapest()
        assert cheapest is not None
        # 18TN 3.1.2: taking it is his whole turn; passing or bidding elsewhere is refused.
        takes = isinstance(action, BuyPrivate) or (
            isinstance(action, Bid) and action.target == cheapest.sym)
        require(takes or not self.rules.must_take_private(self.state, seat, self.number, self),
                self.rules.cite("must_take_private", seat=seat, private=cheapest.sym))
        if isinstance(action, Pass | Done):
            self._pass(seat)
            return
        if isinstance(action, BuyPrivate):
            require(action.seller is None, "privates are bought from the bank in a stock round")
            require(action.private == cheapest.sym,
                    f"only the cheapest unsold private, {cheapest.sym}, may be bought; "
                    f"bid on {action.private} instead",
                    (f"buy {cheapest.sym}", f"bid N on {action.private}"))
            price = self.rules.private_price(self.state, cheapest, self.number)
            if action.price is not None:
                require(action.price == price,
                        f"{cheapest.sym} costs {money(self.state, price)} now")
            self._buy_private(seat, cheapest, price)
            self._end_turn(seat)
            self._resolve_auctions(after=seat)
            return
        if isinstance(action, Bid):
            target = action.target
            require(target is not None, "name the private you bid on: bid 45 on MCR")
            assert target is not None
            require(target in self.state.privates, f"there is no private {target}")
            private = self.state.privates[target]
            require(private.owner is None and not private.closed, f"{target} is already sold")
            if target == cheapest.sym:
                # Bidding on the cheapest at its price is buying it (as the site records it).
                price = self.rules.private_price(self.state, cheapest, self.number)
                require(action.amount == price,
                        f"{target} is the cheapest private: buy it for "
                        f"{money(self.state, price)} (`buy {target}`)")
                self._buy_private(seat, cheapest, price)
                self._end_turn(seat)
                self._resolve_auctions(after=seat)
                return
            bids = self.s.bids.setdefault(target, {})
            floor = max([private.spec.value, *bids.values()])
            require(action.amount >= floor + 5,
                    f"a bid on {target} must be at least {money(self.state, floor + 5)} "
                    f"({money(self.state, 5)} over {money(self.state, floor)})")
            require(self.available(seat, target) >= action.amount,
                    f"{seat} has {money(self.state, self.available(seat, target))} not set "
                    f"aside for other bids; the bid is {money(self.state, action.amount)}")
            bids[seat] = action.amount
            self.state.say(f"{seat} bids {money(self.state, action.amount)} on {target}")
            self._end_turn(seat)
            return
        raise GameError(
            f"while the bank holds unsold privates a stock turn is: buy {cheapest.sym}, "
            "bid on another private, or pass", tuple(self.legal()))

    def _buy_private(self, seat: str, private: Private, price: int) -> None:
        require(self.available(seat, private.sym) >= price,
                f"{seat} has {money(self.state, self.available(seat, private.sym))} "
                f"free; {private.sym} costs {money(self.state, price)}")
        check_private_limit(self.rules, self.state, seat)
        self.state.transfer_cash(seat, BANK, price)
        private.owner = seat
        self.s.bids.pop(private.sym, None)
        self.state.say(f"{seat} buys {private.sym} for {money(self.state, price)}")
        corp_sym = self.rules.private_grants_presidency(self.state, private)
        if corp_sym is not None:
            self.s.par_pending = ParPending(seat, corp_sym)
        share_of = self.rules.private_grants_share(self.state, private)
        if share_of is not None:
            corp = self.state.corporation(share_of)
            cert = next(c for c in corp.certificates if c.owner == IPO and not c.president)
            cert.owner = seat
            self.state.say(f"{seat} receives a {cert.percent}% share of {share_of} "
                           f"with {private.sym}")

    def _resolve_auctions(self, after: str) -> None:
        """3.1(a): after a purchase, auction the next privates that have bids."""
        self.s.resume_after = self.s.resume_after or after
        while self.s.par_pending is None and self.s.auction is None:
            nxt = self.cheapest()
            if nxt is None or not self.s.bids.get(nxt.sym):
                break
            bids = self.s.bids[nxt.sym]
            if len(bids) == 1:
                (winner, amount), = bids.items()
                self._buy_private(winner, nxt, amount)
                continue
            order = [s for s in self.state.seats if s in bids]
            auction = Auction(nxt.sym, dict(bids), order, current="")
            high = auction.high_bidder
            auction.current = self._next_bidder(auction, high)
            self.s.auction = auction
            self.state.say(f"{nxt.sym} is auctioned among {', '.join(order)}; "
                           f"high bid {money(self.state, auction.high_bid)} by {high}")
        if self.s.auction is None and self.s.par_pending is None and self.s.resume_after:
            self.s.current = self.state.next_seat(self.s.resume_after)
            self.s.resume_after = None

    def _next_bidder(self, auction: Auction, after: str) -> str:
        """The next participant clockwise; where passing leaves the auction (1850 5.7),
        the next who has not passed."""
        i = auction.order.index(after)
        n = len(auction.order)
        for step in range(1, n + 1):
            seat = auction.order[(i + step) % n]
            if not (self.rules.auction_pass_is_final and seat in auction.passed):
                return seat
        return auction.order[(i + 1) % n]

    def _auction_over(self, auction: Auction) -> bool:
        """18TN 3.1.1: all the others pass in a row; 1850 5.7: "The company for auction
        goes to the player with the highest bid after all other participating players
        have passed", each pass once and for good."""
        if self.rules.auction_pass_is_final:
            return len(set(auction.order) - auction.passed) <= 1
        return auction.passes >= len(auction.order) - 1

    def _auction_action(self, seat: str, action: Action) -> None:
        a = self.s.auction
        assert a is not None
        if isinstance(action, Pass):
            a.passes += 1
            a.passed.add(seat)
            self.state.say(f"{seat} passes in the auction of {a.private}")
        elif isinstance(action, Bid):
            require(action.target in (None, a.private),
                    f"the auction under way is for {a.private}")
            require(action.amount >= a.high_bid + 5,
                    f"a bid must be at least {money(self.state, a.high_bid + 5)}")
            free = self.available(seat, a.private)
            require(free >= action.amount,
                    f"{seat} has {money(self.state, free)} free for this auction")
            a.bids[seat] = action.amount
            a.passes = 0
            a.passed.discard(seat)  # (1850 5.7: he never has the turn after a pass)
            self.state.say(f"{seat} bids {money(self.state, action.amount)} on {a.private}")
        else:
            raise GameError(f"the auction of {a.private} is under way: bid or pass",
                            tuple(self.legal()))
        if self._auction_over(a):
            winner, amount = a.high_bidder, a.high_bid
            self.s.auction = None
            private = self.state.privates[a.private]
            self._buy_private(winner, private, amount)
            self._resolve_auctions(after=self.s.resume_after or winner)
        else:
            a.current = self._next_bidder(a, seat)

    # --- 3.2: regular turns --------------------------------------------------------------
    def _why_not_sell(self, seat: str, corp: Corporation) -> str | None:
        if corp.percent_held_by(seat) == 0:
            return f"{seat} holds no shares of {corp.sym}"
        why = self.rules.may_sell(self.state, corp, self.number)
        if why:
            return why
        t = self.s.turn
        if t.bought and not self.rules.sell_after_buy:
            return "shares are sold before the purchase, not after"
        if t.bought and t.sold_before_buying:
            return self.rules.cite("sales_one_side")
        if self.rules.sell_in_blocks and corp.sym in t.sold_companies:
            return self.rules.cite("one_block", seat=seat, corp=corp.sym, when="this turn")
        try:
            least = self.rules.least_sale_percent(self.state, seat, corp)
            check_sale(self.rules, self.state, seat, corp, least)
        except GameError as exc:
            return exc.message
        return None

    def _why_not_buy(self, seat: str, corp: Corporation, over_limit: bool | None = None
                     ) -> str | None:
        """Why `seat` may not buy `corp` now; `over_limit`: `_over_limit(seat)`, when the
        caller has asked it already."""
        if self.s.turn.bought and self.s.turn.several_of != corp.sym:
            return f"{seat} has already bought a certificate this turn"
        if corp.sym in self.state.player(seat).sold_this_round:
            return self.rules.cite("no_buy_back", seat=seat, corp=corp.sym)
        if self._over_limit(seat) if over_limit is None else over_limit:
            return self.rules.cite("over_limit_buy", seat=seat)
        return None

    def _may_sell_any(self, seat: str) -> bool:
        return any(self._why_not_sell(seat, corp) is None
                   for corp in self.state.corporations.values())

    def _over_limit(self, seat: str) -> bool:
        return certificate_count(self.rules, self.state, seat) > self.rules.certificate_limit(
            self.state)

    def _regular_turn(self, seat: str, action: Action) -> None:
        state = self.state
        t = self.s.turn
        if isinstance(action, Pass | Done):
            # Over the limit he must sell, "if possible"; "if he can sell some stock but
            # not enough ... he must sell what he can" (1851 BUYING STOCK; 18TN 3.3).
            # (The refusal's words made only when refused: a pass is the commonest move.)
            if self._over_limit(seat) and self._may_sell_any(seat):
                raise GameError(self.rules.cite(
                    "over_limit_pass", seat=seat,
                    count=certificate_count(self.rules, state, seat),
                    limit=self.rules.certificate_limit(state)))
            if self._acted():
                self._end_turn(seat)
            else:
                self._pass(seat)
            return
        if isinstance(action, SellShares):
            corp = self._corp(action.corporation)
            percent = _sale_percent(action)
            why = self._why_not_sell(seat, corp)
            if why is not None:
                raise GameError(why)
            sell_shares(self.rules, state, seat, corp, percent)
            t.sold = True
            t.several_of = None  # bought, then sold: the turn's purchases are over
            t.sold_companies.add(corp.sym)
            if not t.bought:
                t.sold_before_buying = True
            self._after_own_action(seat)
            return
        if isinstance(action, Par):
            self._par(seat, action, after_private=False)
            return
        if isinstance(action, BuyShares):
            corp = self._corp(action.corporation)
            why = self._why_not_buy(seat, corp)
            if why:
                raise GameError(why)
            source = action.source or (POOL if t.bought else
                                       self.rules.default_share_source(state, corp))
            require(not t.bought or source == POOL,
                    self.rules.cite("more_from_open_market", corp=corp.sym))
            require(corp.par_price is not None,
                    f"{corp.sym} has not been started; `par {corp.sym} at PRICE` buys its "
                    f"{self.rules.word('head')}'s certificate")
            several = self.rules.may_buy_several(state, corp, source)
            require(action.count == 1 or several, "only one certificate may be bought per turn")
            paid = buy_certificate(self.rules, state, seat, corp, source, action.count)
            t.several_of = corp.sym if several else None
            if self.rules.share_payee(state, corp, source) == corp.sym:
                self.s.reissue_proceeds[corp.sym] = \
                    self.s.reissue_proceeds.get(corp.sym, 0) + paid
            self._after_buy(seat, corp)
            return
        if isinstance(action, SellPrivate):
            self._propose(seat, action)
            return
        if isinstance(action, RedeemShares | ReissueShares):
            self._company_action(seat, action)
            return
        raise not_here(action, self.name, self.state.title.name, self.legal())

    def _par(self, seat: str, action: Par, after_private: bool) -> None:
        state = self.state
        corp = self._corp(action.corporation)
        require(corp.par_price is None, f"{corp.sym} already has a par value")
        if not after_private:
            why = self._why_not_buy(seat, corp)
            if why:
                raise GameError(why)
            why = self.rules.why_not_par(state, corp)
            if why:
                raise GameError(why)
        values = self.rules.par_values(corp)
        require(action.price in values,
                f"par values are {', '.join(money(state, v) for v in values)}",
                tuple(f"par {corp.sym} at {v}" for v in values))
        pos = state.market.par_cell(action.price)
        require(pos is not None, f"the market has no par space at {money(state, action.price)}")
        assert pos is not None
        pres = corp.certificates[0]
        cost = 0 if after_private else action.price * pres.percent // 10
        require(state.player(seat).cash - (0 if after_private else self.reserved(seat)) >= cost,
                f"{seat} has {money(state, state.player(seat).cash)}; the "
                f"{self.rules.word('head')}'s certificate of {corp.sym} costs {money(state, cost)}")
        if not after_private:
            check_can_hold(self.rules, state, seat, corp, pres.percent)
        corp.par_price = action.price
        state.market.place(corp.sym, pos)
        pres.owner = seat
        corp.president = seat
        if cost:
            state.transfer_cash(seat, BANK, cost)
        state.say(f"{seat} pars {corp.sym} at {money(state, action.price)}"
                  + (f" and pays {money(state, cost)}" if cost else ""))
        if after_private:
            self.s.par_pending = None
            self.rules.after_private_par(state, corp)
            self._resolve_auctions(after=self.s.resume_after or seat)
            return
        self._after_buy(seat, corp)

    def _after_buy(self, seat: str, corp: Corporation) -> None:
        t = self.s.turn
        t.bought = True
        if not corp.floated and self.rules.floats(self.state, corp):
            self.rules.float_corporation(self.state, corp)
        self._after_own_action(seat)

    def _after_own_action(self, seat: str) -> None:
        """The turn ends by itself once the player has nothing left to do but pass."""
        self.s.last_actor = seat
        self.s.passes = 0
        legal = [x for x in self._regular_legal(seat) if not x.startswith(("pass", "done"))]
        if self.s.turn.bought and not legal:
            self._end_turn(seat)

    def _end_turn(self, seat: str) -> None:
        self.s.last_actor = seat
        self.s.passes = 0
        self.s.turn = StockTurn()
        self.s.current = self.state.next_seat(seat)
        if self.state.pending_sales:
            self.s.protection_seller = seat
            self._settle_protection()

    def _pass(self, seat: str) -> None:
        self.state.say(f"{seat} passes")
        self.s.passes += 1
        self.s.turn = StockTurn()
        self.s.current = self.state.next_seat(seat)
        if self.over():
            self._finish()

    def _finish(self) -> None:
        state = self.state
        if self.s.last_actor is not None:
            state.priority = state.next_seat(self.s.last_actor)
        self.rules.end_of_stock_round(state)
        state.say(f"Stock Round {self.number} ends; {state.priority} has priority")

    def _corp(self, sym: str) -> Corporation:
        require(sym in self.state.corporations, f"there is no corporation {sym}")
        return self.state.corporations[sym]

    # --- a president acting for his company (1850 5.3, 5.10, 5.11) ------------------------
    def _company_legal(self, seat: str) -> list[str]:
        out: list[str] = []
        state, rules = self.state, self.rules
        for corp in state.corporations.values():
            if corp.president != seat or corp.closed:
                continue
            if rules.why_not_redeem(state, corp, self) is None:
                if corp.certificates_of(POOL):
                    out.append(f"redeem {corp.sym} (from the {rules.word('market')})")
                else:
                    out.append(f"redeem {corp.sym} from PLAYER")
            if rules.why_not_reissue(state, corp, self) is None:
                out.append(f"reissue {corp.sym}")
        return out

    def _company_action(self, seat: str, action: RedeemShares | ReissueShares) -> None:
        state, rules = self.state, self.rules
        require(not self._acted(), rules.cite("company_whole_turn"))
        sym = action.company
        if sym is None:
            mine = [c.sym for c in state.corporations.values() if c.president == seat]
            require(len(mine) == 1, "name the company: `redeem SYM` or `reissue SYM`")
            sym = mine[0]
        corp = self._corp(sym)
        require(corp.president == seat, f"{seat} is not the {rules.word('head')} of {corp.sym}")
        if isinstance(action, ReissueShares):
            why = rules.why_not_reissue(state, corp, self)
            if why:
                raise GameError(why, tuple(self.legal()))
            rules.reissue(state, corp)
            self.s.company_actions.add(f"reissue:{corp.sym}")
            self._end_turn(seat)
            return
        require(action.count == 1, rules.cite("redeem_one"))
        why = rules.why_not_redeem(state, corp, self)
        if why:
            raise GameError(why, tuple(self.legal()))
        source = _redeem_from(rules, state, corp, action.holder)
        why = rules.why_not_redeem_from(state, corp, source)
        if why:
            raise GameError(why)
        if source in (POOL, seat):
            self._redeem(seat, corp, source)
            return
        self.s.redemption = Redemption(corp.sym, seat, source)
        state.say(rules.cite("redeem_ask", corp=corp.sym, holder=source,
                             price=money(state, state.market.price(corp.sym))))

    def _redeem(self, seat: str, corp: Corporation, source: str) -> None:
        self.rules.redeem(self.state, corp, source)
        self.s.company_actions.add(f"redeem:{corp.sym}")
        self._end_turn(seat)

    def _answer_redemption(self, seat: str, action: Action) -> None:
        r = self.s.redemption
        assert r is not None
        corp = self.state.corporation(r.corporation)
        if isinstance(action, Accept):
            self.s.redemption = None
            self._redeem(r.president, corp, r.holder)
        elif isinstance(action, Decline):
            self.s.redemption = None
            self.state.say(self.rules.cite("redeem_refused", seat=seat, corp=corp.sym))
        else:
            raise GameError(f"{seat} must answer {corp.sym}'s request: accept or decline",
                            ("accept", "decline"))

    def may_spend(self, corp: Corporation) -> int:
        """A company's cash less what reissued shares brought this round (5.3.1)."""
        return corp.cash - self.s.reissue_proceeds.get(corp.sym, 0)

    # --- share price protection (1850 5.9) ----------------------------------------------
    def _protection_action(self, seat: str, action: Action) -> None:
        protector = protection.answer(self.rules, self.state, seat, action)
        if protector is not None:
            # 5.9.9: an action for the Priority Deal; 5.9.6: play resumes to his left.
            self.s.last_protector = protector
            self.s.last_actor = protector
        self._settle_protection()

    def _settle_protection(self) -> None:
        """Let stand every sale its president cannot protect; once none waits, play
        goes on left of the last protecting president, or of the seller (5.9.6)."""
        state = self.state
        protection.settle_impossible(self.rules, state)
        if state.pending_sales:
            return
        seller = self.s.protection_seller
        if seller is None:
            return
        self.s.protection_seller = None
        self.s.current = state.next_seat(self.s.last_protector or seller)
        self.s.last_protector = None

    # --- private sales between players (3.2(b)) ------------------------------------------
    def _propose(self, seat: str, action: SellPrivate) -> None:
        state = self.state
        require(action.private in state.privates, f"there is no private {action.private}")
        private = state.privates[action.private]
        why = self.rules.may_sell_private(state, private)
        if why:
            raise GameError(why)
        require(private.owner == seat, f"{seat} does not own {action.private}")
        require(action.buyer in state.players and action.buyer != seat,
                f"{action.buyer} is not another player in this game")
        require(action.price is not None and action.price > 0,
                "a private is sold between players for a positive price")
        assert action.price is not None
        self.s.proposal = Proposal(seat, action.buyer, action.private, action.price)
        state.say(f"{seat} offers {action.private} to {action.buyer} for "
                  f"{money(state, action.price)}")

    def _answer_proposal(self, seat: str, action: Action) -> None:
        p = self.s.proposal
        assert p is not None
        require(seat == p.buyer, f"{p.buyer} must first answer {p.seller}'s offer of {p.private}")
        state = self.state
        if isinstance(action, Decline):
            state.say(f"{seat} declines {p.private}")
        elif isinstance(action, Accept):
            require(state.player(seat).cash >= p.price,
                    f"{seat} has {money(state, state.player(seat).cash)}")
            check_private_limit(self.rules, state, seat)
            state.transfer_cash(seat, p.seller, p.price)
            state.privates[p.private].owner = seat
            state.say(f"{seat} buys {p.private} from {p.seller} for {money(state, p.price)}")
        else:
            raise GameError(f"{seat} must answer the offer of {p.private}: accept or decline",
                            ("accept", "decline"))
        self.s.proposal = None
        if p.seller == self.s.current:
            self.s.turn.sold = True
            self._after_own_action(p.seller)


def check_private_limit(rules: Rules, state: GameState, seat: str) -> None:
    limit = rules.certificate_limit(state)
    have = certificate_count(rules, state, seat)
    require(have < limit, f"{seat} holds {have} certificates; the limit is {limit}")


def _sale_percent(action: SellShares) -> int:
    if action.percent is not None:
        return action.percent
    return 10 * (action.count or 1)


__all__ = ["SOURCE_NAMES", "StockRound", "resolve_presidency"]


def _redeem_from(rules: Rules, state: GameState, corp: Corporation, holder: str | None
                 ) -> str:
    """Where a redeemed share comes from: the Open Market while it holds one (5.10.3)."""
    if corp.certificates_of(POOL):
        require(holder in (None, POOL),
                rules.cite("redeem_open_market_first", corp=corp.sym))
        return POOL
    require(holder is not None and holder != POOL,
            rules.cite("redeem_name_holder", corp=corp.sym))
    assert holder is not None
    require(holder in state.players, f"{holder} is not a player in this game")
    return holder
