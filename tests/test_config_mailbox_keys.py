"""The configuration keys of the order of writing and of the moderator's mailbox
(issue 29, items 5 and 7): their defaults, and values out of range reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from moderator.config import Config, ConfigError, load_config

BASE = """
[imap]
host = "imap.example.org"
user = "moderator@example.org"
password = "imap-secret"
{imap}
[smtp]
host = "smtp.example.org"

[moderator]
address = "moderator@example.org"
secret = "0123456789abcdef0123"
database = "moderator.sqlite"
{moderator}
"""


def load(tmp_path: Path, imap: str = "", moderator: str = "") -> Config:
    path = tmp_path / "moderator.toml"
    path.write_text(BASE.format(imap=imap, moderator=moderator))
    return load_config(path, environ={})


def test_the_defaults(tmp_path: Path) -> None:
    config = load(tmp_path)
    assert config.moderator.order_window == 5.0
    assert config.imap.processed_retention_days == 90.0
    assert config.imap.retention_batch == 500
    assert config.imap.quota_warn_percent == 80.0


def test_given_values_and_zero_for_never(tmp_path: Path) -> None:
    config = load(tmp_path, imap="processed_retention_days = 0\nquota_warn_percent = 95\n",
                  moderator="order_window = 0")
    assert config.imap.processed_retention_days == 0.0
    assert config.imap.quota_warn_percent == 95.0
    assert config.moderator.order_window == 0.0


def test_values_out_of_range_are_each_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, imap="processed_retention_days = -1\nretention_batch = 0\n"
             "quota_warn_percent = 120\n", moderator='order_window = "soon"')
    problems = raised.value.problems
    assert "[imap] processed_retention_days = -1.0: must be 0 or more" in problems
    assert "[imap] retention_batch = 0: must be more than 0" in problems
    assert any(p.startswith("[imap] quota_warn_percent = 120.0: must be a percentage")
               for p in problems)
    assert "[moderator] order_window = 'soon' must be a number" in problems
