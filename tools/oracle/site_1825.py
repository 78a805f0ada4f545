"""1825 Unit 1 in the differential check (tools/oracle/differential.py): the random
player's moves left out because the site refuses them or plays them its own way, and the
site's refusals that are listed differences (docs/site-differences.md).

Receivership (4.4, 6.4) is compared with `--receivership` (RECEIVERSHIP, off by
default so that the seeds played before replay alike): a sale may then leave a company
without a director, and the random receiver buys as the site's receiver does (which the
rulebook leaves him free to). The site plays a receiver's train step itself and lends
it its lease; a first difference there is named by `receivership_difference`
(docs/site-differences.md, 4.4, 6.4).

R1 (Wales) games are played with `--option r1` (the kit's minors, hexes and trains).
With `--wales` (WALES, off by default so that the seeds played before replay alike) the
minors build towards Wales's stops (`wales_first`): their lays are tried in every hex
around their track, best first, so that their own trains (the Cambrian's U3 with its
free towns, the Taff Vale's 4T) run, and the Taff Vale reaches V8's two cities.
"""

from __future__ import annotations

import random
from typing import Any

from engine import legal, track
from engine.actions import (
    Action,
    BuyPrivate,
    BuyTrain,
    Done,
    LayTile,
    Pass,
    SellPrivate,
    SellShares,
    SellTrain,
)
from engine.errors import GameError
from engine.game import Game
from engine.geometry import neighbour
from engine.records import forms_1825
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import POOL, Corporation
from engine.titles import t1825_minors, t1825_train_sales
from engine.titles import t1825_receivership as rcv

#: How often a random director pays out before trying to withhold (--payout): paying
#: keeps companies alive (6.3), so that games reach the late phases and the bank's end.
#: (1850's random players too; 1825's own figure below.)
PAYOUT_FIRST = 0.5
#: 1825's, by default: one time in three. Payouts move a price right by up to four
#: spaces (6.3), and at one time in two nearly every game ended at the top of the index
#: (2) before the bank broke (seed 3501 games 40-49: 8 in 10; 4 in 10 at 0.3).
PAYOUT_FIRST_OF = {"1825": 0.3}
#: How often a random director takes up a train from another company when he comes to
#: it (--trades): at any multiple of £10 (5.6.5), trains pass back and forth at £10 and
#: nobody runs; fewer trades let companies earn, so that the bank breaks (2). At 1 the
#: random stream is the one of the games played before the setting (--classic).
TRAIN_TRADES = 0.05
#: The builder's policy (--builder): a director lays track before anything else and
#: buys a train only while his company has fewer than two, and players buy no private
#: back from the pool (sold at face less £30 and bought at face, 4.2, privates passed to
#: and fro drained the players into the bank): companies that earn, and a bank that
#: breaks (2).
BUILDER = True
BUILDER_TRAINS = 3
#: A company at its track step tries its lays before its run (which ends the step): the
#: random player otherwise ran first, and companies with trains laid almost no track
#: (seed 3501 game 0: 11 lays in 3000 moves), earned little and the bank never broke.
LAYS_FIRST = True


def classic_players() -> None:
    """The random players of the games played before 28 November 2026 (seed 3501 games
    0-39, the seeds in docs/site-differences.md; `--classic`, and with `--builder` or
    `--wales` as those were played): runs before lays, payout first one time in two,
    any train offered taken, and (with --builder) two trains at most."""
    global TRAIN_TRADES, BUILDER, BUILDER_TRAINS, LAYS_FIRST
    PAYOUT_FIRST_OF.pop("1825", None)
    TRAIN_TRADES = 1.0
    BUILDER, BUILDER_TRAINS, LAYS_FIRST = False, 2, False


def payout_first(title: str) -> float:
    """How often TITLE's random directors pay out first."""
    return PAYOUT_FIRST_OF.get(title, PAYOUT_FIRST)
