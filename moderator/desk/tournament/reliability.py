"""A person's reliability across every game on the service (the Diplomacy judges'
rating): turns answered on time, turns answered late, turns the clock passed for
them, resignations, replacements. Pure: the desk counts, this judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Reliability"]


@dataclass(frozen=True, slots=True)
class Reliability:
    """ADDRESS's record. `answered`: their mails that made moves; `late`: of those, the
    ones after a deadline had passed (a game that waits); `missed`: deadlines at which
    the clock passed for them (a game that passes); `resigned`: seats they resigned;
    `replaced`: seats a tournament director gave to a substitute."""

    address: str
    answered: int
    late: int
    missed: int
    resigned: int
    replaced: int

    @property
    def on_time(self) -> int:
        return max(self.answered - self.late, 0)

    @property
    def percent(self) -> Fraction | None:
        """Turns on time as a percentage of every turn owed (answered, missed, and one
        for each resignation or replacement). None: no record yet."""
        owed = self.answered + self.missed + self.resigned + self.replaced
        return None if owed == 0 else Fraction(100 * self.on_time, owed)

    def meets(self, minimum: int | None) -> bool:
        """Whether the record meets a director's MINIMUM percent (no record meets any:
        a newcomer is not kept out)."""
        percent = self.percent
        return minimum is None or percent is None or percent >= minimum

    def line(self) -> str:
        percent = self.percent
        rate = "no record yet" if percent is None else f"{float(percent):.0f}% on time"
        return (f"{self.address}: {rate} ({self.on_time} on time, {self.late} late, "
                f"{self.missed} passed by the clock, {self.resigned} resigned, "
                f"{self.replaced} replaced)")
