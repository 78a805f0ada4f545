"""What is found about a move after its mail was answered: the better run than a
declared one (issue 33: the search left the mail's path).

A declared run stands as declared (18TN 4.2.3.1); the players are told the best run
when it earns more, so that any shareholder may insist on it. That search can take
a tenth of a second and more (1861's 8-trains across the map), so the mail service
applies the declared run at once and answers without it (`Game.declared_runs`); the
processor searches once the answer is on its way (`Processor.better_runs`, which the
service calls after a batch's flush has woken the outbox, and in its retry loop), and
the note it finds is

* added to what the run's move said in the store: every report that shows the move
  from then on (the batch's reports to the other members when they are still to
  come, the history, the final record's history) shows the note under it;
* kept for each active member whose report already showed the move (the president
  who declared it, at least): their next report shows the move again with the note
  (`late_entries`), once.

A daemon that dies between the answer and the search loses the note (the run stands
either way; nothing else depends on it).
"""

from __future__ import annotations

import json
from typing import Any

from moderator.reports.report import HistoryEntry
from moderator.store import Store

__all__ = ["late_entries", "tell_later"]

#: The store's meta key (with the game's id) of the notes owed to members.
LATE = "late_notes:"


def tell_later(store: Store, game_id: str, number: int, note: str) -> int:
    """NOTE about move NUMBER of GAME_ID, found after the move was answered (in the
    caller's transaction): said under the move, and owed to every active member whose
    report showed the move already. How many members it is owed to."""
    if not store.add_said(game_id, number, note):
        return 0
    owed = sorted({m.address for m in store.members(game_id)
                   if m.status == "active" and m.reported_move > number})
    if owed:
        notes = _notes(store, game_id)
        notes.append({"move": number, "text": note, "to": owed})
        store.set_meta(LATE + game_id, json.dumps(notes))
    return len(owed)


def late_entries(store: Store, game_id: str, address: str, since: int
                 ) -> tuple[HistoryEntry, ...]:
    """The moves before SINCE whose notes ADDRESS is owed, as its report shows them
    before the moves since its last report (in the caller's transaction: taken once)."""
    notes = _notes(store, game_id)
    mine = [n for n in notes if address in n["to"] and int(n["move"]) < since]
    if not mine:
        return ()
    for note in mine:
        note["to"] = [a for a in note["to"] if a != address]
    left = [n for n in notes if n["to"]]
    store.set_meta(LATE + game_id, json.dumps(left) if left else "[]")
    said: dict[int, list[str]] = {}
    for note in mine:
        said.setdefault(int(note["move"]), []).append(str(note["text"]))
    seats = {m.number: m.move.seat for m in store.logged_moves(game_id, min(said))
             if m.number in said}
    return tuple(HistoryEntry(number, seats.get(number, ""), tuple(lines))
                 for number, lines in sorted(said.items()))


def _notes(store: Store, game_id: str) -> list[dict[str, Any]]:
    value = store.meta(LATE + game_id)
    return list(json.loads(value)) if value else []
