"""Turn deadlines (moderator.desk.deadlines): durations, stopped clocks, reminders, absences,
time zones.

Expected instants are written in UTC with `calendar.timegm`, the local offsets worked
out by hand (Berlin is UTC+1 in winter, UTC+2 in summer; summer time ends on
2026-10-25 at 03:00 local and begins on 2026-03-29 at 02:00 local).
"""

from __future__ import annotations

import calendar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moderator.desk.deadlines import (
    Window,
    check_timezone,
    deadline_after,
    format_deadline,
    format_duration,
    parse_away,
    parse_duration,
    reminder_times,
    running_time,
)

H = 3600.0
D = 86400.0


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float:
    return float(calendar.timegm((year, month, day, hour, minute, 0)))


NOW = utc(2026, 11, 20, 12)  # a Friday, before every absence below


# --- durations ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("48h", 48 * H),
        ("72 h", 72 * H),
        ("3d", 3 * D),
        ("2d12h", 2 * D + 12 * H),
        ("90m", 90 * 60),
        ("1d 6h", D + 6 * H),
        ("36 hours", 36 * H),
        ("2 days", 2 * D),
        ("1 day and 6 hours", D + 6 * H),
        ("1 day, 6 hours", D + 6 * H),
        ("1.5d", 36 * H),
        ("  2D ", 2 * D),
        ("1 week", 7 * D),
        ("1h 30min", 90 * 60),
        ("30d", 30 * D),
        ("1h", H),
    ],
)
def test_durations_are_read(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0h", "too short: it must be at least 1 hour"),
        ("59m", "too short"),
        ("31d", "too long: it may be at most 30 days"),
        ("1000000h", "too long"),
        ("99999999999999999999999999d", "too long"),
        ("abc", "'abc' is not a duration: give one such as 48h, 3d, 2d12h or 36 hours"),
        ("2 abc", "unknown unit 'abc'; use d \\(days\\), h \\(hours\\) or m \\(minutes\\)"),
        ("48", "48 needs a unit, e.g. 48h for hours or 48d for days"),
        ("2d 12", "12 needs a unit"),
        ("", "give a duration such as 48h"),
        ("-5h", "not a duration"),
        ("1h30s", "unknown unit 's'"),
        ("2d 3d", "gives days twice"),
        ("48h" * 30, "too long for a duration"),
    ],
)
def test_bad_durations_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_duration(text)


