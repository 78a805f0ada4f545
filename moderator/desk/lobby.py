"""Mail outside a started game: `create game`, `observe` and `help` from anyone, and
for a game in set-up the game master's `invite` and `start` and the players' `join`.

A lobby mail applies whole or not at all, like a mail of orders: its lines run
inside a savepoint, and a refused line takes the others (and their mails) back.
"""

from __future__ import annotations

import random
import secrets

from engine.errors import GameError
from engine.game import Setup
from engine.title import available_titles, load_title
from engine.titles import unknown_options
from grammar import commands as cmd
from grammar.names import Names, names_for_title
from grammar.submission import parse_submission
from moderator.desk.answers import Lobby, LobbySeat
from moderator.desk.auth import MASTER_KEY, observer_key, seat_name_problem
from moderator.desk.changes import after_change
from moderator.desk.helptext import help_answer
from moderator.desk.sender import Auth, games_of
from moderator.desk.webhooks import WebhookRefused, configure
from moderator.desk.work import Refused, Work, masked, under
from moderator.mail.addresses import lookalike_problem
from moderator.reports.report import LineResult, Results, Section
from moderator.store import Role, Store

__all__ = ["check_invitation_limits", "check_invite", "general", "general_commands",
           "invite", "lobby", "stop_mail"]

DAY = 86400.0
#: Invitations a day to a mailbox that has never joined a game, from all game masters.
INVITATIONS_TO_A_NEWCOMER_PER_DAY = 2
#: Requests to observe one game that are passed to its game master in a day.
OBSERVE_REQUESTS_PER_DAY = 3
#: `invite ADDRESS as observer` invites an observer, not a seat.
OBSERVER = "observer"


# -- mail without a game: create, observe, help ------------------------------------------
def general_commands(work: Work) -> list[cmd.Command] | None:
    """The mail's lines when every one is `create game`, `observe`, `help` or `stop`."""
    found: list[cmd.Command] = []
    submission = parse_submission(work.incoming.text, Names(title=""))
    if submission.errors or submission.headers:
        return None
    for order in submission.orders:  # the mail's closing ("Thanks!") aside
        if not isinstance(order, cmd.CreateGame | cmd.Observe | cmd.Help | cmd.Stop):
            return None
        found.append(order)
    return found or None


#: What one mail of general commands may ask for (issue 31: one mail from a From that
#: may be forged must not make a flood): help topics answered in one mail, and the
#: games a mail may ask to observe.
MAX_HELP_TOPICS = 3
MAX_OBSERVE = 3


def general(work: Work, commands: list[cmd.Command]) -> str:
    """Answer COMMANDS (`general_commands`): each distinct line once, every help topic in
    one answer (at most MAX_HELP_TOPICS), at most one `create game` a mail and
    MAX_OBSERVE `observe` lines, so that a mail causes a few mails at most."""
    sender = work.incoming.sender
    assert sender is not None
    commands = list(dict.fromkeys(commands))  # a line written twice asks once
    creates = sum(1 for c in commands if isinstance(c, cmd.CreateGame))
    observes = sum(1 for c in commands if isinstance(c, cmd.Observe))
    if creates > 1 or observes > MAX_OBSERVE:
        asked = (f"{creates} `create game` lines" if creates > 1 else
                 f"{observes} `observe` lines")
        work.answers.notice(sender, "not_allowed", reason=(
            f"This mail asked for {asked}; a mail may create one game and ask to observe "
            f"at most {MAX_OBSERVE}. Nothing of it was done: send one `create game` per "
            "mail."))
        return f"refused: {asked}"
    done: list[str] = []
    topics = [c.topic for c in commands if isinstance(c, cmd.Help)]
    if topics:
        text = "\n\n".join(help_answer(topic) for topic in topics[:MAX_HELP_TOPICS])
        if len(topics) > MAX_HELP_TOPICS:
            text += (f"\n\n({len(topics) - MAX_HELP_TOPICS} more help topics were asked; "
                     f"one mail answers {MAX_HELP_TOPICS}.)")
        work.answers.notice(sender, "help", text=text)
        done.append("help")
    for command in commands:
        if isinstance(command, cmd.CreateGame):
            done.append(create_game(work, sender, command))
        elif isinstance(command, cmd.Observe):
            done.append(observe(work, sender, command.game))
        elif isinstance(command, cmd.Stop):
            done.append(stop_mail(work, sender, proven=False))
    return "; ".join(done)


