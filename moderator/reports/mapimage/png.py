"""Palette pictures as PNG bytes, written here rather than by Pillow: a plate keeps its
compressed rows (`PngStream`), and rows are deflated by zlib-ng (`palette_png`)."""

from __future__ import annotations

import functools
import struct
import zlib

from PIL import Image
from zlib_ng import zlib_ng

#: Rows of a plate compressed together (`PngStream`): few enough that a change in one
#: hex compresses a sixth of the picture again, many enough to cost the PNG little.
SEGMENT_ROWS = 32


class PngStream:
    """A palette picture's PNG, its rows from TOP on given anew for each picture.

    Written here rather than by Pillow so the compressed rows are kept. The rows above
    TOP are compressed in segments of SEGMENT_ROWS rows, each on its own (raw deflate
    ended by a full flush, which a decoder reads as one stream): a picture with the same
    palette that differs from another only in some rows (SAME: the other's stream and
    the spans of rows, first to stop, that differ) compresses only the segments those
    rows fall in, and sums (Adler-32) only their rows. Rows are unfiltered, as Pillow
    writes palette pictures; the result is a plain PNG (8-bit palette, no interlace)."""

    def __init__(self, image: Image.Image, top: int,
                 same: tuple[PngStream, tuple[tuple[int, int], ...]] | None = None) -> None:
        width, height = image.size
        self.width, self.height, self.top = width, height, top
        self.palette = bytes(image.getpalette() or ())
        header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
        self.head = PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"PLTE", self.palette)
        other, spans = same if same is not None else (None, ())
        if other is not None and (other.palette, other.width, other.top) != (
                self.palette, width, top):
            other = None
        self.segments: list[bytes] = []
        self.sums: list[tuple[int, int]] = []  # each segment's rows' Adler-32 and length
        for index, row in enumerate(range(0, top, SEGMENT_ROWS)):
            end = min(top, row + SEGMENT_ROWS)
            if other is not None and not any(row < stop and first < end
                                              for first, stop in spans):
                self.segments.append(other.segments[index])
                self.sums.append(other.sums[index])
                continue
            data = _rows(image.crop((0, row, width, end)))
            compressor = zlib_ng.compressobj(PNG_COMPRESS_LEVEL, zlib_ng.DEFLATED, -15)
            self.segments.append(compressor.compress(data) + compressor.flush(zlib_ng.Z_FULL_FLUSH))
            self.sums.append((zlib.adler32(data), len(data)))
        self.above = b"".join(self.segments)
        self.adler = functools.reduce(_adler_joined, self.sums, (1, 0))[0]

    def png(self, below: Image.Image) -> bytes:
        """The PNG with BELOW (a palette picture of the same palette) as the rows from
        TOP to the end."""
        assert below.size == (self.width, self.height - self.top) and below.mode == "P"
        rows = _rows(below)
        compressor = zlib_ng.compressobj(PNG_COMPRESS_LEVEL, zlib_ng.DEFLATED, -15)
        data = (ZLIB_HEADER + self.above + compressor.compress(rows) + compressor.flush()
                + struct.pack(">I", zlib.adler32(rows, self.adler)))
        return self.head + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


ADLER_MODULUS = 65521


def _adler_joined(first: tuple[int, int], then: tuple[int, int]) -> tuple[int, int]:
    """The Adler-32 sum and length of two byte strings one after the other, from each
    one's. The sum is A + 65536 B, A one plus the bytes' sum and B the sum of A after
    each byte (both modulo 65521): the second string's A is raised by the first's A - 1,
    and its B by that for each of its bytes."""
    (sum1, length1), (sum2, length2) = first, then
    a1, b1, a2, b2 = sum1 & 0xFFFF, sum1 >> 16, sum2 & 0xFFFF, sum2 >> 16
    a = (a1 + a2 - 1) % ADLER_MODULUS
    b = (b1 + b2 + length2 * (a1 - 1)) % ADLER_MODULUS
    return a | b << 16, length1 + length2


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: zlib's level for a map's rows, deflated by zlib-ng: its level 5 is still a little
#: smaller than zlib's 6 (18TN 7818's board at moves 50, 300, 600: 0.6-1.8% smaller)
#: in 60% of the time (issue 33); a repaint compresses the segments of its rows again.
PNG_COMPRESS_LEVEL = 5
ZLIB_HEADER = b"\x78\x9c"  # deflate, 32 KB window, default level


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))


def palette_png(image: Image.Image, level: int) -> bytes:
    """A palette picture as a PNG (8-bit, rows unfiltered, as Pillow writes one), its
    rows deflated by zlib-ng at LEVEL: the same pixels as Pillow's PNG, a third to half
    quicker at no more bytes (a map's part: issue 33)."""
    width, height = image.size
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"PLTE", bytes(image.getpalette() or ()))
            + _chunk(b"IDAT", zlib_ng.compress(_rows(image), level)) + _chunk(b"IEND", b""))


def _rows(image: Image.Image) -> bytes:
    """The rows of a palette picture as PNG data: each after its filter byte (0)."""
    # The picture pasted one column in on a blank one: its bytes are the rows, each
    # after a 0 (a join of a slice per row took a millisecond a plate).
    # (Of one mode, pasting copies the palette's indices as they are.)
    width, height = image.size
    framed = Image.new(image.mode, (width + 1, height), 0)
    framed.paste(image, (1, 0))
    return framed.tobytes()


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of a picture reduced to a 256-colour palette: the flat map colours and
    their anti-aliased edges survive it, and the file is half the size."""
    return _png_bytes(quantized(image))


def quantized(image: Image.Image) -> Image.Image:
    return image.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                          dither=Image.Dither.NONE)


def _png_bytes(image: Image.Image) -> bytes:
    return palette_png(image, PNG_COMPRESS_LEVEL)
