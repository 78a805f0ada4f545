"""Track: the lines between a hex's sides and stops as on the printed tiles, and drawing
them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from moderator.reports.mapimage.geometry import (
    LANE_GAP,
    SQRT3,
    TRACK_WIDTH,
    Point,
    edge_angle,
    edge_point,
    norm,
    polar,
    sub,
    unit,
)
from moderator.reports.mapimage.painter import Painter
from moderator.reports.mapimage.style import TRACK


@dataclass(frozen=True, slots=True)
class Track:
    """One track segment as a polyline in unit coordinates; ``arrow``: it runs into an
    off-board area and ends in a point, as on the printed maps."""

    points: tuple[Point, ...]
    arrow: bool = False


def _arc(centre: Point, radius: float, start: float, end: float, steps: int) -> list[Point]:
    sweep = (end - start + 180.0) % 360.0 - 180.0  # the short way round
    return [(centre[0] + x, centre[1] + y)
            for x, y in (polar(start + sweep * i / steps, radius) for i in range(steps + 1))]


def edge_to_edge(layout: str, a: int, b: int) -> tuple[Point, ...]:
    """Track between two sides as on the printed tiles: straight across for opposite
    sides, a gentle curve (radius 1.5, centred on the hex beyond the side between
    them) for sides two apart, a sharp curve (radius 0.5, centred on their shared
    corner) for adjacent sides. Each meets its side square on, so track runs on
    smoothly into the next hex."""
    ma, mb = edge_point(layout, a), edge_point(layout, b)
    diff = (b - a) % 6
    if diff == 3:
        return (ma, mb)
    if diff in (1, 5):
        centre = polar(edge_angle(layout, a if diff == 1 else b) + 30.0, 1.0)
        radius = 0.5
    else:
        centre = polar(edge_angle(layout, a + 1 if diff == 2 else a - 1), SQRT3)
        radius = 1.5
    start = math.degrees(math.atan2(ma[1] - centre[1], ma[0] - centre[0]))
    end = math.degrees(math.atan2(mb[1] - centre[1], mb[0] - centre[0]))
    return tuple(_arc(centre, radius, start, end, 12))


def along(points: Sequence[Point], t: float) -> tuple[Point, Point]:
    """The point at fraction ``t`` of a polyline's length, and the direction there."""
    segments = list(itertools.pairwise(points))
    lengths = [norm(sub(q, p)) for p, q in segments]
    goal = t * sum(lengths)
    for (p, q), seg in zip(segments, lengths, strict=True):
        if goal <= seg:
            f = goal / seg if seg else 0.0
            return (p[0] + f * (q[0] - p[0]), p[1] + f * (q[1] - p[1])), unit(sub(q, p))
        goal -= seg
    return points[-1], unit(sub(points[-1], points[-2]))


def shift_ends(points: tuple[Point, ...], start: Point, end: Point) -> tuple[Point, ...]:
    """A curve moved so it begins at ``start`` and ends at ``end`` (a lane beside the
    side's midpoint), the shift fading out along it so it stays smooth."""
    n = len(points) - 1
    ds, de = sub(start, points[0]), sub(end, points[-1])
    return tuple((x + ds[0] * (1 - i / n) + de[0] * i / n,
                  y + ds[1] * (1 - i / n) + de[1] * i / n)
                 for i, (x, y) in enumerate(points))


def lanes_between(a: Point, b: Point, lanes: int) -> list[tuple[Point, ...]]:
    """``lanes`` parallel straight tracks from a to b (1850's double track)."""
    d = unit(sub(b, a))
    normal = (-d[1], d[0])
    out: list[tuple[Point, ...]] = []
    for i in range(max(1, lanes)):
        off = (i - (lanes - 1) / 2) * LANE_GAP if lanes > 1 else 0.0
        out.append(((a[0] + normal[0] * off, a[1] + normal[1] * off),
                    (b[0] + normal[0] * off, b[1] + normal[1] * off)))
    return out


def paint_tracks(p: Painter, hex_id: str, tracks: Sequence[Track]) -> None:
    """A hex's TRACKS (its `HexDrawing`'s)."""
    width = p.width(TRACK_WIDTH)
    for track in tracks:
        points = [p.px(hex_id, q) for q in track.points]
        if track.arrow:
            _arrow(p, points[0], points[-1], width)
        else:
            p.draw.line(points, fill=TRACK, width=width, joint="curve")


def _arrow(p: Painter, start: Point, end: Point, width: int) -> None:
    """Off-board track: a line ending in a point, like the printed maps'."""
    d = unit(sub(end, start))
    n = (-d[1], d[0])
    head = (end[0] - d[0] * width * 1.4, end[1] - d[1] * width * 1.4)
    p.draw.line([start, head], fill=TRACK, width=width)
    p.draw.polygon([(head[0] + n[0] * width * 1.2, head[1] + n[1] * width * 1.2),
                    (head[0] - n[0] * width * 1.2, head[1] - n[1] * width * 1.2),
                    end], fill=TRACK)
