"""Game records of 18xx.games: replaying them through our engine.

A record is the site's JSON export (`shared/fixtures/README.md`): players, settings
and a list of actions naming shares ("TC_1"), trains ("3-0"), tiles ("57-0") and
cities ("H3-0-0") by the site's ids. `import_record` folds undo/redo, replays
`auto_actions`, and maps each action onto ours, using the position reached so far
to resolve what the site's ids mean (where a share lies, who presides a company).

Records written by our own export (`engine.records.writing`) may carry two extensions the site
ignores: `moderator_actions` on an action (our own actions it stands for, where the
site's form reads back as a different action of ours or the site has no form) and
`moderator_setup` on the record (our seating and Priority Deal, where the site's
convention, the first player holds it, does not give ours).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import routes
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Convert,
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    Keep,
    LayTile,
    LeaseTrain,
    Merge,
    Nationalise,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    Route,
    RunRoutes,
    SellShares,
    ShareSource,
    UsePrivate,
    from_json,
)
from engine.errors import GameError
from engine.game import Game, Setup
from engine.records import forms_1825, forms_1861
from engine.records.forms import SiteForms
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import STOCK_ACTIONS, StockRound
from engine.shares import certificate_count
from engine.state import IPO, POOL, TREASURY
from engine.title import Title

# Extensions our export writes and the site ignores (see the module docstring).
OUR_ACTIONS = "moderator_actions"
OUR_SETUP = "moderator_setup"
# Marks an action the site made by itself (one of another action's auto_actions).
AUTO = "moderator_auto"
# Marks a record action carrying one of our moves exactly, with nothing of the site's
# around it (an export in our own form only, see `engine.records.writing`).
OUR_EXACT = "moderator_exact"


class RecordError(Exception):
    """The record cannot be replayed: an action our engine refused, or one it cannot map."""

    def __init__(self, index: int, record_action: dict[str, Any], message: str) -> None:
        super().__init__(f"action {index} (id {record_action.get('id')}, "
                         f"{record_action.get('type')}): {message}")
        self.index = index
        self.record_action = record_action
        self.message = message


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


#: How the site writes each title's records where it departs from the 1830 family's
#: forms (engine/records/forms.py); titles not named write those.
SITE_FORMS: dict[str, SiteForms] = {"1861": forms_1861.FORMS, "1825": forms_1825.FORMS}
_PLAIN_FORMS = SiteForms()


def site_forms(title: str) -> SiteForms:
    """The site's record forms for `title` (a title's name)."""
    return SITE_FORMS.get(title, _PLAIN_FORMS)


def site_options(title: str, options: frozenset[str]) -> list[str]:
    """Our game options in the site's words."""
    table = site_forms(title).option_names
    out: set[str] = set()
    for option in options:
        out.update(table.get(option, (option,)))
    return sorted(out)


def our_options(title: str, site: Iterable[str]) -> frozenset[str]:
    """The site's optional rules in our words (1825: `unit_1` plays with the site's
    figures)."""
    table = site_forms(title).option_names
    out = set(site)
    for ours, theirs in table.items():
        if set(theirs) <= out:
            out -= set(theirs)
            out.add(ours)
    return frozenset(out)


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
    with replay.game.reading_log():  # no copy before each action (engine.game)
        for index, raw in enumerate(mapper.ahead):
            replay.applied += replay_action(replay.game, mapper, index, raw)
    return replay


def pass_idle_players(game: Game, apply: _Apply | None = None) -> int:
    """The players the site passes by itself at once (nothing left to do in a stock
    turn) pass; returns how many passes were made. (A record's last actions may leave
    such passes to be made: the site makes them at once, the importer when the next
    action comes.)"""
    made = 0
    for _ in range(2 * len(game.setup.seats)):
        turn, rnd = game.turn(), game.round
        if turn is None or not isinstance(rnd, StockRound) or rnd.s.auction is not None \
                or game.legal() != ["pass"] or not site_idle(game, turn.seat, ["pass"]):
            # (Passing only, he may only pass on his own account too: `_own_options`.)
            break
        (apply or _apply)(game, turn.seat, Pass())
        made += 1
    return made


