"""The service's configuration: a TOML file, or the embedded defaults.

``moderator serve --config FILE`` reads three sections::

    [imap]       host, port, tls = "implicit" | "starttls" | "none", user, password, ...
    [smtp]       host, port, tls = "starttls" | "implicit" | "none", user, password, ...
    [moderator]  address, secret, database, ...

Every password and the secret may instead come from a file (``password_file``,
``secret_file``: the file's first line) or from an environment variable
(``MODERATOR_IMAP_PASSWORD``, ``MODERATOR_SMTP_PASSWORD``, ``MODERATOR_SECRET``), so
the file itself can be world-readable and kept in version control. Relative paths
are relative to the configuration file's folder.

`load_config` reports every problem at once -- unknown keys (with the closest known
key), missing required keys, wrong types -- as one `ConfigError`, so an operator
fixes the file in one go rather than one start-up at a time.

A refused login and a certificate that does not verify are permanent errors: the
service logs them once at ERROR and tries again only every ``error_retry`` seconds
([imap] and [smtp], default 1200: three tries an hour), so that a provider does not
lock the account for a wrong password tried forever.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

ImapTls = Literal["none", "implicit", "starttls"]
SmtpTls = Literal["none", "starttls", "implicit"]

IMAP_PASSWORD_ENV = "MODERATOR_IMAP_PASSWORD"
SMTP_PASSWORD_ENV = "MODERATOR_SMTP_PASSWORD"
SECRET_ENV = "MODERATOR_SECRET"

#: The shortest secret accepted: it keys every player's token (HMAC-SHA256).
MIN_SECRET_LENGTH = 16


class ConfigError(Exception):
    """The configuration cannot be used; `problems` lists every reason."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem"
                         f"{'s' if len(problems) != 1 else ''}:\n{lines}")


@dataclass(frozen=True)
class ImapConfig:
    """Where the moderator's mail is read."""

    host: str
    user: str
    password: str = field(repr=False)
    port: int = 993
    tls: ImapTls = "implicit"
    folder: str = "INBOX"
    # Move processed mail here; None keeps it in FOLDER, flagged.
    processed_folder: str | None = None
    # Re-issue IDLE this often: servers may drop an IDLE after 29 minutes (RFC 2177),
    # and NAT boxes forget quiet connections sooner.
    idle_timeout: float = 600.0
    # False: poll every poll_interval even when the server offers IDLE (for servers
    # whose IDLE is unreliable or slow to report new mail).
    idle: bool = True
    poll_interval: float = 60.0  # when the server has no IDLE (or idle is false)
    timeout: float = 30.0  # every IMAP command
    reconnect_min: float = 1.0  # the first wait after a lost connection ...
    reconnect_max: float = 60.0  # ... doubling up to this
    ca_file: Path | None = None
    # After a refused login or a certificate that does not verify: the next try.
    error_retry: float = 1200.0
    # Processed mail older than this many days is expunged from processed_folder (or,
    # without one, mail flagged $ModeratorDone from the folder), at most
    # retention_batch mails a session; 0 keeps it for ever. The database keeps every
    # mail it processed whatever the server keeps.
    processed_retention_days: float = 90.0
    retention_batch: int = 500
    # Warn (the log, `moderator health`) when the mailbox uses more of its quota than
    # this; a full mailbox makes the server bounce players' orders.
    quota_warn_percent: float = 80.0


@dataclass(frozen=True)
class SmtpConfig:
    """Where the moderator's mail is sent."""

    host: str
    port: int = 587
    tls: SmtpTls = "starttls"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = 30.0
    helo_name: str = "localhost"  # aiosmtplib's default asks DNS for the FQDN
    retry_min: float = 5.0  # the first wait after a failed delivery ...
    retry_max: float = 3600.0  # ... doubling up to this
    ca_file: Path | None = None
    # After a refused login or a certificate that does not verify: the next try.
    error_retry: float = 1200.0


