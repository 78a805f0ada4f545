"""The stock market: share price tokens on the chart, their moves and stacking order.

A token's position is `(row, column)` with row 0 at the top. Where several tokens
share a space, the stack is kept top first; a token moved into an occupied space goes
underneath the others (18TN 3.2(a), 3.6; the 1830 family agrees).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.title import MarketCell, MarketSpec

Position = tuple[int, int]


def cell_at(spec: MarketSpec, pos: Position) -> MarketCell | None:
    """The cell at `pos`, or None when the chart has no space there."""
    row, col = pos
    if row < 0 or col < 0 or row >= len(spec.rows) or col >= len(spec.rows[row]):
        return None
    return spec.rows[row][col]


def right(spec: MarketSpec, pos: Position) -> Position:
    """One space right; at the end of a row, one space up instead; else stay."""
    row, col = pos
    if cell_at(spec, (row, col + 1)) is not None:
        return (row, col + 1)
    return up(spec, pos)


def left(spec: MarketSpec, pos: Position) -> Position:
    """One space left; in the leftmost column, one space down instead; else stay."""
    row, col = pos
    if cell_at(spec, (row, col - 1)) is not None:
        return (row, col - 1)
    return down(spec, pos)


def up(spec: MarketSpec, pos: Position) -> Position:
    """One space up; off the top of the chart the token stays."""
    row, col = pos
    return (row - 1, col) if cell_at(spec, (row - 1, col)) is not None else pos


def down(spec: MarketSpec, pos: Position) -> Position:
    """One space down; off the bottom of the chart the token stays."""
    row, col = pos
    return (row + 1, col) if cell_at(spec, (row + 1, col)) is not None else pos


@dataclass
class StockMarket:
    """Where every corporation's share price token stands, with stacking order."""

    spec: MarketSpec
    positions: dict[str, Position] = field(default_factory=dict)
    # Stacks per position, top of the stack first.
    stacks: dict[Position, list[str]] = field(default_factory=dict)

    def place(self, corporation: str, pos: Position) -> None:
        """Put a token on the chart (or move it there), underneath any tokens there."""
        old = self.positions.get(corporation)
        if old is not None:
            self.stacks[old].remove(corporation)
        self.positions[corporation] = pos
        self.stacks.setdefault(pos, []).append(corporation)

    def remove(self, corporation: str) -> None:
        """Take a token off the chart (a company that closes)."""
        pos = self.positions.pop(corporation)
        self.stacks[pos].remove(corporation)

    def move(self, corporation: str, pos: Position) -> bool:
        """Move a token; a token that stays where it is keeps its place in the stack."""
        if self.positions[corporation] == pos:
            return False
        self.place(corporation, pos)
        return True

    def price(self, corporation: str) -> int:
        cell = cell_at(self.spec, self.positions[corporation])
        assert cell is not None
        return cell.price

    def cell(self, corporation: str) -> MarketCell:
        cell = cell_at(self.spec, self.positions[corporation])
        assert cell is not None
        return cell

    def order_key(self, corporation: str) -> tuple[int, int, int]:
        """Sort key for operating order: highest price, then right-most, then top of stack."""
        row, col = self.positions[corporation]
        return (-self.price(corporation), -col, self.stacks[(row, col)].index(corporation))

    def par_cell(self, price: int) -> Position | None:
        """The par space for `price`, if the chart has one."""
        for row in self.spec.rows:
            for cell in row:
                if cell is not None and cell.can_par and cell.price == price:
                    return (cell.row, cell.col)
        return None

    def price_cell(self, price: int) -> Position | None:
        """The first space of the chart showing `price`, par space or not (1825 R1: a
        minor's director chooses any price of the index)."""
        return next(((cell.row, cell.col) for cell in self.spec.cells()
                     if cell.price == price), None)

    def copy(self) -> StockMarket:
        return StockMarket(
            self.spec, dict(self.positions), {k: list(v) for k, v in self.stacks.items()}
        )
