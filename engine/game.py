"""A game: its set-up plus the log of moves, and the state they build.

The log is the only truth. `Game` replays it to build the state; an `Undo` in the
log folds history back to an earlier move without deleting anything. Move numbers
are positions in the full log, so a number printed in a report never comes back to
mean another move (`move N` in an order guards against stale orders).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.actions import Action, RunRoutes, Undo, from_json, to_json
from engine.errors import GameError, require
from engine.optimizer import optimize
from engine.rounds.base import Round, Turn, lone_pass
from engine.rounds.operating import OperatingRound
from engine.routes import check_run
from engine.rules import Rules
from engine.state import RESERVED_NAMES, GameState, copy_records
from engine.titles import rules_for

# While a log is read, a refused action is put back by replaying from a copy of an earlier
# position; a new copy is taken once the last one is this many moves old (`reading_log`).
# Refusals are rare while a log is read (none in any recorded game), the copies are not:
# at 24 they were 5-12% of an import; at 96 a refusal replays at most ~10 ms of moves.
CHECKPOINT_MOVES = 96

#: Search steps the search for a better run than a declared one may take: it runs on
#: the mail's path (#33 asks under 0.1 s a mail: 20,000 steps are 0.07-0.2 s of CPU in
#: the recorded games). Counted in steps, not seconds, so that what the players are told
#: is the same on any machine and under any load; the seconds only guard against a
#: search whose steps are slow (`run auto` keeps the optimizer's 5 s).
BETTER_RUN_STEPS: int | None = 20_000
BETTER_RUN_BUDGET = 1.0
#: The same search done after the answer has gone (`Game.declared_runs`, the mail
#: service's way): no mail waits for it, so it may go on to a proof (167259's declared
#: runs need up to 71,000 steps, 0.3 s) while a pathological position stays bounded.
LATER_RUN_STEPS = 100_000
LATER_RUN_BUDGET = 5.0


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything a game is besides its moves."""

    title: str
    seats: tuple[str, ...]
    seed: int = 0
    options: frozenset[str] = field(default_factory=frozenset)
    # Who holds the Priority Deal at the start; None: drawn with the seed (18TN 2).
    # Imported games name it, as the site gives it to its first player.
    priority: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"title": self.title, "seats": list(self.seats),
                               "seed": self.seed, "options": sorted(self.options)}
        if self.priority is not None:
            out["priority"] = self.priority
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Setup:
        return Setup(data["title"], tuple(data["seats"]), int(data.get("seed", 0)),
                     frozenset(data.get("options", ())), data.get("priority"))


@dataclass(frozen=True, slots=True)
class Move:
    """One entry of the log: who sent which action."""

    seat: str
    action: Action

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, **to_json(self.action)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Move:
        rest = {k: v for k, v in data.items() if k != "seat"}
        return Move(data["seat"], from_json(rest))


class Checkpoint(NamedTuple):
    """A copy of the position after the first `moves` entries of the log."""

    state: GameState
    round: Round
    moves: int
    effective: list[int]


@dataclass(frozen=True, slots=True)
class DeclaredRun:
    """A declared run whose search for a better one was left for later
    (`Game.declared_runs`): its move's number and a copy of the position before it."""

    move: int
    state: GameState
    round: Round
    action: RunRoutes

    def better_run(self, rules: Rules) -> str | None:
        """What the players are told of a better run than this one, if there is one."""
        return better_run(rules, self.state, self.round, self.action, later=True)


