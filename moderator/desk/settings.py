"""What the desk needs to know about the moderator it works for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from moderator.config import ModeratorConfig
from moderator.desk.auth import make_token
from moderator.mail.dkim import DkimSigner

if TYPE_CHECKING:
    from moderator.mail.webhook import Post

__all__ = ["ProcessorSettings", "dkim_signer"]


@dataclass(frozen=True)
class ProcessorSettings:
    """The moderator's address, secret and limits, as processing uses them."""

    address: str
    secret: str = field(repr=False)
    name: str = "18xx moderator"
    plus_addressing: bool = True
    replies_per_hour: int = 20
    game_masters: tuple[str, ...] = ()
    games_per_day: int = 3
    tournament_directors: tuple[str, ...] = ()
    tournaments_per_day: int = 3  # tournaments one director may create a day
    invitations_per_day: int = 30
    invitations_per_game: int = 12
    max_message_bytes: int = 10_000_000
    max_order_lines: int = 100
    # CPU seconds one mail may take in processing before it is quarantined (issue 31).
    mail_budget: float = 20.0
    deadline_hours: float = 72.0
    reminder_hours: float = 4.0
    away_windows: int = 3
    away_days: int = 15
    # Webhooks: whether a game master may name an address on this machine or a private
    # network (the tests' local server), and where the posts go after each commit (the
    # service's `moderator.mail.webhook.WebhookSender.submit`; None: nowhere).
    webhook_allow_private: bool = False
    notify: Callable[[Post], None] | None = field(default=None, compare=False, repr=False)
    # Signs every mail as it is queued (issue 29, 6); None: the relay signs, or nobody.
    dkim: DkimSigner | None = field(default=None, compare=False, repr=False)

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"

    def token(self, game_id: str, key: str) -> str:
        """The password of member KEY of GAME_ID (`moderator.desk.auth.make_token`)."""
        return make_token(self.secret, game_id, key)

    @classmethod
    def from_config(cls, config: ModeratorConfig) -> ProcessorSettings:
        return cls(address=config.address, secret=config.secret, name=config.name,
                   plus_addressing=config.plus_addressing,
                   replies_per_hour=config.replies_per_hour,
                   game_masters=config.game_masters,
                   games_per_day=config.games_per_day,
                   tournament_directors=config.tournament_directors,
                   tournaments_per_day=config.tournaments_per_day,
                   invitations_per_day=config.invitations_per_day,
                   invitations_per_game=config.invitations_per_game,
                   max_message_bytes=config.max_message_bytes,
                   mail_budget=config.mail_budget,
                   deadline_hours=config.deadline_hours,
                   reminder_hours=config.reminder_hours,
                   away_windows=config.away_windows, away_days=config.away_days,
                   webhook_allow_private=config.webhook_allow_private,
                   dkim=dkim_signer(config))


def dkim_signer(config: ModeratorConfig) -> DkimSigner | None:
    """The DKIM signer CONFIG names, its key read and checked (DkimError says what is
    wrong: `moderator serve` stops on it before it starts)."""
    if config.dkim_key_file is None or not config.dkim_selector or not config.dkim_domain:
        return None
    return DkimSigner.load(config.dkim_selector, config.dkim_domain, config.dkim_key_file)
