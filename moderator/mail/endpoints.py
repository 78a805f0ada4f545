"""Where the embedded local mail servers listen, and how to find a running one.

Plain data and socket checks, with no mail server in sight: the service, the
bundled mail client and the tests read these without needing the optional local
servers (`moderator.mail.local`, the ``local`` extra) installed.
"""

from __future__ import annotations

import json
import re
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ENDPOINTS_FILE",
    "LOCAL_HOST",
    "LOCAL_SMTP_PATIENCE",
    "EmbeddedEndpoints",
    "MailEndpoints",
    "free_port",
    "mailbox_address",
    "port_is_free",
    "read_endpoints",
]

LOCAL_HOST = "127.0.0.1"
#: What a running embedded service writes into its work folder.
ENDPOINTS_FILE = "endpoints.json"
#: Seconds a client of the local SMTP server waits for an answer. The server answers
#: DATA once the mail is in the mailbox, and on a loaded machine its delivery tries
#: pymap three times (`moderator.mail.local`: some 46 s at worst for a small mail, a
#: second more per attempt and 100 KB); a client that gave up sooner would send the
#: mail again. Mail programs wait minutes (RFC 5321 4.5.3.2 says ten for DATA); nothing
#: waits long when all is well.
LOCAL_SMTP_PATIENCE = 90.0

_BAD_ADDRESS = re.compile(r"[\s\x00-\x1f\x7f:]")


@dataclass(frozen=True)
class MailEndpoints:
    """Where the local servers listen and how to log in to them."""

    host: str
    imap_port: int
    smtp_port: int
    password: str

    def credentials(self, address: str) -> tuple[str, str]:
        """The IMAP (and SMTP AUTH) login and password of ADDRESS's mailbox."""
        return mailbox_address(address), self.password


def mailbox_address(address: str) -> str:
    """The mailbox ADDRESS is delivered to: lower-cased, `+tag` and `<>` removed."""
    address = address.strip().strip("<>").strip()
    local, at, domain = address.rpartition("@")
    if not at:
        local, domain = address, ""
    local = local.split("+", 1)[0]
    if not local or _BAD_ADDRESS.search(address):
        raise ValueError(f"not a deliverable address: {address!r}")
    mailbox = f"{local}{at}{domain}".lower()
    if not mailbox.isascii():
        # IMAP LOGIN takes ASCII: an internationalised address (jörg@exämple.org) gets
        # the mailbox of its punycode form, one per address.
        local, at, domain = mailbox.rpartition("@")
        parts = [p if p.isascii() else "xn--" + p.encode("punycode").decode("ascii")
                 for p in (local, *domain.split("."))]
        mailbox = f"{parts[0]}{at}{'.'.join(parts[1:])}" if at else parts[0]
    return mailbox


def port_is_free(host: str, port: int) -> bool:
    """True if a server could listen on HOST:PORT now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = LOCAL_HOST) -> int:
    """A port on HOST that nothing listens on (aiosmtpd cannot use port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
    return port


@dataclass(frozen=True)
class EmbeddedEndpoints:
    """What a running embedded service writes to WORKDIR/endpoints.json."""

    mail: MailEndpoints
    moderator: str
    pid: int

    def to_json(self) -> str:
        data = {
            "host": self.mail.host,
            "imap_port": self.mail.imap_port,
            "smtp_port": self.mail.smtp_port,
            "password": self.mail.password,
            "moderator": self.moderator,
            "pid": self.pid,
        }
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> EmbeddedEndpoints:
        data = json.loads(text)
        mail = MailEndpoints(
            str(data["host"]), int(data["imap_port"]), int(data["smtp_port"]),
            str(data["password"]),
        )
        return cls(mail, str(data["moderator"]), int(data["pid"]))


def read_endpoints(workdir: Path) -> EmbeddedEndpoints:
    """The endpoints of the service running on WORKDIR (FileNotFoundError if none)."""
    return EmbeddedEndpoints.from_json((workdir / ENDPOINTS_FILE).read_text())
