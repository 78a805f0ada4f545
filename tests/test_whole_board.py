"""The whole board as a phone can read it (issue 30, item 7): an overview a phone's
width, then the board at full scale in regions no wider than a phone shows a picture,
which together hold every hex whole."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image, ImageChops

from engine.game import Game, Setup
from engine.title import load_title
from moderator.reports.crop import (
    OVERVIEW_WIDTH,
    REGION_WIDTH,
    overview_png,
    region_pngs,
    regions,
)
from moderator.reports.mapimage import map_geometry, render_game_map

SEATS = {"18TN": 3, "1850": 3, "1861": 3, "1825": 3, "1851": 3}


@pytest.mark.parametrize("name", sorted(SEATS))
def test_every_hex_is_whole_in_a_region_no_wider_than_a_phone(name: str) -> None:
    title = load_title(name)
    geometry = map_geometry(title)
    found = regions(title)
    assert len(found) >= 3
    band = max(10, round(geometry.radius * 0.24)) + 6  # the ruler along the left
    for region in found:
        left, _, right, _ = region.box
        assert right - left + band <= REGION_WIDTH
    for hex_id in title.hexes:
        x, y = geometry.centre(hex_id)
        holding = [r for r in found
                   if r.box[0] <= x - geometry.half_width and x + geometry.half_width <= r.box[2]
                   and r.box[1] <= y - geometry.half_height
                   and y + geometry.half_height <= r.box[3]]
        assert holding, hex_id
    # Left to right, each band beginning where the one before ends, less half a hex.
    for before, after in itertools.pairwise(found):
        assert before.box[0] < after.box[0] < before.box[2]


def test_the_regions_are_the_whole_map_at_full_scale() -> None:
    """Each region shows its box of the whole map pixel for pixel (up to the palette),
    with the map's coordinates along its top and left; the overview is a phone's width
    and frames every region."""
    game = Game(Setup("1861", ("Ann", "Bob", "Cy")))
    title = game.state.title
    png = render_game_map(game)
    parts = region_pngs(png, title)
    assert len(parts) == len(regions(title)) == 6
    assert [r.label for r in regions(title)][:2] == ["columns A-C", "columns D-F"]
    with Image.open(io.BytesIO(png)) as whole:
        whole_rgb = whole.convert("RGB")
        for region, part_png in zip(regions(title), parts, strict=True):
            with Image.open(io.BytesIO(part_png)) as part:
                left, top, right, bottom = region.box
                band = part.width - (right - left)
                assert band > 0 and part.height - (bottom - top) == band
                shown = part.convert("RGB").crop((band, band, part.width, part.height))
                expected = whole_rgb.crop(region.box)
                # Same pixels but for the palette's rounding: no scaling happened.
                diff = ImageChops.difference(shown, expected).convert("L").histogram()
                differing = sum(diff[48:])
                assert differing < 0.02 * shown.width * shown.height
    with Image.open(io.BytesIO(overview_png(png, title))) as small:
        assert small.width == OVERVIEW_WIDTH
        # Each region's frame is drawn in the overview, in the regions' ink.
        ink = (0x1f, 0x5f, 0xb4)
        scale = OVERVIEW_WIDTH / whole_rgb.width
        rgb = small.convert("RGB")
        for region in regions(title):
            x = round(region.box[0] * scale) + 1
            column = [rgb.getpixel((x, y)) for y in range(rgb.height)]
            assert sum(1 for c in column if c == ink) > rgb.height / 3
