"""The map picture (moderator.reports.mapimage): checked structurally, then against goldens.

Positions come from the finished 18TN record (its move 300 and its end) and from each
title's starting map. Pixel checks find cities and track through the renderer's own
geometry (``map_geometry``, ``slot_centre``) and compare colours with a tolerance,
because the PNG holds a 256-colour palette. Goldens live in tests/golden/; rebuild
them with ``UPDATE_GOLDEN=1 pytest tests/test_map_render.py`` after a deliberate
change of the picture, and look at them before committing.
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from engine.errors import GameError
from engine.game import Game, Setup
from engine.geometry import neighbour
from engine.records import import_record
from engine.tiles import exits
from engine.title import available_titles, load_title
from moderator.reports.mapimage import (
    APOTHEM,
    EMPTY_BOARD,
    HEX_FILL,
    HIGHLIGHT,
    BoardLike,
    BoardView,
    changed_hexes,
    company_colour,
    current_phase_key,
    hex_drawing,
    map_geometry,
    render_game_map,
    render_map,
    rgb,
    slot_centre,
    token_radius,
)

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
GOLDEN = Path(__file__).resolve().parent / "golden"
TOLERANCE = 40  # per channel: the palette may move a colour a little


@pytest.fixture(scope="module")
def finished() -> Game:
    return import_record(json.loads(FIXTURE.read_text())).game


@pytest.fixture(scope="module")
def midgame(finished: Game) -> Game:
    return Game(finished.setup, finished.log[:300])


def picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def near(pixel: tuple[int, ...], colour: str, tolerance: int = TOLERANCE) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], rgb(colour), strict=True))


def dark(pixel: tuple[int, ...]) -> bool:
    return max(pixel[:3]) < 90


def at(image: Image.Image, point: tuple[float, float]) -> tuple[int, ...]:
    value = image.getpixel((round(point[0]), round(point[1])))
    assert isinstance(value, tuple)
    return value


def starting_board(title_name: str) -> tuple[BoardLike, str | None]:
    """A title's starting map: from its rules where it has them (homes placed at the
    start show), else the bare title data."""
    title = load_title(title_name)
    seats = tuple(f"P{i}" for i in range(1, title.players_min + 1))
    try:
        game = Game(Setup(title.name, seats))
    except GameError:
        return EMPTY_BOARD, None
    return game.state.board, game.rules.phase(game.state).name


# --------------------------------------------------------------------------- structure


@pytest.mark.parametrize("which", ["midgame", "finished"])
def test_size_and_tokens_in_company_colours(which: str, request: pytest.FixtureRequest) -> None:
    game: Game = request.getfixturevalue(which)
    title, board = game.state.title, game.state.board
    image = picture(render_game_map(game))
    geometry = map_geometry(title)
    assert image.size == geometry.size
    checked = 0
    for hex_id, cities in board.tokens.items():
        for city, syms in cities.items():
            r = token_radius(geometry, title, board, hex_id, city)
            for slot, sym in enumerate(syms):
                cx, cy = slot_centre(geometry, title, board, hex_id, city, slot)
                ring = [at(image, (cx + 0.72 * r * math.cos(a), cy + 0.72 * r * math.sin(a)))
                        for a in (math.pi * k / 4 for k in range(8))]
                matching = sum(near(p, company_colour(title, sym)) for p in ring)
                # The symbol covers part of the token; most of its disc shows.
                assert matching >= 4, (hex_id, city, slot, sym, ring)
                checked += 1
    assert checked == sum(len(s) for c in board.tokens.values() for s in c.values()) > 2


def test_an_empty_station_space_is_white(midgame: Game) -> None:
    title, board = midgame.state.title, midgame.state.board
    geometry = map_geometry(title)
    image = picture(render_game_map(midgame))
    found = 0
    for hex_id, placed in board.tiles.items():
        drawing = hex_drawing(title, hex_id, placed)
        for city in drawing.cities:
            taken = len(board.tokens.get(hex_id, {}).get(city.index, []))
            homes = [r for r in title.hexes[hex_id].reserved if r.kind == "home"]
            if taken < city.slots and not homes:
                x, y = slot_centre(geometry, title, board, hex_id, city.index, taken)
                assert near(at(image, (x, y - 0.5 * city.slot_radius * geometry.radius)),
                            "#ffffff"), hex_id
                found += 1
    assert found


def _track_points(kind: str, geometry_hex: tuple[tuple[float, float], tuple[float, float]],
                  extra: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """Points along a track, computed from plain hex geometry (not the renderer's)."""
    (ax, ay), (bx, by) = geometry_hex
    if kind == "straight":
        return [(ax + (bx - ax) * t / 10, ay + (by - ay) * t / 10) for t in range(1, 10)]
    cx, cy = extra
    start, end = math.atan2(ay - cy, ax - cx), math.atan2(by - cy, bx - cx)
    sweep = (end - start + math.pi) % (2 * math.pi) - math.pi
    return [(cx + radius * math.cos(start + sweep * t / 10),
             cy + radius * math.sin(start + sweep * t / 10)) for t in range(1, 10)]


@pytest.mark.parametrize(("hex_id", "kind"), [("I6", "straight"), ("H13", "gentle"),
                                              ("I2", "sharp")])
def test_laid_track_runs_between_the_right_sides(finished: Game, hex_id: str, kind: str) -> None:
    title, board = finished.state.title, finished.state.board
    placed = board.tiles[hex_id]
    tile = title.tile(placed.name)
    sides = sorted(exits(tile, placed.rotation))
    assert len(sides) == 2 and tile.color == "yellow"
    geometry = map_geometry(title)
    image = picture(render_game_map(finished))
    a, b = (geometry.edge_midpoint(hex_id, e) for e in sides)
    R = geometry.radius
    cx, cy = geometry.centre(hex_id)
    if kind == "gentle":
        # Centred on the neighbour beyond the side between the two, radius 1.5.
        middle = sides[0] + 1 if (sides[1] - sides[0]) % 6 == 2 else sides[0] - 1
        centre, radius = geometry.centre(neighbour(title, hex_id, middle % 6)), 1.5 * R
    elif kind == "sharp":
        # Centred on the corner the two sides share, radius 0.5.
        mx, my = (a[0] + b[0]) / 2 - cx, (a[1] + b[1]) / 2 - cy
        length = math.hypot(mx, my)
        centre, radius = (cx + mx / length * R, cy + my / length * R), 0.5 * R
    else:
        centre, radius = (cx, cy), 0.0
    for point in _track_points(kind, (a, b), centre, radius):
        assert dark(at(image, point)), (hex_id, point, at(image, point))
    for edge in set(range(6)) - set(sides):
        # Just inside a side without track: the tile's own colour.
        mx, my = geometry.edge_midpoint(hex_id, edge)
        inside = (cx + (mx - cx) * 0.9, cy + (my - cy) * 0.9)
        assert near(at(image, inside), HEX_FILL["yellow"]), (hex_id, edge, at(image, inside))


def test_changed_hexes_are_outlined(midgame: Game, finished: Game) -> None:
    before = Game(finished.setup, finished.log[:250]).state.board
    changed = changed_hexes(before, midgame.state.board)
    assert changed
    assert changed_hexes(midgame.state.board, midgame.state.board) == frozenset()
    title = midgame.state.title
    geometry = map_geometry(title)
    image = picture(render_game_map(midgame, highlight=changed, caption="since 250"))
    assert image.size[1] > geometry.size[1]  # the caption band with the key
    for hex_id in changed:
        cx, cy = geometry.centre(hex_id)
        ring = []
        for edge in range(6):
            mx, my = geometry.edge_midpoint(hex_id, edge)
            ring.append(at(image, (cx + (mx - cx) * 0.93, cy + (my - cy) * 0.93)))
        assert sum(near(p, HIGHLIGHT) for p in ring) >= 4, hex_id


def test_phase_values_in_force() -> None:
    tn = load_title("18TN")
    cincinnati = tn.hexes["A16"].offboard
    assert cincinnati is not None
    assert current_phase_key(tn, cincinnati, "2") == "yellow"
    assert current_phase_key(tn, cincinnati, "8") == "brown"
    assert current_phase_key(tn, cincinnati, None) == "yellow"
    assert current_phase_key(tn, 20, "8") is None
    assert current_phase_key(tn, cincinnati, "brown") == "brown"  # a phase key will do
    with pytest.raises(ValueError, match="no phase or phase key"):
        current_phase_key(tn, cincinnati, "9")
    t1850 = load_title("1850")
    west = t1850.hexes["F1"].offboard  # yellow and brown values only
    assert west is not None
    last = t1850.phases[-1].name
    assert current_phase_key(t1850, west, last) == "brown"


def test_the_same_position_gives_the_same_bytes(midgame: Game) -> None:
    assert render_game_map(midgame) == render_game_map(midgame)


def test_a_board_view_draws_like_the_board(midgame: Game) -> None:
    board = midgame.state.board
    view = BoardView(dict(board.tiles), {h: dict(c) for h, c in board.tokens.items()})
    phase = midgame.rules.phase(midgame.state).name
    assert render_map(midgame.state.title, view, phase=phase) == render_game_map(midgame)


@pytest.mark.parametrize("title_name", available_titles())
def test_every_title_draws_its_starting_map(title_name: str) -> None:
    title = load_title(title_name)
    board, phase = starting_board(title_name)
    png = render_map(title, board, phase=phase)
    assert len(png) < 300_000
    image = picture(png)
    geometry = map_geometry(title)
    assert image.size == geometry.size
    for hex_id, spec in title.hexes.items():
        fill = hex_drawing(title, hex_id, board.tiles.get(hex_id)).fill
        cx, cy = geometry.centre(hex_id)
        corners = geometry.corners(hex_id, inset=0.2)
        # Near the corners, away from the middle's track and texts, the hex's colour.
        seen = sum(near(at(image, c), HEX_FILL[fill]) for c in corners)
        assert seen >= 2, (hex_id, spec.color, [at(image, c) for c in corners])
        assert 0 <= cx < image.size[0] and 0 <= cy < image.size[1]


# --------------------------------------------------------------------------- goldens


def matches_golden(name: str, png: bytes) -> None:
    """Compare with tests/golden/<name>.png: same size; a small share of pixels may
    differ (another FreeType may place a glyph's edge pixels differently)."""
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(png)
        return
    if not path.exists():
        pytest.fail(f"no golden {path.name}: run with UPDATE_GOLDEN=1 and look at it")
    new, old = picture(png), Image.open(path).convert("RGB")
    assert new.size == old.size, f"{name}: size {new.size}, golden {old.size}"
    difference = ImageChops.difference(new, old).convert("L")
    histogram = difference.histogram()
    pixels = new.size[0] * new.size[1]
    differing = sum(histogram[48:])
    mean = sum(i * n for i, n in enumerate(histogram)) / pixels
    assert differing / pixels < 0.003 and mean < 1.0, (
        f"{name}: {differing} pixels differ (mean {mean:.2f}); if the change is meant, "
        "rebuild with UPDATE_GOLDEN=1 and look at tests/golden/" + path.name)


@pytest.mark.parametrize("title_name", available_titles())
def test_starting_map_golden(title_name: str) -> None:
    board, phase = starting_board(title_name)
    title = load_title(title_name)
    matches_golden(f"map_{title.name}_start",
                   render_map(title, board, phase=phase, caption=f"{title.name} starting map"))


def test_finished_18tn_golden(finished: Game, midgame: Game) -> None:
    highlight = changed_hexes(midgame.state.board, finished.state.board)
    matches_golden("map_18TN_end", render_game_map(finished, highlight=highlight,
                                                   caption="18TN 7818 at its end"))


def test_golden_comparison_catches_a_change(midgame: Game, finished: Game) -> None:
    if os.environ.get("UPDATE_GOLDEN") == "1" or not (GOLDEN / "map_18TN_end.png").exists():
        pytest.skip("goldens are being rebuilt")
    with pytest.raises(AssertionError):
        matches_golden("map_18TN_end", render_game_map(midgame))


def test_edges_run_clockwise_from_the_schema_directions() -> None:
    # pointy: 0 SW, 1 W, 2 NW, 3 NE, 4 E, 5 SE; flat: 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE.
    expected = {"18TN": ["SW", "W", "NW", "NE", "E", "SE"],
                "1861": ["S", "SW", "NW", "N", "NE", "SE"]}
    for name, compass in expected.items():
        title = load_title(name)
        g = map_geometry(title)
        hex_id = next(iter(title.hexes))
        cx, cy = g.centre(hex_id)
        for edge, direction in enumerate(compass):
            x, y = g.edge_midpoint(hex_id, edge)
            dx, dy = x - cx, y - cy
            assert math.isclose(math.hypot(dx, dy), APOTHEM * g.radius)
            assert ("N" in direction) == (dy < -1e-6) and ("S" in direction) == (dy > 1e-6)
            assert ("W" in direction) == (dx < -1e-6) and ("E" in direction) == (dx > 1e-6)
            # The neighbour across that side lies the same way, one hex away.
            nx, ny = g.centre(neighbour(title, hex_id, edge))
            assert math.isclose(nx - cx, 2 * dx, abs_tol=1e-6)
            assert math.isclose(ny - cy, 2 * dy, abs_tol=1e-6)


def test_1850_tokens_outside_cities_stand_on_their_hexes() -> None:
    """1850's edge tokens (7.4) and Mesabi tokens (6.5.1) are drawn on their hexes in
    company colours, at places the hex's texts leave free, and count as a change."""
    from moderator.reports.mapimage import MARKER_RADIUS, marker_places, text_layout

    title = load_title("1850")
    assert marker_places(title) == {"A2": 3, "M2": 1, "C20": 1, "F1": 1, "A10": 4}
    bare = BoardView({}, {})
    # Colours far from the hexes' own (MILW's orange is within the tolerance of red).
    board = BoardView({}, {}, {"A2": ("NP", "GN"), "A10": ("UP",), "F1": ("GN",)})
    assert changed_hexes(bare, board) == {"A2", "A10", "F1"}
    image = picture(render_map(title, board))
    before = picture(render_map(title, bare))
    geometry = map_geometry(title)
    for hex_id, syms in board.markers.items():
        places = text_layout(title, hex_id, None).markers
        assert len(places) == marker_places(title)[hex_id]
        for sym, place in zip(syms, places, strict=False):
            cx, cy = geometry.to_pixels(hex_id, place)
            r = MARKER_RADIUS * geometry.radius
            ring = [at(image, (cx + 0.75 * r * math.cos(a), cy + 0.75 * r * math.sin(a)))
                    for a in (math.pi * k / 4 for k in range(8))]
            assert sum(near(p, company_colour(title, sym)) for p in ring) >= 4, (hex_id, sym)
            ring_before = [at(before, (cx + 0.75 * r * math.cos(a),
                                       cy + 0.75 * r * math.sin(a)))
                           for a in (math.pi * k / 4 for k in range(8))]
            assert sum(near(p, company_colour(title, sym)) for p in ring_before) < 4
