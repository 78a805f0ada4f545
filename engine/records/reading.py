"""Game records of 18xx.games: replaying them through our engine.

A record is the site's JSON export (`shared/fixtures/README.md`): players, settings
and a list of actions naming shares ("TC_1"), trains ("3-0"), tiles ("57-0") and
cities ("H3-0-0") by the site's ids. `import_record` folds undo/redo, replays
`auto_actions`, and maps each action onto ours, using the position reached so far
to resolve what the site's ids mean (where a share lies, who presides a company).

The importer's parts: what a record says beside the moves (`conventions`), the site's
ids turned into our actions (`mapper`), and the moves the site makes without recording
them (`bridging`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine import board
from engine.actions import Action, LayTile, PlaceToken, from_json
from engine.errors import GameError
from engine.game import Game, Setup
from engine.records.bridging import (
    Apply,
    accept_offers,
    apply_move,
    attempt_move,
    bridge_implicit_passes,
    drop_bidders,
    end_national_turn,
)
from engine.records.conventions import (
    AUTO,
    OUR_ACTIONS,
    OUR_EXACT,
    OUR_SETUP,
    RecordError,
    our_options,
    site_forms,
)
from engine.records.mapper import RecordMapper
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound


@dataclass
class Replay:
    """The result of replaying a record: our game, the players' names, the record's
    final values, and how many record actions became moves."""

    game: Game
    names: dict[str, str]  # record player id -> seat name
    result: dict[str, int]  # seat name -> the record's final value
    applied: int = 0
    skipped: list[str] = field(default_factory=list)


def folded_actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record's actions with undo/redo folded away: an undone action never happened."""
    done: list[dict[str, Any]] = []
    undone: list[list[dict[str, Any]]] = []
    for action in actions:
        kind = action.get("type")
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                undone.append([done.pop()] if done else [])
            else:
                cut = next((i for i, a in enumerate(done) if a.get("id") == target), None)
                keep = len(done) if cut is None else cut + 1
                undone.append(done[keep:])
                del done[keep:]
        elif kind == "redo":
            if undone:
                done.extend(undone.pop())
        else:
            undone.clear()
            done.append(action)
    return done


