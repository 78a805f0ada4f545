"""The mail kinds looked at as phone screenshots in the second round of issue 19
(reminders, late notices, quarantine notices, tournament mail), and what was fixed in
them: each test fails on the mail as it was.
"""

from __future__ import annotations

import re
from fractions import Fraction

from moderator.desk.answers import Footer
from moderator.desk.tournament.results import Board, standings_text
from moderator.desk.tournament.scoring import Standing
from moderator.reports.report import LineResult, Section, render
from moderator.store import Tournament

FOOTER = Footer("moderator@example.org")
PHONE_COLUMNS = 48  # of 50 monospace characters at 12 px (pre.table) on a 390 px phone


def cup(scoring: str = "share") -> Tournament:
    return Tournament("Cup", "dana@example.org", ("18TN",), (3,), 1, 3, scoring,  # type: ignore[arg-type]
                      86400.0, "pass", 5, None, "heats", 1)


def test_standings_fit_a_phone_and_keep_their_columns() -> None:
    """The standings table was 71 columns (a 28-wide player column): on a phone each
    row wrapped in two. Short names make a narrow table, its columns still aligned."""
    names = {f"{n}@example.org": n.capitalize() for n in ("ann", "bob", "cy")}
    heats = tuple(Standing(i + 1, address, Fraction(100, 3), Fraction(1), 1 - (i > 0), 1)
                  for i, address in enumerate(names))
    text = standings_text(Board(cup(), heats, None, (), names))
    table = text.splitlines()[1:5]
    assert all(len(line) <= PHONE_COLUMNS for line in table), table
    header, *rows = table
    assert header.split() == ["place", "player", "score", "placement", "wins", "tables"]
    for n, (row, name) in enumerate(zip(rows, names.values(), strict=True)):
        place, player, score, other, wins, tables = row.split()
        assert (place, player, score, other, wins) == (str(n + 1), name, "33.33", "1",
                                                        "1" if n == 0 else "0")
        # Each number ends under its heading's end (right-aligned columns).
        assert row.index(score) + len(score) == header.index("score") + len("score")
        assert row.rindex(tables) + 1 == len(header)
    long = "Bartholomew Featherstonehaugh"
    named = {**names, "ann@example.org": long}
    wide = standings_text(Board(cup(), heats, None, (), named)).splitlines()
    assert long in wide[2] and wide[2].index("33.33") > wide[2].index(long) + len(long)


def test_tournament_mail_flows_its_prose_and_keeps_lists_monospace() -> None:
    """The tournament mail's HTML was one <pre>: at 390 px its sentences wrapped in the
    middle of words' lines. Now the orders and lists are monospace, the prose flows."""
    results = (LineResult(1, "register Cup", True, ("you are entered in Cup as a player",)),)
    sections = (Section("Directing Cup",
                        "Your director password for Cup is abc.\nPut the line `password "
                        "abc` in every mail that directs the tournament.\n\n  table 1 "
                        "(18TN): Ann, Bob, Cy"),)
    _, html = render("tournament", kind="answer", ok=True, results=results,
                     sections=sections, subject="Cup", footer=FOOTER, game_id=None, pos=None,
                     withheld=None)
    body = html.split("<body>", 1)[1]
    assert not body.lstrip().startswith("<pre>")
    assert "<h3>Directing Cup</h3>" in body
    assert re.search(r"<p>Your director password for Cup is abc\. Put the line "
                     r"<code>password abc</code>", body)
    assert "<pre class=\"table\">  table 1 (18TN): Ann, Bob, Cy</pre>" in body
    assert '<pre class="ok">&gt; register Cup\n  you are entered in Cup as a player' in body


def notice(kind: str, **context: object) -> str:
    text, _ = render("notice", kind=kind, game_id="18TN-1", footer=FOOTER, pos=None,
                     subject="x", withheld=None, **context)
    return " ".join(text.split())


def test_a_reminder_gives_no_example_dates_that_will_be_past() -> None:
    """The reminder's `away` example named December 2026: a date in the past for most
    readers, which `away` refuses."""
    text = notice("reminder", seat="Cy", step="stock turn", entity="Cy",
                  round="Stock Round 1", deadline="Sat 28 Nov 2026 05:54 UTC", policy="wait")
    assert "`away FIRST-DAY to LAST-DAY` (dates as YYYY-MM-DD, none in the past)" in text
    assert not re.search(r"\d{4}-\d\d-\d\d", text)


def test_the_late_player_is_told_how_to_see_the_position() -> None:
    text = notice("late", seat="Cy", you_late=True, master=False,
                  deadline="Sat 28 Nov 2026 05:54 UTC")
    assert "Reply to this mail with your orders; `status` brings the full report, " \
        "`legal` what you may do." in text


def test_a_quarantine_notice_says_how_urgent_orders_get_through() -> None:
    """It said "a new plain-text mail": a new mail to the moderator carries no game
    password, so it is refused; a reply to the game's last mail carries it."""
    text = notice("quarantined", their_subject="[18TN-1]", tries=3, reference=11)
    assert "for a game: in a reply to its last mail to you, whose reply address " \
        "carries your password" in text
