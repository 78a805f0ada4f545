"""The .ics event of a turn's deadline (moderator.reports.calendar), read back with icalendar."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from icalendar import Calendar, Event

from moderator.reports.calendar import ICS_MEDIA_TYPE, deadline_event, deadline_uid

DEADLINE = float(calendar.timegm((2026, 11, 24, 17, 0, 0)))
NOW = float(calendar.timegm((2026, 11, 21, 22, 26, 40)))
ORGANIZER = "Moderator <moderator@example.org>"


def make(**changes: Any) -> bytes:
    fields: dict[str, Any] = {
        "game_id": "18TN-4",
        "seat": "Ann",
        "deadline": DEADLINE,
        "now": NOW,
        "summary": "18TN-4: your move (OR 3.1, Ann)",
        "description": "Deadline for your move in 18TN-4.",
        "organizer": ORGANIZER,
    }
    fields.update(changes)
    return deadline_event(**fields)


def the_event(ics: bytes) -> Event:
    events = Calendar.from_ical(ics).walk("VEVENT")
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, Event)
    return event


def test_the_calendar_publishes_one_event() -> None:
    cal = Calendar.from_ical(make())
    assert cal["METHOD"] == "PUBLISH"
    assert cal["VERSION"] == "2.0"
    assert "pbem-18xx-moderator" in str(cal["PRODID"])
    assert len(cal.walk("VEVENT")) == 1
    assert "method=PUBLISH" in ICS_MEDIA_TYPE


def test_the_event_starts_at_the_deadline_in_utc() -> None:
    event = the_event(make())
    start = event.decoded("DTSTART")
    assert start == datetime(2026, 11, 24, 17, 0, tzinfo=UTC)
    assert start.timestamp() == DEADLINE
    assert event.decoded("DTSTAMP") == datetime(2026, 11, 21, 22, 26, 40, tzinfo=UTC)
    length = event.decoded("DTEND") - start
    assert timedelta(0) < length <= timedelta(hours=1)
    assert b"DTSTART:20261124T170000Z\r\n" in make()


def test_fractions_of_a_second_are_cut() -> None:
    event = the_event(make(deadline=DEADLINE + 0.75))
    assert event.decoded("DTSTART").timestamp() == DEADLINE


def test_the_uid_is_one_per_game_and_seat_and_the_sequence_grows() -> None:
    first = the_event(make(sequence=0))
    moved = the_event(make(sequence=3, deadline=DEADLINE + 86400, now=NOW + 3600))
    assert first["UID"] == moved["UID"]
    assert first["UID"] == deadline_uid("18TN-4", "Ann", ORGANIZER)
    assert str(first["UID"]).endswith("@example.org")
    assert (first.decoded("SEQUENCE"), moved.decoded("SEQUENCE")) == (0, 3)
    assert moved.decoded("DTSTART").timestamp() == DEADLINE + 86400


@pytest.mark.parametrize(
    "change", [{"game_id": "18TN-5"}, {"seat": "Bob"}, {"organizer": "m@other.example"}],
)
def test_another_game_or_seat_has_another_uid(change: dict[str, Any]) -> None:
    assert the_event(make(**change))["UID"] != the_event(make())["UID"]


def test_a_cancellation_names_the_same_event_without_an_alarm() -> None:
    cancel = Calendar.from_ical(make(sequence=4, cancel=True))
    assert cancel["METHOD"] == "CANCEL"
    event = the_event(make(sequence=4, cancel=True))
    assert event["UID"] == the_event(make())["UID"]
    assert event["STATUS"] == "CANCELLED" and event.decoded("SEQUENCE") == 4
    assert event.walk("VALARM") == []


def test_an_alarm_rings_an_hour_before() -> None:
    event = the_event(make())
    alarms = event.walk("VALARM")
    assert len(alarms) == 1
    assert alarms[0]["ACTION"] == "DISPLAY"
    assert alarms[0]["DESCRIPTION"]
    assert alarms[0].decoded("TRIGGER") == timedelta(hours=-1)


def test_text_and_organizer_survive_the_trip() -> None:
    description = "Jürgen, it is your move; see the map.\n" + "Zug für Zug " * 20
    event = the_event(make(description=description))
    assert str(event["DESCRIPTION"]) == description
    assert str(event["SUMMARY"]) == "18TN-4: your move (OR 3.1, Ann)"
    assert str(event["ORGANIZER"]) == "mailto:moderator@example.org"
    assert event["ORGANIZER"].params["CN"] == "Moderator"


def test_lines_are_crlf_and_at_most_75_octets() -> None:
    ics = make(description="Größenwahn über alle Züge – " * 40, summary="ÄÖÜ " * 30)
    assert ics.endswith(b"\r\n")
    lines = ics.split(b"\r\n")[:-1]
    assert len(lines) > 20  # the long texts were folded
    assert all(b"\n" not in line and b"\r" not in line for line in lines)
    assert max(len(line) for line in lines) <= 75
    ics.decode("utf-8")  # folding never splits a character


@pytest.mark.parametrize("change", [{"organizer": "moderator"}, {"sequence": -1}, {"length": 0}])
def test_bad_arguments_are_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        make(**change)
