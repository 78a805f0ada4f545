"""1861: The Railways of the Russian Empire (Ian D Wilson): what its rulebook changes.

Section numbers refer to shared/rules/1861.md. The game is of the 1867 family: the
privates and minor companies are sold by auction (9.2, 9.4; the core's
`rounds/auction_stock.py`), minors pay half their earnings to their owner (10.7),
companies lay a second tile for a fee (10.4), and after each operating round of
phases 3 to 7 comes a merger round (12; `rounds/merger.py`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from engine.errors import GameError
from engine.rules import Rules
from engine.shares import money, move_token
from engine.state import BANK, Corporation, GameState
from engine.title import MarketCell, PhaseSpec, TileSpec

if TYPE_CHECKING:
    from engine.rounds.base import Round
    from engine.routes import Walk
    from engine.state import Train

NIKOLAEV = "N"  # 9.4: the first minor auctioned
MINOR_MINIMUM = 100  # 9.2
MINOR_PAR_CEILING = 135  # 9.2: the marker goes on R50 to R135
EXTRA_LAY_FEE = 20  # 10.4
MOSCOW = "H8"
EKATERINBURG = "Q3"  # 10.6: counts double with Moscow on the route
EKATERINBURG_VALUE = 40
PRIVATE_BONUS = 10  # 7.1: per train running to the private's city


class Rules1861(Rules):
    half_dividends = True  # 10.7
    sell_in_first_stock_round = True  # 9.1 limits sales by operation, not by round
    yellow_lays_per_turn = 1
    upgrades_per_turn = 1

    # --- set-up (3) --------------------------------------------------------------------
    def set_up(self, state: GameState, rng: random.Random) -> None:
        """3: the privates start at their minimum bids (7.1, Table 1); the RSR holds
        no certificates and floats never (7.4)."""
        for private in state.privates.values():
            private.price = private.spec.min_bid or private.spec.value

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
        return None

    def may_par(self, state: GameState, corp: Corporation) -> bool:
        return self.why_not_par(state, corp) is None

    def end_of_stock_round(self, state: GameState) -> None:
        """9.5: each public company wholly in players' hands rises (minors do not)."""
        sold_out = [
            c for c in state.corporations.values()
            if c.spec.kind == "major" and c.sym in state.market.positions
            and sum(c.percent_held_by(s) for s in state.seats) == 100
        ]
        for corp in sorted(sold_out, key=lambda c: state.market.order_key(c.sym)):
            self.move_price(state, corp, "up")

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
        return None

    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """The minors' stations were placed when they were sold (9.2); 10.8: interest
        falls due on the loans the company begins its turn with."""
        corp.interest_due = corp.loans

    def automatic_dividend(self, state: GameState, corp: Corporation) -> str | None:
        """10.7: a minor pays half to its owner without a choice."""
        return "payout" if corp.spec.kind == "minor" else None

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """10.7: a minor pays half to its owner, half to its treasury, and moves right
        (up its ceiling column), or left when it earned nothing. A public pays all,
        half (rounded up to R10) or nothing: right when ten times the dividend per
        share reaches the price, left when it pays nothing."""
        from engine.rounds.operating import pay_out, withhold

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
        """10.4: one tile, and for R20 a second in another hex; one upgrade at most."""
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

    def afford(self, state: GameState, corp: Corporation, amount: int, purpose: str) -> None:
        """10.2: loans for track and (for a company without a train) a train from the
        bank, only as many as needed."""
        from engine import loans

        if purpose == "train" and corp.trains:
            return
        if amount > corp.cash:
            loans.take_loans_for(self, state, corp, amount, purpose)

    def after_dividend(self, state: GameState, corp: Corporation, round: Round) -> None:
        """10.8: interest on the loans the company began its turn with; 10.9: repay
        what it can. (Unpaid interest nationalises it: not yet.)"""
        from engine import loans

        loans.pay_interest(self, state, corp)
        loans.repay_loans(self, state, corp)

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        """8: no track on the Private Company hexes in phase 2."""
        blocked = _specific(state, "private_company_hexes", ())
        if hex_id in blocked and self.phase(state).name == "2":
            return f"{hex_id} is a Private Company hex: no track there before phase 3 (8)"
        return None

    # --- running (10.6) ----------------------------------------------------------------
    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        """10.6: Ekaterinburg counts double with Moscow on the route; 7.1: a private's
        city counts R10 more for its owner; n+n trains double the route."""
        counted = [v for n, v in zip(walk.stops, values, strict=True) if n.kind != "t"]
        towns = sorted((v for n, v in zip(walk.stops, values, strict=True) if n.kind == "t"),
                       reverse=True)
        room = max(0, state.title.train(train.name).distance.stops - len(counted))
        total = sum(counted) + sum(towns[:room])  # 10.6: towns skipped when full
        hexes = {n.hex for n in walk.stops}
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
        return total * state.title.train(train.name).multiplier

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """8: what each phase starts beyond its data (nationalisation: not yet)."""

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


__all__ = ["Rules1861"]

