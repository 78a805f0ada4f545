"""The tournament commands as `grammar.tournament` reads them (docs/orders.md,
"Tournaments")."""

from __future__ import annotations

import pytest

from grammar.tournament import (
    CloseEntry,
    CreateTournament,
    EndTable,
    Register,
    ReplaceEntrant,
    Standings,
    StartHeat,
    TournamentError,
    Withdraw,
    parse_tournament_line,
    starts_tournament_line,
)


@pytest.mark.parametrize(("line", "command"), [
    ("create tournament Spring titles 18TN,1850 sizes 3-4 heats 2 final 4 scoring share "
     "deadline 2d timeout wait seed 7",
     CreateTournament("Spring", ("18TN", "1850"), (3, 4), 2, 4, "share", 2880, "wait", 7)),
    ("Create Tournament Cup titles 1851 sizes 3,5 no final deadline 90m",
     CreateTournament("Cup", ("1851",), (3, 5), 2, 0, "margin", 90, "pass", None)),
    ("register Spring", Register("Spring")),
    ("register Spring as reserve", Register("Spring", reserve=True)),
    ("withdraw Spring", Withdraw("Spring")),
    ("close entry Spring", CloseEntry("Spring")),
    ("close entry Spring minimum 80%", CloseEntry("Spring", 80)),
    ("start heat Spring", StartHeat("Spring")),
    ("start final Spring", StartHeat("Spring")),
    ("end table 18TN-3", EndTable("18TN-3")),
    ("replace Ann@X.org in Spring", ReplaceEntrant("ann@x.org", "Spring")),
    ("replace ann@x.org in Spring with rae@x.org",
     ReplaceEntrant("ann@x.org", "Spring", "rae@x.org")),
    ("standings Spring.", Standings("Spring")),
])
def test_tournament_lines(line: str, command: object) -> None:
    assert starts_tournament_line(line)
    assert parse_tournament_line(line) == command


@pytest.mark.parametrize(("line", "message"), [
    ("create tournament Spring", "name the titles"),
    ("create tournament 9x titles 18TN", "not a tournament name"),
    ("create tournament S titles 18TN sizes 5-3", "the smaller first"),
    ("create tournament S titles 18TN heats 0", "1 to 9 heats"),
    ("create tournament S titles 18TN colour red", "not a term"),
    ("create tournament S titles 18TN scoring wins", "`winner` or `share`"),
    ("create tournament S titles 18TN deadline soon", "minutes, hours or days"),
    ("create tournament S titles 18TN seed", "needs a value"),
    ("close entry S minimum 120", "at most 100"),
    ("close entry S at least 80", "minimum 80"),
    ("register", "needs the tournament's name"),
    ("register S please", "register NAME"),
    ("replace ann in S", "not a mail address"),
    ("end table", "end table GAME"),
])
def test_bad_tournament_lines_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        parse_tournament_line(line)


def test_other_lines_are_not_tournament_lines() -> None:
    # A game's `replace SEAT with ADDRESS` stays the game master's command.
    for line in ("replace Ann with bob@x.org", "buy TCC", "create game 18TN", "", "end game"):
        assert not starts_tournament_line(line)
