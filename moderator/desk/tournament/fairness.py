"""Is a scoring rule fair across table sizes? A simulation of heats at mixed tables.

Players of equal skill: at every table each seat's final value is drawn from the same
distribution (a log-normal spread around 5000, about the spread of real 18xx scores
within a table), independently of the table's size. A fair rule then gives a seat the
same expected score at a table of three as at a table of four; `simulate` measures the
mean score per seat by table size, with its standard error, and how often a seat of
each size ends the heat among its best (those who would reach a final).

Pure (a seeded `random.Random`, no I/O); docs/orders.md quotes its figures, made with

    python -m moderator.desk.tournament.fairness
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from moderator.desk.tournament.scoring import RULES, Rule, table_scores
from moderator.desk.tournament.seating import table_sizes

__all__ = ["SizeFigures", "simulate"]


@dataclass(frozen=True, slots=True)
class SizeFigures:
    """What seats at tables of one size scored over the simulated heats."""

    size: int
    seats: int  # seats of this size simulated
    mean: float  # mean score of a seat
    error: float  # the standard error of that mean
    advance: float  # share of these seats that ended the heat among its ADVANCE best


def _value(rng: random.Random) -> int:
    return round(5000 * rng.lognormvariate(0.0, 0.25))


def simulate(rule: Rule, players: int = 11, sizes: Sequence[int] = (3, 4),
             heats: int = 20_000, advance: int = 4, seed: int = 1) -> list[SizeFigures]:
    """HEATS heats of PLAYERS at balanced tables of SIZES, scored by RULE; per table
    size, what its seats scored. A heat's best ADVANCE by score (ties drawn at random)
    count as advancing."""
    rng = random.Random(seed)
    split = table_sizes(players, sizes)
    if len(set(split)) < 2:
        raise ValueError(f"{players} players at tables of {list(sizes)} are all one size")
    sums: dict[int, float] = {}
    squares: dict[int, float] = {}
    counts: dict[int, int] = {}
    advanced: dict[int, int] = {}
    for _ in range(heats):
        heat: list[tuple[float, float, int]] = []  # score, tie-break draw, table size
        for size in split:
            scores = table_scores({f"s{i}": _value(rng) for i in range(size)})
            for score in scores.values():
                points = float(score.by(rule))
                heat.append((points, rng.random(), size))
                sums[size] = sums.get(size, 0.0) + points
                squares[size] = squares.get(size, 0.0) + points * points
                counts[size] = counts.get(size, 0) + 1
        heat.sort(reverse=True)
        for _points, _draw, size in heat[:advance]:
            advanced[size] = advanced.get(size, 0) + 1
    figures = []
    for size in sorted(counts):
        n = counts[size]
        mean = sums[size] / n
        variance = max(squares[size] / n - mean * mean, 0.0)
        figures.append(SizeFigures(size, n, mean, math.sqrt(variance / n),
                                   advanced.get(size, 0) / n))
    return figures


def _main() -> None:
    players, sizes, heats = 11, (3, 4), 20_000
    print(f"{heats} heats of {players} players at tables of "
          f"{'+'.join(map(str, table_sizes(players, sizes)))}, equal skill:")
    print(f"{'rule':<10}{'size':>5}{'mean':>10}{'± s.e.':>9}{'reach top 4':>13}")
    for rule in RULES:
        for f in simulate(rule, players, sizes, heats):
            print(f"{rule:<10}{f.size:>5}{f.mean:>10.2f}{f.error:>9.2f}"
                  f"{100 * f.advance:>12.1f}%")


if __name__ == "__main__":
    _main()
