"""The differential check (18TN, 1850): random legal games played in our engine,
exported as 18xx.games records (`engine.records`, unrepaired) and replayed in the site's
engine.

For each game the position after every record action is compared (players' cash and
shares, companies' cash, share prices and trains, the bank) and the games are grouped
by their first disagreement. Seeded and reproducible: game i of seed S is played with
`random.Random(S * 100_000 + i)` by 3 + i % 3 players (18TN; 1850: 2 + i % 5), who
run their best routes, pay or withhold at random and otherwise take a random legal
action, one that is not a pass four times in five (as tests/engine/test_random_games.py
plays). Where the site has no form for a rule of ours (1850: a private sold between
players, which the rulebook allows and the site does not offer), the players leave it.
The site is given the runs without their revenue, so that it checks each route and
pays it itself (`ROUTES`; `--no-routes` gives the revenue, which it takes as it stands).

    .venv/bin/python tools/oracle/differential.py --title 1850 --games 200 --seed 1

Needs the oracle set up outside the repository (DEVELOPERS.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import site_18tn
import site_1825
import site_1850
import site_1861
from oracle import DEFAULT_SITE_LIB, Oracle

from engine import legal, track
from engine.actions import (
    Action,
    Dividend,
    Done,
    LayTile,
    Pass,
    RedeemShares,
    RunRoutes,
    SellPrivate,
    SellShares,
)
from engine.defaults import conservative_action
from engine.errors import GameError
from engine.game import Game, Setup
from engine.geometry import neighbour
from engine.records import (
    RecordMapper,
    expanded,
    export_record,
    folded_actions,
    import_record,
    pass_idle_players,
    replay_action,
    setup_of,
)
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import Corporation, GameState
from engine.titles.t18tn import CIVIL_WAR
from engine.titles.t1850 import CAPITAL_DUE

SEATS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
MAX_MOVES = 5000
STUCK = 60  # passes in a row after which a random game is over
PERSIST = 3
#: 1850: a company's closure when the site settles its empty run at its track step can
#: show until the next company's passes carry our `done` (docs/site-differences.md).
#: 1825: likewise a trainless company's empty run, which the site settles at once when
#: a promotion used up its track step and no base is within its credit, and ours when
#: the next passes carry our `done` (seed 13 games 2 and 4: the same final scores).
#: 1861: two companies in a row nationalised for their unpaid interest (10.8), each
#: turn ended by the site at once and by ours at the next company's action, then the
#: next round's private income: a lag of three actions (seed 18 game 5).
PERSIST_OF = {"1850": 5, "1825": 5, "1861": 5}
#: Per title, the module that names its listed differences at a refusal of the site.
SITE_HOOKS = {"1825": site_1825, "1850": site_1850, "1861": site_1861}
HEXES_TRIED = 6
#: Titles whose random companies pay out first (--payout of the time).
PAYOUT_TITLES = ("1825", "1850")


#: Players per game: game i of a title has PLAYERS[title][i % len(...)] players.
PLAYERS = {"18TN": (3, 4, 5), "1850": (2, 3, 4, 5, 6), "1825": (2, 3, 4, 5),
           "1861": site_1861.PLAYERS}
#: Our actions the site has no form for, per title: the random players leave them.
NO_SITE_FORM: dict[str, tuple[type, ...]] = {"1850": (SellPrivate,)}


def record_name(title: str, seed: int, index: int) -> str:
    """The file name of game `index` of `seed` (18TN's keep their first names)."""
    return f"game-{seed}-{index}.json" if title == "18TN" else f"{title}-{seed}-{index}.json"


def played(seed: int, index: int, cache: Path | None, title: str = "18TN") -> Game:
    """Game `index` of `seed`, from the cache folder when it was played before (the play
    is deterministic; a cached log our engine now refuses is played again)."""
    path = cache / record_name(title, seed, index) if cache is not None else None
    if path is not None and path.exists():
        try:
            return cut_stuck(Game.from_json(json.loads(path.read_text())))
        except GameError:
            pass
    game = play(seed, index, title)
    if path is not None:
        path.write_text(game.dumps())
    return game


# The title played (set by main and by `play`): 18TN, 1850, or 1825 Unit 1 (with the
# site's figures, the option the site's `unit_1` maps to: a £5000 bank and the SECR at
# £71).
TITLE = "18TN"
#: Options each title's random games are played with.
OPTIONS: dict[str, frozenset[str]] = {"1825": frozenset({"site_figures"}),
                                      "1861": site_1861.OPTIONS}
#: Moves after which a random game stops (1825: a dead game goes on: nothing ends it).
MOVES = {"1825": 3000}


def new_game(seed: int, index: int, title: str | None = None) -> Game:
    title = title or TITLE
    game_seed = seed * 100_000 + index
    counts = PLAYERS[title]
    return Game(Setup(title, SEATS[: counts[index % len(counts)]], seed=game_seed,
                      options=OPTIONS.get(title, frozenset())))


def play(seed: int, index: int, title: str = "18TN") -> Game:
    global TITLE
    TITLE = title
    game_seed = seed * 100_000 + index
    rng = random.Random(game_seed)
    game = new_game(seed, index, title)
    left_out = NO_SITE_FORM.get(title, ())
    real_tile_lays = legal.tile_lays

    def sampled_tile_lays(game: Game, corp: Corporation, hexes: set[str] | None = None,
                          any_hex: bool = False, prune: bool = True) -> Iterator[LayTile]:
        # Lays in a few hexes near the network, not all of them: the candidates are
        # the slow part of a random game, and any legal lay will do.
        if hexes is None:
            graph = track.build_track(game.state)
            nodes, segments = track.reachable(game.state, graph, corp.sym)
            near = {n.hex for n in nodes} | {graph.segments[s].hex for s in segments}
            around = set(near)
            for hex_id in near:
                for edge in range(6):
                    around.add(neighbour(game.state.title.grid, hex_id, edge))
            wales = site_1825.wales_hexes(game, corp, around) \
                if game.state.title.name == "1825" else None
            hexes = wales if wales is not None else \
                set(rng.sample(sorted(around), min(HEXES_TRIED, len(around))))
        return real_tile_lays(game, corp, hexes, any_hex, prune)

    legal.tile_lays = sampled_tile_lays
    last_real = 0  # moves up to the last one that was not a pass
    try:
        for _ in range(MOVES.get(title, MAX_MOVES)):
            turn = game.turn()
            if turn is None:
                break
            take(rng, game, turn.seat, left_out)
            if not isinstance(game.log[-1].action, Pass | Done):
                last_real = len(game.log)
            elif len(game.log) - last_real > STUCK:
                break
    finally:
        legal.tile_lays = real_tile_lays
    return cut_stuck(game)


def cut_stuck(game: Game) -> Game:
    """A game where nobody could do anything but pass, round after round (every company
    closed, nobody with the cash to start one), stops at its last other move."""
    if game.turn() is None:
        return game
    real = [i for i, move in enumerate(game.log) if not isinstance(move.action, Pass | Done)]
    last_real = real[-1] + 1 if real else 0
    if len(game.log) - last_real <= STUCK:
        return game
    return settled(Game(game.setup, game.log[:last_real]), stuck=True)


def without_open_offer(game: Game) -> Game:
    """GAME cut (at the cap of moves) while an offer waits for its answer (a train
    between companies, a private between players, a redemption) ends before the offer:
    the record writes an offer with its answer as one action, which the site carries
    out at once (1825 seed 3501 game 5: GER's offer for LNWR's train, cut before Ann's
    answer, compared as a purchase the site had made and ours not yet)."""
    while not game.state.game_over and game.log:
        turn = game.turn()
        if turn is None or not turn.step.startswith("answer "):
            return game
        game = Game(game.setup, game.log[:-1])
    return game


def settled(game: Game, stuck: bool = False) -> Game:
    """GAME with a last sale still waiting for the protection decisions (1850 5.9)
    settled by the players' conservative moves (the seller's turn ends, nobody
    protects), as the site settles it at once; and a STUCK game (cut at its last move
    but passes) whose operating round was under way played to its end the same way, as
    the site ends it at once (a trainless company's empty run, its price's fall)."""
    for _ in range(20 * len(game.setup.seats)):
        turn = game.turn()
        if turn is None or not (game.state.pending_sales or (
                stuck and isinstance(game.round, OperatingRound))):
            break
        game.apply(turn.seat, conservative_action(game))
    return game


def take(rng: random.Random, game: Game, seat: str,
         left_out: tuple[type, ...] = ()) -> None:
    """Apply a random legal action: the best routes run, a random dividend, and otherwise
    a random candidate, one that is not a pass four times in five. The candidates are
    tried in that order of preference (random within each) until the game accepts one."""
    allowed = [a for a in legal.candidates(game) if not isinstance(a, left_out)]
    # (Where the site refuses every choice left, as a forced sale above the certificate
    # limit that must hand a presidency on, the game goes on to the difference.)
    candidates = [a for a in allowed if not site_refuses(game, a)] or allowed
    runs = [a for a in candidates if isinstance(a, RunRoutes) and a.auto]
    pays = [a for a in candidates if isinstance(a, Dividend)]
    rng.shuffle(pays)
    if game.state.title.name in PAYOUT_TITLES and len(pays) > 1 and \
            rng.random() < site_1825.payout_first(game.state.title.name):
        # Paying out more often than not keeps companies alive (1825 6.3, 1850's black
        # area): games that reach the late phases and the bank's end, not only dead ones.
        pays.sort(key=lambda a: a.choice != "payout")
    busy = [a for a in candidates if not isinstance(a, Pass | Done | RunRoutes | Dividend)]
    idle = [a for a in candidates if isinstance(a, Pass | Done)]
    rng.shuffle(busy)
    if game.state.title.name == "1825":
        busy = site_1825.wales_first(game, site_1825.builders_first(busy))
        runs, busy = site_1825.lays_then_runs(game, runs, busy)
        runs = site_1825.wales_runs(game, runs, busy)
    rng.shuffle(idle)
    others = [a for a in candidates if isinstance(a, RunRoutes) and not a.auto]
    if rng.random() < 0.8:
        order = [*runs, *pays, *busy, *idle, *others]
    else:
        mixed = busy + idle
        rng.shuffle(mixed)
        order = [*runs, *pays, *mixed, *others]
    # The site-refused actions come last: where our rules leave nothing else (a forced
    # purchase of a closed company's train from the Open Market, 1850 5.1.1), the game
    # goes on to the listed difference instead of stopping the run.
    # Among them a move the site has no form for at all comes after those it refuses as
    # a listed difference (1850: a redemption from another player, 5.10.3, where a
    # player over the certificate limit may otherwise only make sales the site reads
    # otherwise, seed 3501 game 63).
    kept = set(candidates)  # (a list's `in` made this quadratic: 1861's many pars)
    order += sorted((a for a in allowed if a not in kept),
                    key=lambda a: last_resort(game, seat, a))
    judge = legal.Judge(game, seat)
    for action in order:
        if game.state.title.name == "1825" and site_1825.left_when_tried(game, action, rng):
            continue
        if refused_on_sight(judge, action):
            continue  # (as trying it would: the same move is taken, without the copy)
        try:
            game.apply(seat, action)  # a refusal leaves the game as it was
            return
        except GameError:
            continue
    raise RuntimeError(f"no legal action for {seat} in {game.round_name}: {game.legal()}")


def refused_on_sight(judge: legal.Judge, action: Action) -> bool:
    """Whether our engine refuses ACTION without its being tried: the shortcuts of
    `engine.legal` (`refused_on_sight`, the stock round's and the auctions' own checks), which
    tests/engine/test_legal_equivalence.py holds equal to trying the action on a copy.
    A refused try costs a copy of the position (most of a random 1861 game's time: a
    par of every company at every price before phase 4, 9.3)."""
    game = judge.game
    if legal.refused_on_sight(game, action) or judge.refused_in_stock_round(action):
        return True
    return judge.proposal(action) is False or judge.auction_bid(action) is False


def last_resort(game: Game, seat: str, action: Action) -> int:
    """The order in which the moves the site refuses are tried where nothing else is
    left: a sale first (a player over the certificate limit must sell; the sale's
    listed difference may never show, 5.2.2, 5.1.1), then the others (1850: a reissue
    at a par above $200, 5.11, shows at the next purchase), and last a move the site has
    no form for (1850 5.10.3: a company redeeming another player's share; seed 3501
    games 63 and 78)."""
    if game.state.title.name == "1850" and isinstance(action, RedeemShares) and \
            action.holder not in (None, seat):
        return 2
    return 0 if isinstance(action, SellShares) else 1


def site_refuses(game: Game, action: Action) -> bool:
    """Legal actions the random player leaves out because the site refuses them, a
    difference known and listed (docs/site-differences.md), so that the rest of the game
    is compared (1825: tools/oracle/site_1825.py)."""
    if game.state.title.name == "1850":
        return site_1850.site_refuses(game, action)
    if game.state.title.name == "1825":
        return site_1825.site_refuses(game, action)
    if game.state.title.name == "1861":
        return site_1861.site_refuses(game, action)
    if game.state.title.name == "18TN":
        return site_18tn.site_refuses(game, action)
    return False


# --- positions, ours and the site's, in one shape ---------------------------------------


def _train_name(site_or_ours: str) -> str:
    return site_or_ours.replace("'", "")


# What is compared of each company (ours None: not known yet; the site's missing: not
# recorded by the driver that cached it).
COMPARED = ("cash", "price", "trains", "loans")


def our_summary(state: GameState, ids: dict[str, str]) -> dict[str, Any]:
    """Our position in the shape of the driver's summaries (trains by type name; 1861's
    minors by the site's symbols)."""
    return {
        "players": {ids[seat]: {"cash": p.cash,
                                "shares": {c.spec.site_sym or c.sym: c.percent_held_by(seat)
                                           for c in state.corporations.values()
                                           if c.percent_held_by(seat)}}
                    for seat, p in state.players.items()},
        # 1850 5.6.4: ours pays a company's capital at the end of the stock round, the
        # site when it floats (docs/site-differences.md): count it as paid. 1825: a
        # company's credit comes at formation in the operating round (5.1.2), the
        # site's when its sixth share is sold: compared once it has formed.
        "corporations": {c.spec.site_sym or c.sym: {
                                 "cash": None if TITLE == "1825" and not c.floated
                                 else c.cash + (10 * (c.par_price or 0)
                                                if CAPITAL_DUE in c.markers else 0),
                                 "price": state.market.price(c.sym)
                                 if c.sym in state.market.positions else None,
                                 "trains": sorted(t.name for t in c.trains),
                                 "loans": c.loans,
                                 "civil_war": CIVIL_WAR in c.markers}
                         for c in state.corporations.values()},
    }


def site_summary(state: dict[str, Any]) -> dict[str, Any]:
    return {
        "players": {str(p["id"]): {"cash": p["cash"],
                                   "shares": {k: v for k, v in p["shares"].items() if v}}
                    for p in state["players"]},
        "corporations": {c["id"]: {"cash": c["cash"], "price": c["price"],
                                   "trains": sorted(_train_name(t) for t in c["trains"]),
                                   "civil_war": "civil_war" in c.get("abilities", ()),
                                   # 1861 10.2; absent from states cached before loans
                                   # were compared, and then not compared
                                   **({"loans": c["loans"]} if "loans" in c else {})}
                         for c in state["corporations"]},
    }


def war_apart(ours: dict[str, Any], site: dict[str, Any]) -> set[str]:
    """Companies holding the site's Civil War token but not ours (docs/site-differences.md,
    5.1: the site gives it to a company without a route)."""
    return {sym for sym, mine in ours["corporations"].items()
            if site["corporations"].get(sym, {}).get("civil_war") and not mine["civil_war"]}


def holders_apart(ours: dict[str, Any] | str, site: dict[str, Any]) -> set[str]:
    """The players (by id) and companies whose positions differ (`site`: the site's
    position summarised, `site_summary`)."""
    if isinstance(ours, str):
        return set()
    out = companies_apart(ours, site)
    for pid, mine in ours["players"].items():
        theirs = site["players"].get(pid)
        if theirs is None:
            out.add(f"player {pid}")
            continue
        if mine["cash"] != theirs["cash"]:
            out.add(f"player {pid} cash")
        # Per company: one company closing an action late, then another, is two lags,
        # not one lasting difference of the player.
        out |= {f"player {pid} {sym}" for sym in set(mine["shares"]) | set(theirs["shares"])
                if mine["shares"].get(sym) != theirs["shares"].get(sym)}
    return out


def companies_apart(ours: dict[str, Any], site: dict[str, Any]) -> set[str]:
    return {sym for sym, mine in ours["corporations"].items()
            if sym in site["corporations"] and any(
                mine[key] is not None and key in site["corporations"][sym]
                and mine[key] != site["corporations"][sym][key]
                for key in COMPARED)}


def differences(ours: dict[str, Any], site: dict[str, Any]) -> list[str]:
    """What differs, as short labels ("player cash", "company price", ...)."""
    out: list[str] = []
    for pid, mine in ours["players"].items():
        theirs = site["players"].get(pid)
        if theirs is None:
            out.append("player missing")
            continue
        if mine["cash"] != theirs["cash"]:
            out.append("player cash")
        if mine["shares"] != theirs["shares"]:
            out.append("player shares")
    for sym, mine in ours["corporations"].items():
        theirs = site["corporations"].get(sym)
        if theirs is None:
            continue
        for key in COMPARED:
            if mine[key] is not None and key in theirs and mine[key] != theirs[key]:
                out.append(f"company {key}")
    return sorted(set(out))


# --- one game ------------------------------------------------------------------------------


@dataclass
class Outcome:
    index: int
    group: str  # "agree", "not exportable: ...", "refused: ...", "differs: ..."
    detail: str = ""
    record: dict[str, Any] | None = None
    site_result: dict[str, int] = field(default_factory=dict)
    features: list[str] = field(default_factory=list)
    routes: int = 0  # routes the site checked and paid itself (ROUTES)
    routes_given: int = 0  # routes given with their revenue (listed: 1825 5.5.5)


def _normalise(text: str) -> str:
    """An error message with its particulars (numbers, ids) blurred, to group by."""
    text = re.sub(r"\$?\d+", "N", text)
    text = re.sub(r"\b[A-Z][A-Z0-9&]{1,6}\b", "X", text)
    return text[:120]


#: Runs go to the site without their revenue (--no-routes: with it), so that the site
#: checks each route and computes its revenue: a recorded revenue it takes as it stands
#: (DEVELOPERS.md, "Routes"). A refused route is a refusal, a revenue of its own a
#: position apart after the run.
ROUTES = True


def without_revenue(record: dict[str, Any], given: set[int]) -> dict[str, Any]:
    """RECORD with the revenue left out of every run but those whose ids are GIVEN."""
    actions = []
    for action in record["actions"]:
        if action.get("type") == "run_routes" and action.get("id") not in given:
            action = {k: v for k, v in action.items() if k != "revenue_str"} | {
                "routes": [{k: v for k, v in r.items() if k != "revenue"}
                           for r in action.get("routes", ())]}
        actions.append(action)
    return {**record, "actions": actions}


def _runs_in(record: dict[str, Any], upto: int | None, given: set[int]) -> tuple[int, int]:
    """The routes of the runs before action UPTO (all: None) the site checked, and those
    it was given with their revenue."""
    checked = left = 0
    for action in record["actions"][:upto]:
        if action.get("type") == "run_routes":
            count = len(action.get("routes") or ())
            if action.get("id") in given:
                left += count
            else:
                checked += count
    return checked, left


def replay_routes(oracle: Oracle, record: dict[str, Any], path: Path,
                  counts: dict[str, int], given: set[int]) -> dict[str, Any]:
    """The site's answer for RECORD (written at PATH), its runs without their revenue
    where ROUTES, but for the runs whose ids are GIVEN: the listed 1825 5.5.5 runs the
    site's loader cannot resolve (a double-headed half without a base,
    `site_1825.half_without_base`, judged in our position at each run by _our_states).
    COUNTS gets the routes checked and given."""
    if not ROUTES:
        return oracle.replay(path, states=True)
    trial = path.with_name(path.stem + ".routes.tmp")
    try:
        trial.write_text(json.dumps(without_revenue(record, given)))
        answer = oracle.replay(trial, states=True)
    finally:
        trial.unlink(missing_ok=True)
    counts["checked"], counts["given"] = _runs_in(record, answer.get("error_action_index"),
                                                  given)
    return answer


def check(oracle: Oracle, seed: int, index: int, scratch: Path, cache: Path | None,
          title: str = "18TN") -> Outcome:
    counts: dict[str, int] = {}
    outcome = _check(oracle, seed, index, scratch, cache, title, counts)
    outcome.routes, outcome.routes_given = counts.get("checked", 0), counts.get("given", 0)
    return outcome


def _check(oracle: Oracle, seed: int, index: int, scratch: Path, cache: Path | None,
           title: str, counts: dict[str, int]) -> Outcome:
    try:
        game = played(seed, index, cache, title)
        # (A game shorter than the cap of moves was cut where it got stuck.)
        stuck = not game.state.game_over and len(game.log) < MOVES.get(title, MAX_MOVES) - 1
        game = settled(without_open_offer(game), stuck)
    except Exception as exc:  # our engine fails: a finding in itself
        return Outcome(index, f"our engine fails: {_normalise(str(exc))}", repr(exc))
    features = _features(game)
    final = game
    try:
        record = export_record(game, game_id=index)
    except Exception as exc:
        tail = re.fullmatch(r"moves from (\d+) on are not the site's own passes", str(exc))
        if tail is None or game.state.game_over:
            return Outcome(index, f"not exportable: {_normalise(str(exc))}", repr(exc),
                           features=features)
        # A game cut short (MAX_MOVES) ends in our passes the site would make at the
        # next round's start: compare what comes before them.
        cut = game.log[:int(tail.group(1))]
        game = Game(game.setup, cut)
        # Compared at the record's end as the site settles it there, at once.
        final = settled(Game(game.setup, cut), stuck)
        record = export_record(game, game_id=index)
    path = scratch / record_name(title, seed, index)
    path.write_text(json.dumps(record))
    given: set[int] = set()  # runs the site is given with their revenue (listed)
    ours = _our_states(record, final.state, given if ROUTES and TITLE == "1825" else None)
    answer = replay_routes(oracle, record, path, counts, given)
    site_states = answer.get("states") or []
    diffs: list[list[str]] = []
    war: list[set[str]] = []  # companies with the site's Civil War token only
    apart: list[set[str]] = []  # companies whose position differs
    operating: list[set[str]] = []  # the site's acting entities
    rsr_extra = 0  # 1861 10.8: what the site's RSR holds of unpaid interest (listed)
    site_now: list[dict[str, Any]] = []  # the site's positions summarised (and adjusted)
    for mine, theirs in zip(ours, site_states, strict=False):
        if isinstance(mine, str):
            return Outcome(index, f"our import fails: {_normalise(mine)}", mine, record,
                           features=features)
        theirs_now = site_summary(theirs)
        if TITLE == "1861":
            site_1861.rsr_apart(mine, theirs_now)
            recent = [s for s in ours[max(0, len(diffs) - 6):len(diffs) + 1]
                      if not isinstance(s, str)]
            rsr_extra = site_1861.unpaid_interest_to_rsr(
                recent, theirs_now, rsr_extra, ours[len(diffs) + 1:len(diffs) + 4])
            if answer["finished"] and len(diffs) == len(site_states) - 1:
                # 13: at the end the site "pays off" the loans by moving the prices
                # (compared) and clears them; ours leaves the markers.
                for corp in theirs_now["corporations"].values():
                    corp.pop("loans", None)
        if any(a.get("type") == "bankrupt" for a in record["actions"][:len(diffs) + 1]):
            # docs/site-differences.md, bankrupt players' cash: the site gives it to
            # the bank, ours keeps it on the bankrupt player (scored 0 either way).
            for pid, player in theirs_now["players"].items():
                if player["cash"] == 0 and pid in mine["players"]:
                    player["cash"] = mine["players"][pid]["cash"]
        site_now.append(theirs_now)
        diffs.append(differences(mine, theirs_now))
        war.append(war_apart(mine, theirs_now))
        apart.append(companies_apart(mine, theirs_now))
        operating.append(set(theirs["acting"]))
    if rsr_extra:  # (compared less it, listed: docs/site-differences.md, 1861 10.8)
        features = [*features, f"10.8 the site's RSR +{rsr_extra}"]
    # The engines do some things at different moments of a turn (the site withholds
    # for a company without trains before it buys one): a difference counts where it
    # lasts PERSIST actions, or to the end of what both replayed.
    persist = PERSIST_OF.get(TITLE, PERSIST)
    for at, diff in enumerate(diffs):
        # Messages carry moves of ours the site makes by itself or not at all: the site
        # does nothing at them, so they do not count toward a difference's length.
        window = [j for j in range(at, len(diffs))
                  if j == at or not uncounted(record["actions"][j], site_states[j])][:persist]
        lasting = len(window) == persist or answer["ok"]
        meets = next((j for j in range(at + 1, len(diffs))
                      if record["actions"][j]["type"] != "message" or not diffs[j]), None)
        if meets is not None and not diffs[meets] and \
                record["actions"][meets]["type"] == "message":
            # Our moves in the messages were made by the site at this action (a run of
            # nothing, which the site settles at its pass; 1825: its bankruptcy, its
            # passes after it): the positions meet again at the last of them.
            continue
        if diff == ["company price"] and empty_run_lag(ours, apart, operating, window):
            # docs/site-differences.md (1850): the site settles a trainless company's
            # dividend step when its token step ends, ours when it passes its run.
            continue
        if TITLE == "1861" and diff == ["company cash"] and all(
                apart[j] <= site_1861.interest_unpaid_yet(ours[j], site_now[j])
                for j in window):
            # docs/site-differences.md (1861, the site's stops): the interest ours pays
            # after the dividend the site pays after its stop for a private's purchase.
            continue
        if TITLE in ("1825", "1850", "1861"):
            # Per player and company: our company's turn may move its price one
            # action after the site's (our empty run travels in a message after the
            # site's pass), a lag that is no lasting difference of that company; one
            # company's lag may follow another's.
            same = set.intersection(*(holders_apart(ours[j], site_now[j])
                                      for j in window)) if diff else set()
            lasting = lasting and bool(same)
        if diff and lasting and all(diffs[j] for j in window):
            action = record["actions"][at]
            tokened = set().union(*war[:at + 1])
            # 5.1 shown: every company apart holds the site's token and not ours, or,
            # where only players differ, a company so tokened has just run.
            acting = operating[at - 1 if at else 0] | operating[at]
            if tokened and (apart[at] <= tokened if apart[at] else bool(tokened & acting)):
                return Outcome(index, "site difference: 5.1 civil war token",
                               f"action {at}: {', '.join(diff)} of {sorted(tokened)}",
                               record, features=features)
            prev = record["actions"][at - 1] if at else {}
            if TITLE == "1850" and at and site_1850.stock_round_ended_early(site_states, at):
                return Outcome(index, "site difference: 5.2.2 the site's stock round ended",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            known = site_1861.difference_at(record, at, diff, ours[at], site_now[at]) \
                if TITLE == "1861" else None
            if TITLE == "1861" and rsr_extra and "RSR" in apart[at] and \
                    site_1861.rsr_bought_with_interest(ours[at]["corporations"].get("RSR"),
                                                       site_now[at]["corporations"].get("RSR"),
                                                       rsr_extra):
                # What the site's RSR holds of unpaid interest (10.8, listed) let it buy
                # a train ours cannot yet.
                known = "10.8 unpaid interest: the site's RSR holds the company's cash"
            if known is not None:
                return Outcome(index, f"site difference: {known}",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            after = our_game_at(record, at + 1) if TITLE == "1825" else None
            known = site_1825.receivership_difference(
                record, at, ours, site_states,
                site_1825.closed_companies(after) if after is not None else set()) \
                if TITLE == "1825" else None
            if known is not None:
                return Outcome(index, f"site difference: {known}",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            bought = our_game_at(record, at) if TITLE == "1850" and \
                action["type"] == "buy_shares" and action.get("entity_type") == "player" \
                else None
            if bought is not None and site_1850.reissue_par_shown(bought, action, ours[at],
                                                                  site_now[at]):
                return Outcome(index, "site difference: 5.11 a reissue's par above $200",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            after = our_game_at(record, at + 1) if TITLE == "1850" and \
                action["type"] == "bankrupt" and \
                set(diff) <= site_1850.BANKRUPTCY_APART else None
            if after is not None and site_1850.bankrupt_sales_unsettled(
                    after, action, ours[at], site_now[at]):
                return Outcome(index, "site difference: 12.1 the bankrupt president's "
                               "own sales (the site's queue unsettled)",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            after = our_game_at(record, at + 1) if TITLE == "1850" and \
                diff == ["player cash"] and action["type"] == "sell_shares" else None
            if after is not None and site_1850.closure_money_kept(after, action, ours[at],
                                                                  site_now[at]):
                return Outcome(index, "site difference: 10.7.2 the president's money at a "
                               "closure for a train (the site leaves it)",
                               f"action {at}: {', '.join(diff)}", record, features=features)
            before = our_game_at(record, at) if TITLE == "1850" else None
            if before is not None and site_1850.train_step_skipped(record, at, before) and \
                    site_1850.closed_trains_apart(before, site_states[:at]):
                return Outcome(index, "site difference: 5.1.1 a closed company's trains",
                               f"action {at}: {', '.join(diff)} (the site skips the "
                               "train step)", record, features=features)
            return Outcome(index, f"differs: {', '.join(diff)} after {action['type']}",
                           f"action {at} ({json.dumps(action)[:200]}; before: "
                           f"{prev.get('type')}) {site_states[at]['round']}", record,
                           features=features)
    if not answer["ok"]:
        at = answer["error_action_index"]
        action = record["actions"][at] if at is not None else {}
        # Ours just before the refused action: a listed difference is named only where
        # the two positions there differ as it says.
        at_game = our_game_at(record, at) if at is not None else None
        if "GameIsOver" in str(answer.get("error")) and site_states and \
                site_states[-1]["round"].startswith("Stock Round 100"):
            # A game left with nothing anyone can do: the site ends it at its 100th
            # turn (docs/site-differences.md); it agreed up to there.
            return dead_game(index, record, answer, at, features)
        if "No step found" in str(answer.get("error")) and at is not None and \
                site_states and site_states[-1]["round"].startswith("Stock Round"):
            # A company closed by a sale in a stock round: the site's round is left with
            # a player who has no step (its own dead end) and cannot go on; ours does.
            # The scores there are compared as at its end of a dead game.
            return dead_game(index, record, answer, at, features)
        if TITLE == "1861" and rsr_extra and site_now and len(ours) >= len(site_now) and \
                not isinstance(ours[len(site_now) - 1], str):
            mine_rsr = ours[len(site_now) - 1]["corporations"].get("RSR")
            theirs_rsr = site_now[-1]["corporations"].get("RSR")
            if mine_rsr and theirs_rsr and site_1861.rsr_bought_with_interest(
                    mine_rsr, theirs_rsr, rsr_extra):
                # What the site's RSR holds of unpaid interest (10.8, listed) let it buy
                # a train ours cannot (and begin a phase, whose choices it then asks).
                return Outcome(index, "site difference: 10.8 unpaid interest: the site's "
                               "RSR holds the company's cash",
                               f"action {at}: {answer['error']}", record, features=features)
        if TITLE == "1825" and at_game is not None and site_1825.double_heading_unchecked(
                at_game, action, str(answer.get("error"))):
            # (Where our position's judgement by hexes misses one.)
            return Outcome(index, f"site difference: {site_1825.DOUBLE_HEADED}",
                           f"action {at}: {answer['error']}", record, features=features)
        if TITLE == "1825" and at is not None and at_game is not None and \
                "GameIsOver" in str(answer.get("error")) and \
                site_1825.at_top_of_index(at_game):
            # 2: a share price at the top of the index ends the game "at the end of the
            # current OR"; the site ends it at once (listed): both engines' scores are
            # compared at the site's end, as at its end of a dead game. (Also where the
            # bank had broken before: seed 3501 game 84, the site's end at once.)
            return dead_game(index, record, answer, at, features, TOP_OF_INDEX)
        hook = SITE_HOOKS.get(TITLE)
        if hook is not None and at_game is not None:
            answer["record_actions"] = record["actions"]
            answer["record_players"] = record.get("players") or []  # (1861 9.4)
            answer["rsr_extra"] = rsr_extra  # (1861 10.8: the site's RSR's extra money)
            known = hook.site_difference(at_game, answer, action, site_states)
            if known is not None:
                return Outcome(index, f"site difference: {known}",
                               f"action {at}: {answer['error']}", record, features=features)
        known = site_1825.receivership_difference(
            record, at, ours, site_states,
            site_1825.closed_companies(at_game) if at_game is not None else set()) \
            if TITLE == "1825" and at is not None else None
        if known is not None:
            # docs/site-differences.md, 4.4, 6.4: the site's receivership.
            return Outcome(index, f"site difference: {known}",
                           f"action {at}: {answer['error']}", record, features=features)
        kind = auction_difference(record, at, site_states) \
            if action.get("type") in ("bid", "pass") else None
        if kind is not None:
            # docs/site-differences.md, 3.1.1 (1850: 5.7): the site drops a bidder who
            # passed and orders the auction's turns otherwise.
            rule = "5.7" if TITLE == "1850" else "3.1.1"
            return Outcome(index, f"site difference: {rule} {kind}",
                           f"action {at}: {answer['error']}", record, features=features)
        if TITLE == "18TN" and site_18tn.sale_in_site_first_round(at_game, action, site_states):
            # docs/site-differences.md, 3.2(a)(1): after an all-pass first stock round
            # the site's first stock round is the rulebook's second.
            return Outcome(index, "site difference: 3.2(a)(1) a sale in the second stock "
                           "round (the site's first)", f"action {at}: {answer['error']}",
                           record, features=features)
        if action.get("type") == "lay_tile" and action.get("entity_type") == "company" and any(
                a.get("type") == "buy_company" and a.get("company") == action.get("entity")
                for a in record["actions"][max(0, at - 8):at]):
            # docs/site-differences.md, 4.2(b) with 4.2(h): the private bought after the
            # company's own lays keeps our track step open; the site's has ended.
            return Outcome(index, "site difference: 4.2(b) private's lay after the lays",
                           f"action {at}: {answer['error']}", record, features=features)
        if action.get("entity_type") == "corporation" and \
                action.get("type") in ("buy_shares", "sell_shares") and \
                "Blocking step" in answer["error"]:
            # docs/site-differences.md (1850 5.10.6): the site passes a president who
            # can do nothing for himself, though his company could redeem or reissue.
            return Outcome(index, "site difference: 5.10.6 a company's stock action",
                           f"action {at}: {answer['error']}", record, features=features)
        return Outcome(index, f"refused: {action.get('type')}: {_normalise(answer['error'])}",
                       f"action {at} ({json.dumps(action)[:300]}): {answer['error']}",
                       record, features=features)
    result = {k: int(v) for k, v in answer["result"].items()}
    mine_result = {str(k): int(v) for k, v in record["result"].items()}
    if not answer["finished"] and not game.state.game_over:
        # Our random game was cut at MAX_MOVES: it agreed as far as it went.
        return Outcome(index, "agree so far (cut before its end)", "", record, result,
                       features)
    if not answer["finished"]:
        return Outcome(index, "differs: site game not finished", "", record, result, features)
    if not game.state.game_over and site_states and \
            site_states[-1]["round"].startswith("Stock Round 100"):
        # Every company closed: the site ends the dead game; ours goes on (cut).
        return dead_game(index, record, answer, len(record["actions"]), features)
    if result != mine_result:
        return Outcome(index, "differs: final scores", f"ours {mine_result} site {result}",
                       record, result, features)
    return Outcome(index, "agree", "", record, result, features)


def empty_run_lag(ours: list[dict[str, Any] | str], apart: list[set[str]],
                  operating: list[set[str]], window: list[int]) -> bool:
    """Whether the companies apart at each action of WINDOW are trainless companies
    still in their turn in either engine (the site's acting entities, OPERATING, or
    ours, "acting" in our summaries): the site settles such a company's empty run when
    its token step ends, ours when it passes its run (docs/site-differences.md, 1850,
    the site's moments). The site may have gone on to the next company's steps that ours
    skips, while ours waits at the run (seed 3701 game 4: SOO's lay, then the site's
    KATY passes its track and token steps before ours passes SOO's run)."""
    for j in window:
        mine = ours[j]
        if isinstance(mine, str):
            return False
        for sym in apart[j]:
            if mine["corporations"][sym]["trains"] or \
                    (sym not in operating[j] and sym != mine.get("acting")):
                return False
    return True


def to_its_end(group: str) -> bool:
    """Whether a group's games were compared to their end: agreeing to the final scores
    or to the scores at the site's own end (a dead game, 1825's top of the index), not
    cut at the cap of moves."""
    return group.startswith("agree") and "cut before its end" not in group


def uncounted(action: dict[str, Any], site_state: dict[str, Any]) -> bool:
    """Whether a record action does not count toward a difference's length: a message
    (the site does nothing at it), and in 1850 a president's sale in an operating round
    (10.7.2), whose fall ours makes when his sales are over (5.9.2, "also in effect
    during forced sales") and the site at once where he presides the company sold (seed
    3501 games 62 and 67: five sales in a row, the prices meeting at the train)."""
    return action["type"] == "message" or (
        TITLE == "1850" and action["type"] == "sell_shares" and
        action.get("entity_type") == "player" and
        str(site_state.get("round", "")).startswith("Operating Round"))


#: The site's end at a share price at the top of the index (1825 2, listed).
TOP_OF_INDEX = "the site's end at the top of the index (2)"


def dead_game(index: int, record: dict[str, Any], answer: dict[str, Any], upto: int,
              features: list[str], end: str = "the site's end of a dead game (turn 100)"
              ) -> Outcome:
    """The site ended a dead game at its 100th turn (or END: 1825 at the top of the
    index, at once) after `upto` record actions: its
    scores then (net worth) against ours at the same moment. The site ends at the last
    pass of its stock round, after the round's end (a sold-out company's rise); where
    that pass also begins our next round, the privates' income ours pays at its start
    is not counted (1825 seed 9001 game 2: Bob £374 on both, £379 in ours with it)."""
    site = {str(k): int(v) for k, v in answer["result"].items()}
    replay = import_record({**record, "actions": record["actions"][:upto], "result": {}})
    ids = {seat: pid for pid, seat in replay.names.items()}
    site_round = str((answer.get("states") or [{}])[-1].get("round", ""))
    scores = replay.game.scores()
    if site_round.startswith("Stock Round") and \
            not replay.game.round_name.startswith("Stock Round"):
        for seat, amount in next_round_income(replay.game).items():
            scores[seat] -= amount
    ours = {ids[seat]: value for seat, value in scores.items()}
    group = f"agree to {end}"
    if ours != site and end == TOP_OF_INDEX:
        return Outcome(index, f"differs: scores at {end}", f"upto {upto}; ours {ours} "
                       f"site {site}", record, site, features)
    if ours != site:
        # The site settles a trainless company's empty run (and the fall of its price,
        # perhaps into 1850's black area) when its track or token step ends; ours at its
        # run (listed). Our operating round played out by the conservative moves
        # reaches the same position.
        settled_game = settled(replay.game, stuck=True)
        ours = {ids[seat]: value for seat, value in settled_game.scores().items()}
        group = "agree to the site's end of a dead game (turn 100, the last run settled)"
    if ours != site:
        group = "differs: scores at the site's end of a dead game"
    return Outcome(index, group, f"upto {upto}; ours {ours} site {site}", record, site,
                   features)


#: A private's income paid to a player ("S&M pays £5 to Bob").
INCOME = re.compile(r"(\S+) pays \D*(\d+)\D* to (\S+)$")


def next_round_income(game: Game) -> dict[str, int]:
    """The privates' income paid to each player since our last round began (at its
    start)."""
    log = game.state.log
    begins = max((i for i, line in enumerate(log) if line.endswith(" begins")
                  or " begins;" in line), default=-1)
    paid: dict[str, int] = defaultdict(int)
    for line in log[begins + 1:]:
        m = INCOME.match(line)
        if m and m.group(1) in game.state.privates and m.group(3) in game.state.players:
            paid[m.group(3)] += int(m.group(2))
    return paid


def auction_difference(record: dict[str, Any], at: int,
                       site_states: list[dict[str, Any]]) -> str | None:
    """Which of the two listed auction differences (18TN 3.1.1, 1850 5.7) a refused
    auction action at record action AT shows, or None: the player acting in our record
    is not the one the site is waiting for, and the site waits for another participant
    in the auction of the same private ("who bids next"), or drops the player because
    he passed earlier in that auction ("bid after a pass")."""
    actions = record["actions"]
    action = actions[at]
    if not site_states or action.get("entity_type") != "player":
        return None
    acting = {str(e) for e in site_states[-1].get("acting", ())}
    player = str(action.get("entity"))
    if player in acting:
        return None  # the site's turn is his: refused for another reason
    company = action.get("company") if action.get("type") == "bid" else None
    if company is None:  # a pass in an auction: the private of the last bid
        company = next((a.get("company") for a in reversed(actions[:at])
                        if a.get("type") == "bid"), None)
    if company is None:
        return None
    bidders = {str(a.get("entity")) for a in actions[:at]
               if a.get("type") == "bid" and a.get("company") == company}
    if player not in bidders:
        return None
    if action.get("type") == "bid":
        for earlier in reversed(actions[:at]):
            if earlier.get("type") == "pass" and str(earlier.get("entity")) == player:
                return "bid after a pass"
            if earlier.get("type") != "pass" and (earlier.get("type") != "bid" or
                                                  earlier.get("company") != company):
                break
    if acting & (bidders - {player}):
        return "who bids next"
    return None


def our_game_at(record: dict[str, Any], at: int) -> Game | None:
    """Our game replayed from RECORD up to (not including) record action AT, or None
    where our importer cannot."""
    try:
        return import_record({**record, "actions": record["actions"][:at],
                              "result": {}}).game
    except Exception:
        return None


def _our_states(record: dict[str, Any], final: GameState | None = None,
                unchecked: set[int] | None = None) -> list[dict[str, Any] | str]:
    """Our position after each record action, read back through our importer; the
    last one FINAL's, where given: the position of the game the record was exported
    from, after the moves the record leaves out as the site's own (an empty run it
    settles at once, the answers to a sale). UNCHECKED (1825) gets the ids of the runs
    the site's loader cannot check, judged in our position at each (5.5.5, listed)."""
    setup, names = setup_of(record)
    game = Game(setup)
    mapper = RecordMapper(game, names)
    ids = {seat: pid for pid, seat in names.items()}
    out: list[dict[str, Any] | str] = []
    for index, raw in enumerate(expanded(folded_actions(record["actions"]))):
        if unchecked is not None and raw.get("type") == "run_routes" and \
                site_1825.half_without_base(game, raw):
            unchecked.add(raw.get("id"))
        try:
            moves = len(game.log)
            replay_action(game, mapper, index, raw, throwaway=True)  # (no undo: faster)
            if any(isinstance(m.action, LayTile) and m.action.as_recorded
                   for m in game.log[moves:]):
                # A lay of our own record that ours refuses for its connection: the
                # importer would take it as the site's; here it is a fault to show.
                raise ValueError(f"our own lay refused for its connection: {raw}")
            if TITLE == "1861":
                site_1861.settle(game)
            shown = game
            if TITLE == "18TN" and isinstance(game.round, StockRound) and \
                    game.legal() == ["pass"]:
                # The site passes at once the players of a stock round who can do
                # nothing (and so goes on to the next operating round and its privates'
                # income); the importer makes those passes at the next action it needs
                # them for, which a company's passes at steps ours skips are not (seed
                # 3601 game 25: three actions apart). Compared so, on a copy: the
                # record may still hold such a pass of its own (seed 3601 game 35).
                shown = game.clone()
                pass_idle_players(shown)
        except Exception as exc:
            out.append(str(exc))
            return out
        out.append({**our_summary(shown.state, ids), "acting": our_acting(shown)})
    if out and not isinstance(out[-1], str):
        out[-1] = {**our_summary(final if final is not None else settled(game).state, ids),
                   "acting": out[-1].get("acting")}
    return out


def our_acting(game: Game) -> str | None:
    """The entity whose turn it is in ours, by the site's symbol (`empty_run_lag`)."""
    turn = game.turn()
    if turn is None:
        return None
    corp = game.state.corporations.get(turn.entity)
    return turn.entity if corp is None else corp.spec.site_sym or corp.sym


def _features(game: Game) -> list[str]:
    """Rules the game reached, for the figures (Civil War, auctions, ...)."""
    kinds = Counter(type(game.log[i].action).__name__ for i in game.effective)
    said = " ".join(game.state.log).lower()
    out = []
    if "civil war" in said:
        out.append("civil war")
    if kinds.get("Bid"):
        out.append("auction")
    if "bankrupt" in said:
        out.append("bankruptcy")
    if "obsolete" in said:
        out.append("obsolete")
    if "it is bankrupt" in said:
        out.append("company bankrupt")
    if "bank has broken" in said:
        out.append("bank broken")
    if "top of the share price index" in said:
        out.append("price at the top")
    if game.state.phase_index >= 2:
        out.append("phase 3")
    if game.state.title.name == "1861":
        # What issue #17 asks the random games to reach (the rules' own words in the
        # log): loans (10.2), unpaid interest (10.8), conversions and mergers (12.2,
        # 12.3), nationalisations (11), the RSR (7.4, 10) and the two ends (13).
        out += [name for name, words in site_1861.FEATURES if words in said]
    return out


def _write(path: Path, groups: dict[str, list[Outcome]]) -> None:
    path.write_text(json.dumps(
        {group: [{"index": o.index, "detail": o.detail, "features": o.features,
                  "site_result": o.site_result, "routes": o.routes,
                  "routes_given": o.routes_given} for o in outcomes]
         for group, outcomes in groups.items()}, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title", default="18TN", choices=sorted(PLAYERS))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--start", type=int, default=0, help="first game index")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--site-lib", type=Path, default=DEFAULT_SITE_LIB)
    parser.add_argument("--keep", type=Path, help="folder to keep every exported record in")
    parser.add_argument("--json", type=Path, help="write the outcomes here")
    parser.add_argument("--cache", type=Path, help="folder of games played before (our logs)")
    parser.add_argument("--play-only", action="store_true",
                        help="only play the games into --cache")
    parser.add_argument("--payout", type=float, default=None,
                        help="1825, 1850 (and 1861 where given): how often a random "
                             "director pays out first")
    parser.add_argument("--moves", type=int, help="moves after which a game stops")
    parser.add_argument("--no-routes", action="store_true",
                        help="runs go to the site with their revenue, which it takes as "
                             "it stands (by default without: the site checks each route)")
    parser.add_argument("--trades", type=float, default=None,
                        help="1825: how often a random director buys a train offered by "
                             "another company (default 0.05; --classic: 1)")
    parser.add_argument("--classic", action="store_true",
                        help="1825: the random players before 28 November 2026 (seed 3501 "
                             "games 0-39 and the seeds of docs/site-differences.md): runs "
                             "before lays, payout first one time in two, any train trade")
    parser.add_argument("--option", action="append", default=[],
                        help="a game option added to the title's (1825: r1, the kit R1)")
    parser.add_argument("--builder", action="store_true",
                        help="1825: directors lay track first and keep two trains at most; "
                             "players buy no private back from the pool")
    parser.add_argument("--receivership", action="store_true",
                        help="1825: players may sell a director's certificate with nobody "
                             "else holding two shares (4.4, 6.4)")
    parser.add_argument("--wales", action="store_true",
                        help="1825 R1: the minors lay track towards Wales's stops, best "
                             "lay first (their U3 and 4T run; the Taff Vale reaches V8)")
    args = parser.parse_args(argv)
    global TITLE, PAYOUT_TITLES, ROUTES
    TITLE = args.title
    if args.classic or args.builder or args.wales:
        # The players the seeds played before were played by (--builder: the builder
        # of then, two trains at most and runs before lays).
        site_1825.classic_players()
    if args.payout is not None:
        site_1825.PAYOUT_FIRST = args.payout
        site_1825.PAYOUT_FIRST_OF.pop("1825", None)
        if args.title == "1861":  # (not by default: the seeds played before stay)
            PAYOUT_TITLES = (*PAYOUT_TITLES, "1861")
    if args.trades is not None:
        site_1825.TRAIN_TRADES = args.trades
    site_1825.BUILDER = site_1825.BUILDER or args.builder
    site_1825.RECEIVERSHIP = args.receivership
    site_1825.WALES = args.wales
    if args.moves:
        MOVES[args.title] = args.moves
    ROUTES = not args.no_routes
    if args.option:
        OPTIONS[args.title] = OPTIONS.get(args.title, frozenset()) | frozenset(args.option)
    groups: dict[str, list[Outcome]] = defaultdict(list)
    started = time.monotonic()
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    if args.play_only:
        for index in range(args.start, args.start + args.games):
            played(args.seed, index, args.cache, args.title)
            print(f"game {index} played", flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp, Oracle(args.site_lib) as oracle:
        scratch = args.keep or Path(tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        for index in range(args.start, args.start + args.games):
            outcome = check(oracle, args.seed, index, scratch, args.cache, args.title)
            groups[outcome.group].append(outcome)
            routes = f" [routes checked {outcome.routes}" + (
                f", given {outcome.routes_given}]" if outcome.routes_given else "]") \
                if ROUTES else ""
            print(f"game {index}: {outcome.group}{routes} {outcome.detail[:300]}",
                  flush=True)
            if args.json:  # after every game, so that a run cut short keeps its figures
                _write(args.json, groups)
    total = sum(len(v) for v in groups.values())
    print(f"\n{args.title}: {total} games, seed {args.seed}, "
          f"{time.monotonic() - started:.0f} s")
    for group, outcomes in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(outcomes):4d}  {group}   games {[o.index for o in outcomes][:12]}")
    ended = sum(len(v) for k, v in groups.items() if to_its_end(k))
    print(f"compared to their end: {ended} of {total}")
    if ROUTES:
        every = [o for v in groups.values() for o in v]
        refused = sum(len(v) for k, v in groups.items() if k.startswith("refused: run_routes"))
        print(f"routes checked by the site: {sum(o.routes for o in every)}; given their "
              f"revenue (listed, 1825 5.5.5): {sum(o.routes_given for o in every)}; "
              f"games with a route refused: {refused}")
    if args.json:
        _write(args.json, groups)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
