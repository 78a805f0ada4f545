"""Title modules: what each title adds to the core beyond its data file.

`rules_for(title)` returns the title's `Rules`: the core defaults plus the overrides
of its module. A title with no module of its own cannot be played yet.
"""

from __future__ import annotations

from engine.errors import GameError
from engine.rules import Rules
from engine.title import load_title


def rules_for(title: str, options: frozenset[str] = frozenset()) -> Rules:
    """The rules of `title` (any spelling `load_title` accepts) with game `options`."""
    spec = load_title(title)
    if spec.name == "18TN":
        from engine.titles.t18tn import Rules18TN

        return Rules18TN(spec, options)
    if spec.name == "1851":
        from engine.titles.t1851 import Rules1851

        return Rules1851(spec, options)
    if spec.name == "1850":
        from engine.titles.t1850 import Rules1850

        return Rules1850(spec, options)
    if spec.name == "1861":
        from engine.titles.t1861 import Rules1861

        return Rules1861(spec, options)
    if spec.name == "1825":
        from engine.titles.t1825 import Rules1825

        return Rules1825(spec, options)
    raise GameError(f"{spec.name} cannot be played yet: its rules are not implemented")


def title_options(title: str) -> dict[str, str]:
    """The game options of TITLE (`OPTIONS` of its module): name -> the rule it changes.
    A title with no module, or none, has none."""
    import importlib

    spec = load_title(title)
    try:
        module = importlib.import_module(f"engine.titles.t{spec.name.lower()}")
    except ModuleNotFoundError:
        return {}
    options: dict[str, str] = getattr(module, "OPTIONS", {})
    return dict(options)


def unknown_options(title: str, options: frozenset[str] | set[str]) -> str | None:
    """Why OPTIONS cannot be TITLE's (an option it does not have, with those it has),
    or None. For games set up here; a record from elsewhere may name options of its
    site that change nothing here."""
    known = title_options(title)
    unknown = sorted(o for o in options if o not in known)
    if not unknown:
        return None
    name = load_title(title).name
    listing = ("; its options are: " + "; ".join(f"{o} ({what})" for o, what in known.items())
               if known else " (it has none)")
    return f"{name} has no option {', '.join(unknown)}{listing}"
