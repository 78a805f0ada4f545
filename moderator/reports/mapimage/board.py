"""The board a map is drawn from (`BoardLike`: a game's Board, or a `BoardView` of a
position no game holds), and the hexes that differ between two."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.state import PlacedTile
from engine.title import FrozenDict


class BoardLike(Protocol):
    """What the renderer reads of a board (``engine.state.Board`` has both)."""

    @property
    def tiles(self) -> Mapping[str, PlacedTile]: ...

    @property
    def tokens(self) -> Mapping[str, Mapping[int, Sequence[str]]]: ...

    @property
    def markers(self) -> Mapping[str, Sequence[str]]: ...


@dataclass(frozen=True, slots=True)
class BoardView:
    """A board given by its parts, for a position no GameState holds: the empty
    starting map of a title whose rules are not implemented yet, or a test."""

    tiles: Mapping[str, PlacedTile]
    tokens: Mapping[str, Mapping[int, Sequence[str]]]
    # companies' tokens on a hex outside its cities (1850's edge and Mesabi tokens)
    markers: Mapping[str, Sequence[str]] = FrozenDict()


EMPTY_BOARD = BoardView(FrozenDict(), FrozenDict())


def changed_hexes(before: BoardLike, after: BoardLike) -> frozenset[str]:
    """Hexes whose tile or station tokens differ between two positions: what a
    player's report highlights as new since the last one."""
    out = {h for h in set(before.tiles) | set(after.tiles)
           if before.tiles.get(h) != after.tiles.get(h)}
    for hex_id in set(before.tokens) | set(after.tokens):
        old = {c: list(s) for c, s in before.tokens.get(hex_id, {}).items() if s}
        new = {c: list(s) for c, s in after.tokens.get(hex_id, {}).items() if s}
        if old != new:
            out.add(hex_id)
    out |= {h for h in set(before.markers) | set(after.markers)
            if list(before.markers.get(h, ())) != list(after.markers.get(h, ()))}
    return frozenset(out)
