"""`moderator quarantine`: the mails the service gave up on, for the operator.

A mail whose processing fails is tried again after a growing wait; after
``max_attempts`` tries it is quarantined: kept, with its error, its sender told once
(`moderator.desk.processor`). `list` shows those and the mails still waiting for a
retry, `show KEY` one of them with its error and header, `release KEY` has a
quarantined mail tried again from the start (a running service does so within
seconds). KEY is the number `list` prints (#12), the mail's key, or its start.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import click

from moderator.cli.play import DEFAULT_DB
from moderator.mail.parse import one_line, parse_incoming
from moderator.store import MessageState, Store

__all__ = ["config_option", "db_option", "open_db", "quarantine", "when"]


def when(stamp: float | None) -> str:
    if stamp is None:
        return "-"
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def open_db(db_path: Path, config_path: Path | None) -> Store:
    from moderator.config import ConfigError, load_config
    from moderator.service import open_store

    if config_path is not None:
        try:
            db_path = load_config(config_path).moderator.database
        except ConfigError as exc:
            raise click.UsageError(f"the configuration is not usable.\n{exc}") from None
    if not db_path.exists():
        raise click.ClickException(f"there is no database at {db_path}")
    return open_store(db_path)


def _one(store: Store, ref: str) -> MessageState:
    found = store.find_message(ref)
    if not found:
        raise click.ClickException(f"no mail {ref!r} (see `moderator quarantine list`)")
    if len(found) > 1:
        raise click.ClickException(
            f"{ref!r} names {len(found)} mails; give more of the key, or its number: "
            + ", ".join(f"#{m.number}" for m in found))
    return found[0]


def _state(mail: MessageState) -> str:
    if mail.quarantined is not None:
        return "quarantined"
    if mail.status == "done":
        return "done"
    return f"waiting (next try {when(mail.retry_at)})"


def _subject(store: Store, key: str) -> str:
    row = store.message(key)
    return "" if row is None else parse_incoming(row.raw, "", key).subject


db_option = click.option(
    "--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DB,
    show_default=True, help="The service's SQLite file (the embedded service's by default).")
config_option = click.option(
    "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
    default=None, help="Read the database's place from the service's TOML configuration.")


@click.group("quarantine")
def quarantine() -> None:
    """The mails the service gave up on after they kept failing: list, show, release."""


@quarantine.command("list")
@db_option
@config_option
def list_command(db_path: Path, config_path: Path | None) -> None:
    """The quarantined mails, and those waiting to be tried again."""
    store = open_db(db_path, config_path)
    try:
        mails = store.troubled_messages()
        if not mails:
            click.echo("No mail is quarantined or waiting for a retry.")
            return
        for mail in mails:
            click.echo(f"#{mail.number}  {_state(mail)}  from {mail.sender or '?'}  "
                       f"received {when(mail.received)}  tries {mail.attempts}  "
                       f"subject {_subject(store, mail.key)!r}")
            click.echo(f"    key {mail.key}")
            click.echo(f"    error {one_line(mail.last_error or '?', 300)}")
    finally:
        store.close()


@quarantine.command("show")
@click.argument("key")
@click.option("--raw", is_flag=True, help="Print the whole mail as received.")
@db_option
@config_option
def show_command(key: str, raw: bool, db_path: Path, config_path: Path | None) -> None:
    """One mail: its state, its error and its header (--raw: the whole mail)."""
    store = open_db(db_path, config_path)
    try:
        mail = _one(store, key)
        row = store.message(mail.key)
        assert row is not None
        click.echo(f"#{mail.number} {mail.key}")
        click.echo(f"state:       {_state(mail)}")
        click.echo(f"received:    {when(mail.received)}")
        click.echo(f"quarantined: {when(mail.quarantined)}")
        click.echo(f"tries:       {mail.attempts} ({mail.failures} ended in an error)")
        click.echo(f"outcome:     {row.outcome or '-'}")
        click.echo(f"error:       {mail.last_error or '-'}")
        click.echo(f"size:        {row.size} bytes")
        text = row.raw.decode("utf-8", "replace")
        shown = text if raw else text.replace("\r\n", "\n").partition("\n\n")[0]
        click.echo("--- the mail" + ("" if raw else "'s header") + " ---")
        click.echo(shown)
    finally:
        store.close()


@quarantine.command("release")
@click.argument("key")
@db_option
@config_option
def release_command(key: str, db_path: Path, config_path: Path | None) -> None:
    """Have a quarantined mail tried again from the start (after a fix)."""
    store = open_db(db_path, config_path)
    try:
        mail = _one(store, key)
        if mail.quarantined is None:
            raise click.ClickException(f"#{mail.number} is not quarantined ({_state(mail)})")
        store.release(mail.key, time.time())
        click.echo(f"Released #{mail.number}: a running service tries it again within "
                   "seconds; otherwise the next start does.")
    finally:
        store.close()
