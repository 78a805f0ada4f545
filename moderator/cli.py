"""The `moderator` command: one entry point, a subcommand per job."""

from __future__ import annotations

import click

from moderator import cli_bench, cli_map, cli_play, cli_service


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem-18xx-moderator")
def main() -> None:
    """A play-by-email moderator for 18xx railway games.

    Players mail their orders; the moderator checks them against the rules,
    applies them and mails every player the new position.
    """


# Each command lives with its concern; this list is the whole command set.
for command in (
    cli_service.serve,
    cli_service.mail_command,
    cli_play.new_command,
    cli_play.order_command,
    cli_play.status_command,
    cli_play.games_command,
    cli_play.import_command,
    cli_play.parse_cli,
    cli_map.map_command,
    cli_bench.bench,
):
    main.add_command(command)
