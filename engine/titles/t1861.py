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
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from engine.citations import PLAIN, Cite
from engine.errors import GameError
from engine.family import FamilyRules
from engine.shares import money, move_token
from engine.state import BANK, CLOSED, TREASURY, Corporation, GameState, Private
from engine.title import MarketCell, PhaseSpec, TileSpec, Title

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.rounds.base import Round, Turn
    from engine.routes import Walk
    from engine.state import Train
    from engine.track import Track

TRAINLESS = "trainless: may be nationalised"  # 11: the Director decides
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
NIKOLAEV = "N"  # 9.4: the first minor auctioned
MINOR_MINIMUM = 100  # 9.2
MINOR_PAR_CEILING = 135  # 9.2: the marker goes on R50 to R135
EXTRA_LAY_FEE = 20  # 10.4
MOSCOW = "H8"
KIEV = "D14"
KIEV_BROWN_COST = 40  # 10.4 (the map prints it on Kiev)
ST_PETERSBURG = "E1"
RSR = "RSR"
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
            title = dataclasses.replace(title, trains=tuple(
                dataclasses.replace(t, count=None) if t.name in PHASE_8_TRAINS else t
                for t in title.trains))
        elif TWO_PLUS_TWO in options:
            # 14.1: two 2+2-trains (offered in phase 8 only, 10.10)
            title = dataclasses.replace(title, trains=tuple(
                dataclasses.replace(t, count=2) if t.name == "2+2" else t
                for t in title.trains))
        super().__init__(title, options)
        # 9.3's par values for each kind of company, read once from the (frozen) market.
        self._par_values = {
            kind: tuple(sorted({c.price for c in title.market.par_cells(kind)}))
            for kind in {c.kind for c in title.corporations}}

    # --- set-up (3) --------------------------------------------------------------------
    def set_up(self, state: GameState, rng: random.Random) -> None:
        """3: the privates start at their minimum bids (7.1, Table 1); the RSR holds
        no certificates and floats never (7.4)."""
        from engine.national import RESERVE

        for private in state.privates.values():
            private.price = private.spec.min_bid or private.spec.value
        rsr = state.corporations[RSR]
        rsr.markers |= {RESERVE + ST_PETERSBURG, RESERVE + MOSCOW}  # 7.4
        if RSR_IN_ST_PETERSBURG in self.options:
            self._rsr_home(state, rsr)  # 14.3

    def seat_after_auction(self, state: GameState, winner: str, proposer: str) -> str:
        """9.2: the player after the winner; 14.5: after the proposer."""
        return state.next_seat(proposer if PROPOSER_ORDER in self.options else winner)

    def first_round(self, state: GameState) -> Round:
        from engine.rounds.auction_stock import AuctionStockRound

        return AuctionStockRound(state, self)

    def next_round(self, state: GameState, finished: Round) -> Round | None:
        """4: stock round, two operating rounds, each followed in phases 3 to 7 by a
        merger round (12)."""
        from engine.rounds.auction_stock import AuctionStockRound
        from engine.rounds.merger import MergerRound
        from engine.rounds.operating import OperatingRound

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
        from engine.rounds.auction_stock import AuctionStockRound
        from engine.rounds.operating import OperatingRound

        if number < state.operating_rounds_in_set:
            return OperatingRound(state, self, number + 1)
        return AuctionStockRound(state, self)

    def operating_rounds_after_stock_round(self, state: GameState) -> int:
        return self.phase(state).operating_rounds

    def game_ends_after_operating_round(self, state: GameState, round: Round) -> bool:
        """13: after the last operating round of the final set."""
        from engine.rounds.operating import OperatingRound

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
        """12: after each operating round of phases 3 to 7."""
        return 3 <= int(self.phase(state).name) <= 7

    # --- merger rounds (12) ------------------------------------------------------------
    def merger_candidates(self, state: GameState) -> list[str]:
        """12.1: each minor, in operating order."""
        minors = [c.sym for c in state.corporations.values()
                  if c.spec.kind == "minor" and c.floated and not c.closed]
        return sorted(minors, key=state.market.order_key)

    def merger_alias(self, state: GameState, name: str) -> str:
        return self.auction_target(state, name)

    def merger_options(self, state: GameState, sym: str) -> list[str]:
        free = ", ".join(self.unstarted_publics(state))
        out = []
        if self.why_not_convert(state, sym) is None:
            out.append(f"convert {sym} into PUBLIC ({free})")
        partners = self.merge_partners(state, sym)
        if partners:
            out.append(f"merge {sym} with any of {', '.join(partners)} into PUBLIC ({free})")
        return out

    def merger_candidate_actions(self, state: GameState, sym: str) -> list[Action]:
        from engine.actions import Convert, Merge

        publics = self.unstarted_publics(state)[:1]
        out: list[Action] = [Convert(sym, into) for into in publics]
        out += [Merge((sym, other), into) for other in self.merge_partners(state, sym)
                for into in publics]
        return out

    def unstarted_publics(self, state: GameState) -> list[str]:
        return [c.sym for c in state.corporations.values()
                if c.spec.kind == "major" and c.president is None and not c.floated]

    def why_not_convert(self, state: GameState, sym: str) -> str | None:
        """12.2: the minor's price lies in the conversion zone (R100 to R165)."""
        if not state.market.cell(sym).convert:
            return (f"{sym}'s price {money(state, state.market.price(sym))} is outside the "
                    "conversion zone (R100 to R165; 12.2)")
        return None

    def merge_partners(self, state: GameState, sym: str) -> list[str]:
        """12.3: minors connected to `sym` by track a train could run."""
        from engine import routes, track

        corp = state.corporations[sym]
        graph = routes.route_track(self, state, corp)
        nodes, _ = track.reachable(state, graph, sym)
        out = []
        for other in self.merger_candidates(state):
            if other == sym:
                continue
            if any(track.Node(hex_id, "c", city) in nodes
                   for hex_id, cities in state.board.tokens.items()
                   for city, corps in cities.items() if other in corps):
                out.append(other)
        return out

    def _public(self, state: GameState, into: str | None) -> Corporation:
        from engine.errors import require

        free = self.unstarted_publics(state)
        if into is None and len(free) == 1:
            into = free[0]  # `convert M-K`: the one public company left to form
        require(into is not None, f"name the public company: `into PUBLIC`, one of "
                f"{', '.join(free)}")
        assert into is not None
        sym = self.auction_target(state, into)
        require(sym in free, f"{into} is not a public company waiting to be formed; "
                f"these are: {', '.join(free)}")
        return state.corporations[sym]

    def convert(self, state: GameState, minor: str, into: str | None, round: Round) -> str:
        """12.2, 12.4: the public takes the minor's price (on the red or purple space of
        that value, under any markers there), its station, its assets and loans; the
        owner receives the Director's certificate; the other shares lie in the
        treasury."""
        why = self.why_not_convert(state, minor)
        if why:
            raise GameError(why)
        public = self._public(state, into)
        old = state.corporations[minor]
        owner = old.president or ""
        price = state.market.price(minor)
        self._form(state, public, price)
        public.certificates[0].owner = owner
        public.president = owner
        self._take_over(state, old, public)
        state.say(f"{minor} converts into {public.sym} at {money(state, price)}; "
                  f"{owner} receives its Director's certificate")
        return public.sym

    def merge(self, state: GameState, minors: tuple[str, ...], into: str, round: Round,
              stations: tuple[str, ...] = ()) -> str:
        """12.3: two to ten connected minors (at most six of one player); the price is
        the highest plus the lowest (at most R200); each minor becomes one share for
        its owner; the most shares direct it (ties: the minor that operated first); it
        takes two of their stations, in different hexes, those of `stations` when
        there is a choice."""
        from engine.errors import require
        from engine.rounds.merger import claim_presidency

        order = [m for m in self.merger_candidates(state) if m in minors]
        require(len(order) == len(set(minors)) and 2 <= len(order) <= 10,
                "two to ten minors that may still merge this round (12.3)")
        owners = [state.corporations[m].president or "" for m in order]
        require(all(owners.count(o) <= 6 for o in owners),
                "no more than six minors of one player (12.3)")
        reach = set(self.merge_partners(state, order[0])) | {order[0]}
        require(all(m in reach for m in order),
                f"the minors must be connected by track to {order[0]} (12.3)")
        taken = self.merger_stations(state, order, stations)
        public = self._public(state, into)
        prices = [state.market.price(m) for m in order]
        price = min(200, max(prices) + min(prices))
        self._form(state, public, price)
        first_owner = owners[0]
        for owner in owners:
            cert = next(c for c in public.certificates
                        if c.owner == TREASURY and not c.president)
            cert.owner = owner
        public.president = first_owner
        claim_presidency(state, public)
        kept: set[str] = set()
        for sym in order:
            self._take_over(state, state.corporations[sym], public, kept,
                            limit=2 if sym in taken else 0)
        state.say(f"{', '.join(order)} merge into {public.sym} at "
                  f"{money(state, state.market.price(public.sym))}; "
                  f"{public.president} directs it")
        return public.sym

    def merger_stations(self, state: GameState, order: list[str],
                        named: tuple[str, ...]) -> list[str]:
        """12.3: the minors whose stations the new company takes: two in different
        hexes (one, when all lie in one hex). Where more than two hexes hold them the
        order names two (`stations of N M-K`); otherwise it may name them or not."""
        from engine.errors import require

        hexes = {m: [h for h, cities in state.board.tokens.items()
                     for corps in cities.values() if m in corps] for m in order}
        spread = {h for found in hexes.values() for h in found}
        want = min(2, len(spread))

        def describe(m: str) -> str:
            return f"{m} ({', '.join(hexes[m]) or 'no station'})"

        choices = "; ".join(describe(m) for m in order if hexes[m])
        if not named:
            require(len(spread) <= 2, f"the new company takes two of the merging minors' "
                    f"stations (12.3); name them: `stations of MINOR MINOR`, of {choices}")
            out: list[str] = []
            seen: set[str] = set()
            for m in order:  # all of them; one per hex, the earliest operating minor's
                if hexes[m] and not seen & set(hexes[m]):
                    out.append(m)
                    seen |= set(hexes[m])
            return out
        chosen = list(dict.fromkeys(named))
        require(all(m in order for m in chosen),
                f"the stations kept are merging minors' (12.3): of {choices}")
        chosen_hexes = [h for m in chosen for h in hexes[m]]
        require(len(chosen) == want and len(set(chosen_hexes)) == len(chosen_hexes) == want,
                f"the new company takes {want} station(s) in different hexes (12.3); "
                f"of {choices}")
        return chosen

    def _form(self, state: GameState, public: Corporation, price: int) -> None:
        """The public's marker on the red or purple space of `price` (rounded down to a
        space there is); all its certificates in its treasury."""
        cells = [c for c in state.market.spec.par_cells("major") if c.price <= price]
        cell = max(cells, key=lambda c: c.price)
        for cert in public.certificates:
            cert.owner = TREASURY
        public.par_price = cell.price
        public.floated = True
        public.operated = False
        public.closed = False
        public.token_costs = list(public.spec.token_costs)
        state.market.place(public.sym, (cell.row, cell.col))

    def _take_over(self, state: GameState, minor: Corporation, public: Corporation,
                   kept: set[str] | None = None, limit: int | None = None) -> None:
        """12.4: cash, trains, privates and loans pass to the public; its stations are
        replaced (free), at most `limit` and one per hex."""
        state.transfer_cash(minor.sym, public.sym, minor.cash)
        public.trains += minor.trains
        minor.trains = []
        public.loans += minor.loans
        minor.loans = 0
        for private in state.privates.values():
            if private.owner == minor.sym:
                private.owner = public.sym
        kept = kept if kept is not None else set()
        for hex_id, cities in state.board.tokens.items():
            for corps in cities.values():
                if minor.sym not in corps:
                    continue
                i = corps.index(minor.sym)
                if hex_id in kept or (limit is not None and len(kept) >= limit) or \
                        not public.token_costs:
                    corps.pop(i)
                    continue
                corps[i] = public.sym
                public.token_costs.pop(0)
                kept.add(hex_id)
        for cert in minor.certificates:
            cert.owner = CLOSED
        minor.president = None
        minor.closed = True
        minor.floated = False
        state.market.remove(minor.sym)

    # --- auctions (9.2, 9.4) -----------------------------------------------------------
    def opening_lots(self, state: GameState, round: Round) -> list[str]:
        """9.4: the first stock round auctions the privates in the order of Table 1."""
        if state.stock_round_number != 1:
            return []
        return [p.sym for p in state.privates.values() if p.owner is None and not p.closed]

    def lower_opening_minimum(self, state: GameState, item: str) -> bool:
        """9.4: after a full round of passes the minimum falls by R5; at R0 the player
        who began the passes receives the private for nothing."""
        private = state.privates[item]
        private.price = max(0, (private.price or 0) - 5)
        state.say(f"nobody bids on {item}; its minimum falls to {money(state, private.price)}")
        return private.price == 0

    def auction_items(self, state: GameState) -> list[str]:
        return [c.sym for c in state.corporations.values()
                if c.spec.kind == "minor" and c.president is None and not c.closed]

    def auction_target(self, state: GameState, name: str) -> str:
        if name in state.privates or name in state.corporations:
            return name
        try:
            return state.title.corporation(name).sym
        except (KeyError, LookupError):
            raise GameError(f"there is no company {name}") from None

    def auction_minimum(self, state: GameState, target: str) -> int:
        if target in state.privates:
            return state.privates[target].price or 0
        return MINOR_MINIMUM

    def why_not_propose(self, state: GameState, seat: str, target: str) -> str | None:
        """9.2: an unsold minor, available in this phase, before phase 5; the Nikolaev
        first (9.4); not by a player at the certificate limit (9.3)."""
        from engine.shares import certificate_count

        corp = state.corporations.get(target)
        if corp is None or corp.spec.kind != "minor":
            return f"{target} is not a minor company; only minors are put up for auction"
        if corp.president is not None or corp.closed:
            return f"{target} has been sold"
        phase = int(self.phase(state).name)
        if phase >= 5:
            return "minor companies can no longer be started (phase 5)"
        if int(corp.spec.available_from_phase or "2") > phase:
            return f"{target} is available from phase {corp.spec.available_from_phase} (7.2)"
        nikolaev = state.corporations[NIKOLAEV]
        if target != NIKOLAEV and nikolaev.president is None and not nikolaev.closed:
            return "the Nikolaev (N) is auctioned first (9.4)"
        if certificate_count(self, state, seat) >= self.certificate_limit(state):
            return f"{seat} is at the certificate limit (9.3)"
        return None

    def win_auction(self, state: GameState, seat: str, target: str, price: int) -> None:
        """9.4: a private's price goes to the bank; 9.2: a minor's into its treasury,
        its marker on the start space of half the price, its station on its home."""
        from engine.board import place_home_token

        if target in state.privates:
            private = state.privates[target]
            private.owner = seat
            if price:
                state.transfer_cash(seat, BANK, price)
            state.say(f"{seat} wins {target} for {money(state, price)}")
            return
        corp = state.corporations[target]
        cert = corp.certificates[0]
        cert.owner = seat
        corp.president = seat
        state.transfer_cash(seat, corp.sym, price)
        cell = self.minor_start_cell(state, price)
        corp.par_price = cell.price
        state.market.place(corp.sym, (cell.row, cell.col))
        corp.floated = True
        state.say(f"{seat} wins {target} for {money(state, price)}; its price is "
                  f"{money(state, cell.price)}")
        place_home_token(state, corp)

    def minor_start_cell(self, state: GameState, price: int) -> MarketCell:
        """9.2: the red or brown space of half the price, rounded down to a value there
        is (R50 to R135)."""
        half = min(price // 2, MINOR_PAR_CEILING)
        cells = [c for c in state.market.spec.par_cells("minor") if c.price <= half]
        return max(cells, key=lambda c: c.price)

    # --- stock rounds (9) --------------------------------------------------------------
    def may_sell(self, state: GameState, corp: Corporation, round_number: int) -> str | None:
        """9.1: minors are never sold, nor shares of a company before its first turn."""
        if corp.spec.kind != "major":
            return f"{corp.sym} is a minor company; minors may never be sold (9.1)"
        if not corp.operated:
            return f"{corp.sym} has not yet completed an operating turn (9.1)"
        return None

    def why_not_par(self, state: GameState, corp: Corporation) -> str | None:
        """9.2: minors are auctioned; 9.3: publics may be started from phase 4."""
        if corp.spec.kind != "major":
            return f"{corp.sym} is not started by buying a certificate; `propose " \
                   f"{corp.sym} at 100` puts a minor up for auction (9.2)"
        if int(self.phase(state).name) < 4:
            return "public companies may be started from phase 4 (9.3)"
        if next(self._home_hexes(state, corp.sym), None) is None:
            return f"no city is free for {corp.sym}'s home station (9.3)"
        return None

    def par_values(self, corp: Corporation) -> tuple[int, ...]:
        """9.3: a public company starts on a red or purple space (R70 to R200)."""
        kind = corp.spec.kind
        if kind not in self._par_values:  # (a company the title does not list)
            return tuple(sorted({c.price for c in self.title.market.par_cells(kind)}))
        return self._par_values[kind]

    def may_par(self, state: GameState, corp: Corporation) -> bool:
        return self.why_not_par(state, corp) is None

    def end_of_stock_round(self, state: GameState) -> None:
        """9.5: each public company wholly in players' hands rises one row; on the top
        row it moves right and down, to the same price (minors do not move). All move
        at once, keeping their order: the first in operating order goes first."""
        from engine.market import cell_at
        from engine.shares import place_token

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
        from engine.state import IPO

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
        """9.3: any unreserved city no track connects to another stop."""
        return list(self._home_hexes(state, sym))

    def _home_hexes(self, state: GameState, sym: str) -> Iterator[str]:
        """The hexes of `home_choices`, in map order, one by one: whether a public
        company may start needs only the first (9.3), asked of every par candidate."""
        from engine import routes

        corp = state.corporations[sym]
        if corp.spec.kind != "major" or any(sym in c for cities in state.board.tokens.values()
                                            for c in cities.values()):
            return
        graph = routes.route_track(self, state)  # (built once, not once a hex)
        for hex_id in state.title.hexes:
            if self._home_city(state, sym, hex_id, graph) is not None:
                yield hex_id

    def _home_city(self, state: GameState, sym: str, hex_id: str,
                   graph: Track | None = None) -> int | None:
        from engine import board, routes

        cities = board.city_count(state, hex_id)
        if not cities or (state.board.tokens.get(hex_id) and any(
                state.board.tokens[hex_id].values())):
            return None  # site: cities with no station at all
        if self._reserved_for_national(state, hex_id):
            return None
        graph = graph if graph is not None else routes.route_track(self, state)
        for city in range(cities):
            if _joined_to_a_stop(state, graph, sym, hex_id, city):
                continue  # connected to another stop
            if board.free_slots(state, hex_id, city) - \
                    board.reserved_slots(state, hex_id, city, sym) <= 0:
                continue
            return city
        return None

    def _reserved_for_national(self, state: GameState, hex_id: str) -> bool:
        from engine.national import RESERVE

        return RESERVE + hex_id in state.corporations[RSR].markers

    def place_home(self, state: GameState, corp: Corporation, hex_id: str,
                   city: int | None) -> None:
        from engine.errors import require

        found = self._home_city(state, corp.sym, hex_id) if hex_id in state.title.hexes \
            else None
        require(found is not None, f"{hex_id} has no free, unreserved city that no track "
                f"connects (9.3); choose one of {', '.join(self.home_choices(state, corp.sym))}")
        assert found is not None
        chosen = found if city is None else city
        state.board.tokens.setdefault(hex_id, {}).setdefault(chosen, []).append(corp.sym)
        corp.token_costs.pop(0)
        state.say(f"{corp.sym} places its home station in {hex_id}")

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
        from engine.errors import require
        from engine.state import POOL

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
        from engine.state import POOL

        current = getattr(round, "current", None)
        if step != "track" or corp.spec.kind != "major" or current is None or \
                current.step or current.lay_hexes:
            return []
        price = state.market.price(corp.sym)
        most = min(len(corp.certificates_of(POOL)), corp.cash // price)
        return [f"redeem N (1 to {most}, from the Bank Pool at {money(state, price)} "
                "each)"] if most else []

    def why_not_place_token(self, state: GameState, corp: Corporation) -> str | None:
        """10: the RSR runs, withholds, pays interest, repays and buys trains, and places
        no station marker in its turn (7.4: St. Petersburg when it first operates,
        Moscow when it upgrades to grey, the nationalised companies' stations, 11)."""
        if corp.spec.kind == "national":
            return f"{RSR} places no station markers in its turn (7.4, 10)"
        return None

    def token_cost(self, state: GameState, corp: Corporation, hex_id: str) -> int:
        """10.5: the second station costs R20 per hex from the first, the third R40 per
        hex from the nearer (distance in hexes, regardless of track)."""
        from engine.geometry import distance

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
        """7.4: in phases 4 to 7."""
        try:
            self.phase(state).train_limit_for("national")
        except LookupError:
            return False
        return True

    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """The minors' stations were placed when they were sold (9.2); 10.8: interest
        falls due on the loans the company begins its turn with."""
        corp.interest_due = corp.loans
        if corp.sym == RSR:
            self._rsr_home(state, corp)

    def _rsr_home(self, state: GameState, rsr: Corporation) -> None:
        """7.4: when it first operates, a station in St. Petersburg (its reserved
        space), if it has none there."""
        self._rsr_station(state, rsr, ST_PETERSBURG, rsr.spec.home_city or 0)

    def _rsr_station(self, state: GameState, rsr: Corporation, hex_id: str, city: int
                     ) -> None:
        """7.4: the RSR's station on the space kept for it in `hex_id`, unless it has
        one there already (from a nationalised company, 11)."""
        from engine.board import has_token_in
        from engine.national import RESERVE

        reserve = RESERVE + hex_id
        if reserve not in rsr.markers or has_token_in(state, RSR, hex_id):
            rsr.markers.discard(reserve)
            return
        rsr.markers.discard(reserve)
        state.board.tokens.setdefault(hex_id, {}).setdefault(city, []).append(RSR)
        rsr.token_costs.pop(0)
        state.say(f"{RSR} places its station in {state.title.hexes[hex_id].name or hex_id}")

    def after_lay(self, state: GameState, corp: Corporation, hex_id: str, tile: str) -> None:
        """7.4: when Moscow upgrades to grey, the RSR places its station there (the
        grey tile's fourth space is the one kept for it, 10.5)."""
        if hex_id == MOSCOW and state.title.tile(tile).color == "gray":
            self._rsr_station(state, state.corporations[RSR], MOSCOW, 0)

    def end_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """7.4, 10.10: the RSR buys the cheapest train if it has none (with loans) and
        then every next train it can pay for; a company ending its turn without a
        train is nationalised."""
        from engine import national

        if corp.sym == RSR:
            self._rsr_buys_trains(state, corp)
            return
        if not corp.trains and not corp.closed:
            national.nationalise(self, state, corp)

    offers_only_automatic_dividend = True  # 10.7: a minor (and the RSR) has no choice

    def automatic_dividend(self, state: GameState, corp: Corporation) -> str | None:
        """10.7: a minor pays half to its owner without a choice; the RSR keeps all."""
        if corp.spec.kind == "national":
            return "withhold"
        return "payout" if corp.spec.kind == "minor" else None

    def _rsr_buys_trains(self, state: GameState, rsr: Corporation) -> None:
        from engine import loans, trains

        if not rsr.trains:
            cheapest = trains.cheapest_available(state)
            if cheapest is not None:
                self._rsr_buy(state, rsr, cheapest[0], cheapest[1], cheapest[2])
        while self.national_operates(state):
            offer = trains.next_offered(state)
            if offer is None:
                break
            price = state.title.train(offer.name).price
            if rsr.cash < price:
                break
            self._rsr_buy(state, rsr, offer, price, "bank")
        del loans

    def _rsr_buy(self, state: GameState, rsr: Corporation, train: Train, price: int,
                 source: str) -> None:
        from engine import loans, trains

        if rsr.cash < price:
            loans.take_loans_for(self, state, rsr, price, "a train")
        if source == "pool":
            state.trains_pool.remove(train)
            state.transfer_cash(rsr.sym, BANK, price)
            rsr.trains.append(train)
            state.say(f"{RSR} buys a {train.name}-train from the Open Market for "
                      f"{money(state, price)}")
            return
        trains.take_from_offering(self, state, rsr, price)

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
        from engine import loans

        return corp.cash if corp.trains else loans.buying_power(self, state, corp)

    def track_budget(self, state: GameState, corp: Corporation) -> int:
        """10.2: loans for track, as many as it may still take (`afford`)."""
        from engine import loans

        return loans.buying_power(self, state, corp)

    def nationalised_shares(self, state: GameState, corp: Corporation, seat: str) -> int:
        """11: a minor counts as two shares."""
        if corp.spec.kind == "minor":
            return 2 if corp.percent_held_by(seat) else 0
        return corp.percent_held_by(seat) // 10

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """10.7: a minor pays half to its owner, half to its treasury, and moves right
        (up its ceiling column), or left when it earned nothing. A public pays all,
        half (rounded up to R10) or nothing: right when ten times the dividend per
        share reaches the price, left when it pays nothing."""
        from engine.rounds.operating import pay_out, withhold

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
        loans = _specific(state, "loans")
        return int(loans["value"]), int(loans["interest"])

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
        from engine import loans

        if purpose == "train" and corp.trains:
            return
        if amount > corp.cash:
            loans.take_loans_for(self, state, corp, amount, purpose)

    def after_dividend(self, state: GameState, corp: Corporation, round: Round) -> None:
        """10.8: interest on the loans the company began its turn with (a company
        that cannot pay it, even with further loans, pays all it has and is
        nationalised at once, 11); 10.9: repay what it can."""
        from engine import loans, national

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
            from engine.routes import area_name

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
        from engine import national

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
    def _trainless(self, state: GameState) -> list[Corporation]:
        waiting = [c for c in state.corporations.values() if TRAINLESS in c.markers]
        return sorted(waiting, key=lambda c: state.market.order_key(c.sym))

    def pending_decision(self, state: GameState) -> Turn | None:
        from engine.rounds.base import Turn

        waiting = self._trainless(state)
        if not waiting:
            return None
        corp = waiting[0]
        return Turn(corp.president or "", corp.sym, f"nationalise {corp.sym} or keep it")

    def decision_options(self, state: GameState) -> list[str]:
        corp = self._trainless(state)[0]
        return [f"nationalise {corp.sym}", f"keep {corp.sym}"]

    def decision_candidates(self, state: GameState) -> list[Action]:
        from engine.actions import Keep, Nationalise

        corp = self._trainless(state)[0]
        return [Nationalise(corp.sym), Keep(corp.sym)]

    def decide(self, state: GameState, seat: str, action: Action, round: Round) -> None:
        """11: at the start of phases 4, 6 and 8 the Director of a public company that
        has operated and owns no train may have it nationalised."""
        from engine import national
        from engine.actions import Keep, Nationalise

        corp = self._trainless(state)[0]
        if not isinstance(action, Nationalise | Keep):
            raise GameError(f"{seat} must first decide whether {corp.sym} is nationalised",
                            tuple(self.decision_options(state)))
        named = self.auction_target(state, action.corporation)
        if named != corp.sym:
            raise GameError(f"{corp.sym} is to be decided now, not {action.corporation}",
                            tuple(self.decision_options(state)))
        corp.markers.discard(TRAINLESS)
        if isinstance(action, Nationalise):
            national.nationalise(self, state, corp)
        else:
            state.say(f"{seat} keeps {corp.sym}")
        from engine.rounds.operating import OperatingRound

        if not self._trainless(state) and isinstance(round, OperatingRound) and \
                round.current is None and RSR in round.done:
            # 10.10: the phase began with the RSR's purchase at its turn's end, the last
            # of the round; with what the nationalisations brought it, it goes on
            # buying the cheapest new trains it can pay for (as the site has it).
            self._rsr_buys_trains(state, state.corporations[RSR])

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


def _joined_to_a_stop(state: GameState, graph: Track, sym: str, hex_id: str,
                      city: int) -> bool:
    """Whether track joins the city to another stop (9.3: a home city may not be). A
    walk is found as soon as a second stop is reached, before any station could block
    it, so the answer is the graph's alone: kept on the graph, asked once a city for
    every company and every listing of a position."""
    from engine import routes
    from engine.track import Node

    joined: dict[Node, bool] = graph.traced.setdefault("1861 joined to a stop", {})
    start = Node(hex_id, "c", city)
    found = joined.get(start)
    if found is None:
        nodes: set[Node] | None = graph.traced.get("1861 nodes")
        if nodes is None:
            nodes = graph.traced["1861 nodes"] = set(graph.nodes())
        found = joined[start] = start in nodes and bool(
            routes.walks_from(state, graph, sym, start, 2))
    return found


def _specific(state: GameState, key: str, default: Any = None) -> Any:
    """A fact of data/1861.json's title_specific (loans, bonuses, blocked hexes)."""
    return cast("Mapping[str, Any]", state.title.title_specific).get(key, default)


def _area_twice(state: GameState, walk: Walk) -> str | None:
    """10.1: the red off-board area (Poland, the Caucasus, ...: one area of several
    hexes) a walk's stops reach more than once, or None."""
    from engine.routes import area_of

    seen: set[str] = set()
    for stop in walk.stops:
        area = area_of(state, stop)
        if area is not None:
            if area in seen:
                return area
            seen.add(area)
    return None


__all__ = ["Rules1861"]
