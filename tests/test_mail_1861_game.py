"""A whole game of 1861 played by mail, from `create game 1861` to the final scores.

The orders are those of the game recorded on 18xx.games (shared/fixtures/1861/167259,
723 actions): four players, minors bought at auction (9.2), conversions (12.2) and a
merger of two minors into a new public company (12.3, 12.4) in the merger rounds,
nationalisations (11), the RSR, and the game's end at the first 8-train (13). Each
player mails his own orders in our order language, one mail per turn, through the real
daemon, IMAP and SMTP servers (tests/mailgame.py). The game must end with the scores
the site recorded.
"""

from __future__ import annotations

import pytest
from mailgame import FIXTURES, play_by_mail, scripted_moves

from engine.actions import Convert, Merge, Nationalise
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(1800)]

PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org", "Cy": "cy@example.org",
           "Di": "di@example.org"}
RECORD = FIXTURES / "1861" / "167259.json"


async def test_a_whole_1861_game_by_mail_with_a_merger_round_ends_with_the_recorded_scores(
        mail_servers: LocalMail) -> None:
    moves, final = scripted_moves(RECORD, list(PLAYERS))
    kinds = {type(m.action) for m in moves}
    assert {Convert, Merge, Nationalise} <= kinds  # 12.2, 12.3 and 11 are played by mail
    # 14.2: the site plays 1861 with unlimited 2+2 and 5+5E trains (engine.records).
    game = await play_by_mail(mail_servers, "create game 1861 unlimited_trains", PLAYERS,
                              moves, final)
    assert game.state.end_reason.startswith("the first 8-train")
