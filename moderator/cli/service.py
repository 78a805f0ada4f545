"""`moderator serve` and `moderator mail`: the service and a player's mail client."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TOML configuration file. Without one, the service runs on its embedded "
    "defaults: a local IMAP and SMTP server on loopback and a SQLite file in "
    "./moderator-data/.",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("moderator-data"),
    show_default=True,
    help="Where the embedded defaults keep their mailbox, database and secret.",
)
@click.option("--imap-port", type=int, default=None, envvar="MODERATOR_IMAP_PORT",
              help="IMAP port of the embedded servers (default 1143; 0 = any free port).")
@click.option("--smtp-port", type=int, default=None, envvar="MODERATOR_SMTP_PORT",
              help="SMTP port of the embedded servers (default 1025; 0 = any free port).")
@click.option("--director", "directors", multiple=True, metavar="ADDRESS",
              help="On the embedded servers: an address that may create tournaments "
              "(repeat for more), to rehearse one on this machine. With --config, the "
              "configuration's tournament_directors say it.")
def serve(config_path: Path | None, workdir: Path, imap_port: int | None,
          smtp_port: int | None, directors: tuple[str, ...]) -> None:
    """Run the service: poll the mailbox, apply orders, mail reports."""
    from moderator.service import run

    if directors and config_path is not None:
        raise click.UsageError("--director is for the embedded servers; with --config, "
                               "list directors as tournament_directors in the file")
    for address in directors:
        if "@" not in address.strip("@"):
            raise click.UsageError(f"--director {address!r} is not a mail address")
    run(config_path=config_path, workdir=workdir, imap_port=imap_port, smtp_port=smtp_port,
        directors=directors)


@click.command("mail")
@click.option("--as", "sender", required=True, help="The address the mail comes from.")
@click.option("--subject", default="", help="Subject line of a new mail, e.g. '[18TN-1]'.")
@click.option("--game", default=None,
              help="Reply to the moderator's latest mail about this game (default: its "
              "latest mail to --as about any game).")
@click.option("--new", "new", is_flag=True,
              help="Write a new mail to the moderator instead of replying to its latest.")
@click.option("--wait", type=float, default=30.0, show_default=True,
              help="Seconds to wait for the moderator's answer and print it (0: do not).")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("moderator-data"),
    show_default=True,
    help="The embedded service's folder (where it wrote its endpoints).",
)
@click.argument("lines", nargs=-1, required=True)
def mail_command(sender: str, subject: str, game: str | None, new: bool, wait: float,
                 workdir: Path, lines: tuple[str, ...]) -> None:
    """Mail LINES (one order each) to the embedded service, as a player would.

    Like a mail program's reply, it answers the moderator's latest mail to --as, whose
    reply address carries that player's password; then it prints the answer. With
    --new (or no mail from the moderator yet) it writes a new mail, e.g. to
    `create game 18TN`.
    """
    from moderator.mail.client import send_lines

    send_lines(workdir=workdir, sender=sender, subject=subject, lines=list(lines),
               new=new, game=game, wait=wait)