#: Receivership (--receivership): the random player may sell a director's certificate
#: into the pool with nobody else holding two shares (4.4, 6.4). Off by default, so that
#: the seeds played before replay alike.
RECEIVERSHIP = False


#: R1 (--wales): the minors lay track towards the stops of Wales, best lay first
#: (`wales_first`), in every hex around their track (`wales_hexes`).
WALES = False


def wales_hexes(game: Game, corp: Corporation, around: set[str]) -> set[str] | None:
    """The hexes a company's random lays are tried in: with WALES, every hex around a
    minor's track (None: the few sampled hexes, as before)."""
    if not WALES or not t1825_minors.is_minor(corp):
        return None
    return around


def _stop_hexes(game: Game) -> set[str]:
    """Hexes with a stop (city, town or off-board), printed or laid."""
    state = game.state
    out = set()
    for hex_id, spec in state.title.hexes.items():
        placed = state.board.tiles.get(hex_id)
        tile = state.title.tiles.get(placed.name) if placed is not None else None
        for t in (spec.tile, tile):
            if t is not None and (t.cities or t.towns or t.offboards):
                out.add(hex_id)
    return out


def _towards(game: Game, corp: Corporation) -> tuple[int, int]:
    """How far CORP's track is from the nearest stop it does not reach yet (hexes), and
    how many stops it reaches (more is better)."""
    state = game.state
    graph = track.build_track(state)
    nodes, segments = track.reachable(state, graph, corp.sym)
    reached = {n.hex for n in nodes if n.kind in ("c", "t", "o")}
    on = {n.hex for n in nodes} | {graph.segments[s].hex for s in segments}
    targets = _stop_hexes(game) - reached
    grid = state.title.grid
    distance = dict.fromkeys(targets, 0)
    frontier = list(targets)
    while frontier:  # breadth first from every stop not reached
        nxt = []
        for hex_id in frontier:
            for edge in range(6):
                other = neighbour(grid, hex_id, edge)
                if other in state.title.hexes and other not in distance:
                    distance[other] = distance[hex_id] + 1
                    nxt.append(other)
        frontier = nxt
    near = min((distance.get(h, 99) for h in on), default=99)
    return near, len(reached)


def wales_runs(game: Game, runs: list[Action], busy: list[Action]) -> list[Action]:
    """With WALES, a minor at its track step with a lay to make lays before it runs
    (the random player tries a run first, which ends its track step); with LAYS_FIRST
    every company."""
    if not (WALES or LAYS_FIRST) or not any(isinstance(a, LayTile) for a in busy):
        return runs
    turn = game.turn()
    corp = game.state.corporations.get(turn.entity) if turn is not None else None
    if turn is None or corp is None or turn.step != "track" or \
            not (LAYS_FIRST or t1825_minors.is_minor(corp)):
        return runs
    return []


def lays_then_runs(game: Game, runs: list[Action], busy: list[Action]
                   ) -> tuple[list[Action], list[Action]]:
    """With LAYS_FIRST, at a company's track step: its lays (in BUSY's order), then its
    runs, then the rest of BUSY (a train bought before the run would skip it)."""
    if not LAYS_FIRST or WALES or wales_runs(game, runs, busy) is runs:
        return runs, busy
    lays = [a for a in busy if isinstance(a, LayTile)]
    return [*lays, *runs], [a for a in busy if not isinstance(a, LayTile)]


def wales_first(game: Game, actions: list[Action]) -> list[Action]:
    """With WALES, a minor's tile lays first, best first: the lay that most raises its
    income with its own train, then the one reaching most stops, then the one whose
    track comes nearest to a stop not yet reached (ties in the shuffled order)."""
    if not WALES:
        return actions
    turn = game.turn()
    corp = game.state.corporations.get(turn.entity) if turn is not None else None
    if corp is None or not t1825_minors.is_minor(corp):
        return actions
    lays = [a for a in actions if isinstance(a, LayTile)]
    if not lays:
        return actions
    assert turn is not None

    def score(lay: LayTile) -> tuple[int, int, int]:
        trial = game.clone()
        try:
            trial.apply(turn.seat, lay)
        except GameError:
            return (1, 0, 99)
        mine = trial.state.corporations[corp.sym]
        income = rcv.best_income(trial.rules, trial.state, mine) if mine.trains else 0
        near, reached = _towards(trial, mine)
        return (-income, -reached, near)

    scored = sorted(lays, key=score)
    return [*scored, *(a for a in actions if not isinstance(a, LayTile))]


