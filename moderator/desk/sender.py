"""Who sent a mail: the game it names, and whether it proves a seat in that game.

A forged From line alone never suffices. The sender needs the token the service put
in the Reply-To of its mails to them (or the subject, or a `password` line), and
must write from an address registered to the member that token is for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from grammar.submission import read_game_id
from moderator.desk.auth import (
    STOP_TAG,
    read_tag,
    same_token,
    stop_token,
    subject_tags,
    token_words,
)
from moderator.desk.work import PASSWORD_LINE, Work
from moderator.store import Member, Store

__all__ = ["Auth", "auth_failed", "authenticate", "games_of", "identify", "proves_stop"]


@dataclass(frozen=True, slots=True)
class Auth:
    """Who a mail is from, as far as the game is concerned."""

    status: Literal["ok", "no_token", "unregistered_sender", "unknown"]
    key: str | None = None  # the member key the token proved
    rows: tuple[Member, ...] = ()  # every membership of the sender's address
    claimed: tuple[Member, ...] = ()  # on failure: the members the mail claimed to be

    @property
    def is_master(self) -> bool:
        return any(m.role == "master" for m in self.rows)


def identify(work: Work) -> tuple[str | None, list[tuple[str | None, str]]]:
    """The game the mail is for, and the (key, token) pairs it carries for it.

    The game is named by a `game ID` line (the player's explicit word wins), by the
    address the mail was sent to (moderator+ID...), or by the subject's [ID]."""
    inc, store = work.incoming, work.store
    tags = [t for r in inc.recipients if (t := read_tag(r, work.settings.address))]
    subject = subject_tags(inc.subject)
    named = [read_game_id(inc.text)] if inc.text else []
    candidates = [*named, *(t.game_id for t in tags), *(g for g, _ in subject)]
    game_id = None
    for candidate in candidates:
        if candidate and (found := store.canonical_game_id(candidate)) is not None:
            game_id = found
            break
    if game_id is None:
        return None, []
    same = game_id.lower()
    tokens: list[tuple[str | None, str]] = [
        (t.key, t.token) for t in tags
        if t.game_id.lower() == same and t.key is not None and t.token is not None]
    tokens += [(None, tok) for g, tok in subject if tok and g.lower() == same]
    tokens += [(None, word) for word in token_words(inc.subject)]
    tokens += [(None, pw) for pw in password_lines(work)]
    return game_id, tokens


def password_lines(work: Work) -> list[str]:
    """The passwords of the mail's `password TOKEN` lines."""
    return [match.group(1) for line in work.body_lines()
            if (match := PASSWORD_LINE.match(line)) is not None]


def authenticate(work: Work, game_id: str, tokens: list[tuple[str | None, str]]) -> Auth:
    """A token for a member of the game, from an address registered to that member."""
    members = work.store.members(game_id)
    keys = {m.key.lower(): m.key for m in members}
    proven: list[str] = []
    for key, token in tokens:
        wanted = [keys[key.lower()]] if key is not None and key.lower() in keys else (
            [] if key is not None else list(keys.values()))
        for candidate in wanted:
            if candidate not in proven and same_token(
                    work.settings.token(game_id, candidate), token):
                proven.append(candidate)
    sender = work.incoming.sender
    mine = tuple(m for m in members if m.address == sender)
    for key in proven:
        if any(m.key == key for m in mine):
            return Auth("ok", key, mine)
    if proven:
        claimed = tuple(m for m in members if m.key in proven)
        return Auth("unregistered_sender", None, mine, claimed)
    if mine:
        return Auth("no_token", None, mine, mine)
    return Auth("unknown")


def auth_failed(work: Work, game_id: str, auth: Auth) -> str:
    """Tell the members the mail claimed to be (only them, at their own addresses)."""
    told = []
    for member in auth.claimed:
        if member.address in told:
            continue
        told.append(member.address)
        claimed = member.seat or ("the game master" if member.role == "master"
                                  else "an observer")
        work.answers.notice(member.address, "auth_failed", game_id=game_id, key=member.key,
                            claimed=claimed, why=auth.status,
                            sender=work.incoming.sender, their_subject=work.incoming.subject)
    return f"refused: authentication failed ({auth.status}); told {', '.join(told)}"


def games_of(store: Store, address: str) -> list[str]:
    """The games ADDRESS is a member of (for a mail that names none)."""
    rows = store.execute("SELECT DISTINCT game_id FROM members WHERE address = ? "
                         "ORDER BY game_id", [address])
    return [str(r[0]) for r in rows]


def proves_stop(work: Work) -> bool:
    """Whether the mail went to the sender's own unsubscribe address (or carries its
    token in the subject): only the sender's mailbox ever received that token."""
    sender = work.incoming.sender
    if sender is None:
        return False
    expected = stop_token(work.settings.secret, sender)
    for recipient in work.incoming.recipients:
        tag = read_tag(recipient, work.settings.address)
        if tag is not None and tag.game_id.lower() == STOP_TAG and tag.token is not None \
                and same_token(expected, tag.token):
            return True
    return any(same_token(expected, word) for word in token_words(work.incoming.subject))
