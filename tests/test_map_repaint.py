"""A map drawn again only round what changed is the map drawn whole (issue 14, speed
under a burst): `map_plate` with a BASE plate redraws the part of the picture round
the hexes whose tile, tokens or outline differ, and must give the same pixels as a
drawing from scratch, at every kind of move of real games. That part takes the base's
palette where it holds its colours, and only its rows of the PNG are compressed again:
the PNG must still be exactly the palette picture, the palette picture as close to
the drawing as a palette made anew.

The reference is the whole drawing (`map_plate` without a base, the path the goldens
check through `render_map`); positions come from the recorded games of each title
(18TN 7818, 1850 115810, 1861 167259, 1825 R1), so the boards, tokens and outlines are
real ones. Each plate is drawn for the title as a game loaded anew has it: a game with
options (1861's, 1825's) makes a Title of its own each time (issue 33).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from engine.game import Game
from engine.records import import_record
from engine.title import available_titles, load_title
from moderator.reports.mapimage import (
    BACKGROUND,
    EMPTY_BOARD,
    PALETTE_TOLERANCE,
    SUPERSAMPLE,
    BoardView,
    MapPlate,
    changed_hexes,
    hex_box,
    map_geometry,
    map_plate,
    same_title,
)
from moderator.reports.mapimage.paint import paint_hexes
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.plate import _areas, _snapshot, _words_box

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def record(title: str, number: str) -> Game:
    path = FIXTURES / title / f"{number}.json"
    if not path.exists():
        pytest.skip("the recorded games are not here")
    return import_record(json.loads(path.read_text())).game


def positions(whole: Game, moves: list[int]) -> Iterator[tuple[int, Game]]:
    """The game at each of MOVES (ascending), replayed once."""
    game = Game(whole.setup, whole.log[:moves[0]])
    for move in moves:
        while game.next_move < move:
            step = whole.log[game.next_move]
            game.apply(step.seat, step.action)
        yield move, game


def plate(game: Game, highlight: frozenset[str] = frozenset(),
          base: MapPlate | None = None) -> MapPlate:
    """GAME's plate, for the Title a game of its set-up loaded anew has (as the
    service loads a game for each mail)."""
    state = game.state
    title = Game(game.setup, []).state.title
    return map_plate(title, state.board, phase=game.rules.phase(state).name,
                     highlight=highlight, base=base)


def decoded(png: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(png))
    picture.load()
    return picture


def palette_error(plate_: MapPlate) -> int:
    """How far, at worst, a pixel's palette colour is from its drawn colour."""
    assert plate_.rgb is not None
    extrema = ImageChops.difference(plate_.image.convert("RGB"), plate_.rgb).getextrema()
    return max(high for _, high in extrema)


def assert_same(drawn: MapPlate, whole: MapPlate, where: str, bound: int = 0) -> None:
    """DRAWN (from a base) against WHOLE (drawn whole): the same picture pixel for
    pixel; its palette picture as close to it as a palette made anew (or the same,
    when the base's palette lacked a colour); its PNG exactly its palette picture."""
    assert drawn.rgb is not None and whole.rgb is not None
    if drawn.rgb.tobytes() != whole.rgb.tobytes():
        box = ImageChops.difference(drawn.rgb, whole.rgb).getbbox()
        pytest.fail(f"{where}: the pictures differ in {box}")
    # Outside the part drawn again the colours are the base's, so they are as close
    # as the base's palette (made anew, at worst) put them.
    assert palette_error(drawn) <= max(PALETTE_TOLERANCE, palette_error(whole), bound), where
    for plate_ in (drawn, whole):
        png = decoded(plate_.png(f"{where} - next move"))
        assert png.getpalette() == plate_.image.getpalette(), where
        assert png.crop((0, 0, png.width, plate_.height)).tobytes() == plate_.image.crop(
            (0, 0, png.width, plate_.height)).tobytes(), where