def site_refuses(game: Game, action: Action) -> bool:
    """Legal actions the random player leaves out: in 1825, a private sold to the bank
    after the turn's purchase (the rulebook does not order them; the site offers the sale
    only before), one bought from the pool while the bank still has privates never sold,
    and a train from the pool once a company went bankrupt (the site removes its trains,
    6.3)."""
    rnd = game.round
    state = game.state
    if isinstance(action, BuyTrain) and action.source == "pool":
        # 6.3: a bankrupt company's trains go back to the bank for resale; the site
        # removes them (the pool holds no other trains but those discarded).
        return any(c.closed for c in state.corporations.values())
    if not isinstance(rnd, StockRound):
        return False
    if isinstance(action, SellPrivate):
        return rnd.s.turn.bought
    if isinstance(action, BuyPrivate):
        # 4.2: a private in the pool is bought at face value; the site sells none
        # while the bank has privates never sold.
        unsold = any(p.owner is None and not p.closed for p in state.privates.values())
        return unsold and state.privates[action.private].owner is not None
    return False


def left_when_tried(game: Game, action: Action, rng: random.Random | None = None) -> bool:
    """A sale that would leave a company without a director (receivership, above): the
    random player skips it when he comes to it (but with RECEIVERSHIP), as our engine
    refused it before receivership was built, so that the games played then are played
    again alike. With RECEIVERSHIP a receiver buys, after his run, as the site's does. A
    train from another company is skipped but for TRAIN_TRADES of the times, and so is
    an offer of a train (5.6.5) while the company has one standing."""
    if isinstance(action, BuyTrain) and action.source not in ("bank", "pool") and \
            rng is not None and TRAIN_TRADES < 1 and rng.random() >= TRAIN_TRADES:
        return True
    if isinstance(action, SellTrain):
        # 5.6.5: one offer standing per company; a random director otherwise makes
        # offer after offer and his turn never ends.
        turn = game.turn()
        seller = game.state.corporations.get(turn.entity) if turn is not None else None
        if seller is None or any(m.startswith(t1825_train_sales.SELLS)
                                 for m in seller.markers):
            return True
        if rng is not None and TRAIN_TRADES < 1 and rng.random() >= TRAIN_TRADES:
            return True
    rnd = game.round
    if RECEIVERSHIP and isinstance(rnd, OperatingRound) and rnd.current is not None and \
            "route" in rnd.steps and isinstance(action, BuyTrain | Pass | Done) and (
                isinstance(action, BuyTrain)
                or rnd.current.step >= rnd.steps.index("route")):
        corp = game.state.corporations.get(rnd.current.corporation)
        if corp is not None and rcv.in_receivership(corp):
            # After its run the site's receiver buys the bank's next train by itself
            # where one fits, and nothing else (listed, 6.4.4): the random receiver
            # plays so, a choice the rulebook leaves him (6.4: he acts as director).
            buys = forms_1825.site_buys(game, corp)
            if isinstance(action, BuyTrain):
                return not buys or action.source != "bank"
            # (Where our step offers no purchase yet, its pass comes first.)
            turn = game.turn()
            return buys and turn is not None and any(
                isinstance(a, BuyTrain) and a.source == "bank"
                and game.clone().attempt(turn.seat, a) for a in legal.candidates(game))
    if BUILDER:
        if isinstance(action, BuyTrain):
            corp = game.state.corporations.get(game.turn().entity) if game.turn() else None
            if corp is not None and len(corp.trains) >= BUILDER_TRAINS:
                return True
        if isinstance(action, BuyPrivate) and \
                game.state.privates[action.private].owner == POOL:
            return True
    if not isinstance(action, SellShares) or not isinstance(rnd, StockRound):
        return False
    if RECEIVERSHIP:
        return False
    corp = game.state.corporations.get(action.corporation)
    percent = action.percent if action.percent is not None else 10 * (action.count or 1)
    return corp is not None and rcv.receivership_sale(game.state, rnd.s.current, corp,
                                                      percent)


