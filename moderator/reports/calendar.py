"""A turn's deadline as an iCalendar (.ics) event, to attach to the mail that reports it.

`deadline_event` gives a VCALENDAR with METHOD:PUBLISH and one VEVENT whose UID depends
only on the game, the seat and the moderator's domain: a player has one deadline event
per game, which each later one replaces rather than adding a second, provided its
SEQUENCE is higher (the caller keeps the sequence per game and seat and raises it
whenever it sends a changed event); when the turn passes, the same UID goes out with
METHOD:CANCEL, so no stale alarm rings. Times are written in UTC, so no VTIMEZONE is
needed and every calendar shows the deadline in its owner's own zone.

The icalendar library does the escaping and the folding of lines to 75 octets.
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime, timedelta
from email.utils import parseaddr

from icalendar import Alarm, Calendar, Event, vCalAddress, vText

__all__ = ["ICS_MEDIA_TYPE", "PRODID", "deadline_event", "deadline_uid"]

PRODID = "-//pbem-18xx-moderator//Turn deadlines//EN"
ICS_MEDIA_TYPE = "text/calendar; method=PUBLISH; charset=UTF-8"
_NO_DOMAIN = "pbem-18xx-moderator.invalid"


def _address(organizer: str) -> tuple[str, str]:
    """(display name, address) of ORGANIZER, ``moderator@example.org`` or
    ``Moderator <moderator@example.org>``."""
    name, address = parseaddr(organizer)
    if "@" not in address:
        raise ValueError(f"the organizer must be a mail address, not {organizer!r}")
    return name, address


def deadline_uid(game_id: str, seat: str, organizer: str) -> str:
    """The event's UID: a digest of GAME_ID and SEAT (exactly as given) at the domain of
    ORGANIZER's address, so that two moderators' games called 18TN-1 do not overwrite
    each other in a player's calendar. One per game and seat: every turn of the seat
    updates the same event."""
    digest = hashlib.sha256(f"{game_id}\x1f{seat}".encode()).hexdigest()[:32]
    domain = _address(organizer)[1].rpartition("@")[2].lower() or _NO_DOMAIN
    return f"deadline-{digest}@{domain}"


def _utc(moment: float) -> datetime:
    """MOMENT to the second below it (iCalendar has no fractions), in UTC."""
    return datetime.fromtimestamp(math.floor(moment), UTC)


def deadline_event(
    *,
    game_id: str,
    seat: str,
    deadline: float,
    now: float,
    summary: str,
    description: str,
    organizer: str,
    sequence: int = 0,
    length: float = 15 * 60,
    alarm_before: float = 3600,
    cancel: bool = False,
) -> bytes:
    """The .ics file (CRLF lines, UTF-8) announcing SEAT's deadline in GAME_ID:
    VCALENDAR (VERSION 2.0, PRODID, METHOD:PUBLISH) holding one VEVENT with

    - UID `deadline_uid` (one per game and seat) and SEQUENCE, which must grow each
      time a changed event is sent;
    - DTSTAMP = NOW, DTSTART = DEADLINE and DTEND LENGTH seconds later (UTC, seconds
      cut off), TRANSP:TRANSPARENT (a deadline does not make anyone busy);
    - SUMMARY, DESCRIPTION (any text: escaped and folded), ORGANIZER (mailto: the
      address of ORGANIZER, with its display name as CN);
    - a DISPLAY VALARM ALARM_BEFORE seconds before the start.

    With CANCEL the calendar says METHOD:CANCEL and the event STATUS:CANCELLED (the
    turn has passed; SEQUENCE must still be higher than the last event's), without an
    alarm.
    """
    if sequence < 0:
        raise ValueError(f"the sequence cannot be negative: {sequence}")
    if not length > 0 or not alarm_before >= 0:
        raise ValueError("the event needs a positive length and a non-negative alarm")
    name, address = _address(organizer)
    who = vCalAddress(f"mailto:{address}")
    if name:
        who.params["CN"] = vText(name)

    start = _utc(deadline)
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", summary)
    alarm.add("trigger", -timedelta(seconds=alarm_before))

    event = Event()
    event.add("uid", deadline_uid(game_id, seat, organizer))
    event.add("sequence", sequence)
    event.add("dtstamp", _utc(now))
    event.add("dtstart", start)
    event.add("dtend", start + timedelta(seconds=length))
    event.add("summary", summary)
    event.add("description", description)
    event.add("organizer", who)
    event.add("status", "CANCELLED" if cancel else "CONFIRMED")
    event.add("transp", "TRANSPARENT")
    if not cancel:
        event.add_component(alarm)

    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "CANCEL" if cancel else "PUBLISH")
    calendar.add_component(event)
    ics: bytes = calendar.to_ical()
    return ics