class Game:
    """A game in progress: apply moves, ask whose turn it is and what is legal."""

    #: None: a declared run is answered with the better run, searched at once (and
    #: bounded: the answer waits for it). A list: the search is left to the caller,
    #: which finds each declared run here (`DeclaredRun.better_run`) and tells its
    #: answer later (the mail service: after the mail's answer has gone, issue 33).
    declared_runs: list[DeclaredRun] | None = None

    #: While a log is read (`reading_log`), the importer asks `turn` and `legal` several
    #: times a position: the answers are kept for the position they were given at (its
    #: state, round and log length; cleared as each move is processed).
    _asked: tuple[GameState, Round, int, dict[str, Any]] | None = None

    def __init__(self, setup: Setup, moves: Iterable[Move] = ()) -> None:
        _check_setup(setup)
        self.setup = setup
        self.rules: Rules = rules_for(setup.title, setup.options)
        title = self.rules.title
        require(title.players_min <= len(setup.seats) <= title.players_max,
                f"{title.name} is played by {title.players_min} to {title.players_max} "
                f"players, not {len(setup.seats)}")
        self.log: list[Move] = []
        self.checkpoint: Checkpoint | None = None  # set while a log is read
        self._reset()
        for move in moves:
            self.append_move(move)

    # --- building the state -------------------------------------------------------------
    def _reset(self) -> None:
        self.state: GameState = self.rules.initial_state(self.setup.seats, self.setup.seed)
        if self.setup.priority is not None:
            self.state.priority = self.setup.priority
        self.round: Round = self.rules.first_round(self.state)
        self.effective: list[int] = []  # indices into self.log now in effect

    def append_move(self, move: Move) -> list[str]:
        """Apply a move that is known to be valid, or raise (replay of a stored log)."""
        index = len(self.log)
        if isinstance(move.action, Undo):
            self.log.append(move)
            self._fold_to(move.action.to_move)
            return [f"{move.seat} takes back the moves from move {move.action.to_move} on"]
        start = len(self.state.log)
        self._process(move)
        self.log.append(move)
        self.effective.append(index)
        return self.state.log[start:]

    def _process(self, move: Move) -> None:
        self._asked = None
        require(not self.state.game_over, "the game is over")
        self.round.process(move.seat, move.action)
        self.rules.check_end(self.state)
        self._advance()

    def _advance(self) -> None:
        while not self.state.game_over and self.round.over():
            nxt = self.rules.next_round(self.state, self.round)
            if nxt is None:
                break
            self.round = nxt

    def _fold_to(self, to_move: int) -> None:
        keep = [i for i in self.effective if i < to_move]
        self._reset()
        for i in keep:
            self._process(self.log[i])
            self.effective.append(i)

    # --- the public API -----------------------------------------------------------------
    @property
    def next_move(self) -> int:
        """The number the next move will have (printed in every report)."""
        return len(self.log)

    def apply(self, seat: str, action: Action) -> list[str]:
        """Apply one action by `seat`; returns what happened, in words.

        A refused action raises GameError and leaves the game exactly as it was (the
        state is restored from a copy, so look objects up again after a refusal).
        """
        return self._apply(seat, action)[0]

    def fork(self, seat: str, action: Action) -> tuple[Game, list[str]]:
        """`apply` to a copy of this game (as `clone` then `apply` would): the copy with
        the action applied, and what happened; this game stays at its position, whether
        the action is accepted or refused (GameError).

        One copy of the position where `clone` and `apply` take two: the copy `apply`
        keeps against a refusal becomes this game's state, and the state the action
        changed goes on in the returned game. So look this game's objects up again
        afterwards, as after a refusal."""
        if self.checkpoint is not None:  # a log being read keeps no copy per action
            other = self.clone()
            return other, other.apply(seat, action)
        said, saved = self._apply(seat, action)
        assert saved is not None
        other = object.__new__(Game)
        other.setup, other.rules, other.checkpoint = self.setup, self.rules, None
        other.state, other.round = self.state, self.round
        other.log, other.effective = list(self.log), list(self.effective)
        if self.declared_runs is not None:  # the run just declared is the copy's
            other.declared_runs, self.declared_runs = self.declared_runs, []
        self.state, self.round, _, self.effective = saved
        del self.log[saved.moves:]
        return other, said

    def _apply(self, seat: str, action: Action) -> tuple[list[str], Checkpoint | None]:
        """`apply`, and the copy of the position before it (None while a log is read)."""
        require(seat in self.setup.seats, f"{seat} has no seat in this game")
        if isinstance(action, Undo):
            require(0 <= action.to_move <= len(self.log),
                    f"there is no move {action.to_move}; the next move is {len(self.log)}")
        action = self.resolve(action)
        if self.checkpoint is not None:
            return self._apply_reading(Move(seat, action)), None
        later = self.declared_runs is not None and _declared(action, self.round)
        better = None if self.declared_runs is not None else better_run(
            self.rules, self.state, self.round, action)
        saved = self._copy_position()
        try:
            said = self.append_move(Move(seat, action))
        except BaseException:
            # Refused, or an engine fault: either way no trace may stay behind.
            self.state, self.round, _, self.effective = saved
            del self.log[saved.moves:]
            raise
        if later and self.declared_runs is not None:
            assert isinstance(action, RunRoutes)
            # A copy of its own: SAVED becomes this game's position again in `fork`.
            state, rnd = copy_records((saved.state, saved.round), {id(self.rules): self.rules})
            self.declared_runs.append(DeclaredRun(saved.moves, state, rnd, action))
        return ([*said, better] if better else said), saved

    #: False while a log is read by a caller that drops the game at its first refusal.
    _restorable = True

    @contextlib.contextmanager
    def reading_log(self, restorable: bool = True) -> Iterator[Game]:
        """Apply the moves of a log being read (an imported record) cheaply: no copy is
        taken before each action; a refusal is put back by replaying the log from a copy
        taken every `CHECKPOINT_MOVES` moves, and nobody is told of better runs. Only the
        log is restored, so the state must not be changed by hand meanwhile.

        Not `restorable`: the caller drops the game at the first refusal (as
        `import_record` does), so no copy is taken after the first, and a refused action
        may leave the game half-changed (the copies were ~10% of an import)."""
        self.checkpoint = self._copy_position()
        self._restorable = restorable
        try:
            yield self
        finally:
            self.checkpoint = None
            self._asked = None
            self._restorable = True

    def _apply_reading(self, move: Move) -> list[str]:
        if not self._restorable:
            return self.append_move(move)
        moves = len(self.log)
        assert self.checkpoint is not None
        if moves - self.checkpoint.moves >= CHECKPOINT_MOVES:
            self.checkpoint = self._copy_position()
        try:
            return self.append_move(move)
        except BaseException:
            self._restore(moves)
            raise

    def _copy_position(self) -> Checkpoint:
        """A copy of everything that changes (the rules and title data are shared)."""
        state, rnd = copy_records((self.state, self.round), {id(self.rules): self.rules})
        return Checkpoint(state, rnd, len(self.log), list(self.effective))

    def _restore(self, moves: int) -> None:
        """Put the game back as the first `moves` entries of the log made it: a copy of
        the checkpoint, then the moves logged since it, replayed. A copy before every
        action costs as much as the action; this costs only on a refusal."""
        saved = self.checkpoint
        assert saved is not None and saved.moves <= moves
        since = self.log[saved.moves:moves]
        self.state, self.round = copy_records((saved.state, saved.round),
                                              {id(self.rules): self.rules})
        del self.log[saved.moves:]
        self.effective = list(saved.effective)
        for move in since:
            self.append_move(move)

    def attempt(self, seat: str, action: Action) -> bool:
        """Apply an action to a throwaway copy (see `clone`): True if accepted. The copy
        is left half-changed after a refusal, so it must not be used again then."""
        try:
            self.append_move(Move(seat, self.resolve(action)))
        except GameError:
            return False
        return True

    def clone(self) -> Game:
        """An independent copy of this game, to try actions on."""
        other = object.__new__(Game)
        other.setup = self.setup
        other.rules = self.rules
        other.state, other.round = copy_records((self.state, self.round),
                                                {id(self.rules): self.rules})
        other.log, other.effective = list(self.log), list(self.effective)
        other.checkpoint = None
        return other

    def resolve(self, action: Action) -> Action:
        """Store what was decided, not how it was asked for: `run auto` is logged as the
        routes found, so a replay never depends on the optimizer."""
        if isinstance(action, RunRoutes) and action.auto:
            rnd = self.round
            if isinstance(rnd, OperatingRound) and rnd.current is not None:
                found = optimize(self.rules, self.state, rnd.company())
                return found.action(company=action.company)
        # A title's order that stands for another (1825 5.6.5: `accept` of a train
        # offered to the company is its purchase at the offered price).
        return self.rules.resolve_order(self.state, self.round, action)

    def turn(self) -> Turn | None:
        """Who must act now, or None when the game is over."""
        asked = self._answers()
        if asked is not None and "turn" in asked:
            return asked["turn"]  # type: ignore[no-any-return]
        turn = None if self.state.game_over else self.round.turn()
        if asked is not None:
            asked["turn"] = turn
        return turn

    def legal(self) -> list[str]:
        """What the acting player may do, as order texts."""
        asked = self._answers()
        if asked is not None and "legal" in asked:
            return list(asked["legal"])
        options = [] if self.state.game_over else self.round.legal()
        if asked is not None:
            asked["legal"] = list(options)
        return options

    def lone_pass(self, ignore: tuple[str, ...] = ()) -> str | None:
        """"pass" or "done" when that is all `legal` lists, the options beginning with
        one of `ignore` left out; None otherwise (`Round.lone_pass`: without listing
        every option where the round can)."""
        asked = self._answers()
        if asked is not None and "legal" in asked:
            return lone_pass(asked["legal"], ignore)
        key = "lone pass " + "|".join(ignore)
        if asked is not None and key in asked:
            return asked[key]  # type: ignore[no-any-return]
        lone = None if self.state.game_over else self.round.lone_pass(ignore)
        if asked is not None:
            asked[key] = lone
        return lone

    def _answers(self) -> dict[str, Any] | None:
        """The answers kept for this position while a log is read (None otherwise)."""
        if self.checkpoint is None:
            return None
        asked = self._asked
        if asked is None or asked[0] is not self.state or asked[1] is not self.round \
                or asked[2] != len(self.log):
            asked = self._asked = (self.state, self.round, len(self.log), {})
        return asked[3]

    @property
    def round_name(self) -> str:
        return self.round.name

    def scores(self) -> dict[str, int]:
        return self.rules.scores(self.state)

    def to_json(self) -> dict[str, Any]:
        return {"setup": self.setup.to_json(), "moves": [m.to_json() for m in self.log]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Game:
        return Game(Setup.from_json(data["setup"]), (Move.from_json(m) for m in data["moves"]))

    def dumps(self) -> str:
        return json.dumps(self.to_json())


def _check_setup(setup: Setup) -> None:
    seats = setup.seats
    require(len(set(s.lower() for s in seats)) == len(seats), "seat names must differ")
    for seat in seats:
        require(seat.lower() not in RESERVED_NAMES, f"{seat!r} cannot be a seat name")
        require(bool(seat.strip()), "a seat name cannot be empty")
    require(setup.priority is None or setup.priority in seats,
            f"{setup.priority} has no seat in this game")


def _declared(action: Action, rnd: Round) -> bool:
    """Whether ACTION declares a run of its own (not `run auto`) for the company
    operating in RND: one a better run may be told for."""
    return (isinstance(action, RunRoutes) and not action.auto
            and isinstance(rnd, OperatingRound) and rnd.current is not None)


def better_run(rules: Rules, state: GameState, rnd: Round, action: Action, *,
               later: bool = False) -> str | None:
    """A declared run below the maximum stands (the president chooses), but the
    players are told the maximum and the routes reaching it, so that any shareholder
    may insist on it (18TN 4.2.3.1). STATE and RND: the position before the run.
    LATER: the search is done after the answer has gone (`LATER_RUN_STEPS`), not on
    its path (`BETTER_RUN_STEPS`)."""
    if not _declared(action, rnd):
        return None
    assert isinstance(action, RunRoutes) and isinstance(rnd, OperatingRound)
    corp = rnd.company()
    try:
        declared = check_run(rules, state, corp, action)
    except GameError:
        return None  # the refusal itself is the answer
    # Only a run earning more than the declared one is news: the search sets it
    # as the bar from the start. Bounded in steps, so that what players are told is
    # the same on any machine; a run found but not proven the best is told as such.
    steps, budget = ((LATER_RUN_STEPS, LATER_RUN_BUDGET) if later
                     else (BETTER_RUN_STEPS, BETTER_RUN_BUDGET))
    best = optimize(rules, state, corp, budget=budget, steps=steps, beat=declared.revenue)
    if best.total <= declared.revenue:
        return None
    routes = "; ".join(f"{r.train}: {' '.join(r.hexes)}" for r in best.routes())
    proof = "" if best.proven else " (the best found; not proven the maximum)"
    return (f"the best run for {corp.sym} earns {state.title.currency}{best.total}"
            f"{proof}: run {routes} - any shareholder may insist on it")