@dataclass(frozen=True)
class ModeratorConfig:
    """Who the moderator is and where it keeps its games."""

    address: str
    secret: str = field(repr=False)
    database: Path
    name: str = "18xx moderator"
    # Addresses allowed to `create game`; empty: anyone, at most games_per_day each.
    game_masters: tuple[str, ...] = ()
    games_per_day: int = 3  # games one address may create a day (listed masters: no cap)
    # Addresses allowed to `create tournament` (issue 20); empty: nobody.
    tournament_directors: tuple[str, ...] = ()
    tournaments_per_day: int = 3  # tournaments one director may create a day
    invitations_per_day: int = 30  # invitations one game master may send a day
    invitations_per_game: int = 12  # invitations one game may send in all
    # Answers to mail that proved no seat (strangers, forged senders), per address and
    # hour; answers to a member's own authenticated mail and reports are never limited.
    replies_per_hour: int = 20
    # Reply-To carries the token as moderator+GAME.SEAT.TOKEN@domain; without
    # plus-addressing the token goes in the subject instead.
    plus_addressing: bool = True
    max_message_bytes: int = 10_000_000
    # CPU seconds one mail may take in processing; past them it is quarantined.
    mail_budget: float = 20.0
    # Long-running games (times in hours, as people write them).
    deadline_hours: float = 72.0  # a new game's time per turn (`set deadline` changes it)
    reminder_hours: float = 4.0  # the second reminder comes this long before a deadline
    away_windows: int = 3  # absence windows per player and game
    away_days: int = 15  # the longest absence window
    tick_interval: float = 60.0  # seconds between looks at the clocks
    # A mail whose processing fails is tried again after retry_min seconds, the wait
    # doubling up to retry_max; after max_attempts tries it is quarantined.
    max_attempts: int = 5
    retry_min: float = 10.0
    retry_max: float = 900.0
    # Games' webhooks (`webhook URL` by mail): each post waits at most webhook_timeout
    # seconds and is tried webhook_attempts times, the wait between doubling from
    # webhook_retry_min. Addresses on this machine or a private network are refused
    # unless webhook_allow_private (the service is public: no requests into the LAN).
    webhook_timeout: float = 10.0
    webhook_attempts: int = 4
    webhook_retry_min: float = 5.0
    webhook_allow_private: bool = False
    # DKIM (RFC 6376) for a relay that does not sign: the key published under
    # DKIM_SELECTOR._domainkey.DKIM_DOMAIN (the address's domain unless given). The key
    # is loaded and checked at start (`moderator.desk.settings.dkim_signer`).
    dkim_selector: str | None = None
    dkim_domain: str | None = None
    dkim_key_file: Path | None = None
    # Seconds a mail waits after it arrived before it is processed, so that the mails
    # its author wrote before it, delivered out of order, can catch up: a player's
    # mails are applied in the order written (`moderator.desk.ordering`). 0: at once.
    order_window: float = 5.0


@dataclass(frozen=True)
class Config:
    imap: ImapConfig
    smtp: SmtpConfig
    moderator: ModeratorConfig

    def warnings(self) -> list[str]:
        """What is allowed but unwise: plain text to another machine."""
        out = []
        if self.imap.tls == "none" and not is_loopback(self.imap.host):
            out.append(f"[imap] tls = \"none\" sends the password in clear text to "
                       f"{self.imap.host}; use tls = \"implicit\" or \"starttls\"")
        if self.smtp.tls == "none" and self.smtp.user and not is_loopback(self.smtp.host):
            out.append(f"[smtp] tls = \"none\" sends the password in clear text to "
                       f"{self.smtp.host}; use \"starttls\" or \"implicit\"")
        return out


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- reading the file -------------------------------------------------------------------

T = TypeVar("T")

_IMAP_PORTS = {"implicit": 993, "starttls": 143, "none": 143}
_SMTP_PORTS = {"implicit": 465, "starttls": 587, "none": 25}


class _Section:
    """One table of the file: typed reads that record problems instead of raising."""

    def __init__(self, name: str, data: Mapping[str, Any], problems: list[str],
                 base: Path, environ: Mapping[str, str]) -> None:
        self.name = name
        self.data = data
        self.problems = problems
        self.base = base
        self.environ = environ
        self.used: set[str] = set()

    def _problem(self, text: str) -> None:
        self.problems.append(f"[{self.name}] {text}")

    def get(self, key: str, kind: type[T], default: T | None = None, *,
            required: bool = False, check: Callable[[T], str | None] | None = None
            ) -> T | None:
        self.used.add(key)
        if key not in self.data:
            if required:
                self._problem(f"{key} is missing")
            return default
        value = self.data[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            self._problem(f"{key} = {value!r} must be {_KIND_NAMES.get(kind, kind.__name__)}")
            return default
        if check is not None and (why := check(value)) is not None:
            self._problem(f"{key} = {value!r}: {why}")
            return default
        return value  # type: ignore[no-any-return]

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.get(key, str, default, check=lambda v: None if v in choices else
                         "must be one of " + ", ".join(f'"{c}"' for c in choices))
        return default if value is None else value

    def path(self, key: str, *, required: bool = False) -> Path | None:
        value = self.get(key, str, required=required)
        if value is None:
            return None
        return (self.base / Path(value).expanduser()).resolve()

    def secret(self, key: str, env: str, *, required: bool) -> str | None:
        """KEY, or the first line of the file KEY_file, or the environment variable ENV."""
        inline = self.get(key, str)
        file_key = f"{key}_file"
        path = self.path(file_key)
        if inline is not None and path is not None:
            self._problem(f"give {key} or {file_key}, not both")
            return None
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                self._problem(f"{file_key} = {str(path)!r} cannot be read: {exc.strerror}")
                return None
            lines = text.splitlines()
            value = lines[0].strip() if lines else ""
            if not value:
                self._problem(f"{file_key} = {str(path)!r} is empty")
                return None
            return value
        if inline is not None:
            return inline
        from_env = self.environ.get(env, "").strip()
        if from_env:
            return from_env
        if required:
            self._problem(f"{key} is missing (give {key}, {file_key}, or set ${env})")
        return None

    def check_unknown(self) -> None:
        for key in self.data:
            if key not in self.used:
                near = difflib.get_close_matches(key, sorted(self.used), n=1)
                hint = f" (did you mean {near[0]}?)" if near else ""
                self._problem(f"unknown key {key}{hint}; known keys: "
                              + ", ".join(sorted(self.used)))


_KIND_NAMES = {str: "a string", int: "a whole number", float: "a number",
               bool: "true or false", list: "a list"}


def _port(value: int) -> str | None:
    return None if 0 < value < 65536 else "not a port number"


def _positive(value: float) -> str | None:
    return None if value > 0 else "must be more than 0"


def _not_negative(value: float) -> str | None:
    return None if value >= 0 else "must be 0 or more"


def _percent(value: float) -> str | None:
    return None if 0 < value <= 100 else "must be a percentage, more than 0 and at most 100"


def _address(value: str) -> str | None:
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in value):
        return "not a mail address (user@example.org)"
    if "+" in local:
        return "must be the plain address; the moderator adds +tags itself"
    return None


