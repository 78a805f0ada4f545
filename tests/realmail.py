"""The suite's second pair of mail servers: Dovecot 2.3 and Postfix 3.7 on loopback.

Registered from conftest.py (``pytest_plugins``). The embedded pymap/aiosmtpd pair
(tests/mailservers.py) stays the quick loop's; these are the servers operators really
run, with what the embedded pair lacks: TLS (implicit and STARTTLS) with a CA made
here, plus-addressing (``recipient_delimiter = +``), a quota (Dovecot's quota plugin:
a mailbox can be full and Postfix bounces the mail), SMTP AUTH on a submission port
(Dovecot's SASL), and a queue that survives a restart.

`RealMail` writes both configurations under a folder of its own, starts Dovecot and
Postfix as root without systemd on free loopback ports, and stops them. One pair per
test session (per pytest-xdist worker): the tests keep apart by their own addresses
(`unique_address`). Debian's packages are installed by deploy/realmail/install.sh
when missing. Where that cannot be done (not root, no apt-get) the tests marked
``realmail`` fail when the environment variable CI is set, and are deselected with
the reason printed otherwise (a developer's machine).

Delivery: Postfix takes mail on its SMTP port (no login, from 127.0.0.1) and on its
submission port (STARTTLS, then AUTH against Dovecot's passwd-file), and hands every
domain's mail to Dovecot's LMTP; Dovecot stores it in Maildir under the folder. A
login needs the user in the passwd-file (`credentials` adds one); delivery takes any
address (a static userdb), as a test's players get mail before they first log in.

Fixtures:
    real_mail        the session's RealMail (started once per worker)

Helpers:
    unique_address(name, domain)     an address of this test alone
    moderator_config(servers, workdir, address, imap=..., smtp=..., moderator=...)
        the daemon's Config on the pair as an operator writes it: IMAP with STARTTLS,
        SMTP on the submission port with STARTTLS and a login, the CA in ca_file
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mailservers import IMAP_PATIENCE, SMTP_PATIENCE

from moderator.config import Config, ImapConfig, ModeratorConfig, SmtpConfig

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "deploy" / "realmail" / "install.sh"
#: Seconds the install may take (apt-get update and three packages).
INSTALL_PATIENCE = 900.0
HOST = "127.0.0.1"
#: Every user's password unless a test gives one.
PASSWORD = "real-mail-secret"
#: Addresses starting so are refused at RCPT by the submission port (550 5.1.1).
REFUSED_PREFIX = "refused-"
#: The quota of every mailbox (the moderator's and the players' need room for maps).
QUOTA = "64M"


class RealMailUnavailable(RuntimeError):
    """Dovecot and Postfix cannot be installed or started here."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def unique_address(name: str, domain: str = "example.org") -> str:
    """An address no other test of the session uses (the servers are shared)."""
    return f"{name}-{uuid.uuid4().hex[:8]}@{domain}"


@dataclass(frozen=True)
class Ports:
    imap: int  # plain, with STARTTLS offered
    imaps: int  # implicit TLS
    lmtp: int
    auth: int  # Dovecot's SASL for Postfix
    smtp: int  # Postfix, no login and no TLS, from loopback (the tests' senders)
    submission: int  # Postfix, STARTTLS required, then AUTH


