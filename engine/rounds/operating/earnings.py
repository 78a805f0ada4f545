"""The route and dividend steps (18TN 4.2.3, 4.2.4): the trains run, the revenue is paid out
or withheld."""

from __future__ import annotations

from engine import loans, optimizer, trains
from engine.actions import Dividend, RunRoutes
from engine.errors import GameError, require
from engine.rounds.operating.turns import CompanyTurns
from engine.state import Corporation, money


class Earnings(CompanyTurns):
    def _paid_how(self, corp: Corporation, price: int, purse: int) -> str:
        """How a train the treasury alone cannot pay for is paid: with loans (1861
        10.2), or with the president's money (4.2.5.2(c))."""
        state = self.state
        short = price - corp.cash
        if short <= 0:
            return ""
        if purse >= price:
            value, _ = self.rules.loan_terms(state)
            count = loans.needed_for(self.rules, state, corp, price)
            return (f": {corp.sym}'s {money(state, corp.cash)} and {count} "
                    f"loan{'s' if count > 1 else ''} of {money(state, value)}")
        return (f": {corp.sym}'s {money(state, corp.cash)} and {money(state, short)} from "
                f"its {self.rules.word('head')} {corp.president}")

    def _run(self, corp: Corporation, action: RunRoutes) -> None:
        t = self.current
        assert t is not None
        require(t.revenue is None, f"{corp.sym} has already run its trains")
        why = self.rules.why_not_run(self.state, corp)
        if why:
            raise GameError(why, tuple(self.legal()))
        run = optimizer.run_for(self.rules, self.state, corp, action)
        t.run = run
        t.revenue = run.revenue
        t.step = self.steps.index("dividend")
        self.state.say(f"{corp.sym} runs for {money(self.state, run.revenue)}: {run.describe()}")
        auto = self.rules.automatic_dividend(self.state, corp)
        if run.revenue == 0 or auto is not None:
            self._settle_dividend(corp, auto or "withhold")

    def _dividend(self, corp: Corporation, action: Dividend) -> None:
        t = self.current
        assert t is not None
        require(t.revenue is not None, f"{corp.sym} must run its trains first",
                ("run auto", "run none"))
        require(not t.dividend_done, f"{corp.sym} has settled its revenue this turn")
        require(action.choice != "half" or self.rules.half_dividends,
                "this title has no half dividends")
        self._settle_dividend(corp, action.choice)

    def _settle_dividend(self, corp: Corporation, choice: str) -> None:
        t = self.current
        assert t is not None
        revenue = t.revenue or 0
        self.rules.pay_dividend(self.state, corp, revenue, choice, self)
        t.dividend_done = True
        self.rules.after_dividend(self.state, corp, self)
        if corp.president is None and self.rules.loan_terms(self.state)[0]:
            # 1861 10.8: nationalised for the loan interest it could not pay
            self.done.add(corp.sym)
            self._next_company()
            return
        t.step = self.steps.index("train")
        trains.remove_obsolete(self.state, corp)
