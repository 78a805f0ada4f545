"""The ways to reach the mail servers: TLS (implicit IMAP, STARTTLS or implicit SMTP,
with SMTP AUTH), and a processed-mail folder instead of flags.

The TLS tests make a throw-away certificate authority with `openssl` (skipped where it
is missing). pymap speaks no implicit TLS, so a small TLS terminator stands in front of
it, as stunnel or a load balancer would in front of a real server."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mailservers import (
    MAIL_PATIENCE,
    daemon_settings,
    mailbox,
    running_daemon,
    send_mail,
    text_of,
    wait_for_mail,
)

from moderator import service
from moderator.mail.local import LocalMail

pytestmark = [pytest.mark.mail, pytest.mark.timeout(60)]

MODERATOR = service.MODERATOR_ADDRESS


async def test_processed_mail_is_moved_to_the_processed_folder(
    mail_servers: LocalMail
) -> None:
    config = await daemon_settings(mail_servers, imap={"processed_folder": "Done Mail"})
    async with running_daemon(config):
        message_id = await send_mail(mail_servers, "ann@example.org", MODERATOR, "hi", "help")
        await wait_for_mail(mail_servers, "ann@example.org",
                            predicate=lambda m: m["In-Reply-To"] == message_id)
        deadline = time.monotonic() + MAIL_PATIENCE
        while not (done := await mailbox(mail_servers, MODERATOR, folder='"Done Mail"')):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        assert [m.message["Message-ID"] for m in done] == [message_id]
        assert await mailbox(mail_servers, MODERATOR) == []  # the inbox is empty


# -- TLS ---------------------------------------------------------------------------------------


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost / 127.0.0.1 and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60)
    return cert, key


def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certificate[0]), str(certificate[1]))
    return context


@contextlib.asynccontextmanager
async def tls_terminator(port: int, context: ssl.SSLContext) -> AsyncIterator[int]:
    """Implicit TLS on a new port, forwarding in clear text to PORT on loopback."""
    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            inner_reader, inner_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, inner_writer), pipe(inner_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


@pytest.mark.parametrize("smtp_tls", ["starttls", "implicit"])
async def test_implicit_tls_imap_and_tls_smtp_with_auth(
    tmp_path: Path, certificate: tuple[Path, Path], smtp_tls: str
) -> None:
    context = server_context(certificate)
    starttls = context if smtp_tls == "starttls" else None
    async with LocalMail(tmp_path / "mail", require_auth=True, starttls=starttls) as servers, \
            tls_terminator(servers.imap_port, context) as imap_port, \
            tls_terminator(servers.smtp_port, context) as smtp_tls_port:
        user, password = servers.credentials(MODERATOR)
        config = await daemon_settings(
            servers,
            imap={"tls": "implicit", "port": imap_port, "ca_file": certificate[0]},
            smtp={"tls": smtp_tls, "user": user, "password": password, "ca_file": certificate[0],
                  "port": servers.smtp_port if smtp_tls == "starttls" else smtp_tls_port})
        async with running_daemon(config):
            raw = (b"From: ann@example.org\r\nTo: moderator@localhost\r\nSubject: hi\r\n"
                   b"Message-ID: <tls@example.org>\r\n\r\nhelp\r\n")
            await servers.deliver("ann@example.org", MODERATOR, raw)
            answer = await wait_for_mail(servers, "ann@example.org",
                                         predicate=lambda m: m["Subject"] == "Re: hi")
            assert "Topics" in text_of(answer)
