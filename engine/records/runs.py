"""A run in the site's form: `run_form` writes the operating company's routes as the
site's `run_routes` (node-to-node `connections`, its train ids); `idle_alike` says when
two passes read back alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from engine import optimizer
from engine.actions import Done, Pass, RunRoutes
from engine.game import Game, Move
from engine.records import forms_1825
from engine.records.conventions import site_forms
from engine.records.ledgers import site_train_ids
from engine.rounds.operating import OperatingRound
from engine.state import GameState, Train
from engine.track import Node, Side, neighbour_of, rotated_paths, tile_on
from engine.walks import TrainRun, Walk


def run_form(game: Game, action: RunRoutes, ids: Mapping[str, str] | None = None
             ) -> dict[str, Any]:
    """The site's `run_routes` for the operating company's run ACTION at the position
    (`run auto`: the best run); IDS: our train ids -> the site's (`site_train_ids`)."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp, state = rnd.company(), game.state
    if ids is None:
        ids = site_train_ids(state.title)
    run = optimizer.run_for(game.rules, state, corp, action)
    unused = list(corp.trains)
    out = []
    for train_run in run.runs:
        if train_run.train not in {t.name for t in corp.trains}:
            out += _double_headed(ids, unused, train_run)
            continue
        # check_run gives each declared route the first unused train of its type.
        train = next(t for t in unused if t.name == train_run.train)
        unused.remove(train)
        walk = train_run.walk
        ident = forms_1825.site_train_id(train.id)  # 1825: a leased train
        nodes = node_places(walk, site_forms(state.title.name).passed_nodes(state, walk),
                            state)
        out.append({"train": ids.get(ident, ident),
                    "connections": connections(walk, nodes),
                    "hexes": [walk.hexes[at] for at in nodes],
                    "revenue": train_run.revenue})
    return {"type": "run_routes", "routes": out}


def _double_headed(ids: Mapping[str, str], unused: list[Train], train_run: TrainRun
                   ) -> list[dict[str, Any]]:
    """1825 5.5.5: two 2-trains run as one (`2+2`). The site takes them as two routes of
    two stops sharing the middle one; a route of two stops is one train's."""
    head = train_run.train.split("+")[0]
    pair = [t for t in unused if t.name == head][:2]
    walk = train_run.walk
    chains = connections(walk)
    out = []
    for i, train in enumerate(pair[:len(chains)]):
        unused.remove(train)
        out.append({"train": ids.get(train.id, train.id), "connections": [chains[i]],
                    "hexes": [walk.stops[i].hex, walk.stops[i + 1].hex],
                    "revenue": train_run.revenue if i == 0 else 0})
    return out


def node_places(walk: Walk, passed: Sequence[int] = (), state: GameState | None = None
                ) -> list[int]:
    """The places in `walk.hexes` of the site's nodes of a route, in order: its stops,
    and the stops of the site's it passes that ours are not (`passed`: 1825 R1's halts,
    `SiteForms.passed_nodes`). A route may pass a hex twice, once on track that misses
    its stop (1861's gray Dünaburg, C5: a town and a separate through-track): with the
    position (`state`) a stop's place is where the route enters or leaves the hex by
    the stop's own track, else the hex's first place from there."""
    at: list[int] = []
    position = 0
    for stop in walk.stops:
        while walk.hexes[position] != stop.hex:
            position += 1
        if state is not None:
            position = _stop_place(state, walk, stop, position)
        at.append(position)
    # (Two stops of one hex keep a place each: the site's chain between them is that hex.)
    return sorted([*at, *(p for p in passed if p not in at)])


def _stop_place(state: GameState, walk: Walk, stop: Node, first: int) -> int:
    """The place of `stop` in `walk.hexes` from `first` on (its hex's first place
    there): the first place of its hex whose hex before or after is a neighbour across
    a side the stop's track reaches on its tile."""
    hexes = walk.hexes
    places = [i for i in range(first, len(hexes)) if hexes[i] == stop.hex]
    if len(places) < 2:
        return first
    tile, rotation = tile_on(state, stop.hex)
    if tile is None:
        return first
    paths = rotated_paths(tile, rotation, stop.hex)
    # The sides the stop's track reaches, through junctions but no other stop.
    sides: set[int] = set()
    seen: set[Node] = {stop}
    todo = [stop]
    while todo:
        point = todo.pop()
        for a, b in paths:
            for here, there in ((a, b), (b, a)):
                if here != point:
                    continue
                if isinstance(there, Side):
                    sides.add(there.edge)
                elif there.kind == "j" and there not in seen:
                    seen.add(there)
                    todo.append(there)
    beside = {neighbour_of(state.title, stop.hex, edge) for edge in sides}
    for i in places:
        if (i > 0 and hexes[i - 1] in beside) or (i + 1 < len(hexes) and hexes[i + 1] in beside):
            return i
    return first


def connections(walk: Walk, nodes: Sequence[int] | None = None) -> list[list[str]]:
    """A route as the site's node-to-node chains: the hexes from each node to the next
    (`nodes`: their places in `walk.hexes`, `node_places`; by default its stops)."""
    at = node_places(walk) if nodes is None else nodes
    return [list(walk.hexes[a:b + 1]) for a, b in itertools.pairwise(at)]


def idle_alike(a: Move, b: Move) -> bool:
    """In a stock round `pass` and `done` of a player who has not acted do the same (he
    passes); the site records neither for a player with nothing to do, and the importer
    makes his pass again: so our `done` there reads back as `pass`."""
    return a.seat == b.seat and {type(a.action), type(b.action)} <= {Pass, Done}
