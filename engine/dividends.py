"""18TN 4.2.4: paying out and withholding: the dividend step's money, asked by the
rounds and by the titles' `pay_dividend`."""

from __future__ import annotations

from engine.state import BANK, IPO, TREASURY, Corporation, GameState, money


def pay_out(state: GameState, corp: Corporation, revenue: int,
            pool_pays_company: bool = True, ipo_pays_company: bool = False) -> None:
    """4.2.4(a): each 10% share earns a tenth of `revenue`. Shares in the treasury pay the
    company; shares in the pool pay the company (18TN) or nobody (1851, 1850); shares in
    the Initial Offering pay the company in 1850, else nobody."""
    for seat in state.seats:
        pct = corp.percent_held_by(seat)
        if pct:
            state.transfer_cash(BANK, seat, revenue * pct // 100)
    to_company = corp.percent_held_by(TREASURY)
    if ipo_pays_company:  # 1850 9.1.1
        to_company += corp.percent_held_by(IPO)
    if pool_pays_company:
        to_company += corp.pool_percent
    if to_company:
        state.transfer_cash(BANK, corp.sym, revenue * to_company // 100)
    state.say(f"{corp.sym} pays {money(state, revenue // 10)} per share")


def withhold(state: GameState, corp: Corporation, revenue: int) -> None:
    if revenue:
        state.transfer_cash(BANK, corp.sym, revenue)
        state.say(f"{corp.sym} withholds {money(state, revenue)}")
