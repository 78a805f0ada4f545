"""One mail's work: its context, and the games it changed, until the transaction commits.

A `Work` is made for every mail (and for every game the clock looks at); the jobs
(`sender`, `lobby`, `play`, `commands`, `timekeeper`) read its context and add to
its `answers`. Nothing is sent and nothing is remembered until the mail's one
transaction commits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from engine.game import DeclaredRun, Game
from grammar.submission import stop_reason
from moderator.desk.answers import Answers
from moderator.desk.games import GameCache
from moderator.desk.settings import ProcessorSettings
from moderator.mail.parse import Incoming
from moderator.store import Store

__all__ = ["PASSWORD_LINE", "Refused", "Work", "masked", "under"]

PASSWORD_LINE = re.compile(r"^\s*password\s+(\S+)\s*$", re.I)


class Refused(Exception):
    """A command that cannot be done; its message goes under the line."""


class Work:
    """Everything one mail causes, gathered before the transaction commits."""

    def __init__(self, store: Store, settings: ProcessorSettings, games: GameCache,
                 incoming: Incoming, size: int, now: float) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.incoming = incoming
        self.size = size
        self.now = now
        self.game_id: str | None = None
        self.committed: dict[str, Game] = {}  # games changed, once the transaction commits
        # A stranger's mail makes the service write to a third party at most once.
        self.asked_a_third_party = False
        # In a batch of the inbox, a plain move's reports to the other members wait for
        # the batch's end (`moderator.desk.batching`): one report each for the batch.
        self.defer_reports = False
        # Declared runs whose better run is searched once the answer has gone
        # (`moderator.desk.later`), with their games.
        self.declared: list[tuple[str, DeclaredRun]] = []
        self.answers = Answers(store, settings, incoming, now, games.pictures)

    def body_lines(self) -> Iterator[str]:
        """The mail's lines before its signature, quote or sign-off."""
        lines = self.incoming.text.splitlines()
        for index, line in enumerate(lines):
            if stop_reason(lines, index) is not None:
                return
            yield line

    def remember_committed(self) -> None:
        """After the commit: the games this work changed are now the stored ones."""
        for game_id, game in self.committed.items():
            self.games.remember(game_id, game)
        self.answers.committed()  # the webhook posts (moderator.desk.webhooks)


def masked(text: str) -> str:
    """A `password` line as the reply repeats it: without the password."""
    return "password ********" if PASSWORD_LINE.match(text) else text


def under(text: str, message: str) -> str:
    """TEXT with a caret line under it and MESSAGE below."""
    body = text.rstrip()
    lead = len(body) - len(body.lstrip())
    return f"{body}\n{' ' * lead}{'^' * max(1, len(body) - lead)}\n{message}"