def replay_action(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                  *, throwaway: bool = False) -> int:
    """Apply one record action to `game` with the moves the site makes unrecorded around
    it; returns how many of our actions it stood for. Raises RecordError. `throwaway`:
    the caller discards `game` after a refusal, so no safety copy is kept (faster)."""
    apply = _attempt if throwaway else _apply
    raw = mapper.normalised(raw)
    own = raw.get(OUR_ACTIONS)
    if raw.get("entity_type") == "corporation":
        _drop_bidders(game, apply)
    if own is None:
        _end_national_turn(game, raw, _attempt if throwaway else _apply)
    _default_home(game, mapper, index, raw, own, apply)
    if own is not None:
        return _replay_own(game, mapper, index, raw, own, apply)
    try:
        mapped = mapper.map(raw)
    except (KeyError, ValueError, IndexError) as exc:
        raise RecordError(index, raw, f"cannot map: {exc!r}") from exc
    for seat, action in mapped:
        _bridge_implicit_passes(game, seat, raw, apply, action)
        try:
            apply(game, seat, action)
            _accept_offers(game, apply)
        except GameError as exc:
            raise RecordError(index, raw, f"{seat} {action}: {exc.message}") from exc
    return len(mapped)


def _default_home(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                  own: list[dict[str, Any]] | None, apply: _Apply) -> None:
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


def _drop_bidders(game: Game, apply: _Apply) -> None:
    """1861 9.2: the site drops at once the bidders who cannot raise from a minor's
    auction; a company's action comes after them (and after the minor's new owner)."""
    for _ in range(len(game.setup.seats)):
        turn = game.turn()
        if turn is None or getattr(game.round, "lot", None) is None or \
                game.legal() != ["pass"]:
            return
        apply(game, turn.seat, Pass())


