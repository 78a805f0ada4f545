"""Reading bounces (issue 29, item 3), without servers: the VERP address names the
mail only with the right MAC, and the report's verdict is read from RFC 3464's
fields or, for the common non-standard bounces, from their text -- never from the
returned mail quoted below it. (The whole path through Postfix and Dovecot:
tests/test_realmail_bounce.py.)"""

from __future__ import annotations

import pytest

from moderator.mail.bounce import bounce_address, bounce_id, read_report

SECRET = "a secret of the service, long enough"
MODERATOR = "moderator@games.example"


def test_a_bounce_address_names_its_mail_and_cannot_be_forged() -> None:
    address = bounce_address(MODERATOR, SECRET, 4711)
    assert address.startswith("moderator+bounce-4711-") and address.endswith("@games.example")
    assert bounce_id(address, MODERATOR, SECRET) == 4711
    assert bounce_id(address.upper(), MODERATOR, SECRET) == 4711  # a lower-casing relay
    forged = address.replace("4711", "4712")
    assert bounce_id(forged, MODERATOR, SECRET) is False
    assert bounce_id(address, MODERATOR, "another secret, long enough") is False
    assert bounce_id("moderator+18TN-1.ann.abc@games.example", MODERATOR, SECRET) is None
    assert bounce_id("moderator@games.example", MODERATOR, SECRET) is None
    assert bounce_id(address.replace("games.example", "other.example"), MODERATOR,
                     SECRET) is None


def dsn(action: str, status: str, diagnostic: str) -> bytes:
    return f"""\
From: MAILER-DAEMON@mx.example (Mail Delivery System)
To: moderator+bounce-1-aaaaaaaaaaaa@games.example
Subject: Undelivered Mail Returned to Sender
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

This is the mail system. I'm sorry to have to inform you that your message
could not be delivered.

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example

Final-Recipient: rfc822; Ann@Example.org
Original-Recipient: rfc822;ann@example.org
Action: {action}
Status: {status}
Diagnostic-Code: smtp; {diagnostic}

--B
Content-Type: message/rfc822

From: moderator@games.example
Subject: [18TN-1] SR 1: Bob to move

Status: 4.4.1 quoted by a player, not ours to read
--B--
""".replace("\n", "\r\n").encode()


def test_rfc_3464_reports() -> None:
    full = read_report(dsn("failed", "5.2.2", "552 5.2.2 Mailbox full"))
    assert full.permanent and full.status == "5.2.2" and full.recipient == "ann@example.org"
    assert full.diagnostic == "smtp; 552 5.2.2 Mailbox full"
    delayed = read_report(dsn("delayed", "4.4.1", "connect timed out"))
    assert not delayed.permanent and delayed.status == "4.4.1"
    # A failure with a 4.x.x status (a server that gave up on a temporary error)
    # is no permanent verdict on the address.
    assert not read_report(dsn("failed", "4.4.7", "gave up")).permanent


QMAIL = b"""\
From: MAILER-DAEMON@mx.example
To: moderator+bounce-1-aaaaaaaaaaaa@games.example
Subject: failure notice

Hi. This is the qmail-send program at mx.example.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<ann@example.org>:
192.0.2.1 does not like recipient.
Remote host said: 550 5.1.1 <ann@example.org>... User unknown
Giving up on 192.0.2.1.

--- Below this line is a copy of the message.

Subject: [18TN-1] 4.2.2 temporary
"""

EXIM_DELAY = b"""\
From: Mail Delivery System <Mailer-Daemon@mx.example>
To: moderator+bounce-1-aaaaaaaaaaaa@games.example
Subject: Warning: message 1abc delayed 24 hours

This message was created automatically by mail delivery software.
A message that you sent has not yet been delivered to one or more of its
recipients after more than 24 hours on the queue on mx.example.
No action is required on your part. Delivery attempts will continue.
"""

OLD_GATEWAY = b"""\
From: postmaster@corp.example
To: moderator+bounce-1-aaaaaaaaaaaa@games.example
Subject: Undeliverable: [18TN-1] OR 1.1

Your message did not reach some or all of the intended recipients.
The following recipient(s) cannot be reached:
      ann@corp.example
            The e-mail account does not exist at the organization this message
            was sent to.
"""

NO_REPLY_CODE = b"""\
From: MAILER-DAEMON@mx.example
To: moderator+bounce-1-aaaaaaaaaaaa@games.example
Subject: Returned mail

----- The following addresses had permanent fatal errors -----
<ann@example.org>
    (reason: 550 Requested action not taken: mailbox unavailable)
"""


@pytest.mark.parametrize(("raw", "permanent", "status"), [
    (QMAIL, True, "5.1.1"),
    (EXIM_DELAY, False, None),
    (OLD_GATEWAY, True, None),
    (NO_REPLY_CODE, True, None),
], ids=["qmail", "exim-delay", "gateway-without-codes", "sendmail-reply-code"])
def test_the_common_non_standard_bounces(raw: bytes, permanent: bool,
                                         status: str | None) -> None:
    report = read_report(raw)
    assert (report.permanent, report.status) == (permanent, status)
