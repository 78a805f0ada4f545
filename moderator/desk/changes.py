"""After a game changed: the moderator's automatic moves, the clock of the turn now
running, the game's end, and a report to everyone."""

from __future__ import annotations

import dataclasses
import json

from engine.game import Game
from engine.records import export_record
from moderator.desk.batching import owe
from moderator.desk.tournament.results import table_ended
from moderator.desk.turns import restart_clock, settle
from moderator.desk.work import Work
from moderator.mail.compose import Attachment
from moderator.reports.report import Results, Section

__all__ = ["advance", "after_change", "final_attachments"]


def after_change(work: Work, game_id: str, key: str | None, results: Results,
                 sections: list[Section], *, game: Game | None = None,
                 intro: str | None = None, moved: bool = True, end: bool = False) -> str:
    """The sender's reply with the new report, and a report to every other member
    (after the moderator's automatic moves, which the reports include)."""
    game = game if game is not None else work.store.load(game_id)
    intro = _joined(intro, advance(work, game_id, game, moved=moved, end=end))
    if results.applied:
        # The moderator's automatic moves came after the sender's: the reply names the
        # move the game is at now, as its header and footer do.
        results = dataclasses.replace(results, next_move=game.next_move)
    work.answers.reply(game_id, key, "report", results=results, sections=sections,
                       game=game, intro=intro)
    if work.defer_reports and intro is None and game.turn() is not None:
        owe(work.store, game_id)  # one report each at the batch's end (batching)
        work.answers.webhook_post(game_id, game)
    else:
        work.answers.broadcast(game_id, game, intro, skip=work.incoming.sender)
    return f"{game_id}: applied, next move {game.next_move}"


def advance(work: Work, game_id: str, game: Game, *, moved: bool, end: bool = False,
            cause: str | None = None) -> str | None:
    """After GAME changed: the moderator's automatic moves, the clock of the turn now
    running, and the game's end; what the reports should say about them."""
    store = work.store
    clock = store.clock(game_id)
    if clock is None:  # a game made with the CLI: no clock, no automatic moves
        work.committed[game_id] = game
        return None
    happened = settle(store, game_id, game, cause=cause or work.incoming.key, now=work.now)
    for happening in happened:
        if happening.address and happening.kind in ("held_refused", "held_dropped"):
            work.answers.notice(happening.address, "held", game_id=game_id,
                                key=happening.seat, text=happening.detail)
    restart_clock(store, game_id, game, work.now, moved=moved or bool(happened))
    work.committed[game_id] = game
    lines = [h.text for h in happened]
    if end and not game.state.game_over:
        # Over on the game master's (or a director's) word: its reports say so in
        # subject and body, not "SR 1: Ivy to move" with Ivy's orders (issue 32).
        game.state.game_over = True
        game.state.end_reason = game.state.end_reason or "ended by the game master"
    if (game.state.game_over or end) and clock.ended is None:
        store.update_clock(game_id, ended=work.now, seat=None, deadline=None)
        work.answers.final[game_id] = final_attachments(work, game_id, game)
        scores = sorted(game.scores().items(), key=lambda kv: -kv[1])
        lines.append("The game is over. Final scores:\n" + "\n".join(
            f"  {name:<16} {score:>6}" for name, score in scores)
            + "\nThe complete move history is attached, as text and as an 18xx.games "
            "record (`moderator import` reads it too).")
        if (scored := table_ended(work, game_id, game)) is not None:  # a tournament's
            lines.append(scored)
    return "\n".join(lines) or None


def final_attachments(work: Work, game_id: str, game: Game) -> tuple[Attachment, ...]:
    """The whole history as text, and as a record 18xx.games can show."""
    entries = work.answers.history(game_id, game, 0, limit=max(game.next_move, 1))
    text = "".join(f"{e.line}\n" for e in entries)
    record = export_record(game, game_id=game_id, description=f"{game_id} played by mail")
    return (Attachment(f"{game_id}-history.txt", "text/plain", text.encode()),
            Attachment(f"{game_id}.json", "application/json",
                       json.dumps(record, indent=1).encode()))


def _joined(*parts: str | None) -> str | None:
    return "\n\n".join(p for p in parts if p) or None
