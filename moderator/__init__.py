"""The play-by-email service: everything with I/O around the pure engine.

Layers, each importing only those below it:

* `cli` -- the ``moderator`` command.
* `service` -- the daemon: the inbox loop, the outbox sender and the clock, on the
  configured servers or the embedded local ones.
* `desk` -- what a mail (or the clock) does to games, one transaction per mail.
* `reports` -- what players read: texts from templates/, the map and market pictures.
* `mail` -- mail on the wire: parsing, composing, IMAP, SMTP, the local servers.
* `store` (SQLite), `config` (the TOML configuration), `crash` (test crash points).
"""
