"""A whole game of 1850 played by mail, from `create game 1850` to the final scores.

The orders are those of the game recorded on 18xx.games (shared/fixtures/1850/115810,
804 actions): three players, a private sale, redemptions, price protection, edge
tokens, the Mesabi Range, private lays, the bank breaking. Each player mails his own
orders in our order language, one mail per turn, through the real daemon, IMAP and
SMTP servers (tests/mailgame.py). The game must end with the scores the site recorded.
"""

from __future__ import annotations

import pytest
from mailgame import FIXTURES, play_by_mail, scripted_moves

from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(1800)]

PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org"}
RECORD = FIXTURES / "1850" / "115810.json"


async def test_a_whole_1850_game_by_mail_ends_with_the_recorded_scores(
        mail_servers: LocalMail) -> None:
    moves, final = scripted_moves(RECORD, list(PLAYERS))
    game = await play_by_mail(mail_servers, "create game 1850", PLAYERS, moves, final)
    assert game.state.end_reason == "bank"
