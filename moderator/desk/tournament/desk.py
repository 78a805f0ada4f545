"""Tournament commands by mail, and the tables' games (`grammar.tournament` reads the
lines; docs/orders.md, "Tournaments", is what players and directors read).

A tournament mail names no game: every line of it is a tournament command (or a
`password` line). It applies whole or not at all, like a mail of orders. Who may do
what:

* `create tournament`: an address the operator lists as a tournament director
  (`tournament_directors`); the answer carries the tournament's director password.
* `close entry`, `start heat`, `end table`, `undo end table`, `replace`, `remove`,
  `overview`, `reliability NAME`: the tournament's director, from the director's
  address and with the director password (a From line is forged at will, the password
  only the director's mailbox has seen).
* `register`, `withdraw`, `reliability`: anyone, for their own address (the answer
  goes to it).
* `standings`: the director and everyone entered.

Everyone a step concerns is told by mail (issue 32): a player kept out at `close entry`
and why, a player replaced or removed (and that they are out of the later heats), the
reserves when a heat starts; the standings go to everyone ranked, withdrawn or not.
A heat with a deadline (`heat_clock`) ends its tables itself.

A From line is forged at will (issue 31), so `register` and `create tournament` are
only asked for: the answer carries a token (`[confirm TOKEN]` in its subject) and the
lines are carried out when a reply with it comes from the same address -- only that
mailbox has seen the token. An unconfirmed request is never seated and expires after
CONFIRM_HOURS; asking again while one waits sends nothing more (one answer per
request). A director creates at most `tournaments_per_day` tournaments a day.

The service mails nobody who never wrote to it: the tables' players and the reserves
all wrote `register` themselves; the director's word seats them (no invitation).
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import GameError
from engine.game import Game, Setup
from engine.title import load_title
from grammar import tournament as cmd
from grammar.commands import Command
from grammar.tournament import CONFIRM_TOKEN, confirm_token_in
from moderator.desk.auth import MASTER_KEY, same_token
from moderator.desk.changes import advance
from moderator.desk.deadlines import format_deadline, format_duration
from moderator.desk.tournament.results import (
    board,
    entrant_names,
    mail_standings,
    reliability,
    standings_text,
    tell,
)
from moderator.desk.tournament.scoring import seeding
from moderator.desk.tournament.seating import SeatingError, pairs_met, seat_final, seat_heat
from moderator.desk.turns import restart_clock
from moderator.desk.work import PASSWORD_LINE, Refused, Work
from moderator.store import Store, Tournament, TournamentTable

__all__ = ["director_token", "end_table", "first_operating_round_over", "tables_text",
           "tournament_lines", "tournament_mail"]

DIRECTOR_KEY = "director"
#: Hours a `register` or `create tournament` waits for its confirmation.
CONFIRM_HOURS = 48.0
_TOKEN_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def director_token(work: Work, name: str) -> str:
    """The director password of tournament NAME (made like a game's tokens)."""
    return work.settings.token(f"tournament:{name}", DIRECTOR_KEY)


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    ok: bool
    said: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Part:
    title: str
    text: str


@dataclass
class _Mail:
    work: Work
    sender: str
    passwords: list[str]
    sections: list[Part] = field(default_factory=list)
    #: The mail is a confirmed request: `register` and `create tournament` act.
    confirmed: bool = False
    #: The lines that wait for a confirmation (an unconfirmed mail's register/create).
    waiting: list[str] = field(default_factory=list)
    line: str = ""  # the line being carried out

    @property
    def store(self) -> Store:
        return self.work.store


def tournament_lines(work: Work) -> list[str] | None:
    """The mail's lines when it is a tournament mail: one of them at least begins like
    a tournament command (`grammar.tournament.starts_tournament_line`)."""
    lines = [line.strip() for line in work.body_lines()
             if line.strip() and not line.strip().startswith("#")]
    if any(cmd.starts_tournament_line(line) for line in lines):
        return lines
    # A reply to a confirmation request: its subject carries the token, its text may
    # be only the quoted request (or a "yes").
    token = confirm_token_in(work.incoming.subject)
    if token is not None:
        return [f"confirm {token}"]
    return None


def tournament_mail(work: Work, lines: list[str], confirmed: bool = False) -> str:
    """Carry out LINES (`tournament_lines`), all or none, and answer the sender.
    CONFIRMED: they are the lines of a request the sender's reply confirmed."""
    sender = work.incoming.sender
    assert sender is not None
    passwords = [m.group(1) for line in lines if (m := PASSWORD_LINE.match(line))]
    mail = _Mail(work, sender, passwords, confirmed=confirmed)
    confirms = [line for line in lines if line.lower().startswith("confirm")]
    if confirms and not confirmed:
        return _confirm_mail(mail, lines, confirms)
    results: list[Line] = []
    mark = len(work.answers.mails)
    # What a refused mail must leave as it was: the games it made go with the savepoint.
    committed, final = dict(work.committed), dict(work.answers.final)
    ok = True
    try:
        with work.store.transaction():  # a savepoint: every line or none
            for line in lines:
                if PASSWORD_LINE.match(line):
                    results.append(Line("password ********", True, ("password read",)))
                    continue
                try:
                    if not cmd.starts_tournament_line(line):
                        raise Refused("not a tournament command; a tournament mail holds "
                                      "only tournament commands (see `help tournaments`)")
                    try:
                        command = cmd.parse_tournament_line(line)
                    except cmd.TournamentError as exc:
                        raise Refused(str(exc)) from None
                    mail.line = line
                    said = _do(mail, command)
                except Refused as exc:
                    results.append(Line(line, False, error=str(exc)))
                    raise
                results.append(Line(line, True, (said,)))
    except Refused:
        ok = False
        work.answers.drop_after(mark)
        work.committed.clear()
        work.committed.update(committed)
        work.answers.final.clear()
        work.answers.final.update(final)
        mail.sections.clear()
    subject = None
    if ok and mail.waiting:
        subject, token = _ask_confirmation(mail)
        if token is None:  # the same request waits already: it was answered once
            work.answers.drop_after(mark)
            return "tournament: the same request waits for its confirmation already"
    work.answers.mail(sender, "tournament", "reply", game_id=None, key=None, kind="answer",
                      ok=ok, results=tuple(results), sections=tuple(mail.sections),
                      subject=subject)
    return "tournament: " + ("; ".join(r.said[0] for r in results if r.said) if ok
                             else "refused")


def _ask_confirmation(mail: _Mail) -> tuple[str | None, str | None]:
    """A token for the mail's waiting lines, and the answer's subject that carries it;
    (None, None) when the same request of the same address waits already."""
    work, store = mail.work, mail.store
    since = work.now - CONFIRM_HOURS * 3600
    store.forget_confirmations(work.now - 30 * 24 * 3600)
    if store.waiting_confirmation(mail.sender, mail.waiting, since) is not None:
        return None, None
    token = "".join(secrets.choice(_TOKEN_LETTERS) for _ in range(10))
    assert CONFIRM_TOKEN.fullmatch(token)
    store.add_confirmation(token, mail.sender, mail.waiting, work.now)
    mail.sections.append(Part("To confirm", (
        f"Nothing is done yet: reply to this mail within {CONFIRM_HOURS:g} hours (its "
        f"subject carries `confirm {token}`), or send the line `confirm {token}`, from "
        f"{mail.sender}. If you did not ask for this, ignore this mail: nothing happens.")))
    what = "; ".join(mail.waiting)
    return f"[confirm {token}] {what[:80]}", token


def _confirm_mail(mail: _Mail, lines: list[str], confirms: list[str]) -> str:
    """A reply confirming a request: its lines are carried out as if sent now."""
    work = mail.work
    token = confirm_token_in(confirms[0]) if len(confirms) == 1 else None
    found = mail.store.confirmation(token) if token else None
    problem = None
    if token is None or len(lines) != len(confirms) + len(mail.passwords):
        problem = ("a confirmation is a mail with the one line `confirm TOKEN` (or a reply "
                   "to the mail that asked for it)")
    elif found is None or found[0] != mail.sender:
        problem = (f"nothing waits for the confirmation {token} from {mail.sender} (a "
                   "request is confirmed from the address that made it)")
    elif found[3] is not None:
        problem = f"{token} was confirmed already"
    elif found[2] < work.now - CONFIRM_HOURS * 3600:
        problem = (f"{token} expired: a request waits {CONFIRM_HOURS:g} hours for its "
                   "confirmation; send it again")
    if problem is not None or found is None or token is None:
        work.answers.mail(mail.sender, "tournament", "reply", game_id=None, key=None,
                          kind="answer", ok=False, results=(Line(
                              confirms[0], False, error=problem),), sections=())
        return "tournament: confirmation refused"
    mail.store.confirm(token, work.now)
    return tournament_mail(work, found[1], confirmed=True)


class _TakeBack(Exception):
    """Ends a savepoint in which a request was only tried."""


def _wait(mail: _Mail, act: Callable[[], str]) -> str:
    """ACT tried (its checks refuse what it would refuse) and taken back: the line
    waits for the sender's confirmation (`_ask_confirmation`)."""
    sections = len(mail.sections)
    said = ""
    try:
        with mail.store.transaction():
            said = act()
            raise _TakeBack
    except _TakeBack:
        pass
    del mail.sections[sections:]
    if said.endswith(" already"):  # nothing to do: nothing to confirm
        return said
    mail.waiting.append(" ".join(mail.line.split()))
    return "waits for your confirmation (see below)"


def _do(mail: _Mail, command: Command) -> str:
    if isinstance(command, cmd.CreateTournament):
        if not mail.confirmed:
            return _wait(mail, lambda: _create(mail, command))
        return _create(mail, command)
    if isinstance(command, cmd.ReliabilityOf) and command.name is None:
        mail.sections.append(Part("Your record (every game on this service)",
                                  "  " + reliability(mail.store, mail.sender).line()))
        return "your reliability follows"
    if isinstance(command, cmd.EndTable | cmd.UndoEndTable):
        table = mail.store.tournament_table(command.game)
        if table is None:
            raise Refused(f"{command.game} is not a tournament table")
        tournament = _tournament(mail, table.tournament)
    elif isinstance(command, cmd.Register | cmd.Withdraw | cmd.Standings | cmd.CloseEntry
                    | cmd.StartHeat | cmd.ReplaceEntrant | cmd.RemoveEntrant
                    | cmd.Overview | cmd.ReliabilityOf):
        assert command.name is not None
        tournament = _tournament(mail, command.name)
    else:
        raise Refused("not a tournament command")
    if command.game_master or isinstance(command, cmd.ReliabilityOf):
        _check_director(mail, tournament)
        mail.work.answers.budgeted = False  # the director's own, proven mail
    if isinstance(command, cmd.Register):
        if not mail.confirmed:
            return _wait(mail, lambda: _register(mail, tournament, command))
        return _register(mail, tournament, command)
    if isinstance(command, cmd.Withdraw):
        return _withdraw(mail, tournament)
    if isinstance(command, cmd.Standings):
        return _standings(mail, tournament)
    if isinstance(command, cmd.CloseEntry):
        return _close(mail, tournament, command.minimum)
    if isinstance(command, cmd.StartHeat):
        return _start_heat(mail, tournament, command.minutes)
    if isinstance(command, cmd.EndTable):
        return _end_table(mail, tournament, command.game, command.anyway)
    if isinstance(command, cmd.UndoEndTable):
        return _undo_end_table(mail, tournament, command.game)
    if isinstance(command, cmd.ReplaceEntrant):
        return _replace(mail, tournament, command)
    if isinstance(command, cmd.RemoveEntrant):
        return _remove(mail, tournament, command.address)
    if isinstance(command, cmd.Overview):
        return _overview(mail, tournament)
    if isinstance(command, cmd.ReliabilityOf):
        mail.sections.append(Part(
            f"Reliability of the entrants of {tournament.name} (every game on this "
            "service)", _reliability_lines(mail.store, tournament)))
        return "the entrants' reliability follows"
    raise Refused("not a tournament command")


def _tournament(mail: _Mail, name: str) -> Tournament:
    tournament = mail.store.tournament(name)
    if tournament is None:
        raise Refused(f"there is no tournament {name}")
    return tournament


def _check_director(mail: _Mail, tournament: Tournament) -> None:
    if mail.sender != tournament.director:
        raise Refused(f"only the director of {tournament.name} may do that")
    expected = director_token(mail.work, tournament.name)
    if not mail.passwords:
        raise Refused(f"a director's mail carries the line `password ...` with the "
                      f"director password of {tournament.name} (in the mail that "
                      "created it); this mail has no `password` line")
    if not any(same_token(expected, given) for given in mail.passwords):
        raise Refused(f"the password in this mail is not the director password of "
                      f"{tournament.name}: copy it from the mail that created the "
                      "tournament")


# -- the director's terms ----------------------------------------------------------------
def _create(mail: _Mail, command: cmd.CreateTournament) -> str:
    work, store = mail.work, mail.store
    if mail.sender not in work.settings.tournament_directors:
        raise Refused("only the tournament directors the operator of this moderator "
                      "lists may create tournaments")
    if store.tournament(command.name) is not None:
        raise Refused(f"a tournament {command.name} exists already")
    cap = work.settings.tournaments_per_day
    made = store.tournaments_created(mail.sender, work.now - 24 * 3600) + sum(
        1 for line in mail.waiting if line.lower().startswith("create"))
    if made >= cap:
        raise Refused(f"a director creates at most {cap} tournament{'s' if cap != 1 else ''}"
                      f" a day ({made} in the last 24 hours)")
    titles = []
    for name in command.titles:
        try:
            titles.append(load_title(name).name)
        except ValueError as exc:
            raise Refused(str(exc)) from None
    ranges = _ranges(titles)
    for size in command.sizes:
        if not any(low <= size <= high for low, high in ranges.values()):
            raise Refused(f"no title of {', '.join(titles)} takes {size} players")
    if command.advance:
        if command.advance < 2:
            raise Refused("a final needs at least 2 players (`final 4`), or `no final`")
        try:
            seat_final([str(n) for n in range(command.advance)], titles, ranges,
                       command.sizes, 1)
        except SeatingError as exc:
            raise Refused(f"the final cannot be seated: {exc}") from None
    seed = command.seed if command.seed is not None else secrets.randbelow(2**31)
    tournament = Tournament(command.name, mail.sender, tuple(titles), command.sizes,
                            command.heats, command.advance, command.scoring,
                            command.minutes * 60.0, command.timeout, seed, None, "entry", 0,
                            heat_limit=(None if command.heat_minutes is None
                                        else command.heat_minutes * 60.0))
    if work.answers.budgeted and not work.answers.may_answer(mail.sender):
        # The director would never get the mail that carries the password.
        raise Refused("this address's answers for the hour are spent; try again later")
    store.create_tournament(tournament, work.now)
    final = f"a final of {command.advance}" if command.advance else "no final"
    mail.sections.append(Part(f"Directing {command.name}", (
        f"Your director password for {command.name} is {director_token(work, command.name)}.\n"
        "Put the line `password " + director_token(work, command.name) + "` in every mail "
        "that directs the tournament (`close entry`, `start heat`, `end table`, "
        "`undo end table`, `replace`, `remove`, `overview`, `reliability "
        f"{command.name}`).\n"
        f"Players enter with a mail to {work.settings.address} saying `register "
        f"{command.name}` (reserves: `register {command.name} as reserve`).")))
    return (f"tournament {command.name} created: {', '.join(titles)}, tables of "
            f"{_sizes(command.sizes)}, {command.heats} heat{'s' if command.heats != 1 else ''}"
            f", {final}, scoring by {command.scoring}, {command.minutes // 60}h a turn "
            f"(timeout {command.timeout})"
            + ("" if command.heat_minutes is None else
               f", a heat ends after {format_duration(command.heat_minutes * 60.0)}")
            + f", seed {seed}")


def _sizes(sizes: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in sizes)


def _ranges(titles: list[str] | tuple[str, ...]) -> dict[str, tuple[int, int]]:
    ranges = {}
    for name in titles:
        spec = load_title(name)
        ranges[name] = (spec.players_min, spec.players_max)
    return ranges


# -- entry ----------------------------------------------------------------------------------
def _register(mail: _Mail, tournament: Tournament, command: cmd.Register) -> str:
    store = mail.store
    if tournament.stage == "over":
        raise Refused(f"{tournament.name} is over")
    known = {e.address: e for e in store.entrants(tournament.name)}
    mine = known.get(mail.sender)
    if tournament.stage != "entry" and not command.reserve:
        if mine is not None and mine.status == "entered" and mine.role == "reserve":
            raise Refused(f"you are a reserve of {tournament.name}, and entry for players "
                          "is closed: the director may give you a seat a player leaves")
        raise Refused(f"entry to {tournament.name} is closed (reserves may still "
                      f"`register {tournament.name} as reserve`)")
    if mine is not None and mine.status in ("refused", "dropped"):
        raise Refused(f"you cannot enter {tournament.name} again (the director "
                      f"{'kept you out' if mine.status == 'refused' else 'replaced you'})")
    role = "reserve" if command.reserve else "player"
    if mine is not None and mine.status == "entered" and mine.role == role:
        return f"you are entered in {tournament.name} as a {role} already"
    if mine is not None and mine.status == "entered" and role == "reserve" and \
            _ever_seated(mail, tournament, mail.sender):
        raise Refused(f"you play in {tournament.name} already; a player does not "
                      "become a reserve (`withdraw` leaves the later heats)")
    store.add_entrant(tournament.name, mail.sender, role, mail.work.now)
    count = sum(1 for e in store.entrants(tournament.name)
                if e.status == "entered" and e.role == role)
    # A change of role is said, never done silently (issue 32: a reserve who mailed
    # `register` became a player without a word).
    changed = (f"you were entered in {tournament.name} as a {mine.role}; you are now "
               f"entered as a {role} instead" if mine is not None and
               mine.status == "entered" else
               f"you are entered in {tournament.name} as a {role}")
    return (f"{changed} ({count} {role}{'s' if count != 1 else ''} so far); the director "
            "closes entry and seats the tables, and your table's game mails you its first "
            "report")


def _withdraw(mail: _Mail, tournament: Tournament) -> str:
    store = mail.store
    mine = next((e for e in store.entrants(tournament.name) if e.address == mail.sender),
                None)
    if mine is None or mine.status != "entered":
        raise Refused(f"you are not entered in {tournament.name}")
    store.set_entrant(tournament.name, mail.sender, status="withdrawn")
    playing = _running_seat(mail, tournament, mail.sender)
    return (f"you have withdrawn from {tournament.name}"
            + (f"; you still hold a seat at {playing[0]}: play it out, or the director "
               "gives it to a reserve" if playing else ""))


def _close(mail: _Mail, tournament: Tournament, minimum: int | None) -> str:
    store = mail.store
    if tournament.stage != "entry":
        raise Refused(f"entry to {tournament.name} is closed already")
    entrants = [e for e in store.entrants(tournament.name) if e.status == "entered"]
    lines = []
    kept_out = []
    for entrant in entrants:
        record = reliability(store, entrant.address)
        meets = record.meets(minimum)
        lines.append(f"  {entrant.role:<8}{record.line()}"
                     + ("" if meets else f"  -- below {minimum}%: not seated"))
        if not meets:
            kept_out.append(entrant.address)
    players = [e.address for e in entrants
               if e.role == "player" and e.address not in kept_out]
    try:
        seat_heat(players, tournament.titles, _ranges(tournament.titles), tournament.sizes,
                  1, tournament.seed)
    except SeatingError as exc:
        raise Refused(f"the heats cannot be seated with {len(players)} players: {exc}"
                      ) from None
    for address in kept_out:
        store.set_entrant(tournament.name, address, status="refused")
        tell(mail.work, address, tournament.name, "you are not seated",
             f"entry to {tournament.name} is closed, and the director seats only players "
             f"whose record is at least {minimum}% on time",
             "Your record across every game on this service:\n  "
             + reliability(store, address).line() + "\n\nYou are not seated in any heat "
             f"of {tournament.name}. Turns answered on time raise the rate: the next "
             "tournament may take you.")
    store.update_tournament(tournament.name, stage="closed", minimum=minimum)
    mail.sections.append(Part(
        f"Reliability of the entrants of {tournament.name} (every game on this service)",
        "\n".join(lines) or "  nobody entered"))
    return (f"entry to {tournament.name} is closed: {len(players)} players"
            + (f", {len(kept_out)} below the minimum of {minimum}%" if kept_out else "")
            + f"; `start heat {tournament.name}` seats heat 1")


# -- heats and tables ------------------------------------------------------------------------
def _start_heat(mail: _Mail, tournament: Tournament, minutes: int | None) -> str:
    store, work = mail.store, mail.work
    if tournament.stage == "entry":
        raise Refused(f"close entry first: `close entry {tournament.name}`")
    if tournament.stage == "over":
        raise Refused(f"{tournament.name} is over (`standings {tournament.name}`)")
    if tournament.stage == "final":
        raise Refused(f"the final of {tournament.name} is under way")
    tables = store.tournament_tables(tournament.name)
    running = [t.game_id for t in tables if t.ended is None]
    if tournament.heat >= tournament.heats and not tournament.advance:
        raise Refused(f"{tournament.name} has played its {tournament.heats} heats")
    if running:
        raise Refused(f"heat {tournament.heat} is still playing at {', '.join(running)} "
                      "(the director may `end table GAME`)")
    ranges = _ranges(tournament.titles)
    entered = [e.address for e in store.entrants(tournament.name)
               if e.status == "entered" and e.role == "player"]
    if tournament.heat < tournament.heats:
        heat = tournament.heat + 1
        met = pairs_met([[h.address for h in store.holders(t.game_id)] for t in tables])
        try:
            seating = seat_heat(entered, tournament.titles, ranges, tournament.sizes, heat,
                                tournament.seed, met)
        except SeatingError as exc:
            raise Refused(f"heat {heat} cannot be seated: {exc}") from None
        stage, what = "heats", f"heat {heat}"
    else:
        heat = tournament.heats + 1
        standing = [s for s in board(store, tournament).heats if s.player in entered]
        finalists = seeding(standing, tournament.advance)
        if len(finalists) < tournament.advance:
            raise Refused(f"only {len(finalists)} players are left for a final of "
                          f"{tournament.advance}")
        seating = seat_final(finalists, tournament.titles, ranges, tournament.sizes, heat)
        stage, what = "final", "the final"
    limit = minutes * 60.0 if minutes is not None else tournament.heat_limit
    ends = None if limit is None else work.now + limit
    games = [_open_table(mail, tournament, heat, table.number, table.title, table.players,
                         what, ends) for table in seating]
    store.update_tournament(tournament.name, stage=stage, heat=heat, heat_started=work.now,
                            heat_ends=ends, heat_warned=None)
    names = entrant_names(store, tournament.name)
    listing = "\n".join(f"  table {t.number}: {game} ({t.title}): "
                        + ", ".join(f"{names[p]} ({p})" for p in t.players)
                        for t, game in zip(seating, games, strict=True))
    until = ("" if ends is None else
             f"\n\nThe heat ends {format_deadline(ends, 'UTC', now=work.now)}: tables still "
             "playing then are ended and scored on their position (everyone is told a "
             "day before).")
    mail.sections.append(Part(f"{tournament.name}, {what}", listing + until))
    mail.sections.append(Part("Reliability of the players seated (every game on this "
                              "service)", "\n".join(
        f"  {reliability(store, p).line()}" for t in seating for p in t.players)))
    # The reserves learn that the heat runs: the director may call on them now.
    public = "\n".join(f"  table {t.number}: {game} ({t.title}): "
                       + ", ".join(names[p] for p in t.players)
                       for t, game in zip(seating, games, strict=True))
    for entrant in store.entrants(tournament.name):
        if entrant.role == "reserve" and entrant.status == "entered":
            tell(work, entrant.address, tournament.name, f"{what} has started",
                 f"{what} has started; you are a reserve",
                 public + "\n\nIf a player leaves, the director may give you their seat: "
                 "its game then mails you its report.")
    count = len(seating)
    return (f"{what} of {tournament.name} is seated at {count} table"
            f"{'s' if count != 1 else ''} and started: {', '.join(games)}")


def _open_table(mail: _Mail, tournament: Tournament, heat: int, number: int, title: str,
                players: tuple[str, ...], what: str, ends: float | None) -> str:
    """The table's game: created, its players seated (they entered: no invitation),
    started with the tournament's clock, and everyone's first report mailed."""
    work, store = mail.work, mail.store
    seed = random.Random(f"{tournament.seed}:{heat}:{number}").randrange(2**31)
    game_id = store.create_mail_game(title, tournament.director, [], seed, work.now)
    store.add_member(game_id, tournament.director, "master", MASTER_KEY, status="active",
                     now=work.now)
    names = entrant_names(store, tournament.name)
    seats = [names[address] for address in players]
    for seat, address in zip(seats, players, strict=True):
        store.add_member(game_id, address, "player", seat, seat=seat, status="active",
                         now=work.now)
        store.add_holder(game_id, seat, address, 0)
    # The seating order is drawn with the table's seed, like a game's by mail.
    order = random.Random(seed).sample(seats, len(seats))
    try:
        store.create_game(Setup(title, tuple(order), seed, frozenset()), game_id)
    except GameError as exc:
        raise Refused(exc.message) from None
    store.mark_started(game_id, work.now)
    store.create_clock(game_id, tournament.deadline)
    store.update_clock(game_id, timeout=tournament.timeout)
    store.add_tournament_table(TournamentTable(game_id, tournament.name, heat, number,
                                               title, None))
    game = store.load(game_id)
    intro = (f"Tournament {tournament.name}: {what}, table {number} has started. Seats: "
             + ", ".join(order) + f". A turn has {tournament.deadline / 3600:g} hours "
             f"(then the timeout policy `{tournament.timeout}`)."
             + ("" if ends is None else " The heat ends "
                f"{format_deadline(ends, 'UTC', now=work.now)}: a table still playing "
                "then is ended and scored on its position."))
    extra = advance(work, game_id, game, moved=True)
    work.answers.broadcast(game_id, game, "\n\n".join(p for p in (intro, extra) if p))
    return game_id


def first_operating_round_over(game: Game) -> bool:
    """Whether GAME has played its first operating round through: before that (the
    auction, the first stock round, OR 1.1) the values say little about the play."""
    if game.state.game_over or game.state.stock_round_number >= 2:
        return True
    found = re.match(r"Operating Round (\d+)\.(\d+)", game.round_name)
    return found is not None and found.groups() != ("1", "1")


def end_table(work: Work, tournament: Tournament, table: TournamentTable, why: str,
              reason: str = "ended by the tournament director") -> str:
    """End TABLE's game now and score it on the position (the director's `end table`,
    or the heat's deadline); what the answer says. WHY opens the last report; REASON
    is the game's end reason (its 18xx.games record's)."""
    loaded = work.games.game(table.game_id).clone()
    values = loaded.scores()
    # The game is over on the director's word: its last report says so in subject and
    # body, not "SR 1: Ivy to move" with Ivy's orders (issue 32).
    loaded.state.game_over = True
    loaded.state.end_reason = reason
    # `advance` ends the game, and scores the table (`results.table_ended`).
    extra = advance(work, table.game_id, loaded, moved=False, end=True)
    intro = f"{why[0].upper()}{why[1:]}: the table is scored on the position now."
    work.answers.broadcast(table.game_id, loaded,
                           "\n\n".join(p for p in (intro, extra) if p))
    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    return (f"{table.game_id} ended and scored: "
            + ", ".join(f"{seat} {value}" for seat, value in ranked))


def _end_table(mail: _Mail, tournament: Tournament, game: str, anyway: bool) -> str:
    work, store = mail.work, mail.store
    table = store.tournament_table(game)
    assert table is not None
    if table.ended is not None:
        raise Refused(f"{table.game_id} has ended already (`undo end table "
                      f"{table.game_id}` takes the end back)")
    loaded = work.games.game(table.game_id)
    if not anyway and not first_operating_round_over(loaded):
        raise Refused(f"{table.game_id} is still in {loaded.round_name}, before its first "
                      "operating round has ended: scores now say little about the play. "
                      f"To end it all the same: `end table {table.game_id} anyway`")
    return end_table(work, tournament, table,
                     f"the director of {tournament.name} has ended this table")


def _undo_end_table(mail: _Mail, tournament: Tournament, game: str) -> str:
    """The director's `end table` taken back: the table plays on where it stood."""
    work, store = mail.work, mail.store
    table = store.tournament_table(game)
    assert table is not None
    if table.ended is None:
        raise Refused(f"{table.game_id} has not ended")
    fresh = store.load(table.game_id)
    if fresh.state.game_over:
        raise Refused(f"{table.game_id} reached its end in play: only an end the director "
                      "(or the heat's deadline) made is taken back")
    if tournament.heat != table.heat:
        raise Refused(f"a later heat of {tournament.name} has been seated: the end of "
                      f"{table.game_id} stands")
    if tournament.heat_ends is not None and work.now >= tournament.heat_ends:
        raise Refused(f"the deadline of heat {table.heat} has passed: the table would end "
                      "again at once")
    store.reopen_tournament_table(table.game_id)
    store.update_clock(table.game_id, ended=None)
    restart_clock(store, table.game_id, fresh, work.now, moved=True)
    work.committed[table.game_id] = fresh  # not the ended copy the cache holds
    work.answers.final.pop(table.game_id, None)
    if tournament.stage == "over":
        store.update_tournament(tournament.name,
                                stage="final" if table.heat > tournament.heats else "heats")
    reopened = store.tournament(tournament.name)
    assert reopened is not None
    work.answers.broadcast(table.game_id, fresh, (
        f"The director of {tournament.name} has taken back the end of this table: it "
        "plays on from where it stood, and its score no longer counts until it ends."))
    mail_standings(work, reopened, f"the end of {table.game_id} was taken back: it plays on")
    return f"{table.game_id} plays on; its score is taken out of the standings"


def _running_seat(mail: _Mail, tournament: Tournament, address: str
                  ) -> tuple[str, str] | None:
    """(game, seat) ADDRESS holds at a running table of TOURNAMENT, if any."""
    for table in mail.store.tournament_tables(tournament.name):
        if table.ended is not None:
            continue
        for holder in mail.store.holders(table.game_id):
            if holder.address == address and holder.until is None:
                return table.game_id, holder.seat
    return None


def _replace(mail: _Mail, tournament: Tournament, command: cmd.ReplaceEntrant) -> str:
    work, store = mail.work, mail.store
    found = _running_seat(mail, tournament, command.address)
    if found is None:
        raise Refused(f"{command.address} holds no seat at a running table of "
                      f"{tournament.name}")
    game_id, seat = found
    reserves = [e.address for e in store.entrants(tournament.name)
                if e.role == "reserve" and e.status == "entered"
                and _running_seat(mail, tournament, e.address) is None]
    if command.substitute is not None:
        if command.substitute not in reserves:
            raise Refused(f"{command.substitute} is not a free reserve of {tournament.name}"
                          f" (free reserves: {', '.join(reserves) or 'none'})")
        substitute = command.substitute
    elif reserves:
        substitute = reserves[0]
    else:
        raise Refused(f"{tournament.name} has no free reserve (reserves enter with "
                      f"`register {tournament.name} as reserve`)")
    game = work.games.game(game_id).clone()
    move = game.next_move
    for member in store.members(game_id):
        if member.role == "player" and member.seat == seat:
            store.remove_member(game_id, member.address, member.key)
    store.end_holder(game_id, seat, command.address, move)
    store.add_holder(game_id, seat, substitute, move)
    store.add_member(game_id, substitute, "player", seat, seat=seat, status="active",
                     now=work.now)
    store.update_seat(game_id, seat, resigned=None, auto_pass_round=None,
                      auto_pass_move=None)
    store.drop_held(game_id, seat)
    store.set_entrant(tournament.name, command.address, status="dropped")
    # The substitute plays on in the later heats in the dropout's place.
    store.set_entrant(tournament.name, substitute, role="player")
    tell(work, command.address, tournament.name, "your seat is given to a reserve",
         f"the director has given your seat {seat} at {game_id} to a reserve",
         f"From move {move} on the reserve plays the seat: you no longer receive its "
         "reports, and mail from you no longer moves it. The seat's score is split between "
         "you by the moves each made, so you stay in the standings.\n\nYou are out of "
         f"the later heats{' and the final' if tournament.advance else ''} of "
         f"{tournament.name}; the standings still come to you.")
    member = next(m for m in store.members(game_id) if m.address == substitute)
    work.answers.report(game_id, member, game, intro=(
        f"The director of {tournament.name} gives you the seat {seat} at {game_id} from "
        f"move {move} on. Its score is split with the player before you by the seat's "
        "moves each made."))
    return (f"{substitute} takes {seat} at {game_id} from {command.address} (move {move}); "
            "the seat's score is split by the moves each made")


def _ever_seated(mail: _Mail, tournament: Tournament, address: str) -> bool:
    return any(h.address == address for t in mail.store.tournament_tables(tournament.name)
               for h in mail.store.holders(t.game_id))


def _remove(mail: _Mail, tournament: Tournament, address: str) -> str:
    """The director takes ADDRESS out: never seated again, told why."""
    store = mail.store
    mine = next((e for e in store.entrants(tournament.name) if e.address == address), None)
    if mine is None:
        raise Refused(f"{address} is not an entrant of {tournament.name}")
    if mine.status == "refused":
        return f"{address} is out of {tournament.name} already"
    found = _running_seat(mail, tournament, address)
    if found is not None:
        raise Refused(f"{address} holds {found[1]} at {found[0]}: `replace {address} in "
                      f"{tournament.name}` gives the seat to a reserve first")
    store.set_entrant(tournament.name, address, status="refused")
    tell(mail.work, address, tournament.name, "you are out of the tournament",
         f"the director has taken you out of {tournament.name}",
         "You are not seated in its later heats"
         + (" or its final" if tournament.advance else "")
         + (", and what you played still counts in the standings" if _ever_seated(
             mail, tournament, address) else "") + ". Ask the director if this is a "
         "mistake.")
    return f"{address} is out of {tournament.name} (told by mail)"


def _reliability_lines(store: Store, tournament: Tournament) -> str:
    lines = [f"  {e.role:<8}{e.status:<10}{reliability(store, e.address).line()}"
             for e in store.entrants(tournament.name)]
    return "\n".join(lines) or "  nobody entered"


def tables_text(work: Work, tournament: Tournament) -> str:
    """Each table: its game, title, and how far it has got (move, round, who is to move,
    days since the last move)."""
    store = work.store
    lines = []
    for table in store.tournament_tables(tournament.name):
        stage = "final" if table.heat > tournament.heats else f"heat {table.heat}"
        head = f"  {stage}, table {table.number}: {table.game_id} ({table.title})"
        if table.ended is not None:
            lines.append(f"{head}: ended")
            continue
        game = work.games.game(table.game_id)
        turn = game.turn()
        last = store.last_move_at(table.game_id)
        days = (work.now - last) / 86400 if last is not None else None
        lines.append(f"{head}: move {game.next_move}, {game.round_name}, "
                     + (f"{turn.seat} to move" if turn else "nobody to move")
                     + ("" if days is None else f", {days:.1f} days since the last move"))
    return "\n".join(lines) or "  no table yet"


def _overview(mail: _Mail, tournament: Tournament) -> str:
    """The director's view of TOURNAMENT: entrants, reliability, tables and progress."""
    work = mail.work
    t = tournament
    stage = {"entry": "entry open", "closed": "entry closed", "heats": f"heat {t.heat}",
             "final": "the final", "over": "over"}[t.stage]
    heat_end = ("" if t.heat_ends is None or t.stage not in ("heats", "final") else
                f"; the heat ends {format_deadline(t.heat_ends, 'UTC', now=work.now)}")
    mail.sections.append(Part(f"{t.name}: {stage}{heat_end}", (
        f"  {', '.join(t.titles)}; tables of {_sizes(t.sizes)}; {t.heats} heat"
        f"{'s' if t.heats != 1 else ''}; "
        + (f"a final of {t.advance}" if t.advance else "no final")
        + f"; scoring by {t.scoring}")))
    mail.sections.append(Part("Entrants (role, status, reliability on every game)",
                              _reliability_lines(mail.store, t)))
    mail.sections.append(Part("Tables", tables_text(work, t)))
    return "the overview follows"


def _standings(mail: _Mail, tournament: Tournament) -> str:
    entrants = {e.address for e in mail.store.entrants(tournament.name)}
    if mail.sender not in entrants and mail.sender != tournament.director:
        raise Refused(f"the standings of {tournament.name} go to its entrants and director")
    mail.sections.append(Part(f"Standings of {tournament.name}",
                              standings_text(board(mail.store, tournament))))
    return "the standings follow"

