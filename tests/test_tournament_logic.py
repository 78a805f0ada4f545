"""The tournament's pure rules, each against a computation worked by hand here."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from moderator.desk.tournament.fairness import simulate
from moderator.desk.tournament.reliability import Reliability
from moderator.desk.tournament.scoring import (
    Credit,
    credit_table,
    final_order,
    seeding,
    split,
    standings,
    table_scores,
)
from moderator.desk.tournament.seating import (
    SeatingError,
    display_names,
    pairs_met,
    repeats,
    seat_final,
    seat_heat,
    table_sizes,
)

RANGES = {"18TN": (3, 5), "1850": (2, 6), "1851": (3, 5)}


# --- seating -------------------------------------------------------------------------
@pytest.mark.parametrize(("count", "allowed", "expected"), [
    (9, [3, 4], (3, 3, 3)),        # 9 = 4+5 is out (5 not allowed); 3 tables of 3
    (10, [3, 4], (4, 3, 3)),       # the fewest tables with sizes differing by one
    (11, [3, 4], (4, 4, 3)),
    (12, [3, 4, 5], (4, 4, 4)),    # 5+5+2 is not balanced and 2 not allowed; 3 tables
    (13, [4, 5], (5, 4, 4)),
    (8, [4], (4, 4)),
    (15, [3, 4], (3, 3, 3, 3, 3)),  # equal tables first: not 4+4+4+3
    (20, [3, 4, 5], (5, 5, 5, 5)),
    (14, [3, 4, 5], (5, 5, 4)),    # no equal split: the fewest balanced tables
])
def test_table_sizes_equal_else_fewest_balanced_tables(count: int, allowed: list[int],
                                            expected: tuple[int, ...]) -> None:
    assert table_sizes(count, allowed) == expected


def test_table_sizes_refuse_what_cannot_be_seated() -> None:
    with pytest.raises(SeatingError):
        table_sizes(2, [3, 4])
    with pytest.raises(SeatingError):
        table_sizes(7, [4])  # 4+3: 3 not allowed; 7 alone too large


def test_a_heat_seats_everyone_once_at_allowed_tables() -> None:
    players = [f"p{i}" for i in range(1, 11)]
    tables = seat_heat(players, ["18TN", "1850"], RANGES, [3, 4], 1, seed=7)
    seated = [p for t in tables for p in t.players]
    assert sorted(seated) == sorted(players)
    assert sorted(len(t.players) for t in tables) == [3, 3, 4]
    # The titles take turns: table 1 the first title, table 2 the second, ...
    assert [t.title for t in tables] == ["18TN", "1850", "18TN"]
    assert seat_heat(players, ["18TN", "1850"], RANGES, [3, 4], 1, seed=7) == tables
    # Another heat turns the titles by one.
    assert [t.title for t in seat_heat(players, ["18TN", "1850"], RANGES, [3, 4], 2,
                                       seed=7)] == ["1850", "18TN", "1850"]


def test_a_title_that_cannot_take_a_size_gives_way() -> None:
    # 1825 takes at most 5 players here, 1850 six: a table of 6 must be 1850.
    ranges = {"1825": (2, 5), "1850": (2, 6)}
    tables = seat_heat([f"p{i}" for i in range(12)], ["1825", "1850"], ranges, [6], 1, 1)
    assert [t.title for t in tables] == ["1850", "1850"]


def test_players_are_kept_apart_from_those_they_met() -> None:
    # 9 players met in heat 1 as rows of a 3x3 square; heat 2 can seat them so that
    # nobody meets anyone again (the columns do it), so the seating must find 0 repeats.
    rows = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]
    met = pairs_met(rows)
    assert len(met) == 9
    players = [p for row in rows for p in row]
    for seed in range(20):
        tables = seat_heat(players, ["18TN"], RANGES, [3], 2, seed, met)
        assert repeats([t.players for t in tables], met) == 0, seed
    # Without the history the same draw may repeat pairs: the history is what helps.
    drawn = [seat_heat(players, ["18TN"], RANGES, [3], 2, s) for s in range(20)]
    assert any(repeats([t.players for t in d], met) for d in drawn)


def test_keeping_apart_lowers_repeats_when_none_is_impossible() -> None:
    # 4 players, tables of 2 (a two-player title): after meeting as {a,b},{c,d} and
    # {a,c},{b,d} only {a,d},{b,c} is new.
    ranges = {"1850": (2, 6)}
    met = pairs_met([["a", "b"], ["c", "d"], ["a", "c"], ["b", "d"]])
    for seed in range(10):
        tables = seat_heat(list("abcd"), ["1850"], ranges, [2], 3, seed, met)
        assert {frozenset(t.players) for t in tables} == {frozenset("ad"), frozenset("bc")}


def test_the_final_deals_seeds_in_a_snake() -> None:
    # 8 finalists at two tables of 4: seeds 1 4 5 8 and 2 3 6 7.
    seeds = [f"s{i}" for i in range(1, 9)]
    tables = seat_final(seeds, ["1850"], RANGES, [4], 3)
    assert [t.players for t in tables] == [("s1", "s4", "s5", "s8"), ("s2", "s3", "s6", "s7")]
    one = seat_final(seeds[:4], ["18TN"], RANGES, [3, 4], 3)
    assert [t.players for t in one] == [("s1", "s2", "s3", "s4")]


# --- scoring ---------------------------------------------------------------------------
def test_table_scores_worked_example() -> None:
    # Values 5000, 3000, 3000, 1000 (total 12000, average 3000):
    #   placement: Ann beats three of three: 100; Bob and Cy beat one and tie one of
    #     three: 1.5 / 3 = 50 each; Di 0.
    #   margin: (5000 - 3000) / 3000 = +66 2/3 %, Bob and Cy 0, Di -66 2/3 %.
    #   winner: 100, 60, 60, 20.  share: 41 2/3 %, 25 %, 25 %, 8 1/3 %.
    scores = table_scores({"Ann": 5000, "Bob": 3000, "Cy": 3000, "Di": 1000})
    people = ("Ann", "Bob", "Cy", "Di")
    assert [scores[p].placement for p in people] == [100, 50, 50, 0]
    assert [scores[p].margin for p in people] == [Fraction(200, 3), 0, 0, Fraction(-200, 3)]
    assert [scores[p].winner for p in people] == [100, 60, 60, 20]
    assert scores["Ann"].share == Fraction(125, 3)
    assert scores["Bob"].share == 25
    assert scores["Di"].share == Fraction(25, 3)
    assert [scores[p].won for p in people] == [True, False, False, False]
    # Every table averages the same under placement (50) and margin (0), whatever its size.
    assert sum(s.placement for s in scores.values()) == 50 * 4
    assert sum(s.margin for s in scores.values()) == 0
    assert sum(s.share for s in scores.values()) == 100


@pytest.mark.parametrize("values", [
    {"a": 1, "b": 2, "c": 3}, {"a": 7, "b": 7, "c": 1, "d": 9}, {"a": 4, "b": 4},
    {"a": 10, "b": 20, "c": 30, "d": 40, "e": 55}, {"a": 0, "b": 0, "c": 0}])
def test_placement_and_margin_average_the_same_at_every_table_size(
        values: dict[str, int]) -> None:
    scores = table_scores(values).values()
    assert sum(s.placement for s in scores) / len(values) == 50
    assert sum(s.margin for s in scores) == 0
    assert max(s.winner for s in scores) == 100


def test_a_shared_first_place_is_no_win_and_zero_totals_share_evenly() -> None:
    scores = table_scores({"a": 10, "b": 10, "c": 5})
    assert (scores["a"].placement, scores["a"].won) == (75, False)
    assert all(s.share == Fraction(100, 3) and s.margin == 0 and s.winner == 100
               for s in table_scores({"a": 0, "b": 0, "c": 0}).values())


def test_a_replaced_seat_is_split_by_the_moves_each_made() -> None:
    assert split(table_scores({"x": 1})["x"], 30, 10) == (Fraction(3, 4), Fraction(1, 4))
    assert split(table_scores({"x": 1})["x"], 0, 0) == (Fraction(0), Fraction(1))
    # Seat Bob: 3000 of 9000 at a table of three (placement 50, share 33 1/3 %, margin
    # 0, winner 60); Bob made 6 of the seat's moves before the reserve Rae made 2.
    scores = table_scores({"Ann": 5000, "Bob": 3000, "Cy": 1000})
    credits = credit_table("G-1", scores, {"Bob": [("bob", 6), ("rae", 2)],
                                           "Ann": [("ann", 9)], "Cy": [("cy", 8)]})
    assert credits["bob"].placement == Fraction(75, 2)
    assert credits["rae"].placement == Fraction(25, 2)
    assert credits["bob"].share == Fraction(100, 3) * Fraction(3, 4) == 25
    assert (credits["bob"].winner, credits["rae"].winner) == (45, 15)
    assert credits["ann"].placement == 100 and credits["ann"].won
    assert credits["ann"].margin == Fraction(200, 3)


def test_the_fairness_simulation_tells_a_fair_rule_from_an_unfair_one() -> None:
    # Equal-skill players at 4+4+3 tables: placement and margin give a seat the same
    # mean at both sizes (within four standard errors); share gives a table of three
    # 100/3 against 25, far outside them.
    for rule in ("placement", "margin", "share"):
        three, four = simulate(rule, players=11, sizes=(3, 4), heats=1500, seed=7)
        assert (three.size, four.size) == (3, 4)
        apart = abs(three.mean - four.mean)
        noise = 4 * (three.error ** 2 + four.error ** 2) ** 0.5
        if rule == "share":
            assert apart > 8 > noise
        else:
            assert apart < noise
    margin = simulate("margin", players=11, sizes=(3, 4), heats=1500, seed=7)
    # Under margin a seat of either size also reaches a heat's best four about as often.
    assert abs(margin[0].advance - margin[1].advance) < 0.05


def _credit(table: str, placement: float, margin: float, won: bool = False) -> Credit:
    # winner and share play no part in these standings: placement ranks, margin breaks
    # its ties (and the other way round).
    return Credit(table, Fraction(placement), Fraction(margin), Fraction(0), Fraction(0),
                  won)


def test_standings_and_their_tie_breaks() -> None:
    credits = {
        "ann": [_credit("t1", 2, 40, True), _credit("t2", 1, 30)],      # 3 pts, 70 %
        "bob": [_credit("t1", 1, 35), _credit("t2", 2, 45, True)],      # 3 pts, 80 %
        "cy": [_credit("t1", 0, 25), _credit("t2", 3, 25, True)],       # 3 pts, 50 %
        "di": [_credit("t1", 1.5, 35), _credit("t2", 1.5, 35)],         # 3 pts, 70 %
        "ed": [_credit("t1", 0, 10)],                                   # 0 pts, 10 %
    }
    entry = ["di", "ann", "bob", "cy", "ed"]
    # By placement all but ed have 3: margin breaks it (bob 80; ann and di 70; cy 50);
    # ann and di are level on margin: ann has a table win, di none.
    table = standings(credits, "placement", entry)
    assert [s.player for s in table] == ["bob", "ann", "di", "cy", "ed"]
    assert [s.place for s in table] == [1, 2, 3, 4, 5]
    assert table[0].total == 3 and table[0].other == 80 and table[0].wins == 1
    # By margin: bob 80, then ann/di at 70 with 3 points each and ann's win, cy 50, ed.
    assert [s.player for s in standings(credits, "margin", entry)] == [
        "bob", "ann", "di", "cy", "ed"]
    # Equal in everything: entry order decides.
    same = {"x": [_credit("t", 1, 50)], "y": [_credit("t", 1, 50)]}
    assert [s.player for s in standings(same, "placement", ["y", "x"])] == ["y", "x"]
    # Someone entered who has not played yet stands with nothing.
    assert standings({}, "margin", ["z"])[0].total == 0


def test_seeding_and_the_final_order() -> None:
    heats = standings({p: [_credit("t", n, n * 10)] for n, p in enumerate("edcba")},
                      "placement", list("abcde"))
    assert [s.player for s in heats] == list("abcde")
    finalists = seeding(heats, 3)
    assert finalists == ["a", "b", "c"]
    # In the final c wins, a and b tie on placement: a goes first (better heat place).
    final = {"a": _credit("f", 0.5, 30), "b": _credit("f", 0.5, 30),
             "c": _credit("f", 2, 40, True)}
    assert final_order(heats, final, "placement") == ["c", "a", "b", "d", "e"]


# --- reliability -----------------------------------------------------------------------
def test_reliability_worked_example() -> None:
    # 20 mails with moves, 2 of them after the deadline; 1 turn the clock passed; one
    # resignation: 18 on time of 20 + 1 + 1 = 22 turns owed: 81.8 %.
    record = Reliability("ann@x", answered=20, late=2, missed=1, resigned=1, replaced=0)
    assert record.on_time == 18
    assert record.percent == Fraction(1800, 22)
    assert record.meets(80) and not record.meets(82)
    assert "82% on time" in record.line()
    newcomer = Reliability("new@x", 0, 0, 0, 0, 0)
    assert newcomer.percent is None and newcomer.meets(99)


def test_no_seating_repeats_itself_over_many_pairs() -> None:
    # A sanity check of `repeats` itself against a direct count.
    tables = [["a", "b", "c"], ["d", "e"]]
    met = {frozenset("ab"), frozenset("de"), frozenset("af")}
    direct = sum(1 for t in tables for p in itertools.combinations(t, 2)
                 if frozenset(p) in met)
    assert repeats(tables, met) == direct == 2


def test_display_names_are_seat_names_and_unique() -> None:
    names = display_names(["ann@x.org", "Ann@y.org", "9lives@x.org", "gm@x.org",
                           "o'brien.j@x.org"])
    assert names == {"ann@x.org": "Ann", "Ann@y.org": "Ann2", "9lives@x.org": "P9lives",
                     "gm@x.org": "PGm", "o'brien.j@x.org": "Obrienj"}


def test_the_worked_example_of_docs_orders_md() -> None:
    # docs/orders.md, "standings / scoring": the numbers there, computed by hand.
    heat1 = table_scores({"Ann": 5000, "Bob": 3000, "Cy": 3000, "Di": 1000})
    heat2 = table_scores({"Ann": 2000, "Bob": 4000, "Eve": 2000})
    # Heat 2: total 8000, average 2666 2/3: Bob +50 %, Ann and Eve -25 %.
    assert (heat2["Bob"].margin, heat2["Ann"].margin) == (50, -25)
    assert (heat2["Bob"].placement, heat2["Ann"].placement) == (100, 25)
    assert (heat2["Bob"].winner, heat2["Ann"].winner) == (100, 50)
    credits = {p: [credit_table("h1", heat1, {})[p]] for p in heat1}
    for p, c in credit_table("h2", heat2, {}).items():
        credits.setdefault(p, []).append(c)
    people = ["Ann", "Bob", "Cy", "Di", "Eve"]
    table = standings(credits, "margin", people)
    assert [(s.player, s.total) for s in table] == [
        ("Bob", 50), ("Ann", Fraction(125, 3)), ("Cy", 0), ("Eve", -25),
        ("Di", Fraction(-200, 3))]
    assert (table[0].other, table[1].other) == (150, 125)  # placement, the tie-break
    by_placement = standings(credits, "placement", people)
    assert [(s.player, s.total) for s in by_placement] == [
        ("Bob", 150), ("Ann", 125), ("Cy", 50), ("Eve", 25), ("Di", 0)]
    split_cy = credit_table("h1", heat1, {"Cy": [("Cy", 30), ("Rae", 10)]})
    assert (split_cy["Cy"].placement, split_cy["Rae"].placement) == (
        Fraction(75, 2), Fraction(25, 2))
