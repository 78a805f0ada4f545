"""The pictures' speed-ups under a burst (issue 14) change no pixel and no byte a
reader relies on: texts rendered once by `style._GlyphCachedFont` are the texts FreeType
renders, and a part's compression level keeps a large part as small as before."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw, ImageFont

from engine.title import load_title
from moderator.reports import mapimage
from moderator.reports.crop import LARGE_PART_COMPRESS_LEVEL, LARGE_PART_PIXELS, crop_map
from moderator.reports.mapimage import font, map_plate, style
from moderator.reports.mapimage.plate import _blank_canvas
from moderator.reports.mapimage.style import _font_bytes


def _drawn(face: ImageFont.FreeTypeFont) -> bytes:
    """Texts at whole and fractional places, with and without a halo, drawn twice
    (the second time from the cache, where there is one)."""
    image = Image.new("RGB", (220, 120), "#f0f0e0")
    draw = ImageDraw.Draw(image)
    for _ in range(2):
        for n, (x, y) in enumerate([(40.0, 30.0), (40.5, 30.25), (101.75, 70.5)]):
            draw.text((x, y), f"Nashville {n}", font=face, fill="#202020", anchor="mm")
            draw.text((x + 10, y + 30), "$40", font=face, fill="#000000", anchor="mm",
                      stroke_width=2, stroke_fill="#ffffff")
    return image.tobytes()


def test_a_cached_font_draws_what_freetype_draws() -> None:
    plain = ImageFont.truetype(io.BytesIO(_font_bytes(False)), 17)
    cached = font(17)
    assert isinstance(cached, style._GlyphCachedFont)
    style._glyphs.clear()
    assert _drawn(cached) == _drawn(plain)
    assert style._glyphs  # it did keep them


def test_the_glyph_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(style, "GLYPH_CACHE_SIZE", 5)
    style._glyphs.clear()
    face = font(12)
    draw = ImageDraw.Draw(Image.new("RGB", (50, 50)))
    for n in range(20):
        draw.text((10, 10), str(n), font=face, fill="#000000")
    assert len(style._glyphs) == 5


def test_a_large_part_keeps_the_smaller_encoding() -> None:
    """A part over LARGE_PART_PIXELS (most of a report's 60 KB, issue 19) is compressed
    at LARGE_PART_COMPRESS_LEVEL: no larger than the same picture at level 6."""
    title = load_title("18TN")
    plate = map_plate(title)
    image = plate.image
    spread = sorted(title.hexes)[::9]  # far apart: a large part
    part = crop_map(plate.png("x"), title, spread, image)
    assert part is not None
    with Image.open(io.BytesIO(part)) as decoded:
        assert decoded.width * decoded.height > LARGE_PART_PIXELS
        again = io.BytesIO()
        decoded.save(again, "PNG", compress_level=6)
    assert LARGE_PART_COMPRESS_LEVEL > 6
    assert len(part) < len(again.getvalue())


def test_a_reused_canvas_comes_back_blank_where_asked() -> None:
    """`_blank_canvas` hands out the last canvas of that size painted blank in the
    areas asked for: there the same pixels as a new one, whatever was drawn on it
    before; a second user meanwhile gets a canvas of its own, blank."""
    size = (64, 48)
    area = (4, 6, 30, 20)
    with _blank_canvas(size, [area]) as first:
        ImageDraw.Draw(first).rectangle((5, 5, 40, 30), fill="#123456")
        with _blank_canvas(size, [area]) as other:
            assert other is not first
            assert other.tobytes() == Image.new("RGB", size, mapimage.BACKGROUND).tobytes()
    with _blank_canvas(size, [area, (40, 0, 64, 10)]) as again:
        assert again is first
        blank = Image.new("RGB", area[2:], mapimage.BACKGROUND).crop(area)
        assert again.crop(area).tobytes() == blank.tobytes()
        assert again.getpixel((35, 25)) == (0x12, 0x34, 0x56)  # outside: left as it was


def test_a_palette_png_holds_the_pictures_pixels_in_fewer_bytes_than_pillows() -> None:
    """`palette_png` (zlib-ng, issue 33) writes the palette picture's very pixels and
    palette, in no more bytes than Pillow's PNG at the same level."""
    title = load_title("18TN")
    rgb = map_plate(title).image.convert("RGB").crop((0, 0, 500, 400))
    picture = rgb.quantize(colors=48, method=Image.Quantize.FASTOCTREE,
                           dither=Image.Dither.NONE)
    png = mapimage.palette_png(picture, 6)
    with Image.open(io.BytesIO(png)) as decoded:
        decoded.load()
        assert decoded.mode == "P" and decoded.size == picture.size
        assert decoded.tobytes() == picture.tobytes()
        assert decoded.getpalette() == picture.getpalette()
        assert decoded.convert("RGB").tobytes() == picture.convert("RGB").tobytes()
    pillows = io.BytesIO()
    picture.save(pillows, "PNG", compress_level=6)
    assert len(png) <= len(pillows.getvalue())


def test_a_captioned_plate_is_its_png_decoded() -> None:
    """`MapPlate.captioned` (what parts reaching into the caption band are cut from,
    issue 33) is the picture its PNG holds: the same indices, the same palette."""
    title = load_title("18TN")
    plate = map_plate(title, highlight={"F11"})
    for caption in ("18TN-1 - next move 300", "18TN-1 - next move 301"):
        picture = plate.captioned(caption)
        with Image.open(io.BytesIO(plate.png(caption))) as decoded:
            decoded.load()
            assert decoded.size == picture.size
            assert decoded.tobytes() == picture.tobytes()
            assert decoded.getpalette() == picture.getpalette()
