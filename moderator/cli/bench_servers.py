"""The local mail servers of `moderator bench mail`, in a process of their own.

Production SMTP and IMAP servers run elsewhere: the bench measures the daemon, so the
embedded servers (aiosmtpd, and pymap, its child) and the burst's sender run in this
child process, not on the daemon's interpreter lock. The parent talks to it by lines
of JSON: the child first prints its endpoints, then answers each command read from
stdin --

* ``{"send": FILE}``: send the mails in FILE (a JSON list of ``[message_id, sender,
  recipient, raw]``, raw as latin-1 text) through SMTP one after another; answers
  ``{"sent": {message_id: when}, "sending": seconds}`` (``when``: the time SMTP
  accepted it, by this machine's clock);
* ``{"stats": true}``: answers ``{"appended": n, "cpu": seconds}`` (mails put into
  the IMAP server by APPEND; this process's CPU, pymap's not included).

End of stdin stops the servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

__all__ = ["main"]


async def _serve(directory: Path, moderator: str, deliver_answers: bool) -> None:
    import aiosmtplib

    from moderator.mail.endpoints import mailbox_address
    from moderator.mail.local import LocalMail

    box = mailbox_address(moderator)
    keeps = None if deliver_answers else (lambda rcpt: mailbox_address(rcpt) == box)
    async with LocalMail(directory, keeps=keeps) as servers:
        await servers.ensure_mailbox(moderator)
        _say({"host": servers.host, "imap_port": servers.imap_port,
              "smtp_port": servers.smtp_port, "password": servers.password})
        while line := await asyncio.to_thread(sys.stdin.readline):
            command = json.loads(line)
            if "send" in command:
                mails = json.loads(Path(command["send"]).read_text())
                smtp = aiosmtplib.SMTP(hostname=servers.host, port=servers.smtp_port,
                                       timeout=30)
                await smtp.connect()
                sent: dict[str, float] = {}
                start = time.time()
                for message_id, sender, recipient, raw in mails:
                    await _send(smtp, sender, recipient, raw.encode("latin-1"))
                    sent[message_id] = time.time()
                sending = time.time() - start
                with contextlib.suppress(Exception):  # the burst is sent: a slow
                    await smtp.quit()  # goodbye changes nothing
                _say({"sent": sent, "sending": sending})
            elif "stats" in command:
                _say({"appended": servers.appended, "cpu": time.process_time()})


#: Tries of one mail answered "try again later" (4xx): the local server gives pymap
#: three tries before it says so, which a machine loaded by others can exhaust.
SEND_TRIES = 5


async def _send(smtp: object, sender: str, recipient: str, raw: bytes) -> None:
    """RAW sent, tried again after a transient refusal as a mail program does (RFC
    5321 4.2.5; the moderator knows a mail stored twice by its Message-ID)."""
    import aiosmtplib

    assert isinstance(smtp, aiosmtplib.SMTP)
    for attempt in range(1, SEND_TRIES + 1):
        try:
            await smtp.sendmail(sender, [recipient], raw)
            return
        except aiosmtplib.SMTPResponseException as exc:
            if not 400 <= exc.code < 500 or attempt == SEND_TRIES:
                raise
            await asyncio.sleep(attempt)


def _say(answer: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """``python -m moderator.cli.bench_servers DIRECTORY MODERATOR [--deliver-answers]``"""
    args = sys.argv[1:] if argv is None else argv
    asyncio.run(_serve(Path(args[0]), args[1], "--deliver-answers" in args[2:]))


if __name__ == "__main__":
    main()
