"""DKIM signatures on outgoing mail (issue 29, 6): a mail the moderator composed and
signed verifies against the public key a receiver would look up, and a changed header
no longer does. The key is a real RSA key made by openssl; the receiver's DNS answer is
the TXT record an operator would publish (deploy/OPERATIONS.md)."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import dkim
import pytest
from mailservers import (
    daemon_settings,
    mailbox,
    running_daemon,
    send_mail,
    wait_for_mail,
)

from moderator.config import ConfigError, parse_config
from moderator.mail.compose import OutgoingMail, compose
from moderator.mail.dkim import DkimError, DkimSigner
from moderator.mail.local import LocalMail
from moderator.service import MODERATOR_ADDRESS as MODERATOR


@pytest.fixture(scope="module")
def rsa_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A 2048-bit RSA key file and the TXT record that publishes its public half."""
    folder = tmp_path_factory.mktemp("dkim")
    key = folder / "moderator.key"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True,
                   capture_output=True)
    public = subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-outform",
                             "DER"], check=True, capture_output=True).stdout
    return key, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def _report() -> bytes:
    mail = OutgoingMail(kind="report", to="ann@example.org", to_name="Ann",
                        subject="[18TN-1] OR 1.1: L&N to move", text="Your turn.\n",
                        html="<p>Your turn.</p>", game_id="18TN-1",
                        reply_to="moderator+18tn-1.ann.x@example.org")
    return compose(mail, sender="moderator@example.org", sender_name="Moderator",
                   message_id="<r1@example.org>", when=1_800_000_000)


def _dns(record: bytes) -> object:
    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == b"mail2026._domainkey.example.org." else None
    return lookup


def test_a_signed_report_verifies_and_a_changed_subject_does_not(
        rsa_key: tuple[Path, bytes]) -> None:
    key_file, record = rsa_key
    signer = DkimSigner.load("mail2026", "Example.org", key_file)
    signed = signer.sign(_report())
    assert signed.startswith(b"DKIM-Signature: ")
    header = signed.split(b"\r\n\r\n", 1)[0]
    assert b"d=example.org" in header and b"s=mail2026" in header
    assert b"c=relaxed/relaxed" in header and b"list-id" in header.lower()
    assert dkim.verify(signed, dnsfunc=_dns(record))
    forged = signed.replace(b"OR 1.1: L&N to move", b"OR 1.1: TC to move!")
    assert forged != signed
    assert not dkim.verify(forged, dnsfunc=_dns(record))
    # Another domain's key record does not vouch for this mail.
    assert not dkim.verify(signed, dnsfunc=_dns(record.replace(b"p=M", b"p=N")))


def test_a_key_that_cannot_sign_stops_the_start_with_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(DkimError, match="No such file"):
        DkimSigner.load("s", "example.org", tmp_path / "missing.key")
    junk = tmp_path / "junk.key"
    junk.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    with pytest.raises(DkimError, match=r"junk\.key"):
        DkimSigner.load("s", "example.org", junk)
    with pytest.raises(DkimError, match="selector and a domain"):
        DkimSigner.load(" ", "example.org", junk)


async def test_the_service_signs_its_answers_and_a_player_can_verify_them(
        mail_servers: LocalMail, rsa_key: tuple[Path, bytes]) -> None:
    """Through the real servers: with dkim_* configured, the answer in the player's
    mailbox carries a signature of the moderator's domain that verifies."""
    key_file, record = rsa_key
    config = await daemon_settings(mail_servers, moderator={
        "dkim_selector": "mail2026", "dkim_domain": "example.org",
        "dkim_key_file": key_file})
    async with running_daemon(config):
        message_id = await send_mail(mail_servers, "ann@example.org", MODERATOR, "hi",
                                     "help")
        answer = await wait_for_mail(mail_servers, "ann@example.org",
                                     predicate=lambda m: m["In-Reply-To"] == message_id)
    raw = answer.as_bytes()
    assert answer["DKIM-Signature"] is not None
    stored = [m for m in await mailbox(mail_servers, "ann@example.org")
              if m.message["In-Reply-To"] == message_id]
    assert len(stored) == 1
    assert dkim.verify(raw, dnsfunc=_dns(record)), raw[:600]


def test_the_configuration_names_every_dkim_key_or_none(tmp_path: Path) -> None:
    base = {"imap": {"host": "imap.example.org", "user": "m", "password": "p"},
            "smtp": {"host": "smtp.example.org"},
            "moderator": {"address": "moderator@example.org", "database": "db.sqlite",
                          "secret": "x" * 32}}
    plain = parse_config(base, "test", tmp_path, {})
    assert plain.moderator.dkim_key_file is None
    signed = parse_config({**base, "moderator": {**base["moderator"], "dkim_selector": "s1",
                                                 "dkim_key_file": "dkim.key"}},
                          "test", tmp_path, {})
    # The domain defaults to the moderator's address's.
    assert (signed.moderator.dkim_selector, signed.moderator.dkim_domain,
            signed.moderator.dkim_key_file) == ("s1", "example.org", tmp_path / "dkim.key")
    with pytest.raises(ConfigError, match="dkim_key_file needs dkim_selector"):
        parse_config({**base, "moderator": {**base["moderator"],
                                            "dkim_key_file": "dkim.key"}}, "t", tmp_path, {})
    with pytest.raises(ConfigError, match="need dkim_key_file"):
        parse_config({**base, "moderator": {**base["moderator"], "dkim_selector": "s1"}},
                     "t", tmp_path, {})
