"""The daemon's set-up for speed (issue 14): it builds the order parser and compiles the
mail templates when it starts (`Processor.warm_up`), so the first mail after a start
does not wait for them, and it lets its event loop have the interpreter lock often."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mailservers import daemon_settings, running_daemon, send_mail, wait_for_mail

from engine.game import Setup
from engine.title import load_title
from grammar import parser
from moderator.config import ModeratorConfig
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.mail.local import LocalMail
from moderator.reports import mapimage, report
from moderator.service import SWITCH_INTERVAL
from moderator.store import Store


def test_warm_up_builds_the_parser_and_every_template(tmp_path: Path) -> None:
    config = ModeratorConfig(address="moderator@example.org", secret="s",
                             database=tmp_path / "m.sqlite")
    processor = Processor(Store(config.database), ProcessorSettings.from_config(config))
    parser._parser.cache_clear()
    report._environment.cache_clear()
    processor.warm_up()
    assert parser._parser.cache_info().currsize == 1
    env = report._environment()
    names = env.list_templates(extensions=["j2"])
    assert {"report.html.j2", "report.txt.j2", "notice.txt.j2"} <= set(names)
    assert env.cache is not None
    compiled = {key[1] for key in env.cache}  # (loader's weak ref, name)
    assert set(names) <= compiled


@pytest.mark.asyncio
async def test_the_daemon_shortens_the_interpreter_lock_interval_while_it_runs(
        mail_servers: LocalMail) -> None:
    """While the daemon serves, a CPU-bound processing thread gives the interpreter lock
    to the event loop (IMAP, SMTP) within `SWITCH_INTERVAL`; afterwards the process's
    setting is as it was. A `help` is answered meanwhile."""
    before = sys.getswitchinterval()
    assert before > SWITCH_INTERVAL  # Python's default, 5 ms
    config = await daemon_settings(mail_servers)
    async with running_daemon(config):
        await send_mail(mail_servers, "ann@example.org", config.moderator.address,
                        "help", "help\n")
        await wait_for_mail(mail_servers, "ann@example.org")
        assert sys.getswitchinterval() == SWITCH_INTERVAL
    assert sys.getswitchinterval() == before


def test_warm_up_draws_the_map_of_each_title_in_play_once(tmp_path: Path) -> None:
    """Issue 33: the first map of a title after a start laid out every hex's texts and
    loaded its fonts (40-70 ms of the first mail); the warm-up does it for the titles of
    the games in play, not for those of ended games."""
    store = Store(tmp_path / "m.sqlite")
    playing = store.create_game(Setup("18TN", ("Ann", "Bob", "Cy")))
    store.create_game(Setup("18TN", ("Dee", "Eve", "Fay"), seed=3))  # same title: once
    ended = store.create_game(Setup("1850", ("Gil", "Hal", "Ivy")))
    store.create_clock(ended, 72 * 3600)
    store.update_clock(ended, ended=1.0)
    assert store.clock(playing) is None  # a game of the CLI: in play
    config = ModeratorConfig(address="moderator@example.org", secret="s",
                             database=tmp_path / "m.sqlite")
    processor = Processor(store, ProcessorSettings.from_config(config))
    cached = mapimage.text_layout.__wrapped__  # type: ignore[attr-defined]
    cached.cache_clear()
    processor.warm_up()
    laid_out = cached.cache_info().currsize
    assert laid_out == len(load_title("18TN").hexes)  # every hex of one 18TN board
    mapimage.map_plate(load_title("1850"))
    assert cached.cache_info().currsize > laid_out  # 1850's board was not drawn
    store.close()
