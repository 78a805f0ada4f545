"""What an 18xx.games record says beside the moves, and how each title's records read.

Records written by our own export (`engine.records.writing`) may carry extensions the site
ignores: `moderator_actions` on an action (our own actions it stands for, where the
site's form reads back as a different action of ours or the site has no form) and
`moderator_setup` on the record (our seating and Priority Deal, where the site's
convention, the first player holds it, does not give ours). Where the site writes a
title's records its own way, `site_forms` finds the title's `SiteForms`
(engine/records/forms.py); `site_difference` reads a fact of how the site plays a title
apart from our rules (docs/site-differences.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.records import forms_1825, forms_1861
from engine.records.forms import SiteForms
from engine.title import Title

# Extensions our export writes and the site ignores (see the module docstring).
OUR_ACTIONS = "moderator_actions"
OUR_SETUP = "moderator_setup"
# Marks an action the site made by itself (one of another action's auto_actions).
AUTO = "moderator_auto"
# Marks a record action carrying one of our moves exactly, with nothing of the site's
# around it (an export in our own form only, see `engine.records.writing`).
OUR_EXACT = "moderator_exact"


class RecordError(Exception):
    """The record cannot be replayed: an action our engine refused, or one it cannot map."""

    def __init__(self, index: int, record_action: dict[str, Any], message: str) -> None:
        super().__init__(f"action {index} (id {record_action.get('id')}, "
                         f"{record_action.get('type')}): {message}")
        self.index = index
        self.record_action = record_action
        self.message = message


#: How the site writes each title's records where it departs from the 1830 family's
#: forms (engine/records/forms.py); titles not named write those.
SITE_FORMS: dict[str, SiteForms] = {"1861": forms_1861.FORMS, "1825": forms_1825.FORMS}
_PLAIN_FORMS = SiteForms()


def site_forms(title: str) -> SiteForms:
    """The site's record forms for `title` (a title's name)."""
    return SITE_FORMS.get(title, _PLAIN_FORMS)


def site_options(title: str, options: frozenset[str]) -> list[str]:
    """Our game options in the site's words."""
    table = site_forms(title).option_names
    out: set[str] = set()
    for option in options:
        out.update(table.get(option, (option,)))
    return sorted(out)


def our_options(title: str, site: Iterable[str]) -> frozenset[str]:
    """The site's optional rules in our words (1825: `unit_1` plays with the site's
    figures)."""
    table = site_forms(title).option_names
    out = set(site)
    for ours, theirs in table.items():
        if set(theirs) <= out:
            out -= set(theirs)
            out.add(ours)
    return frozenset(out)


def site_difference(title: Title, key: str) -> Any:
    """A fact of how 18xx.games plays `title` apart from our rules
    (title_specific.site_differences[key]; None where the title lists none)."""
    differences = title.title_specific.get("site_differences")
    return differences.get(key) if isinstance(differences, Mapping) else None
