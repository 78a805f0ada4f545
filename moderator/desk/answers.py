"""Composing what goes back: replies, notices, and reports to every member.

`Answers` renders each mail as it is decided (templates/ via `moderator.reports`) and
keeps it until the transaction's end, when `queue` puts all of them into the outbox.
A reply is threaded under the mail it answers; every mail of a game refers to one
root id, so mail programs keep a game in one thread.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from moderator.desk.auth import stop_address, stop_token, tag_address
from moderator.desk.deadlines import format_deadline, policy_text
from moderator.desk.games import PictureCache
from moderator.desk.later import late_entries
from moderator.desk.settings import ProcessorSettings
from moderator.desk.webhooks import hook, set_hook, summary_lines
from moderator.mail.compose import (
    Attachment,
    MailKind,
    OutgoingMail,
    Picture,
    compose,
    message_id_for,
    qp_size,
)
from moderator.mail.parse import Incoming
from moderator.mail.webhook import Post
from moderator.reports.calendar import deadline_event
from moderator.reports.charts import CHARTS_CID, Progress, chart_png
from moderator.reports.crop import neighbourhood, overview_png, region_pngs, regions
from moderator.reports.lays import Lays, lay_costs, lays_text, legal_lays
from moderator.reports.marketimage import MARKET_CID, report_market
from moderator.reports.report import (
    MAP_CID,
    HistoryEntry,
    Position,
    Results,
    Section,
    Tables,
    position,
    region_cid,
    render,
    render_tables,
    replay_history,
    section_cid,
)
from moderator.reports.stations import TokenPlace, legal_places, places_text
from moderator.store import Member, Store

__all__ = ["MAX_HISTORY", "Answers", "Footer", "Lobby", "LobbySeat", "bounce_reason", "history",
           "undeliverable_lines"]

log = logging.getLogger(__name__)

#: A report shows at most this many past moves; `history N` shows more.
MAX_HISTORY = 100
#: What a report should stay under (issues 19 and 33), in bytes on the wire.
REPORT_LIMIT = 60_000
#: The most a report's part of the map may weigh at first (PNG bytes; a third more in
#: the mail). When the report would still pass REPORT_LIMIT, its part is chosen again
#: within what the rest leaves (`map_choice`'s BUDGET): a smaller part, and where none
#: is small enough the board reduced to a phone's width (`overview_png`).
MAP_PART_BUDGET = 40_000
#: Rings of neighbours round a laying company's stations whose legal lays a report's
#: part still shows when all its lays would weigh too much.
NEAR_LAYS = 2

_NOTICE_KINDS: dict[str, MailKind] = {
    "invitation": "invitation", "observer_invitation": "invitation",
    "observe_request": "notice", "joined": "report", "auth_failed": "notice",
    "held": "notice", "replaced": "notice"}
_NOTICE_SUBJECTS = {
    "created": "game created", "invitation": "invitation", "joined": "a player joined",
    "observe": "observe", "auth_failed": "a mail in your name was refused", "help": "help",
    "held": "your orders sent ahead", "replaced": "you were replaced",
    "observe_request": "a request to observe", "observe_asked": "observe",
    "observer_invitation": "invitation to observe", "stopped": "no more mail",
    "stop_confirm": "no more mail: please confirm",
}


@dataclass(frozen=True, slots=True)
class Footer:
    """What the foot of every mail says: where to write, the move, the password."""

    moderator: str
    game_id: str | None = None
    next_move: int | None = None
    token: str | None = None
    plus_addressing: bool = True
    stop: str | None = None  # where the reader writes `stop` (their own token in it)


@dataclass(frozen=True, slots=True)
class LobbySeat:
    seat: str
    address: str
    joined: bool


@dataclass(frozen=True, slots=True)
class Lobby:
    """A game in set-up, as its report shows it."""

    game_id: str
    title: str
    master: str
    seats: tuple[LobbySeat, ...]
    players_min: int
    players_max: int


def _clock(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%d %b %H:%M")


def history(store: Store, game_id: str, game: Game, start: int, limit: int = MAX_HISTORY
            ) -> tuple[HistoryEntry, ...]:
    """The moves from START (at most LIMIT of the last ones) as the log recorded them."""
    start = max(start, game.next_move - limit)
    logged = store.logged_moves(game_id, start)
    if any(m.said is None for m in logged):
        return replay_history(game, start, game.next_move)
    return tuple(HistoryEntry(m.number, m.move.seat, m.said or ()) for m in logged)


class Answers:
    """The mails one unit of work sends, rendered and kept until the commit."""

    def __init__(self, store: Store, settings: ProcessorSettings, incoming: Incoming,
                 now: float, pictures: PictureCache | None = None) -> None:
        self.store = store
        self.pictures = pictures if pictures is not None else PictureCache()
        self.settings = settings
        self.incoming = incoming
        self.now = now
        self.mails: list[OutgoingMail] = []
        # Whether answers count against the sender's budget: they do unless the mail
        # proved a seat (or the clock, not a mail, is the cause).
        self.budgeted = True
        self._positions: dict[tuple[str, int], Position] = {}
        # Games that ended with this work: the attachments everyone's last report carries.
        self.final: dict[str, tuple[Attachment, ...]] = {}
        self._charts: dict[tuple[str, int], tuple[Progress, Picture]] = {}
        self._lays: dict[tuple[str, int], Lays] = {}
        self._markets: dict[tuple[str, int], Picture] = {}
        # Who asked for the whole map (`status`, `map`): their answer carries it.
        self.whole_map: set[str] = set()
        # Summaries for the games' webhooks, handed to the sender after the commit.
        self.posts: list[Post] = []

    # -- to the sender ---------------------------------------------------------------------
    def reply(self, game_id: str, key: str | None, template: str, *, results: Results,
              sections: list[Section], game: Game | None = None, lobby: Lobby | None = None,
              history: tuple[HistoryEntry, ...] | None = None, intro: str | None = None,
              subject_text: str | None = None) -> None:
        """The answer to the sender: per-line results, and the report when there is one."""
        sender = self.incoming.sender
        assert sender is not None
        if self.store.clear_undeliverable(sender):
            # It mails again: it may receive again (a bounce of this reply marks it anew).
            log.info("%s mailed again: its mail goes out again", sender)
        # Without an explicit HISTORY the reply is the sender's full report: what
        # happened since their last one, which it then counts as.
        full_report = history is None and game is not None
        if history is None and game is not None:
            member_rows = [m for m in self.store.members(game_id) if m.address == sender]
            since = min((m.reported_move for m in member_rows), default=game.next_move)
            history = (late_entries(self.store, game_id, sender, since)
                       + self.history(game_id, game, since))
        self.mail(sender, template, "reply", game_id=game_id, key=key, game=game,
                  subject_text=subject_text,
                  you=self.seat_of(game_id, sender, game) if game else None,
                  results=results, sections=tuple(sections), lobby=lobby,
                  history=history or (), intro=intro)
        if full_report and game is not None:
            self.store.set_reported(game_id, sender, game.next_move, game.round_name)

    def notice(self, to: str, kind: str, *, game_id: str | None = None,
               key: str | None = None, **context: Any) -> None:
        """A short mail from templates/notice.*: an answer to the sender, or (for
        `invitation`, `joined`, `auth_failed`) a mail to someone else."""
        # A notice to the mail's own sender answers their mail: it is threaded under it
        # (a member who wrote without the password is told so in answer to that mail).
        mail_kind: MailKind = ("reply" if to == self.incoming.sender
                               else _NOTICE_KINDS.get(kind, "reply"))
        self.mail(to, "notice", mail_kind, game_id=game_id, key=key,
                  subject_text=_NOTICE_SUBJECTS.get(kind, "your mail"), kind=kind,
                  **context)

    # -- to every member -------------------------------------------------------------------
    def broadcast(self, game_id: str, game: Game, intro: str | None,
                  skip: str | None = None) -> None:
        """A report to every member but SKIP (the sender, who has the reply)."""
        reported = {skip}
        for member in self.store.members(game_id):
            if member.status != "active" or member.address in reported:
                continue
            reported.add(member.address)
            self.report(game_id, member, game, intro=intro)
        self.webhook_post(game_id, game)

    def webhook_post(self, game_id: str, game: Game) -> None:
        """The summary of this report for GAME_ID's webhook, if it has one: the headline
        and the moves since its last post (kept in the store with the hook, in this
        transaction; the post itself goes out after the commit)."""
        found = hook(self.store, game_id)
        if found is None or found.posted == game.next_move:
            return
        # A log shorter than at the last post (a game replaced by the operator), or
        # the first post (a webhook set before `start`): where the game is now, no moves.
        entries = (self.history(game_id, game, found.posted)
                   if 0 <= found.posted < game.next_move else ())
        view = self.position(game_id, game).view
        self.posts.append(Post(
            game_id=game_id, url=found.url, kind=found.kind,
            headline=self.position(game_id, game).headline,
            lines=summary_lines([e.line for e in entries if e.lines]), move=game.next_move,
            to_move=None if view.game_over else view.acting_seat, game_over=view.game_over,
            moderator=self.settings.name, addresses=found.addresses))
        set_hook(self.store, game_id, dataclasses.replace(found, posted=game.next_move))

    def committed(self) -> None:
        """After the commit: hand the webhook posts to the service's sender."""
        notify = self.settings.notify
        if notify is not None:
            for post in self.posts:
                notify(post)
        self.posts.clear()

    def report(self, game_id: str, member: Member, game: Game, intro: str | None) -> None:
        """The position and what happened since MEMBER's last report -- unless MEMBER
        reads a digest (one report per round) or only their own turns, and this is
        neither a new round nor their turn nor the end."""
        if not self.wants_report(game_id, member.address, game):
            return
        if self.store.undeliverable(member.address):
            # Its mail bounced for good: its report marks stay where they are, so its
            # next answer (when it mails again) carries what it missed.
            return
        key = self.key_for(game_id, member.address)
        self.mail(member.address, "report", "report", game_id=game_id, key=key,
                  game=game, you=self.seat_of(game_id, member.address, game),
                  history=late_entries(self.store, game_id, member.address,
                                       member.reported_move)
                  + self.history(game_id, game, member.reported_move),
                  results=None, sections=(), lobby=None, intro=intro)
        self.store.set_reported(game_id, member.address, game.next_move, game.round_name)

    def wants_report(self, game_id: str, address: str, game: Game) -> bool:
        reports = self.store.preferences(address).reports
        turn = game.turn()
        if reports == "all" or game_id in self.final or turn is None:
            return True
        if self.seat_of(game_id, address, game) == turn.seat:
            return True
        return reports == "digest" and self.store.reported_round(
            game_id, address) != game.round_name

    # -- who is who --------------------------------------------------------------------------
    def history(self, game_id: str, game: Game, start: int, limit: int = MAX_HISTORY
                ) -> tuple[HistoryEntry, ...]:
        return history(self.store, game_id, game, start, limit)

    def key_for(self, game_id: str, address: str) -> str | None:
        """The key of ADDRESS's membership its mails carry: its seat, else gm, else obs."""
        rows = [m for m in self.store.members(game_id) if m.address == address]
        for role in ("player", "master", "observer"):
            for m in rows:
                if m.role == role:
                    return m.key
        return None

    def seat_of(self, game_id: str, address: str, game: Game) -> str | None:
        for m in self.store.members(game_id):
            if m.address == address and m.role == "player" and m.seat in game.setup.seats:
                return m.seat
        return None

    # -- one mail ------------------------------------------------------------------------------
    def mail(self, to: str, template: str, mail_kind: MailKind, *, game_id: str | None,
             key: str | None, game: Game | None = None, subject_text: str | None = None,
             subject: str | None = None, **context: Any) -> None:
        """Render one mail to TO and keep it for the transaction's end.

        A `reply` answers the incoming mail: it is threaded under it. Nothing goes to
        an address that said `stop`. Replies and notices caused by mail that proved no
        seat spend a budget per mailbox (the recipient's, and the sender's when it goes
        to a third party); reports and invitations do not (they come from a game's own
        progress or its authenticated game master)."""
        settings = self.settings
        kind = mail_kind
        if self.store.opted_out(to):
            log.info("not mailing %s: it asked for no mail (`stop`)", to)
            return
        if kind in ("reply", "notice") and self.budgeted:
            sender = self.incoming.sender
            if sender is not None and to != sender:
                # A mail to a third party caused by a stranger's mail spends the
                # stranger's budget too: nobody makes the service write others at will.
                if not self.may_answer(sender):
                    log.warning("not mailing %s for %s: its budget is spent", to, sender)
                    return
                self.store.count_answer(sender, self.now)
            if not self.may_answer(to):
                log.warning("not answering %s: %d answers in the last hour already; "
                            "held back for the next mail's summary", to,
                            settings.replies_per_hour)
                self.store.withhold(to, self.now)
                return
            self.store.count_answer(to, self.now)
        context["withheld"] = (self.withheld_note(to)
                               if not any(m.to == to for m in self.mails) else None)
        token = settings.token(game_id, key) if game_id and key else None
        pos = self.position(game_id, game) if game is not None and game_id else None
        footer = Footer(settings.address, game_id, pos.view.next_move if pos else None,
                        token, settings.plus_addressing, self.stop_address(to))
        if game_id:
            state = pos.headline if pos else (subject_text or "")
            results = context.get("results")
            if isinstance(results, Results) and not results.ok:
                state = f"refused: {state}" if state else "refused"
            tag = f"{game_id} {token}" if token and not settings.plus_addressing else game_id
            subject = f"[{tag}] {state}".strip()
        elif subject is None:  # SUBJECT: a mail of no game that is no answer (standings)
            subject = f"Re: {self.incoming.subject}" if self.incoming.subject else (
                "18xx moderator")
        reply_to = (tag_address(settings.address, game_id, key, token)
                    if game_id and key and token and settings.plus_addressing
                    else settings.address)
        context.setdefault("intro", None)
        images: tuple[Picture, ...] = ()
        attachments: tuple[Attachment, ...] = ()
        whole_map = to in self.whole_map
        if game_id and template == "report":
            context["tournament"] = self.tournament_line(game_id)
            context["undelivered"] = undeliverable_lines(self.store, game_id)
        maps: tuple[Picture, ...] = ()
        if game is not None and game_id and template == "report":
            maps, context["map_note"] = self.map_choice(game_id, game, to, whole_map)
            images = maps
            context["deadline"], attachments = self.deadline_for(game_id, game, to)
            attachments += self.final.get(game_id, ())
            turn = game.turn()
            if turn is not None and turn.step == "track" \
                    and turn.seat == context.get("you") and isinstance(game.round, OperatingRound):
                # The player to lay track sees every legal lay: no guessing by mail.
                lays = self.lays(game_id, game)
                context["lays"] = lays_text(game.state.title, lays, lay_costs(game, lays))
            if turn is not None and turn.step in ("track", "token") \
                    and turn.seat == context.get("you") and isinstance(game.round, OperatingRound):
                # And every station it may place, with its price (issue 30).
                context["stations"] = places_text(game.state.title,
                                                  self.stations(game_id, game)) or None
            context["progress"], charts = self.charts_for(game_id, game, to)
            images += charts
            images += self.market_for(game_id, game, to, whole_map)
            images += tuple(
                Picture(section_cid(n), f"{game_id}-section-{n}.png", section.picture)
                for n, section in enumerate(context.get("sections", ()), 1)
                if section.picture is not None)
        market_cid = MARKET_CID if any(i.cid == MARKET_CID for i in images) else None
        tables = (self.tables(game_id, game, market_cid)
                  if game is not None and game_id and template == "report" else None)
        def rendered() -> tuple[str, str]:
            return render(template, subject=subject, footer=footer, pos=pos,
                          game_id=game_id,
                          map_cid=MAP_CID if any(i.cid == MAP_CID for i in images) else None,
                          map_regions=tuple(
                              (region_cid(n), f"Region {n}: {region.label}")
                              for n, region in enumerate(regions(game.state.title), 1)
                              if any(i.cid == region_cid(n) for i in images))
                          if game is not None else (),
                          market_cid=market_cid, tables=tables, **context)

        text, html = rendered()
        over = _wire_size(text, html, images) - REPORT_LIMIT
        if over > 0 and game is not None and game_id and len(maps) == 1 \
                and not whole_map:
            # The map's part is what gives way: chosen again within what the rest
            # leaves (issue 33: 1861's long texts beside a part of 48 KB).
            budget = len(maps[0].png) - (over * 3 + 3) // 4 - 1
            smaller, note = self.map_choice(game_id, game, to, whole_map, budget=budget)
            if sum(len(i.png) for i in smaller) >= len(maps[0].png):
                # Nothing smaller shows it (a stock round's part beside the market's
                # picture): left out rather than a report over the limit (issue 33).
                smaller, note = (), ("The map is left out of this report: with it the "
                                     "mail would pass 60 KB; mail `map` for it.")
            images = smaller + images[len(maps):]
            context["map_note"] = note
            text, html = rendered()
        # Every mail of a game refers to one (never sent) root id, so mail programs
        # keep the game in one thread; an answer is threaded under the mail it answers.
        root = f"<{game_id}.thread@{settings.domain}>" if game_id else None
        answer = kind == "reply"
        in_reply_to = self.incoming.message_id if answer else root
        references: list[str] = [root] if root else []
        if answer:
            references += [r for r in self.incoming.references if r != root]
            if self.incoming.message_id:
                references.append(self.incoming.message_id)
        self.mails.append(OutgoingMail(
            kind=kind, to=to, subject=subject, text=text, html=html,
            to_name=self.incoming.sender_name if to == self.incoming.sender else "",
            reply_to=reply_to, in_reply_to=in_reply_to, references=tuple(references),
            game_id=game_id, next_move=pos.view.next_move if pos else None, images=images,
            attachments=attachments,
            text_only=self.store.preferences(to).format == "text"))

    def tournament_line(self, game_id: str) -> str | None:
        """For a tournament table's reports: which tournament, heat and table it is."""
        table = self.store.tournament_table(game_id)
        tournament = self.store.tournament(table.tournament) if table else None
        if table is None or tournament is None:
            return None
        stage = "the final" if table.heat > tournament.heats else f"heat {table.heat}"
        return (f"Tournament {tournament.name}, {stage}, table {table.number}. Standings: "
                f"mail `standings {tournament.name}`.")

    def deadline_for(self, game_id: str, game: Game, to: str
                     ) -> tuple[str | None, tuple[Attachment, ...]]:
        """The running turn's deadline in TO's time zone with the timeout policy; for the
        player who owes the move the calendar event of their deadline, and for a player
        whose turn has passed the cancellation of theirs. One event per game and seat,
        its SEQUENCE raised whenever it changes, so a calendar never holds two."""
        clock = self.store.clock(game_id)
        turn = game.turn()
        seat = self.seat_of(game_id, to, game)
        running = (clock is not None and clock.ended is None and turn is not None
                   and clock.seat is not None)
        if not running or clock is None or clock.seat is None or turn is None:
            return None, self._cancelled(game_id, seat)
        policy = f"At the deadline: {policy_text(clock.timeout)}."
        if clock.paused is not None or clock.deadline is None:
            return f"The game is paused: no deadline runs. {policy}", \
                self._cancelled(game_id, seat)
        zone = self.store.preferences(to).timezone
        when = format_deadline(clock.deadline, zone, now=self.now)
        text = f"{clock.seat} must move by {when}. {policy}"
        if seat != clock.seat:
            return text, self._cancelled(game_id, seat)
        sent = self.store.calendar_event(game_id, seat)
        sequence = 0 if sent is None else sent[0] + (sent[1] != clock.deadline)
        self.store.set_calendar_event(game_id, seat, sequence, clock.deadline)
        event = deadline_event(
            game_id=game_id, seat=seat, deadline=clock.deadline,
            now=self.now, sequence=sequence,
            summary=f"{game_id}: your move as {seat}",
            description=f"{turn.step} in {game.round_name}. {policy}",
            organizer=self.settings.address)
        return text, (Attachment(f"{game_id}-deadline.ics", "text/calendar", event),)

    def _cancelled(self, game_id: str, seat: str | None) -> tuple[Attachment, ...]:
        """The cancellation of SEAT's deadline event, if one is in their calendar."""
        if seat is None:
            return ()
        sent = self.store.calendar_event(game_id, seat)
        if sent is None or sent[1] is None:
            return ()
        sequence = sent[0] + 1
        self.store.set_calendar_event(game_id, seat, sequence, None)
        event = deadline_event(
            game_id=game_id, seat=seat, deadline=sent[1], now=self.now, sequence=sequence,
            summary=f"{game_id}: your move as {seat} (done)",
            description="Your turn has passed: this deadline no longer runs.",
            organizer=self.settings.address, cancel=True)
        return (Attachment(f"{game_id}-deadline.ics", "text/calendar", event),)

    def map_choice(self, game_id: str, game: Game, to: str, whole: bool,
                   budget: int = MAP_PART_BUDGET
                   ) -> tuple[tuple[Picture, ...], str | None]:
        """The map a report to TO carries, and what the report says of it: the whole map
        when asked for (`status`, `map`), in TO's first report and at the end; nothing
        when TO's last report showed this very position (a refusal, `legal`); to the
        player whose company is to lay track, the part of the map where it may lay (its
        stations, its legal lays, what changed); to others the part that changed since
        their last report, or nothing when no hex changed (a share bought, a run). A part
        is at full scale, so a phone shows its names and revenues. A part weighing more
        than BUDGET (PNG bytes) gives way to the next smaller one (for the company to lay
        track: its stations and the lays near them, then its stations), and where none
        fits to the board reduced to a phone's width."""
        # Whatever this report shows of the map, TO's next is measured against this
        # board (each report counts as TO's last).
        self.pictures.remember_board(game_id, game)
        rows = [m for m in self.store.members(game_id) if m.address == to]
        since = min((m.reported_move for m in rows), default=game.next_move)
        turn = game.turn()
        first = self.store.reported_round(game_id, to) is None  # never had a report
        if whole or first or game_id in self.final:
            return self.whole_board(game_id, game, to)
        if since >= game.next_move:  # TO's last report showed this very position
            # (an ended game's too: its final report had the whole board, and a mail
            # to it after the end is not given the board again: 245 KB in 1861)
            return (), "The map is as in your last report; mail `map` for it again."
        if turn is None:
            return self.whole_board(game_id, game, to)
        changed = self.pictures.changed(game_id, game, since)
        laying = (turn.step == "track" and turn.seat == self.seat_of(game_id, to, game)
                  and isinstance(game.round, OperatingRound))
        title = game.state.title
        lays: set[str] = set()
        stations: set[str] = set()
        if laying:
            stations = {hex_id for hex_id, cities in game.state.board.tokens.items()
                        if any(turn.entity in tokens for tokens in cities.values())}
            lays = set(self.lays(game_id, game))
            near = lays & neighbourhood(title, stations, NEAR_LAYS)
            # When what changed since TO's last report (after a stock round: a whole
            # operating round's track) would make the part most of the board, it is
            # left out rather than send the whole map: the lay is decided by the
            # company's stations and lays (issue 19: a report under 60 KB). A company
            # whose track reaches across the board (1861's) has lays all over it: then
            # the part shows those near its stations (all are listed in the text).
            choices = [set(changed) | stations | lays, stations | lays, lays or stations,
                       stations | near, stations]
        elif changed:
            choices = [set(changed)]
        else:
            return (), (f"The map has not changed since your report of move {since}; "
                        "mail `map` for it.")
        whole_map = self.map_for(game_id, game, to)
        part: bytes | None = None
        where: set[str] = set()
        weight = 0.0  # bytes a shown hex weighed in the last part too large (0: none yet)
        for where in choices:
            shown = len(neighbourhood(title, where))
            if weight * shown > 1.25 * budget:
                # Surely too large as well (a part weighs about as many bytes a hex as
                # the last): not cut, which costs 0.1-0.2 s for a part of most of the board.
                continue
            cut = self.pictures.part(whole_map, title, where)
            if cut is not None and len(cut) <= budget:
                part = cut
                break
            if cut is not None:
                weight = len(cut) / max(shown, 1)
        if part is None:
            if len(whole_map.png) <= budget:
                return (whole_map,), None
            overview = self.pictures.by_content(
                ("overview", title.name, whole_map.png),
                lambda: overview_png(whole_map.png, title, self.pictures.image(whole_map),
                                     framed=False))
            outlined = f" (outlined: {', '.join(sorted(changed))})" if changed else ""
            return (Picture(whole_map.cid,
                            whole_map.filename.replace(".png", "-overview.png"), overview),), (
                f"The whole board reduced to a phone's width{outlined}: a part at full "
                "scale would be too large a mail; mail `map` for the board at full scale.")
        if laying:
            left_out = sorted(set(changed) - where)
            lays_shown = ("the hexes of its legal lays" if lays <= where
                          else "the hexes of its legal lays near them (all are listed below)"
                          if where & lays else "none of its lays (they are listed below)")
            note = (f"The part of the map where {turn.entity} may lay track: its "
                    f"stations and {lays_shown}, with their neighbours"
                    + (f" (also changed since your report of move {since}: "
                       f"{', '.join(left_out)})" if left_out else "")
                    + "; mail `map` for the whole map.")
        else:
            note = (f"The part of the map that changed since your report of move {since} "
                    f"(outlined: {', '.join(sorted(changed))}); mail `map` for the whole "
                    "map.")
        return (Picture(whole_map.cid, whole_map.filename.replace(".png", "-part.png"),
                        part),), note

    def whole_board(self, game_id: str, game: Game, to: str
                    ) -> tuple[tuple[Picture, ...], str]:
        """The whole board as a phone can read it (issue 30, item 7): an overview a
        phone's width with each region framed and numbered, then the board at full
        scale in bands of whole columns each no wider than a phone
        (`moderator.reports.crop.regions`). Cut once per map however many readers."""
        whole_map = self.map_for(game_id, game, to)
        title = game.state.title
        overview, parts = self.pictures.by_content(
            ("regions", title.name, whole_map.png),
            lambda: (overview_png(whole_map.png, title), region_pngs(whole_map.png, title)))
        stem = whole_map.filename.removesuffix(".png")
        pictures = (Picture(whole_map.cid, f"{stem}-overview.png", overview),
                    *(Picture(region_cid(n), f"{stem}-region-{n}.png", png)
                      for n, png in enumerate(parts, 1)))
        labels = [f"{n}: {region.label}" for n, region in enumerate(regions(title), 1)]
        note = (f"The whole board: an overview with its {len(labels)} regions numbered, "
                f"then each region at full scale ({', '.join(labels)}).")
        return pictures, note

    def lays(self, game_id: str, game: Game) -> Lays:
        """The legal tile lays of the company to move, found once per position."""
        key = (game_id, game.next_move)
        if key not in self._lays:
            self._lays[key] = self.pictures.shown("lays", game_id, game,
                                                  lambda: legal_lays(game))
        return self._lays[key]

    def stations(self, game_id: str, game: Game) -> tuple[TokenPlace, ...]:
        """The station placements of the company to move, judged once per position for
        every mail and reader that shows them (issue 33: ~25 ms in late 1861)."""
        return self.pictures.shown("stations", game_id, game, lambda: legal_places(game))

    def charts_for(self, game_id: str, game: Game, to: str
                   ) -> tuple[Progress | None, tuple[Picture, ...]]:
        """How the game is going (net worths, share prices after each stock round), for
        TO's first report after a stock round and the last report: made once per mail,
        by replaying the log."""
        after_stock_round = (isinstance(game.round, OperatingRound)
                             and game.round_name.endswith(".1")
                             and self.store.reported_round(game_id, to) != game.round_name)
        if not (after_stock_round or game.turn() is None or game_id in self.final):
            return None, ()
        key = (game_id, game.next_move)
        if key not in self._charts:
            # Across mails too: a replay of the whole log, for every reader behind.
            self._charts[key] = self.pictures.shown("charts", game_id, game,
                                                    lambda: self._chart(game_id, game))
        data, picture = self._charts[key]
        return data, (picture,)

    def _chart(self, game_id: str, game: Game) -> tuple[Progress, Picture]:
        # The values replayed only since the last position; between stock rounds they
        # stay the same, and so does their picture.
        data = self.pictures.progress(game_id, game)
        png = self.pictures.by_content(("charts", game.state.title.name, data),
                                       lambda: chart_png(game, data))
        return data, Picture(CHARTS_CID, f"{game_id}-progress-move-{game.next_move}.png",
                             png)

    def market_for(self, game_id: str, game: Game, to: str, whole: bool
                   ) -> tuple[Picture, ...]:
        """The stock market picture, where a player decides by it: in TO's first report
        of a stock round and whenever TO is to move in one, at the end, and when TO asked
        for the whole position (`status`, `map`). Other reports list the market as a
        table: a picture in every report of a stock round doubles a typical mail, and
        one in the first report after a stock round, beside the charts and the map, made
        it twice the 60 KB a report should stay under (issue 19). Never while no token
        is on the market. Made once per position however many mails carry it."""
        turn = game.turn()
        new_round = self.store.reported_round(game_id, to) != game.round_name
        stock = isinstance(game.round, StockRound)
        to_move = turn is not None and turn.seat == self.seat_of(game_id, to, game)
        wanted = (whole or (stock and (new_round or to_move))
                  or turn is None or game_id in self.final)
        if not wanted or not any(game.state.market.stacks.values()):
            # A market with no token on it tells nothing (issue 30: a full-screen
            # picture of empty spaces went out in stock round 1).
            return ()
        key = (game_id, game.next_move)
        if key not in self._markets:
            # The picture is made of the title and the tokens in their stacks: in a
            # stock round most moves leave them as they are.
            market = game.state.market
            drawn = self.pictures.by_content(
                ("market", game.state.title.name,
                 tuple(sorted((pos, tuple(stack)) for pos, stack in market.stacks.items()
                              if stack)),
                 any(corp.par_price is None for corp in game.state.corporations.values())),
                lambda: report_market(game))
            self._markets[key] = Picture(
                MARKET_CID, f"{game_id}-market-move-{game.next_move}.png", drawn)
        return (self._markets[key],)

    def map_for(self, game_id: str, game: Game, to: str) -> Picture:
        """The map for TO's report, outlining what changed since their last report;
        drawn once per position and starting move however many readers and mails share
        them (`PictureCache`)."""
        rows = [m for m in self.store.members(game_id) if m.address == to]
        since = min((m.reported_move for m in rows), default=game.next_move)
        return self.pictures.map_for(game_id, game, since)

    def tables(self, game_id: str, game: Game, market_cid: str | None) -> Tables:
        """The report's tables of the position, with the market's picture or without
        (`render_tables`): rendered once for every reply and report that shows them
        -- under a burst, the refusals and the batch's reports at one position."""
        return self.pictures.shown(f"tables {market_cid!r}", game_id, game,
                                   lambda: render_tables(self.position(game_id, game),
                                                         market_cid))

    def position(self, game_id: str, game: Game) -> Position:
        """The report's view of the game, made once per position however many mails
        show it."""
        key = (game_id, game.next_move)
        if key not in self._positions:
            self._positions[key] = self.pictures.shown("position", game_id, game,
                                                       lambda: position(game_id, game))
        return self._positions[key]

    def may_answer(self, to: str) -> bool:
        """Whether TO's budget of answers to mail that proved no seat has room."""
        return self.store.answers_since(to, self.now - 3600) < self.settings.replies_per_hour

    def withheld_note(self, to: str) -> str | None:
        """What the budget held back from TO, said once in the next mail TO gets."""
        withheld = self.store.take_withheld(to)
        if withheld is None:
            return None
        count, first, last = withheld
        span = (f"at {_clock(first)}" if last - first < 60
                else f"between {_clock(first)} and {_clock(last)}")
        return (f"{count} mail{'s' if count != 1 else ''} from this address (or sent in "
                f"its name) {'were' if count != 1 else 'was'} not answered {span} UTC: "
                f"more than {self.settings.replies_per_hour} mails an hour that proved no "
                "seat came in. Mail that carries your game's password is always answered.")

    def stop_address(self, to: str) -> str:
        """Where TO writes `stop`: with plus-addressing a tag carrying TO's own token;
        without, the moderator's address (the token then goes in the subject)."""
        settings = self.settings
        if settings.plus_addressing:
            return stop_address(settings.address, settings.secret, to)
        return settings.address

    def unsubscribe(self, to: str) -> str:
        """The List-Unsubscribe header for TO (RFC 2369): a mail that proves it is TO's."""
        settings = self.settings
        if settings.plus_addressing:
            return f"<mailto:{self.stop_address(to)}?subject=stop>"
        return (f"<mailto:{settings.address}?subject=stop%20"
                f"{stop_token(settings.secret, to)}>")

    def drop_after(self, mark: int) -> None:
        """Forget the mails kept since MARK (a refused part of a mail sends nothing)."""
        del self.mails[mark:]

    # -- the transaction's end ---------------------------------------------------------------
    def queue(self) -> int:
        """Put every kept mail into the outbox (inside the transaction)."""
        settings = self.settings
        queued = 0
        for serial, mail in enumerate(self.mails):
            message_id = message_id_for(self.incoming.key, mail.kind, mail.to,
                                        settings.domain, mail.game_id, serial)
            raw = compose(mail, sender=settings.address, sender_name=settings.name,
                          message_id=message_id, when=self.now,
                          headers={"List-Unsubscribe": self.unsubscribe(mail.to)})
            if settings.dkim is not None:  # signed once: a retry sends the same bytes
                raw = settings.dkim.sign(raw)
            queued += self.store.queue_mail(
                message_id=message_id, kind=mail.kind, game_id=mail.game_id,
                recipient=mail.to, sender=settings.address, raw=raw,
                cause=self.incoming.key, now=self.now)
        return queued


