"""1861: The Railways of the Russian Empire (Ian D Wilson): what its rulebook changes.

Section numbers refer to shared/rules/1861.md. The game is of the 1867 family: the
privates and minor companies are sold by auction (9.2, 9.4; the core's
`rounds/auction_stock.py`), minors pay half their earnings to their owner (10.7),
companies lay a second tile for a fee (10.4), and after each operating round of
phases 3 to 7 comes a merger round (12; `rounds/merger.py`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

from engine import loans, national
from engine.citations import PLAIN, Cite
from engine.dividends import pay_out, withhold
from engine.errors import GameError, require
from engine.family import FamilyRules
from engine.geometry import distance
from engine.market import cell_at
from engine.national import RESERVE
from engine.prices import move_token, place_token
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.merger import MergerRound
from engine.rounds.operating import OperatingRound
from engine.routes import area_name, area_of
from engine.state import BANK, IPO, POOL, TREASURY, Corporation, GameState, Private, money
from engine.title import MarketCell, PhaseSpec, TileSpec, Title
from engine.title.loading import derived_title
from engine.titles import t1861_auctions, t1861_mergers, t1861_rsr
from engine.titles.t1861_rsr import MOSCOW, RSR, ST_PETERSBURG, TRAINLESS

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.rounds.base import Round, Turn
    from engine.state import Train
    from engine.walks import Walk

FINAL_SET = "the first 8-train: this is the last set of operating rounds"  # 13
NEXT_SET = "the first 8-train: the next set of operating rounds is the last"
#: The optimizer's value of a walk that is no route (10.1): never part of a best run.
ILLEGAL_ROUTE = -1_000_000
BANK_BROKEN = "the bank has broken"  # 13: the operating round under way (or next) ends it
TWO_PLUS_TWO = "two_plus_two"
UNLIMITED_TRAINS = "unlimited_trains"
RSR_IN_ST_PETERSBURG = "rsr_in_st_petersburg"
LONG_GAME = "long_game"
PROPOSER_ORDER = "proposer_order"
OPTIONS = {
    TWO_PLUS_TWO: "14.1: two 2+2-trains, available after the first 8-train",
    UNLIMITED_TRAINS: "14.2: unlimited 2+2 and 5+5E trains (18xx.games plays this way)",
    RSR_IN_ST_PETERSBURG: "14.3: the RSR's station in St. Petersburg from the start",
    LONG_GAME: "14.4: the 8-train does not end the game; it ends when the bank breaks",
    PROPOSER_ORDER: "14.5: after an auction the player left of the proposer goes next",
}
PHASE_8_TRAINS = ("5+5E", "2+2")  # 10.10: in phase 8 besides the cheapest new train
EXTRA_LAY_FEE = 20  # 10.4
KIEV = "D14"
KIEV_BROWN_COST = 40  # 10.4 (the map prints it on Kiev)
EKATERINBURG = "Q3"  # 10.6: counts double with Moscow on the route
EKATERINBURG_VALUE = 40
PRIVATE_BONUS = 10  # 7.1: per train running to the private's city


# The core's rules in 1861's words and sections (engine.citations).
CITATIONS: Mapping[str, Cite] = {
    "track_connects": Cite("the track on {hex} must extend a route of {corp}", "10.4"),
    "station_once_per_hex": Cite("{corp} already has a station in {hex}: no more than one "
                                 "Station Marker of any Company may be placed in any hex",
                                 "10.5"),
    "station_space_kept": Cite("no free station space in {hex}: the space left is reserved "
                               "for a Company not yet started", "10.5"),
    "station_connects": Cite("{hex} is not part of a route of {corp}", "10.5"),
    "area_once": Cite("the {train}-train's route reaches the red off-board area {area} "
                      "twice: a route \"may not reach or pass through any small or large "
                      "city or red off-board area more than once\"", "10.1"),
    "separate_tracks": Cite("these routes share track: the routes of a Company's trains may "
                            "not share any track segments", "10.6"),
    "forced_train": Cite("{corp} has no train: \"If the Company has no train, it must buy "
                         "one if it can\" and \"must take out loans, if necessary, in order "
                         "to buy the required train from the Bank or Bank Pool\"", "10.10"),
    "no_president_money": Cite("the Director's money plays no part in {corp}'s train "
                               "purchase; it takes loans", "10.10"),
    "nationalised_for_interest": Cite("{corp}'s turn ended on the way to its {step} step: "
                                      "it was nationalised for interest it could not pay",
                                      "10.8"),
    "loan_taken": Cite(PLAIN["loan_taken"], "10.2"),
    "interest_unpaid": Cite(PLAIN["interest_unpaid"], "10.8"),
    "no_buy_back": Cite("{seat} sold {corp} earlier in this Stock Round and may not buy it",
                        "9.3"),
    "over_limit_buy": Cite("{seat} is over the Certificate Limit and must sell first", "9.3"),
    "over_limit_pass": Cite("{seat} holds {count} certificates, over the Certificate Limit "
                            "of {limit}: he must sell the excess at the first opportunity",
                            "9.3"),
    "bid_at_limit": Cite("{seat} is at the Certificate Limit and may not offer a Minor "
                         "Company for auction or bid", "9.3"),
    "merger_refused": Cite("{seat} does not agree: the merger of {minors} does not take "
                           "place", "12.1"),
    "merger_from_treasury": Cite(PLAIN["merger_from_treasury"], "12.4"),
    "merger_one_share_each": Cite(PLAIN["merger_one_share_each"], "12.4"),
    "merger_no_more": Cite(PLAIN["merger_no_more"], "12.4"),
    "merger_reversed": Cite("no player holds two shares of {corp}: the merger is not "
                            "allowed and is reversed", "12.4"),
}


class Rules1861(FamilyRules):
    citations = CITATIONS
    # The rulebook's "Director" (never "President") and "Bank Pool" (never "Open
    # Market"); new trains come "from the Bank".
    words: ClassVar[Mapping[str, str]] = {"head": "Director", "market": "Bank Pool",
                                          "offering": "Bank", "token": "station marker"}
    half_dividends = True  # 10.7
    sell_in_first_stock_round = True  # 9.1 limits sales by operation, not by round
    sell_after_buy = False  # 9: sales, then one purchase or auction
    yellow_lays_per_turn = 1
    upgrades_per_turn = 1

    def __init__(self, title: Title, options: frozenset[str] = frozenset()) -> None:
        unknown = sorted(options - set(OPTIONS))
        if unknown:
            known = "; ".join(f"{name} ({what})" for name, what in OPTIONS.items())
            raise GameError(f"1861 has no option {', '.join(unknown)}; its options are: "
                            f"{known}")
        if UNLIMITED_TRAINS in options:
            # 14.2: unlimited 2+2 and 5+5E trains
            title = derived_title(title, UNLIMITED_TRAINS, lambda title: dataclasses.replace(
                title, trains=tuple(
                    dataclasses.replace(t, count=None) if t.name in PHASE_8_TRAINS else t
                    for t in title.trains)))
        elif TWO_PLUS_TWO in options:
            # 14.1: two 2+2-trains (offered in phase 8 only, 10.10)
            title = derived_title(title, TWO_PLUS_TWO, lambda title: dataclasses.replace(
                title, trains=tuple(
                    dataclasses.replace(t, count=2) if t.name == "2+2" else t
                    for t in title.trains)))
        super().__init__(title, options)
        # 9.3's par values for each kind of company, read once from the (frozen) market.
        self._par_values = {
            kind: tuple(sorted({c.price for c in title.market.par_cells(kind)}))
            for kind in {c.kind for c in title.corporations}}

    # --- set-up (3) --------------------------------------------------------------------
    def set_up(self, state: GameState, rng: random.Random) -> None:
        """3: the privates start at their minimum bids (7.1, Table 1); the RSR holds
        no certificates and floats never (7.4)."""
        for private in state.privates.values():
            private.price = private.spec.min_bid or private.spec.value
        rsr = state.corporations[RSR]
        rsr.markers |= {RESERVE + ST_PETERSBURG, RESERVE + MOSCOW}  # 7.4
        if RSR_IN_ST_PETERSBURG in self.options:
            t1861_rsr.rsr_home(self, state, rsr)  # 14.3

    def seat_after_auction(self, state: GameState, winner: str, proposer: str) -> str:
        """9.2: the player after the winner; 14.5: after the proposer."""
        return state.next_seat(proposer if PROPOSER_ORDER in self.options else winner)

    def first_round(self, state: GameState) -> Round:
        return AuctionStockRound(state, self)

    def next_round(self, state: GameState, finished: Round) -> Round | None:
        """4: stock round, two operating rounds, each followed in phases 3 to 7 by a
        merger round (12)."""
        if isinstance(finished, AuctionStockRound):
            state.operating_rounds_in_set = self.operating_rounds_after_stock_round(state)
            if state.end_triggered == NEXT_SET:
                state.end_triggered = FINAL_SET
                state.operating_rounds_in_set = 3
            return OperatingRound(state, self, 1)
        if isinstance(finished, OperatingRound):
            if self.game_ends_after_operating_round(state, finished):
                self.end_game(state, state.end_triggered or "end")
                return None
            if self.merger_round_follows(state):
                return MergerRound(state, self, finished.number)
            return self._after_merger(state, finished.number)
        assert isinstance(finished, MergerRound)
        return self._after_merger(state, finished.number)

    def _after_merger(self, state: GameState, number: int) -> Round:
        if number < state.operating_rounds_in_set:
            return OperatingRound(state, self, number + 1)
        return AuctionStockRound(state, self)

    def operating_rounds_after_stock_round(self, state: GameState) -> int:
        return self.phase(state).operating_rounds

    def game_ends_after_operating_round(self, state: GameState, round: Round) -> bool:
        """13: after the last operating round of the final set."""
        assert isinstance(round, OperatingRound)
        if state.end_triggered == BANK_BROKEN:
            return True
        return state.end_triggered == FINAL_SET and \
            round.number >= state.operating_rounds_in_set

    def check_end(self, state: GameState) -> None:
        """13: the bank runs out before the first 8-train (14.4: at any time): a
        stock round is completed and one operating round played, an operating round
        completed. (An 8-train bought meanwhile sets the longer end, 13.)"""
        if state.bank_cash >= 0 or state.end_triggered is not None or state.game_over:
            return
        if int(self.phase(state).name) >= 8 and LONG_GAME not in self.options:
            return
        state.end_triggered = BANK_BROKEN
        state.say("The bank has broken: the game ends after the operating round under "
                  "way, or the next one after a stock round (13)")

    def end_game(self, state: GameState, reason: str) -> None:
        """13: each company's price moves one space left per loan outstanding."""
        for corp in state.corporations.values():
            if corp.loans and corp.sym in state.market.positions and not corp.closed:
                self.move_price(state, corp, "left", corp.loans)
        super().end_game(state, reason)

    def merger_round_follows(self, state: GameState) -> bool:
        return t1861_mergers.merger_round_follows(self, state)

    # --- merger rounds (12) ------------------------------------------------------------
    def merger_candidates(self, state: GameState) -> list[str]:
        return t1861_mergers.merger_candidates(self, state)

    def merger_alias(self, state: GameState, name: str) -> str:
        return t1861_mergers.merger_alias(self, state, name)

    def merger_options(self, state: GameState, sym: str) -> list[str]:
        return t1861_mergers.merger_options(self, state, sym)

    def merger_candidate_actions(self, state: GameState, sym: str) -> list[Action]:
        return t1861_mergers.merger_candidate_actions(self, state, sym)

    def unstarted_publics(self, state: GameState) -> list[str]:
        return t1861_mergers.unstarted_publics(self, state)

    def why_not_convert(self, state: GameState, sym: str) -> str | None:
        return t1861_mergers.why_not_convert(self, state, sym)

    def merge_partners(self, state: GameState, sym: str) -> list[str]:
        return t1861_mergers.merge_partners(self, state, sym)

    def convert(self, state: GameState, minor: str, into: str | None, round: Round) -> str:
        return t1861_mergers.convert(self, state, minor, into, round)

    def merge(self, state: GameState, minors: tuple[str, ...], into: str, round: Round,
              stations: tuple[str, ...] = ()) -> str:
        return t1861_mergers.merge(self, state, minors, into, round, stations)

    def merger_stations(self, state: GameState, order: list[str],
                        named: tuple[str, ...]) -> list[str]:
        return t1861_mergers.merger_stations(self, state, order, named)

    # --- auctions (9.2, 9.4) -----------------------------------------------------------
    def opening_lots(self, state: GameState, round: Round) -> list[str]:
        return t1861_auctions.opening_lots(self, state, round)

    def lower_opening_minimum(self, state: GameState, item: str) -> bool:
        return t1861_auctions.lower_opening_minimum(self, state, item)

    def auction_items(self, state: GameState) -> list[str]:
        return t1861_auctions.auction_items(self, state)

    def auction_target(self, state: GameState, name: str) -> str:
        return t1861_auctions.auction_target(self, state, name)

    def auction_minimum(self, state: GameState, target: str) -> int:
        return t1861_auctions.auction_minimum(self, state, target)

    def why_not_propose(self, state: GameState, seat: str, target: str) -> str | None:
        return t1861_auctions.why_not_propose(self, state, seat, target)

    def win_auction(self, state: GameState, seat: str, target: str, price: int) -> None:
        t1861_auctions.win_auction(self, state, seat, target, price)

    def minor_start_cell(self, state: GameState, price: int) -> MarketCell:
        return t1861_auctions.minor_start_cell(self, state, price)

    # --- stock rounds (9) --------------------------------------------------------------
    def may_sell(self, state: GameState, corp: Corporation, round_number: int) -> str | None:
        """9.1: minors are never sold, nor shares of a company before its first turn."""
        if corp.spec.kind != "major":
            return f"{corp.sym} is a minor company; minors may never be sold (9.1)"
        if not corp.operated:
            return f"{corp.sym} has not yet completed an operating turn (9.1)"
        return None

    def why_not_par(self, state: GameState, corp: Corporation) -> str | None:
        return t1861_auctions.why_not_par(self, state, corp)

    def par_values(self, corp: Corporation) -> tuple[int, ...]:
        """9.3: a public company starts on a red or purple space (R70 to R200)."""
        kind = corp.spec.kind
        if kind not in self._par_values:  # (a company the title does not list)
            return tuple(sorted({c.price for c in self.title.market.par_cells(kind)}))
        return self._par_values[kind]

    def may_par(self, state: GameState, corp: Corporation) -> bool:
        return t1861_auctions.may_par(self, state, corp)

    def end_of_stock_round(self, state: GameState) -> None:
        """9.5: each public company wholly in players' hands rises one row; on the top
        row it moves right and down, to the same price (minors do not move). All move
        at once, keeping their order: the first in operating order goes first."""
        sold_out = [
            c for c in state.corporations.values()
            if c.spec.kind == "major" and c.sym in state.market.positions
            and sum(c.percent_held_by(s) for s in state.seats) == 100
        ]
        for corp in sorted(sold_out, key=lambda c: state.market.order_key(c.sym)):
            row, col = state.market.positions[corp.sym]
            if row == 0 and cell_at(state.market.spec, (1, col + 1)) is not None:
                place_token(state, corp, (1, col + 1))
                state.say(f"{corp.sym} is sold out on the top row: it moves right and "
                          "down, below any markers there (9.5)")
            else:
                self.move_price(state, corp, "up")

    def float_corporation(self, state: GameState, corp: Corporation) -> None:
        """9.3: the Director's payment (twice the price) goes to the treasury, where
        the other shares lie."""
        assert corp.par_price is not None
        corp.floated = True
        corp.operated = False
        corp.token_costs = list(corp.spec.token_costs)
        for cert in corp.certificates_of(IPO):
            cert.owner = TREASURY
        capital = corp.par_price * corp.certificates[0].percent // 10
        state.transfer_cash(BANK, corp.sym, capital)
        state.say(f"{corp.sym} starts with {money(state, capital)}")

    def home_choices(self, state: GameState, sym: str) -> list[str]:
        return t1861_auctions.home_choices(self, state, sym)

    def place_home(self, state: GameState, corp: Corporation, hex_id: str,
                   city: int | None) -> None:
        t1861_auctions.place_home(self, state, corp, hex_id, city)

    def sale_moves_price(self, state: GameState, corp: Corporation, seller: str,
                         president: str) -> bool:
        """9.1: only the Director's sale (the outgoing Director's) moves the price."""
        return seller == president

    def move_price_after_sale(self, state: GameState, corp: Corporation, shares: int) -> None:
        """9.1: one row down, however many shares (on the ledge it stays)."""
        self.move_price(state, corp, "down")

    def why_not_buy_private(self, state: GameState, corp: Corporation, private: Private,
                            price: int, round: Round) -> str | None:
        """7.1: from phase 3 to 5 a company may buy a private from a player for R1 to
        its face value; the RSR buys none."""
        if corp.spec.kind == "national":
            return f"{RSR} does not buy privates"
        if not 3 <= int(self.phase(state).name) <= 5:
            return "companies buy privates in phases 3 to 5 (7.1, 10)"
        if not 1 <= price <= private.spec.value:
            return (f"{private.sym} sells for {money(state, 1)} to its face value "
                    f"{money(state, private.spec.value)} (7.1)")
        return None

    def offer_privates_at_end_of_turn(self, state: GameState, corp: Corporation) -> bool:
        return False

    # --- redeeming stock (10.3) ---------------------------------------------------------
    redeems_at_turn_start = True

    def redeem_in_turn(self, state: GameState, corp: Corporation, count: int) -> None:
        """10.3: a public company buys back shares from the Bank Pool into its
        treasury at the current price, from its own money (no loans)."""
        require(corp.spec.kind == "major", f"{corp.sym} has no shares to redeem; public "
                "companies redeem shares (10.3)")
        pool = corp.certificates_of(POOL)
        price = state.market.price(corp.sym)
        require(count >= 1, "redeem at least one share")
        require(len(pool) >= count, f"the Bank Pool holds {len(pool)} share(s) of "
                f"{corp.sym}; a company redeems only from the Bank Pool (10.3)")
        require(corp.cash >= price * count, f"{corp.sym} has {money(state, corp.cash)}; "
                f"{count} share(s) cost {money(state, price * count)}, and no loan pays "
                "for them (10.3)")
        for cert in pool[:count]:
            cert.owner = TREASURY
        state.transfer_cash(corp.sym, BANK, price * count)
        state.say(f"{corp.sym} redeems {count} share(s) from the Bank Pool for "
                  f"{money(state, price * count)}")

    def step_extras(self, state: GameState, corp: Corporation, step: str, round: Round
                    ) -> list[str]:
        """10.3: at the start of its turn a public may redeem shares from the pool."""
        current = getattr(round, "current", None)
        if step != "track" or corp.spec.kind != "major" or current is None or \
                current.step or current.lay_hexes:
            return []
        price = state.market.price(corp.sym)
        most = min(len(corp.certificates_of(POOL)), corp.cash // price)
        return [f"redeem N (1 to {most}, from the Bank Pool at {money(state, price)} "
                "each)"] if most else []

    def why_not_place_token(self, state: GameState, corp: Corporation) -> str | None:
        return t1861_rsr.why_not_place_token(self, state, corp)

    def token_cost(self, state: GameState, corp: Corporation, hex_id: str) -> int:
        """10.5: the second station costs R20 per hex from the first, the third R40 per
        hex from the nearer (distance in hexes, regardless of track)."""
        placed = [h for h, cities in state.board.tokens.items()
                  for corps in cities.values() if corp.sym in corps]
        if not placed or not corp.token_costs:
            return 0
        per_hex = corp.token_costs[0]
        nearest = min(distance(state.title.grid, h, hex_id) for h in placed)
        return per_hex * nearest

    def token_price_text(self, state: GameState, corp: Corporation) -> str:
        per_hex = corp.token_costs[0] if corp.token_costs else 0
        return f"{money(state, per_hex)} a hex from its nearest station, 10.5"

    def exempt_from_certificate_limit(self, state: GameState, corp: Corporation) -> bool:
        return False

    def holding_limit_exempt(self, state: GameState, corp: Corporation) -> bool:
        return corp.spec.kind != "major"

    # --- operating rounds (10) ---------------------------------------------------------
    def operating_order(self, state: GameState, done: set[str]) -> str | None:
        """10: minors by price, then publics by price, then the RSR (not yet)."""
        for kind in ("minor", "major"):
            waiting = [c.sym for c in state.corporations.values()
                       if c.spec.kind == kind and c.floated and not c.closed
                       and c.sym not in done]
            if waiting:
                return min(waiting, key=state.market.order_key)
        if RSR not in done and self.national_operates(state):
            # 10: the Banker runs it; by mail, the holder of the Priority Deal (as on
            # 18xx.games) declares its run.
            state.corporations[RSR].president = state.priority
            return RSR
        return None

    def national_operates(self, state: GameState) -> bool:
        return t1861_rsr.national_operates(self, state)

    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """The minors' stations were placed when they were sold (9.2); 10.8: interest
        falls due on the loans the company begins its turn with."""
        corp.interest_due = corp.loans
        if corp.sym == RSR:
            t1861_rsr.rsr_home(self, state, corp)

    def after_lay(self, state: GameState, corp: Corporation, hex_id: str, tile: str) -> None:
        t1861_rsr.after_lay(self, state, corp, hex_id, tile)

    def end_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        t1861_rsr.end_of_company_turn(self, state, corp, round)

    offers_only_automatic_dividend = True  # 10.7: a minor (and the RSR) has no choice

    def automatic_dividend(self, state: GameState, corp: Corporation) -> str | None:
        """10.7: a minor pays half to its owner without a choice; the RSR keeps all."""
        if corp.spec.kind == "national":
            return "withhold"
        return "payout" if corp.spec.kind == "minor" else None

    def must_buy_train(self, state: GameState, corp: Corporation) -> bool | None:
        """10.10: a company without a train must buy one if it can, with loans; the
        RSR buys its own at the end of its turn."""
        if corp.spec.kind == "national" or corp.trains:
            return False
        cheapest = self.cheapest_train(state)
        return cheapest is not None and self.train_budget(state, corp) >= cheapest[1]

    def offered_trains(self, state: GameState) -> list[Train]:
        """10.10: the cheapest new train; in phase 8 also a 5+5E or a 2+2."""
        out = state.trains_offered[:1]
        if self.phase(state).name == "8":
            for name in PHASE_8_TRAINS:
                first = next((t for t in state.trains_offered if t.name == name), None)
                if first is not None and first not in out:
                    out.append(first)
        return out

    president_contributes = False  # 10.10: loans, never the Director's money

    def why_not_train_price(self, state: GameState, buyer: Corporation, seller: Corporation,
                            train: Train, price: int) -> str | None:
        """10.10: the RSR buys its trains from the bank (by itself, at its turn's end),
        and no company buys trains from the RSR."""
        if buyer.spec.kind == "national":
            return f"{RSR} buys its trains from the bank only, by itself (10.10)"
        if seller.spec.kind == "national":
            return f"no company buys trains from the {RSR} (10.10)"
        return None

    def train_budget(self, state: GameState, corp: Corporation) -> int:
        """10.2: only a company without a train takes loans for one."""
        return corp.cash if corp.trains else loans.buying_power(self, state, corp)

    def track_budget(self, state: GameState, corp: Corporation) -> int:
        """10.2: loans for track, as many as it may still take (`afford`)."""
        return loans.buying_power(self, state, corp)

    def nationalised_shares(self, state: GameState, corp: Corporation, seat: str) -> int:
        return t1861_rsr.nationalised_shares(self, state, corp, seat)

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """10.7: a minor pays half to its owner, half to its treasury, and moves right
        (up its ceiling column), or left when it earned nothing. A public pays all,
        half (rounded up to R10) or nothing: right when ten times the dividend per
        share reaches the price, left when it pays nothing."""
        if corp.spec.kind == "national":
            withhold(state, corp, revenue)  # 10.7: into its treasury; no price
            return
        if corp.spec.kind == "minor":
            if revenue <= 0:
                self.move_price(state, corp, "left")
                return
            owner = corp.president or ""
            half = revenue // 2
            state.transfer_cash(BANK, owner, half)
            state.transfer_cash(BANK, corp.sym, revenue - half)
            state.say(f"{corp.sym} pays {money(state, half)} to {owner} and keeps "
                      f"{money(state, revenue - half)}")
            if state.market.cell(corp.sym).minor_ceiling:
                self.move_price(state, corp, "up")
            else:
                self.move_price(state, corp, "right")
            return
        if choice == "withhold" or revenue <= 0:
            withhold(state, corp, revenue)
            self.move_price(state, corp, "left")
            return
        paid = revenue if choice == "payout" else -(-revenue // 20) * 10
        pay_out(state, corp, paid, pool_pays_company=False)
        if paid < revenue:
            withhold(state, corp, revenue - paid)
        if paid >= state.market.price(corp.sym):
            self.move_price(state, corp, "right")

    def move_price(self, state: GameState, corp: Corporation, direction: str,
                   times: int = 1) -> None:
        move_token(state, corp, direction, times)

    # --- track (10.4) ------------------------------------------------------------------
    def why_not_lay_count(self, state: GameState, corp: Corporation, kind: str,
                          hex_id: str, yellow_lays: int, upgrades: int,
                          lay_hexes: tuple[str, ...]) -> str | None:
        """10.4: one tile, and for R20 a second in another hex; one upgrade at most;
        10: the RSR lays no track."""
        if corp.spec.kind == "national":
            return f"{RSR} lays no track (10)"
        if len(lay_hexes) >= 2:
            return f"{corp.sym} has laid its two tiles this turn (10.4)"
        if kind == "upgrade" and upgrades:
            return f"{corp.sym} has upgraded a tile this turn; only one lay may be an " \
                   "upgrade (10.4)"
        if hex_id and hex_id in lay_hexes:
            return "the second tile goes in a different hex than the first (10.4)"
        return None

    def lay_fee(self, state: GameState, corp: Corporation, lays_made: int) -> int:
        return EXTRA_LAY_FEE if lays_made >= 1 else 0

    # --- loans (10.2, 10.8, 10.9; engine.loans) -----------------------------------------
    def max_loans(self, state: GameState, corp: Corporation) -> int:
        """10.2: two per minor, five per public, no limit for the RSR."""
        limits = _specific(state, "loans")["max"]
        limit = limits.get(corp.spec.kind)
        return 10**6 if limit in (None, "unlimited") else int(limit)

    def loan_terms(self, state: GameState) -> tuple[int, int]:
        terms = _specific(state, "loans")
        return int(terms["value"]), int(terms["interest"])

    def loan_answer(self, state: GameState, corp: Corporation, action: Action) -> str:
        """10.2, 10.9 leave no choice, so the engine takes and repays loans itself."""
        value, interest = self.loan_terms(state)
        return (f"loans are taken and repaid by the rules themselves: a company takes the "
                f"fewest loans that pay for track, a train it must buy, or interest it "
                f"cannot otherwise pay (10.2: {money(state, value)} each, "
                f"{money(state, interest)} interest), and repays all it can once its "
                f"treasury holds {money(state, value)} (10.9); {corp.sym} has "
                f"{corp.loans} of at most {self.max_loans(state, corp)}")

    def afford(self, state: GameState, corp: Corporation, amount: int, purpose: str) -> None:
        """10.2: loans for track and (for a company without a train) a train from the
        bank, only as many as needed."""
        if purpose == "train" and corp.trains:
            return
        if amount > corp.cash:
            loans.take_loans_for(self, state, corp, amount, purpose)

    def after_dividend(self, state: GameState, corp: Corporation, round: Round) -> None:
        """10.8: interest on the loans the company began its turn with (a company
        that cannot pay it, even with further loans, pays all it has and is
        nationalised at once, 11); 10.9: repay what it can."""
        if not loans.pay_interest(self, state, corp):
            national.nationalise(self, state, corp)
            return
        loans.repay_loans(self, state, corp)

    def upgrade_cost(self, state: GameState, hex_id: str, tile: TileSpec) -> int:
        """10.4: no terrain is paid on upgrades, except Kiev's from green to brown."""
        return KIEV_BROWN_COST if hex_id == KIEV and tile.color == "brown" else 0

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        """8: no track on the Private Company hexes in phase 2."""
        blocked = _specific(state, "private_company_hexes", ())
        if hex_id in blocked and self.phase(state).name == "2":
            return f"{hex_id} is a Private Company hex: no track there before phase 3 (8)"
        return None

    # --- running (10.6) ----------------------------------------------------------------
    def why_not_walk(self, state: GameState, corp: Corporation, train: Train, walk: Walk
                     ) -> str | None:
        """10.1: "For cities such as the St. Petersburg green hex, which have two or more
        separate disconnected spaces, a route may not include two or more such spaces"
        (Moscow's green tile too)."""
        hexes = [s.hex for s in walk.stops]
        if len(set(hexes)) < len(hexes):
            return "a route may not include two separate cities of one hex (10.1)"
        area = _area_twice(state, walk)
        if area is not None:
            return self.cite("area_once", train=train.name, area=area_name(state, area))
        return None

    route_revenue_by_stops = True  # (10.1, 10.6, 7.1: the stops and their hexes)

    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        """10.6: Ekaterinburg counts double with Moscow on the route; 7.1: a private's
        city counts R10 more for its owner; n+n trains double the route. A walk that is
        no route (10.1) is never part of a best run."""
        hexes = {n.hex for n in walk.stops}
        if len(hexes) < len(walk.stops) or _area_twice(state, walk) is not None:
            return ILLEGAL_ROUTE  # (why_not_walk, on the set made here)
        counted = [v for n, v in zip(walk.stops, values, strict=True) if n.kind != "t"]
        towns = sorted((v for n, v in zip(walk.stops, values, strict=True) if n.kind == "t"),
                       reverse=True)
        spec = state.title.train(train.name)
        room = max(0, spec.distance.stops - len(counted))
        total = sum(counted) + sum(towns[:room])  # 10.6: towns skipped when full
        if EKATERINBURG in hexes and MOSCOW in hexes:
            total += EKATERINBURG_VALUE
        for bonus in _specific(state, "revenue_bonuses", ()):
            sym = bonus.get("private")
            if sym is None:
                continue
            private = state.privates.get(sym)
            if private is not None and private.owner == corp.sym and not private.closed \
                    and hexes & set(bonus["hexes"]):
                total += bonus["amount"]
        return total * spec.multiplier

    def route_revenue_bound(self, state: GameState, corp: Corporation, train: Train,
                            values: int) -> int:
        """A bound of `route_revenue` from a bound of its stops' values (optimizer)."""
        bonuses: int = sum(int(bonus["amount"]) for bonus in _specific(state, "revenue_bonuses", ())
                      if bonus.get("private") in state.privates
                      and state.privates[bonus["private"]].owner == corp.sym)
        multiplier: int = state.title.train(train.name).multiplier
        return (values + EKATERINBURG_VALUE + bonuses) * multiplier

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """8, 11: at the start of phases 4 and 6 the minors that have operated without a
        train are nationalised, at phase 6 the privates, at phase 8 every minor (in
        operating order, once obsolete trains are gone)."""
        if phase.name == "8" and LONG_GAME not in self.options:
            # 13: the first 8-train signals the end: in the first operating round of a
            # set, this round and two more; else this set, a stock round and three.
            if state.operating_round_number == 1:
                state.operating_rounds_in_set = 3
                state.end_triggered = FINAL_SET
            else:
                state.end_triggered = NEXT_SET
            state.say("The first 8-train signals the end of the game (13)")
        if phase.name == "6":
            for private in state.privates.values():
                national.nationalise_private(state, private)
        if phase.name in ("4", "6", "8"):
            minors = sorted((c for c in state.corporations.values()
                             if c.spec.kind == "minor" and c.floated and not c.closed
                             and (phase.name == "8" or (c.operated and not c.trains))),
                            key=lambda c: state.market.order_key(c.sym))
            for corp in minors:
                national.nationalise(self, state, corp)
            for corp in state.corporations.values():
                if corp.spec.kind == "major" and corp.floated and corp.operated \
                        and not corp.trains:
                    corp.markers.add(TRAINLESS)
                    state.say(f"{corp.president} may have {corp.sym} nationalised (11)")

    # --- the Director's choice (11) ---------------------------------------------------

    def pending_decision(self, state: GameState) -> Turn | None:
        return t1861_rsr.pending_decision(self, state)

    def decision_options(self, state: GameState) -> list[str]:
        return t1861_rsr.decision_options(self, state)

    def decision_candidates(self, state: GameState) -> list[Action]:
        return t1861_rsr.decision_candidates(self, state)

    def decide(self, state: GameState, seat: str, action: Action, round: Round) -> None:
        t1861_rsr.decide(self, state, seat, action, round)

    # --- game end (13) -----------------------------------------------------------------
    def scores(self, state: GameState) -> dict[str, int]:
        """13: cash, shares at market value, minors at twice their price, privates at
        face value."""
        out: dict[str, int] = {}
        for seat, player in state.players.items():
            value = player.cash
            for corp in state.corporations.values():
                pct = corp.percent_held_by(seat)
                if not pct or corp.sym not in state.market.positions:
                    continue
                price = state.market.price(corp.sym)
                value += 2 * price if corp.spec.kind == "minor" else price * pct // 10
            value += sum(p.spec.value for p in state.privates.values()
                         if p.owner == seat and not p.closed)
            out[seat] = value
        return out


def _specific(state: GameState, key: str, default: Any = None) -> Any:
    """A fact of data/1861.json's title_specific (loans, bonuses, blocked hexes)."""
    return cast("Mapping[str, Any]", state.title.title_specific).get(key, default)


def _area_twice(state: GameState, walk: Walk) -> str | None:
    """10.1: the red off-board area (Poland, the Caucasus, ...: one area of several
    hexes) a walk's stops reach more than once, or None."""
    seen: set[str] = set()
    for stop in walk.stops:
        area = area_of(state, stop)
        if area is not None:
            if area in seen:
                return area
            seen.add(area)
    return None


__all__ = ["Rules1861"]