def builders_first(actions: list[Action]) -> list[Action]:
    """The builder's order (BUILDER): tile lays first, the rest as shuffled."""
    if not BUILDER:
        return actions
    return sorted(actions, key=lambda a: not isinstance(a, LayTile))


def site_difference(game: Game, answer: dict[str, Any], action: dict[str, Any],
                    site_states: list[dict[str, Any]]) -> str | None:
    """A refusal of the site that is one of 1825's listed differences
    (docs/site-differences.md), or None."""
    error = str(answer.get("error"))
    said = " ".join(game.state.log)
    from_pool = [a.get("train") for a in action.get("moderator_actions", ())
                 if a.get("source") == "pool"]
    if action.get("type") == "buy_train" and "it is bankrupt" in said and (
            "Not a buyable train" in error or (
                from_pool and f"discards a {from_pool[0]}-train" not in said)):
        # (The site, without the train, also skips a train step ours stops at.)
        return "6.3 a bankrupt company's trains"
    if action.get("type") == "place_token" and "cannot process action place_token" in error:
        home = str(action.get("city", "")).split("-")[0]
        closed = {c.sym for c in game.state.corporations.values() if c.closed}
        if any(c.spec.home == home for c in game.state.corporations.values()
               if c.sym in closed):
            # 6.3: the bankrupt company's base is gone; the site's route graph is not
            # renewed when a company closes, so it does not see the freed station.
            return "6.3 a base where a bankrupt company's stood"
    if "GameIsOver" in error and site_states and \
            site_states[-1]["round"].startswith("Stock Round 100"):
        # A game left with nothing anyone can do: the site ends it at its 100th turn.
        return "the site's end at turn 100 (a dead game)"
    if "GameIsOver" in error and game.state.end_reason == "market":
        return "2 the top of the index ends the game at once"
    at = answer.get("error_action_index")
    if at is not None and "GameIsOver" not in error and after_bankruptcy(
            answer.get("record_actions", []), at, site_states, closed_companies(game)):
        return AFTER_BANKRUPTCY
    return None


def at_top_of_index(game: Game) -> bool:
    """Whether a share price in GAME stands at the top of the index (2: the game ends
    after the current OR; the site ends it at once, even where the bank broke before
    and the end was already due)."""
    market = game.state.market
    return any(market.cell(c.sym).zone == "end" for c in game.state.corporations.values()
               if c.sym in market.positions)


def closed_companies(game: Game) -> set[str]:
    """The companies bankrupt (closed) in our game GAME (6.3)."""
    return {c.sym for c in game.state.corporations.values() if c.closed}


#: A double-headed run the site's loader cannot check (docs/site-differences.md, 5.5.5).
DOUBLE_HEADED = "5.5.5 a double-headed half without a base (the site cannot check it)"
#: The site's refusals of a route of one chain it finds through no base.
HALF_REFUSED = ("Route cannot begin/end in a town", "Route must contain token")


