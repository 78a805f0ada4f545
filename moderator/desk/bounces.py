"""Bounces of the moderator's own mail (issue 29): recorded, told, never answered.

A mail to one of the moderator's bounce addresses (`moderator.mail.bounce`: the VERP
envelope sender each outgoing mail carries) is a delivery-status report for that
mail. It is attributed by the address's MAC alone, never by its text, and it is
never answered (`handle` returns before `processor.route`). What it says:

* a temporary failure (4.x.x, a delay) is only logged;
* a permanent failure (5.x.x) marks the recipient as not receiving mail
  (`Store.mark_undeliverable`): every report of the recipient's games says so to the
  others (the game master and the other players) from the next one on, the games'
  webhooks get a line at once, and `status` shows it. Reports to that address stop;
  its members' report marks go back to the last mail it was sent before the bounce,
  so the next answer it gets (when it mails again, which lifts the mark) carries the
  moves it missed.

A permanent refusal at sending (a 5xx to RCPT) is the same fact and goes through
`record` too (from the outbox).
"""

from __future__ import annotations

import logging
from typing import Literal

from moderator.desk.answers import bounce_reason
from moderator.desk.sender import games_of
from moderator.desk.webhooks import hook
from moderator.desk.work import Work
from moderator.mail.bounce import BounceReport, bounce_id, read_report
from moderator.mail.webhook import Post
from moderator.store import Bounce, Store

__all__ = ["handle", "record"]

log = logging.getLogger(__name__)


def handle(work: Work, raw: bytes) -> tuple[str, Literal["skipped"]] | None:
    """If WORK's mail came to a bounce address: record what it says; the summary for
    the log. None when it is no bounce (the mail is routed as usual)."""
    settings = work.settings
    found = [bounce_id(address, settings.address, settings.secret)
             for address in work.incoming.recipients]
    if all(value is None for value in found):
        return None
    mail_id = next((v for v in found if v is not None and v is not False), None)
    if mail_id is None or isinstance(mail_id, bool):
        log.warning("%s came to a bounce address with a wrong MAC (forged?): ignored",
                    work.incoming.key)
        return "skipped: a bounce address with a wrong MAC", "skipped"
    row = work.store.outbox_mail(mail_id)
    if row is None:
        return f"skipped: a bounce of mail {mail_id}, which is not in the outbox", "skipped"
    recipient, game_id, _ = row
    report = read_report(raw)
    posts = record(work.store, recipient, game_id, report, now=work.now,
                   cause=work.incoming.key, outbox_id=mail_id, moderator=settings.name)
    work.answers.posts.extend(posts)
    what = "permanent" if report.permanent else "temporary"
    return (f"skipped: bounce ({what}, {report.status or 'no status'}) of mail {mail_id} "
            f"to {recipient}"), "skipped"


def record(store: Store, recipient: str, game_id: str | None, report: BounceReport, *,
           now: float, cause: str | None, outbox_id: int | None,
           moderator: str) -> list[Post]:
    """Record REPORT for the mail OUTBOX_ID to RECIPIENT (in the caller's transaction);
    the webhook posts to send after the commit."""
    store.record_bounce(Bounce(now, recipient, game_id, report.status, report.permanent,
                               report.diagnostic), cause=cause, outbox_id=outbox_id)
    if not report.permanent:
        log.info("mail to %s is delayed (%s): %s", recipient, report.status or "no status",
                 report.diagnostic or "no diagnostic")
        return []
    if not store.mark_undeliverable(recipient, now, report.status, report.diagnostic):
        return []  # known already: told once
    log.warning("mail to %s bounced for good (%s: %s); its games' reports say so until "
                "it mails again", recipient, report.status or "no status",
                report.diagnostic or "no diagnostic")
    posts: list[Post] = []
    for game in games_of(store, recipient.lower()):
        members = [m for m in store.members(game) if m.address == recipient.lower()]
        if game == game_id and outbox_id is not None:
            # The moves since the last mail that reached it go in its next answer.
            shown = store.last_report_move(recipient, game, outbox_id) or 0
            if any(m.reported_move > shown for m in members):
                store.set_reported(game, recipient, shown)
        found = hook(store, game)
        if found is None:
            continue
        who = next((m.seat for m in members if m.seat), None) or (
            "the game master" if any(m.role == "master" for m in members) else "an observer")
        posts.append(Post(
            game_id=game, url=found.url, kind=found.kind,
            headline=f"mail to {who} cannot be delivered",
            lines=(f"{who}: {bounce_reason(report.status, report.diagnostic)}; reports wait "
                   f"until {who} mails the moderator again",),
            move=found.posted, to_move=None, game_over=False, moderator=moderator))
    return posts
