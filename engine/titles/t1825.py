"""1825 Unit 1 (Francis Tresham): what its rulebook changes in the core.

Section numbers refer to shared/rules/1825-unit1.txt. Companies run on company credit,
not the bank's money (0, 5.1.2): `GameState.company_credit` keeps payments between the
bank and a company off the bank. Players are dealt privates and LNWR certificates (3);
the bank sells new shares at face value in a fixed order (4.1), second-hand shares at
the market price (1.11); only purchases keep a share dealing round going (4).
Companies form at the start of an operating round once six new shares are sold
(5.1.2), operate in a fixed order (5.1.3), never have to buy trains (5.6), and their
share price moves by income against price (6.3).

A company whose director's certificate is sold with nobody else holding two shares is
in receivership (4.4, 6.4): engine/titles/t1825_receivership.py; the veto of a receiver
who is also a director (6.4.5): engine/titles/t1825_veto.py. Two 2-trains may run
double-headed as one 3-train (5.5.5): `train_sets` offers each way to the optimizer and
to declared runs (`run 2+2: ...`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

from engine.actions import (
    Accept,
    Action,
    BuyPrivate,
    BuyShares,
    Par,
    PlaceToken,
    SellPrivate,
    SellShares,
    SellTrain,
    ShareSource,
    Veto,
)
from engine.board import place_home_token
from engine.citations import Cite
from engine.dividends import pay_out, withhold
from engine.errors import GameError, require
from engine.family import FamilyRules
from engine.geometry import neighbour
from engine.prices import move_token
from engine.rounds.stock import StockRound, StockTurn
from engine.rules import Rules
from engine.shares import (
    certificate_count,
    check_can_hold,
    check_sale,
    remove_from_game,
    resolve_presidency,
)
from engine.state import BANK, IPO, POOL, Corporation, GameState, Private, Train, money
from engine.title import FrozenDict, TileSpec, Title, load_title
from engine.title.loading import derived_title
from engine.titles import t1825_access, t1825_r1, t1825_train_sales, t1825_veto
from engine.titles import t1825_minors as minors
from engine.titles import t1825_receivership as rcv

if TYPE_CHECKING:
    from engine.rounds.base import Round, Turn
    from engine.walks import Walk

LNWR = "LNWR"
PRIVATE_SALE_DISCOUNT = 30  # 1.4, 4.2: privates go to the pool at face value less £30
CERT_LIMIT_PRICE = 50  # 1.9: certificates below £50 do not count
TRAIN_PRICE_STEP = 10  # 5.6.5: trains between companies at any multiple of £10
BANKRUPT_BELOW = 5  # 6.3
FORMING = "forming"  # six new shares sold: forms at the next operating round (4.1)
FORMED = "formed:"  # + its place in the order of formation (5.1.3)
#: The minors' own trains may begin and end at towns (18xx.games' U3 and 4T).
OWN_TRAINS_TO_TOWNS = frozenset({"U3", "4T"})
ILLEGAL_ROUTE = -1_000_000  # the optimizer's value of a walk that is no route (5.5.2)

OPTIONS = {
    "site_figures": "18xx.games' Unit 1 figures: a £5000 bank and the SECR at £71 "
                    "(for records of the site and the differential check)",
    t1825_r1.OPTION: "Regional Kit R1 (Wales): the Welsh hexes, the kit's tiles, a "
                     "£2000 larger bank and a higher certificate limit (18xx.games' r1)",
}


def _site_title(title: Title) -> Title:
    """The title with 18xx.games' bank and SECR face value (data/1825.json decisions
    bank-6000 and secr-par-67)."""
    site = cast("Mapping[str, Any]", title.title_specific.get("site_differences", {}))
    pars = cast("Mapping[str, int]", site.get("par", {}))
    corporations = tuple(dataclasses.replace(c, par=int(pars[c.sym])) if c.sym in pars
                         else c for c in title.corporations)
    # The site holds no hex for a company's track (its blocks_hexes are not checked when
    # a game is loaded, and the recorded R1 game lays in the GWR's V18): nor do we, in
    # its games (docs/site-differences.md; the rulebook reserves none).
    # Nor does it take the gray edge (other units' hexes) for blank sides: track may
    # point at it (the recorded R1 game's LNWR lays tile 52 at R12 towards Q11). Blue
    # is the colour of a hex that takes no tile and blocks no side.
    hexes = FrozenDict((hex_id, dataclasses.replace(
        h, reserved=tuple(r for r in h.reserved if r.kind != "track"),
        color="blue" if h.color == "gray" and h.tile is None else h.color))
        for hex_id, h in title.hexes.items())
    # (The site's bank is £1000 short of ours, kits' additions alike.)
    bank = title.bank + int(site.get("bank", title.bank)) - load_title(title.name).bank
    return dataclasses.replace(title, bank=bank,
                               corporations=corporations, hexes=hexes)


# The core's rules in the words and sections of 1825's Unit 1 rules (engine.citations).
CITATIONS: Mapping[str, Cite] = {
    "track_connects": Cite("no new track on the tile in {hex} could be reached by "
                           "following track from one of {corp}'s Bases", "5.2.4.a"),
    "station_space_kept": Cite("no free station space in {hex}: a Company cannot create a "
                               "Base in an unformed Company's start hex if that would leave "
                               "no space available for it", "5.4"),
    "station_connects": Cite("{hex} is not reachable from one of {corp}'s existing Bases",
                             "5.4"),
    "forced_train": Cite("{corp} has no Trains and a Route a Train could be run upon: it "
                         "must buy a Train as soon as funds permit", "6.4.4"),
    "no_buy_back": Cite("{seat} sold {corp} this round and may not buy it back", "4.3"),
}


class Rules1825(FamilyRules):
    citations = CITATIONS
    # The rulebook's "Director" (never "President"), "Bank Pool" (never "Open Market"),
    # "the Bank" selling new shares and trains (never "Initial Offering") and "Tokens are
    # called Bases" (1.3; its "stations" are the cities).
    words: ClassVar[Mapping[str, str]] = {"head": "Director", "market": "Bank Pool",
                                          "offering": "Bank", "station": minors.BASE,
                                          "token": minors.BASE}
    sell_in_first_stock_round = False  # 4: no selling in the first SDR
    holding_limit_percent = 100  # no limit per company (the site: max_ownership 100)
    pool_limit_percent = 100
    yellow_lays_per_turn = 2  # 5.2.1: two lays or one promotion
    upgrades_per_turn = 1
    least_train_price = 10  # 5.6.5

    def __init__(self, title: Title, options: frozenset[str] = frozenset()) -> None:
        unknown = sorted(options - set(OPTIONS))
        if unknown:
            known = "; ".join(f"{name} ({what})" for name, what in OPTIONS.items())
            raise GameError(f"1825 has no option {', '.join(unknown)}; its options are: "
                            f"{known}")
        if t1825_r1.OPTION in options:
            title = t1825_r1.with_r1(title)
        if "site_figures" in options:
            title = derived_title(title, "site_figures", _site_title)
        super().__init__(title, options)

    # --- 3: set-up ------------------------------------------------------------------------
    def set_up(self, state: GameState, rng: random.Random) -> None:
        """3: one card per player from the privates in ascending value, then the LNWR
        director's certificate and LNWR shares; each player pays its face value. The
        seats are already drawn at random, so dealing them in seating order is the
        rulebook's deal followed by its seating by card."""
        state.company_credit = True
        for corp in state.corporations.values():
            if not minors.is_minor(corp):
                corp.par_price = self.face_value(corp)  # 4.1: face values are printed
        # R1: the minors' own trains are theirs, never the bank's.
        own = minors.reserved_trains(state.title)
        state.trains_offered = [t for t in state.trains_offered if t.name not in own]
        privates = sorted(state.privates.values(), key=lambda p: p.spec.value)
        lnwr = state.corporations[LNWR]
        for i, seat in enumerate(state.seats):
            if i < len(privates):
                private = privates[i]
                private.owner = seat
                state.transfer_cash(seat, BANK, private.spec.value)
                state.say(f"{seat} is dealt {private.sym} and pays "
                          f"{money(state, private.spec.value)}")
                continue
            face = self.face_value(lnwr)
            if LNWR not in state.market.positions:
                self.start_company(state, lnwr)
            cert = next(c for c in sorted(lnwr.certificates, key=lambda c: c.index)
                        if c.owner == IPO)
            cert.owner = seat
            cost = face * cert.percent // 10
            state.transfer_cash(seat, BANK, cost)
            what = "director's certificate" if cert.president else "a share"
            state.say(f"{seat} is dealt the LNWR {what} and pays {money(state, cost)}")
            resolve_presidency(state, lnwr)

    def first_priority(self, state: GameState, rng: random.Random) -> str:
        """3: play begins with the holder of the smallest private, seated first."""
        return state.seats[0]

    def first_round(self, state: GameState) -> Round:
        return ShareDealingRound(state, self)

    def new_stock_round(self, state: GameState) -> Round:
        return ShareDealingRound(state, self)

    def face_value(self, corp: Corporation) -> int:
        if minors.is_minor(corp):  # its director's choice (R1)
            return corp.par_price or 0
        assert corp.spec.par is not None
        return corp.spec.par

    def private_sale_to_bank(self, state: GameState, private: Private) -> int:
        """4.2: face value less £30 (never below nothing)."""
        return max(0, private.spec.value - PRIVATE_SALE_DISCOUNT)

    def start_company(self, state: GameState, corp: Corporation) -> None:
        """The director's certificate is sold: the company's face value is fixed and its
        token marks it on the Share Price Index (the price stays at face value until
        the company operates)."""
        face = self.face_value(corp)
        pos = state.market.par_cell(face)
        assert pos is not None, f"no space at {face} on the Share Price Index"
        state.market.place(corp.sym, pos)

    # --- 4: share dealing rounds ------------------------------------------------------------
    def par_values(self, corp: Corporation) -> tuple[int, ...]:
        if minors.is_minor(corp):
            return minors.par_prices(self.title, corp.sym)
        return (self.face_value(corp),)

    def certificate_limit(self, state: GameState) -> int:
        return self.title.cert_limit[len(state.seats)]

    def exempt_from_certificate_limit(self, state: GameState, corp: Corporation) -> bool:
        """1.9: certificates whose share price is below £50 do not count."""
        return corp.sym in state.market.positions and \
            state.market.price(corp.sym) < CERT_LIMIT_PRICE

    def check_sale(self, state: GameState, seat: str, corp: Corporation, percent: int
                   ) -> None:
        """4.4: with nobody else holding two shares the director's certificate goes
        whole to the pool."""
        if rcv.receivership_sale(state, seat, corp, percent):
            why = rcv.why_not_receivership_sale(state, seat, corp, percent)
            if why:
                raise GameError(why)
            return
        check_sale(self, state, seat, corp, percent)

    def holding_limit_exempt(self, state: GameState, corp: Corporation) -> bool:
        return True

    def move_price_after_sale(self, state: GameState, corp: Corporation, shares: int) -> None:
        """Sales do not move the share price (6.3 moves it only by income)."""

    def end_of_stock_round(self, state: GameState) -> None:
        """No move for sold-out companies (6.3 is the only price change)."""

    def why_not_new_shares(self, state: GameState, corp: Corporation) -> str | None:
        """4.1: unsold privates first; then the companies by face value, highest first,
        those of one face value together; the next face value once any company of the
        last one on sale is fully subscribed."""
        unsold = [p for p in state.privates.values() if p.owner is None and not p.closed]
        if unsold:
            return f"the bank sells the privates first: {unsold[0].sym} is next (4.1)"
        majors = {c.sym: self.face_value(c) for c in state.corporations.values()
                  if not minors.is_minor(c)}
        if minors.is_minor(corp):
            return minors.why_not_on_sale(state, majors)
        face = self.face_value(corp)
        for value in sorted(set(majors.values()), reverse=True):
            if value == face:
                return None
            group = [c for c in state.corporations.values() if majors.get(c.sym) == value]
            if not any(not c.certificates_of(IPO) for c in group):
                names = ", ".join(c.sym for c in group)
                return f"the bank sells no new {corp.sym} shares until {names} " \
                       f"{'is' if len(group) == 1 else 'are'} fully subscribed " \
                       f"(4.1: companies by face value)"
        return None

    def new_share_order(self, state: GameState) -> list[str]:
        """What the bank sells now (reports): the next private, or the companies whose
        new shares are on sale."""
        unsold = [p for p in state.privates.values() if p.owner is None and not p.closed]
        if unsold:
            return [min(unsold, key=lambda p: p.spec.value).sym]
        return [c.sym for c in state.corporations.values() if c.certificates_of(IPO)
                and self.why_not_new_shares(state, c) is None]

    def director_of(self, state: GameState, corp: Corporation) -> str:
        """6.4: a company in receivership decides through its receiver (a discard after a
        phase change may come outside its turn)."""
        if corp.president is None and rcv.in_receivership(corp):
            return rcv.receiver(corp) or rcv.choose_receiver(state, corp)
        return corp.president or ""

    def charter_notes(self, state: GameState, corp: Corporation) -> tuple[str, ...]:
        """Reports: formation, receivership, the leased train, a vote, in words."""
        out = []
        if FORMING in corp.markers:
            out.append("forms at the next operating round (4.1)")
        home = corp.spec.home
        if corp.spec.home_choice and corp.floated and not corp.closed and home is not None \
                and not any(corp.sym in syms
                            for syms in state.board.tokens.get(home, {}).values()):
            out.append(f"its Director chooses the city of {home} for its Base when the "
                       "next operating round begins (R1)")
        if rcv.in_receivership(corp) and minors.is_minor(corp) and \
                minors.idle_in_receivership(state.title):
            out.append(f"in receivership, no receiver: does not operate until a player "
                       f"holds {rcv.director_percent(corp)}% (R1)")
        elif rcv.in_receivership(corp):
            seat = rcv.receiver(corp)
            out.append(f"in receivership, receiver {seat} (6.4)" if seat else
                       "no director: in receivership once it operates (4.4, 6.4)")
        lease = rcv.leased(corp)
        if lease is not None:
            out.append(f"leases the bank's {lease.split('-')[0]}-train this turn (6.4.3)")
        if t1825_veto.voting(state) is corp:
            out.append(f"vote under way on {t1825_veto.describe(t1825_veto.decision(corp))} "
                       "(6.4.5)")
        return tuple(out)

    def position_notes(self, state: GameState) -> list[str]:
        """Reports: what the bank sells new (4.1); a receiver's decision put to the vote
        (6.4.5); the trains offered between companies (5.6.5)."""
        out = []
        order = self.new_share_order(state)
        if order:
            out.append(f"The bank sells new shares of: {', '.join(order)} (4.1)")
        turn = self.pending_decision(state)
        if turn is not None:
            out.append(f"Waiting for {turn.seat} to {turn.step}")
        out += [f"{o.seller} offers {o.buyer} its {o.train}-train for "
                f"{money(state, o.price)}, until {o.seller} operates again (5.6.5)"
                for o in t1825_train_sales.offers(state)]
        return out

    def floats(self, state: GameState, corp: Corporation) -> bool:
        """4.1: six new shares bought by players (the director's certificate is two);
        a minor forms by its money (engine/titles/t1825_minors.py)."""
        if minors.is_minor(corp):
            return False
        return corp.par_price is not None and 100 - corp.ipo_percent >= 60

    def float_corporation(self, state: GameState, corp: Corporation) -> None:
        """4.1: the company forms at the next operating round; the order in which its
        sixth new share was sold is its order of formation (5.1.3)."""
        if FORMING in corp.markers or formation_index(corp) is not None:
            return
        count = sum(1 for c in state.corporations.values()
                    if FORMING in c.markers or formation_index(c) is not None)
        corp.markers.add(FORMING)
        corp.markers.add(f"{FORMED}{count}")
        state.say(f"{corp.sym} has sold six new shares: it forms in the next operating "
                  "round (4.1)")

    def may_sell_private(self, state: GameState, private: Private) -> str | None:
        """4: players deal with the bank, never with each other."""
        return "privates are sold only to the bank (4.2): `sell PRIVATE to bank`"

    def stock_candidates(self, state: GameState, seat: str) -> list[Action]:
        out: list[Action] = []
        for private in state.privates.values():
            if private.closed:
                continue
            if private.owner == seat:
                out.append(SellPrivate(private.sym, BANK))
            elif private.owner in (None, POOL):
                out.append(BuyPrivate(private.sym))
        return out

    # --- 5: operating rounds ------------------------------------------------------------------
    def pay_privates(self, state: GameState) -> None:
        """5.1.1: privates pay their owners; those in the pool pay nobody."""
        for private in state.privates.values():
            if private.closed or private.owner not in state.players or \
                    not private.spec.revenue:
                continue
            assert private.owner is not None
            state.transfer_cash(BANK, private.owner, private.spec.revenue)
            state.say(f"{private.sym} pays {money(state, private.spec.revenue)} "
                      f"to {private.owner}")

    def start_of_operating_round(self, state: GameState, round: Round) -> None:
        """5.1.2: every company with six new shares sold forms: its token on the Share
        Price Index at face value, its first base on its start hex, and company credit
        of ten times its face value."""
        forming = sorted((c for c in state.corporations.values() if FORMING in c.markers),
                         key=lambda c: formation_index(c) or 0)
        for corp in forming:
            corp.markers.discard(FORMING)
            corp.floated = True
            capital = self.face_value(corp) * 10
            state.transfer_cash(BANK, corp.sym, capital)
            state.say(f"{corp.sym} forms with {money(state, capital)} of company credit "
                      "(5.1.2)")
            place_home_token(state, corp, word=self.word("station"))
        # R1: the Taff Vale's director chooses its city in V8 (minors.ask_homes).
        minors.ask_homes(state)

    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """The base was placed at formation (5.1.2); a company without a director is run
        by its receiver (6.4)."""
        if self.idle_turn(state, corp) is None:
            rcv.appoint(state, corp)
        t1825_train_sales.withdraw_all(corp)  # 5.6.5: its offers stand until now

    def idle_turn(self, state: GameState, corp: Corporation) -> str | None:
        """R1: a minor without a director has no receiver (6.4 appoints one for a Major
        Company) and does not operate; its nil income moves its price left (6.3)."""
        if minors.is_minor(corp) and rcv.in_receivership(corp) and \
                minors.idle_in_receivership(state.title):
            return f"{corp.sym} has no director: a minor in receivership does not " \
                   "operate; with no income its price falls (R1, 6.3)"
        return None

    def end_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """6.4.6: a company in receivership pays at the end of its turn."""
        rcv.end_turn(state, corp)

    # --- 6.4: receivership ------------------------------------------------------------------
    def automatic_dividend(self, state: GameState, corp: Corporation) -> str | None:
        """6.4.1: a receiver always withholds."""
        return "withhold" if rcv.in_receivership(corp) else None

    def why_not_run(self, state: GameState, corp: Corporation) -> str | None:
        if rcv.in_receivership(corp) and rcv.must_lease(self, state, corp):
            return f"leasing the bank's next train improves {corp.sym}'s income: the " \
                   "receiver must lease it first (6.4.3): `lease train`"
        return None

    def company_action(self, state: GameState, corp: Corporation, seat: str,
                       action: Action, round: Round) -> bool:
        """5.6.5: a train offered to another company, and the answer to such an offer
        (engine/titles/t1825_train_sales.py)."""
        if isinstance(action, SellTrain):
            t1825_train_sales.offer_train(self, state, corp, action)
            return True
        return t1825_train_sales.answer(state, corp, seat, action, round)

    def resolve_order(self, state: GameState, round: Round, action: Action) -> Action:
        return t1825_train_sales.as_purchase(self, state, round, action)

    def train_sale_agreed(self, state: GameState, buyer: Corporation, seller: Corporation,
                          name: str, price: int) -> bool:
        return t1825_train_sales.take_agreed(state, buyer, seller, name, price)

    def turn_extras(self, state: GameState, corp: Corporation, round: Round) -> list[str]:
        return t1825_train_sales.options(self, state, corp)

    def turn_candidates(self, state: GameState, corp: Corporation) -> list[Action]:
        return t1825_train_sales.candidates(state, corp)

    def hold_for_vote(self, state: GameState, corp: Corporation, seat: str,
                      action: Action, round: Round) -> bool:
        return t1825_veto.put_to_vote(self, state, corp, seat, action, round)

    def pending_decision(self, state: GameState) -> Turn | None:
        """R1: the Taff Vale's home city (asked as the operating round begins); 6.4.5:
        a vote on a receiver's decision."""
        return minors.home_turn(state) or t1825_veto.pending(state)

    def decision_options(self, state: GameState) -> list[str]:
        corp = minors.awaiting_home(state)
        if corp is not None:
            return minors.home_options(state, corp)
        return ["veto", "accept"]

    def decision_candidates(self, state: GameState) -> list[Action]:
        corp = minors.awaiting_home(state)
        if corp is not None:
            return list(minors.home_candidates(state, corp))
        return [Veto(), Accept()]

    def decide(self, state: GameState, seat: str, action: Action, round: Round) -> None:
        corp = minors.awaiting_home(state)
        if corp is not None:
            minors.choose_home(state, corp, seat, action)
            return
        t1825_veto.answer(self, state, seat, action, round)

    def home_default(self, state: GameState) -> Action | None:
        corp = minors.awaiting_home(state)
        if corp is None or corp.spec.home is None:
            return None
        return PlaceToken(corp.spec.home, minors.default_home(state, corp))

    def lease_train(self, state: GameState, corp: Corporation, ran: bool) -> None:
        rcv.lease(self, state, corp, ran)

    def route_step_extras(self, state: GameState, corp: Corporation) -> list[str]:
        if rcv.in_receivership(corp) and rcv.must_lease(self, state, corp):
            return ["lease train (the bank's next train, "
                    f"{money(state, rcv.LEASE_PRICE)} at the end of the turn, 6.4.3)"]
        return []

    def after_dividend(self, state: GameState, corp: Corporation, round: Round) -> None:
        """6.4.3: the leased train goes back to the bank once the company has run."""
        rcv.drop_lease(corp)

    def must_buy_train(self, state: GameState, corp: Corporation) -> bool | None:
        """5.6: no company must buy a train, but one in receivership buys the next new
        train when it has none, the money and a route for it (6.4.4)."""
        return rcv.in_receivership(corp) and rcv.must_buy(self, state, corp)

    def why_not_buy_train(self, state: GameState, corp: Corporation, source: str,
                          name: str, price: int | None) -> str | None:
        own = minors.own_train_kept(state, source, name)
        if own:
            return own
        if rcv.in_receivership(corp):
            return rcv.why_not_buy_train(state, corp, source, name, price)
        return None

    def train_budget(self, state: GameState, corp: Corporation) -> int:
        """6.4.6: a company in receivership keeps what it pays at the end of its turn."""
        return corp.cash - rcv.owed(corp)

    def operating_order(self, state: GameState, done: set[str]) -> str | None:
        """5.1.3: decreasing face value, then the order of formation; it never changes."""
        waiting = [c for c in state.corporations.values()
                   if c.floated and not c.closed and c.sym not in done]
        if not waiting:
            return None
        # R1: the minors after every major, by price chosen, then order of formation.
        return min(waiting, key=lambda c: (minors.is_minor(c), -self.face_value(c),
                                           minors.formation_index(c) if minors.is_minor(c)
                                           else formation_index(c) or 0)).sym

    def train_purchase_forced(self, state: GameState, corp: Corporation) -> bool:
        """5.6: a company with a director never has to buy a train."""
        return False

    def tile_lay_kind(self, state: GameState, hex_id: str, kind: str) -> str:
        """5.2: a tile on a hex without track is a lay, a preprinted yellow hex's green
        tile included; a tile on track is a promotion."""
        if hex_id in state.board.tiles:
            return "upgrade"
        printed = state.title.hexes[hex_id].tile
        return "upgrade" if printed is not None and printed.paths else "yellow"

    def why_not_lay_in_turn(self, state: GameState, corp: Corporation, hex_id: str,
                            kind: str, laid: tuple[str, ...]) -> str | None:
        """5.2.1: the two lays must not be adjacent to each other."""
        grid = state.title.grid
        for other in laid:
            if any(neighbour(grid, hex_id, edge) == other for edge in range(6)):
                return f"{hex_id} is next to {other}, laid this turn: the two tiles " \
                       "must not be adjacent (5.2.1)"
        return None

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        """A company's reserved hex is its own until it lays a tile there (the title's
        decision track-reservations)."""
        if hex_id in state.board.tiles:
            return None
        for r in state.title.hexes[hex_id].reserved:
            if r.kind == "track" and r.by != corp.sym and r.by in state.corporations \
                    and not state.corporations[r.by].closed:
                return f"{hex_id} is reserved for {r.by}'s track until it lays a tile there"
        return None

    def why_not_reached(self, state: GameState, corp: Corporation, hex_id: str,
                        tile: TileSpec, rotation: int) -> str | None:
        """A promotion must add track the company reaches or raise a route its trains
        could run (5.2.4: engine/titles/t1825_access.py)."""
        return t1825_access.why_not_promote(self, state, corp, hex_id, tile, rotation)

    def why_not_walk(self, state: GameState, corp: Corporation, train: Train, walk: Walk
                     ) -> str | None:
        """5.5.2: a route begins and ends at a large station; it visits one station of a
        hex at most (London's six stations are one city)."""
        if (walk.stops[0].kind != "c" or walk.stops[-1].kind != "c") and \
                train.name not in OWN_TRAINS_TO_TOWNS:
            return "a route must begin and end at a large station (5.5.2)"
        hexes = [s.hex for s in walk.stops]
        if len(set(hexes)) < len(hexes):
            return "a route may not visit two stations of one hex"
        return None

    def halts_on(self, state: GameState, walk: Walk) -> tuple[int, ...]:
        return t1825_r1.halts_on(state, walk)

    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        if self.why_not_walk(state, corp, train, walk) is not None:
            return ILLEGAL_ROUTE  # never part of a best run
        # R1: a T-train scores the halts it passes.
        halts = t1825_r1.halts_passed(state, train.name, walk)
        return sum(values) + t1825_r1.HALT_REVENUE * halts

    def train_sets(self, state: GameState, corp: Corporation) -> list[list[Train]]:
        """5.5.5: two 2-trains may run double-headed, on a route legal for a 3-train,
        earning what a 3-train would: every number of such pairs is a way to run."""
        title = state.title
        heads = [t for t in corp.trains if title.train(t.name).double_heads_as]
        others = [t for t in corp.trains if not title.train(t.name).double_heads_as]
        out = []
        for pairs in range(len(heads) // 2 + 1):
            joined = [Train(f"{a.name}+{b.name}", f"{a.id}+{b.id}")
                      for a, b in zip(heads[:2 * pairs:2], heads[1:2 * pairs:2], strict=True)]
            out.append(others + heads[2 * pairs:] + joined
                       if pairs else list(corp.trains))
        return out

    def route_revenue_bound(self, state: GameState, corp: Corporation, train: Train,
                            values: int) -> int:
        return values + t1825_r1.halts_bound(state.title, train.name)

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """5.5.9: 10% of the income to each share held by a player, or all withheld as
        company credit; 6.3: the price moves by income against price."""
        require(choice != "payout" or not rcv.in_receivership(corp),
                f"{corp.sym} is in receivership: its income is always withheld (6.4.1)",
                ("withhold",))
        price = state.market.price(corp.sym)
        if choice == "payout" and revenue > 0:
            pay_out(state, corp, revenue, pool_pays_company=False)
            if 2 * revenue <= price:
                state.say(f"{corp.sym}'s income is not above half its price: the price "
                          "stays (6.3)")
                return
            move_token(state, corp, "right", min(4, max(1, revenue // price)))
            self.check_market_end(state, corp)
            return
        require(revenue <= 0 or rcv.in_receivership(corp)  # 6.4.1: even so
                or not self.closes_on_withholding(state, corp),
                f"withholding {money(state, revenue)} would make {corp.sym} bankrupt; a "
                "director may not do that (6.3): pay it out")
        withhold(state, corp, revenue)
        move_token(state, corp, "left")
        if state.market.price(corp.sym) < BANKRUPT_BELOW:
            bankrupt_company(state, corp)

    def dividend_choices(self, state: GameState, corp: Corporation, revenue: int
                         ) -> list[str]:
        """6.3: no director withholds a company into bankruptcy; 6.4.1: a receiver always
        withholds."""
        if rcv.in_receivership(corp):
            return ["withhold"]
        if revenue > 0 and self.closes_on_withholding(state, corp):
            return ["pay"]
        return ["pay", "withhold"]

    def closes_on_withholding(self, state: GameState, corp: Corporation) -> bool:
        """6.3: a company at £5 that earns nothing is bankrupt at its dividend step."""
        return corp.sym in state.market.positions and \
            state.market.price(corp.sym) < 2 * BANKRUPT_BELOW

    def why_not_train_price(self, state: GameState, buyer: Corporation, seller: Corporation,
                            train: Train, price: int) -> str | None:
        """5.6.5: any multiple of £10 the directors agree."""
        if rcv.in_receivership(seller):
            return f"{seller.sym} is in receivership and may never sell a train (6.4.4)"
        if rcv.in_receivership(buyer):
            why = rcv.why_not_buy_train(state, buyer, seller.sym, train.name, price)
            if why:
                return why
        if price < TRAIN_PRICE_STEP or price % TRAIN_PRICE_STEP:
            return f"a train changes companies for a multiple of " \
                   f"{money(state, TRAIN_PRICE_STEP)} (5.6.5)"
        return None

    def why_not_buy_private(self, state: GameState, corp: Corporation, private: Private,
                            price: int, round: Round) -> str | None:
        return "companies do not buy privates in 1825"

    # --- 2: game end ----------------------------------------------------------------------
    def check_market_end(self, state: GameState, corp: Corporation) -> None:
        """2: a share price at the maximum ends the game after the current OR."""
        if state.market.cell(corp.sym).zone == "end" and state.end_triggered is None:
            state.end_triggered = "market"
            state.say(f"{corp.sym} reaches the top of the Share Price Index: the game ends "
                      "after this operating round (2)")

    def check_end(self, state: GameState) -> None:
        """2: the bank breaks: the game ends after the current OR (or the next one when
        it breaks in a share dealing round)."""
        if state.bank_cash < 0 and state.end_triggered is None:
            state.end_triggered = "bank"
            state.say("The bank has broken: the game ends after the current (or next) "
                      "operating round (2)")


def formation_index(corp: Corporation) -> int | None:
    for marker in corp.markers:
        if marker.startswith(FORMED):
            return int(marker[len(FORMED):])
    return None


def bankrupt_company(state: GameState, corp: Corporation) -> None:
    """6.3: below £5 the company is bankrupt: its trains go back to the bank for resale,
    its bases and shares leave the game."""
    remove_from_game(state, corp)
    state.say(f"{corp.sym}'s share price falls below {money(state, BANKRUPT_BELOW)}: it is "
              "bankrupt; its trains return to the bank, its Bases and shares leave the "
              "game (6.3)")


class ShareDealingRound(StockRound):
    """4: a turn is any sales and at most one purchase (sales before and after it);
    only purchases keep the round going and decide the Priority Deal."""

    def __init__(self, state: GameState, rules: Rules) -> None:
        super().__init__(state, rules)
        self.bought_now: set[str] = set()  # 4.3: bought this turn, not sold in it
        # The company whose share was the turn's last action, if a purchase (18xx.games
        # then refuses its sale; after any other action it takes one: the export).
        self.last_bought: str | None = None

    @property
    def name(self) -> str:
        return f"Stock Round {self.number}"  # the share dealing round (4)

    @property
    def r(self) -> Rules1825:
        assert isinstance(self.rules, Rules1825)
        return self.rules

    def cheapest(self) -> Private | None:
        """The bank's privates are bought in an ordinary turn (4.1), never auctioned."""
        return None

    # --- what a player may do -------------------------------------------------------------
    def _why_not_sell(self, seat: str, corp: Corporation) -> str | None:
        """4, 4.3: no sales in the first round; not a company bought this turn; sales
        before and after the purchase."""
        if corp.percent_held_by(seat) == 0:
            return f"{seat} holds no shares of {corp.sym}"
        why = self.rules.may_sell(self.state, corp, self.number)
        if why:
            return why + " (4)"
        if corp.sym in self.bought_now:
            return f"{seat} bought {corp.sym} this turn and may not sell it in the same " \
                   "turn (4.3)"
        try:
            check_sale(self.rules, self.state, seat, corp, 10)
        except GameError as exc:
            # 4.4: the director's certificate goes whole to the pool when nobody else
            # holds two shares.
            need = rcv.director_percent(corp)
            if rcv.receivership_sale(self.state, seat, corp, need) and \
                    rcv.why_not_receivership_sale(self.state, seat, corp, need) is None:
                return None
            return exc.message
        return None

    def _why_not_buy(self, seat: str, corp: Corporation, over_limit: bool | None = None
                     ) -> str | None:
        if self.s.turn.bought:
            return f"{seat} has already bought a certificate this turn"
        if corp.closed:
            return f"{corp.sym} is bankrupt and out of the game"
        if corp.sym in self.state.player(seat).sold_this_round:
            return f"{seat} sold {corp.sym} this round and may not buy it back (4.3)"
        return None

    def _regular_legal(self, seat: str) -> list[str]:
        state = self.state
        out = []
        for line in super()._regular_legal(seat):
            words = line.split()
            if words[0] == "par" and len(words) > 1 and words[1] in state.corporations and \
                    self.r.why_not_new_shares(state, state.corporations[words[1]]):
                continue  # R1: a minor not on sale yet (4.1's order)
            if words[0] == "buy" and len(words) == 2 and words[1] in state.corporations:
                corp = state.corporations[words[1]]  # a new share (4.1)
                if self.r.why_not_new_shares(state, corp) is not None:
                    continue
                if corp.certificates[0].owner == IPO:
                    line = f"buy {corp.sym} (the director's certificate, " \
                           f"{money(state, self.r.face_value(corp) * 2)})"
            out.append(line)
        if not self.s.turn.bought:
            for private in state.privates.values():
                if private.owner in (None, POOL) and not private.closed and \
                        self._why_not_buy_private(seat, private) is None:
                    out.insert(0, f"buy {private.sym} ({money(state, private.spec.value)})")
        for private in state.privates.values():
            if private.owner == seat and self._why_not_sell_private(seat, private) is None:
                price = self.r.private_sale_to_bank(state, private)
                out.insert(0, f"sell {private.sym} to bank ({money(state, price)})")
        return out

    def _why_not_buy_private(self, seat: str, private: Private) -> str | None:
        state = self.state
        if self.s.turn.bought:
            return f"{seat} has already bought a certificate this turn"
        if private.owner is None:
            unsold = [p for p in state.privates.values() if p.owner is None and not p.closed]
            cheapest = min(unsold, key=lambda p: p.spec.value)
            if cheapest.sym != private.sym:
                return f"the bank sells its privates in ascending order: {cheapest.sym} " \
                       "first (4.1)"
        elif private.owner != POOL:
            return f"{private.sym} belongs to {private.owner}"
        if f"private:{private.sym}" in state.player(seat).sold_this_round:
            return f"{seat} sold {private.sym} this round and may not buy it back (4.3)"
        if state.player(seat).cash < private.spec.value:
            return f"{seat} has {money(state, state.player(seat).cash)}; {private.sym} " \
                   f"costs {money(state, private.spec.value)}"
        if self._over_limit(seat) or self._certificates(seat) >= \
                self.rules.certificate_limit(state):
            return f"{seat} is at the certificate limit"
        return None

    def _why_not_sell_private(self, seat: str, private: Private) -> str | None:
        if private.owner != seat:
            return f"{seat} does not own {private.sym}"
        if self.number == 1:
            return "nothing may be sold in the first share dealing round (4)"
        return None

    def _certificates(self, seat: str) -> int:
        return certificate_count(self.rules, self.state, seat)

    # --- acting ------------------------------------------------------------------------------
    def _regular_turn(self, seat: str, action: Action) -> None:
        self._turn_action(seat, action)
        if isinstance(action, BuyShares | Par | BuyPrivate | SellShares | SellPrivate):
            self.last_bought = action.corporation if isinstance(action, BuyShares | Par) \
                else None

    def _turn_action(self, seat: str, action: Action) -> None:
        state = self.state
        corp_sym = getattr(action, "corporation", None)
        corp_now = state.corporations.get(corp_sym) if isinstance(corp_sym, str) else None
        was = corp_now is not None and rcv.in_receivership(corp_now)
        self._dealing_action(seat, action)
        if corp_now is not None:
            rcv.end_of_receivership(state, corp_now, was)

    def _dealing_action(self, seat: str, action: Action) -> None:
        state = self.state
        if isinstance(action, SellShares):
            corp = self._corp(action.corporation)
            percent = action.percent if action.percent is not None \
                else 10 * (action.count or 1)
            if rcv.receivership_sale(state, seat, corp, percent):
                why = self._why_not_sell(seat, corp)
                if why:
                    raise GameError(why)
                rcv.sell_into_receivership(state, seat, corp, percent)
                t = self.s.turn
                t.sold = True
                t.sold_companies.add(corp.sym)
                if not t.bought:
                    t.sold_before_buying = True
                self._after_own_action(seat)
                return
        if isinstance(action, BuyShares | Par):
            corp = self._corp(action.corporation)
            source: ShareSource | None = action.source if isinstance(action, BuyShares) \
                else "ipo"
            if source is None:
                source = "ipo" if corp.certificates_of(IPO) else "pool"
            if source == IPO:
                why = self.r.why_not_new_shares(state, corp)
                if why:
                    raise GameError(why, tuple(self.legal()))
            if minors.is_minor(corp) and source == IPO:
                self._buy_minor(seat, corp, action)
                return
            if corp.certificates[0].owner == IPO and source == IPO:
                # The bank's first new share is the director's certificate (4.1).
                face = self.r.face_value(corp)
                require(not isinstance(action, Par) or action.price == face,
                        f"{corp.sym}'s face value is {money(state, face)}",
                        (f"buy {corp.sym}",))
                self._buy_director(seat, corp)
                return
            require(not isinstance(action, Par), f"{corp.sym}'s director's certificate is "
                    "sold; buy its shares", (f"buy {corp.sym}",))
            assert isinstance(action, BuyShares)
            super()._regular_turn(seat, dataclasses.replace(action, source=source))
            if self.s.turn.bought:
                self.bought_now.add(corp.sym)
            return
        if isinstance(action, BuyPrivate):
            self._buy_bank_private(seat, action)
            return
        if isinstance(action, SellPrivate):
            self._sell_private(seat, action)
            return
        super()._regular_turn(seat, action)

    def _buy_minor(self, seat: str, corp: Corporation, action: BuyShares | Par) -> None:
        """R1: a minor's director's certificate at the price its director chooses, or a
        new share; what is paid is the minor's money, and it forms once that covers its
        own train (engine/titles/t1825_minors.py)."""
        state = self.state
        why = self._why_not_buy(seat, corp)
        if why:
            raise GameError(why)
        if corp.certificates[0].owner == IPO:
            require(isinstance(action, Par), f"{corp.sym}'s director chooses its price: "
                    f"`par {corp.sym} at PRICE`", tuple(self.legal()))
            assert isinstance(action, Par)
            check_can_hold(self.rules, state, seat, corp, minors.DIRECTOR_PERCENT)
            minors.buy_director(state, seat, corp, action.price)
            self.bought_now.add(corp.sym)
            self._after_buy(seat, corp)
        else:
            require(not isinstance(action, Par), f"{corp.sym}'s director's certificate is "
                    "sold; buy its shares", (f"buy {corp.sym}",))
            assert isinstance(action, BuyShares)
            before = state.player(seat).cash
            super()._regular_turn(seat, dataclasses.replace(action, source="ipo"))
            minors.credit(state, corp, before - state.player(seat).cash)
            if self.s.turn.bought:
                self.bought_now.add(corp.sym)
        minors.check_formation(self.rules, state, corp)

    def _buy_director(self, seat: str, corp: Corporation) -> None:
        state = self.state
        why = self._why_not_buy(seat, corp)
        if why:
            raise GameError(why)
        pres = corp.certificates[0]
        cost = self.r.face_value(corp) * pres.percent // 10
        require(state.player(seat).cash >= cost,
                f"{seat} has {money(state, state.player(seat).cash)}; {corp.sym}'s "
                f"director's certificate costs {money(state, cost)}")
        check_can_hold(self.rules, state, seat, corp, pres.percent)
        self.r.start_company(state, corp)
        pres.owner = seat
        corp.president = seat
        state.transfer_cash(seat, BANK, cost)
        state.say(f"{seat} buys {corp.sym}'s director's certificate for {money(state, cost)}")
        self.bought_now.add(corp.sym)
        self._after_buy(seat, corp)

    def _buy_bank_private(self, seat: str, action: BuyPrivate) -> None:
        state = self.state
        require(action.private in state.privates, f"there is no private {action.private}")
        private = state.privates[action.private]
        require(action.seller in (None, BANK, POOL), "privates are bought from the bank "
                "in a share dealing round")
        why = self._why_not_buy_private(seat, private)
        if why:
            raise GameError(why, tuple(self.legal()))
        price = private.spec.value
        require(action.price in (None, price),
                f"the bank sells {private.sym} at its face value, {money(state, price)}")
        state.transfer_cash(seat, BANK, price)
        private.owner = seat
        state.say(f"{seat} buys {private.sym} from the bank for {money(state, price)}")
        self.s.turn.bought = True
        self._after_own_action(seat)

    def _sell_private(self, seat: str, action: SellPrivate) -> None:
        state = self.state
        require(action.buyer in (BANK, POOL), "privates are sold to the bank (4.2): "
                f"`sell {action.private} to bank`")
        require(action.private in state.privates, f"there is no private {action.private}")
        private = state.privates[action.private]
        why = self._why_not_sell_private(seat, private)
        if why:
            raise GameError(why)
        price = self.r.private_sale_to_bank(state, private)
        require(action.price in (None, price),
                f"the bank pays {money(state, price)} for {private.sym} (face value less "
                f"{money(state, PRIVATE_SALE_DISCOUNT)}, 4.2)")
        private.owner = POOL
        state.transfer_cash(BANK, seat, price)
        state.player(seat).sold_this_round.add(f"private:{private.sym}")
        state.say(f"{seat} sells {private.sym} to the bank for {money(state, price)}")
        self.s.turn.sold = True
        self._after_own_action(seat)

    def _after_own_action(self, seat: str) -> None:
        """Only a purchase keeps the round going and moves the Priority Deal (4). The
        turn ends with the player's `done` (by mail, `done` is sent for him when it is
        all he may do)."""
        if self.s.turn.bought:
            self.s.last_actor = seat
            self.s.passes = 0

    def _end_turn(self, seat: str) -> None:
        """4: a turn without a purchase counts as a pass for the end of the round."""
        bought = self.s.turn.bought
        self.s.turn = StockTurn()
        self.bought_now = set()
        self.last_bought = None
        self.s.current = self.state.next_seat(seat)
        if bought:
            self.s.last_actor = seat
            self.s.passes = 0
            return
        self.s.passes += 1
        if self.over():
            self._finish()

    def _pass(self, seat: str) -> None:
        self.bought_now = set()
        super()._pass(seat)

    def _finish(self) -> None:
        state = self.state
        if self.s.last_actor is not None:
            state.priority = state.next_seat(self.s.last_actor)
        state.say(f"Share Dealing Round {self.number} ends; {state.priority} has the "
                  "Priority Deal")


__all__ = ["OPTIONS", "Rules1825", "ShareDealingRound"]