def stop_mail(work: Work, sender: str, *, proven: bool) -> str:
    """`stop`: never mail SENDER again (after this one confirmation).

    Anyone can forge a sender, so a `stop` counts only when PROVEN: written to the
    sender's own unsubscribe address (in the foot and List-Unsubscribe of every mail
    they get, with a token only their mailbox has seen), or as a reply that carries
    their game password. Otherwise the answer says where to write it."""
    store = work.store
    if not proven:
        work.answers.notice(sender, "stop_confirm",
                            stop_address=work.answers.stop_address(sender))
        return "stop: asked to confirm from the sender's own unsubscribe address"
    games = active_games_of(store, sender)
    work.answers.notice(sender, "stopped", address=sender, games=games)
    store.opt_out(sender, work.incoming.key, work.now)
    return f"{sender} gets no more mail (`stop`)"


def active_games_of(store: Store, address: str) -> list[str]:
    """The games ADDRESS has joined (as a player, master or observer)."""
    rows = store.execute("SELECT DISTINCT game_id FROM members WHERE address = ? AND "
                         "status = 'active' ORDER BY game_id", [address.lower()])
    return [str(r[0]) for r in rows]


def create_game(work: Work, sender: str, command: cmd.CreateGame) -> str:
    masters = work.settings.game_masters
    if masters and sender not in masters:
        work.answers.notice(sender, "not_allowed", reason=(
            f"Only the moderator's game masters may create games here; {sender} is "
            "not one of them. Ask the operator of this moderator."))
        return "refused: create game (not a game master)"
    if work.answers.budgeted and not work.answers.may_answer(sender):
        # The game master would never get the mail that carries the game's password.
        work.store.withhold(sender, work.now)
        return "refused: create game (the address's answers for the hour are spent)"
    cap = work.settings.games_per_day
    if not masters and work.store.games_created_since(sender, work.now - DAY) >= cap:
        work.answers.notice(sender, "not_allowed", reason=(
            f"An address may create at most {cap} game{'s' if cap != 1 else ''} a day "
            f"here, and {sender} has done so; try again tomorrow, or ask the operator "
            "of this moderator to list you as a game master."))
        return "refused: create game (the day's games created)"
    try:
        spec = load_title(command.title)
    except ValueError as exc:
        work.answers.notice(sender, "not_allowed", reason=f"{exc}.")
        return f"refused: create game {command.title}"
    seed = secrets.randbelow(2**31)
    options = []
    for option in command.options:
        name, _, value = option.partition("=")
        if name.lower() == "seed" and value.isdigit():
            seed = int(value)
        else:
            options.append(option)
    why = unknown_options(spec.name, set(options))
    if why is not None:
        work.answers.notice(sender, "not_allowed", reason=f"{why}.")
        return f"refused: create game {command.title} (unknown options)"
    game_id = work.store.create_mail_game(spec.name, sender, options, seed, work.now)
    work.store.add_member(game_id, sender, "master", MASTER_KEY, status="active",
                          now=work.now)
    work.game_id = game_id
    work.answers.notice(sender, "created", game_id=game_id, key=MASTER_KEY, title=spec.name,
                        players_min=spec.players_min, players_max=spec.players_max)
    return f"created {game_id}"


