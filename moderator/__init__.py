"""The play-by-email service: inbox, mail parsing, store, reports, outbox and the CLI."""
