"""The random player the random-game tests share: a random accepted action, nudged to
keep games moving (run, pay, seldom idle)."""

from __future__ import annotations

import random

from engine.actions import Action, Dividend, Done, Pass, RunRoutes


def choose(rng: random.Random, options: list[Action]) -> Action:
    """A random action of OPTIONS: the best run when running, a dividend when one is
    due, and something other than passing four times in five."""
    runs = [a for a in options if isinstance(a, RunRoutes) and a.auto]
    if runs:
        return runs[0]
    pays = [a for a in options if isinstance(a, Dividend)]
    if pays:
        return rng.choice(pays)
    busy = [a for a in options if not isinstance(a, Pass | Done)]
    if busy and rng.random() < 0.8:
        return rng.choice(busy)
    return rng.choice(options)