def observe(work: Work, sender: str, game: str) -> str:
    """`observe ID`: follow a game without a seat -- with the game master's consent.

    Game ids are easy to guess, so a stranger's request goes to the game master, who
    answers `invite ADDRESS as observer`; an address so invited gets the confirmation
    (reply `join`) again when it asks."""
    store = work.store
    game_id = store.canonical_game_id(game)
    if game_id is None:
        work.answers.notice(sender, "no_game", games=games_of(store, sender),
                            titles=available_titles())
        return f"refused: observe {game} (no such game)"
    mail_game = store.mail_game(game_id)
    title = mail_game.title if mail_game else store.game_row(game_id).title
    invited = [m for m in store.members(game_id)
               if m.address == sender and m.role == "observer"]
    if invited:
        work.answers.notice(sender, "observe", game_id=game_id, key=invited[0].key,
                            title=title)
        return f"observe {game_id}: confirmation sent"
    if mail_game is None:
        work.answers.notice(sender, "not_allowed", reason=(
            f"{game_id} is not run by mail: it takes no observers."))
        return f"refused: observe {game_id} (not a mail game)"
    # Each request mails a third party (the game master): once per address and game,
    # a few a day per game, one per mail.
    store = work.store
    if store.observe_requested(game_id, sender):
        work.answers.notice(sender, "not_allowed", reason=(
            f"You asked to observe {game_id} before; its game master decides, and will "
            "invite you if they agree."))
        return f"refused: observe {game_id} (asked before)"
    if work.asked_a_third_party or store.observe_requests_since(
            game_id, work.now - DAY) >= OBSERVE_REQUESTS_PER_DAY:
        work.answers.notice(sender, "not_allowed", reason=(
            f"The game master of {game_id} has had as many requests to observe as they "
            "get in a day (or your mail asked for more than one game); try again tomorrow."))
        return f"refused: observe {game_id} (requests capped)"
    work.asked_a_third_party = True
    store.request_observe(game_id, sender, work.now)
    work.answers.notice(mail_game.master, "observe_request", game_id=game_id,
                        key=MASTER_KEY, address=sender)
    work.answers.notice(sender, "observe_asked", game_id=game_id, title=title)
    return f"observe {game_id}: the game master is asked"


# -- a game that has not started ------------------------------------------------------------
def lobby(work: Work, game_id: str, auth: Auth) -> str:
    """A member's mail to a game in set-up: all its lines, or none."""
    store = work.store
    mail_game = store.mail_game(game_id)
    assert mail_game is not None and work.incoming.sender is not None
    spec = load_title(mail_game.title)
    members = store.members(game_id)
    seats = [m.seat for m in members if m.role == "player" and m.seat]
    submission = parse_submission(work.incoming.text, names_for_title(spec, seats))
    roles: set[Role] = {m.role for m in auth.rows}
    results: list[LineResult] = []
    sections: list[Section] = []
    started = False
    mark = len(work.answers.mails)
    ok = True
    try:
        with store.transaction():  # a savepoint: all the lines or none
            for header in submission.headers:
                if header.error is not None:
                    raise Refused(header.error.format_error())
            for line in submission.lines:
                if line.error is not None:
                    results.append(LineResult(line.number, line.text, False,
                                              error=line.error.format_error()))
                    raise Refused("")
                said: list[str] = []
                for order in line.orders:
                    try:
                        said.append(lobby_command(work, game_id, auth, roles, order,
                                                  sections))
                    except Refused as exc:
                        results.append(LineResult(line.number, line.text, False,
                                                  error=under(line.text, str(exc))))
                        raise Refused("") from None
                    started = started or isinstance(order, cmd.Start)
                results.append(LineResult(line.number, masked(line.text), True,
                                          tuple(said)))
    except Refused as exc:
        ok = False
        work.answers.drop_after(mark)
        if str(exc):
            results.append(LineResult(0, "", False, error=str(exc)))
    if ok and not results:
        results.append(LineResult(0, "", False, error=(
            "no commands found: write one per line (see `help`)")))
        ok = False
    outcome = Results(ok, tuple(results), applied=False, next_move=None)
    if started and ok:
        return after_change(work, game_id, auth.key, outcome, sections,
                            intro=f"Game {game_id} has started.")
    view = None if started else lobby_view(work, game_id, addresses=auth.is_master)
    work.answers.reply(game_id, auth.key, "report", results=outcome, sections=sections,
                       lobby=view, history=(), subject_text="set-up")
    return f"{game_id} lobby: " + ("ok" if ok else "refused")


