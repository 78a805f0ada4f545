"""A train's walk on the track and what the trains earned, as values (`Walk`,
`TrainRun`, `Run`): below the rules, which name them in their route hooks, and the
mechanics that find and check runs (engine.routes, engine.optimizer).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Route
from engine.title import Shared
from engine.track import Node


@dataclass(frozen=True, slots=True)
class Walk(Shared):
    """One train's route on the track: its stops in order and the segments used."""

    stops: tuple[Node, ...]
    segments: frozenset[int]  # the pieces of track: segments and edges crossed
    hexes: tuple[str, ...]  # every hex passed, in order


@dataclass(frozen=True, slots=True)
class TrainRun(Shared):
    train: str
    walk: Walk
    revenue: int


@dataclass(frozen=True, slots=True)
class Run(Shared):
    """What a company's trains earned this turn."""

    runs: tuple[TrainRun, ...]
    revenue: int

    def describe(self) -> str:
        if not self.runs:
            return "no trains run"
        return "; ".join(f"{r.train}: {' '.join(str(s.hex) for s in r.walk.stops)} "
                         f"({r.revenue})" for r in self.runs)

    def as_routes(self) -> tuple[Route, ...]:
        return tuple(Route(r.train, r.walk.hexes) for r in self.runs)
