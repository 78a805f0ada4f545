"""Buying a private company from a player during the turn (18TN 4.2(h))."""

from __future__ import annotations

from engine.actions import BuyPrivate
from engine.errors import GameError, require
from engine.rounds.operating.turns import CompanyTurns
from engine.state import Corporation, money


class PrivatesStep(CompanyTurns):
    def _private_options(self, corp: Corporation) -> list[str]:
        """Privates the company may buy from players now (18TN 4.2.6)."""
        state = self.state
        out: list[str] = []
        for private in state.privates.values():
            if private.closed or private.owner not in state.players:
                continue
            value = private.spec.value
            prices = [p for p in sorted({1, (value + 1) // 2, value, value * 3 // 2})
                      if p <= corp.cash and self.rules.why_not_buy_private(
                          state, corp, private, p, self) is None]
            if prices:
                span = money(state, prices[0]) if len(prices) == 1 else \
                    f"{money(state, prices[0])} to {money(state, prices[-1])}"
                out.append(f"buy private {private.sym} from {private.owner} for N ({span})")
        return out

    def _buy_private(self, corp: Corporation, action: BuyPrivate) -> None:
        state = self.state
        require(action.private in state.privates, f"there is no private {action.private}")
        private = state.privates[action.private]
        require(not private.closed, f"{private.sym} is closed")
        require(private.owner in state.players,
                f"{private.sym} is not owned by a player")
        owner = private.owner or ""
        require(action.seller in (None, owner), f"{private.sym} belongs to {owner}")
        price = action.price if action.price is not None else private.spec.value
        why = self.rules.why_not_buy_private(state, corp, private, price, self)
        if why:
            raise GameError(why)
        require(corp.cash >= price,
                f"{corp.sym} has {money(state, corp.cash)}; the price is {money(state, price)}")
        state.transfer_cash(corp.sym, owner, price)
        private.owner = corp.sym
        self.private_purchases.append((corp.sym, owner))
        state.say(f"{corp.sym} buys {private.sym} from {owner} for {money(state, price)}")
        self.rules.after_private_sold(state, private, corp.sym)