def lobby_command(work: Work, game_id: str, auth: Auth, roles: set[Role], order: object,
                  sections: list[Section]) -> str:
    """Do one lobby command; the text under its line. Refused if it cannot be."""
    if isinstance(order, cmd.Password):
        return "password accepted"
    if isinstance(order, cmd.Help):
        sections.append(Section(f"help {order.topic or ''}".strip(), help_answer(order.topic)))
        return "see below"
    if isinstance(order, cmd.Status):
        return "the game's set-up follows"
    if isinstance(order, cmd.Invite):
        if "master" not in roles:
            raise Refused("only the game master may invite players")
        return invite(work, game_id, order)
    if isinstance(order, cmd.Join):
        return join(work, game_id, auth)
    if isinstance(order, cmd.Start):
        if "master" not in roles:
            raise Refused("only the game master may start the game")
        return start(work, game_id)
    if isinstance(order, cmd.Stop):
        return stop_mail(work, work.incoming.sender or "", proven=True)
    if isinstance(order, cmd.Webhook):
        # Set up with the game (issue 19); posted "up to move -1": the report at
        # `start` is posted too.
        if "master" not in roles:
            raise Refused("only the game master may set the game's webhook")
        try:
            answer, _, change = configure(work.store, game_id, -1, order.url, order.form,
                                          work.settings.webhook_allow_private)
        except WebhookRefused as refused:
            raise Refused(str(refused)) from None
        change()  # in the mail's savepoint: undone with the rest if a line is refused
        return answer
    if isinstance(order, cmd.CreateGame):
        raise Refused(f"to create another game, mail `create game {order.title}` in a "
                      f"new mail to {work.settings.address} (not a reply)")
    if isinstance(order, cmd.Command):
        raise Refused(f"`{order.kind.replace('_', ' ')}` is not available before the "
                      "game starts")
    raise Refused(f"the game {game_id} has not started yet: orders come after `start`")


def invite(work: Work, game_id: str, order: cmd.Invite, *, started: bool = False) -> str:
    """Invite an address to a seat (a new seat before the game starts; another
    address for a seat at any time); Refused if it cannot be."""
    address, seat = check_invite(work, game_id, order, started=started)
    mail_game = work.store.mail_game(game_id)
    assert mail_game is not None
    work.store.record_invitation(game_id, address, seat, mail_game.master, work.now)
    if seat == OBSERVER:
        members = work.store.members(game_id)
        key = observer_key(1 + sum(1 for m in members if m.role == "observer"))
        work.store.add_member(game_id, address, "observer", key, now=work.now)
        work.answers.notice(address, "observer_invitation", game_id=game_id, key=key,
                            master=mail_game.master, title=mail_game.title)
        return f"invitation to observe sent to {address}"
    work.store.add_member(game_id, address, "player", seat, seat=seat, now=work.now)
    work.answers.notice(address, "invitation", game_id=game_id, key=seat,
                        master=mail_game.master, title=mail_game.title, seat=seat)
    return f"invitation sent to {address} for the seat {seat}"


def check_invite(work: Work, game_id: str, order: cmd.Invite, *, started: bool
                 ) -> tuple[str, str]:
    """The address and seat an invitation is for, or Refused saying why not."""
    mail_game = work.store.mail_game(game_id)
    if mail_game is None:
        raise Refused(f"{game_id} was not set up by mail: it has no invitations")
    spec = load_title(mail_game.title)
    address = order.address.strip("<>").lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or ("." not in domain and domain != "localhost"):
        raise Refused(f"{order.address!r} is not a mail address")
    if (problem := lookalike_problem(address)) is not None:
        raise Refused(problem)
    observer = order.seat.casefold() == OBSERVER
    if not observer and (problem := seat_name_problem(order.seat)) is not None:
        raise Refused(problem)
    members = work.store.members(game_id)
    seats = {m.seat.lower(): m.seat for m in members if m.role == "player" and m.seat}
    seat = OBSERVER if observer else seats.get(order.seat.lower(), order.seat)
    if observer:
        if any(m.address == address for m in members):
            raise Refused(f"{address} takes part in {game_id} already")
    else:
        _check_seat(spec.name, spec.players_max, seats, seat, started)
        if any(m.address == address and m.role == "player" and m.seat != seat
               for m in members):
            other = next(m.seat for m in members if m.address == address and m.seat)
            raise Refused(f"{address} is invited as {other} already")
    check_invitation_limits(work, game_id, mail_game.master, address)
    return address, seat