class RealMail:
    """Dovecot and Postfix under DIRECTORY (see the module's text)."""

    host = HOST

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.ports = Ports(*(free_port() for _ in range(6)))
        self.ca_file = directory / "ca.crt"
        self.users_file = directory / "users"
        self._users: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stamped = 0.0  # the passwd-file's last mtime we set (`_stamp`)
        self._written = 0.0  # when it was last written (time.monotonic)

    # -- the Servers protocol of tests/mailservers.py -------------------------------------
    @property
    def imap_port(self) -> int:
        return self.ports.imap

    @property
    def smtp_port(self) -> int:
        return self.ports.smtp

    def credentials(self, address: str) -> tuple[str, str]:
        """ADDRESS's login, made in the passwd-file at first use."""
        address = address.lower()
        if address not in self._users:
            self.add_user(address)
        # Dovecot looks at its passwd-file at most once a second (the auth process's
        # clock): a login in the second of a change may not see it yet and is refused.
        wait = self._written + 1.05 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        return address, self._users[address]

    async def ensure_mailbox(self, address: str) -> None:
        self.credentials(address)

    def add_user(self, address: str, password: str = PASSWORD,
                 quota: str | None = None) -> None:
        """A login for ADDRESS (Dovecot re-reads the file when it changes); QUOTA
        ("1K") gives its mailbox a quota of its own."""
        address = address.lower()
        extra = f"userdb_quota_rule=*:storage={quota}" if quota else ""
        with self._lock:
            self._users[address] = password
            with self.users_file.open("a") as out:
                out.write(f"{address}:{{PLAIN}}{password}::::::{extra}\n")
            self._stamp()

    def set_quota(self, address: str, quota: str | None) -> None:
        """Give ADDRESS's mailbox another quota (None: the common one)."""
        address = address.lower()
        extra = f"userdb_quota_rule=*:storage={quota}" if quota else ""
        with self._lock:
            lines = [line for line in self.users_file.read_text().splitlines()
                     if not line.startswith(address + ":")]
            lines.append(f"{address}:{{PLAIN}}{self._users[address]}::::::{extra}")
            # Replaced, not rewritten in place: Dovecot re-reads the file by its mtime.
            fresh = self.users_file.with_suffix(".new")
            fresh.write_text("\n".join(lines) + "\n")
            fresh.replace(self.users_file)
            self._stamp()

    def _stamp(self) -> None:
        """A new mtime for the passwd-file, a whole second after the last: Dovecot
        notices a change by the file's stamp, and two writes within one second (two
        tests' users) could otherwise leave the second one unread (a refused login)."""
        stamp = max(time.time(), self._stamped + 1.0)
        os.utime(self.users_file, (stamp, stamp))
        self._stamped = stamp
        self._written = time.monotonic()

    # -- start and stop --------------------------------------------------------------------
    def start(self) -> None:
        self._write_certificates()
        self._write_dovecot()
        self._write_postfix()
        self.start_dovecot()
        self.start_postfix()

    def stop(self) -> None:
        self.stop_postfix()
        self.stop_dovecot()

    def start_dovecot(self) -> None:
        _run(["dovecot", "-c", str(self.dovecot_conf)])
        _wait_port(self.ports.imap)
        _wait_port(self.ports.lmtp)

    def stop_dovecot(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            _run(["doveadm", "-c", str(self.dovecot_conf), "stop"])
        _wait_closed(self.ports.imap)

    def start_postfix(self) -> None:
        _run(["postfix", "-c", str(self.postfix_dir), "start"])
        _wait_port(self.ports.smtp)
        _wait_port(self.ports.submission)

    def stop_postfix(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            _run(["postfix", "-c", str(self.postfix_dir), "stop"])
        _wait_closed(self.ports.smtp)

    def flush_postfix(self) -> None:
        """Deliver what Postfix's queue holds now (after a restart of Dovecot)."""
        _run(["postqueue", "-c", str(self.postfix_dir), "-f"])

    # -- configuration -----------------------------------------------------------------------
    @property
    def dovecot_conf(self) -> Path:
        return self.directory / "dovecot.conf"

    @property
    def postfix_dir(self) -> Path:
        return self.directory / "postfix"

    def _write_certificates(self) -> None:
        """A CA of the folder's own and a server certificate for 127.0.0.1/localhost."""
        d = self.directory
        _run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
              "-subj", "/CN=realmail test CA", "-keyout", str(d / "ca.key"),
              "-out", str(self.ca_file)])
        (d / "server.ext").write_text(
            "subjectAltName = IP:127.0.0.1, DNS:localhost\n"
            "basicConstraints = CA:FALSE\n"
            "keyUsage = digitalSignature, keyEncipherment\n"
            "extendedKeyUsage = serverAuth\n")
        _run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
              "-keyout", str(d / "server.key"), "-out", str(d / "server.csr")])
        _run(["openssl", "x509", "-req", "-in", str(d / "server.csr"), "-CA",
              str(self.ca_file), "-CAkey", str(d / "ca.key"), "-CAcreateserial", "-days",
              "2", "-extfile", str(d / "server.ext"), "-out", str(d / "server.crt")])
        os.chmod(d / "server.key", 0o640)
        shutil.chown(d / "server.key", group="dovecot")

    def _write_dovecot(self) -> None:
        d, p = self.directory, self.ports
        for name in ("dovecot-base", "dovecot-state", "mail"):
            (d / name).mkdir(exist_ok=True)
        shutil.chown(d / "mail", user="mail", group="mail")
        self.users_file.touch()
        self.add_user("moderator@localhost")
        self.dovecot_conf.write_text(f"""\
# Written by tests/realmail.py: a Dovecot of the test suite's own, on loopback.
instance_name = realmail-{d.name}
base_dir = {d}/dovecot-base
state_dir = {d}/dovecot-state
log_path = {d}/dovecot.log
protocols = imap lmtp
listen = {HOST}
ssl = yes
ssl_cert = <{d}/server.crt
ssl_key = <{d}/server.key
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = no
auth_mechanisms = plain login
# A refused login is answered at once (Dovecot waits 2 s by default): the tests of
# wrong passwords run in seconds.
auth_failure_delay = 0
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
mail_location = maildir:~/Maildir
mail_uid = mail
mail_gid = mail
first_valid_uid = 8
mail_plugins = quota
protocol imap {{
  mail_plugins = $mail_plugins imap_quota
}}
plugin {{
  quota = maildir:User quota
  quota_rule = *:storage={QUOTA}
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.users_file}
}}
# Every address takes mail (players get mail before their first login); the
# passwd-file's users may carry a quota of their own (userdb_quota_rule).
userdb {{
  driver = passwd-file
  args = username_format=%u {self.users_file}
  default_fields = uid=mail gid=mail home={d}/mail/%d/%n
  skip = found
}}
userdb {{
  driver = static
  args = uid=mail gid=mail home={d}/mail/%d/%n allow_all_users=yes
}}
service imap-login {{
  inet_listener imap {{
    address = {HOST}
    port = {p.imap}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {p.imaps}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {HOST}
    port = {p.lmtp}
  }}
}}
service auth {{
  inet_listener {{
    address = {HOST}
    port = {p.auth}
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
""")

    def _write_postfix(self) -> None:
        d, p, pf = self.directory, self.ports, self.postfix_dir
        pf.mkdir(exist_ok=True)
        (d / "postfix-queue").mkdir(exist_ok=True)
        data = d / "postfix-data"
        data.mkdir(exist_ok=True)
        shutil.chown(data, user="postfix")
        # Postfix reads dynamicmaps.cf from its configuration folder.
        for name in ("dynamicmaps.cf", "postfix-files"):
            shutil.copy(f"/etc/postfix/{name}", pf / name)
        for name in ("dynamicmaps.cf.d", "postfix-files.d"):
            if Path(f"/etc/postfix/{name}").is_dir():
                shutil.copytree(f"/etc/postfix/{name}", pf / name, dirs_exist_ok=True)
        # Addresses the submission port refuses at RCPT (a permanent refusal at sending).
        (pf / "refused").write_text(f"/^{REFUSED_PREFIX}/ 550 5.1.1 No such user here\n")
        restrictions = (f"check_recipient_access,regexp:{pf}/refused,"
                        "permit_sasl_authenticated,reject")
        (pf / "main.cf").write_text(f"""\
# Written by tests/realmail.py: a Postfix of the test suite's own, on loopback.
compatibility_level = 3.6
queue_directory = {d}/postfix-queue
data_directory = {data}
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.realmail.test
mydomain = realmail.test
myorigin = $myhostname
mydestination =
inet_interfaces = {HOST}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
maillog_file = {d}/postfix.log
maillog_file_prefixes = {d}
syslog_name = realmail-{d.name}
biff = no
append_dot_mydomain = no
smtputf8_enable = yes
# Every domain is ours, delivered to Dovecot's LMTP; ann+x@ is ann@'s.
virtual_mailbox_domains = static:all
virtual_transport = lmtp:inet:{HOST}:{p.lmtp}
recipient_delimiter = +
smtpd_recipient_restrictions = permit_mynetworks, permit_sasl_authenticated,
    reject_unauth_destination
smtpd_tls_cert_file = {d}/server.crt
smtpd_tls_key_file = {d}/server.key
smtpd_tls_security_level = may
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:{HOST}:{p.auth}
# Tests go quickly: a deferred mail is tried again within seconds.
queue_run_delay = 2s
minimal_backoff_time = 2s
maximal_backoff_time = 10s
delay_warning_time = 0
""")
        (pf / "master.cf").write_text(f"""\
# service type  private unpriv  chroot  wakeup  maxproc command
{HOST}:{p.smtp} inet n - n - - smtpd
  -o smtpd_tls_security_level=none
{HOST}:{p.submission} inet n - n - - smtpd
  -o syslog_name=realmail/submission
  -o smtpd_tls_security_level=encrypt
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=permit_sasl_authenticated,reject
  -o smtpd_recipient_restrictions={restrictions}
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
""")


