"""How the game is going: each player's net worth and each company's share price at the
end of every stock round (and now), found by replaying the log, drawn as two small line
charts for the report after each stock round and the last one.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.game import Game
from engine.rounds.stock import StockRound
from moderator.reports.mapimage import company_colour, font

__all__ = ["CHARTS_CID", "Progress", "ProgressReplay", "chart_png", "progress"]

CHARTS_CID = "charts"  # what a report's HTML names the charts by

PLAYER_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                  "#17becf")
WIDTH, PANEL = 520, 260  # pixels: two panels, one above the other (a phone shows it whole)
INK, GRID = "#222222", "#dddddd"


@dataclass(frozen=True, slots=True)
class Progress:
    """The values at the end of each stock round (`labels`: SR 1, SR 2, ...) and now."""

    labels: tuple[str, ...]
    worth: tuple[tuple[str, tuple[int, ...]], ...]  # seat, net worth at each label
    prices: tuple[tuple[str, tuple[int | None, ...]], ...]  # company, price (None: none)


def progress(game: Game) -> Progress:
    """GAME's net worths and share prices after each stock round, by replaying its log."""
    replay = ProgressReplay(game)
    return replay.progress()


class ProgressReplay:
    """`progress` kept going: the replay and the samples taken so far, so a later
    position of the same game replays only the moves since (a burst of mail reports
    one game at move after move; replaying its whole log for each costs a third of a
    second)."""

    def __init__(self, game: Game) -> None:
        self.seats = game.setup.seats
        self.replay = Game(game.setup)
        self.samples: list[tuple[str, _Values]] = []
        self.in_stock = isinstance(self.replay.round, StockRound)
        self.name = self.replay.round_name
        self.extend(game)

    def follows(self, game: Game) -> bool:
        """Whether GAME's log goes on from the moves replayed (no `undo` took any back)."""
        done = self.replay.log
        return len(done) <= len(game.log) and all(
            a is b or a == b for a, b in zip(reversed(done), reversed(game.log[:len(done)]),
                                             strict=True))

    def extend(self, game: Game) -> None:
        """Replay GAME's moves since the last ones replayed (`follows` must hold)."""
        replay = self.replay
        if len(game.log) == len(replay.log):
            return
        # The log was played once already: no safety copy before each move (reading_log).
        with replay.reading_log():
            for move in game.log[len(replay.log):]:
                replay.apply(move.seat, move.action)
                now_stock = isinstance(replay.round, StockRound)
                if self.in_stock and not now_stock:
                    self.samples.append((_short(self.name), self._sample()))
                self.in_stock, self.name = now_stock, replay.round_name

    def _sample(self) -> _Values:
        state = self.replay.state
        prices = {sym: (state.market.price(sym) if sym in state.market.positions else None)
                  for sym in state.corporations}
        return _Values(self.replay.rules.scores(state), prices)

    def progress(self) -> Progress:
        """The values at the end of each stock round replayed, and now where it counts."""
        replay = self.replay
        samples = list(self.samples)
        if replay.state.game_over or self.in_stock or not samples:
            samples.append(("end" if replay.state.game_over else "now", self._sample()))
        values = [v for _, v in samples]
        corps = [sym for sym in replay.state.corporations
                 if any(v.prices.get(sym) is not None for v in values)]
        return Progress(
            tuple(label for label, _ in samples),
            tuple((seat, tuple(v.worth[seat] for v in values)) for seat in self.seats),
            tuple((sym, tuple(v.prices.get(sym) for v in values)) for sym in corps))


@dataclass(frozen=True, slots=True)
class _Values:
    worth: dict[str, int]
    prices: dict[str, int | None]


def _short(round_name: str) -> str:
    return round_name.replace("Stock Round", "SR").strip()


def chart_png(game: Game, data: Progress) -> bytes:
    """The two charts, one PNG: net worth by player, share price by company."""
    image = Image.new("RGB", (WIDTH, 2 * PANEL), "#ffffff")
    draw = ImageDraw.Draw(image)
    title = game.state.title
    players = [(seat, PLAYER_COLOURS[i % len(PLAYER_COLOURS)], values)
               for i, (seat, values) in enumerate(data.worth)]
    companies = [(sym, company_colour(title, sym), values) for sym, values in data.prices]
    _panel(draw, 0, "Net worth", data.labels, players)
    _panel(draw, PANEL, "Share price", data.labels, companies)
    out = io.BytesIO()
    # zlib level 8, not 9 (`optimize`): about the same bytes in half the time.
    image.quantize(colors=64, method=Image.Quantize.FASTOCTREE,
                   dither=Image.Dither.NONE).save(out, "PNG", compress_level=8)
    return out.getvalue()


def _panel(draw: ImageDraw.ImageDraw, top: int, heading: str, labels: tuple[str, ...],
           series: Sequence[tuple[str, str, tuple[int | None, ...]]]) -> None:
    small, big = font(13), font(15, bold=True)
    key = max((small.getlength(name) for name, _, _ in series), default=0) + 30
    left, legend = 44, WIDTH - key
    right = legend - 10
    upper, lower = top + 28, top + PANEL - 30
    numbers = [v for _, _, values in series for v in values if v is not None]
    high = _nice(max(numbers, default=0) or 1)
    draw.text((left, top + 6), heading, fill=INK, font=big)
    for i in range(5):  # the value grid
        value = high * i // 4
        y = lower - (lower - upper) * i / 4
        draw.line((left, y, right, y), fill=GRID)
        draw.text((left - 6, y), _label(value), fill=INK, font=small, anchor="rm")
    step = (right - left) / max(1, len(labels) - 1)
    for i, label in enumerate(labels):
        draw.text((left + i * step, lower + 6), label, fill=INK, font=small, anchor="ma")

    def at(i: int, value: int) -> tuple[float, float]:
        return (left + i * step, lower - (lower - upper) * value / high)

    for n, (name, colour, values) in enumerate(series):
        points = [at(i, v) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            draw.line(points, fill=colour, width=3, joint="curve")
        for x, y in points:
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=colour)
        y = upper + n * 18
        draw.line((legend, y + 7, legend + 16, y + 7), fill=colour, width=3)
        draw.text((legend + 22, y), name, fill=INK, font=small)


def _nice(value: int) -> int:
    """The top of a scale of four round steps (1, 2, 2.5, 3 or 5 times a power of ten)
    that holds VALUE."""
    for power in range(7):
        for unit in (10, 20, 25, 30, 50):
            step: int = unit * int(10**power) // 10
            if step and 4 * step >= value:
                return 4 * step
    return value


def _label(value: int) -> str:
    return f"{value // 1000}k" if value >= 10_000 and value % 1000 == 0 else str(value)
