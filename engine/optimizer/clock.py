"""The search's budget (engine.optimizer): steps counted, the clock looked at now and then."""

from __future__ import annotations

import time

_CHECK_EVERY = 1024  # search steps between looks at the clock


class OutOfTime(Exception):
    """The budget ran out: the search unwinds and keeps the best run found so far."""


class Clock:
    """Counts search steps and looks at the time now and then."""

    def __init__(self, deadline: float | None, most_steps: int | None = None) -> None:
        self.deadline = deadline
        self.most_steps = most_steps
        self.steps = 0
        self._since = 0
        self.expired = False

    def tick(self) -> None:
        self._since += 1
        if self._since >= _CHECK_EVERY:
            self.steps += self._since
            self._since = 0
            if (self.deadline is not None and time.thread_time() > self.deadline) or (
                    self.most_steps is not None and self.steps >= self.most_steps):
                # Each later search gets a few more steps, so a train cut short
                # still finds a route.
                self.expired = True
                raise OutOfTime

    @property
    def count(self) -> int:
        return self.steps + self._since
