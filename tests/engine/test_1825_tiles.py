"""1825 tile promotions by the Tile Chart (1.10.1, 5.2.6): "a single town may grow into
a higher-value city"."""

from __future__ import annotations

import dataclasses

from engine import tiles
from engine.title import load_title


def test_1_10_1_a_town_tile_promotes_to_a_city_tile_keeping_its_track() -> None:
    title = load_title("1825")
    town, city = title.tile("4"), title.tile("14")  # a straight town; the X city
    assert town.promotes_to == ("14", "15")
    for rotation in range(3):
        # The X city keeps the straight track through the town, as a city, somewhere.
        assert tiles.legal_rotations(town, rotation, city)
        assert tiles.upgrade_problems(town, rotation, city) == []
    # Without the chart's entry the town cannot become a city.
    plain = dataclasses.replace(town, promotes_to=())
    assert tiles.legal_rotations(plain, 0, city) == []
    assert any("cities" in p for p in tiles.upgrade_problems(plain, 0, city))
    # Only the tiles the chart lists: not 4 to the city 12.
    assert "12" not in town.promotes_to and tiles.legal_rotations(town, 0, title.tile("12")) == []


def test_1_10_1_two_towns_grow_into_one_city() -> None:
    title = load_title("1825")
    two_towns, city = title.tile("1"), title.tile("14")
    assert two_towns.promotes_to == ("14",)
    rotations = tiles.legal_rotations(two_towns, 0, city)
    assert rotations
    # Every side the towns' track touched is still joined to the city.
    for r in rotations:
        assert tiles.exits(two_towns, 0) <= tiles.exits(city, r)


def test_1_10_1_the_new_city_must_keep_the_old_track() -> None:
    title = load_title("1825")
    straight, city = title.tile("4"), title.tile("14")  # the town's track: sides 0 and 3
    assert tiles.upgrade_problems(straight, 0, city, 0) == []  # X at 0: sides 0, 1, 3, 4
    # X turned once (sides 1, 2, 4, 5) leaves the town's track behind.
    assert any("keep all existing track" in p
               for p in tiles.upgrade_problems(straight, 0, city, 1))
