"""Helpers of the order-language tests: the names of each title, with three seats."""

from __future__ import annotations

import functools

from engine.title import load_title
from engine.titles import rules_for
from grammar.names import Names, names_for_title

SEATS = ("Ann", "Bob", "Cy")
TITLES = ("18TN", "1850", "1851", "1861", "1825")


@functools.cache
def names(title: str = "18TN", seats: tuple[str, ...] = SEATS) -> Names:
    """The names of `title` (from the engine's title data) for a game with `seats`;
    1825's with its Regional Kit R1 (game option `r1`: its minors and their trains)."""
    if title == "1825":
        return names_for_title(rules_for("1825", frozenset({"r1"})).title, seats)
    return names_for_title(load_title(title), seats)