def double_headed(action: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The double-headed pairs (5.5.5) of a record's run: two routes of a 2-train, two
    stops each, sharing one (our export's form of a `2+2`, which the run's
    `moderator_actions` name)."""
    if action.get("type") != "run_routes" or not any(
            r.get("train") == "2+2" for m in action.get("moderator_actions", ())
            for r in m.get("routes", ())):
        return []
    halves = [r for r in action.get("routes", ())
              if str(r.get("train")).split("-")[0] == "2" and len(r.get("hexes", ())) == 2]
    return [[a, b] for i, a in enumerate(halves) for b in halves[i + 1:]
            if a["hexes"][1] == b["hexes"][0]]


def double_heading_unchecked(game: Game, action: dict[str, Any], error: str) -> bool:
    """Whether the site's refusal ERROR of the run ACTION (without revenue) is the listed
    5.5.5 difference, shown in our position GAME at that run (`half_without_base`)."""
    return any(text in error for text in HALF_REFUSED) and half_without_base(game, action)


def half_without_base(game: Game, action: dict[str, Any]) -> bool:
    """Whether the record's run ACTION holds a double-headed pair one half of which has
    no base of the company in its hexes, in our position GAME at that run. The site's
    loader finds a route of one chain only through a base of the company
    (Route#connection_data), so that half has no stops for it, and where the record
    gives no revenue it refuses it as a route of its own, for its town end or its lack
    of a base; the pair is one route legal for a '3' train (5.5.5, 5.5.2), ours."""
    sym = str(action.get("entity"))
    corp = next((c for c in game.state.corporations.values()
                 if (c.spec.site_sym or c.sym) == sym), None)
    if corp is None:
        return False
    tokens = game.state.board.tokens

    def based(half: dict[str, Any]) -> bool:
        return any(corp.sym in corps for hex_id in half["hexes"]
                   for corps in tokens.get(hex_id, {}).values())

    return any(based(a) != based(b) for a, b in double_headed(action))


#: The listed receivership differences (docs/site-differences.md, 4.4, 6.4), by name.
RECEIVER_TRAIN = "6.4.4 the site's receiver's train step"
RECEIVER_TOWNS = "6.4.4 the site's receiver buys for a route to towns only (1.8)"
RECEIVER_LEASE = "6.4.3 the site's lease"
RECEIVER_TURN = "6.4 the site's receiver's turn"
#: Record actions before a first difference in which a company's receivership counts.
RECEIVER_REACH = 6


#: The site's company after a bankruptcy (docs/site-differences.md, 6.3).
AFTER_BANKRUPTCY = "6.3 the site's next company after a bankruptcy: no dividend step"


def after_bankruptcy(actions: list[dict[str, Any]], at: int,
                     site_states: list[dict[str, Any]], closed: set[str]) -> bool:
    """Whether record action AT (a position apart there, or the site's refusal) follows
    a company's bankruptcy at its dividend in the site's turn before (the company gone
    from the site's positions at record action j), the next company C acting alone
    since, and C's run, with revenue, neither withheld nor paid on the site (its cash
    and price unchanged): the site's dividend step, passed as the bankrupt company's
    turn ended, stays passed for C, and with it C's train step. The company gone must
    be bankrupt in ours too (CLOSED: ours at AT)."""
    for j in range(max(1, at - RECEIVER_REACH), min(at + 1, len(site_states))):
        gone = ({c["id"] for c in site_states[j - 1]["corporations"]} -
                {c["id"] for c in site_states[j]["corporations"]}) & closed
        if not gone or actions[j].get("entity") not in gone:
            continue
        later = [(r, a) for r, a in enumerate(actions[j + 1:at + 1], j + 1)
                 if a.get("type") != "message"]
        entities = {a.get("entity") for _, a in later}
        if len(entities) != 1 or any(a.get("entity_type") != "corporation"
                                     for _, a in later):
            continue
        sym = entities.pop()
        for r, a in later:
            if a.get("type") != "run_routes" or r >= len(site_states) or \
                    not sum(int(x.get("revenue", 0)) for x in a.get("routes", ())):
                continue
            before, after = ({c["id"]: c for c in site_states[k]["corporations"]}.get(sym)
                             for k in (r - 1, r))
            if before and after and (before["cash"], before["price"]) == \
                    (after["cash"], after["price"]):
                return True
    return False


def _in_receivership(site_state: dict[str, Any]) -> set[str]:
    return {c["id"] for c in site_state.get("corporations", ())
            if c.get("receivership")}


def receivership_difference(record: dict[str, Any], at: int,
                            ours: list[dict[str, Any] | str],
                            site_states: list[dict[str, Any]],
                            closed: set[str] | None = None) -> str | None:
    """A first difference (a refusal or a lasting position apart) at record action AT
    that one of the listed receivership differences explains, by name, or None.

    It counts where a company the site holds in receivership (driver.rb's
    `receivership`) acts at AT or within the RECEIVER_REACH record actions before it,
    or differs there. The site buys a receiver's train by itself whenever one new train
    fits (a route, room, the cash: even beside its own train), skips its train step
    otherwise, and lends it its lease: RECEIVER_LEASE where the action is the lease or a
    run on a leased train, RECEIVER_TRAIN where a company in receivership holds other
    trains on the site than ours or the action is its train step, RECEIVER_TURN for
    the rest of a receiver's turn (which player acts, the step the site is at)."""
    actions = record["actions"]
    if closed and after_bankruptcy(actions, at, site_states, closed):
        return AFTER_BANKRUPTCY
    first = max(0, at - RECEIVER_REACH)
    held: set[str] = set()
    for j in range(max(0, first - 1), min(at + 1, len(site_states))):
        held |= _in_receivership(site_states[j])
    if not held:
        return None
    action = actions[at] if at < len(actions) else {}
    near = {a.get("entity") for a in actions[first:at + 1]
            if a.get("entity_type") == "corporation"}

    def apart_to(last: int) -> set[str]:
        apart: set[str] = set()
        for j in range(first, min(last + 1, len(ours), len(site_states))):
            mine = ours[j]
            if isinstance(mine, str):
                continue
            for corp in site_states[j]["corporations"]:
                sym = corp["id"]
                if sym in held and sym in mine["corporations"] and \
                        sorted(t.replace("'", "") for t in corp["trains"]) != \
                        mine["corporations"][sym]["trains"]:
                    apart.add(sym)
        return apart

    trains_apart = apart_to(at)
    if not (near & held or trains_apart):
        return None
    # (Our turn may end, and the price move, one action before the site's run of
    # nothing: its purchase then follows within two.)
    ran_nothing = {a.get("entity") for a in actions[first:at + 3]
                   if a.get("type") == "run_routes" and not a.get("routes")}
    if any(not any(mine["corporations"].get(sym, {}).get("trains")
                   for mine in ours[first:at + 3] if not isinstance(mine, str))
           for sym in apart_to(at + 2) & ran_nothing & held):
        # The site's receiver, trainless, ran nothing (its graph's route reaches towns
        # only) and bought the bank's train; ours has no route to a large station to
        # buy one for (6.4.4, 1.8: routes begin and end at large stations) and kept
        # its money.
        return RECEIVER_TOWNS
    if trains_apart:
        return RECEIVER_TRAIN
    if action.get("type") == "special_buy" or (
            action.get("type") == "run_routes" and action.get("entity") in held and any(
                a.get("type") == "special_buy" and a.get("entity") == action.get("entity")
                for a in actions[first:at])):
        return RECEIVER_LEASE
    if (action.get("type") in ("buy_train", "pass") and action.get("entity") in held) or \
            any(a.get("type") == "buy_train" and a.get("entity") in held
                for a in actions[first:at + 1]):
        return RECEIVER_TRAIN
    return RECEIVER_TURN


__all__ = ["at_top_of_index", "builders_first", "classic_players", "closed_companies",
           "double_headed", "double_heading_unchecked", "half_without_base",
           "lays_then_runs", "left_when_tried", "payout_first", "receivership_difference",
           "site_difference", "site_refuses", "wales_first", "wales_hexes", "wales_runs"]
