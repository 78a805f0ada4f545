"""Helpers of the order-language tests: the names of each title, with three seats."""

from __future__ import annotations

import functools

from engine.title import load_title
from grammar.names import Names, names_for_title

SEATS = ("Ann", "Bob", "Cy")
TITLES = ("18TN", "1850", "1851", "1861", "1825")


@functools.cache
def names(title: str = "18TN", seats: tuple[str, ...] = SEATS) -> Names:
    """The names of `title` (from the engine's title data) for a game with `seats`."""
    return names_for_title(load_title(title), seats)
