"""The tournament commands as `grammar.tournament` reads them (docs/orders.md,
"Tournaments")."""

from __future__ import annotations

import pytest

from grammar.tournament import (
    CloseEntry,
    CreateTournament,
    EndTable,
    Overview,
    Register,
    ReliabilityOf,
    RemoveEntrant,
    ReplaceEntrant,
    Standings,
    StartHeat,
    TournamentError,
    UndoEndTable,
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
    # issue 32
    ("create tournament S titles 18TN heat deadline 14d",
     CreateTournament("S", ("18TN",), heat_minutes=14 * 1440)),
    ("start heat Spring deadline 36h", StartHeat("Spring", 36 * 60)),
    ("end table 18TN-3 anyway", EndTable("18TN-3", anyway=True)),
    ("undo end table 18TN-3", UndoEndTable("18TN-3")),
    ("remove Ann@X.org from Spring", RemoveEntrant("ann@x.org", "Spring")),
    ("overview Spring", Overview("Spring")),
    ("reliability", ReliabilityOf()),
    ("reliability Spring", ReliabilityOf("Spring")),
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
    ("end table 18TN-3 now", "end table GAME anyway"),
    ("start heat S deadline soon", "minutes, hours or days"),
    ("start heat S deadline 400d", "at most 365 days"),
    ("undo end table", "undo end table GAME"),
    ("remove ann@x.org Spring", "remove ADDRESS from NAME"),
    ("remove ann@x.org from", "remove ADDRESS from NAME"),
    ("reliability of S", "reliability NAME"),
])

def test_bad_tournament_lines_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        parse_tournament_line(line)


def test_create_names_every_fault_and_refuses_a_repeated_term() -> None:
    with pytest.raises(TournamentError) as raised:
        parse_tournament_line("create tournament 9x final 4 final 6 heats 0 colour red "
                              "scoring wins")
    message = str(raised.value)
    for fault in ("not a tournament name", "`final` is given twice", "1 to 9 heats",
                  "'colour' is not a term", "`winner` or `share`", "name the titles"):
        assert fault in message, fault
    with pytest.raises(TournamentError, match="`final` is given twice"):
        parse_tournament_line("create tournament S titles 18TN final 4 no final")
    with pytest.raises(TournamentError, match="`titles` is given twice"):
        parse_tournament_line("create tournament S titles 18TN titles 1850")


def test_other_lines_are_not_tournament_lines() -> None:
    # A game's `replace SEAT with ADDRESS` stays the game master's command.
    for line in ("replace Ann with bob@x.org", "buy TCC", "create game 18TN", "", "end game",
                 "remove Ann", "undo", "undo to move 12",
                 # a game order confirmed after the moderator's warning (issue 30)
                 "confirm lay 57 at I13 rot 0", "confirm token D7", "confirm TC: token F11"):
        assert not starts_tournament_line(line)
