"""The 1830 family's defaults that act through the mechanics and rounds: `FamilyRules`.

`Rules` (engine/rules.py) holds a title's settings and hooks below the mechanics and
rounds, which ask them. Eight of its hooks have defaults that build a round, place a
home station, check a sale, find the bank's cheapest train or pay a dividend: those
need the mechanics and rounds themselves, so they are declared in `Rules` and given
here, one layer above the rounds. Every title's rules derive from `FamilyRules`.
"""

from __future__ import annotations

from engine import board, shares, trains
from engine.dividends import pay_out, withhold
from engine.rounds.base import Round
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.rules import Rules
from engine.state import Corporation, GameState, Train


class FamilyRules(Rules):
    """The defaults of the 1830 family that act through its mechanics and rounds."""

    def first_round(self, state: GameState) -> Round:
        return StockRound(state, self)

    def next_round(self, state: GameState, finished: Round) -> Round | None:
        """The round after `finished`: a set of operating rounds follows each stock round."""
        if isinstance(finished, StockRound):
            state.operating_rounds_in_set = self.operating_rounds_after_stock_round(state)
            return OperatingRound(state, self, 1)
        assert isinstance(finished, OperatingRound)
        if self.game_ends_after_operating_round(state, finished):
            self.end_game(state, state.end_triggered or "end")
            return None
        if finished.number < state.operating_rounds_in_set:
            return OperatingRound(state, self, finished.number + 1)
        return self.new_stock_round(state)

    def new_stock_round(self, state: GameState) -> Round:
        """A title's own stock round where it has one (1825's share dealing round)."""
        return StockRound(state, self)

    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """4.2(a): on its first turn a company places its home station, free."""
        board.place_home_token(state, corp, word=self.word("station"))

    def check_sale(self, state: GameState, seat: str, corp: Corporation, percent: int
                   ) -> None:
        """Raise when the sale is refused (18TN 3.2(a); 1825 4.4 lets the director's
        certificate go to the pool)."""
        shares.check_sale(self, state, seat, corp, percent)

    def cheapest_train(self, state: GameState) -> tuple[Train, int, str] | None:
        """The cheapest train a company may buy from the bank (4.2.5.2(a)): of those the
        Initial Offering offers now (`offered_trains`: its next one; 1861 10.10 in phase
        8 also a 2+2; 1850 16.2 a diesel) or one of the Open Market."""
        return trains.cheapest_available(state, self.offered_trains(state))

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """4.2.4: pay out (price right) or withhold (price left)."""
        if choice == "payout" and revenue > 0:
            pay_out(state, corp, revenue)
            self.move_price(state, corp, "right")
        else:
            withhold(state, corp, revenue)
            self.move_price(state, corp, "left")

    def may_buy_another_bank_train(self, state: GameState, bought_this_turn: int) -> bool:
        """4.2.5(f): one train from the bank per turn until the limit is lifted."""
        lift = self.one_bank_train_per_turn_until
        if lift is None or bought_this_turn == 0:
            return True
        return trains.bought_from_offering(state, lift) > 0