def expanded(actions: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each action followed by its auto_actions, in order."""
    for action in actions:
        yield action
        for auto in action.get("auto_actions") or []:
            yield {**auto, AUTO: True}


def setup_of(record: dict[str, Any]) -> tuple[Setup, dict[str, str]]:
    players = record["players"]
    names = {str(p["id"]): str(p["name"]) for p in players}
    seats = tuple(names[str(p["id"])] for p in players)
    seed = int(record.get("settings", {}).get("seed") or 0)
    options = our_options(record["title"],
                          record.get("settings", {}).get("optional_rules") or ())
    # (18xx.games plays 1861 with unlimited 2+2 and 5+5E trains, optional rule 14.2.)
    options |= site_forms(record["title"]).implied_options
    ours = record.get(OUR_SETUP)
    if ours is not None:
        # Our own seating, and a Priority Deal the rules drew (None) or named.
        priority = ours.get("priority")
        return Setup(record["title"], tuple(names[str(i)] for i in ours["seats"]), seed,
                     options, None if priority is None else names[str(priority)]), names
    # The site gives the first player in its list the Priority Deal.
    return Setup(record["title"], seats, seed, options, priority=seats[0]), names


def import_record(record: dict[str, Any]) -> Replay:
    """Replay a record through our engine; raises RecordError at the first refusal."""
    setup, names = setup_of(record)
    replay = Replay(Game(setup), names,
                    {names[k]: int(v) for k, v in (record.get("result") or {}).items()})
    mapper = RecordMapper(replay.game, names)
    mapper.ahead = list(expanded(folded_actions(record["actions"])))
    # No copy before each action (engine.game); nor any later: a refusal raises
    # RecordError, and the game goes with it.
    with replay.game.reading_log(restorable=False):
        for index, raw in enumerate(mapper.ahead):
            replay.applied += replay_action(replay.game, mapper, index, raw)
    return replay


def replay_action(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                  *, throwaway: bool = False) -> int:
    """Apply one record action to `game` with the moves the site makes unrecorded around
    it; returns how many of our actions it stood for. Raises RecordError. `throwaway`:
    the caller discards `game` after a refusal, so no safety copy is kept (faster)."""
    apply = attempt_move if throwaway else apply_move
    raw = mapper.normalised(raw)
    own = raw.get(OUR_ACTIONS)
    if raw.get("entity_type") == "corporation":
        drop_bidders(game, apply)
    if own is None:
        end_national_turn(game, raw, attempt_move if throwaway else apply_move)
    _default_home(game, mapper, index, raw, own, apply)
    if own is not None:
        return _replay_own(game, mapper, index, raw, own, apply)
    try:
        mapped = mapper.map(raw)
    except (KeyError, ValueError, IndexError) as exc:
        raise RecordError(index, raw, f"cannot map: {exc!r}") from exc
    for seat, action in mapped:
        bridge_implicit_passes(game, seat, raw, apply, action)
        action = as_recorded(game, action)
        try:
            apply(game, seat, action)
            accept_offers(game, apply)
        except GameError as exc:
            raise RecordError(index, raw, f"{seat} {action}: {exc.message}") from exc
    return len(mapped)


def as_recorded(game: Game, action: Action) -> Action:
    """A lay of the record that ours refuses for its connection alone, though a way that
    uses track twice reaches it, marked to be replayed as the site accepted it
    (`LayTile.as_recorded`; docs/site-differences.md, 1861 10.4: the site asks only that
    the tile touch a hex edge its graph reaches); any other action, a lay no way
    reaches, or a lay refused for more, as it is (ours refuses it, saying why)."""
    if not isinstance(action, LayTile) or action.as_recorded:
        return action
    turn = game.turn()
    corp = game.state.corporations.get(turn.entity) if turn is not None else None
    if corp is None:
        return action
    rules, state = game.rules, game.state
    tile = state.title.tiles.get(action.tile)
    if tile is None or action.hex not in state.title.hexes:
        return action
    # The connection alone first (cheap: walked back from the hex); the round checks
    # the rest when the lay is applied.
    closed = rules.hexes_closed_to_routes(state, corp)
    if rules.why_not_reached(state, corp, action.hex, tile, action.rotation) is None and \
            board.connected_after(state, corp, action.hex, tile, action.rotation, closed):
        return action
    if not board.connected_after_plainly(state, corp, action.hex, tile, action.rotation,
                                         closed):
        return action  # no way reaches it at all: not the site's looser reading either
    enough = 10**9  # the money is the round's to judge (loans, 1861 10.2)
    try:
        board.check_lay(rules, state, corp, action.hex, action.tile, action.rotation,
                        need_connection=False, budget=enough)
    except GameError:
        return action  # refused for more than its connection: ours says why
    return dataclasses.replace(action, as_recorded=True)


def _default_home(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                  own: list[dict[str, Any]] | None, apply: Apply) -> None:
    """1825 R1: ours asks the Taff Vale's director for its city in V8 when the operating
    round begins; the site asks only once V8 has track. A record whose next action is
    not that choice takes the city the site's director names later in the record, or
    failing that the default one (as the recorded game's director chose; our records
    from before the choice was asked placed the base there)."""
    default = game.rules.home_default(game.state)
    turn = game.rules.pending_decision(game.state)
    if default is None or turn is None:
        return
    if own is None and raw.get("type") == "place_token" and \
            raw.get("entity") == turn.entity:
        return  # the choice itself
    if own and own[0].get("type") == default.kind:
        return  # ours, carried by the record
    later = next((a for a in (mapper.ahead or [])[index:]
                  if a.get("type") == "place_token" and a.get("entity") == turn.entity
                  and OUR_ACTIONS not in a), None)
    if later is not None and isinstance(default, PlaceToken):
        city = int(str(later["city"]).rsplit("-", 1)[1])
        chosen = PlaceToken(default.hex, city)
        if game.clone().attempt(turn.seat, chosen):
            default = chosen
    apply(game, turn.seat, default)


def _replay_own(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                own: list[dict[str, Any]], apply: Apply) -> int:
    """An action our export extended: apply our own actions it names (an empty list: a
    site action that stands for nothing of ours, like a second pass of one `done`)."""
    if not own:
        rnd = game.round
        # (1861 9.2: a minor's auction proposed is an action, too.)
        acted = isinstance(rnd, StockRound) and bool(
            rnd.s.last_actor or rnd.s.passes or getattr(rnd, "lot", None) is not None)
        if acted and raw.get("entity_type") in ("corporation", "company"):
            # A company's pass that stands for nothing of ours (a step ours skips) comes
            # after the stock round the site ended by itself: end it here too, so that
            # the operating round's position (its privates' income) is reached with it.
            # (In a stock round nobody has acted in yet, it is the site's last stop of
            # the operating round before, which ours ended by itself.)
            try:
                seat = mapper.seat_of(raw)
            except ValueError:
                seat = ""  # 9.2: the minor at auction has no owner yet
            while isinstance(game.round, StockRound) and game.turn() is not None:
                before = len(game.log)
                bridge_implicit_passes(game, seat, raw, apply)
                if len(game.log) == before:
                    break
        elif isinstance(rnd, OperatingRound) and \
                site_forms(game.state.title.name).pass_ends_turn_before and \
                raw.get("entity_type") == "corporation" and rnd.current is not None and \
                raw.get("entity") not in rnd.done and \
                raw.get("entity") != rnd.current.corporation:
            # The pass of a company still to operate (a step ours skips): the site has
            # ended the turn of the company before it (1861: the rest of that turn, its
            # interest and a nationalisation for it, 10.8, came at once), so ours ends
            # it here, not at the next company's first action ours records.
            with contextlib.suppress(ValueError):  # (a company with no Director left)
                bridge_implicit_passes(game, mapper.seat_of(raw), raw, apply)
        return 0
    try:
        actions = [from_json(a) for a in own]
        seat = mapper.seat_of(raw)
    except (KeyError, ValueError, TypeError) as exc:
        raise RecordError(index, raw, f"cannot read {OUR_ACTIONS}: {exc!r}") from exc
    if raw.get("type") != "message":
        # The site's form still moves the ids it names (trains, pool shares, tiles).
        with contextlib.suppress(KeyError, ValueError, IndexError):
            mapper.map(raw)
    for action in actions:
        if not raw.get(OUR_EXACT):
            bridge_implicit_passes(game, seat, raw, apply, action)
        try:
            apply(game, seat, action)
        except GameError as exc:
            raise RecordError(index, raw, f"{seat} {action}: {exc.message}") from exc
    return len(actions)