def _run(command: list[str]) -> None:
    # Output to a file, not a pipe: a daemon keeps the pipe open after it forks, and
    # reading it to its end would wait for the daemon's end.
    with tempfile.TemporaryFile() as out:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                              timeout=60, check=False)
        if done.returncode != 0:
            out.seek(0)
            raise subprocess.CalledProcessError(done.returncode, command,
                                                out.read().decode(errors="replace"))


def _wait_port(port: int, timeout: float = 60.0) -> None:  # a start on a loaded machine
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 1):
            return
        if time.monotonic() > deadline:
            raise RealMailUnavailable(f"nothing listens on {HOST}:{port} after {timeout}s")
        time.sleep(0.05)


def _wait_closed(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), 0.5).close()
        except OSError:
            return
        time.sleep(0.05)


def moderator_config(servers: RealMail, workdir: Path, address: str, *,
                     imap: dict[str, object] | None = None,
                     smtp: dict[str, object] | None = None,
                     moderator: dict[str, object] | None = None) -> Config:
    """The daemon's configuration on SERVERS as ADDRESS (a mailbox of the test's own),
    with the timeouts and quick retries of the embedded pair's tests (tests/mailservers.py,
    QUICK); the dicts replace fields."""
    user, password = servers.credentials(address)
    workdir.mkdir(parents=True, exist_ok=True)
    return Config(
        imap=ImapConfig(**{  # type: ignore[arg-type]
            "host": HOST, "port": servers.ports.imap, "tls": "starttls", "user": user,
            "password": password, "ca_file": servers.ca_file, "timeout": IMAP_PATIENCE,
            "reconnect_min": 0.1, "reconnect_max": 0.5, "idle": True,
            "idle_timeout": 30.0, **(imap or {})}),
        smtp=SmtpConfig(**{  # type: ignore[arg-type]
            "host": HOST, "port": servers.ports.submission, "tls": "starttls",
            "user": user, "password": password, "ca_file": servers.ca_file,
            "timeout": SMTP_PATIENCE, "retry_min": 0.1, "retry_max": 0.5, **(smtp or {})}),
        moderator=ModeratorConfig(**{  # type: ignore[arg-type]
            "address": address, "secret": "a realmail test secret, long enough",
            "database": workdir / "moderator.sqlite", **(moderator or {})}),
    )