def check_invitation_limits(work: Work, game_id: str, master: str, address: str) -> None:
    """Refused unless the service may mail ADDRESS an invitation to GAME_ID from MASTER:
    once per game, never after `stop`, within the caps per game and per master and day."""
    store, settings = work.store, work.settings
    if store.invited_before(game_id, address):
        raise Refused(f"{address} was invited to {game_id} before: an address is invited "
                      "to a game once")
    if store.opted_out(address):
        raise Refused(f"{address} has asked this moderator never to mail it (`stop`)")
    if store.invitations_count(game_id=game_id) >= settings.invitations_per_game:
        raise Refused(f"{game_id} has sent {settings.invitations_per_game} invitations, "
                      "as many as a game may")
    if not store.has_joined_a_game(address) and store.invitations_count(
            to=address, since=work.now - DAY) >= INVITATIONS_TO_A_NEWCOMER_PER_DAY:
        raise Refused(f"{address} has been invited to {INVITATIONS_TO_A_NEWCOMER_PER_DAY} "
                      "games today and has joined none yet; invite them tomorrow")
    if store.invitations_count(master=master, since=work.now - DAY) \
            >= settings.invitations_per_day:
        raise Refused(f"you have sent {settings.invitations_per_day} invitations today, "
                      "as many as a game master may in a day; try again tomorrow")


def _check_seat(title: str, players_max: int, seats: dict[str, str], seat: str,
                started: bool) -> None:
    """Refused unless SEAT may take another address (or be a new seat) now."""
    if started and seat.lower() not in seats:
        raise Refused(f"the game has started: an address can be added only to its "
                      f"seats ({', '.join(seats.values())})")
    if seat.lower() not in seats and len(seats) >= players_max:
        raise Refused(f"{title} takes at most {players_max} players; "
                      f"the seats are {', '.join(seats.values())}")


def join(work: Work, game_id: str, auth: Auth) -> str:
    store = work.store
    rows = [m for m in auth.rows if m.key == auth.key] or list(auth.rows)
    row = rows[0]
    if row.status == "active":
        return "you have joined already"
    store.activate_member(game_id, row.address, row.key, 0)
    if row.role == "observer":
        return f"you follow {game_id} now"
    mail_game = store.mail_game(game_id)
    assert mail_game is not None
    players = [m for m in store.members(game_id) if m.role == "player"]
    joined = sum(1 for m in players if m.status == "active")
    spec = load_title(mail_game.title)
    if mail_game.master != row.address:
        work.answers.notice(mail_game.master, "joined", game_id=game_id, key=MASTER_KEY,
                            seat=row.seat, address=row.address, joined=joined,
                            invited=len(players), players_min=spec.players_min)
    return f"you joined {game_id} as {row.seat}; the game master starts it with `start`"


def start(work: Work, game_id: str) -> str:
    store = work.store
    mail_game = store.mail_game(game_id)
    assert mail_game is not None
    spec = load_title(mail_game.title)
    players = [m for m in store.members(game_id) if m.role == "player"]
    joined = [m.seat for m in players if m.status == "active" and m.seat]
    seats = list(dict.fromkeys(joined))  # a seat may have several addresses
    if len(seats) < spec.players_min:
        waiting = [f"{m.seat} ({m.address})" for m in players if m.status != "active"]
        raise Refused(f"{spec.name} needs at least {spec.players_min} players; "
                      f"{len(seats)} ha{'s' if len(seats) == 1 else 've'} joined"
                      + (f" (waiting for {', '.join(waiting)})" if waiting else ""))
    # The seating is drawn with the game's seed, like every other draw.
    order = random.Random(mail_game.seed).sample(seats, len(seats))
    setup = Setup(spec.name, tuple(order), mail_game.seed, frozenset(mail_game.options))
    try:
        store.create_game(setup, game_id)
    except GameError as exc:
        raise Refused(exc.message) from None
    store.mark_started(game_id, work.now)
    store.create_clock(game_id, work.settings.deadline_hours * 3600)
    absent = [m.seat for m in players if m.status != "active" and m.seat not in seats]
    return (f"the game starts; seating order {', '.join(order)}"
            + (f" ({', '.join(a for a in absent if a)} had not joined)" if absent else ""))


def lobby_view(work: Work, game_id: str, *, addresses: bool) -> Lobby:
    """The game in set-up as its report shows it; with ADDRESSES (for the game master
    only: players and observers see the seats' names)."""
    mail_game = work.store.mail_game(game_id)
    assert mail_game is not None
    spec = load_title(mail_game.title)
    seats = tuple(LobbySeat(m.seat or "", m.address if addresses else "",
                            m.status == "active")
                  for m in work.store.members(game_id) if m.role == "player")
    return Lobby(game_id, spec.name, mail_game.master if addresses else "", seats,
                 spec.players_min, spec.players_max)
