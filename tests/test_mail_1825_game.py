"""A whole game of 1825 played by mail, from `create game 1825` to the final scores, with
a company in receivership.

The orders are those of the game recorded on 18xx.games
(shared/fixtures/1825/1825_game_end_bank.json, Unit 1 with the Regional Kit R1, 545
actions): two players, the kit's minors (the Cambrian and the Taff Vale), the GER in
receivership (4.4, 6.4) with its receiver leasing the bank's train (6.4.3) and buying
the next new train (6.4.4), and the bank breaking (2). The site recorded the final
scores, so they are an independent engine's. Each player mails his own orders in our
order language, one mail per turn, through the real daemon, IMAP and SMTP servers
(tests/mailgame.py). The game must end with the scores the site recorded, and the
receiver must have been told of the receivership in a report.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from mailgame import FIXTURES, play_by_mail, scripted_moves
from mailservers import text_of

from engine.actions import LeaseTrain
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(1800)]

PLAYERS = {"Ann": "ann@example.org", "Bob": "bob@example.org"}
RECORD = FIXTURES / "1825" / "1825_game_end_bank.json"


async def test_a_whole_1825_game_by_mail_with_a_receivership_ends_with_the_recorded_scores(
        mail_servers: LocalMail) -> None:
    moves, final = scripted_moves(RECORD, list(PLAYERS))
    leases = [m for m in moves if isinstance(m.action, LeaseTrain)]
    assert len(leases) == 1  # 6.4.3, the GER's lease, is played by mail
    receiver = leases[0].seat
    received: dict[str, list[EmailMessage]] = {}
    # The site's figures (a £5000 bank, the SECR at £71) and its kit R1, as recorded.
    game = await play_by_mail(mail_servers, "create game 1825 r1 site_figures", PLAYERS,
                              moves, final, received)
    assert game.state.end_reason == "bank"  # 2: the bank broke
    # 6.4: the receiver was told whose company he runs, and why.
    told = [text_of(m) for m in received[PLAYERS[receiver]]
            if "GER" in text_of(m) and f"in receivership, receiver {receiver} (6.4)"
            in text_of(m)]
    assert told
    # Reports name a company's money its company credit (5.1.2).
    assert any("company credit" in text_of(m) for m in received[PLAYERS[receiver]])
