"""The share price token: moved on the market, and the move reported (`$90` to `$100`).

Below the rules: `Rules.move_price`, the one door for every price move, and the
mechanics and titles that move or place a token all use these.
"""

from __future__ import annotations

from engine import market
from engine.state import Corporation, GameState, money


def move_token(state: GameState, corp: Corporation, direction: str, times: int = 1) -> None:
    """Move a share price token up/down/left/right `times` spaces, reporting the result."""
    moves = {"up": market.up, "down": market.down, "left": market.left, "right": market.right}
    pos = state.market.positions[corp.sym]
    for _ in range(times):
        pos = moves[direction](state.market.spec, pos)
    place_token(state, corp, pos)


def place_token(state: GameState, corp: Corporation, pos: market.Position) -> bool:
    """Put the share price token on `pos`, reporting the move; whether it moved."""
    before = state.market.price(corp.sym)
    if not state.market.move(corp.sym, pos):
        return False
    after = state.market.price(corp.sym)
    state.say(f"{corp.sym} share price moves from {money(state, before)} "
              f"to {money(state, after)}")
    return True