def load_config(path: Path, environ: Mapping[str, str] | None = None) -> Config:
    """Read and check the TOML file at PATH; ConfigError lists every problem."""
    env = os.environ if environ is None else environ
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(source, [f"cannot be read: {exc.strerror}"]) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(source, [f"is not valid TOML: {exc}"]) from None
    return parse_config(data, source, path.resolve().parent, env)


def parse_config(data: Mapping[str, Any], source: str, base: Path,
                 environ: Mapping[str, str]) -> Config:
    """The configuration in DATA (a parsed TOML document)."""
    problems: list[str] = []
    sections: dict[str, Mapping[str, Any]] = {}
    for name in ("imap", "smtp", "moderator"):
        value = data.get(name)
        if value is None:
            problems.append(f"[{name}] section is missing")
            value = {}
        elif not isinstance(value, dict):
            problems.append(f"{name} must be a section ([{name}])")
            value = {}
        sections[name] = value
    for name in data:
        if name not in sections:
            near = difflib.get_close_matches(name, list(sections), n=1)
            problems.append(f"unknown section [{name}]"
                            + (f" (did you mean [{near[0]}]?)" if near else "")
                            + "; the sections are [imap], [smtp], [moderator]")

    imap = _Section("imap", sections["imap"], problems, base, environ)
    imap_tls = imap.choice("tls", ("implicit", "starttls", "none"), "implicit")
    imap_config = dict(
        host=imap.get("host", str, required=True),
        port=imap.get("port", int, _IMAP_PORTS[imap_tls], check=_port),
        tls=imap_tls,
        user=imap.get("user", str, required=True),
        password=imap.secret("password", IMAP_PASSWORD_ENV, required=True),
        folder=imap.get("folder", str, "INBOX"),
        processed_folder=imap.get("processed_folder", str) or None,
        idle_timeout=imap.get("idle_timeout", float, 600.0, check=_idle),
        idle=imap.get("idle", bool, True),
        poll_interval=imap.get("poll_interval", float, 60.0, check=_positive),
        timeout=imap.get("timeout", float, 30.0, check=_positive),
        reconnect_min=imap.get("reconnect_min", float, 1.0, check=_positive),
        reconnect_max=imap.get("reconnect_max", float, 60.0, check=_positive),
        ca_file=imap.path("ca_file"),
        error_retry=imap.get("error_retry", float, 1200.0, check=_positive),
        processed_retention_days=imap.get("processed_retention_days", float, 90.0,
                                          check=_not_negative),
        retention_batch=imap.get("retention_batch", int, 500, check=_positive),
        quota_warn_percent=imap.get("quota_warn_percent", float, 80.0, check=_percent),
    )
    imap.check_unknown()

    smtp = _Section("smtp", sections["smtp"], problems, base, environ)
    smtp_tls = smtp.choice("tls", ("starttls", "implicit", "none"), "starttls")
    smtp_user = smtp.get("user", str)
    smtp_config = dict(
        host=smtp.get("host", str, required=True),
        port=smtp.get("port", int, _SMTP_PORTS[smtp_tls], check=_port),
        tls=smtp_tls,
        user=smtp_user,
        password=smtp.secret("password", SMTP_PASSWORD_ENV, required=smtp_user is not None),
        timeout=smtp.get("timeout", float, 30.0, check=_positive),
        helo_name=smtp.get("helo_name", str, "localhost"),
        retry_min=smtp.get("retry_min", float, 5.0, check=_positive),
        retry_max=smtp.get("retry_max", float, 3600.0, check=_positive),
        ca_file=smtp.path("ca_file"),
        error_retry=smtp.get("error_retry", float, 1200.0, check=_positive),
    )
    smtp.check_unknown()

    mod = _Section("moderator", sections["moderator"], problems, base, environ)
    masters = mod.get("game_masters", list, [], check=_addresses)
    directors = mod.get("tournament_directors", list, [], check=_addresses)
    secret = mod.secret("secret", SECRET_ENV, required=True)
    if secret is not None and len(secret) < MIN_SECRET_LENGTH:
        problems.append(f"[moderator] the secret must be at least {MIN_SECRET_LENGTH} "
                        "characters (try: python3 -c 'import secrets; "
                        "print(secrets.token_urlsafe(32))')")
        secret = None
    mod_config = dict(
        address=mod.get("address", str, required=True, check=_address),
        name=mod.get("name", str, "18xx moderator"),
        secret=secret,
        database=mod.path("database", required=True),
        game_masters=tuple(str(a).lower() for a in masters or ()),
        tournament_directors=tuple(str(a).lower() for a in directors or ()),
        tournaments_per_day=mod.get("tournaments_per_day", int, 3, check=_positive),
        replies_per_hour=mod.get("replies_per_hour", int, 20, check=_positive),
        games_per_day=mod.get("games_per_day", int, 3, check=_positive),
        invitations_per_day=mod.get("invitations_per_day", int, 30, check=_positive),
        invitations_per_game=mod.get("invitations_per_game", int, 12, check=_positive),
        plus_addressing=mod.get("plus_addressing", bool, True),
        max_message_bytes=mod.get("max_message_bytes", int, 10_000_000, check=_positive),
        mail_budget=mod.get("mail_budget", float, 20.0, check=_positive),
        deadline_hours=mod.get("deadline_hours", float, 72.0, check=_positive),
        reminder_hours=mod.get("reminder_hours", float, 4.0, check=_positive),
        away_windows=mod.get("away_windows", int, 3, check=_positive),
        away_days=mod.get("away_days", int, 15, check=_positive),
        tick_interval=mod.get("tick_interval", float, 60.0, check=_positive),
        max_attempts=mod.get("max_attempts", int, 5, check=_positive),
        retry_min=mod.get("retry_min", float, 10.0, check=_positive),
        retry_max=mod.get("retry_max", float, 900.0, check=_positive),
        webhook_timeout=mod.get("webhook_timeout", float, 10.0, check=_positive),
        webhook_attempts=mod.get("webhook_attempts", int, 4, check=_positive),
        webhook_retry_min=mod.get("webhook_retry_min", float, 5.0, check=_positive),
        webhook_allow_private=mod.get("webhook_allow_private", bool, False),
        order_window=mod.get("order_window", float, 5.0, check=_not_negative),
        **_dkim(mod, problems),
    )
    mod.check_unknown()

    if problems:
        raise ConfigError(source, problems)
    return Config(ImapConfig(**imap_config),  # type: ignore[arg-type]
                  SmtpConfig(**smtp_config),  # type: ignore[arg-type]
                  ModeratorConfig(**mod_config))


def _dkim(mod: _Section, problems: list[str]) -> dict[str, Any]:
    """[moderator]'s dkim_* keys: all three or none (the domain defaults to the
    address's)."""
    selector = mod.get("dkim_selector", str)
    domain = mod.get("dkim_domain", str)
    key_file = mod.path("dkim_key_file")
    if key_file is None and (selector or domain):
        problems.append("[moderator] dkim_selector and dkim_domain need dkim_key_file")
    if key_file is not None and not selector:
        problems.append("[moderator] dkim_key_file needs dkim_selector (the DNS name's "
                        "first label: SELECTOR._domainkey.DOMAIN)")
    if key_file is not None and not domain:
        address = mod.data.get("address")
        domain = address.rpartition("@")[2] if isinstance(address, str) else None
    return {"dkim_selector": selector, "dkim_domain": domain, "dkim_key_file": key_file}


def _idle(value: float) -> str | None:
    if value <= 0:
        return "must be more than 0"
    if value > 29 * 60:
        return "must be under 1740 (29 minutes): servers end an IDLE after 30 minutes"
    return None


def _addresses(value: list[Any]) -> str | None:
    for item in value:
        if not isinstance(item, str) or _address(item) is not None:
            return f"{item!r} is not a mail address"
    return None
