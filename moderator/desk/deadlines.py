"""Turn deadlines: durations, stopped clocks, reminders, absences and players' time zones.

Pure functions: no clock reads and no I/O beyond the IANA zone data that `zoneinfo`
reads. Every instant is a float of epoch seconds (UTC); the caller passes ``now``.

A player's clock runs only while it is their turn and stops inside *stopped windows*
(their absences, a paused game): `deadline_after` finds the moment a turn's allowance
runs out, `running_time` how much of it has run. Windows are half-open, ``[start, end)``.

Durations are written as a player would (`parse_duration`: ``48h``, ``2d12h``,
``2 days``) and shown back in one form (`format_duration`: ``2 days 12 hours``).
Absences are whole days in the player's own zone unless times are given
(`parse_away`), and deadlines are shown in the player's zone (`format_deadline`).
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_ZONE",
    "MAX_AWAY_DAYS",
    "MAX_AWAY_WINDOWS",
    "MAX_DEADLINE",
    "MIN_DEADLINE",
    "REMINDER_BEFORE",
    "TIMEOUT_POLICIES",
    "Window",
    "check_timezone",
    "deadline_after",
    "format_deadline",
    "format_duration",
    "parse_away",
    "parse_duration",
    "policy_text",
    "reminder_times",
    "running_time",
]

MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0

DEFAULT_DEADLINE = 72 * HOUR
MIN_DEADLINE = 1 * HOUR
MAX_DEADLINE = 30 * DAY
REMINDER_BEFORE = 4 * HOUR
MAX_AWAY_DAYS = 15
MAX_AWAY_WINDOWS = 3  # per player; counting them is the caller's business
DEFAULT_ZONE = "UTC"


# --- durations ---------------------------------------------------------------------

_UNITS: dict[str, tuple[str, float]] = {
    name: unit
    for names, unit in (
        (("w", "wk", "wks", "week", "weeks"), ("weeks", 7 * DAY)),
        (("d", "day", "days"), ("days", DAY)),
        (("h", "hr", "hrs", "hour", "hours"), ("hours", HOUR)),
        (("m", "min", "mins", "minute", "minutes"), ("minutes", MINUTE)),
    )
    for name in names
}

_DURATION_TOKEN = re.compile(
    r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]+)"
    r"|(?P<bare>\d+(?:\.\d+)?)"
    r"|(?P<sep>\s+|,|\band\b)"
    r"|(?P<other>.)"
)
_EXAMPLES = "such as 48h, 3d, 2d12h or 36 hours"


def parse_duration(
    text: str, *, minimum: float = MIN_DEADLINE, maximum: float = MAX_DEADLINE
) -> float:
    """Seconds in TEXT, a sum of numbers with units: ``48h``, ``72 h``, ``3d``, ``2d12h``,
    ``90m``, ``1d 6h``, ``36 hours``, ``2 days``, ``1 day and 6 hours``, ``1.5d``.

    Units: w/week(s), d/day(s), h/hr(s)/hour(s), m/min(s)/minute(s), each at most once.
    ValueError, with a message for the player, for anything else, for a number without
    a unit, and for a total outside [MINIMUM, MAXIMUM] (by default 1 hour to 30 days).
    """
    shown = text.strip()
    if len(shown) > 60:
        raise ValueError(f"that is too long for a duration: give one {_EXAMPLES}")
    if not shown:
        raise ValueError(f"give a duration {_EXAMPLES}")
    total = 0.0
    seen: set[str] = set()
    for token in _DURATION_TOKEN.finditer(shown.lower()):
        if token["sep"] is not None:
            continue
        if token["bare"] is not None:
            raise ValueError(
                f"'{shown}': {token['bare']} needs a unit, "
                f"e.g. {token['bare']}h for hours or {token['bare']}d for days"
            )
        if token["other"] is not None:
            raise ValueError(f"'{shown}' is not a duration: give one {_EXAMPLES}")
        word = token["unit"]
        if word not in _UNITS:
            raise ValueError(
                f"'{shown}': unknown unit '{word}'; use d (days), h (hours) or m (minutes), "
                "e.g. 2d12h"
            )
        unit, size = _UNITS[word]
        if unit in seen:
            raise ValueError(f"'{shown}' gives {unit} twice")
        seen.add(unit)
        total += float(token["number"]) * size
    if not seen:
        raise ValueError(f"give a duration {_EXAMPLES}")
    if total < minimum:
        raise ValueError(f"'{shown}' is too short: it must be at least {format_duration(minimum)}")
    if total > maximum:
        raise ValueError(f"'{shown}' is too long: it may be at most {format_duration(maximum)}")
    return total


def format_duration(seconds: float) -> str:
    """SECONDS in words: whole days, hours and minutes, the two largest non-zero ones,
    the rest cut off (never rounded up): ``2 days 12 hours``, ``2 days`` (for 48 hours),
    ``1 hour 30 minutes``, ``2 days 30 minutes``; under a minute ``less than a minute``.

    `parse_duration` reads every result back. ValueError for negative or non-finite.
    """
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"not a duration: {seconds!r}")
    minutes = int(seconds // MINUTE)
    if minutes == 0:
        return "less than a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [
        f"{count} {name if count == 1 else name + 's'}"
        for count, name in ((days, "day"), (hours, "hour"), (minutes, "minute"))
        if count
    ]
    return " ".join(parts[:2])


# --- stopped clocks ----------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A stretch of time ``[start, end)`` in epoch seconds, during which a clock stops."""

    start: float
    end: float

    def __post_init__(self) -> None:
        if not self.end >= self.start:
            raise ValueError(f"a window cannot end ({self.end}) before it starts ({self.start})")