@pytest.mark.slow  # a whole drawing and two from a base for each of some 16 positions
@pytest.mark.parametrize(("title", "number", "moves"), [
    # Mid-game operating rounds (tiles, tokens, upgrades) and the last moves.
    ("18TN", "7818", [*range(244, 254), 300, 301, 302, 420, 421, 560, 577]),
    # 1850: double track, the Mesabi Range, phase changes between the samples.
    ("1850", "115810", [*range(300, 308), 500, 501, 700, 701, 805]),
    # 1861: yellow and green lays, tokens, the RSR's; phase changes between the samples.
    ("1861", "167259", [*range(360, 370), 500, 501, 640, 641, 670]),
    # 1825 with the R1 kit: the site's figures, a Title of its own for each load.
    ("1825", "1825_game_end_bank", [*range(268, 278), 383, 384, 385, 520, 521]),
])
def test_a_map_drawn_round_its_changes_is_the_map_drawn_whole(
        title: str, number: str, moves: list[int]) -> None:
    """Each position drawn from the plate before it, both with what changed since the
    move before outlined (a player's report) and without (an answer to a refusal),
    is the plate drawn whole (`assert_same`)."""
    whole = record(title, number)
    last: MapPlate | None = None
    before: BoardView | None = None
    repainted = 0
    bound = 0  # the worst palette error of the whole drawings so far
    for move, game in positions(whole, moves):
        changed = (changed_hexes(before, game.state.board) if before is not None
                   else frozenset())
        for outline in (changed, frozenset()):
            fresh = plate(game, outline)
            bound = max(bound, palette_error(fresh))
            if last is not None:
                drawn = plate(game, outline, base=last)
                repainted += drawn.repainted
                assert_same(drawn, fresh, f"{title} move {move} outline {sorted(outline)}",
                            bound)
                last = drawn
            else:
                last = fresh
        before = _snapshot(game.state.board)
    # The samples do go through the partial drawing, not only the whole one.
    assert repainted >= len(moves)


def test_a_base_of_another_phase_or_title_is_not_drawn_from() -> None:
    """Phase values are printed in many hexes: a plate of another phase (or title) is
    never a base; the plate is drawn whole."""
    whole = record("18TN", "7818")
    early, late = Game(whole.setup, whole.log[:100]), Game(whole.setup, whole.log[:560])
    assert early.rules.phase(early.state).name != late.rules.phase(late.state).name
    drawn = plate(late, base=plate(early))
    assert not drawn.repainted
    assert_same(drawn, plate(late), "18TN move 560 from move 100")
    other = map_plate(load_title("1850"), EMPTY_BOARD)
    assert not map_plate(load_title("18TN"), EMPTY_BOARD, base=other).repainted


def drawn_alone(title_name: str, board: object, hex_id: str | None, phase: str | None
                ) -> tuple[Image.Image, list[tuple[float, float, float, float]]]:
    """The map with only HEX_ID drawn (None: none, only the coordinates), reduced, and
    where its texts drawn after the reduction go."""
    title = load_title(title_name)
    geometry = map_geometry(title)
    width, height = geometry.size
    canvas = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), BACKGROUND)
    p = Painter(canvas, geometry.scaled(SUPERSAMPLE))
    paint_hexes(p, title, board, phase, [hex_id] if hex_id else [], frozenset(
        [hex_id] if hex_id else []))  # outlined too: the outline is the hex's
    final = canvas.reduce(SUPERSAMPLE)
    p.finish(final, SUPERSAMPLE)
    return final, [_words_box(w, SUPERSAMPLE) for w in p.later]


def reach_failures(title_name: str, board: object, phase: str | None) -> list[str]:
    """The hexes of BOARD drawing anything outside their `hex_box`."""
    title = load_title(title_name)
    geometry = map_geometry(title)
    plain, plain_words = drawn_alone(title_name, board, None, phase)
    failures = []
    for hex_id in title.hexes:
        alone, words = drawn_alone(title_name, board, hex_id, phase)
        box = hex_box(geometry, hex_id)
        found = ImageChops.difference(alone, plain).getbbox()
        texts = [w for w in words if w not in plain_words]
        for left, top, right, bottom in ([found] if found else []) + texts:
            if left < box[0] or top < box[1] or right > box[2] or bottom > box[3]:
                failures.append(f"{hex_id}: {(left, top, right, bottom)} outside {box}")
    return failures


@pytest.mark.parametrize(("title", "number", "move"), [
    ("18TN", "7818", 420), ("18TN", "7818", 577), ("1850", "115810", 805)])
