"""18TN (Mark Derrick): what its rulebook adds to the 1830-family core.

Section numbers refer to shared/rules/18TN.md (version 2.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine import board, routes
from engine.actions import UsePrivate
from engine.citations import PLAIN, Cite
from engine.dividends import pay_out, withhold
from engine.errors import GameError, require
from engine.family import FamilyRules
from engine.prices import move_token
from engine.rules import private_tile_lay
from engine.state import BANK, Corporation, GameState, Private, Train, money
from engine.title import PhaseSpec

if TYPE_CHECKING:
    from engine.rounds.base import Round
    from engine.walks import TrainRun

CIVIL_WAR = "civil war"

# 3.1.2: the first private's price falls each stock round it stays unsold.
FIRST_PRIVATE_PRICES = {1: 20, 2: 15, 3: 10, 4: 5, 5: 0}
L_AND_N_PRIVATE = "LNR"  # Table III #5
OPTIONS = {
    "three_yellow_first_turn": "8(a): three yellow tiles on a company's first turn",
    "phase2_private_sales": "8(b): companies buy privates from players in phase 2 for $1 up "
    "to face value",
    "salvage_3_trains": "8(c): $50 salvage per 3-train when 3-trains are removed",
}


# The core's rules in 18TN's words and sections (engine.citations).
CITATIONS: Mapping[str, Cite] = {
    "track_connects": Cite(PLAIN["track_connects"], "4.2.1(j)"),
    "station_once_per_hex": Cite("{corp} already has a station in {hex}: no major company "
                                 "can have more than one station in the same hex", "4.2.2(b)"),
    "station_space_kept": Cite("no free station space in {hex}: one circle must be left "
                               "open for a company which has not yet placed its home "
                               "station", "4.2.2(c)"),
    "station_connects": Cite(PLAIN["station_connects"], "4.2.2(a)"),
    "separate_tracks": Cite(PLAIN["separate_tracks"], "4.2.3(j)"),
    "obsolete_train": Cite("no company may ever purchase an obsolete train from another "
                           "major company", "4.2.5.1"),
    "bank_train_limit": Cite("{corp} may buy only one train from the bank per turn until "
                             "the first 4-train is bought", "4.2.5(f)"),
    "cheapest_with_president": Cite(PLAIN["cheapest_with_president"], "4.2.5.2(a)"),
    "contribution": Cite("{president} contributes to {corp}'s train: no train may be "
                         "purchased from another company if the president contributes "
                         "personal funds", "4.2.5.2(a)"),
    "forced_sale": Cite("{seat} may sell only enough to raise {need}: he may only sell "
                        "just enough shares to raise the needed cash", "4.2.5.2(d)"),
    "forced_train": Cite("{corp} has a legal run but no train and must buy one",
                         "4.2.5.2"),
    "forced_train_bankrupt": Cite("{corp} has a legal run but no train, and {president} "
                                  "is unable to raise the needed cash: `done` declares the "
                                  "bankruptcy", "4.2.5.2"),
    "must_take_private": Cite(PLAIN["must_take_private"], "3.1.2"),
    "sales_one_side": Cite("your one purchase must either precede or follow all sales",
                           "3.2"),
    "no_buy_back": Cite(PLAIN["no_buy_back"], "3.2"),
    "over_limit_buy": Cite(PLAIN["over_limit_buy"], "3.3"),
    "over_limit_pass": Cite(PLAIN["over_limit_pass"], "3.3"),
}


class Rules18TN(FamilyRules):
    one_bank_train_per_turn_until = "4"  # 4.2.5(f)
    citations = CITATIONS

    def private_price(self, state: GameState, private: Private, stock_round: int) -> int:
        if private.sym == state.title.privates[0].sym:
            return FIRST_PRIVATE_PRICES.get(stock_round, 0)
        return private.spec.value

    def must_take_private(self, state: GameState, seat: str, stock_round: int,
                          round: Round) -> bool:
        """3.1.2: in the fifth stock round the priority holder must take #1 for free."""
        first = state.privates[state.title.privates[0].sym]
        return stock_round >= 5 and first.owner is None and seat == state.priority

    def private_grants_presidency(self, state: GameState, private: Private) -> str | None:
        """Table III #5: the L&N private comes with the L&N president's certificate."""
        return "L&N" if private.sym == L_AND_N_PRIVATE else None

    def after_private_par(self, state: GameState, corp: Corporation) -> None:
        """Table III #5: the L&N floats at once and the private is discarded."""
        private = state.privates[L_AND_N_PRIVATE]
        private.closed = True
        state.say(f"{private.sym} is discarded")
        self.float_corporation(state, corp)

    def may_par(self, state: GameState, corp: Corporation) -> bool:
        """The L&N president's certificate is only had with private #5."""
        return corp.sym != "L&N"

    # --- operating round ----------------------------------------------------------------
    def tile_lays(self, state: GameState, corp: Corporation) -> tuple[int, int]:
        """4.2(b): one or two yellow tiles or one upgrade; 8(a): three yellow at first."""
        if "three_yellow_first_turn" in self.options and not corp.operated:
            return 3, 1
        return 2, 1

    def use_private(self, state: GameState, corp: Corporation, action: UsePrivate,
                    round: Round) -> None:
        """Table III #1-#4: a free yellow tile in the private's hex, outside the normal lays,
        with no connection needed; lost once another tile is laid there."""
        private, lay = private_tile_lay(state, corp, action)
        hexes = private.spec.hexes
        require(lay.hex in hexes, f"{private.sym} lays its tile in {', '.join(hexes)}")
        require(lay.hex not in state.board.tiles,
                f"a tile already lies on {lay.hex}: {private.sym}'s ability is lost")
        if private.spec.tiles:
            require(lay.tile in private.spec.tiles,
                    f"{private.sym} may lay tile {' or '.join(private.spec.tiles)}")
        board.lay_tile(self, state, corp, lay.hex, lay.tile, lay.rotation,
                       need_connection=False, free=True)
        private.ability_used = True

    def why_not_buy_private(self, state: GameState, corp: Corporation, private: Private,
                            price: int, round: Round) -> str | None:
        """4.2.6 (and optional 8(b))."""
        phase = self.phase(state).name
        value = private.spec.value
        first_or = state.stock_round_number == 1 and state.operating_round_number == 1
        if first_or and self.phase_index_of(state, "3") > state.phase_index:
            if price != value:
                return f"in the first operating round privates sell at face value, " \
                       f"{money(state, value)} (4.2.6)"
            bought = getattr(round, "private_purchases", [])
            if any(buyer == corp.sym for buyer, _ in bought):
                return f"{corp.sym} has bought its one private this round (4.2.6)"
            if any(seller == private.owner for _, seller in bought):
                return f"{private.owner} has sold a private this round (4.2.6)"
            return None
        if state.phase_index >= self.phase_index_of(state, "3"):
            low, high = (value + 1) // 2, value * 3 // 2
            if not low <= price <= high:
                return f"{private.sym} may be bought for {money(state, low)} to " \
                       f"{money(state, high)} (4.2.6)"
            return None
        if "phase2_private_sales" in self.options:
            if not 1 <= price <= value:
                return f"in phase {phase} {private.sym} may be bought for " \
                       f"{money(state, 1)} to {money(state, value)} (8(b))"
            return None
        return "companies may buy privates only in the first operating round and from " \
               "phase 3 on (4.2.6)"

    def offer_privates_at_end_of_turn(self, state: GameState, corp: Corporation) -> bool:
        """From phase 3 (the site's blocking step); the first-round purchase is offered
        throughout the turn instead."""
        return state.phase_index >= self.phase_index_of(state, "3")

    @staticmethod
    def phase_index_of(state: GameState, name: str) -> int:
        return state.title.phase_index(name)

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """Table I: the Civil War at 3½; privates close at 5; 8(c) salvage."""
        if phase.name == "3½":
            self.civil_war(state)
        if phase.name == "5":
            for private in state.privates.values():
                if not private.closed:
                    private.closed = True
            state.say("all private companies close")

    def on_trains_removed(self, state: GameState, corp: Corporation, gone: list[Train]
                          ) -> None:
        """8(c): the bank pays $50 salvage for each 3-train removed from play."""
        if "salvage_3_trains" not in self.options:
            return
        threes = sum(1 for t in gone if t.name == "3")
        if threes:
            state.transfer_cash(BANK, corp.sym, 50 * threes)
            state.say(f"{corp.sym} receives {money(state, 50 * threes)} salvage for "
                      f"{threes} 3-train(s) (8(c))")

    def civil_war(self, state: GameState) -> None:
        """5.1: every company with trains loses one train's income next time it runs."""
        hit = [c for c in state.corporations.values()
               if c.floated and c.trains and routes.has_route(self, state, c)]
        for corp in hit:
            corp.markers.add(CIVIL_WAR)
        names = ", ".join(sorted(c.sym for c in hit)) or "no company"
        state.say(f"The Civil War begins: {names} will lose one train's income")

    def run_revenue(self, state: GameState, corp: Corporation, runs: tuple[TrainRun, ...]
                    ) -> int:
        """5.1: the train with the lowest revenue runs for nothing (the president's obvious
        choice; the site zeroes the lowest too)."""
        total = sum(r.revenue for r in runs)
        if CIVIL_WAR in corp.markers and runs and len(runs) >= len(corp.trains):
            total -= min(r.revenue for r in runs)
        return total

    def run_revenue_only_falls(self) -> bool:
        """The Civil War only takes a train's income away (5.1)."""
        return type(self).run_revenue is Rules18TN.run_revenue

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """4.2.4 with 5.1's exception: a one-train company hit by the war keeps its price."""
        war = CIVIL_WAR in corp.markers
        corp.markers.discard(CIVIL_WAR)
        if war and len(corp.trains) == 1:
            if choice == "payout" and revenue > 0:
                pay_out(state, corp, revenue)
            else:
                withhold(state, corp, revenue)
            return
        super().pay_dividend(state, corp, revenue, choice, round)

    # --- game end -----------------------------------------------------------------------
    def check_end(self, state: GameState) -> None:
        """6(a),(b): the bank runs out, or a share value reaches $300."""
        if state.end_triggered:
            return
        if state.bank_cash < 0:
            state.end_triggered = "bank"
            state.say("The bank has broken: the game ends after this operating round")
            return
        for corp in state.corporations.values():
            if corp.sym in state.market.positions and state.market.cell(corp.sym).endgame:
                state.end_triggered = "market"
                state.say(f"{corp.sym} reaches {money(state, state.market.price(corp.sym))}: "
                          "the game ends after this operating round")
                return


__all__ = ["CIVIL_WAR", "GameError", "Rules18TN", "move_token"]
