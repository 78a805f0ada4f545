"""How fast the pictures are drawn and how big they are (pytest-benchmark).

No timed asserts: the figures are for reading (``pytest tests/test_map_benchmark.py
--benchmark-columns=mean,min,max``). Sizes are asserted, as the mail reports attach
the pictures: the largest map (1861) must stay under 300 KB.

The late 1861 map is built from the tiles laid in the recorded 1861 game (its rules
are not implemented, so the record cannot be replayed; its tile lays are facts the
picture can show all the same), with every home station placed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from engine.game import Game
from engine.records import expanded, folded_actions, import_record
from engine.state import PlacedTile
from engine.title import Title, load_title
from moderator.reports import mapimage
from moderator.reports.mapimage import BoardView, changed_hexes, render_game_map, render_map
from moderator.reports.marketimage import render_game_market

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


@pytest.fixture(scope="module")
def finished() -> Game:
    return import_record(json.loads((FIXTURES / "18TN" / "7818.json").read_text())).game


def recorded_board(title: Title, record: str) -> BoardView:
    """The tiles laid in a recorded game, and every company's home station."""
    actions = expanded(folded_actions(json.loads((FIXTURES / record).read_text())["actions"]))
    tiles: dict[str, PlacedTile] = {}
    for action in actions:
        if action["type"] == "lay_tile":
            name = action["tile"].rsplit("-", 1)[0]
            if name in title.tiles and action["hex"] in title.hexes:
                tiles[action["hex"]] = PlacedTile(name, action["rotation"])
    tokens: dict[str, dict[int, list[str]]] = {}
    for corp in title.corporations:
        if corp.home is None:
            continue
        drawing = mapimage.hex_drawing(title, corp.home, tiles.get(corp.home))
        city = corp.home_city or 0
        if city < len(drawing.cities):
            slot = tokens.setdefault(corp.home, {}).setdefault(city, [])
            if len(slot) < drawing.cities[city].slots:
                slot.append(corp.sym)
    return BoardView(tiles, tokens)


def last_phase(title: Title) -> str:
    return title.phases[-1].name


def clear_layout_caches() -> None:
    mapimage.hex_drawing.cache_clear()
    mapimage.text_layout.cache_clear()


def run(benchmark: BenchmarkFixture, draw: Callable[[], bytes], limit: int) -> bytes:
    png = benchmark(draw)
    assert isinstance(png, bytes)
    benchmark.extra_info["png_bytes"] = len(png)
    assert len(png) < limit
    return png


def test_18tn_finished_map(benchmark: BenchmarkFixture, finished: Game) -> None:
    highlight = changed_hexes(Game(finished.setup, finished.log[:500]).state.board,
                              finished.state.board)
    run(benchmark, lambda: render_game_map(finished, highlight=highlight,
                                           caption="18TN 7818"), 300_000)


def test_1861_late_map(benchmark: BenchmarkFixture) -> None:
    title = load_title("1861")
    board = recorded_board(title, "1861/167259.json")
    assert len(board.tiles) > 80
    run(benchmark, lambda: render_map(title, board, phase=last_phase(title),
                                      caption="1861 late"), 300_000)


def test_1861_late_map_without_cached_layouts(benchmark: BenchmarkFixture) -> None:
    """The first picture a process draws lays out every hex."""
    title = load_title("1861")
    board = recorded_board(title, "1861/167259.json")
    pedantic: Any = benchmark.pedantic  # pytest-benchmark leaves it untyped
    png = pedantic(render_map, args=(title, board), kwargs={"phase": last_phase(title)},
                   setup=clear_layout_caches, rounds=5)
    assert len(png) < 300_000


@pytest.mark.parametrize(("title_name", "record"), [("1850", "1850/115810.json"),
                                                    ("1825", "1825/1825_game_end_bank.json")])
def test_other_late_maps(benchmark: BenchmarkFixture, title_name: str, record: str) -> None:
    title = load_title(title_name)
    board = recorded_board(title, record)
    run(benchmark, lambda: render_map(title, board, phase=last_phase(title)), 300_000)


@pytest.mark.parametrize("title_name", ["18TN", "1825", "1850", "1851", "1861"])
def test_starting_maps(benchmark: BenchmarkFixture, title_name: str) -> None:
    title = load_title(title_name)
    empty: Mapping[str, Mapping[int, Sequence[str]]] = {}
    run(benchmark, lambda: render_map(title, BoardView({}, empty)), 300_000)


def test_18tn_market(benchmark: BenchmarkFixture, finished: Game) -> None:
    run(benchmark, lambda: render_game_market(finished), 100_000)