def test_nothing_of_a_hex_is_drawn_beyond_its_box_in_a_real_game(
        title: str, number: str, move: int) -> None:
    """What the partial drawing relies on: each hex (its tile, track, cities, tokens,
    names, values, outline) draws only inside its box, so the hexes whose boxes meet
    a part of the map are all that is drawn there."""
    whole = record(title, number)
    game = Game(whole.setup, whole.log[:move])
    state = game.state
    assert reach_failures(title, state.board, game.rules.phase(state).name) == []


@pytest.mark.parametrize("title", sorted(available_titles()))
def test_nothing_of_a_hex_is_drawn_beyond_its_box_on_a_starting_map(title: str) -> None:
    """The same for every title's printed map (off-board areas, long names, London's
    six cities, phase value rows)."""
    assert reach_failures(title, EMPTY_BOARD, None) == []


def test_a_colour_the_palette_lacks_gives_the_picture_a_new_palette() -> None:
    """The base's palette is kept only while it holds the new part's colours: a map
    whose only token is a company's first (its colour in no hex before) is given a
    palette of its own, the one a whole drawing gives."""
    title = load_title("18TN")
    empty = map_plate(title, EMPTY_BOARD)
    home = next(h for h, spec in title.hexes.items()
                if any(r.kind == "home" for r in spec.reserved))
    company = next(r.by for r in title.hexes[home].reserved if r.kind == "home")
    token = BoardView(EMPTY_BOARD.tiles, {home: {0: [company]}})
    drawn = map_plate(title, token, base=empty)
    whole = map_plate(title, token)
    assert drawn.repainted
    assert_same(drawn, whole, f"{company} token in {home}")
    assert drawn.image.getpalette() == whole.image.getpalette()
    # An outline only (its magenta is in no palette of an unoutlined map either),
    # then taken away again: the palette the outline brought holds the plain map.
    outlined = map_plate(title, token, highlight={home}, base=drawn)
    assert_same(outlined, map_plate(title, token, highlight={home}), "outline")
    plain = map_plate(title, token, base=outlined)
    assert_same(plain, whole, "outline taken away")
    assert plain.image.getpalette() == outlined.image.getpalette()


def test_a_game_loaded_anew_is_drawn_from_its_last_plate() -> None:
    """A game with options has a Title changed by them (1861's unlimited trains, 1825's
    kit and the site's figures), made once and shared by every game of those options
    (`derived_title`): a game loaded anew is drawn from the last plate, titles of one
    content share the layout caches; a title whose content differs (another option)
    stands for itself."""
    for title, number in (("1861", "167259"), ("1825", "1825_game_end_bank")):
        whole = record(title, number)
        first, again = Game(whole.setup, []), Game(whole.setup, [])
        assert first.state.title is again.state.title  # made once (derived_title)
        assert same_title(first.state.title) is same_title(again.state.title)
        base = plate(first)
        drawn = map_plate(again.state.title, again.state.board,
                          phase=again.rules.phase(again.state).name, base=base)
        assert drawn.repainted, title
        assert_same(drawn, plate(again), f"{title} loaded again")
    plain = load_title("1861")
    whole = record("1861", "167259")
    assert whole.setup.options  # the recorded game has unlimited trains
    optioned = Game(whole.setup, []).state.title
    assert plain.trains != optioned.trains
    assert same_title(plain) is plain and same_title(optioned) is not plain


def test_changes_far_apart_are_drawn_again_apart_and_give_the_whole_drawing() -> None:
    """Hexes that changed at both ends of the board are drawn again as parts of their
    own (not the box holding both, most of the board: issue 33); with the outline
    moved from one end to the other and a tile laid in between, the picture is the
    whole drawing's, pixel for pixel."""
    whole = record("18TN", "7818")
    before, after = Game(whole.setup, whole.log[:300]), Game(whole.setup, whole.log[:320])
    changed = changed_hexes(_snapshot(before.state.board), after.state.board)
    assert changed
    title = before.state.title
    geometry = map_geometry(title).scaled(SUPERSAMPLE)
    west, east = min(title.hexes, key=geometry.centre), max(title.hexes, key=geometry.centre)
    full = (geometry.size[0], geometry.size[1])
    assert len(_areas([hex_box(geometry, h) for h in (west, east)], full)) == 2
    base = plate(before, frozenset({west}))
    drawn = plate(after, frozenset({east}), base=base)
    assert drawn.repainted
    assert_same(drawn, plate(after, frozenset({east})), "outline moved west to east")
