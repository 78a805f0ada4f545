"""The commands of a game in play that are not game moves: players' (`undo`, `resign`,
`away`, `auto pass`, `set format|reports|timezone`, `status`, `legal`, `history`) and
the game master's (`force`, `undo to move N`, `replace`, `set deadline|timeout`,
`pause`, `resume`, `end game`, `invite`).

`GameCommands.on_command` answers each command line while `run_submission` goes through a
mail. Commands that move the game (`undo`, `force`) return `CommandMoves`, applied
like order lines; every other effect is kept in `GameCommands.effects` and carried out only
if the whole mail is accepted (a mail applies whole or not at all), inside the
transaction of the mail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from engine.actions import Undo
from engine.game import Game
from engine.legal import orders_listed
from engine.rounds.stock import StockRound
from grammar import commands as cmd
from moderator.desk.auth import seat_name_problem
from moderator.desk.deadlines import check_timezone, format_duration, parse_away, policy_text
from moderator.desk.helptext import help_answer
from moderator.desk.lobby import check_invitation_limits, check_invite, invite, stop_mail
from moderator.desk.orders import CommandMoves, CommandRefused
from moderator.desk.sender import Auth
from moderator.desk.turns import MODERATOR, deadline_for
from moderator.desk.webhooks import WebhookRefused, configure
from moderator.desk.work import Refused, Work
from moderator.mail.addresses import lookalike_problem
from moderator.reports.lays import hex_pictures, lay_costs, lays_text, legal_lays
from moderator.reports.report import Section
from moderator.reports.stations import hex_places, legal_places, places_text
from moderator.store import Store

__all__ = ["GameCommands"]


@dataclass
class GameCommands:
    """What one mail's commands do in a started game."""

    work: Work
    game_id: str
    game: Game  # the working copy the mail's orders are applied to
    auth: Auth
    seat: str | None  # the sender's seat, if they play
    sections: list[Section] = field(default_factory=list)
    effects: list[Callable[[], None]] = field(default_factory=list)
    announcements: list[str] = field(default_factory=list)  # for everyone's report
    wants_report: bool = False
    undone: tuple[int, int] | None = None  # moves taken back: first, stop
    ended: bool = False  # `end game`
    invited: bool = False  # this mail invited an address already

    @property
    def is_master(self) -> bool:
        return self.auth.is_master

    @property
    def store(self) -> Store:
        return self.work.store

    def commit(self) -> None:
        """Carry out the kept effects: the mail was accepted."""
        for effect in self.effects:
            effect()

    # -- the dispatcher --------------------------------------------------------------------
    def on_command(self, command: cmd.Command) -> str | CommandMoves | None:
        handler = getattr(self, f"_{command.kind}", None)
        if handler is None:
            return f"`{command.kind.replace('_', ' ')}` is not available in a game in play"
        if getattr(command, "game_master", False) and command.kind != "invite" \
                and not self.is_master:
            return self._refuse(f"only the game master may `{command.kind.replace('_', ' ')}`")
        result: str | CommandMoves | None = handler(command)
        return result

    def _one_invitation(self) -> None:
        """One `invite` or `replace` per mail in a game under way: each is checked
        against the caps before any is carried out."""
        if self.invited:
            self._refuse("one invitation per mail in a game under way: send the next in "
                         "another mail")
        self.invited = True

    def _refuse(self, why: str) -> NoReturn:
        """A command that cannot be done refuses the whole mail, like an illegal order."""
        raise CommandRefused(why)

    # -- reading ---------------------------------------------------------------------------
    def _status(self, _: cmd.Status) -> str:
        self._whole_map()
        return "the full report follows"

    def _map(self, _: cmd.ShowMap) -> str:
        self._whole_map()
        return "the map is in the report that follows"

    def _whole_map(self) -> None:
        self.wants_report = True
        if self.work.incoming.sender is not None:
            self.work.answers.whole_map.add(self.work.incoming.sender)

    def _password(self, _: cmd.Password) -> str:
        return "password accepted"

    def _help(self, command: cmd.Help) -> str:
        self.sections.append(Section(f"help {command.topic or ''}".strip(),
                                     help_answer(command.topic)))
        return "see below"

    def _legal(self, _: cmd.Legal) -> str:
        turn = self.game.turn()
        who = f"{turn.seat} for {turn.entity}" if turn and turn.entity != turn.seat \
            else (turn.seat if turn else "nobody")
        self.sections.append(Section(f"What {who} may do now",
                                     "\n".join(orders_listed(self.game)) or "nothing"))
        if turn is not None and turn.step == "track":
            lays = legal_lays(self.game)
            self.sections.append(Section(
                f"The tiles {turn.entity} may lay now, with their price (mail `show HEX` "
                "to see them)",
                lays_text(self.game.state.title, lays, lay_costs(self.game, lays))
                if lays else "none"))
        places = legal_places(self.game) if turn is not None else ()
        if turn is not None and places:
            self.sections.append(Section(
                f"The {self.game.rules.word('station')}s {turn.entity} may place now, with their "
                "price",
                places_text(self.game.state.title, places)))
        return "see below"

    def _show_hex(self, command: cmd.ShowHex) -> str:
        """The legal lays on one hex, drawn: the hex and its neighbours with each tile
        in each legal rotation, captioned with the order that lays it; and the stations
        the company may place there, with their price."""
        turn = self.game.turn()
        hex_id = command.hex
        places = hex_places(legal_places(self.game), hex_id) if turn is not None else ()
        tiles = (legal_lays(self.game).get(hex_id, {})
                 if turn is not None and turn.step == "track" else {})
        if turn is None or (not tiles and turn.step != "track" and not places):
            step = f"{turn.entity} is at the {turn.step} step" if turn else "the game is over"
            self.sections.append(Section(f"Tiles at {hex_id}",
                                         f"no tile may be laid now: {step}"))
        elif tiles:
            self.sections.append(Section(
                f"The tiles {turn.entity} may lay at {hex_id}",
                lays_text(self.game.state.title, {hex_id: tiles},
                          lay_costs(self.game, {hex_id: tiles})),
                hex_pictures(self.game, hex_id, tiles)))
        elif not places:
            self.sections.append(Section(
                f"Tiles at {hex_id}", f"{turn.entity} may lay no tile at {hex_id} now; "
                "mail `legal` for the hexes it may lay on"))
        if turn is not None and places:
            self.sections.append(Section(
                f"The {self.game.rules.word('station')}s {turn.entity} may place at {hex_id}, "
                "with their price",
                places_text(self.game.state.title, places)))
        return "see below"

    def _history(self, command: cmd.History) -> str:
        count = command.count or 20
        game = self.game
        entries = self.work.answers.history(self.game_id, game, max(0, game.next_move - count),
                                    limit=max(count, 1))
        self.sections.append(Section(f"The last {len(entries)} moves",
                                     "\n".join(e.line for e in entries) or "no moves yet"))
        return "see below"

    def _stop(self, _: cmd.Stop) -> str:
        sender = self.work.incoming.sender
        assert sender is not None

        def stop() -> None:
            stop_mail(self.work, sender, proven=True)

        self.effects.append(stop)
        return "no more mail to this address after this one"

    def _join(self, _: cmd.Join) -> str:
        return "you have joined already; the game is under way"

    def _start(self, _: cmd.Start) -> str:
        return f"the game {self.game_id} has started already"

    def _invite(self, command: cmd.Invite) -> str:
        if not self.is_master:
            self._refuse("only the game master may invite")
        self._one_invitation()
        try:
            address, seat = check_invite(self.work, self.game_id, command, started=True)
        except Refused as exc:
            self._refuse(str(exc))
        def send() -> None:
            invite(self.work, self.game_id, command, started=True)

        self.effects.append(send)
        return f"invitation sent to {address} for the seat {seat}"

    # -- a player's own affairs ------------------------------------------------------------
    def _own_seat(self, what: str) -> str:
        if self.seat is None:
            self._refuse(f"`{what}` is for players; you have no seat in {self.game_id}")
        return self.seat

    def _undo_last(self, _: cmd.UndoLast) -> CommandMoves:
        """Take back the sender's last submission, if nobody has acted since (the
        moderator's own automatic passes do not count: they are made again)."""
        seat = self._own_seat("undo")
        runs = self.store.submissions(self.game_id)
        sender = self.work.incoming.sender
        while runs and runs[-1].actor == MODERATOR and runs[-1].cause != "timer":
            runs.pop()
        if not runs:
            self._refuse("there is nothing of yours to take back")
        last = runs[-1]
        mine = {m.address for m in self.store.members(self.game_id)
                if m.role == "player" and m.seat == seat}
        if last.actor not in mine and last.actor != sender:
            who = "the moderator (a deadline passed)" if last.actor == MODERATOR else (
                ", ".join(last.seats) if last.seats else "someone else")
            self._refuse(f"someone has acted since your last submission ({who} made move "
                         f"{last.first}): ask the game master for `undo to move N`")
        if any(isinstance(m.action, Undo) for m in self.game.log[last.first:last.stop]):
            self._refuse("your last submission was an undo itself; it cannot be undone")
        self.undone = (last.first, self.game.next_move)
        return CommandMoves(seat, (Undo(to_move=last.first),),
                            f"your moves {last.first}-{last.stop - 1} are taken back")

    def _resign(self, _: cmd.Resign) -> str:
        seat = self._own_seat("resign")
        now = self.work.now
        self.effects.append(lambda: self.store.update_seat(self.game_id, seat, resigned=now))
        self.announcements.append(f"{seat} has resigned: from now on the moderator plays "
                                  "the seat's conservative default (the game master may "
                                  f"`replace {seat} with ADDRESS`).")
        return "you have resigned; thank you for playing"

    def _auto_pass(self, command: cmd.AutoPass) -> str:
        seat = self._own_seat("auto pass")
        game = self.game
        if not command.enabled:
            self.effects.append(lambda: self.store.update_seat(
                self.game_id, seat, auto_pass_round=None, auto_pass_move=None))
            return "auto pass is off"
        if not isinstance(game.round, StockRound):
            self._refuse("`auto pass` holds for a stock round; the game is in "
                         f"{game.round_name}")
        round_name, move = game.round_name, game.next_move
        self.effects.append(lambda: self.store.update_seat(
            self.game_id, seat, auto_pass_round=round_name, auto_pass_move=move))
        return (f"you pass for the rest of {round_name}, unless someone sells a company you "
                f"hold or a {self.game.rules.word('head')} of one changes (you will be "
                "told)")

    def _set_format(self, command: cmd.SetFormat) -> str:
        return self._preference("format", command.format)

    def _set_reports(self, command: cmd.SetReports) -> str:
        return self._preference("reports", command.mode)

    def _set_timezone(self, command: cmd.SetTimezone) -> str:
        try:
            zone = check_timezone(command.zone)
        except ValueError as exc:
            self._refuse(str(exc))
        return self._preference("timezone", zone)

    def _preference(self, name: str, value: str) -> str:
        sender = self.work.incoming.sender
        assert sender is not None
        self.effects.append(lambda: self.store.set_preference(sender, name, value))
        meaning = {"digest": "one report per round, and every report when it is your turn",
                   "none": "reports only when it is your turn",
                   "all": "a report after every move", "text": "plain-text mail",
                   "html": "mail with HTML and the map inline"}.get(value, value)
        return f"{name} set to {value} for all your games ({meaning})"

    def _away(self, command: cmd.Away) -> str:
        seat = self._own_seat("away")
        work = self.work
        settings = work.settings
        sender = work.incoming.sender
        assert sender is not None
        zone = self.store.preferences(sender).timezone
        try:
            window = parse_away(command.start.isoformat(), command.end.isoformat(), zone,
                                work.now, max_days=settings.away_days)
        except ValueError as exc:
            self._refuse(str(exc))
        windows = self.store.away_windows(self.game_id, seat)
        if len(windows) >= settings.away_windows:
            self._refuse(f"you have {len(windows)} absence windows in {self.game_id} "
                         f"already; the limit is {settings.away_windows}")

        def add() -> None:
            self.store.add_away(self.game_id, seat, window.start, window.end, work.now)
            self.recompute_deadline(seat)

        self.effects.append(add)
        span = f"{command.start.isoformat()} to {command.end.isoformat()}"
        self.announcements.append(f"{seat} is away from {span} ({zone}): {seat}'s deadlines "
                                  "are extended by that time.")
        return f"noted: you are away from {span}; your deadlines wait for you"

    def recompute_deadline(self, seat: str) -> None:
        """The running turn's deadline again (after its seat's absence or the game's
        time per turn changed)."""
        clock = self.store.clock(self.game_id)
        if clock is None or clock.seat != seat or clock.started is None:
            return
        deadline = deadline_for(self.store, clock, seat, clock.started)
        if deadline != clock.deadline:
            self.store.update_clock(self.game_id, deadline=deadline,
                                    sequence=clock.sequence + 1)

    # -- the game master -------------------------------------------------------------------
    def _force(self, command: cmd.Force) -> CommandMoves:
        seat = self._seat_named(command.seat)
        return CommandMoves(seat, command.actions, f"forced by the game master for {seat}")

    def _undo_to(self, command: cmd.UndoTo) -> CommandMoves:
        game = self.game
        if not 0 <= command.move < game.next_move:
            self._refuse(f"there is no move {command.move} to go back to; the moves are "
                         f"0-{game.next_move - 1}")
        mover = game.log[command.move].seat
        self.undone = (command.move, game.next_move)
        return CommandMoves(mover, (command.to_action(),),
                            f"the game master takes back moves {command.move}-"
                            f"{game.next_move - 1}")

    def _replace(self, command: cmd.Replace) -> str:
        """Give SEAT to another address: invited like a player (the same limits), it
        takes the seat with `join` and gets the seat's history then. Nobody but the game
        master learns the address."""
        work = self.work
        seat = self._seat_named(command.seat)
        address = command.address.strip("<>").lower()
        local, at, domain = address.rpartition("@")
        if not at or not local or ("." not in domain and domain != "localhost"):
            self._refuse(f"{command.address!r} is not a mail address")
        if (problem := lookalike_problem(address)) is not None:
            self._refuse(problem)
        members = self.store.members(self.game_id)
        if any(m.address == address and m.role == "player" for m in members):
            self._refuse(f"{address} plays in {self.game_id} already")
        mail_game = self.store.mail_game(self.game_id)
        if mail_game is None:
            self._refuse(f"{self.game_id} was not set up by mail: its seats are not mailed")
        try:
            check_invitation_limits(work, self.game_id, mail_game.master, address)
        except Refused as exc:
            self._refuse(str(exc))
        self._one_invitation()
        leaving = [m for m in members if m.role == "player" and m.seat == seat]

        def replace() -> None:
            store = self.store
            for member in leaving:
                store.remove_member(self.game_id, member.address, member.key)
                work.answers.notice(member.address, "replaced", game_id=self.game_id,
                                    seat=seat)
            store.add_member(self.game_id, address, "player", seat, seat=seat,
                             status="invited", reported_move=0, now=work.now)
            store.record_invitation(self.game_id, address, seat, mail_game.master, work.now)
            store.update_seat(self.game_id, seat, resigned=None, auto_pass_round=None,
                              auto_pass_move=None)
            store.drop_held(self.game_id, seat)
            work.answers.notice(address, "invitation", game_id=self.game_id, key=seat,
                                master=mail_game.master, title=mail_game.title, seat=seat,
                                replacing=True)

        self.effects.append(replace)
        self.announcements.append(
            f"The game master gives the seat {seat} to a new player, who takes it over "
            "with their `join`.")
        return (f"{address} is invited to take over {seat}; with their `join` they get the "
                "game's report and history")

    def _set_deadline(self, command: cmd.SetDeadline) -> str:
        seconds = command.minutes * 60.0
        if not 3600 <= seconds <= 30 * 86400:
            self._refuse("a deadline must be between 1 hour and 30 days")

        def change() -> None:
            self.store.update_clock(self.game_id, allowed=seconds)
            clock = self.store.clock(self.game_id)
            if clock is not None and clock.seat is not None:
                self.recompute_deadline(clock.seat)

        self.effects.append(change)
        self.announcements.append(f"The time per turn is now {format_duration(seconds)}.")
        return f"deadline set to {format_duration(seconds)} per turn (the running turn too)"

    def _set_timeout(self, command: cmd.SetTimeout) -> str:
        policy = command.policy
        self.effects.append(lambda: self.store.update_clock(self.game_id, timeout=policy))
        self.announcements.append(f"At a deadline the game now does: {policy_text(policy)}.")
        return f"timeout policy set to {policy}"

    def _pause(self, _: cmd.Pause) -> str:
        clock = self.store.clock(self.game_id)
        if clock is not None and clock.paused is not None:
            return "the game is paused already"
        now = self.work.now
        self.effects.append(lambda: self.store.update_clock(self.game_id, paused=now))
        self.announcements.append("The game master has paused the game: no deadlines run "
                                  "and orders wait until `resume`.")
        return "the game is paused"

    def _resume(self, _: cmd.Resume) -> str:
        clock = self.store.clock(self.game_id)
        if clock is None or clock.paused is None:
            return "the game is not paused"
        now = self.work.now
        paused = clock.paused

        def resume() -> None:
            current = self.store.clock(self.game_id)
            assert current is not None
            shift = now - paused
            self.store.update_clock(
                self.game_id, paused=None,
                deadline=None if current.deadline is None else current.deadline + shift,
                started=None if current.started is None else current.started + shift,
                sequence=current.sequence + 1)

        self.effects.append(resume)
        self.announcements.append("The game master has resumed the game; deadlines run "
                                  "again, extended by the pause.")
        return "the game is resumed"

    def _end_game(self, _: cmd.EndGame) -> str:
        self.ended = True
        self.announcements.append("The game master has ended the game: the scores below "
                                  "are final.")
        return "the game ends now; everyone gets the final scores and the game record"

    def _webhook(self, command: cmd.Webhook) -> str:
        """`webhook URL [FORM]` / `webhook off` (`moderator.desk.webhooks`)."""
        try:
            answer, announcement, change = configure(
                self.store, self.game_id, self.game.next_move, command.url, command.form,
                self.work.settings.webhook_allow_private)
        except WebhookRefused as refused:
            self._refuse(str(refused))
        self.effects.append(change)
        self.announcements.append(announcement)
        return answer

    def _seat_named(self, name: str) -> str:
        for seat in self.game.setup.seats:
            if seat.lower() == name.lower():
                return seat
        problem = seat_name_problem(name)
        self._refuse(problem or f"there is no seat {name}; the seats are "
                     f"{', '.join(self.game.setup.seats)}")
