"""A game's webhook: where each report's summary is posted for groups that live in chat.

The game master sets it by mail (`webhook URL [discord|slack|json]`, `webhook off`). It
is kept in the store's `meta` table under ``webhook:GAME`` (no schema change), with the
move the last post went up to, so each post tells what happened since the one before.

This module keeps the hook and answers the order; it does no network I/O. The posts
(`moderator.mail.webhook.Post`: the forms, the address checks and the sender are
there) are handed over only after the mail's transaction commits (`Answers.committed`),
to the service's sender, which posts them from a task of its own: a webhook that is
down or slow never delays mail.

Only http and https URLs are taken. The service is public, so an address on this
machine or a private network is refused (SSRF) unless the operator allows it
(``[moderator] webhook_allow_private``): judged when it is set, against every address
the name resolves to, which the hook keeps; the posts go to those addresses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from moderator.mail.webhook import KINDS, Kind, guess_kind, judge
from moderator.store import Store

__all__ = ["MAX_LINES", "Hook", "WebhookRefused", "configure", "hook", "set_hook",
           "summary_lines"]

#: A post names at most this many moves (a long timeout run is summarised).
MAX_LINES = 15


@dataclass(frozen=True, slots=True)
class Hook:
    """A game's webhook: where, in which form, and the move the last post went up to."""

    url: str
    kind: Kind
    posted: int = 0
    #: The addresses judged when it was set: posts connect to them, no look-up again.
    addresses: tuple[str, ...] = ()


def _key(game_id: str) -> str:
    return f"webhook:{game_id.casefold()}"


def hook(store: Store, game_id: str) -> Hook | None:
    """GAME_ID's webhook, if its game master set one."""
    raw = store.meta(_key(game_id))
    if not raw:
        return None
    data = json.loads(raw)
    return Hook(str(data["url"]), data["kind"], int(data.get("posted", 0)),
                tuple(str(a) for a in data.get("addresses", ())))


def set_hook(store: Store, game_id: str, value: Hook | None) -> None:
    """Set (or with None, remove) GAME_ID's webhook."""
    if value is None:
        store.execute("DELETE FROM meta WHERE key = ?", [_key(game_id)])
        return
    store.set_meta(_key(game_id), json.dumps(
        {"url": value.url, "kind": value.kind, "posted": value.posted,
         "addresses": list(value.addresses)}))


def summary_lines(entries: Sequence[str]) -> tuple[str, ...]:
    """At most MAX_LINES moves: the last ones, with how many came before them."""
    if len(entries) <= MAX_LINES:
        return tuple(entries)
    skipped = len(entries) - MAX_LINES + 1
    return (f"({skipped} earlier moves)", *entries[-(MAX_LINES - 1):])


class WebhookRefused(Exception):
    """A `webhook` order that cannot be done; the message says why."""


def configure(store: Store, game_id: str, next_move: int, url: str | None,
              form: str | None, allow_private: bool) -> tuple[str, str, Callable[[], None]]:
    """The game master's `webhook URL [FORM]` or `webhook off`: the answer, the line for
    everyone's report (players know where their game is posted; the URL itself, which
    holds the chat's key, is not repeated), and the change to make if the mail is
    accepted. Raises WebhookRefused."""
    if url is None:
        if hook(store, game_id) is None:
            raise WebhookRefused("the game has no webhook")
        return ("webhook off: reports are no longer posted",
                "The game master turned the webhook off: reports are no longer posted.",
                lambda: set_hook(store, game_id, None))
    # Judged now with the rules and the resolver of a post (issue 31), not at the first
    # post, silently: the game master learns at once that it will never be posted to.
    problem, addresses = judge(url, allow_private)
    if problem is not None:
        raise WebhookRefused(problem)
    kind = next((k for k in KINDS if k == form), None) or guess_kind(url)
    host = urlsplit(url).hostname
    return (f"webhook set: each report's summary is posted to {host} ({kind})",
            f"The game master set a webhook: each report's summary is posted to {host}.",
            lambda: set_hook(store, game_id, Hook(url, kind, next_move, addresses)))
