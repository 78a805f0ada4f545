"""Who may act: per-player, per-game tokens, and where they travel in a mail.

A From line is trivially forged, so it never suffices. Every mail the service sends
a member of a game carries a Reply-To with that member's token::

    moderator+18TN-7.Ann.k3x9q2mfh7ad4tpe@example.org
              game   key  token

The token is an HMAC-SHA256 under the server's secret of (game, key), where the key
is the seat's name for a player, ``gm`` for the game master and ``obsN`` for an
observer; it is cut to 16 base32 characters (80 bits) so that it fits comfortably in
an address. Nothing is stored: the service recomputes it. A plain reply therefore
authenticates with no typing. Where the provider has no plus-addressing the token can
ride in the subject (``[18TN-7 k3x9q2mfh7ad4tpe]``) or in a ``password`` line.

A token alone is not enough either: the sender's address must be one registered to
that member (a seat may register several). The check is the service's
(`moderator.desk.processor`); this module only makes and reads tokens.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
from dataclasses import dataclass

__all__ = [
    "MASTER_KEY",
    "STOP_TAG",
    "TOKEN_LENGTH",
    "Tag",
    "make_token",
    "observer_key",
    "read_tag",
    "same_token",
    "seat_name_problem",
    "stop_address",
    "stop_token",
    "subject_tags",
    "tag_address",
    "token_words",
]

TOKEN_LENGTH = 16
MASTER_KEY = "gm"
_OBSERVER_RE = re.compile(r"obs\d+", re.I)
_SEAT_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,23}")
# [18TN-7] or [18TN-7 TOKEN] anywhere in the subject.
_SUBJECT_TAG_RE = re.compile(r"\[\s*([A-Za-z0-9][A-Za-z0-9_.-]*?)(?:\s+([A-Za-z2-7]{16}))?\s*\]")
_TOKEN_WORD_RE = re.compile(r"\b[A-Za-z2-7]{16}\b")


@functools.lru_cache(maxsize=1024)
def make_token(secret: str, game_id: str, key: str) -> str:
    """The token of KEY (a seat, `gm`, `obsN`) in GAME_ID: lower-case base32.

    Game ids and keys are folded to lower case first, because some mail systems
    lower-case the local part of an address. Kept once made (it is a pure function
    of its arguments): a mail's answers ask for a handful -- each reply's footer and
    address, each reader's stop address -- and they were 6% of a burst's CPU."""
    message = f"pbem-18xx-token-v1\x00{game_id.lower()}\x00{key.lower()}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:TOKEN_LENGTH]


def same_token(expected: str, given: str) -> bool:
    """Constant-time comparison, case folded."""
    return hmac.compare_digest(expected.lower().encode(), given.strip().lower().encode())


def observer_key(number: int) -> str:
    return f"obs{number}"


def seat_name_problem(seat: str) -> str | None:
    """Why SEAT cannot be a seat of a mail game (it travels in addresses), or None."""
    if not _SEAT_RE.fullmatch(seat):
        return (f"a seat name must start with a letter and hold only letters, digits, "
                f"`-` and `_` (at most 24): {seat!r} does not")
    if seat.lower() == MASTER_KEY or _OBSERVER_RE.fullmatch(seat):
        return f"{seat!r} is reserved; choose another seat name"
    return None


@dataclass(frozen=True, slots=True)
class Tag:
    """What a +tag of the moderator's address says: the game, and maybe a key and token."""

    game_id: str
    key: str | None = None
    token: str | None = None


def tag_address(moderator: str, game_id: str, key: str | None = None,
                token: str | None = None) -> str:
    """moderator+GAME[.KEY.TOKEN]@domain."""
    local, _, domain = moderator.rpartition("@")
    tag = game_id if key is None or token is None else f"{game_id}.{key}.{token}"
    return f"{local}+{tag}@{domain}"


def read_tag(address: str, moderator: str) -> Tag | None:
    """The tag of ADDRESS when it is the moderator's address plus a tag, else None."""
    local, _, domain = address.strip().strip("<>").rpartition("@")
    base_local, _, base_domain = moderator.rpartition("@")
    if domain.lower() != base_domain.lower():
        return None
    base, plus, tag = local.partition("+")
    if not plus or base.lower() != base_local.lower() or not tag:
        return None
    parts = tag.rsplit(".", 2)
    if len(parts) == 3 and parts[1] and len(parts[2]) == TOKEN_LENGTH:
        return Tag(parts[0], parts[1], parts[2])
    return Tag(tag)


def subject_tags(subject: str) -> list[tuple[str, str | None]]:
    """Every `[GAME]` or `[GAME TOKEN]` of SUBJECT, in order."""
    return [(m.group(1), m.group(2)) for m in _SUBJECT_TAG_RE.finditer(subject)]


def token_words(text: str) -> list[str]:
    """Words of TEXT shaped like a token (a subject may carry one outside a tag)."""
    return _TOKEN_WORD_RE.findall(text)


#: The tag of the address that unsubscribes its writer: moderator+stop.u.TOKEN@domain.
STOP_TAG = "stop"


def stop_token(secret: str, address: str) -> str:
    """The token that proves a `stop` comes from ADDRESS's own mailbox: the service mails
    it only to ADDRESS (in List-Unsubscribe and the foot of every mail)."""
    return make_token(secret, STOP_TAG, address.strip().lower())


def stop_address(moderator: str, secret: str, address: str) -> str:
    """Where ADDRESS writes `stop` to be mailed no more (its own token in the tag)."""
    return tag_address(moderator, STOP_TAG, "u", stop_token(secret, address))

