"""Mail on the wire: reading it, writing it, moving it.

* `parse` -- an incoming mail's bytes to an `Incoming` (sender, text, threading).
* `compose` -- an `OutgoingMail` to bytes (MIME, threading and automatic-mail headers).
* `inbox` -- the IMAP session: IDLE or polling, fetch, flag.
* `outbox` -- delivering the queued mail by SMTP with retries.
* `endpoints` -- where the embedded local servers listen.
* `local` -- the embedded local mail system (pymap IMAP, aiosmtpd SMTP); optional,
  the ``local`` extra.
* `client` -- ``moderator mail``: a tiny mail client for the embedded service.

Nothing here knows games: this layer imports only `moderator.config`,
`moderator.store` and `moderator.crash`.
"""
