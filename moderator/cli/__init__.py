"""The `moderator` command: one entry point, a subcommand per job."""

from __future__ import annotations

import click

from moderator.cli import bench, bench_mail, bench_mails, health, play, quarantine, service
from moderator.cli import map as map_cli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem-18xx-moderator")
def main() -> None:
    """A play-by-email moderator for 18xx railway games.

    Players mail their orders; the moderator checks them against the rules,
    applies them and mails every player the new position.
    """


bench.bench.add_command(bench_mail.mail_command)
bench.bench.add_command(bench_mails.mails_command)

# Each command lives with its concern; this list is the whole command set.
for command in (
    service.serve,
    service.mail_command,
    play.new_command,
    play.order_command,
    play.status_command,
    play.games_command,
    play.import_command,
    play.parse_cli,
    map_cli.map_command,
    bench.bench,
    quarantine.quarantine,
    health.health_command,
):
    main.add_command(command)