def test_duration_limits_can_be_changed() -> None:
    assert parse_duration("30m", minimum=60, maximum=4 * H) == 1800
    with pytest.raises(ValueError, match="at most 4 hours"):
        parse_duration("5h", minimum=60, maximum=4 * H)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (48 * H, "2 days"),
        (60 * H, "2 days 12 hours"),
        (90 * 60, "1 hour 30 minutes"),
        (H, "1 hour"),
        (D + 60, "1 day 1 minute"),
        (2 * D + 3 * H + 59 * 60 + 59, "2 days 3 hours"),  # cut, never rounded up
        (59 * 60 + 59.9, "59 minutes"),
        (30 * D, "30 days"),
        (30, "less than a minute"),
        (0, "less than a minute"),
    ],
)
def test_durations_are_written_in_one_form(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize("seconds", [H, 90 * 60, 36 * H, 60 * H, 3 * D, D + 60, 30 * D])
def test_written_durations_read_back(seconds: float) -> None:
    assert parse_duration(format_duration(seconds)) == seconds


@pytest.mark.parametrize("seconds", [-1.0, float("inf"), float("nan")])
def test_format_duration_refuses_non_durations(seconds: float) -> None:
    with pytest.raises(ValueError):
        format_duration(seconds)


# --- stopped clocks ----------------------------------------------------------------


def test_without_windows_the_deadline_is_start_plus_allowed() -> None:
    assert deadline_after(1000, 100, []) == 1100
    assert deadline_after(1000, 0, []) == 1000


def test_a_window_inside_the_turn_moves_the_deadline_by_its_length() -> None:
    assert deadline_after(1000, 100, [Window(1050, 1080)]) == 1130


def test_windows_outside_the_turn_change_nothing() -> None:
    stopped = [Window(800, 900), Window(900, 1000), Window(1101, 1200), Window(1040, 1040)]
    assert deadline_after(1000, 100, stopped) == 1100


def test_a_window_beginning_at_the_deadline_does_not_move_it() -> None:
    assert deadline_after(1000, 100, [Window(1100, 1200)]) == 1100


def test_overlapping_unsorted_windows_count_once() -> None:
    stopped = [Window(1200, 1300), Window(1060, 1090), Window(1080, 1085), Window(1050, 1070)]
    # runs 1000-1050 (50), stops to 1090, runs to 1200 (160), stops to 1300, runs 40 more
    assert deadline_after(1000, 200, stopped) == 1340
    assert running_time(1000, 1340, stopped) == 200


def test_adjacent_windows_join() -> None:
    assert deadline_after(1000, 100, [Window(1060, 1070), Window(1050, 1060)]) == 1120


def test_a_window_spanning_the_start_delays_the_clock_until_it_ends() -> None:
    assert deadline_after(1000, 100, [Window(900, 1050)]) == 1150
    assert deadline_after(1000, 100, [Window(950, 1020), Window(900, 1050)]) == 1150
    assert running_time(1000, 1050, [Window(900, 1050)]) == 0


def test_running_time_leaves_out_the_stops() -> None:
    stopped = [Window(1050, 1080), Window(1090, 2000)]
    assert running_time(1000, 1100, stopped) == 60  # 50 + 10, then stopped
    assert running_time(1000, 2100, stopped) == 160
    assert running_time(1000, 900, stopped) == 0


def test_a_window_cannot_end_before_it_starts() -> None:
    with pytest.raises(ValueError):
        Window(10, 5)


def test_negative_allowed_time_is_refused() -> None:
    with pytest.raises(ValueError):
        deadline_after(0, -1, [])


windows = st.lists(
    st.tuples(st.integers(-50, 400), st.integers(0, 120)).map(
        lambda pair: Window(float(pair[0]), float(pair[0] + pair[1]))
    ),
    max_size=6,
)


@given(start=st.integers(0, 200), allowed=st.integers(1, 300), stopped=windows)
def test_the_deadline_is_the_first_moment_the_allowance_has_run(
    start: int, allowed: int, stopped: list[Window]
) -> None:
    deadline = deadline_after(start, allowed, stopped)
    assert running_time(start, deadline, stopped) == allowed
    assert running_time(start, deadline - 0.5, stopped) < allowed
    # the same deadline whatever the order of the windows
    assert deadline_after(start, allowed, stopped[::-1]) == deadline


# --- reminders ---------------------------------------------------------------------


def test_a_long_turn_gets_a_half_time_and_a_late_reminder() -> None:
    start = utc(2026, 11, 20, 12)
    assert reminder_times(start, start + 72 * H) == (start + 36 * H, start + 68 * H)
    assert reminder_times(start, start + 72 * H, before=12 * H) == (
        start + 36 * H,
        start + 60 * H,
    )


def test_reminders_are_at_least_an_hour_apart() -> None:
    assert reminder_times(0, 10 * H) == (5 * H, 6 * H)  # exactly an hour apart: both
    assert reminder_times(0, 9 * H) == (5 * H,)  # half time 4.5h is too near 5h
    assert reminder_times(0, 8 * H) == (4 * H,)  # the same moment: one mail
    assert reminder_times(0, 6 * H) == (2 * H,)  # half time would come after "4h left"


def test_a_reminder_right_after_the_turn_mail_is_left_out() -> None:
    assert reminder_times(0, 5 * H) == (1 * H,)  # 4 hours before: an hour in
    assert reminder_times(0, 4.5 * H) == (2.25 * H,)  # 4 hours before is 30 min in
    assert reminder_times(0, 4 * H) == (2 * H,)  # 4 hours before is the start
    assert reminder_times(0, 2 * H) == (1 * H,)
    assert reminder_times(0, 1.5 * H) == ()
    assert reminder_times(0, 1 * H) == ()


def test_reminders_follow_the_players_clock_not_the_calendar() -> None:
    start = 0.0
    away = Window(12 * H, 12 * H + 10 * D)
    deadline = deadline_after(start, 72 * H, [away])
    assert deadline == 72 * H + 10 * D
    times = reminder_times(start, deadline, stopped=[away])
    assert times == (10 * D + 36 * H, 10 * D + 68 * H)
    assert not any(away.start <= t < away.end for t in times)


def test_reminder_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        reminder_times(10 * H, 0)
    with pytest.raises(ValueError):
        reminder_times(0, 10 * H, before=0)


# --- absences ----------------------------------------------------------------------


def test_an_absence_is_whole_days_in_the_players_zone() -> None:
    berlin = parse_away("2026-12-01", "2026-12-10", "Europe/Berlin", NOW)
    assert berlin == Window(utc(2026, 11, 30, 23), utc(2026, 12, 10, 23))
    in_utc = parse_away("2026-12-01", "2026-12-10", "UTC", NOW)
    assert in_utc == Window(utc(2026, 12, 1), utc(2026, 12, 11))
    assert in_utc.end - in_utc.start == 10 * D


@pytest.mark.parametrize(
    ("text_from", "text_to"),
    [
        ("1 Dec 2026", "10 Dec 2026"),
        ("1 December 2026", "10th December 2026"),
        ("December 1, 2026", "Dec. 10, 2026"),
        ("Tue 1 Dec 2026", "Thursday 10 Dec 2026"),
        ("2026-12-1", "2026-12-10"),
    ],
)
def test_dates_may_be_written_in_words(text_from: str, text_to: str) -> None:
    assert parse_away(text_from, text_to, "Europe/Berlin", NOW) == Window(
        utc(2026, 11, 30, 23), utc(2026, 12, 10, 23)
    )


def test_times_of_day_are_taken_as_given() -> None:
    window = parse_away("2026-12-01 18:00", "2026-12-03 08:30", "Europe/Berlin", NOW)
    assert window == Window(utc(2026, 12, 1, 17), utc(2026, 12, 3, 7, 30))
    window = parse_away("1 Dec 2026 18:00", "2026-12-03T08:30", "America/New_York", NOW)
    assert window == Window(utc(2026, 12, 1, 23), utc(2026, 12, 3, 13, 30))
    # a time on the first day only: to the end of the last day
    assert parse_away("2026-12-01 18:00", "2026-12-01", "UTC", NOW) == Window(
        utc(2026, 12, 1, 18), utc(2026, 12, 2)
    )


def test_the_day_summer_time_ends_has_25_hours() -> None:
    window = parse_away("2026-10-25", "2026-10-25", "Europe/Berlin", utc(2026, 10, 1))
    assert window == Window(utc(2026, 10, 24, 22), utc(2026, 10, 25, 23))
    assert window.end - window.start == 25 * H


def test_the_day_summer_time_begins_has_23_hours() -> None:
    window = parse_away("2026-03-29", "2026-03-29", "Europe/Berlin", utc(2026, 3, 1))
    assert window == Window(utc(2026, 3, 28, 23), utc(2026, 3, 29, 22))
    assert window.end - window.start == 23 * H


def test_fifteen_local_days_across_the_change_are_allowed() -> None:
    # 15 days on the calendar, 15 days and 1 hour of seconds
    window = parse_away("2026-10-20", "2026-11-03", "Europe/Berlin", utc(2026, 10, 1))
    assert window == Window(utc(2026, 10, 19, 22), utc(2026, 11, 3, 23))
    assert window.end - window.start == 15 * D + H


def test_an_absence_that_began_already_is_accepted_while_it_lasts() -> None:
    window = parse_away("2026-11-18", "2026-11-22", "UTC", NOW)
    assert window == Window(utc(2026, 11, 18), utc(2026, 11, 23))


@pytest.mark.parametrize(
    ("text_from", "text_to", "message"),
    [
        ("2026-12-10", "2026-12-01", "'2026-12-01' is not after '2026-12-10': give the first"),
        ("2026-12-01 18:00", "2026-12-01 09:00", "must end after it starts"),
        ("2026-12-01 18:00", "2026-12-01 18:00", "must end after it starts"),
        ("2026-12-01", "2026-12-16", "at most 15 days, and this one is 16 days: shorten it"),
        ("2026-11-01", "2026-11-05", r"over already: it ended Fri 6 Nov 2026 00:00 CET"),
        ("2026-11-10", "2026-11-20 13:00", "over already"),  # NOW, in Berlin
        ("2026-02-30", "2026-03-02", "'2026-02-30' is not a day of the calendar"),
        ("12/01/2026", "12/10/2026", "could be read two ways"),
        ("next week", "2026-12-10", "'next week' is not a date: write it as 2026-12-01"),
        ("1 Dex 2026", "2026-12-10", "'dex' is not a month"),
        ("Mon 1 Dec 2026", "2026-12-10", "2026-12-01 is a Tuesday, not a Monday"),
        ("2026-12-01 25:00", "2026-12-10", "not a time of day"),
        ("", "2026-12-10", "a date is missing"),
        ("9999-12-20", "9999-12-31", "too far away"),
    ],
)
def test_bad_absences_are_refused_with_a_reason(text_from: str, text_to: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_away(text_from, text_to, "Europe/Berlin", NOW)


def test_the_longest_absence_can_be_changed() -> None:
    assert parse_away("2026-12-01", "2026-12-16", "UTC", NOW, max_days=16)
    with pytest.raises(ValueError, match="at most 3 days"):
        parse_away("2026-12-01", "2026-12-04", "UTC", NOW, max_days=3)


def test_an_absence_in_an_unknown_zone_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown time zone"):
        parse_away("2026-12-01", "2026-12-10", "Mars/Olympus", NOW)


# --- time zones --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "zone"),
    [
        ("Europe/Berlin", "Europe/Berlin"),
        ("europe/berlin", "Europe/Berlin"),
        ("  EUROPE/BERLIN ", "Europe/Berlin"),
        ("america/new york", "America/New_York"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("UTC", "UTC"),
        ("utc", "UTC"),
        ("GMT", "GMT"),
    ],
)
def test_zone_names_are_made_canonical(name: str, zone: str) -> None:
    assert check_timezone(name) == zone


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Europe/Berln", "unknown time zone 'Europe/Berln': did you mean Europe/Berlin"),
        ("Berlin", "did you mean Europe/Berlin"),
        ("Amercia/New_York", "did you mean America/New_York"),
        ("UTC+2", "offset: give the place instead"),
        ("+01:00", "offset"),
        ("Mars/Olympus", "give an IANA name such as Europe/Berlin"),
        ("localtime", "unknown time zone"),
        ("", "unknown time zone"),
    ],
)
def test_unknown_zones_are_refused_with_a_suggestion(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_timezone(name)


def test_a_deadline_is_shown_in_each_players_zone() -> None:
    when = utc(2026, 11, 24, 17)
    now = when - (2 * D + 3 * H + 20 * 60)
    assert format_deadline(when, "Europe/Berlin", now) == (
        "Tue 24 Nov 2026 18:00 CET (in 2 days 3 hours)"
    )
    assert format_deadline(when, "America/New_York", now) == (
        "Tue 24 Nov 2026 12:00 EST (in 2 days 3 hours)"
    )
    assert format_deadline(when, "Asia/Tokyo") == "Wed 25 Nov 2026 02:00 JST"
    assert format_deadline(when, "utc") == "Tue 24 Nov 2026 17:00 UTC"


def test_summer_time_and_zones_without_an_abbreviation() -> None:
    when = utc(2026, 7, 1, 17, 59)
    assert format_deadline(when, "Europe/Berlin") == "Wed 1 Jul 2026 19:59 CEST"
    assert format_deadline(when, "Europe/Istanbul") == "Wed 1 Jul 2026 20:59 UTC+03"
    assert format_deadline(when, "Asia/Kathmandu") == "Wed 1 Jul 2026 23:44 UTC+05:45"
    assert format_deadline(when, "America/Sao_Paulo") == "Wed 1 Jul 2026 14:59 UTC-03"


def test_seconds_are_cut_and_past_deadlines_say_ago() -> None:
    when = utc(2026, 11, 24, 17) + 59.9
    assert format_deadline(when, "UTC", when + 5 * H) == "Tue 24 Nov 2026 17:00 UTC (5 hours ago)"
    assert format_deadline(when, "UTC", when - 20) == (
        "Tue 24 Nov 2026 17:00 UTC (in less than a minute)"
    )
