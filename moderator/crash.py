"""Named points where the daemon can be made to kill itself, to test crash recovery.

With the environment variable ``MODERATOR_CRASH_AT`` set to a point's name, the daemon
sends itself SIGKILL when it reaches that point -- no clean-up, no flushing, exactly
like a power cut or the OOM killer. The tests use it to prove that a restart applies
each mail once and sends every report. The points, in the order a mail meets them:

``fetched``    the raw mail was fetched from IMAP, nothing was stored
``stored``     the raw mail is in the database, not processed
``flagged``    the mail's batch is recorded and flagged processed on the server; the
               mail may wait for its order window (the database has it)
``committed``  the processing transaction committed; nothing is sent
``sent``       the SMTP server accepted an outgoing mail; it is not yet marked sent
"""

from __future__ import annotations

import logging
import os
import signal

__all__ = ["CRASH_ENV", "POINTS", "crash_point"]

CRASH_ENV = "MODERATOR_CRASH_AT"
POINTS = ("fetched", "stored", "committed", "flagged", "sent")

log = logging.getLogger(__name__)


def crash_point(name: str) -> None:
    """Die here, at once, if MODERATOR_CRASH_AT names this point."""
    if os.environ.get(CRASH_ENV) == name:
        log.warning("%s=%s: killing the daemon", CRASH_ENV, name)
        for handler in logging.getLogger().handlers:
            handler.flush()
        os.kill(os.getpid(), signal.SIGKILL)
