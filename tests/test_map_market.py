"""The stock market picture (moderator.reports.marketimage): zones, tokens, stacking order."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from engine.game import Game
from engine.market import StockMarket
from engine.records import import_record
from engine.title import Title, available_titles, load_title
from moderator.reports.mapimage import company_colour, rgb
from moderator.reports.marketimage import (
    BAND_COLUMNS,
    ZONE_FILL,
    draw_market,
    market_geometry,
    market_part,
    part_boxes,
    render_game_market,
    render_market,
)

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def finished() -> Game:
    return import_record(json.loads(FIXTURE.read_text())).game


def picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def near(pixel: tuple[int, ...] | float | None, colour: str, tolerance: int = 40) -> bool:
    assert isinstance(pixel, tuple)
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], rgb(colour), strict=True))


def test_tokens_stand_on_their_spaces_in_company_colours(finished: Game) -> None:
    title, market = finished.state.title, finished.state.market
    image = picture(render_game_market(finished))
    g = market_geometry(title)
    assert image.size == g.size
    placed = 0
    for pos, stack in market.stacks.items():
        for depth, sym in enumerate(stack):
            x, y = g.token_centre(pos, depth, len(stack))
            r = g.token_radius(len(stack))
            x0, y0, x1, y1 = g.cell_box(pos)
            assert x0 < x < x1 and y0 < y < y1
            # Below the symbol, the token's own colour.
            assert near(image.getpixel((round(x), round(y + 0.7 * r))),
                        company_colour(title, sym)), (sym, pos)
            placed += 1
    assert placed == len(market.positions) == 6


def test_the_top_of_a_stack_is_in_front_and_numbered() -> None:
    title = load_title("18TN")
    market = StockMarket(title.market)
    for sym in ("SR", "TC", "IC", "GMO"):
        market.place(sym, (1, 12))  # each new arrival goes under the others
    assert market.stacks[(1, 12)] == ["SR", "TC", "IC", "GMO"]
    image = picture(render_market(title, market))
    g = market_geometry(title)
    r = g.token_radius(4)
    for depth in range(3):
        # Where a token and the one beneath it overlap, the upper one shows.
        x, y = g.token_centre((1, 12), depth, 4)
        x2, _ = g.token_centre((1, 12), depth + 1, 4)
        assert x2 - x < 2 * r, "the stack overlaps"
        overlap = ((x + x2) / 2, y + 0.45 * r)
        upper = market.stacks[(1, 12)][depth]
        assert near(image.getpixel((round(overlap[0]), round(overlap[1]))),
                    company_colour(title, upper)), upper
    # Each token carries its place in the stack on a white disc.
    for depth in range(4):
        x, y = g.token_centre((1, 12), depth, 4)
        assert near(image.getpixel((round(x + 0.7 * r), round(y - 0.75 * r - 0.3 * r))),
                    "#ffffff", 60)


def test_zones_are_coloured() -> None:
    title = load_title("18TN")
    image = picture(render_market(title, StockMarket(title.market)))
    g = market_geometry(title)
    for cell in title.market.cells():
        x0, y0, x1, y1 = g.cell_box((cell.row, cell.col))
        # The lower middle of an empty space: its zone's colour.
        point = ((x0 + x1) // 2, y0 + 3 * (y1 - y0) // 4)
        assert near(image.getpixel(point), ZONE_FILL.get(cell.zone, ZONE_FILL[None])), cell


@pytest.mark.parametrize("title_name", available_titles())
def test_every_title_draws_its_market(title_name: str) -> None:
    title = load_title(title_name)
    market = StockMarket(title.market)
    first = title.market.par_cells()[0]
    for c in title.corporations[:3]:
        market.place(c.sym, (first.row, first.col))
    png = render_market(title, market, caption=f"{title.name} market")
    image = picture(png)
    width, height = market_geometry(title).size
    assert image.size[0] == width and image.size[1] > height
    assert len(png) < 100_000


def test_market_golden(finished: Game) -> None:
    png = render_game_market(finished, caption="18TN 7818 at its end")
    path = GOLDEN / "market_18TN_end.png"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(png)
        return
    if not path.exists():
        pytest.fail(f"no golden {path.name}: run with UPDATE_GOLDEN=1 and look at it")
    new, old = picture(png), Image.open(path).convert("RGB")
    assert new.size == old.size
    histogram = ImageChops.difference(new, old).convert("L").histogram()
    assert sum(histogram[48:]) / (new.size[0] * new.size[1]) < 0.003


def test_a_reports_part_of_the_chart_keeps_every_token_at_full_scale() -> None:
    """1850's chart is 1800 px wide, too wide for a phone: a report shows the columns
    from the leftmost to the rightmost token and one either side, at full scale, each
    token where the whole chart has it; with a company still to start, the start spaces."""
    record = FIXTURE.parents[1] / "1850" / "115810.json"
    game = import_record(json.loads(record.read_text())).game
    at = Game(game.setup, game.log[:400])
    title, market = at.state.title, at.state.market
    whole = draw_market(title, market)
    [(left, top, right, bottom)] = part_boxes(title, market)
    part = market_part(title, market)
    assert part.size == (right - left, bottom - top) and part.width < whole.width / 2
    # Down to two rows under the lowest token: the empty bottom of the chart is left out.
    lowest = max(row for (row, _), stack in market.stacks.items() if stack)
    assert bottom == market_geometry(title).margin + (lowest + 3) * market_geometry(
        title).cell_height + 2 and part.height < whole.height
    assert_tokens_in_part(title, market, part)
    g = market_geometry(title)
    columns = [col for (_, col), stack in market.stacks.items() if stack]
    assert left < g.margin + min(columns) * g.cell_width - g.cell_width // 2
    assert right > g.margin + (max(columns) + 1) * g.cell_width + g.cell_width // 2
    # Every start space is in the part while a company may still start.
    [(par_left, _, par_right, par_bottom)] = part_boxes(title, market, par=True)
    for cell in title.market.par_cells():
        x0, _, x1, y1 = g.cell_box((cell.row, cell.col))
        assert par_left <= x0 and x1 <= par_right and y1 <= par_bottom


def assert_tokens_in_part(title: Title, market: StockMarket, part: Image.Image) -> None:
    """Each token of MARKET is in PART (the boxes one under the other) in its colour."""
    g = market_geometry(title)
    boxes = part_boxes(title, market)
    offsets = [sum(b[3] - b[1] for b in boxes[:i]) for i in range(len(boxes))]
    for pos, stack in market.stacks.items():
        for depth, sym in enumerate(stack):
            x, y = g.token_centre(pos, depth, len(stack))
            y += 0.7 * g.token_radius(len(stack))  # below the symbol: the token's colour
            [(box, offset)] = [(b, o) for b, o in zip(boxes, offsets, strict=True)
                               if b[0] <= x < b[2] and b[1] <= y < b[3]]
            point = (round(x) - box[0], round(y) - box[1] + offset)
            assert near(part.getpixel(point), company_colour(title, sym)), sym


def test_a_wide_part_is_cut_into_bands_one_under_the_other(finished: Game) -> None:
    """At 18TN's end the tokens spread over 14 columns: two bands of at most
    BAND_COLUMNS spaces, each token in one of them in its colour."""
    title, market = finished.state.title, finished.state.market
    boxes = part_boxes(title, market)
    assert len(boxes) == 2
    g = market_geometry(title)
    part = market_part(title, market)
    assert part.width <= BAND_COLUMNS * g.cell_width + g.margin
    assert_tokens_in_part(title, market, part)


def test_a_one_row_chart_is_shown_whole() -> None:
    """1825's Share Price Index is one row, drawn wrapped: the report shows all of it."""
    title = load_title("1825")
    market = StockMarket(title.market)
    first = title.market.par_cells()[0]
    market.place(title.corporations[0].sym, (first.row, first.col))
    assert market_geometry(title).wrap is not None
    assert part_boxes(title, market) == [(0, 0, *market_geometry(title).size)]
