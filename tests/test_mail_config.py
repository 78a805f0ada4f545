"""The TOML configuration of `moderator serve --config`: every problem reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from moderator.cli import main
from moderator.config import (
    IMAP_PASSWORD_ENV,
    SECRET_ENV,
    ConfigError,
    load_config,
)

REPO = Path(__file__).resolve().parents[1]

GOOD = """
[imap]
host = "imap.example.org"
user = "moderator@example.org"
password = "imap-secret"

[smtp]
host = "smtp.example.org"
user = "moderator@example.org"
password_file = "smtp-password"

[moderator]
address = "moderator@example.org"
secret = "0123456789abcdef0123"
database = "data/moderator.sqlite"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "moderator.toml"
    path.write_text(text)
    return path


def test_a_minimal_file_and_its_defaults(tmp_path: Path) -> None:
    (tmp_path / "smtp-password").write_text("smtp-secret\n")
    config = load_config(write(tmp_path, GOOD), environ={})
    assert config.imap.port == 993 and config.imap.tls == "implicit"
    assert config.imap.folder == "INBOX" and config.imap.idle
    assert config.smtp.port == 587 and config.smtp.tls == "starttls"
    assert config.smtp.password == "smtp-secret"  # from the file, first line
    assert config.moderator.database == tmp_path / "data" / "moderator.sqlite"
    assert config.warnings() == []
    assert "imap-secret" not in repr(config)  # secrets stay out of logs


def test_passwords_and_secret_from_the_environment(tmp_path: Path) -> None:
    text = GOOD.replace('password = "imap-secret"\n', "").replace(
        'secret = "0123456789abcdef0123"\n', "").replace('password_file = "smtp-password"\n',
                                                         'password = "x"\n')
    config = load_config(write(tmp_path, text),
                         environ={IMAP_PASSWORD_ENV: "from-env", SECRET_ENV: "s" * 20})
    assert config.imap.password == "from-env"
    assert config.moderator.secret == "s" * 20


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = """
[imap]
host = "imap.example.org"
port = "993"
tls = "ssl"
pasword = "typo"

[smtp]
host = "smtp.example.org"
user = "me"

[moderator]
address = "moderator+x@example.org"
secret = "short"

[extra]
"""
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text), environ={})
    problems = "\n".join(caught.value.problems)
    assert "unknown section [extra]" in problems
    assert '[imap] tls = \'ssl\': must be one of "implicit", "starttls", "none"' in problems
    assert "[imap] port = '993' must be a whole number" in problems
    assert "[imap] unknown key pasword (did you mean password?)" in problems
    assert "[imap] user is missing" in problems
    assert "[imap] password is missing (give password, password_file, or set " \
           "$MODERATOR_IMAP_PASSWORD)" in problems
    assert "[smtp] password is missing" in problems  # a user needs a password
    assert "[moderator] address = 'moderator+x@example.org': must be the plain address" \
        in problems
    assert "[moderator] the secret must be at least 16 characters" in problems
    assert "[moderator] database is missing" in problems


def test_broken_toml_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[imap\nhost="), environ={})
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(tmp_path / "nowhere.toml", environ={})
    with pytest.raises(ConfigError, match=r"smtp-password.*cannot be read"):
        load_config(write(tmp_path, GOOD), environ={})


def test_plain_text_to_another_machine_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "smtp-password").write_text("x")
    text = GOOD.replace('[imap]\n', '[imap]\ntls = "none"\n')
    config = load_config(write(tmp_path, text), environ={})
    assert config.imap.port == 143
    assert any("clear text" in w for w in config.warnings())


def test_the_example_configuration_in_deploy_is_valid(tmp_path: Path) -> None:
    config = load_config(REPO / "deploy" / "moderator.example.toml",
                         environ={IMAP_PASSWORD_ENV: "x", "MODERATOR_SMTP_PASSWORD": "y",
                                  SECRET_ENV: "z" * 32})
    assert config.moderator.address.endswith("@example.org")


def test_serve_reports_problems_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, "[imap]\nhost = 1\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(path)])
    assert result.exit_code == 2
    assert "[imap] host = 1 must be a string" in result.output
    assert "[smtp] section is missing" in result.output
