"""Trains and phases as printed: a train's distance (`Distance`), each train type
(`TrainSpec`) and each phase (`PhaseSpec`) with its train limits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.title.frozen import FrozenDict, Shared

_DISTANCE_RE = re.compile(r"^(\d+)(?:\+(\d+))?(E)?$")


@dataclass(frozen=True, slots=True)
class Distance(Shared):
    """A train's reach as printed on the card.

    raw: the card's text ("4", "2+2", "5+5E").
    stops: how many cities/off-boards a route may count.
    plus: the number after "+" (its meaning is the title's: in 1861 an n+n train runs
        as an n-train and doubles the value, see ``TrainSpec.multiplier``).
    express: "E": the train may skip stops and counts only the ones it scores.
    """

    raw: str
    stops: int
    plus: int = 0
    express: bool = False

    @classmethod
    def parse(cls, raw: int | str) -> Distance:
        text = str(raw).strip()
        m = _DISTANCE_RE.match(text)
        if m is None:
            raise ValueError(f"unrecognised train distance {raw!r}")
        return cls(text, int(m.group(1)), int(m.group(2) or 0), m.group(3) is not None)


@dataclass(frozen=True, slots=True)
class TrainSpec(Shared):
    """A train type.

    count: how many the bank holds; None = unlimited.
    rusts_on: the phase whose start removes these trains at once (rusting or the
        rulebooks' "obsolete and eliminated"); obsolete_on: the phase after which
        they run once more and are then removed (18TN's 4-trains).
    multiplier: factor applied to the route value (1861's 2+2 and 5+5E double it).
    double_heads_as: two of these may run together as one train of that type
        (1825: two 2-trains as a 3-train).
    free_towns: towns do not count against its distance, and every town its route
        visits scores (1825 R1's U3: three cities, any number of towns).
    """

    name: str
    distance: Distance
    price: int
    count: int | None
    rusts_on: str | None = None
    obsolete_on: str | None = None
    multiplier: int = 1
    double_heads_as: str | None = None
    free_towns: bool = False
    note: str | None = None


TrainLimit = int | FrozenDict[str, int | None]


@dataclass(frozen=True, slots=True)
class PhaseSpec(Shared):
    """A game phase.

    starts_on: the train type whose purchase from the bank starts this phase (None
        for the phase the game starts in); starts_on_nth: it is the n-th such train.
    tiles: tile colours that may be laid.
    train_limit: trains a company may own; per company kind where kinds differ
        (1861). A kind missing from the mapping does not operate in this phase; a
        kind mapped to None has no limit.
    operating_rounds: operating rounds per stock round.
    offboard_key: the phase key selecting off-board (and other phase-valued)
        revenue; None where the title has none (1825 Unit 1).
    events: what happens when the phase starts, in the rulebook's words.
    """

    name: str
    starts_on: str | None
    starts_on_nth: int
    tiles: tuple[str, ...]
    train_limit: TrainLimit
    operating_rounds: int
    offboard_key: str | None
    events: tuple[str, ...] = ()

    def train_limit_for(self, kind: str = "major") -> int | None:
        """Train limit for a company of ``kind``; None means no limit.

        Raises LookupError if companies of that kind cannot operate in this phase.
        """
        if isinstance(self.train_limit, int):
            return self.train_limit
        if kind not in self.train_limit:
            raise LookupError(f"no {kind} companies operate in phase {self.name}")
        return self.train_limit[kind]
