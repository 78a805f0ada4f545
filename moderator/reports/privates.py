"""Private companies as a player reads them: each ability in the rulebook's words without
the notes the title data keeps for us (where the rulebook and 18xx.games differ), and
who may still use it -- the owning company, a company that buys it, or nobody any more
(used, or lost to another tile in its hex).

Read from the engine's state here, so the templates see plain data only.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.state import Private
from engine.title import PrivateSpec, Title

__all__ = ["PrivateRow", "ability_text", "private_rows", "who_may_use"]


@dataclass(frozen=True, slots=True)
class PrivateRow:
    """A private's ability and who may use it (None: nobody uses it; it works alone, or
    its text says when it acts)."""

    ability: str
    use: str | None


# A sentence of the data that speaks of the data, not of the game.
_NOTE = re.compile(r"18xx\.games|\bmap data\b|\(see (?:decisions|notes)\)|^Rulebook: ")
_SAME_AS = re.compile(r"(?: tile in (\S+))?\s*\(same conditions as #(\w+)\)")
_NONE = re.compile(r"^None(?=[;.])")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=\.)\s+(?=[A-Z])", text.strip()) if s]


def ability_text(title: Title, spec: PrivateSpec) -> str:
    """SPEC's ability for players: the data's notes to us left out, "its hex" named,
    and "same conditions as #1" spelt out from private #1's own text (which the report
    may no longer show once #1 has closed)."""
    sentences = [s for s in _sentences(spec.ability) if not _NOTE.search(s)]
    text = " ".join(sentences)
    here = ", ".join(spec.hexes)
    if here:
        text = text.replace("in its hex", f"in {here}")
    same = _SAME_AS.search(text)
    if same:
        model = next((p for p in title.privates if p.number == same.group(2)), None)
        conditions = _conditions(model) if model is not None else None
        written = same.group(1) or here  # the hex as this private's text writes it
        if conditions is not None and written:
            where, rest = conditions
            text = (text[:same.end(1) if same.group(1) else same.start()]
                    + rest.replace(where, written) + text[same.end():])
    return _NONE.sub("No special ability", text)


def _conditions(model: PrivateSpec) -> tuple[str, str] | None:
    """The conditions of MODEL's tile lay ("..., without connection ... first") and the
    hex they name, from its first sentence: "... lay one free yellow tile in H-17, ..."."""
    first = _sentences(model.ability)[0]
    found = re.search(r" tile in (\S+?)(,.*)\.$", first)
    if found is None:
        return None
    return found.group(1), found.group(2)


def who_may_use(game: Game, private: Private) -> str | None:
    """Who may still use PRIVATE's ability: the company owning it, "a company that buys
    it" while a player or the bank holds it, or why nobody may ("used", "lost: a tile
    lies on H17"). None for a private whose ability is not the owning company's to use
    (income only, or what its buyer receives at once)."""
    state, rules = game.state, game.rules
    if private.closed:
        return None
    unused = dataclasses.replace(private, ability_used=False, closed=False, uses=0)
    lays = rules.private_lays_tiles(state, unused)
    words = private.spec.ability.lower()
    if not (lays or "owning company" in words or "company owning it" in words):
        return None
    if lays and private.ability_used:
        return "nobody: its tile lay is used"
    hexes = private.spec.hexes
    if lays and private.spec.tiles and hexes and all(h in state.board.tiles for h in hexes):
        # The free lay goes on an empty hex: another tile there ends it.
        return f"nobody: a tile lies on {', '.join(hexes)}"
    owner = private.owner
    if owner is None:
        return "the company that buys it"
    if owner not in state.corporations:
        return f"a company that buys it from {owner}"
    if not private.uses:
        return owner
    times = {1: "once", 2: "twice"}.get(private.uses, f"{private.uses} times")
    now = isinstance(game.round, OperatingRound) and private.last_used == game.round.label
    return f"{owner} (used {times}{', the last in this operating round' if now else ''})"


def private_rows(game: Game) -> dict[str, PrivateRow]:
    """Each private's row of the report, by symbol."""
    state = game.state
    return {p.sym: PrivateRow(ability_text(state.title, p.spec), who_may_use(game, p))
            for p in state.privates.values()}