def undeliverable_lines(store: Store, game_id: str) -> tuple[str, ...]:
    """What a report of GAME_ID says of its members who receive no mail."""
    lines = []
    for member, mark in store.undeliverable_members(game_id):
        who = member.seat or ("The game master" if member.role == "master" else "An observer")
        lines.append(f"{who} ({member.address}) receives no mail: "
                     f"{bounce_reason(mark.status, mark.diagnostic)}. The reports wait "
                     f"until {member.address} mails the moderator again.")
    return tuple(dict.fromkeys(lines))


def bounce_reason(status: str | None, diagnostic: str | None) -> str:
    """Why mail to an address bounced, in a few words for its game's members."""
    if status == "5.2.2" or (diagnostic and "quota" in diagnostic.lower()):
        return "the mailbox is full (5.2.2)" if status else "the mailbox is full"
    if status in ("5.1.1", "5.1.10"):
        return f"no such mailbox ({status})"
    text = (diagnostic or "").strip()
    if len(text) > 120:
        text = text[:119] + "\u2026"
    return f"mail bounced ({status or 'permanent failure'}{': ' + text if text else ''})"


def _wire_size(text: str, html: str, images: tuple[Picture, ...]) -> int:
    """About what a report of TEXT, HTML and IMAGES weighs on the wire: its texts
    quoted-printable (counted exactly: an HTML report's `=` signs made it a fifth
    over its UTF-8, and a 1861 report passed the limit unnoticed), its pictures in
    base64 lines (4 bytes for 3, and a line end every 76), and its headers."""
    pictures = sum(-(-len(i.png) // 57) * 78 + 300 for i in images)
    return qp_size(text) + qp_size(html) + pictures + 1_500