def _end_national_turn(game: Game, raw: dict[str, Any], apply: _Apply) -> None:
    """1861: the site records only the national's run; its turn (the trains it buys by
    itself) ends when another entity acts."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or \
            raw.get("entity") == rnd.current.corporation:
        return
    corp = game.state.corporations[rnd.current.corporation]
    if corp.trains and rnd.current.revenue is None and raw.get("entity") in rnd.done:
        return  # its run is still to come: this is another company's closing pass
    turn = game.turn()
    if corp.spec.kind == "national" and turn is not None and turn.entity == corp.sym:
        apply(game, turn.seat, Done())


def _replay_own(game: Game, mapper: RecordMapper, index: int, raw: dict[str, Any],
                own: list[dict[str, Any]], apply: _Apply) -> int:
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
                _bridge_implicit_passes(game, seat, raw, apply)
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
                _bridge_implicit_passes(game, mapper.seat_of(raw), raw, apply)
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
            _bridge_implicit_passes(game, seat, raw, apply, action)
        try:
            apply(game, seat, action)
        except GameError as exc:
            raise RecordError(index, raw, f"{seat} {action}: {exc.message}") from exc
    return len(actions)


_Apply = Callable[[Game, str, Action], None]


def _apply(game: Game, seat: str, action: Action) -> None:
    game.apply(seat, action)


def _attempt(game: Game, seat: str, action: Action) -> None:
    if not game.attempt(seat, action):
        raise GameError(f"{action.kind} is refused")


def _accept_offers(game: Game, apply: _Apply) -> None:
    """The site sells trains between companies without asking the other president."""
    turn = game.turn()
    if turn is not None and turn.step.startswith("answer") and "offer for a train" in turn.step:
        apply(game, turn.seat, Accept())


def site_difference(title: Title, key: str) -> Any:
    """A fact of how 18xx.games plays `title` apart from our rules
    (title_specific.site_differences[key]; None where the title lists none)."""
    differences = title.title_specific.get("site_differences")
    return differences.get(key) if isinstance(differences, Mapping) else None


def _own_options(game: Game) -> list[str]:
    """What the player to act may do for himself: the site's 1850 asks him alone, not
    his companies (their redemption and reissue in his stock turn; title_specific.
    site_differences.idle_ignores_company_actions)."""
    if not site_difference(game.rules.title, "idle_ignores_company_actions"):
        return game.legal()
    return [option for option in game.legal()
            if not option.startswith(("redeem ", "reissue "))]


def site_idle(game: Game, seat: str, own: list[str] | None = None) -> bool:
    """Whether the site passes this player by itself in a stock round: he can do nothing
    but pass (or end a turn he has acted in), and cannot buy a private from another
    player either (the site offers that on his stock turn to a player with any cash who
    has not bought this turn, while another player owns one; its 1850 never does:
    title_specific.site_differences.interplayer_privates). The site asks the player
    alone: what his company may do in his turn (1850's redemption and reissue) does not
    keep him from being passed. `own`: `_own_options` of this position, when the caller
    has it already (listing the options is most of the question's cost)."""
    rnd = game.round
    forms = site_forms(game.state.title.name)
    if isinstance(rnd, StockRound) and forms.dealing_rounds:
        return site_idle_1825(game, rnd, seat)
    if isinstance(rnd, StockRound) and rnd.s.auction is None and rnd.cheapest() is not None:
        # While privates are for sale the site's turn always offers a bid and a pass,
        # whatever the player's cash: it never passes him by itself.
        return False
    if (own if own is not None else _own_options(game)) not in (["pass"], ["done"]):
        return False
    state = game.state
    if forms.offers_par(game, seat):
        return False
    if isinstance(rnd, StockRound) and rnd.s.turn.bought:
        return True
    if site_difference(game.rules.title, "interplayer_privates") is False:
        return True
    return state.players[seat].cash <= 0 or not any(
        not p.closed and p.owner in state.players and p.owner != seat
        and game.rules.may_sell_private(state, p) is None
        for p in state.privates.values())


def _receiver_buys(game: Game, entity: str, apply: _Apply) -> bool:
    """1825 6.4.4: a company in receivership without trains buys the bank's next new
    train when it can and has a route; the site makes that purchase by itself,
    unrecorded, when the company's turn ends."""
    from engine import trains

    state = game.state
    corp = state.corporations.get(entity)
    turn = game.turn()
    if not site_forms(state.title.name).receivers or corp is None or turn is None or \
            not game.rules.must_buy_train(state, corp):
        return False
    offer = trains.next_offered(state)
    if offer is None:
        return False
    apply(game, turn.seat, BuyTrain(offer.name, "bank", state.title.train(offer.name).price))
    return True


def _bridge_implicit_passes(game: Game, seat: str, raw: dict[str, Any],
                            apply: _Apply = _apply, action: Action | None = None) -> None:
    """Moves the site makes without recording them: it passes a player who can do
    nothing, and ends a company's turn once the next entity acts."""
    # A company's action (or one of ours no stock round has) ends the stock round: its
    # president, too, is passed where he can do nothing (the site passes him before the
    # round ends).
    # (1850's redemptions are a company buying its own share in the stock round.)
    operating = (raw.get("entity_type") in ("corporation", "company")
                 and raw.get("type") not in ("buy_shares", "sell_shares")) or (
        action is not None and not isinstance(action, STOCK_ACTIONS))
    company_stock = raw.get("entity_type") == "corporation" and \
        raw.get("type") in ("buy_shares", "sell_shares")
    for _ in range(4 * len(game.setup.seats)):
        turn = game.turn()
        if turn is None:
            return
        if isinstance(game.round, OperatingRound) and turn.step != "discard a train":
            entity = str(raw.get("entity"))
            acting = entity if raw.get("entity_type") == "corporation" else None
            if raw.get("entity_type") == "company":
                acting = game.state.privates[entity].owner
            if acting is not None and acting != turn.entity:
                if _receiver_buys(game, turn.entity, apply):
                    continue
                _declare_no_run(game, apply)
                apply(game, turn.seat, Done())
                continue
            if acting is None and raw.get("type") in ("par", "buy_shares", "bid", "pass") \
                    and not turn.step.startswith("protect"):
                # A player's stock action: the company's finished turn has ended (the
                # round's last company: its receiver's purchase first, 1825 6.4.4).
                if _receiver_buys(game, turn.entity, apply):
                    continue
                if "done" in game.legal():
                    apply(game, turn.seat, Done())
                    continue
            return
        if game.round.name.startswith("Merger Round"):
            return  # 1861: the record names every minor's answer (or the site's pass)
        auction = game.round.s.auction if isinstance(game.round, StockRound) else None
        if auction is not None and turn.seat in auction.passed and not (
                turn.seat == seat and raw.get("type") in ("bid", "pass")):
            # The site drops a bidder who passed from the auction (3.1.1 lets him bid
            # again): his later turns in it are passes it never records.
            apply(game, turn.seat, Pass())
            continue
        if getattr(game.round, "lot", None) is not None and game.legal() == ["pass"]:
            # 1861 9.2: the site drops a bidder who cannot raise from the auction.
            apply(game, turn.seat, Pass())
            continue
        rnd = game.round
        share_dealing = isinstance(rnd, StockRound) and \
            site_forms(game.state.title.name).dealing_rounds
        if isinstance(rnd, StockRound) and share_dealing:
            if turn.seat == seat and not operating and not (
                    rnd.s.turn.bought or rnd.s.turn.sold):
                return
            # 1825: the site's own reading of what the player may still do (the
            # player's own next action after a turn the site ended by itself begins
            # his next turn).
            if not site_idle_1825(game, rnd, turn.seat):
                return
            apply(game, turn.seat, Done() if rnd.s.turn.bought or rnd.s.turn.sold else Pass())
            continue
        # (A company's stock action is its president's turn: his company's options count;
        # the players before him the site passes on their own options, 5.10.6. Listed
        # once a position: `site_idle` is given them.)
        company_turn = company_stock and turn.seat == seat
        own = game.legal() if company_turn else _own_options(game)
        if turn.seat == seat and not operating and not (
                auction is None and own == ["pass"] and (raw.get("type") != "pass" or site_idle(
                    game, seat, None if company_turn else own))):
            # (A player the site passes by itself acts in a later turn: he passes now.)
            return
        # A player who can do nothing more: he passes, or ends the turn he acted in.
        if own == ["pass"]:
            apply(game, turn.seat, Pass())
        elif own == ["done"]:
            apply(game, turn.seat, Done())
        else:
            return


def _declare_no_run(game: Game, apply: _Apply) -> None:
    """A company whose turn the site ended before any run is recorded, though it has
    trains and a route in ours, declared no run: the site passes a run step its graph
    finds no route for, and records nothing. Ours insists on a run order there (1861
    10.6: "If the Company ... has one or more trains, it runs them"), and by 10.6 the
    Director declares the earnings ("players are not obliged to announce earnings higher
    than those declared by the Director"; 18TN 4.2.3.1 alike): the record's turn is a
    declared run of nothing, `run none`, after which `done` ends it as the site did."""
    rnd = game.round
    turn = game.turn()
    if not isinstance(rnd, OperatingRound) or rnd.current is None or turn is None or \
            rnd.current.revenue is not None or "route" not in rnd.steps or \
            rnd.current.step > rnd.steps.index("route"):
        return
    corp = game.state.corporations[rnd.current.corporation]
    if corp.trains and routes.has_route(game.rules, game.state, corp):
        apply(game, turn.seat, RunRoutes())


def site_idle_1825(game: Game, rnd: StockRound, seat: str) -> bool:
    """1825: whether the site has nothing to offer the player: no purchase (as ours),
    and from the second round no private's sale before the turn's purchase (ours offers
    it after too) and no sale of a share held of a started company but the one just
    bought when that purchase was the turn's last action (18xx.games checks only the
    last action; 4.3 forbids any company bought this turn). Before a purchase it also
    offers to start any company not started, though it refuses one not on sale."""
    state = rnd.state
    if not rnd.s.turn.bought and any(text.startswith("buy") for text in game.legal()):
        return False
    if not rnd.s.turn.bought and any(
            c.certificates[0].owner == IPO and not c.closed
            and c.sym not in state.player(seat).sold_this_round
            and state.player(seat).cash >= forms_1825.site_par_cost(state, c)
            for c in state.corporations.values()) and \
            certificate_count(game.rules, state, seat) < game.rules.certificate_limit(state):
        return False  # the site offers to par a company not yet on sale (4.1), refused
    if not rnd.s.turn.bought and state.player(seat).cash > 0 and any(
            p.owner in (None, POOL) and not p.closed
            and f"private:{p.sym}" not in state.player(seat).sold_this_round
            for p in state.privates.values()) and \
            certificate_count(game.rules, state, seat) < game.rules.certificate_limit(state):
        return False  # the site offers any private of the bank, at any price
    if rnd.number == 1:
        return True
    if not rnd.s.turn.bought and any(p.owner == seat and not p.closed
                                     for p in state.privates.values()):
        return False
    return not any(corp.percent_held_by(seat) and corp.sym in state.market.positions
                   and corp.sym != getattr(rnd, "last_bought", None)
                   for corp in state.corporations.values())



class RecordMapper:
    """Turns one record action into our (seat, action) pairs, keeping track of what the
    site's ids name in `game` (which must be the game the actions are applied to)."""

    def __init__(self, game: Game, names: dict[str, str]) -> None:
        self.game = game
        self.forms = site_forms(game.state.title.name)
        self.names = names  # record player id -> seat name
        self.train_ids: dict[str, str] = {}  # site train id -> our train id
        self.pool_shares: set[str] = set()  # site share ids now in the Open Market
        self.tile_hexes: dict[str, str] = {}  # site tile id ("57-0") -> hex it lies on
        self.share_owners: dict[str, str] = {}  # site share id -> seat, once a player's
        # 1861: a conversion or merger the site builds over several actions: the kind,
        # the minor asked, the partners named so far.
        self.forming: tuple[str, str, tuple[str, ...]] | None = None
        # 1861 12.3: a merger whose stations the site has the Director reduce by
        # `remove_token` after naming the public: the seat, the minors, the public, and
        # the (hex, city) of each minor's station still standing.
        self.reducing: tuple[str, tuple[str, ...], str, dict[str, tuple[str, int]]] | None \
            = None
        # 1825: a receiver's lease the site takes at the start of the company's turn
        # (`special_buy`), ours at its run (6.4.3): the company, until it runs.
        self.leasing: str | None = None
        # The whole record's actions where the reader has them (`import_record`): 1825
        # R1's Taff Vale's choice of its city, which the site asks for later than ours.
        self.ahead: list[dict[str, Any]] | None = None

    def fork(self, game: Game) -> RecordMapper:
        """A copy of this bookkeeping that follows `game` (this game or a clone of it)."""
        other = RecordMapper(game, self.names)
        other.train_ids = dict(self.train_ids)
        other.pool_shares = set(self.pool_shares)
        other.tile_hexes = dict(self.tile_hexes)
        other.share_owners = dict(self.share_owners)
        other.forming = self.forming
        other.leasing = self.leasing
        if self.reducing is not None:
            seat, minors, into, standing = self.reducing
            other.reducing = (seat, minors, into, dict(standing))
        return other

    def normalised(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The record action with the site's company symbols as ours (1861's minors:
        the site's "MNN" is the rulebook's M-NN), in its entity, target and share ids."""
        state = self.game.state
        changed: dict[str, Any] = {}
        for key in ("entity", "corporation", "minor"):
            value = raw.get(key)
            if isinstance(value, str) and value not in state.corporations and \
                    value not in state.privates and not value.isdigit():
                ours = self._our_sym(value)
                if ours != value:
                    changed[key] = ours
        shares = raw.get("shares")
        if isinstance(shares, list) and shares:
            renamed = []
            for share in shares:
                corp, _, index = str(share).rpartition("_")
                renamed.append(f"{self._our_sym(corp)}_{index}" if corp else share)
            if renamed != shares:
                changed["shares"] = renamed
        return {**raw, **changed} if changed else raw

    def _our_sym(self, sym: str) -> str:
        state = self.game.state
        if sym in state.corporations:
            return sym
        try:
            return state.title.corporation(sym).sym
        except (KeyError, LookupError):
            return sym

    def seat_of(self, raw: dict[str, Any]) -> str:
        if raw.get("entity_type") == "player":
            return self.names[str(raw["entity"])]
        entity = str(raw["entity"])
        state = self.game.state
        if entity in state.corporations:
            corp = state.corporations[entity]
            # (1825: a company in receivership decides through its receiver, 6.4.)
            president = corp.president or self.game.rules.director_of(state, corp)
            if not president:
                raise ValueError(f"{entity} has no president")
            return president
        if entity in state.privates:
            owner = state.privates[entity].owner or ""
            if owner in state.corporations:
                return state.corporations[owner].president or ""
            return owner
        raise ValueError(f"unknown entity {entity}")

    def map(self, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        kind = raw["type"]
        if kind == "message" or kind.startswith("program_") or kind == "end_game":
            return []
        if kind == "remove_token":  # the public removing tokens has no Director yet
            return self._remove_token(raw)
        seat = self.seat_of(raw)
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            raise ValueError(f"no mapping for {kind}")
        result: list[tuple[str, Action]] = handler(seat, raw)
        return result

    # --- stock round ---------------------------------------------------------------------
    def _pass(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        if self._protection_asked():
            return [(seat, DeclineProtection())]
        pending = self.game.rules.pending_decision(self.game.state)
        if pending is not None and pending.entity == raw.get("entity"):
            return [(seat, Keep(pending.entity))]  # 1861 11: the Director declines
        if self._finished_pass(raw) or self._track_and_token_pass(raw):
            return []
        if self.forming is not None and self.forming[0] == "merge":
            return []  # the site's "done adding minors": the merger order follows
        if raw.get(AUTO) and self.forms.passes_steps_by_itself and \
                isinstance(self.game.round, OperatingRound):
            # 1861: the site passes steps ours does not have (a token step of a company
            # without tokens, the private purchase before its loans) by itself; ours
            # moves on by the next action (or ends the turn when another entity acts).
            return []
        return [(seat, Pass())]

    def _track_and_token_pass(self, raw: dict[str, Any]) -> bool:
        """1825: the site's track and base step is one, ended by a pass; ours ends with
        the base built, so the pass after it finds our company at its run, which the
        site never passes."""
        turn = self.game.turn()
        return self.forms.one_build_step and \
            raw.get("entity_type") == "corporation" and turn is not None and \
            turn.entity == raw.get("entity") and turn.step == "route"

    def _finished_pass(self, raw: dict[str, Any]) -> bool:
        """1861: the site's pass ending a company turn ours ended by itself (nothing
        left to do) stands for nothing, in the operating round or just after it."""
        from engine.rounds.merger import MergerRound

        if not self.forms.passes_finished_turns or raw.get("entity_type") != "corporation":
            return False
        entity = str(raw.get("entity"))
        rnd = self.game.round
        turn = self.game.turn()
        if isinstance(rnd, OperatingRound):
            return entity in rnd.done
        if isinstance(rnd, MergerRound):
            return turn is not None and turn.entity != entity and entity not in \
                self.game.rules.merger_candidates(self.game.state)[:1]
        return False

    def _protection_asked(self) -> bool:
        """1850 5.9: the round waits for a president to protect a sale or let it stand."""
        turn = self.game.turn()
        return turn is not None and turn.step.startswith("protect ")

    def _bid(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        target = raw.get("company") or raw.get("minor") or raw.get("corporation")
        price = int(raw["price"])
        rnd = self.game.round
        if isinstance(rnd, StockRound) and rnd.s.auction is None:
            cheapest = rnd.cheapest()
            if cheapest is not None and cheapest.sym == target:
                return [(seat, BuyPrivate(str(target)))]
            return [(seat, Bid(price, str(target)))]
        return [(seat, Bid(price))]

    def _par(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        price = int(str(raw["share_price"]).split(",")[0])
        self.share_owners[f"{raw['corporation']}_0"] = seat
        return [(seat, Par(str(raw["corporation"]), price))]

    def _shares(self, raw: dict[str, Any]) -> tuple[str, list[int]]:
        ids = [str(s) for s in raw["shares"]]
        corp = ids[0].rsplit("_", 1)[0]
        return corp, [int(s.rsplit("_", 1)[1]) for s in ids]

    def _buy_shares(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        corp_sym, indexes = self._shares(raw)
        ids = [str(s) for s in raw["shares"]]
        if raw.get("entity_type") == "corporation":
            return self._redeem(seat, corp_sym, ids[0], indexes[0])
        if self._protection_asked():
            self.pool_shares.difference_update(ids)
            self.share_owners.update(dict.fromkeys(ids, seat))
            return [(seat, Protect(corp_sym))]
        self.share_owners.update(dict.fromkeys(ids, seat))
        source: ShareSource = "pool" if ids[0] in self.pool_shares \
            else self._unsold_source(corp_sym)
        self.pool_shares.difference_update(ids)
        return [(seat, BuyShares(corp_sym, len(indexes), source))]

    def _unsold_source(self, corp_sym: str) -> ShareSource:
        """Where a company's never-sold shares lie: the IPO, or (1851, once the company
        floats) its treasury."""
        corp = self.game.state.corporations[corp_sym]
        if not corp.certificates_of(IPO) and corp.certificates_of(TREASURY):
            return "treasury"
        return "ipo"

    def _redeem(self, seat: str, corp_sym: str, share_id: str, index: int
                ) -> list[tuple[str, Action]]:
        """1850 5.10: a company buying its own share redeems it; the site asks nobody's
        consent, so the holder's acceptance follows at once."""
        if share_id in self.pool_shares:
            self.pool_shares.discard(share_id)
            return [(seat, RedeemShares(company=corp_sym))]
        holder = self.share_owners.pop(share_id, None)
        if holder is None:
            holder = self.game.state.corporations[corp_sym].certificates[index].owner
        action: list[tuple[str, Action]] = [(seat, RedeemShares(company=corp_sym,
                                                                holder=holder))]
        if holder != seat:
            action.append((holder, Accept()))
        return action

    def _sell_shares(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        corp_sym, indexes = self._shares(raw)
        corp = self.game.state.corporations[corp_sym]
        if raw.get("entity_type") == "corporation" and \
                isinstance(self.game.round, StockRound):
            # 1850 5.11: a company "selling" its redeemed shares in the stock round
            # reissues them; they stay its own, for sale at the new par.
            return [(seat, ReissueShares(company=corp_sym))]
        for share in raw["shares"]:
            self.share_owners.pop(str(share), None)
        self.pool_shares.update(str(s) for s in raw["shares"])
        percent = raw.get("percent")
        if percent is None:
            percent = sum(corp.certificates[i].percent for i in indexes)
        return [(seat, SellShares(corp_sym, None, int(percent)))]

    # --- 1861 merger round ----------------------------------------------------------------
    def _convert(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """The site converts in two actions: `convert`, then `merge` naming the public."""
        self.forming = ("convert", str(raw["entity"]), ())
        return []

    def _merge(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """The site merges by naming each partner minor (`merge`), passing, then naming
        the public (`merge`); ours is one `merge` order."""
        target = str(raw["corporation"])
        entity = str(raw["entity"])
        kind = self.game.state.corporations[target].spec.kind
        forming = self.forming
        if forming is not None and forming[0] == "convert":
            self.forming = None
            return [(seat, Convert(forming[1], target))]
        if kind == "minor":
            partners = forming[2] if forming is not None else ()
            self.forming = ("merge", entity, (*partners, target))
            return []
        minors = (entity, *(forming[2] if forming is not None else ()))
        self.forming = None
        standing = self._stations_of(minors)
        if _over_token_limit(standing):
            # 12.3: the site merges first and then has the Director remove stations
            # (`remove_token`) until two in different hexes are left: ours names the
            # minors whose stations are kept in the merger order itself.
            self.reducing = (seat, minors, target, standing)
            return []
        return self._merge_order(seat, minors, target)

    def _merge_order(self, seat: str, minors: tuple[str, ...], into: str,
                     stations: tuple[str, ...] = ()) -> list[tuple[str, Action]]:
        # 12.1: the other minors' owners agree (the site does not ask them).
        state = self.game.state
        owners = {state.corporations[m].president for m in minors if m in state.corporations}
        agree: list[tuple[str, Action]] = [(s, Accept()) for s in state.seats_from(seat)
                                           if s in owners and s != seat]
        return [(seat, Merge(minors, into, stations)), *agree]

    def _stations_of(self, minors: tuple[str, ...]) -> dict[str, tuple[str, int]]:
        """Each merging minor's station (hex, city); a minor has one (7.2). Of minors
        sharing one city the site keeps one by itself: the last in the merger's order."""
        found: dict[str, tuple[str, int]] = {}
        for hex_id, cities in self.game.state.board.tokens.items():
            for city, corps in cities.items():
                for sym in corps:
                    if sym in minors:
                        found[sym] = (hex_id, city)
        order = [m for m in self.game.rules.merger_candidates(self.game.state) if m in found]
        by_city = {found[m]: m for m in order}
        return {m: found[m] for m in order if by_city[found[m]] == m}

    def _remove_token(self, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """12.3: the Director removes one of the merged minors' stations (the site's city
        and slot after the merger); once two in different hexes are left, the merger
        order names the minors whose stations stand."""
        if self.reducing is None:
            raise ValueError("a token removed outside a merger")
        seat, minors, into, standing = self.reducing
        tile_id, city = str(raw["city"]).rsplit("-", 1)
        place = (self.tile_hexes.get(tile_id, tile_id.split("-")[0]), int(city))
        removed = next((m for m, at in standing.items() if at == place), None)
        if removed is None:
            raise ValueError(f"no merged station at {place[0]} city {place[1]}")
        del standing[removed]
        if _over_token_limit(standing):
            return []
        self.reducing = None
        kept = tuple(standing)
        if set(kept) == set(self._unnamed_stations(minors)):
            kept = ()  # the stations ours takes when the order names none (12.3)
        return self._merge_order(seat, minors, into, kept)

    def _unnamed_stations(self, minors: tuple[str, ...]) -> list[str]:
        """12.3 as ours reads a merger order naming no stations, where at most two hexes
        hold the minors' stations: one per hex, the earliest operating minor's."""
        state = self.game.state
        hexes = {m: {h for h, cities in state.board.tokens.items()
                     for corps in cities.values() if m in corps} for m in minors}
        if len(set().union(*hexes.values())) > 2:
            return []
        out: list[str] = []
        seen: set[str] = set()
        for m in [m for m in self.game.rules.merger_candidates(state) if m in minors]:
            if hexes[m] and not seen & hexes[m]:
                out.append(m)
                seen |= hexes[m]
        return out

    # --- operating round -----------------------------------------------------------------
    def _choose(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """1850's site choices: the edge token and the Mesabi rights."""
        choice = str(raw.get("choice", ""))
        corp = str(raw["entity"])
        if choice == "Place Edge Token":
            edge = self.game.state.corporations[corp].spec.edge_token
            return [(seat, PlaceEdgeToken(edge.hex if edge else "", company=corp))]
        if choice == "Buy Mesabi Token":
            return [(seat, PayMesabi(company=corp))]
        if self.forms.director_chooses_nationalisation:  # 1861 11
            if choice == "nationalize":
                return [(seat, Nationalise(corp))]
            return [(seat, Keep(corp))]
        raise ValueError(f"no mapping for the choice {choice!r}")

    def _bankrupt(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        # The president cannot buy the train the company must have: ending the turn
        # makes our engine sell what he may and declare him bankrupt.
        return [(seat, Done())]

    def _lay_tile(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        tile = str(raw["tile"]).rsplit("-", 1)[0]
        self.tile_hexes[str(raw["tile"])] = str(raw["hex"])
        lay = LayTile(tile, str(raw["hex"]), int(raw["rotation"]))
        if raw.get("entity_type") == "company":
            return [(seat, UsePrivate(str(raw["entity"]), lay))]
        return [(seat, lay)]

    def _place_token(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        # "57-0-1": city 1 of tile copy 57-0, wherever it lies; a preprinted hex's
        # content is named by the hex itself ("B13-0-0").
        tile_id, city = str(raw["city"]).rsplit("-", 1)
        hex_id = self.tile_hexes.get(tile_id, tile_id.split("-")[0])
        token = PlaceToken(hex_id, int(city))
        if raw.get("entity_type") == "company":
            return [(seat, UsePrivate(str(raw["entity"]), token))]
        corp = self.game.state.corporations.get(str(raw.get("entity")))
        if corp is not None and corp.spec.kind == "minor" and corp.spec.home == hex_id \
                and corp.sym in self.game.state.board.tokens.get(hex_id, {}).get(int(city), []):
            # 1825 R1: the site's minor places its home base as its first operating act;
            # ours placed it when the minor formed.
            return []
        return [(seat, token)]

    def _special_buy(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """1825: the receiver's lease of the bank's train (6.4.3), taken up at its run."""
        if not self.forms.receivers:
            raise ValueError("no mapping for special_buy")
        self.leasing = str(raw.get("entity"))
        return []

    def _run_routes(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        lease: list[tuple[str, Action]] = []
        if self.leasing is not None and self.leasing == raw.get("entity"):
            self.leasing = None
            lease = [(seat, LeaseTrain())]
        routes = []
        for route in raw.get("routes") or []:
            train = self._our_train(str(route["train"]))
            routes.append(Route(train.split("-")[0], walk_hexes(route["connections"])))
        return [*lease, (seat, RunRoutes(tuple(routes)))]

    def _dividend(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        return [(seat, Dividend(raw["kind"]))]

    def _buy_train(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        site_id = str(raw["train"])
        state = self.game.state
        price = int(raw["price"])
        if site_id in self.train_ids:
            ours = self.train_ids[site_id]
            if any(t.id == ours for t in state.trains_pool):
                return [(seat, BuyTrain(ours.split("-")[0], POOL, price))]
            for corp in state.corporations.values():
                if any(t.id == ours for t in corp.trains):
                    return [(seat, BuyTrain(ours.split("-")[0], corp.sym, price))]
            raise ValueError(f"train {site_id} is nowhere")
        offered = state.trains_offered[0]
        variant = raw.get("variant")
        if variant is not None and variant != offered.name:
            # 1861 phase 8: the 5+5E and 2+2 trains are offered beside the 8-trains.
            offered = next((t for t in state.trains_offered if t.name == variant), offered)
        self.train_ids[site_id] = offered.id
        return [(seat, BuyTrain(offered.name, "bank", price))]

    def _our_train(self, site_id: str) -> str:
        return self.train_ids.get(site_id, site_id.replace("'", ""))

    def _discard_train(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        return [(seat, DiscardTrain(self._our_train(str(raw["train"])).split("-")[0]))]

    def _buy_company(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        company = str(raw["company"])
        owner = self.game.state.privates[company].owner
        return [(seat, BuyPrivate(company, owner, int(raw["price"])))]


def _over_token_limit(stations: Mapping[str, tuple[str, int]]) -> bool:
    """12.3: a new company takes at most two stations, in different hexes."""
    hexes = [at[0] for at in stations.values()]
    return len(hexes) > 2 or len(set(hexes)) < len(hexes)


def walk_hexes(connections: list[list[str]]) -> tuple[str, ...]:
    """The hexes a route passes, in order, from the site's node-to-node chains."""
    chains = [list(c) for c in connections if c]
    if not chains:
        return ()
    if len(chains) == 1:
        return tuple(chains[0])
    first, second = chains[0], chains[1]
    if first[0] in (second[0], second[-1]) and first[-1] not in (second[0], second[-1]):
        first = first[::-1]
    out = list(first)
    for chain in chains[1:]:
        if chain[0] == out[-1]:
            out += chain[1:]
        elif chain[-1] == out[-1]:
            out += chain[::-1][1:]
        else:
            raise ValueError(f"route chains do not join: {connections}")
    return tuple(out)
