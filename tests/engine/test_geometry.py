"""Hex ids, neighbours, edges and rotation, checked against every title's map."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.geometry import (
    EDGES,
    Grid,
    distance,
    edge_between,
    edge_name,
    is_grid_position,
    neighbour,
    neighbours,
    opposite,
    parse_hex_id,
    rotate_edge,
)
from engine.title import Title, available_titles, endpoint_index, endpoint_kind, load_title

TITLES = available_titles()


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("H5", "H5"), ("H-5", "H5"), ("h5", "H5"), (" h-05 ", "H5"), ("@18", "@18"), ("P0", "P0")],
)
def test_parse_hex_id(text: str, canonical: str) -> None:
    assert parse_hex_id(text) == canonical


@pytest.mark.parametrize("text", ["", "5H", "HH5", "H", "H-", "H5.5", "H--5", "#5"])
def test_parse_hex_id_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a hex id"):
        parse_hex_id(text)


def test_opposite_and_rotate() -> None:
    assert [opposite(e) for e in EDGES] == [3, 4, 5, 0, 1, 2]
    assert rotate_edge(0, 1) == 1 and rotate_edge(5, 1) == 0 and rotate_edge(2, 6) == 2
    assert rotate_edge(4, -1) == 3
    with pytest.raises(ValueError):
        opposite(6)


def test_1851_worked_example() -> None:
    # coords text: "F12's neighbours are G11, F10, E11, E13, F14, G13"
    t = load_title("1851")
    assert neighbours(t, "F12") == ("G11", "F10", "E11", "E13", "F14", "G13")
    assert neighbours(t.grid, "F-12") == neighbours("pointy", "f12")


def test_1851_at_row() -> None:
    t = load_title("1851")
    # Cincinnati '@18' meets A17 (SW) and A19 (SE): its paths leave by edges 0 and 5
    assert neighbour(t, "@18", 0) == "A17" and neighbour(t, "@18", 5) == "A19"
    assert neighbour(t, "A17", 3) == "@18" and neighbour(t, "A19", 2) == "@18"
    # above the '@' row there is no letter: a distinct off-grid id that maps back
    up = neighbour(t, "@18", 2)
    assert up not in t.hexes and neighbour(t, up, 5) == "@18"


def test_pointy_examples_from_coords_text() -> None:
    mw = load_title("1850")
    # "A2 edge 0 <-> B1 edge 3, I20 edge 1 <-> Chicago I18"
    assert neighbour(mw, "A2", 0) == "B1" and neighbour(mw, "B1", 3) == "A2"
    assert neighbour(mw, "I20", 1) == "I18"
    uk = load_title("1825")
    # 0 SW next letter number-1 ... 5 SE next letter number+1
    assert neighbours(uk, "V20") == ("W19", "V18", "U19", "U21", "V22", "W21")


def test_flat_examples_from_coords_text() -> None:
    ru = load_title("1861")
    assert ru.grid == Grid("flat", "columns", 1, True)
    # 0 S same letter +2; 1 SW previous letter +1; 2 NW previous -1; 3 N same -2;
    # 4 NE next letter -1; 5 SE next letter +1
    assert neighbours(ru, "H8") == ("H10", "G9", "G7", "H6", "I7", "I9")
    assert edge_name(ru, 3) == "N" and edge_name(load_title("18TN"), 3) == "NE"


def test_edge_between_and_distance() -> None:
    t = load_title("1851")
    assert edge_between(t, "F12", "G13") == 5 and edge_between(t, "F12", "F16") is None
    assert distance(t, "F12", "F12") == 0
    assert distance(t, "F12", "G13") == 1
    assert distance(t, "F12", "F16") == 2
    assert distance(t, "A5", "J6") == 9
    ru = load_title("1861")
    assert distance(ru, "H8", "H10") == 1 and distance(ru, "H8", "H12") == 2
    assert distance(ru, "H8", "K7") == 3 and distance(ru, "E1", "H8") == 5


@pytest.mark.parametrize("name", TITLES)
def test_ids_are_grid_positions(name: str) -> None:
    t = load_title(name)
    for hex_id in t.hexes:
        assert parse_hex_id(hex_id) == hex_id
        assert is_grid_position(t, hex_id), hex_id
        assert all(is_grid_position(t, n) for n in neighbours(t, hex_id))


@pytest.mark.parametrize("name", TITLES)
def test_neighbour_symmetry_on_every_map(name: str) -> None:
    t = load_title(name)
    for hex_id in t.hexes:
        for e in EDGES:
            other = neighbour(t, hex_id, e)
            assert neighbour(t, other, opposite(e)) == hex_id
            assert distance(t, hex_id, other) == 1


@given(
    layout=st.sampled_from(["pointy", "flat"]),
    letter=st.integers(min_value=2, max_value=23),
    number=st.integers(min_value=2, max_value=40),
    edge=st.sampled_from(EDGES),
    steps=st.lists(st.sampled_from(EDGES), max_size=6),
)
def test_neighbour_symmetry_anywhere(
    layout: str, letter: int, number: int, edge: int, steps: list[int]
) -> None:
    grid = Grid("pointy", "rows") if layout == "pointy" else Grid("flat", "columns")
    start = f"{chr(ord('A') + letter)}{number}"
    assert neighbour(grid, neighbour(grid, start, edge), opposite(edge)) == start
    here = start
    for s in steps:
        here = neighbour(grid, here, s)
    assert distance(grid, start, here) <= len(steps)
    for s in reversed(steps):
        here = neighbour(grid, here, opposite(s))
    assert here == start


def _facing_problem(t: Title, hex_id: str, edge: int) -> str | None:
    """Why track leaving ``hex_id`` by ``edge`` would not meet the map properly."""
    h = t.hexes[hex_id]
    if edge in h.borders:
        return "runs into an impassable side"
    other_id = neighbour(t, hex_id, edge)
    other = t.hexes.get(other_id)
    if other is None:
        return f"runs off the map to {other_id}"
    facing = opposite(edge)
    if facing in other.borders:
        return f"{other_id} has an impassable side there"
    if other.paths:
        if facing not in {e for p in other.paths for e in p.edges}:
            return f"{other_id} has track but none on its edge {facing}"
    elif not other.buildable:
        return f"{other_id} is {other.color} with no track"
    return None


@pytest.mark.parametrize("name", TITLES)
def test_preprinted_track_meets_the_map(name: str) -> None:
    """Every preprinted path and red off-board path that leaves a hex side meets an
    on-map hex across a passable side; where that hex is preprinted with track, it
    has track on the facing side, otherwise it can still be built on."""
    t = load_title(name)
    problems = []
    checked = 0
    for h in t.hexes.values():
        for p in h.paths:
            for ep in p.endpoints:
                if endpoint_kind(ep) == "e":
                    checked += 1
                    why = _facing_problem(t, h.id, endpoint_index(ep))
                    if why:
                        problems.append(f"{h.id} {p}: {why}")
    assert checked > 0
    assert problems == []


@pytest.mark.parametrize("name", TITLES)
def test_impassable_sides_are_recorded_on_both_hexes(name: str) -> None:
    t = load_title(name)
    for h in t.hexes.values():
        for e in h.borders:
            other = t.hexes.get(neighbour(t, h.id, e))
            assert other is None or opposite(e) in other.borders, (h.id, e)


def _broken_joins(t: Title, relabel: dict[int, int]) -> int:
    """Preprinted joins that fail if edge e really pointed the way edge relabel[e] does."""
    broken = 0
    for h in t.hexes.values():
        for p in h.paths:
            for e in p.edges:
                other = t.hexes.get(neighbour(t, h.id, relabel[e]))
                if other is None or (
                    other.paths and opposite(e) not in {x for q in other.paths for x in q.edges}
                ):
                    broken += 1
    return broken


@pytest.mark.parametrize("name", ["18TN", "1850"])
def test_every_other_rotation_or_mirror_breaks_joins(name: str) -> None:
    """The coords texts claim every other rotation or mirror of the neighbour table
    breaks at least 9 preprinted joins; the table used here breaks none."""
    t = load_title(name)
    assert _broken_joins(t, {e: e for e in EDGES}) == 0
    tables = [{e: (e + k) % 6 for e in EDGES} for k in range(1, 6)]
    tables += [{e: (k - e) % 6 for e in EDGES} for k in range(6)]
    for table in tables:
        assert _broken_joins(t, table) >= 9, table
