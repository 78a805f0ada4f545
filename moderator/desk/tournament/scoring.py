"""Scoring a tournament: each table's scores, a replaced seat's split, the standings,
the final's seeding and the final order. Pure: no I/O.

The rules, as the players read them (docs/orders.md, "standings / scoring"):

* A table is scored on the players' final values (the game's scores: cash plus the
  value of shares and whatever the title counts) -- at the game's end, or at the
  moment the director ends the table.
* `margin` and `placement` give a seat the same expected score at a table of any size
  when the players are of equal skill (`moderator.desk.tournament.fairness` measures
  it); `winner` nearly, and `share`, kept for tournaments created before the others
  existed, not at all:

  - `margin` (the default): the player's value above (or below) the table's average,
    in percent of that average (the seats of any table average 0). Of the rules, the
    one under which a seat at a table of three and one at a table of four also reach
    a heat's best places equally often.
  - `placement`: the part of the table a player beat, in percent: one for every
    player with a lower value, half for every player with the same value, divided by
    the other players at the table (a table's winner 100, its last 0; the
    seats of any table average 50).
  - `winner`: the player's value in percent of the table winner's value (the winner
    100). Its average falls slowly with the table's size: documented, not the default.
  - `share`: the player's value as a percentage of the table's total. A seat averages
    100 / players: a table of three is worth a third more than a table of four.

* A tournament ranks by the total of its rule. Ties are broken by the total of its
  tie-break rule (`TIE_BREAK`: `margin` for `placement`, else `placement`), then by
  table wins (a table won alone, strictly ahead of everyone), then by entry order.
* A replaced seat's points (every rule) are split between the player who left and
  the substitute in proportion to the seat's moves each made.
* The final: the best of the heats' standings advance. The final order is the
  finalists by their final table (by the tournament's rule, ties by the heats'
  standing), then everyone else in the order of the heats' standings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

__all__ = ["DEFAULT_RULE", "RULES", "TIE_BREAK", "Credit", "Rule", "Score", "Standing",
           "credit_table", "final_order", "rule_name", "seeding", "split", "standings",
           "table_scores"]

Rule = Literal["placement", "margin", "winner", "share"]
RULES: tuple[Rule, ...] = get_args(Rule)
DEFAULT_RULE: Rule = "margin"
#: The first tie-break of each rule: the other size-fair rule.
TIE_BREAK: Mapping[Rule, Rule] = {"placement": "margin", "margin": "placement",
                                  "winner": "placement", "share": "placement"}
_NAMES: Mapping[Rule, str] = {"placement": "placement (% of the table beaten)",
                              "margin": "margin over the table's average (%)",
                              "winner": "value in % of the table's winner",
                              "share": "share of the table's total (%)"}


def rule_name(rule: Rule) -> str:
    """RULE as the standings mail names it."""
    return _NAMES[rule]


@dataclass(frozen=True, slots=True)
class Score:
    """One seat's score at one table, by every rule."""

    value: int  # the seat's final value in the game
    placement: Fraction
    margin: Fraction
    winner: Fraction
    share: Fraction
    won: bool  # strictly ahead of everyone at the table

    def by(self, rule: Rule) -> Fraction:
        return Fraction(getattr(self, rule))


@dataclass(frozen=True, slots=True)
class Credit:
    """What one person gets from one table (a part of a seat's score when replaced)."""

    table: str  # the game id
    placement: Fraction
    margin: Fraction
    winner: Fraction
    share: Fraction
    won: bool

    def by(self, rule: Rule) -> Fraction:
        return Fraction(getattr(self, rule))


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    player: str
    total: Fraction  # by the tournament's rule
    other: Fraction  # by its tie-break rule (`TIE_BREAK`)
    wins: int
    tables: int


def table_scores(values: Mapping[str, int]) -> dict[str, Score]:
    """Every seat's score from the seats' final VALUES."""
    seats = len(values)
    total = sum(values.values())
    best = max(values.values(), default=0)
    scores: dict[str, Score] = {}
    for seat, value in values.items():
        lower = sum(1 for other, v in values.items() if other != seat and v < value)
        tied = sum(1 for other, v in values.items() if other != seat and v == value)
        # A table of one beat nobody and lost to nobody: the middle, as on average.
        placement = (Fraction(100) * (lower + Fraction(tied, 2)) / (seats - 1)
                     if seats > 1 else Fraction(50))
        # n * value - total is value - average, times n: exact, no rounding.
        margin = Fraction(100 * (seats * value - total), total) if total > 0 else Fraction(0)
        winner = Fraction(100 * value, best) if best > 0 else Fraction(100)
        share = Fraction(100 * value, total) if total else Fraction(100, seats)
        scores[seat] = Score(value, placement, margin, winner, share,
                             lower == seats - 1)
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
            credits[person] = Credit(table, score.placement * part, score.margin * part,
                                     score.winner * part, score.share * part,
                                     score.won and part == 1)
    return credits


def standings(credits: Mapping[str, Sequence[Credit]], rule: Rule,
              entry_order: Sequence[str]) -> list[Standing]:
    """Everyone in ENTRY_ORDER ranked by their CREDITS (see the module's rules); equal
    on every tie-break (only the entry order differs) still gives distinct places."""
    rows = []
    for player in entry_order:
        mine = credits.get(player, ())
        total = sum((c.by(rule) for c in mine), Fraction(0))
        other = sum((c.by(TIE_BREAK[rule]) for c in mine), Fraction(0))
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
    finalists = sorted(final, key=lambda p: (-final[p].by(rule), place[p]))
    return finalists + [s.player for s in heats if s.player not in final]
