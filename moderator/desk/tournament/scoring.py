"""Scoring a tournament: each table's scores, a replaced seat's split, the standings,
the final's seeding and the final order. Pure: no I/O.

The rules, as the players read them (docs/orders.md, "Tournaments"):

* A table is scored on the players' final values (the game's scores: cash plus the
  value of shares and whatever the title counts) -- at the game's end, or at the
  moment the director ends the table.
* Placement points: one point for every player at the table with a lower value, half
  a point for every player with the same value (so tied players share their places).
* Share: a player's value as a percentage of the table's total value (every player
  the same share when the total is 0): tables of different length compare.
* A tournament ranks by the total of one of the two (`scoring placement` or
  `scoring share`). Ties are broken by the total of the other, then by table wins (a
  table won alone, strictly ahead of everyone), then by entry order (who registered
  first).
* A replaced seat's points (both kinds) are split between the player who left and
  the substitute in proportion to the seat's moves each made.
* The final: the best of the heats' standings advance. The final order is the
  finalists by their final table (by the tournament's rule, ties by the heats'
  standing), then everyone else in the order of the heats' standings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = ["Credit", "Rule", "Score", "Standing", "credit_table", "final_order",
           "seeding", "split", "standings", "table_scores"]

Rule = Literal["placement", "share"]


@dataclass(frozen=True, slots=True)
class Score:
    """One seat's score at one table."""

    value: int  # the seat's final value in the game
    placement: Fraction
    share: Fraction  # percent of the table's total
    won: bool  # strictly ahead of everyone at the table


@dataclass(frozen=True, slots=True)
class Credit:
    """What one person gets from one table (a part of a seat's score when replaced)."""

    table: str  # the game id
    placement: Fraction
    share: Fraction
    won: bool


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    player: str
    total: Fraction  # by the tournament's rule
    other: Fraction  # by the other rule: the first tie-break
    wins: int
    tables: int


def table_scores(values: Mapping[str, int]) -> dict[str, Score]:
    """Every seat's score from the seats' final VALUES."""
    total = sum(values.values())
    scores: dict[str, Score] = {}
    for seat, value in values.items():
        lower = sum(1 for other, v in values.items() if other != seat and v < value)
        tied = sum(1 for other, v in values.items() if other != seat and v == value)
        share = (Fraction(100 * value, total) if total else
                 Fraction(100, len(values)))
        scores[seat] = Score(value, lower + Fraction(tied, 2), share,
                             lower == len(values) - 1)
    return scores


def split(score: Score, before: int, after: int) -> tuple[Fraction, Fraction]:
    """The parts of a replaced seat's score: (who left, the substitute), in proportion
    to the seat's moves each made (BEFORE and AFTER the replacement); all to the
    substitute when the seat had made no move."""
    moves = before + after
    if moves == 0:
        return Fraction(0), Fraction(1)
    return Fraction(before, moves), Fraction(after, moves)


def credit_table(table: str, scores: Mapping[str, Score],
                 holders: Mapping[str, Sequence[tuple[str, int]]]) -> dict[str, Credit]:
    """Each person's credit from TABLE. HOLDERS gives for each seat the people who held
    it, in turn, with the seat's moves each made (one holder: the whole score)."""
    credits: dict[str, Credit] = {}
    for seat, score in scores.items():
        people = holders.get(seat, ((seat, 0),))
        moves = sum(m for _, m in people)
        for index, (person, made) in enumerate(people):
            last = index == len(people) - 1
            part = (Fraction(1) if len(people) == 1 else Fraction(made, moves) if moves
                    else Fraction(int(last)))
            credits[person] = Credit(table, score.placement * part, score.share * part,
                                     score.won and part == 1)
    return credits


def standings(credits: Mapping[str, Sequence[Credit]], rule: Rule,
              entry_order: Sequence[str]) -> list[Standing]:
    """Everyone in ENTRY_ORDER ranked by their CREDITS (see the module's rules); equal
    on every tie-break (only the entry order differs) still gives distinct places."""
    rows = []
    for player in entry_order:
        mine = credits.get(player, ())
        placement = sum((c.placement for c in mine), Fraction(0))
        share = sum((c.share for c in mine), Fraction(0))
        total, other = (placement, share) if rule == "placement" else (share, placement)
        rows.append((player, total, other, sum(1 for c in mine if c.won), len(mine)))
    index = {p: i for i, p in enumerate(entry_order)}
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], index[r[0]]))
    return [Standing(place, *row) for place, row in enumerate(rows, 1)]


def seeding(table: Sequence[Standing], advance: int) -> list[str]:
    """The finalists, best first: the first ADVANCE of the heats' standings."""
    return [s.player for s in table[:advance]]


def final_order(heats: Sequence[Standing], final: Mapping[str, Credit],
                rule: Rule) -> list[str]:
    """The tournament's final order: finalists by their FINAL credit under RULE (ties
    by their place in the HEATS), then the rest in the heats' order."""
    place = {s.player: s.place for s in heats}
    finalists = sorted(final, key=lambda p: (
        -(final[p].placement if rule == "placement" else final[p].share), place[p]))
    return finalists + [s.player for s in heats if s.player not in final]
