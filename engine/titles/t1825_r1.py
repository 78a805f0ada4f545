"""1825 Regional Kit R1 (Wales), the game option `r1`: Unit 1's map, tiles and bank
widened by the kit (data/1825.json, title_specific "r1").

Our rulebook (shared/rules/1825-unit1.txt) has no text of the kit; its facts are read
from 18xx.games' 1825 data, which the one recorded R1 game
(shared/fixtures/1825/1825_game_end_bank.json) was played on: the Welsh hexes, the kit's
tiles, £2000 more in the bank (£1000 for each of its two minor companies) and a higher
certificate limit.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from engine.geometry import edge_between
from engine.title import Title, build_title, read_title_json

if TYPE_CHECKING:
    from engine.state import GameState
    from engine.walks import Walk

OPTION = "r1"


def _merged(raw: dict[str, Any]) -> dict[str, Any]:
    """Unit 1's raw data with the kit's facts laid over it."""
    kit = raw["title_specific"]["r1"]
    out = dict(raw)
    out["full_title"] = f"{raw['full_title']} with {kit['name']}"
    out["bank"] = raw["bank"] + kit["bank"]
    out["cert_limit"] = {n: limit + kit["cert_limit"].get(n, 0)
                         for n, limit in raw["cert_limit"].items()}
    # The kit's hexes replace the gray edge of Unit 1 where Wales lies.
    out["hexes"] = {**raw["hexes"], **kit["hexes"]}
    manifest = dict(raw["tile_manifest"])
    for name, count in kit["tile_manifest"].items():
        manifest[name] = manifest.get(name, 0) + count
    out["tile_manifest"] = manifest
    out["tiles"] = {**raw.get("tiles", {}), **kit["tiles"]}
    # Its minors and their own trains (engine/titles/t1825_minors.py; the trains are
    # taken out of the bank's at set-up).
    out["corporations"] = [*raw["corporations"],
                           *({k: v for k, v in c.items() if k != "required_train"}
                             for c in kit["corporations"])]
    out["trains"] = [*raw["trains"],
                     *({k: v for k, v in t.items() if k != "for"} for t in kit["trains"])]
    return out


@functools.cache
def r1_title() -> Title:
    """1825 Unit 1 with the kit (built once and shared, as every title is)."""
    return build_title(_merged(read_title_json("1825.json")), "1825.json (r1)")


def with_r1(title: Title) -> Title:
    """The title for a game with the option; `title` must be Unit 1's."""
    assert title.name == "1825"
    return r1_title()


# --- the halt (the kit's tile 11) -----------------------------------------------------------

#: The kit's tile 11 carries a halt where its e2-e4 track passes: a stop no train counts
#: against its distance and only T-trains score, £10 (18xx.games' HALT, visit_cost 0).
#: Our tile 11 is its track alone; a T-train's route along that track earns the halt.
HALT_TILE = "11"
HALT_EDGES = (2, 4)
HALT_REVENUE = 10
T_TRAINS = frozenset({"3T", "4T"})


def halts_passed(state: GameState, train: str, walk: Walk) -> int:
    """The halts a T-train's route passes (0 for any other train)."""
    return len(halts_on(state, walk)) if train in T_TRAINS else 0


def halts_on(state: GameState, walk: Walk) -> tuple[int, ...]:
    """Where a route passes a halt: the places in `walk.hexes` of the tiles 11 it
    crosses along the halt's track (any train; only T-trains score it)."""
    out = []
    hexes = walk.hexes
    for i in range(1, len(hexes) - 1):
        placed = state.board.tiles.get(hexes[i])
        if placed is None or placed.name != HALT_TILE:
            continue
        sides = {edge_between(state.title, hexes[i], hexes[i - 1]),
                 edge_between(state.title, hexes[i], hexes[i + 1])}
        if sides == {(e + placed.rotation) % 6 for e in HALT_EDGES}:
            out.append(i)
    return tuple(out)


def halts_bound(title: Title, train: str) -> int:
    """The most a T-train's route can earn from halts: every halt tile laid."""
    if train not in T_TRAINS:
        return 0
    return HALT_REVENUE * (title.tile_manifest.get(HALT_TILE) or 0)