# -- availability and the fixture -------------------------------------------------------------


def _installed() -> bool:
    return bool(shutil.which("dovecot") and shutil.which("postfix")
                and Path("/usr/lib/dovecot/lmtp").exists())


def cannot_run() -> str | None:
    """Why the pair cannot run here, as far as is known without installing anything."""
    if os.geteuid() != 0:
        return ("the real mail servers run as root (Dovecot and Postfix drop their "
                "privileges themselves); this is not root")
    if not _installed() and not shutil.which("apt-get"):
        return "Dovecot and Postfix are not installed and there is no apt-get"
    return None


def ensure_installed() -> str | None:
    """None when Dovecot and Postfix are here (installing them if need be), else why not."""
    if (why := cannot_run()) is not None:
        return why
    if _installed():
        return None
    # pytest-xdist's workers would run apt-get side by side: one at a time.
    with open(Path(tempfile.gettempdir()) / "realmail-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            # Minutes on a fresh machine; a hung apt-get fails here, not at CI's end.
            done = subprocess.run(["sh", str(INSTALL)], capture_output=True, text=True,
                                  timeout=INSTALL_PATIENCE)
        except subprocess.TimeoutExpired:
            return f"{INSTALL} did not finish within {INSTALL_PATIENCE:.0f}s"
    if done.returncode != 0:
        return done.stderr.strip() or f"{INSTALL} failed ({done.returncode})"
    return None


_unavailable: list[str] = []
_install_failed: list[str] = []  # in CI: why the install at collection failed


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "realmail: runs against the real Dovecot and "
                            "Postfix pair (tests/realmail.py)")
    # Known here, in pytest-xdist's controller too, so that its summary says why.
    if not os.environ.get("CI") and (why := cannot_run()) is not None:
        _unavailable.append(why)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    marked = [item for item in items if item.get_closest_marker("realmail")]
    if not marked:
        return
    if os.environ.get("CI"):
        # Installed now, outside any test's time limit (apt-get on a fresh machine takes
        # minutes); a missing server fails the tests (the fixture raises), not skips them.
        if (why := ensure_installed()) is not None:
            _install_failed.append(why)
        return
    why = _unavailable[0] if _unavailable else ensure_installed()
    if why is None:
        return
    if not _unavailable:
        _unavailable.append(why)
    config.hook.pytest_deselected(items=marked)
    items[:] = [item for item in items if not item.get_closest_marker("realmail")]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _unavailable:
        terminalreporter.write_line(
            f"realmail: the tests on Dovecot and Postfix are deselected: {_unavailable[0]}. "
            "In CI (CI set) they fail instead.", yellow=True)


