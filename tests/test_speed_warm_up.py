"""The daemon builds the order parser and compiles the mail templates when it starts
(`Processor.warm_up`, issue 14), so the first mail after a start does not wait for
them."""

from __future__ import annotations

from pathlib import Path

from grammar import parser
from moderator.config import ModeratorConfig
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.reports import report
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
