"""A tile lay's connection walked back from the laid hex (`board.connected_after`, by
`track.lay_reached`) answers as the whole map traced from the company's stations
(`board.connected_after_traced`, the definition), at every lay of every recorded and
kept game: the lay made and, at every fifth lay, every other rotation of its tile on
its hex and its tile on each neighbouring hex (most of those do not connect), with and
without the hexes the title closes to the company's routes. The same for new track
alone (`board.new_track_after`, 1825 5.2.4.a, against `new_track_after_traced`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from site_results import accepted_part

from engine import board
from engine.actions import LayTile
from engine.errors import GameError
from engine.game import Game
from engine.geometry import neighbour
from engine.records import import_record, our_options
from engine.rounds.operating import OperatingRound
from engine.titles import rules_for

SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
OURS = Path(__file__).resolve().parents[1] / "fixtures"


def fixture_games() -> list[Path]:
    """Every record (the site's form) and log of ours kept under the fixtures whose
    title and options our engine plays."""
    out = []
    for folder in (SHARED, OURS):
        for path in sorted(folder.glob("*/*.json")):
            record = json.loads(path.read_text())
            if "moves" in record:
                out.append(path)  # a log of ours (Game.to_json)
                continue
            if "actions" not in record:
                continue
            title = str(record.get("title"))
            options = our_options(title, record.get("settings", {}).get("optional_rules") or ())
            try:
                rules_for(title, options)
            except (GameError, KeyError, ValueError, FileNotFoundError):
                continue
            out.append(path)
    return out


def lay_positions(path: Path) -> Iterator[tuple[Game, LayTile]]:
    """The game just before each tile lay of an operating company, and the lay."""
    record = json.loads(path.read_text())
    game = Game.from_json(record) if "moves" in record else \
        import_record(accepted_part(path)).game
    log = list(game.log)
    live = Game(game.setup)
    with live.reading_log():  # (no search for a better run at each run)
        for move in log:
            if isinstance(move.action, LayTile) and isinstance(live.round, OperatingRound) \
                    and live.round.current is not None:
                yield live, move.action
            live.apply(move.seat, move.action)


def test_the_fixtures_hold_games_of_every_title() -> None:
    if not SHARED.exists():
        pytest.fail(f"fixtures {SHARED} are missing: shared/ must sit beside the repository")
    titles = {p.parent.name for p in fixture_games()}
    assert {"18TN", "1850", "1861", "1825"} <= titles


NEW_TRACK: dict[str, int] = {}  # record -> how many lays tried add track reached


def compare_lays(path: Path) -> tuple[int, int]:
    """Both answers at the lays of the game at `path` (asserted equal): how many were
    tried, and how many connect."""
    tried = connected = new_track = 0
    for lays, (game, lay) in enumerate(lay_positions(path)):
        rules, state = game.rules, game.state
        rnd = game.round
        assert isinstance(rnd, OperatingRound)
        corp = rnd.company()
        tile = state.title.tile(lay.tile)
        grid = state.title.grid
        tries = [(lay.hex, lay.rotation)]
        if lays % 5 == 0:
            tries += [(lay.hex, r) for r in board.legal_rotations(rules, state, lay.hex,
                                                                  lay.tile)
                      if r != lay.rotation]
        for edge in range(6 if lays % 5 == 0 else 0):
            other = neighbour(grid, lay.hex, edge)
            tries += [(other, r) for r in
                      board.legal_rotations(rules, state, other, lay.tile)[:2]]
        for closed in {frozenset(), rules.hexes_closed_to_routes(state, corp)}:
            for hex_id, rotation in tries:
                fast = board.connected_after(state, corp, hex_id, tile, rotation, closed)
                full = board.connected_after_traced(state, corp, hex_id, tile, rotation,
                                                    closed)
                assert fast == full, (f"move {len(game.log)}: {corp.sym} lays {tile.name} "
                                      f"on {hex_id} rot {rotation}, closed {sorted(closed)}")
                # New track alone (1825 5.2.4.a), walked back and traced in full.
                new = board.new_track_after(state, corp, hex_id, tile, rotation, closed)
                assert new == board.new_track_after_traced(
                    state, corp, hex_id, tile, rotation, closed), (
                    f"new track: move {len(game.log)}: {corp.sym} lays {tile.name} on "
                    f"{hex_id} rot {rotation}, closed {sorted(closed)}")
                assert not new or fast  # new track reached is the lay connected
                tried += 1
                connected += fast
                new_track += new
    NEW_TRACK[path.name] = new_track
    return tried, connected


@pytest.mark.parametrize("path", fixture_games(),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_a_lay_walked_back_from_its_hex_connects_as_the_whole_map_traced(
        path: Path) -> None:
    tried, connected = compare_lays(path)
    assert (tried > 0) == (connected > 0)  # the lays made connect


def test_both_answers_occur_in_a_recorded_game() -> None:
    tried, connected = compare_lays(SHARED / "18TN" / "7818.json")
    assert 0 < connected < tried
    # A connected lay that adds no track reached occurs too (an upgrade whose new
    # paths lead nowhere the company's trains reach, its city reached).
    assert 0 < NEW_TRACK["7818.json"] < connected
