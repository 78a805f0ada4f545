"""Game options by mail (issue 19, defect 6), through the real servers and daemon:
`create game` with an option the title does not have is refused with the title's
options, nothing is created; a title's option is stored with the game; `help options`
lists each title's options."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from mailservers import Inboxes, daemon_settings, running_daemon, send_mail, text_of

from engine.titles import title_options
from moderator import service
from moderator.config import Config
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.timeout(120)]

MODERATOR = service.MODERATOR_ADDRESS
GM = "gm@example.org"


@pytest_asyncio.fixture
async def moderator(mail_servers: LocalMail) -> AsyncIterator[Config]:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    async with running_daemon(config):
        yield config


async def test_an_unknown_option_is_refused_and_a_known_one_kept(
        mail_servers: LocalMail, moderator: Config) -> None:
    inboxes = Inboxes(mail_servers)
    try:
        await send_mail(mail_servers, GM, MODERATOR, "new game", "create game 18TN foo\n")
        refused = await inboxes.wait(GM, lambda m: "no option" in text_of(m))
        text = " ".join(text_of(refused).split())
        assert "18TN has no option foo; its options are: three_yellow_first_turn" in text
        store = Store(moderator.moderator.database)
        assert store.execute("SELECT COUNT(*) FROM mail_games") == [(0,)]
        await send_mail(mail_servers, GM, MODERATOR, "new game",
                        "create game 1850 finish_on_400\n")
        await inboxes.wait(GM, lambda m: m["Subject"] == "[1850-1] game created")
        assert store.mail_game("1850-1").options == ("finish_on_400",)  # type: ignore[union-attr]
        await send_mail(mail_servers, GM, MODERATOR, "a question", "help options\n")
        listing = text_of(await inboxes.wait(GM, lambda m: "historical_order" in text_of(m)))
        for title in ("18TN", "1850"):
            for name, what in title_options(title).items():
                assert f"{name}: {what}" in " ".join(listing.split()), name
    finally:
        await inboxes.close()
