"""``moderator bench mail``: the service under a burst, measured end to end.

A game in mid-game (a recorded game replayed to move AT) is seated by mail addresses
in a fresh store; the embedded local mail servers (aiosmtpd and pymap) run in a child
process with the burst's SMTP client (`moderator.cli.bench_servers`), as production's
servers run elsewhere, and the daemon in this process; then BURST mails go out at once
through SMTP: every fourth (`--applied-every`) the game's next recorded move (applied),
the others orders from players whose turn it is not (refused with the position).
Measured from each mail's acceptance by SMTP until the moderator handed its answer to
SMTP (the outbox's `sent`): throughput of processed mails per second and the latency
percentiles. The figures are the service's, not a test's: nothing here asserts a time.

With ``--config FILE`` the burst goes through the servers that file configures
instead (`run_configured_burst`): sent by its SMTP server (with its login) to the
moderator's address, read from its IMAP folder, answered through its SMTP server to
the players' addresses (``--players``, a mailbox that takes them), with a fresh
database of the bench's own (never the configuration's). Its folder must hold no
unprocessed mail: a bench answers whatever it finds, so a mailbox of its own is best
(the service must not run on it meanwhile). The latency then includes the
``order_window`` each mail waits.

The wall-clock figures depend on what else the machine runs (the load average is
printed with them); the CPU figures much less: the processor's own CPU per mail (its
thread's time in `Processor.receive`, `process` and `flush_reports`: what a mail costs
the moderator on one core), this process's (the daemon with its IMAP and SMTP clients,
and the bench reading the outbox), and the mail servers' (the child processes).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Any

import click

from engine.game import Game, Move
from engine.records import import_record
from engine.title import load_title
from grammar.format import format_line
from grammar.names import names_for_title
from moderator.cli.bench_replay import FIXTURES, percentile
from moderator.config import Config, ConfigError, ModeratorConfig, load_config
from moderator.desk.auth import MASTER_KEY, make_token
from moderator.desk.games import GameCache
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.mail.endpoints import MailEndpoints
from moderator.mail.inbox import COMMANDS, ImapError, ImapSession, tls_context
from moderator.service import (
    FETCH_BATCH,
    MODERATOR_ADDRESS,
    embedded_config,
    local_mail_module,
    replace_config,
    serve_forever,
)
from moderator.store import Store

__all__ = ["mail_command"]

#: Every this many mails of a burst is the game's next move (the others are refused).
APPLIED_EVERY = 4


@dataclass(frozen=True)
class BurstMail:
    message_id: str
    seat: str
    body: str
    applied: bool  # meant to apply (the game's next recorded move)


@dataclass(frozen=True)
class MailBench:
    mails: int
    seconds: float  # from the first send to the last answer handed to SMTP
    latencies: tuple[float, ...]
    cpu: float  # this process's CPU seconds during the burst (the daemon's, and the
    # bench's reading of the outbox)
    applied: int
    processor_cpu: float  # the processor's CPU seconds (receive and process)
    servers_cpu: float | None  # the mail servers' (child processes'), where /proc tells
    load: tuple[float, float] | None  # the 1-minute load average before and after
    sending: float = 0.0  # seconds from the first send to the last one accepted by SMTP
    imap_commands: tuple[tuple[str, int], ...] = ()  # the moderator's, by name
    appended: int = 0  # mails delivered into the IMAP server (APPEND)
    servers_cpu_sending: float | None = None  # theirs while the burst was sent
    smtp_cpu: float | None = None  # of which the SMTP server's process (not pymap's)
    # Seconds this process's threads were ready to run but waited for a core (Linux's
    # schedstat): what the machine's other work took from the daemon.
    cpu_wait: float | None = None


#: The seats' addresses of a burst through the embedded servers ({n}: the seat's number).
PLAYERS = "seat{n}@bench.test"


def seated_game(store: Store, record: Path, at: int, players: str = PLAYERS,
                master: str = "gm@bench.test") -> tuple[str, dict[str, str], Game]:
    """RECORD replayed to move AT, stored as a started mail game; its id, the seats'
    addresses (PLAYERS with {n} the seat's number), and the whole replayed game (its
    later moves are the burst's)."""
    replay = import_record(json.loads(record.read_text()))
    whole = replay.game
    setup = whole.setup
    addresses = {seat: players.format(n=index) for index, seat in enumerate(setup.seats)}
    # As a game played by mail stores it: each move with what the engine said of it
    # (its reports' history is read, not replayed), every member reported at AT.
    played = Game(setup)
    with played.reading_log():
        said = [tuple(played.apply(move.seat, move.action)) for move in whole.log[:at]]
    now = time.time()
    with store.transaction():
        game_id = store.create_mail_game(setup.title, master, [], setup.seed, now)
        store.add_member(game_id, master, "master", MASTER_KEY, status="active",
                         now=now)
        for seat, address in addresses.items():
            store.add_member(game_id, address, "player", seat, seat=seat, status="active",
                             reported_move=at, now=now)
        store.create_game(setup, game_id)
        store.append(game_id, 0, list(whole.log[:at]), said)
        for address in (master, *addresses.values()):
            store.set_reported(game_id, address, at, played.round_name)
        store.mark_started(game_id, now)
    return game_id, addresses, whole


def burst(game_id: str, whole: Game, at: int, count: int,
          applied_every: int = APPLIED_EVERY) -> list[BurstMail]:
    """COUNT mails: every APPLIED_EVERY-th the next recorded move (none if 0), the rest
    refused orders."""
    names = names_for_title(load_title(whole.setup.title), whole.setup.seats)
    seats = whole.setup.seats
    mails: list[BurstMail] = []
    move = at
    position = Game(whole.setup, whole.log[:at])
    for index in range(count):
        mid = f"<burst{index}.{time.time_ns()}@bench.test>"
        if applied_every and index % applied_every == 0 and move < len(whole.log):
            next_move: Move = whole.log[move]
            text = format_line([next_move.action], names)
            mails.append(BurstMail(mid, next_move.seat, text, True))
            position.apply(next_move.seat, next_move.action)
            move += 1
            continue
        turn = position.turn()
        idle = [s for s in seats if turn is None or s != turn.seat]
        mails.append(BurstMail(mid, idle[index % len(idle)], "lay 57 at H5 rot 2", False))
    return mails


def burst_message(mail: BurstMail, game_id: str, addresses: dict[str, str], to: str,
                  secret: str) -> EmailMessage:
    """MAIL as its player sends it."""
    message = EmailMessage()
    message["From"] = addresses[mail.seat]
    # Recorded seats are named like "Player 1": no address can carry that tag, so the
    # password rides in the mail (as for a player whose program drops it).
    message["To"] = to
    message["Subject"] = f"[{game_id}] orders"
    message["Date"] = formatdate()
    message["Message-ID"] = mail.message_id
    token = make_token(secret, game_id, mail.seat)
    message.set_content(f"password {token}\n{mail.body}\n")
    return message


async def run_burst(workdir: Path, record: Path, at: int, count: int,
                    applied_every: int = APPLIED_EVERY,
                    deliver_answers: bool = False, profile: Path | None = None) -> MailBench:
    """The burst through the real local servers, run in a child process (with the
    burst's SMTP client: `bench_servers`) so that this process is the daemon's alone.
    DELIVER_ANSWERS: the players' mail is put into their mailboxes on the IMAP server
    too (else only the moderator's is, as when the players' mail leaves for other
    servers). PROFILE: write cProfile's statistics of the event loop's thread there
    (the IMAP and SMTP clients and the outbox: all the daemon does besides the
    processing, which runs in worker threads)."""
    import cProfile

    local_mail_module()  # a clear error when the `local` extra is missing
    store_path = workdir / "moderator" / "moderator.sqlite"
    store_path.parent.mkdir(parents=True)
    async with _ServersProcess(workdir / "mail", MODERATOR_ADDRESS,
                               deliver_answers) as servers:
        config = embedded_config(servers.endpoints, store_path.parent)
        config = replace_config(config, imap={"idle": False, "poll_interval": 0.05,
                                              "reconnect_min": 0.1, "reconnect_max": 0.5},
                                smtp={"retry_min": 0.1, "retry_max": 0.5})
        store = Store(config.moderator.database)
        game_id, addresses, whole = seated_game(store, record, at)
        mails = burst(game_id, whole, at, count, applied_every)
        secret = config.moderator.secret
        outgoing = workdir / "burst.json"
        outgoing.write_text(json.dumps([
            [mail.message_id, addresses[mail.seat], config.moderator.address,
             burst_message(mail, game_id, addresses, config.moderator.address,
                           secret).as_bytes().decode("latin-1")] for mail in mails]))
        stop = asyncio.Event()
        processors: list[Processor] = []
        daemon = asyncio.create_task(serve_forever(config, stop, started=processors.append))
        load = _load()
        cpu = time.process_time()
        before = await servers.ask({"stats": True})
        children = _children_cpu()
        waited = _cpu_wait()
        commands = Counter(COMMANDS)
        profiler = cProfile.Profile() if profile is not None else None
        if profiler is not None:
            profiler.enable()
        start = time.time()
        answer = await servers.ask({"send": str(outgoing)})
        sent = {str(mid): float(when) for mid, when in answer["sent"].items()}
        sending = float(answer["sending"])
        delivering = _children_cpu()  # the servers' CPU so far: mostly the delivery
        answered = await _answers(store, sent, timeout=max(60.0, count * 2.0))
        cpu = time.process_time() - cpu
        waited_after = _cpu_wait()
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        commands = Counter(COMMANDS) - commands
        after = await servers.ask({"stats": True})
        appended = int(after["appended"]) - int(before["appended"])
        servers_cpu = (done - children if children is not None
                       and (done := _children_cpu()) is not None else None)
        processor_cpu = sum(p.cpu for p in processors)
        load_after = _load()
        stop.set()
        await asyncio.wait_for(daemon, 30)
        applied = len(store.moves(game_id)) - at
        store.close()
    latencies = tuple(answered[mid] - sent[mid] for mid in sent if mid in answered)
    end = max(answered.values()) if answered else time.time()
    return MailBench(len(latencies), end - start, latencies, cpu, applied, processor_cpu,
                     servers_cpu, (load, load_after) if load is not None
                     and load_after is not None else None, sending,
                     tuple(sorted(commands.items())), appended,
                     delivering - children if delivering is not None
                     and children is not None else None,
                     float(after["cpu"]) - float(before["cpu"]),
                     waited_after - waited if waited is not None
                     and waited_after is not None else None)


async def run_configured_burst(config: Config, workdir: Path, record: Path, at: int,
                               count: int, players: str,
                               applied_every: int = APPLIED_EVERY) -> MailBench:
    """The burst through the servers CONFIG names (see the module's text): the daemon
    in this process on a fresh database under WORKDIR, the players at PLAYERS."""
    import aiosmtplib

    config = replace_config(config, moderator={"database": workdir / "moderator.sqlite"})
    session = ImapSession(config.imap)
    try:
        await session.open()
        waiting = await session.unprocessed()
        await session.logout()
    except ImapError as exc:
        raise click.ClickException(f"IMAP {config.imap.host}:{config.imap.port}: {exc}"
                                   ) from None
    finally:
        session.close()
    if waiting:
        raise click.ClickException(
            f"{config.imap.folder} of {config.imap.user} holds {len(waiting)} unprocessed "
            "mail(s): the bench would answer them from a database of its own. Run it on a "
            "mailbox of its own (or once they are processed), with the service stopped.")
    store = Store(config.moderator.database)
    game_id, addresses, whole = seated_game(store, record, at, players,
                                            master=players.format(n="gm"))
    mails = burst(game_id, whole, at, count, applied_every)
    moderator = config.moderator.address
    messages = [burst_message(mail, game_id, addresses, moderator, config.moderator.secret)
                for mail in mails]
    stop = asyncio.Event()
    processors: list[Processor] = []
    daemon = asyncio.create_task(serve_forever(config, stop, started=processors.append))
    commands = Counter(COMMANDS)
    cpu = time.process_time()
    smtp = config.smtp
    context = (tls_context(str(smtp.ca_file) if smtp.ca_file else None)
               if smtp.tls != "none" else None)
    client = aiosmtplib.SMTP(hostname=smtp.host, port=smtp.port, username=smtp.user,
                             password=smtp.password, use_tls=smtp.tls == "implicit",
                             start_tls=smtp.tls == "starttls", tls_context=context,
                             local_hostname=smtp.helo_name, timeout=smtp.timeout)
    sent: dict[str, float] = {}
    start = time.time()
    try:
        async with client:
            for message, mail in zip(messages, mails, strict=True):
                await client.send_message(message, sender=addresses[mail.seat],
                                          recipients=[moderator])
                sent[mail.message_id] = time.time()
        sending = time.time() - start
        answered = await _answers(store, sent, timeout=max(120.0, count * 2.0))
        cpu = time.process_time() - cpu
        commands = Counter(COMMANDS) - commands
        applied = len(store.moves(game_id)) - at
    finally:
        stop.set()
        await asyncio.wait_for(daemon, 60)
        store.close()
    latencies = tuple(answered[mid] - sent[mid] for mid in sent if mid in answered)
    end = max(answered.values()) if answered else time.time()
    return MailBench(len(latencies), end - start, latencies, cpu, applied,
                     sum(p.cpu for p in processors), None, None, sending,
                     tuple(sorted(commands.items())), 0, None, None, None)


class _ServersProcess:
    """The child process running the local mail servers (`bench_servers`)."""

    def __init__(self, directory: Path, moderator: str, deliver_answers: bool) -> None:
        self.args = [str(directory), moderator] + (["--deliver-answers"]
                                                   if deliver_answers else [])
        self.process: asyncio.subprocess.Process | None = None
        self.endpoints = MailEndpoints("", 0, 0, "")

    async def __aenter__(self) -> _ServersProcess:
        # The child imports the moderator this process runs (a worktree's, say).
        root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join(filter(None, [root,
                                                           os.environ.get("PYTHONPATH")]))}
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "moderator.cli.bench_servers", *self.args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
        hello = await self._read()
        self.endpoints = MailEndpoints(str(hello["host"]), int(hello["imap_port"]),
                                       int(hello["smtp_port"]), str(hello["password"]))
        return self

    async def ask(self, command: dict[str, object]) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write((json.dumps(command) + "\n").encode())
        await self.process.stdin.drain()
        return await self._read()

    async def _read(self) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), 300)
        if not line:
            raise click.ClickException("the bench's mail servers stopped (see their "
                                       "output above)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def __aexit__(self, *exc: object) -> None:
        process = self.process
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()


@dataclass(frozen=True)
class ProcessingBench:
    """The burst through the processor alone (no servers): CPU seconds per mail."""

    applied_cpu: tuple[float, ...]  # of each mail meant to apply
    refused_cpu: tuple[float, ...]  # of each other
    seconds: float  # wall-clock, all of them
    applied: int  # moves the game gained
    queued: int  # mails the burst queued
    first_cpu: float = 0.0  # of the first mail (the game replayed, its board drawn)
    sizes: tuple[int, ...] = ()  # of every mail the processing queued, in bytes
    plates: int = 0  # boards drawn (the rest of the maps: only a new caption)
    repainted: int = 0  # of which drawn again only round what changed
    load_cpu: float = 0.0  # of the first mail's, loading the game from the store
    replayed: int = 0  # moves that load replayed (the rest came from a kept position)
    flushes: int = 0  # commits that waited for the disk (synchronous=FULL), all mails'
    kept: bool = False  # the store held the game's position (as a daemon's does)
    loaded: bool = False  # the processor answered the move before AT's first
    # The searches for better runs than declared ones, done after the answers had gone
    # (`moderator.desk.later`): CPU seconds in all, not in the mails' figures.
    later_cpu: float = 0.0


def run_processing(workdir: Path, record: Path, at: int, count: int,
                   applied_every: int = APPLIED_EVERY,
                   profile: Path | None = None, batch: int = FETCH_BATCH,
                   kept: bool = True, loaded: bool = False) -> ProcessingBench:
    """The burst's mails recorded and processed one after another by a `Processor` on
    a fresh store, as the daemon's worker does, without the mail servers: what the
    processing itself achieves. BATCH: mails per fetch of the inbox (the other members'
    reports are queued at each batch's end, their cost shared by the batch's mails; 1:
    after every mail). KEPT: the store holds the game's position at AT, as a daemon
    that ran before keeps it (`GameCache.keep_positions`); the processor starts
    without the game in memory, unless LOADED: then the game is seated at AT - 1 and
    the processor answers the mail of move AT - 1 first (not measured), as a running
    daemon has answered the mail before: the game in memory, its map drawn, the
    caches warm; the first mail's figure is then one mail's processing at AT.
    PROFILE: write cProfile's statistics there."""
    import cProfile

    config = ModeratorConfig(address="moderator@bench.test", secret="bench-secret",
                             database=workdir / "moderator.sqlite")
    store = Store(config.database)
    try:
        game_id, addresses, whole = seated_game(store, record, at - 1 if loaded else at)
        if kept:  # what the daemon that ran before left
            earlier = GameCache(store)
            earlier.game(game_id)
            earlier.keep_positions()
        processor = Processor(store, ProcessorSettings.from_config(config))
        processor.warm_up()  # as the daemon does when it starts
        if loaded:  # the mail before, answered as the daemon did
            before = burst(game_id, whole, at - 1, 1, 1)[0]
            assert before.applied
            key, _ = processor.receive(burst_message(
                before, game_id, addresses, config.address, config.secret).as_bytes(),
                kept_elsewhere=True)
            processor.process(key, batch=True)
            processor.flush_reports()
            processor.better_runs()
        mails = burst(game_id, whole, at, count, applied_every)
        raws = [burst_message(mail, game_id, addresses, config.address,
                              config.secret).as_bytes() for mail in mails]
        flushes = store.durable_commits
        # The garbage of the bench's own set-up (the record imported, the mails made)
        # collected now: a full collection of it fell in the first mails measured
        # (1861 at move 641: one mail 16 ms, 65-130 ms with it).
        gc.collect()
        # The default timer: thread_time is a system call per event, which swamps the profile.
        profiler = cProfile.Profile() if profile is not None else None
        applied_cpu: list[float] = []
        refused_cpu: list[float] = []
        first_cpu = 0.0
        load_cpu = 0.0
        start, searched_before = time.time(), processor.later_cpu
        if profiler is not None:
            profiler.enable()
        for start_index in range(0, len(mails), max(batch, 1)):
            chunk = range(start_index, min(start_index + max(batch, 1), len(mails)))
            spent_in: list[float] = []
            for index in chunk:
                cpu = time.thread_time()
                key, _ = processor.receive(raws[index], kept_elsewhere=True)  # as the inbox
                processor.process(key, batch=True)
                spent_in.append(time.thread_time() - cpu)
                if index == 0:
                    load_cpu = processor.games.load_cpu
            cpu = time.thread_time()
            processor.flush_reports()
            # The batch's reports are the applied mails' doing: shared among them.
            movers = [i for i in chunk if mails[i].applied] or list(chunk)
            flushed = (time.thread_time() - cpu) / len(movers)
            processor.better_runs()  # as the daemon, once the answers are on their way
            for index, spent in zip(chunk, spent_in, strict=True):
                spent += flushed if index in movers else 0.0
                first_cpu = first_cpu if applied_cpu or refused_cpu else spent
                (applied_cpu if mails[index].applied else refused_cpu).append(spent)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        seconds = time.time() - start
        applied = len(store.moves(game_id)) - at
        sizes = tuple(int(row[0]) for row in store.execute("SELECT length(raw) FROM outbox"))
        pictures = processor.games.pictures
    finally:
        store.close()
    return ProcessingBench(tuple(applied_cpu), tuple(refused_cpu), seconds, applied,
                           len(sizes), first_cpu, sizes, pictures.plates,
                           pictures.repainted, load_cpu, processor.games.replayed,
                           store.durable_commits - flushes, kept, loaded,
                           processor.later_cpu - searched_before)


async def _answers(store: Store, sent: dict[str, float], timeout: float
                   ) -> dict[str, float]:
    """When each sent mail's answer was handed to SMTP (by its Message-ID).

    Each poll reads only the mails sent since the last (by the index on `sent`), and
    what caused each once: the outbox's rows are large, and reading them again and
    again would make the bench the busiest part of the process."""
    deadline = time.time() + timeout
    answered: dict[str, float] = {}
    seen: set[int] = set()
    since = 0.0
    while time.time() < deadline and len(answered) < len(sent):
        new = [(int(row), float(when)) for row, when in store.execute(
            "SELECT id, sent FROM outbox_queue WHERE sent >= ?", [since]) if row not in seen]
        if new:
            since = max(when for _, when in new)
            seen.update(row for row, _ in new)
            marks = ",".join("?" * len(new))
            causes = store.execute(
                "SELECT o.id, m.message_id FROM outbox_queue o JOIN messages m ON o.cause = m.key "
                f"WHERE o.kind = 'reply' AND o.id IN ({marks})", [row for row, _ in new])
            when_sent = dict(new)
            for row, mid in causes:
                if mid in sent:
                    answered[mid] = min(answered.get(mid, when_sent[row]), when_sent[row])
        await asyncio.sleep(0.2)
    return answered


def _children_cpu() -> float | None:
    """CPU seconds of this process's descendants (the mail servers' process and its
    pymap), where /proc says."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        todo = [str(os.getpid())]
        while todo:
            pid = todo.pop()
            for task in Path(f"/proc/{pid}/task").iterdir():
                for child in (task / "children").read_text().split():
                    fields = Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()
                    total += (int(fields[11]) + int(fields[12])) / ticks
                    todo.append(child)
        return total
    except (OSError, ValueError, IndexError):
        return None


def _cpu_wait() -> float | None:
    """Seconds this process's threads have waited, ready to run, for a core (the
    second field of /proc's schedstat), where Linux tells."""
    try:
        return sum(int((task / "schedstat").read_text().split()[1])
                   for task in Path("/proc/self/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


@click.command("mail")
@click.option("--record", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="The recorded game (default: 18TN 7818 from the fixtures).")
@click.option("--at", "at", type=int, default=300, show_default=True,
              help="The move the game is at when the burst comes.")
@click.option("--mails", "count", type=int, default=200, show_default=True,
              help="How many mails the burst has.")
@click.option("--applied-every", type=click.IntRange(min=0), default=APPLIED_EVERY,
              show_default=True,
              help="Every this many mails is the game's next move (0: all are refused).")
@click.option("--deliver-answers/--drop-answers", default=False, show_default=True,
              help="Whether the players' mail goes into their mailboxes on the local IMAP "
                   "server (pymap) as well, or only the moderator's (as in production, "
                   "where the players' mail leaves for other servers; the bench reads "
                   "the answers' times from the outbox, not from the mailboxes).")
@click.option("--processing-only", is_flag=True,
              help="Only the processing: the same mails through the processor on a "
                   "fresh store, without the mail servers (CPU per mail).")
@click.option("--profile", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write cProfile's statistics to this file: of the processing with "
                   "--processing-only, else of the daemon's event loop (its IMAP and "
                   "SMTP clients and outbox; the processing runs in worker threads).")
@click.option("--batch", type=click.IntRange(min=1), default=FETCH_BATCH, show_default=True,
              help="With --processing-only: mails per fetch of the inbox (the other "
                   "members get one report per batch; 1: one per move).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False,
                                                         path_type=Path), default=None,
              help="Measure against the servers this configuration names (its IMAP "
                   "folder must hold no unprocessed mail; the database is the bench's "
                   "own), instead of the embedded ones.")
@click.option("--kept-position/--no-kept-position", "kept", default=True, show_default=True,
              help="With --processing-only: the store holds the game's position at AT, "
                   "as a daemon that ran before leaves it (the first mail loads it and "
                   "replays nothing), or not (it replays the whole log).")
@click.option("--loaded", is_flag=True,
              help="With --processing-only: the mail of move AT - 1 is answered first "
                   "(not measured), as a running daemon has answered the mail before: "
                   "the first mail's figure is then one mail's processing at AT.")
@click.option("--players", default=None, metavar="ADDRESS",
              help="With --config: the seats' addresses, {n} the seat's number "
                   "(bench-{n}@example.org): mailboxes that take the answers.")
def mail_command(record: Path | None, at: int, count: int, applied_every: int,
                 deliver_answers: bool, processing_only: bool, profile: Path | None,
                 batch: int, kept: bool, loaded: bool, config_path: Path | None,
                 players: str | None) -> None:
    """Throughput and latency of the service under a burst of mail, over the real local
    servers (needs the `local` extra) or those of --config; or, with
    --processing-only, what the processing alone costs."""
    path = record or FIXTURES / "18TN" / "7818.json"
    if config_path is not None:
        _configured(config_path, players, path, at, count, applied_every)
        return
    if players is not None:
        raise click.UsageError("--players goes with --config")
    if processing_only:
        with tempfile.TemporaryDirectory(prefix="bench-process-") as tmp:
            alone = run_processing(Path(tmp), path, at, count, applied_every, profile,
                                   batch, kept, loaded)
        _print_processing(path, at, count, alone, batch)
        return
    with tempfile.TemporaryDirectory(prefix="bench-mail-") as tmp:
        result = asyncio.run(run_burst(Path(tmp), path, at, count, applied_every,
                                       deliver_answers, profile))
    if not result.latencies:
        raise click.ClickException("no answer arrived")
    lat = result.latencies
    click.echo(f"record {path.name} at move {at}: {count} mails sent, "
               f"{result.mails} answered, {result.applied} applied"
               + (" (answers put into the players' mailboxes too)" if deliver_answers
                  else " (answers not put into the players' mailboxes)"))
    click.echo(f"throughput: {result.mails / result.seconds:.1f} mails/s "
               f"({result.seconds:.1f} s from the first send to the last answer)")
    click.echo(f"sending the burst took {result.sending:.1f} s")
    click.echo(f"latency (send to answer handed to SMTP): p50 {percentile(lat, 0.5):.2f} s, "
               f"p95 {percentile(lat, 0.95):.2f} s, p99 {percentile(lat, 0.99):.2f} s, "
               f"max {max(lat):.2f} s")
    per_mail = 1000 / max(result.mails, 1)
    click.echo(f"processor CPU: {result.processor_cpu * per_mail:.1f} ms per mail "
               f"(one core: {result.mails / max(result.processor_cpu, 1e-9):.0f} mails/s)")
    servers = ""
    if result.servers_cpu is not None:
        servers = (f"; the mail servers (child processes: aiosmtpd with the burst's "
                   f"sender, and pymap): {result.servers_cpu * per_mail:.0f} ms per mail")
        if result.smtp_cpu is not None:
            servers += (f", pymap {(result.servers_cpu - result.smtp_cpu) * per_mail:.0f}"
                        " ms of it")
        if result.servers_cpu_sending is not None:
            servers += (f", {result.servers_cpu_sending * per_mail:.0f} ms while the burst "
                        "was delivered")
    click.echo(f"CPU: {result.cpu * per_mail:.0f} ms per mail in this process (the daemon, "
               f"and the bench reading its outbox){servers}")
    if result.cpu_wait is not None:
        click.echo(f"the daemon's threads waited {result.cpu_wait:.1f} s for a core while "
                   f"ready to run ({result.seconds:.1f} s in all: the machine's other work)")
    asked = sum(n for _, n in result.imap_commands)
    click.echo(f"IMAP: the moderator sent {asked} commands for {result.mails} mails "
               f"({asked / max(result.mails, 1):.2f} per mail: "
               + ", ".join(f"{name} {n}" for name, n in result.imap_commands)
               + f"); {result.appended} mails delivered into the IMAP server by APPEND")
    if result.load is not None:
        click.echo(f"machine load (1-minute average): {result.load[0]:.1f} before, "
                   f"{result.load[1]:.1f} after ({os.cpu_count()} cores)")


def _configured(config_path: Path, players: str | None, path: Path, at: int, count: int,
                applied_every: int) -> None:
    """`bench mail --config FILE`: the burst through the configured servers."""
    if not players or "{n}" not in players or "@" not in players:
        raise click.UsageError("--config needs --players ADDRESS with {n} for the seat's "
                               "number (bench-{n}@example.org): the answers go there")
    try:
        config = load_config(config_path)
    except ConfigError as exc:
        raise click.UsageError(f"the configuration is not usable.\n{exc}") from None
    with tempfile.TemporaryDirectory(prefix="bench-mail-") as tmp:
        result = asyncio.run(run_configured_burst(config, Path(tmp), path, at, count,
                                                  players, applied_every))
    if not result.latencies:
        raise click.ClickException("no answer arrived")
    lat = result.latencies
    click.echo(f"against IMAP {config.imap.host}:{config.imap.port} ({config.imap.tls}) "
               f"and SMTP {config.smtp.host}:{config.smtp.port} ({config.smtp.tls}) as "
               f"{config.moderator.address}")
    click.echo(f"record {path.name} at move {at}: {count} mails sent, {result.mails} "
               f"answered, {result.applied} applied")
    click.echo(f"throughput: {result.mails / result.seconds:.1f} mails/s "
               f"({result.seconds:.1f} s from the first send to the last answer; each "
               f"mail waits order_window = {config.moderator.order_window:g} s)")
    click.echo(f"sending the burst took {result.sending:.1f} s")
    click.echo(f"latency (send to answer handed to SMTP): p50 {percentile(lat, 0.5):.2f} s, "
               f"p95 {percentile(lat, 0.95):.2f} s, p99 {percentile(lat, 0.99):.2f} s, "
               f"max {max(lat):.2f} s")
    per_mail = 1000 / max(result.mails, 1)
    click.echo(f"processor CPU: {result.processor_cpu * per_mail:.1f} ms per mail; this "
               f"process (the daemon and the bench): {result.cpu * per_mail:.0f} ms per mail")
    asked = sum(n for _, n in result.imap_commands)
    click.echo(f"IMAP: the moderator sent {asked} commands for {result.mails} mails "
               f"({asked / max(result.mails, 1):.2f} per mail: "
               + ", ".join(f"{name} {n}" for name, n in result.imap_commands) + ")")


def _print_processing(path: Path, at: int, count: int, result: ProcessingBench,
                      batch: int) -> None:
    everything = result.applied_cpu + result.refused_cpu
    total = sum(everything)
    click.echo(f"record {path.name} at move {at}: {count} mails processed (no servers) "
               f"in batches of {batch}, {result.applied} applied, {result.queued} mails "
               "queued")
    click.echo(f"processor CPU: {1000 * total / max(len(everything), 1):.1f} ms per mail "
               f"(one core: {len(everything) / max(total, 1e-9):.0f} mails/s); "
               f"wall-clock {result.seconds:.1f} s "
               f"({len(everything) / max(result.seconds, 1e-9):.0f} mails/s), "
               f"{result.flushes} commits waited for the disk")
    # The first mail loads the game and draws its board (the daemon does that once
    # per game it has not seen since it started); the rest find them kept.
    if result.loaded:
        click.echo(f"  the first mail, the mail of move {at - 1} answered before: "
                   f"{1000 * result.first_cpu:.0f} ms (one mail's processing at move {at})")
    else:
        click.echo(f"  the first mail after a start: {1000 * result.first_cpu:.0f} ms, of "
                   f"which {1000 * result.load_cpu:.0f} ms loading the game ("
                   + (f"its kept position and {result.replayed} moves replayed"
                      if result.kept else
                      f"{result.replayed} moves replayed, no kept position") + ")")
    if len(everything) > 1:
        warm = total - result.first_cpu
        click.echo(f"  the others {1000 * warm / (len(everything) - 1):.1f} ms per mail "
                   f"(one core: {(len(everything) - 1) / max(warm, 1e-9):.0f} mails/s)")
    if result.later_cpu:
        whole = total + result.later_cpu
        click.echo(f"  better-run searches after the answers: {1000 * result.later_cpu:.0f} ms "
                   f"CPU in all; with them {1000 * whole / max(len(everything), 1):.1f} ms "
                   f"per mail (one core: {len(everything) / max(whole, 1e-9):.0f} mails/s)")
    for name, cpus in (("meant to apply", result.applied_cpu),
                       ("refused", result.refused_cpu)):
        if cpus:
            click.echo(f"  {name}: {len(cpus)} mails, CPU per mail p50 "
                       f"{1000 * percentile(cpus, 0.5):.1f} ms, p95 "
                       f"{1000 * percentile(cpus, 0.95):.1f} ms, mean "
                       f"{1000 * sum(cpus) / len(cpus):.1f} ms")
    if result.sizes:
        # Issue 33: a report should stay under 60 KB (a status mail carries the board).
        sizes = sorted(result.sizes)
        click.echo(f"mails queued: {len(sizes)}, size p50 {percentile(sizes, 0.5) / 1000:.1f} "
                   f"KB, p95 {percentile(sizes, 0.95) / 1000:.1f} KB, max "
                   f"{sizes[-1] / 1000:.1f} KB, over 60 KB: "
                   f"{sum(size > 60_000 for size in sizes)}")
    click.echo(f"map boards drawn: {result.plates}, of which {result.repainted} only round "
               "what changed")
    load = _load()
    if load is not None:
        click.echo(f"machine load (1-minute average): {load:.1f} ({os.cpu_count()} cores)")
