"""How many mails a game by mail costs: `moderator bench mails`.

Each recorded game (the shared fixtures of 18TN, 1850, 1861 and 1825 by default) is
replayed as its players would write it by mail, one order a mail, and every position
where a player is to act is counted three ways:

* without skipping: every position needs a mail;
* today's service before issue 30: a position needs none where `sole_action` found
  nothing but a pass for the whole turn (the moderator passed);
* with skipping (`engine.defaults.no_decision`): no mail where the step has nothing to
  decide. The game is then played as the service plays it: the moderator passes each
  such step itself, and the record's next order is applied at the step it was written
  for (a recorded `done` at a token step is the moderator's pass of the token, route
  and dividend steps, then the player's `done` at the train step if he could buy one).

Besides, it counts the positions left where the acting player's only legal actions are
`pass` and `done` (the target is none; those left have a choice `engine.legal` does not
list, such as offering a private to another player) and any skip that would have taken
a recorded choice away (must be none). "Turns" count a seat's consecutive orders as one
mail, the fewest a player writing his whole turn at once could send.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from moderator.cli.bench_replay import FIXTURES

if TYPE_CHECKING:
    from engine.actions import Action

RECORDS = ("18TN/7818.json", "1850/115810.json", "1861/167259.json",
           "1825/1825_game_end_bank.json")


@dataclass(slots=True)
class MailCount:
    """One record's positions and mails, counted as the module docstring says."""

    record: str
    title: str
    record_actions: int  # the site's own actions in the record (undo folded away)
    moves: int = 0  # our log of the record
    today: int = 0  # positions the service before issue 30 passed by itself
    mails: int = 0  # positions still needing a mail with skipping
    skipped: int = 0  # steps the moderator passed with skipping
    turns_without: int = 0
    turns_with: int = 0
    nothing_left: int = 0  # mails at a position with only pass/done legal
    taken: list[str] = field(default_factory=list)  # choices a skip took away (bugs)


def _pass_like(action: Action) -> bool:
    from engine.actions import Done, Pass
    return isinstance(action, Pass | Done)


def count_record(path: Path) -> MailCount:
    """The mails one recorded game needs, without and with skipping."""
    from engine.actions import Pass
    from engine.defaults import no_decision, sole_action
    from engine.errors import GameError
    from engine.game import Game
    from engine.legal import legal_actions
    from engine.records import import_record

    data = json.loads(path.read_text())
    replay = import_record(data)
    log = replay.game.log
    out = MailCount(path.name, replay.game.setup.title, len(data.get("actions", [])),
                    moves=len(log))
    # Without skipping, and the service as it was: the record as it stands.
    game = Game(replay.game.setup)
    last: str | None = None
    for move in log:
        if sole_action(game) is not None and _pass_like(move.action):
            out.today += 1
        if move.seat != last:
            out.turns_without += 1
        last = move.seat
        game.apply(move.seat, move.action)
    scores = game.scores()
    # With skipping: the moderator passes each step with nothing to decide.
    game = Game(replay.game.setup)
    last = None
    index = 0
    while index < len(log):
        move = log[index]
        turn = game.turn()
        assert turn is not None, f"{path.name}: the game ended before move {index}"
        entity = turn.entity
        acts = legal_actions(game)
        skip = no_decision(game, acts)
        if skip is None:
            out.mails += 1
            if all(_pass_like(a) for a in acts):
                out.nothing_left += 1
            if move.seat != last:
                out.turns_with += 1
            last = move.seat
            try:
                game.apply(move.seat, move.action)
            except GameError:
                out.taken.append(f"move {index} ({move.action}) is refused after the "
                                 "moderator's passes")
                break
            index += 1
            continue
        out.skipped += 1
        game.apply(skip.seat, skip.action)
        after = game.turn()
        if after is None or after.entity != entity or after.seat != turn.seat:
            # The turn the recorded order was written for is over: it was a pass.
            if not _pass_like(move.action):
                out.taken.append(f"move {index} ({move.action}): {skip.text}")
                break
            index += 1
        elif isinstance(move.action, Pass) and isinstance(skip.action, Pass):
            index += 1  # the recorded pass of this very step, made by the moderator
        # else: the recorded order (a `done`, a run, a purchase) is for a later step
    if not out.taken and game.scores() != scores:
        out.taken.append(f"the game ends otherwise: {game.scores()} against {scores}")
    return out


def _line(count: MailCount) -> str:
    share = count.mails / count.moves if count.moves else 0.0
    return (f"{count.title:<5} {count.record:<28} {count.record_actions:>6} "
            f"{count.moves:>6} {count.moves:>8} {count.moves - count.today:>6} "
            f"{count.mails:>6} ({share:4.0%}) {count.skipped:>7} "
            f"{count.turns_without:>6} {count.turns_with:>6} {count.nothing_left:>5}")


@click.command("mails")
@click.argument("files", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
def mails_command(files: tuple[Path, ...]) -> None:
    """Mails per recorded game, without and with skipping the steps nobody decides
    (default: one record of each title in the shared fixtures)."""
    paths = list(files) or [FIXTURES / name for name in RECORDS]
    click.echo("title record                       actions  moves  without  today"
               "   with (share) skipped turns: without  with  left")
    failed = False
    for path in paths:
        count = count_record(path)
        click.echo(_line(count))
        for taken in count.taken:
            failed = True
            click.echo(f"  a choice taken away: {taken}")
    click.echo("actions: the record's own; without: a mail for every position; today: "
               "passing only a turn with nothing but a pass; with: skipping every step "
               "nobody decides; left: mails at a position offering only pass/done")
    if failed:
        raise SystemExit(1)
