"""Title data is frozen and shared: `Shared` (never copied with a game state),
`FrozenDict` (an immutable, hashable mapping), `freeze` (parsed JSON made so) and
`per_title` (what the engine keeps for each title it meets).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Shared:
    """Immutable title data is shared, never copied: a game state that is deep-copied
    (to try an action, or to undo one) keeps pointing at the same specs."""

    __slots__ = ()

    def __copy__(self) -> Shared:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Shared:
        return self


class FrozenDict(Shared, Mapping[K, V]):
    """An immutable, hashable mapping, so specs stay frozen all the way down."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


def freeze(value: object) -> object:
    """Deep-freeze parsed JSON: dicts become FrozenDicts, lists tuples."""
    if isinstance(value, dict):
        return FrozenDict((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def per_title(kept: dict[int, tuple[object, dict[K, V]]], title: object) -> dict[K, V]:
    """The dict `kept` holds for `title`, a new one for a title not met before. Kept by
    identity (a title is shared by every game of its options), with the title itself, so
    that an id reused once a title is gone is not taken for it."""
    found = kept.get(id(title))
    if found is None or found[0] is not title:
        found = kept[id(title)] = (title, {})
    return found[1]
