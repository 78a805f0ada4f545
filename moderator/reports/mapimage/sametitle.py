"""The one Title the pictures' caches and plates key on (`same_title`): a Title compares
by identity, and a game with options makes its own each time it is loaded."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar, cast

from engine.title import Title

#: Titles seen lately, by id (each kept, so its id is not another's), with the one
#: Title of the same content that stands for it (`same_title`).
_titles_seen: OrderedDict[int, tuple[Title, Title]] = OrderedDict()
_titles_by_name: dict[str, list[Title]] = {}
_titles_lock = threading.Lock()
TITLES_SEEN = 64  # a few games' loaded states at a time
#: Titles of one name kept to compare with: its variants in play (options), and the
#: cut-down ones `show HEX` draws; the least lately asked for goes first.
TITLES_PER_NAME = 16


def same_title(title: Title) -> Title:
    """The one Title of TITLE's content that the pictures' caches and plates key on.

    A Title compares by identity, and a game with options (1861's unlimited trains,
    1825's units and the site's figures) makes its own each time it is loaded: keyed
    on those, every map of such a game missed the layout caches and was never drawn
    from the plate before it (issue 33: 1861 79 ms, 1825 51 ms a plate against 18TN's
    28), and the unbounded caches kept every loaded game's Title."""
    seen = _titles_seen.get(id(title))
    if seen is not None and seen[0] is title:
        return seen[1]
    with _titles_lock:
        known = _titles_by_name.setdefault(title.name, [])
        same = next((k for k in known if k is title or all(
            getattr(k, f.name) == getattr(title, f.name) for f in fields(k))), None)
        if same is None:
            same = title
        else:
            known.remove(same)
        known.append(same)
        del known[:-TITLES_PER_NAME]
        _titles_seen[id(title)] = (title, same)
        _titles_seen.move_to_end(id(title))
        while len(_titles_seen) > TITLES_SEEN:
            _titles_seen.popitem(last=False)
    return same


C = TypeVar("C", bound=Callable[..., Any])


def title_keyed(cached: C) -> C:
    """CACHED (a function cached on its first argument, a Title) asked for `same_title`
    of the title it is given, so titles of one content share its entries."""
    def keyed(title: Title, *args: Any, **kwargs: Any) -> Any:
        return cached(same_title(title), *args, **kwargs)
    functools.update_wrapper(keyed, cached)
    keyed.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return cast(C, keyed)