def _merged(stopped: Sequence[Window], since: float) -> list[tuple[float, float]]:
    """STOPPED cut to what lies after SINCE, sorted, overlapping ones merged."""
    spans = sorted((max(w.start, since), w.end) for w in stopped if w.end > since)
    merged: list[tuple[float, float]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def deadline_after(start: float, allowed: float, stopped: Sequence[Window]) -> float:
    """The first moment at which ALLOWED seconds of clock time have run since START, the
    clock standing still inside every window of STOPPED.

    The windows may overlap, come in any order, begin before START or lie entirely
    before it. A turn that starts inside a window begins to run when the window ends.
    """
    if not allowed >= 0:
        raise ValueError(f"allowed time must be at least 0, not {allowed!r}")
    now, left = start, allowed
    for stop_start, stop_end in _merged(stopped, start):
        if stop_start - now >= left:
            break
        left -= stop_start - now
        now = stop_end
    return now + left


def running_time(start: float, end: float, stopped: Sequence[Window]) -> float:
    """Seconds of clock time between START and END (0 if END is not after START), the
    clock standing still inside STOPPED; the inverse of `deadline_after`."""
    if end <= start:
        return 0.0
    run = end - start
    for stop_start, stop_end in _merged(stopped, start):
        if stop_start >= end:
            break
        run -= min(stop_end, end) - stop_start
    return run


def reminder_times(
    start: float,
    deadline: float,
    before: float = REMINDER_BEFORE,
    *,
    stopped: Sequence[Window] = (),
    min_gap: float = HOUR,
) -> tuple[float, ...]:
    """When to remind the player of a turn from START to DEADLINE, in order: at half time
    and BEFORE seconds ahead of the deadline, both measured on the player's clock (which
    stands still inside STOPPED, so no reminder is sent during an absence).

    The mail that starts the turn counts as one: a reminder is left out when it would
    fall less than MIN_GAP after START, and the half-time one is left out unless it
    comes at least MIN_GAP before the other. So 72h gives two reminders (36h, 68h),
    6h two (3h, 2h before), 4h only the half-time one and 1h none.
    """
    if not deadline >= start:
        raise ValueError("the deadline cannot come before the start of the turn")
    if not before > 0:
        raise ValueError(f"the reminder must come before the deadline, not {before!r}")
    total = running_time(start, deadline, stopped)
    late = deadline_after(start, total - before, stopped) if total > before else None
    if late is not None and late - start < min_gap:
        late = None
    half = deadline_after(start, total / 2, stopped)
    if half - start < min_gap or (late is not None and late - half < min_gap):
        return () if late is None else (late,)
    return (half,) if late is None else (half, late)


# --- time zones --------------------------------------------------------------------


@functools.cache
def _zone_names() -> dict[str, str]:
    """Every IANA zone name, by its lower-case spelling."""
    names = zoneinfo.available_timezones() - {"localtime", "Factory"}
    return {name.lower(): name for name in names}


@functools.cache
def _zones_by_place() -> dict[str, tuple[str, ...]]:
    """Zone names by their last part, lower case: ``berlin`` -> ``Europe/Berlin``."""
    places: dict[str, list[str]] = {}
    for name in sorted(_zone_names().values()):
        places.setdefault(name.rsplit("/", 1)[-1].lower(), []).append(name)
    return {place: tuple(names) for place, names in places.items()}


_OFFSET = re.compile(r"^(?:utc|gmt)?\s*[+-]\s*\d")


def check_timezone(name: str) -> str:
    """The IANA name of the zone NAME spells, in its proper case: ``europe/berlin`` ->
    ``Europe/Berlin``, ``america/new york`` -> ``America/New_York``, ``utc`` -> ``UTC``.

    ValueError for anything else, suggesting the nearest names (``Europe/Berln``, or a
    bare ``Berlin``: did you mean Europe/Berlin?) or, for an offset such as ``UTC+2``,
    asking for a place so that summer time is followed.
    """
    key = "_".join(name.strip().split()).lower()
    names = _zone_names()
    if key in names:
        return names[key]
    shown = name.strip()
    if _OFFSET.match(key):
        raise ValueError(
            f"'{shown}' is an offset: give the place instead, e.g. Europe/Berlin or "
            "America/New_York, so that summer time is followed"
        )
    place = key.rsplit("/", 1)[-1]
    places = _zones_by_place()
    guesses = [names[k] for k in difflib.get_close_matches(key, names, n=3, cutoff=0.8)]
    for near in difflib.get_close_matches(place, places, n=2, cutoff=0.8):  # exact first
        guesses += places[near]
    unique = list(dict.fromkeys(guesses))[:3]
    if unique:
        choice = " or ".join(unique)
        raise ValueError(f"unknown time zone '{shown}': did you mean {choice}?")
    raise ValueError(
        f"unknown time zone '{shown}': give an IANA name such as Europe/Berlin, "
        "America/New_York or UTC"
    )


def _zone(name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(check_timezone(name))


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _zone_label(moment: datetime) -> str:
    """The zone's abbreviation (CET, EST, UTC), or UTC+03 where it has none."""
    label = moment.tzname() or ""
    if label[:1] in ("+", "-", ""):
        offset = moment.utcoffset() or timedelta(0)
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        hours, rest = divmod(abs(minutes), 60)
        label = f"UTC{sign}{hours:02d}" + (f":{rest:02d}" if rest else "")
    return label


def _show_local(moment: datetime) -> str:
    return (
        f"{_WEEKDAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]} "
        f"{moment.year} {moment:%H:%M} {_zone_label(moment)}"
    )


def format_deadline(when: float, zone: str, now: float | None = None) -> str:
    """WHEN as the clock shows it in ZONE, to the minute (seconds cut off), in English
    whatever the machine's locale: ``Tue 24 Nov 2026 18:00 CET``; with NOW, how far
    off it is: ``... (in 2 days 3 hours)`` or ``... (5 hours ago)``."""
    local = datetime.fromtimestamp(math.floor(when / MINUTE) * MINUTE, _zone(zone))
    shown = _show_local(local)
    if now is None:
        return shown
    if when > now:
        return f"{shown} (in {format_duration(when - now)})"
    return f"{shown} ({format_duration(now - when)} ago)"


# --- absences ----------------------------------------------------------------------

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_FULL_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = r"(?:,?\s+(?:at\s+)?(?P<hour>\d{1,2}):(?P<minute>\d{2}))?"
_DATE_FORMS = (
    re.compile(
        r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"
        r"(?:(?:t|\s+)(?P<hour>\d{1,2}):(?P<minute>\d{2}))?"
    ),
    re.compile(
        r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\.?\s+(?P<mname>[a-z]+)\.?,?\s+(?P<year>\d{4})" + _TIME
    ),
    re.compile(
        r"(?P<mname>[a-z]+)\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})" + _TIME
    ),
)
_WEEKDAY_PREFIX = re.compile(r"(?P<weekday>[a-z]{3,})\.?,?\s+")
_DATE_HELP = "write it as 2026-12-01 or 1 Dec 2026, with a time if you like: 2026-12-01 18:00"


def _month(word: str) -> int | None:
    if len(word) >= 3:
        for number, name in enumerate(_MONTH_NAMES, 1):
            if name.startswith(word) or (word == "sept" and number == 9):
                return number
    return None


def _read_date(text: str) -> tuple[date, tuple[int, int] | None]:
    """The date in TEXT and its time of day (hour, minute), if it gives one."""
    shown = " ".join(text.split())
    if not shown:
        raise ValueError(f"a date is missing: {_DATE_HELP}")
    lowered = shown.lower()
    weekday = None
    prefix = _WEEKDAY_PREFIX.match(lowered)
    if prefix:
        days = [n for n, full in enumerate(_FULL_WEEKDAYS) if full.startswith(prefix["weekday"])]
        if days:
            weekday = days[0]
            lowered = lowered[prefix.end() :]
    for form in _DATE_FORMS:
        found = form.fullmatch(lowered)
        if found:
            break
    else:
        if re.fullmatch(r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}", lowered):
            raise ValueError(f"'{shown}' could be read two ways: {_DATE_HELP}")
        raise ValueError(f"'{shown}' is not a date: {_DATE_HELP}")
    groups = found.groupdict()
    month = int(groups["month"]) if groups.get("month") else _month(groups["mname"])
    if month is None:
        raise ValueError(f"'{shown}': '{groups['mname']}' is not a month: {_DATE_HELP}")
    try:
        day = date(int(groups["year"]), month, int(groups["day"]))
    except ValueError:
        raise ValueError(f"'{shown}' is not a day of the calendar") from None
    if weekday is not None and weekday != day.weekday():
        actual, named = _FULL_WEEKDAYS[day.weekday()], _FULL_WEEKDAYS[weekday]
        raise ValueError(
            f"'{shown}': {day.isoformat()} is a {actual.title()}, not a {named.title()}"
        )
    if groups["hour"] is None:
        return day, None
    hour, minute = int(groups["hour"]), int(groups["minute"])
    if hour > 23 or minute > 59:
        raise ValueError(f"'{shown}': {hour}:{minute:02d} is not a time of day (00:00 to 23:59)")
    return day, (hour, minute)


def parse_away(
    text_from: str, text_to: str, zone: str, now: float, *, max_days: int = MAX_AWAY_DAYS
) -> Window:
    """The absence from TEXT_FROM to TEXT_TO, read in the player's ZONE.

    Dates: ``2026-12-01``, ``1 Dec 2026``, ``December 1, 2026``, ``Tue 1 Dec 2026``, each
    with an optional time (``2026-12-01 18:00``, 24-hour). A date alone means from the
    start of that day (00:00) and, for TEXT_TO, to its end (00:00 of the next day): both
    days are included. A local time that summer time skips counts as after the jump, a
    repeated one as its first occurrence.

    ValueError, worded for the player, for an unreadable date, an end not after the
    start, a length of more than MAX_DAYS days (counted on the local calendar), or an
    absence that has already ended at NOW.
    """
    tz = _zone(zone)
    first, first_time = _read_date(text_from)
    last, last_time = _read_date(text_to)
    try:
        begins = datetime(first.year, first.month, first.day, *(first_time or (0, 0)))
        if last_time is None:
            ends = datetime.combine(last + timedelta(days=1), datetime.min.time())
        else:
            ends = datetime(last.year, last.month, last.day, *last_time)
        start = begins.replace(tzinfo=tz).timestamp()
        end = ends.replace(tzinfo=tz).timestamp()
    except (OverflowError, ValueError, OSError):
        raise ValueError(f"'{text_from}' to '{text_to}' is too far away") from None
    if end <= start:
        raise ValueError(
            f"an absence must end after it starts, and '{text_to.strip()}' is not after "
            f"'{text_from.strip()}': give the first day, then the last"
        )
    length = ends - begins  # on the local calendar: a day is a day across summer time
    if length > timedelta(days=max_days):
        raise ValueError(
            f"an absence may last at most {max_days} days, and this one is "
            f"{format_duration(length.total_seconds())}: shorten it"
        )
    if end <= now:
        raise ValueError(
            f"that absence is over already: it ended {_show_local(datetime.fromtimestamp(end, tz))}"
        )
    return Window(start, end)


#: What each timeout policy does at a deadline (`moderator.desk.timekeeper`).
TIMEOUT_POLICIES = {"wait": "wait (the game master and the players are told who is late; the late "
                   "player is reminded daily)",
           "pass": "pass (the moderator plays the late seat's conservative default: "
                   "passes, no track or token, best run withheld, a train only when forced)"}


def policy_text(policy: str) -> str:
    """What a timeout policy does, in a sentence for the players."""
    return TIMEOUT_POLICIES.get(policy, policy)
