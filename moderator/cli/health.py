"""`moderator health`: one line per check and an exit status, for monitoring.

It reads what the running service records in its SQLite store (schema 7: the
``health`` table, the outbox, the quarantine, the bounces) and talks to no server,
so a monitor may run it every minute. Exit status 0 when every check passes, 1 when
one fails:

* ``imap``: the last good IMAP session is recent (``--max-age``; the service records
  one at most a minute apart while it runs, and its IDLE waits ``idle_timeout``), and
  no permanent error (a refused login, a certificate that does not verify) is being
  waited out;
* ``smtp``: no permanent error; the last good send is shown;
* ``outbox``: no mail has waited longer than ``--max-wait``;
* ``quarantine``: no mail is quarantined (the operator must look: `moderator
  quarantine list`);
* ``bounces``: shown, never failing (players' mailboxes are theirs to fix): the
  addresses not receiving mail, and the bounces of the last day;
* ``quota``: the moderator's mailbox below the warning level of its quota
  (``[imap] quota_warn_percent``, as the service last saw it over IMAP QUOTA; shown
  as unknown, passing, where the server has no quota): a full mailbox makes the
  server bounce the players' orders;
* ``errors``: the permanent errors, each with what to fix.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from moderator.cli.quarantine import config_option, db_option, open_db, when
from moderator.store import Store

__all__ = ["health_command", "health_lines"]


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def health_lines(store: Store, now: float, max_age: float, max_wait: float
                 ) -> list[tuple[bool, str]]:
    """Each check: whether it passes, and its line."""
    rows = store.health()
    checks: list[tuple[bool, str]] = []
    errors: list[str] = []
    for name in ("imap", "smtp"):
        row = rows.get(name)
        good = "never" if row is None or row.ok is None else (
            f"{when(row.ok)} ({_age(now - row.ok)} ago)")
        what = "session" if name == "imap" else "send"
        if row is not None and row.error is not None:
            since = row.error_since or now
            errors.append(f"{name}: {row.error} (since {when(since)}, {row.tries} "
                          f"tr{'y' if row.tries == 1 else 'ies'})")
            checks.append((False, f"{name}: FAILING, a permanent error; last good {what} "
                                  f"{good}"))
        elif name == "imap" and (row is None or row.ok is None or now - row.ok > max_age):
            checks.append((False, f"imap: STALE, last good session {good} (more than "
                                  f"{_age(max_age)}: is the service running?)"))
        else:
            checks.append((True, f"{name}: ok, last good {what} {good}"))
    waiting, oldest = store.outbox_backlog(now)
    if waiting and oldest is not None and now - oldest > max_wait:
        checks.append((False, f"outbox: BACKLOG, {waiting} mail{'s' if waiting != 1 else ''} "
                              f"waiting, the oldest for {_age(now - oldest)}"))
    else:
        longest = f", the oldest for {_age(now - oldest)}" if oldest is not None else ""
        checks.append((True, f"outbox: ok, {waiting} waiting{longest}"))
    quarantined = store.quarantine_size()
    checks.append((quarantined == 0,
                   "quarantine: ok, empty" if not quarantined else
                   f"quarantine: {quarantined} mail{'s' if quarantined != 1 else ''} given "
                   "up (moderator quarantine list)"))
    marked = store.undeliverable()
    permanent, temporary = store.bounces_since(now - 86400)
    names = ", ".join(f"{m.address} ({m.status or 'bounced'})" for m in marked[:5])
    more = f" and {len(marked) - 5} more" if len(marked) > 5 else ""
    checks.append((True, f"bounces: {permanent} permanent and {temporary} temporary in the "
                         f"last day; {len(marked)} address{'es' if len(marked) != 1 else ''} "
                         f"not receiving mail{': ' + names + more if marked else ''}"))
    checks.append(_quota_line(store, now))
    checks.append((not errors, "errors: none" if not errors else "errors: " + "; ".join(errors)))
    return checks


def _quota_line(store: Store, now: float) -> tuple[bool, str]:
    quota = store.quota()
    if quota is None:
        return True, "quota: not known (the IMAP server has no QUOTA, or no session yet)"
    size = (f"{quota.percent:.0f}% of {quota.limit / 1024:.1f} MB used "
            f"({_age(now - quota.checked)} ago)")
    if quota.percent >= quota.warn_percent:
        return False, (f"quota: NEAR FULL, {size}; warning above {quota.warn_percent:g}%: "
                       "when it is full the server refuses the players' orders")
    return True, f"quota: ok, {size}"


@click.command("health")
@db_option
@config_option
@click.option("--max-age", type=float, default=1800.0, show_default=True,
              help="Seconds since the last good IMAP session before it counts as stale.")
@click.option("--max-wait", type=float, default=3600.0, show_default=True,
              help="Seconds a mail may wait in the outbox before it counts as a backlog.")
def health_command(db_path: Path, config_path: Path | None, max_age: float,
                   max_wait: float) -> None:
    """Check the service's health from its store: exit status 0 when all is well, 1
    when a check fails; one line per check (for monitoring)."""
    store = open_db(db_path, config_path)
    try:
        checks = health_lines(store, time.time(), max_age, max_wait)
    finally:
        store.close()
    for ok, line in checks:
        click.echo(("ok   " if ok else "FAIL ") + line)
    if not all(ok for ok, _ in checks):
        raise SystemExit(1)
