"""What the operator watches (schema 7, `moderator health`): the service's last good
IMAP session and SMTP send and the permanent errors it waits out (`health`), and the
mailbox's quota as last asked (in `meta`)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from moderator.store.base import StoreBase


@dataclass(frozen=True, slots=True)
class Quota:
    """The moderator's mailbox quota as the IMAP server last told it (GETQUOTAROOT)."""

    used: int  # kilobytes (RFC 2087's STORAGE unit: 1024 octets)
    limit: int
    warn_percent: float  # the configured warning level
    checked: float

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.limit if self.limit else 0.0


@dataclass(frozen=True, slots=True)
class HealthRow:
    name: str
    ok: float | None
    error: str | None
    error_since: float | None
    tries: int


class HealthStore(StoreBase):
    """The service's health and the mailbox's quota."""

    def health_ok(self, name: str, now: float) -> None:
        """A good IMAP session or SMTP send: any error recorded for NAME is over."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO health (name, ok) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                "SET ok = excluded.ok, error = NULL, error_since = NULL, tries = 0",
                [name, now])

    def health_error(self, name: str, error: str, now: float) -> None:
        """A permanent error of NAME (one more try of it)."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO health (name, error, error_since, tries) VALUES (?, ?, ?, 1) "
                "ON CONFLICT (name) DO UPDATE SET error = excluded.error, error_since = "
                "COALESCE(health.error_since, excluded.error_since), tries = health.tries + 1",
                [name, error, now])

    def health(self) -> dict[str, HealthRow]:
        return {r[0]: HealthRow(*r) for r in self.db.execute(
            "SELECT name, ok, error, error_since, tries FROM health").fetchall()}

    def set_quota(self, quota: Quota) -> None:
        """The mailbox's quota as last asked (in `meta`: it needs no table)."""
        with self.transaction():
            self.set_meta("imap_quota", json.dumps(dataclasses.asdict(quota)))

    def quota(self) -> Quota | None:
        value = self.meta("imap_quota")
        return None if value is None else Quota(**json.loads(value))