@pytest.fixture(scope="session")
def real_mail() -> Iterator[RealMail]:
    why = _install_failed[0] if _install_failed else ensure_installed()
    if why is not None:
        pytest.fail(f"realmail: Dovecot and Postfix are not available: {why}")
    # Not under pytest's tmp folder: that is private to root, and Dovecot's mail
    # processes (user `mail`) must reach their maildirs.
    directory = Path(tempfile.mkdtemp(prefix="realmail-"))
    directory.chmod(0o755)
    servers = RealMail(directory)
    try:
        servers.start()
    except BaseException:
        servers.stop()
        raise
    try:
        yield servers
    finally:
        servers.stop()
        shutil.rmtree(directory, ignore_errors=True)


def config_file(servers: RealMail, path: Path, address: str, *,
                imap: dict[str, object] | None = None,
                smtp: dict[str, object] | None = None,
                moderator: dict[str, object] | None = None) -> Path:
    """`moderator_config` written as the TOML file an operator keeps (for the real
    console script: `serve --config`, `bench mail --config`); the dicts add keys."""
    user, password = servers.credentials(address)
    sections: dict[str, dict[str, object]] = {
        "imap": {"host": HOST, "port": servers.ports.imap, "tls": "starttls", "user": user,
                 "password": password, "ca_file": str(servers.ca_file),
                 "timeout": IMAP_PATIENCE,
                 "reconnect_min": 0.1, "reconnect_max": 0.5, **(imap or {})},
        "smtp": {"host": HOST, "port": servers.ports.submission, "tls": "starttls",
                 "user": user, "password": password, "ca_file": str(servers.ca_file),
                 "timeout": SMTP_PATIENCE, "retry_min": 0.1, "retry_max": 0.5,
                 **(smtp or {})},
        "moderator": {"address": address, "secret": "a realmail test secret, long enough",
                      "database": str(path.parent / "moderator.sqlite"), **(moderator or {})},
    }
    lines = []
    for name, values in sections.items():
        lines.append(f"[{name}]")
        for key, value in values.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, int | float):
                text = repr(value)
            else:
                text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
            lines.append(f"{key} = {text}")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    return path
