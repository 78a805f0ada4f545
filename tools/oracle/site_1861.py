"""1861 in the differential check (tools/oracle/differential.py): the options the site
plays it with, and the random player's moves left out because the site has no form for
them (docs/site-differences.md, 1861)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine import board, legal, loans, routes
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyTrain,
    Decline,
    Dividend,
    Done,
    LayTile,
    Merge,
    Par,
    Pass,
    PlaceToken,
    RunRoutes,
)
from engine.errors import GameError
from engine.game import Game
from engine.records import (
    apply_move,
    end_national_turn,
    forms_1861,
    import_record,
    pass_idle_players,
)
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.merger import MergerRound
from engine.rounds.operating import OperatingRound
from engine.title import load_title
from engine.titles.t1861 import RSR
from engine.track import Node, Side, next_steps

#: 14.2: the site plays 1861 with unlimited 2+2 and 5+5E trains (engine.records.setup_of).
OPTIONS = frozenset({"unlimited_trains"})
#: 3: three to six players.
PLAYERS = (3, 4, 5, 6)
#: The site's lowest price for a company formed by a merger (docs/site-differences.md,
#: 12.3: the rulebook's is the red space of R70).
SITE_MERGER_FLOOR = 100
#: What the figures count of a game (tools/oracle/differential.py `_features`): a name
#: and the words of our log (lower case) that show the game reached it.
FEATURES = (
    ("loan", "takes a loan"),  # 10.2
    ("unpaid interest", "interest and has only"),  # 10.8
    ("conversion", "converts into"),  # 12.2
    ("merger", " merge into "),  # 12.3
    ("nationalisation", "is nationalised"),  # 11
    ("RSR", "rsr operates"),  # 7.4
    ("8-train end", "the first 8-train signals the end"),  # 13
)


def merged_price(game: Game, action: Merge) -> int:
    """12.3: the highest plus the lowest price of the merging minors."""
    state = game.state
    prices = [state.market.price(game.rules.merger_alias(state, m)) for m in action.minors]
    return max(prices) + min(prices)


def nobody_may_direct(game: Game, action: Merge) -> bool:
    """12.4 as the site checks a merger before it (listed): none of the merging minors'
    owners owns two of them or has the cash for a share at the new price (at least
    R100); the site refuses it ("Merge impossible, no player can become president")."""
    state = game.state
    minors = [game.rules.merger_alias(state, m) for m in action.minors]
    owners = [state.corporations[m].president for m in minors]
    price = max(min(merged_price(game, action), 200), SITE_MERGER_FLOOR)
    return not any(owners.count(seat) > 1 or state.players[seat].cash >= price
                   for seat in set(owners) if seat is not None)


def site_refuses(game: Game, action: Action) -> bool:
    """12.1: the site asks no owner to agree to a merger; an owner's refusal (ours) has
    no form there, so the random owners agree. 7.4: the site's RSR buys its trains by
    itself at the end of its turn (ours lets its operator buy one before): the random
    operator leaves that to the rules. 12.3: a merger priced below R100, which the site
    raises to R100 (listed), is left out so that the rest of the game is compared. 10.8:
    a dividend after which the company cannot pay its interest with money left in its
    treasury (the site gives that money to the RSR, listed) where another is open."""
    if AVOID_UNPAID_INTEREST and isinstance(action, Dividend | Done | Pass | RunRoutes) and \
            unpaid_interest_with_money(game, action):
        return True
    if AVOID_UNPAID_INTEREST and isinstance(action, LayTile | PlaceToken) and \
            unpaid_interest_ahead(game, action):
        return True
    if AVOID_UNPAID_INTEREST and isinstance(action, Accept | BuyTrain) and \
            seller_left_unpaid(game, action):
        return True
    if isinstance(action, BuyTrain) and forms_1861.national_operates(game):
        return True
    if AVOID_DUTCH_RAISE and isinstance(action, Bid) and \
            forms_1861.sold_at_once(game) is not None:
        return True
    if AVOID_FURTHER_EIGHTS and isinstance(action, BuyTrain) and action.train == "8" and \
            action.source in (None, "bank") and rsr_holds_an_eight(game):
        return True
    if isinstance(action, PlaceToken | Par) and site_refuses_home(game, action):
        return True
    if isinstance(action, Merge) and isinstance(game.round, MergerRound) and (
            merged_price(game, action) < SITE_MERGER_FLOOR or nobody_may_direct(game, action)
            or reversed_at_once(game, action)):
        return True
    if isinstance(action, Pass | Done) and isinstance(game.round, MergerRound) and \
            nobody_directs(game):
        # 12.4: a merger nobody comes to hold two shares of fails; the site then stops
        # (listed): a random owner who may buy a share buys rather than pass.
        return True
    return isinstance(game.round, MergerRound) and game.round.proposal is not None and \
        isinstance(action, Decline)


#: The random directors leave a dividend that leaves their company unable to pay its
#: interest with money in its treasury (10.8, listed): on by default since 28 November
#: 2026 (seed 3501 from game 24 on; the games played before keep their cached moves).
AVOID_UNPAID_INTEREST = True


#: The random players do not raise a bid on a private whose minimum a full round of
#: passes lowered (9.4, listed: the site has sold it to the first bidder at once and
#: refuses the raise): since 28 November 2026, seed 3501 from game 200 on and the 29
#: games of 0-161 played again then (game 167 stopped there; the games played before
#: keep their cached moves).
AVOID_DUTCH_RAISE = True


#: The random directors leave an 8-train from the Bank once the RSR holds one (7.4,
#: listed: the site's RSR may have bought the next ones, which our export names by our
#: count), where another move is open (a 2+2 or 5+5E, 14.2): since 28 November 2026,
#: seed 3501 from game 46 on (game 42 stopped there).
AVOID_FURTHER_EIGHTS = True


def rsr_holds_an_eight(game: Game) -> bool:
    rsr = game.state.corporations.get(RSR)
    return rsr is not None and any(t.name == "8" for t in rsr.trains)


def unpaid_interest_with_money(game: Game, action: Action) -> bool:
    """10.8 at a company's run, dividend or end of turn: whether after ACTION it cannot
    pay its interest even with further loans while it still holds money (ours pays that
    to the Bank, the site gives it to the RSR, which may then buy a train earlier)."""
    rnd = game.round
    turn = game.turn()
    if not isinstance(rnd, OperatingRound) or rnd.current is None or turn is None or \
            not rnd.company().interest_due:
        return False
    sym = rnd.company().sym
    try:
        _, said = game.fork(turn.seat, action)
    except GameError:
        return False
    unpaid = (re.search(rf"{re.escape(sym)} owes \D*\d+ interest and has only \D*(\d+)", line)
              for line in said)
    return any(found is not None and int(found.group(1)) > 0 for found in unpaid)


#: What any other move is taken to cost at most (10.8, looking ahead).
AHEAD_MARGIN = 200


def _unpaid(said: list[str], sym: str) -> int | None:
    """The money left where our log says SYM could not pay its interest (10.8), or
    None where it does not say so."""
    for line in said:
        found = re.search(rf"{re.escape(sym)} owes \D*\d+ interest and has only \D*(\d+)",
                          line)
        if found is not None:
            return int(found.group(1))
    return None


def unpaid_interest_ahead(game: Game, action: Action) -> bool:
    """10.8 ahead of a lay or a station that costs the company money: whether, its turn
    played on with the best it has (no further lay or station, its best run, the
    dividend that keeps most), it could not pay its interest with money left (seed 3501
    game 37: O-K without a train lays a tile for R40 of its R41 and owes R10)."""
    rnd = game.round
    turn = game.turn()
    if not isinstance(rnd, OperatingRound) or rnd.current is None or turn is None or \
            rnd.offer is not None or not rnd.company().interest_due:
        return False
    corp = rnd.company()
    _, interest = game.rules.loan_terms(game.state)
    if corp.cash - _most_it_costs(game, rnd, action) >= interest * corp.interest_due:
        return False  # (its treasury pays the interest whatever else happens)
    try:
        trial, said = game.fork(turn.seat, action)
        for _ in range(8):
            left = _unpaid(said, corp.sym)
            if left is not None:
                return left > 0
            now = trial.round
            turn = trial.turn()
            if turn is None or not isinstance(now, OperatingRound) or now.current is None \
                    or now.offer is not None or now.company().sym != corp.sym or \
                    not now.company().interest_due:
                return False
            said = trial.apply(turn.seat, _best_next(trial, now))
    except GameError:
        return False
    return False


def _most_it_costs(game: Game, rnd: OperatingRound, action: Action) -> int:
    """What a lay or a station may cost the company at most, as the operating round
    prices them (its extra lay's fee, Kiev's upgrade, terrain; the next station)."""
    state, rules, corp = game.state, game.rules, rnd.company()
    if isinstance(action, LayTile):
        t = rnd.current
        assert t is not None
        tile = state.title.tiles.get(action.tile)
        if action.hex not in state.title.hexes:
            return 0
        return rules.lay_fee(state, corp, len(t.lay_hexes)) + \
            (rules.upgrade_cost(state, action.hex, tile) if tile else 0) + \
            board.terrain_cost(rules, state, action.hex)
    if isinstance(action, PlaceToken):
        return rules.token_cost(state, corp, action.hex)
    return AHEAD_MARGIN


def _best_next(game: Game, rnd: OperatingRound) -> Action:
    """The move that keeps most money in the company on its way to its interest: its
    best run, then withholding where it may choose, and otherwise passing on."""
    t = rnd.current
    assert t is not None
    if t.revenue is not None and not t.dividend_done:
        pays = [a for a in legal.candidates(game) if isinstance(a, Dividend)]
        return next((a for a in pays if a.choice == "withhold"), pays[0] if pays else Pass())
    if rnd.steps[t.step] == "route" and rnd.company().trains and t.revenue is None:
        return RunRoutes(auto=True)
    return Pass()


def seller_left_unpaid(game: Game, action: Accept | BuyTrain) -> bool:
    """10.8 at a company's next turn: a train sold to another company (an offer
    accepted, or bought between two companies of one director) that leaves the seller
    without a train, with loans whose interest it could not pay even with the loans it
    may still take, though with money (seed 3501 game 37: O-K, K-R and M-V sold their
    2-trains for R1 and were nationalised for their interest a turn later)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound):
        return False
    state = game.state
    if isinstance(action, Accept):
        if rnd.offer is None:
            return False
        seller, price, train_id = rnd.offer.seller, rnd.offer.price, rnd.offer.train
        corp = state.corporations.get(seller)
        if corp is None or [t.id for t in corp.trains] != [train_id]:
            return False
    else:
        corp = state.corporations.get(action.source or "")
        if corp is None or rnd.offer is not None or action.price is None or \
                {t.name for t in corp.trains} != {action.train} or len(corp.trains) != 1:
            return False
        price = action.price
    if not corp.loans:
        return False
    value, interest = game.rules.loan_terms(state)
    power = corp.cash + price + loans.room(game.rules, state, corp) * (value - interest)
    return 0 < power < interest * corp.loans


def reversed_at_once(game: Game, action: Merge) -> bool:
    """12.4 as ours reads it: the merger, agreed by the other owners, is reversed at
    once because no owner may buy a second share (his cash, or the certificate limit
    that 12.4 keeps: seed 3501 game 26, Ann with R352 at her limit). Ours writes it as
    messages; the site, which never sees it, still asks the minor (listed)."""
    turn = game.turn()
    if turn is None:
        return False
    try:
        trial, said = game.fork(turn.seat, action)
        for _ in range(len(game.setup.seats)):
            rnd = trial.turn()
            if any("merger is not allowed" in line for line in said) or rnd is None or \
                    not isinstance(trial.round, MergerRound) or trial.round.proposal is None:
                break
            said = trial.apply(rnd.seat, Accept())
    except GameError:
        return False
    return any("merger is not allowed" in line for line in said)


def site_connected(game: Game, hex_id: str) -> bool:
    """9.3 as the site reads "unconnected": track from the hex's city reaches a city,
    town or off-board, its own city by a loop of track included (the rulebook: "cannot
    trace a legal route to another city"; a loop back to itself is no route)."""
    graph = routes.route_track(game.rules, game.state)
    for city in range(board.city_count(game.state, hex_id)):
        start = Node(hex_id, "c", city)
        for seg_id, first in next_steps(graph, start, None):
            seen = {seg_id}
            todo: list[tuple[Node | Side, int]] = [(first, seg_id)]
            while todo:
                point, came_by = todo.pop()
                if isinstance(point, Node) and point.is_stop:
                    return True
                for nxt_id, nxt in next_steps(graph, point, came_by):
                    if nxt_id not in seen:
                        seen.add(nxt_id)
                        todo.append((nxt, nxt_id))
    return False


def site_refuses_home(game: Game, action: PlaceToken | Par) -> bool:
    """9.3: a public's home station on a city whose track only loops back to itself
    (listed: the site counts it connected and refuses it); a `par` whose only homes
    are such cities."""
    rnd = game.round
    if not isinstance(rnd, AuctionStockRound):
        return False
    if isinstance(action, PlaceToken):
        return rnd.home_pending is not None and site_connected(game, action.hex)
    if game.state.corporations[action.corporation].spec.kind != "major":
        return False
    # Asked of every par price of every company at each move of a random player (most
    # of a late game's time): answered once a position and company.
    global _HOMES_ASKED
    key = (len(game.log), len(game.state.log), action.corporation)
    if _HOMES_ASKED is not None and _HOMES_ASKED[0] is game and _HOMES_ASKED[1] == key:
        return _HOMES_ASKED[2]
    homes = game.rules.home_choices(game.state, action.corporation)
    answer = bool(homes) and all(site_connected(game, h) for h in homes)
    _HOMES_ASKED = (game, key, answer)
    return answer


#: The last answer of `site_refuses_home` for a par: the game, its position (moves and
#: log lines) and the company, and the answer.
_HOMES_ASKED: tuple[Game, tuple[int, int, str], bool] | None = None


#: The interest on each loan (10.2, 10.8).
INTEREST = 5


def interest_unpaid_yet(ours: dict[str, Any], site: dict[str, Any]) -> set[str]:
    """Companies whose only difference is the interest on their loans, which ours has
    paid and the site not yet (10.8: ours pays it after the dividend; the site after
    its stop for a private's purchase, 7.1): the site's cash is ours plus R5 a loan."""
    out = set()
    for sym, mine in ours["corporations"].items():
        theirs = site["corporations"].get(sym)
        if theirs is None or not mine["loans"] or mine["cash"] is None:
            continue
        if theirs["cash"] - mine["cash"] == INTEREST * mine["loans"] and all(
                mine[k] == theirs.get(k, mine[k]) for k in ("price", "trains", "loans")):
            out.add(sym)
    return out


def rsr_apart(ours: dict[str, Any], site: dict[str, Any]) -> None:
    """7.4 (listed): the site's RSR goes on buying 8-trains in the turn it buys the
    first; from then on its cash and trains are not compared (it no longer operates
    and counts for nobody's score)."""
    theirs = site["corporations"].get("RSR")
    if theirs is not None and sorted(theirs["trains"]).count("8") > 1:
        site["corporations"].pop("RSR", None)
        ours["corporations"].pop("RSR", None)


def unpaid_interest_to_rsr(recent: list[dict[str, Any]], site: dict[str, Any],
                           extra: int, ahead: Sequence[dict[str, Any] | str] = ()) -> int:
    """10.8 (listed): a company that cannot pay its interest "pays all the money it has
    to the Bank and it is immediately nationalised"; the site gives that money to the
    RSR. `extra` is what the RSR holds on the site for such nationalisations so far;
    the site's RSR cash is compared less it (`site` is changed). Where the site's RSR
    now holds the cash ours had in a company with loans (in `recent`, ours at the last
    few actions) that the site has just nationalised, that cash is added, unless ours'
    RSR receives it in the next few actions (`ahead`, ours after them): a company
    nationalised without a train it could buy (10.10, 11), whose money both engines give
    the RSR, ours one action later (seed 3601 game 25: E, R40). Returns the new
    `extra`."""
    theirs = site["corporations"].get("RSR")
    mine = recent[-1]["corporations"].get("RSR") if recent else None
    if theirs is None or mine is None:
        return extra
    gap = theirs["cash"] - extra - mine["cash"]
    if gap > 0 and any(c["loans"] and c["cash"] == gap
                       and site["corporations"].get(sym, {}).get("price") is None
                       for state in recent for sym, c in state["corporations"].items()) \
            and not any(not isinstance(later, str) and
                        later["corporations"].get("RSR", {}).get("cash") == mine["cash"] + gap
                        for later in ahead):
        extra += gap
    theirs["cash"] -= extra
    return extra


def rsr_bought_with_interest(mine: dict[str, Any] | None, theirs: dict[str, Any] | None,
                             extra: int) -> bool:
    """10.8 (listed) shown at a position: the site's RSR holds a train ours does not, one
    ours cannot pay for with its cash and the site's can only with the unpaid interest
    it was given (`extra`). `mine` and `theirs` are the RSR's summaries there (the
    site's cash already less `extra`)."""
    if not mine or not theirs or not extra or mine.get("cash") is None:
        return False
    left = Counter(theirs["trains"])
    left.subtract(mine["trains"])
    title = load_title("1861")
    prices = []
    for name, count in left.items():
        try:
            prices += [title.train(name).price] * max(count, 0)
        except (KeyError, ValueError):
            continue
    # One train, or all the site's RSR bought at once where ours buys at the next
    # action (seed 3501 game 22: R2150 for five trains against ours' R2140).
    return any(mine["cash"] < price <= mine["cash"] + extra
               for price in [*prices, sum(prices)] if price)


def settle(game: Game) -> None:
    """The moves the site makes at once that our importer makes only when the next
    action comes: 9.2, a bidder who cannot raise drops out of the auction (so that the
    positions are compared after the auction, as the site has it); 9.4, the bidders on
    a private whose minimum fell pass (the site has sold it to the first bidder,
    listed); a player with nothing to do in a stock round passes (the site then goes
    on to the operating round and pays the privates' revenue at once)."""
    pass_idle_players(game)
    for _ in range(len(game.setup.seats)):
        rnd = game.round
        turn = game.turn()
        if turn is None or getattr(rnd, "lot", None) is None or not (
                game.legal() == ["pass"] or forms_1861.sold_at_once(game) is not None):
            return
        game.apply(turn.seat, Pass())


def nobody_directs(game: Game) -> bool:
    """Whether the shares of a company formed by a merger are being dealt (12.4) and
    no player holds two of them yet."""
    rnd = game.round
    if not isinstance(rnd, MergerRound) or rnd.dealing is None or rnd.dealing.before is None:
        return False
    corp = game.state.corporations[rnd.dealing.corporation]
    return all(corp.percent_held_by(seat) < 20 for seat in game.state.seats)


def site_difference(game: Game, answer: dict[str, Any], action: dict[str, Any],
                    site_states: list[dict[str, Any]]) -> str | None:
    """A refusal of the site that is one of 1861's listed differences
    (docs/site-differences.md), or None."""
    error = str(answer.get("error"))
    if action.get("type") == "bid" and "Minimum bid is" in error and raise_after_dutch_sale(
            game, action, site_states, answer.get("record_players") or []):
        return DUTCH_SALE
    if action.get("type") == "merge" and "no player can become president" in error:
        # 12.3 with 12.4: the site checks that an owner can pay for a second share at
        # its price of at least R100; ours prices the merger at the minors' sum.
        return f"12.3 a merged company's price below R{SITE_MERGER_FLOOR}"
    if action.get("type") == "pass" and action.get("entity_type") == "corporation" and \
            "Blocking step Run Routes" in error and may_token(game, action):
        # 10.5: the city a nationalisation freed is in the company's reach; the site's
        # graph keeps its earlier answer (no city to token) and skips the token step.
        return "10.5 a city freed by a nationalisation (the site's stale graph)"
    if action.get("type") == "pass" and action.get("entity_type") == "corporation" and \
            "Blocking step Buy Trains" in error and trainless(site_states, action) and \
            may_token(game, action):
        # 10.5 again, for a company without a train: the site skips its token step and
        # its run (no train), and waits at its train step for our pass at the token.
        return "10.5 a city freed by a nationalisation (the site's stale graph)"
    hex_id = str(action.get("city") or action.get("hex") or "").split("-")[0]
    if action.get("type") == "place_token" and "is not available" in error and \
            str(site_states[-1]["round"] if site_states else "").startswith("Stock Round") \
            and hex_id in game.state.title.hexes and site_connected(game, hex_id):
        # 9.3: a home city whose track loops back to itself (the random players
        # leave such cities; an earlier game's record may hold one): shown, its track
        # reaches a stop as the site reads it (ours: it reaches none but itself).
        return "9.3 a home city whose track loops back to itself (the site: connected)"
    rsr = next((c for c in (site_states[-1]["corporations"] if site_states else [])
                if c["id"] == "RSR"), None)
    ours_rsr = game.state.corporations.get(RSR)
    ours_eights = sum(t.name == "8" for t in ours_rsr.trains) if ours_rsr else 0
    if action.get("type") == "buy_train" and str(action.get("train", "")).startswith("8-") \
            and rsr is not None and [str(t).replace("'", "") for t in rsr["trains"]].count(
                "8") > max(1, ours_eights):
        # 7.4 (listed): the site's RSR bought further 8-trains (more than ours holds), so
        # the 8-train ours names (by our count) is the RSR's there ("train is not from
        # depot").
        return "7.4 the RSR's further 8-trains (the next 8-train is another there)"
    if action.get("type") == "run_routes" and action.get("entity") == "RSR" and (
            "Cannot run train that operated" in error or "Blocking step" in error) and \
            (ran_earlier_in_round(answer.get("record_actions") or [],
                                  int(answer.get("error_action_index") or 0), site_states)
             or nationalised_in_its_turn(game, site_states)):
        # 10.6: the RSR runs the trains it holds; the site counts one that ran for the
        # company nationalised after its run (10.8), or that it marked as run before
        # the RSR began to operate, as spent for the round (and skips a run of none).
        return "10.6 the RSR's train that ran for its former owner (the site: spent)"
    if "GameIsOver" in error and bank_broken_by_interest(
            game, site_states, int(answer.get("rsr_extra") or 0)):
        return "10.8 unpaid interest: the site's bank breaks short of what its RSR holds"
    record = answer.get("record_actions") or []
    at = int(answer.get("error_action_index") or 0)
    if "Blocking step Convert or Merge" in error and any(
            "holds two shares" in str(a.get("message", ""))
            for a in record[max(0, at - 3):at]):
        # 12.4: a merger ours reversed at once, no owner able to buy a second share (his
        # cash, or his certificate limit: seed 3501 game 26), written as messages; the
        # site, which checks the owners' cash before a merger, still asks the minor.
        # (Ours' log said "nobody holds two shares" before 28 November 2026, "no player
        # holds two shares" since.)
        return "12.4 a merger ours reversed at once (no owner may buy a second share)"
    if "Failed merge" in error and any(
            "holds two shares" in str(a.get("message", ""))
            for a in record[max(0, at - 3):at + 4]):
        # 12.4: nobody came to hold two shares; the site stops ("please undo"), ours
        # reverses the merger and goes on (shown: our reversal's words beside it).
        return "12.4 a merger where nobody holds two shares"
    return None


DUTCH_SALE = "9.4 a raise on a private whose minimum fell (the site: sold at once)"


def raise_after_dutch_sale(game: Game, action: dict[str, Any],
                           site_states: list[dict[str, Any]],
                           players: list[dict[str, Any]]) -> bool:
    """9.4 (listed) shown at a refused bid: in ours a private whose minimum a full round
    of passes lowered is up for auction, its first bid standing at or above that
    minimum, and the refused bid is a raise on it ours accepts ("They are auctioned in
    the same manner as Minor Companies"); on the site that first bidder already holds
    the private, having paid his bid (its "Dutch" mode: sold to the first bidder).
    `players`: the record's players (site ids and names, our seats)."""
    sym = forms_1861.sold_at_once(game)
    rnd = game.round
    if sym is None or action.get("company") != sym or \
            not isinstance(rnd, AuctionStockRound) or rnd.lot is None or not site_states:
        return False
    lot, state = rnd.lot, game.state
    price = int(action.get("price") or 0)
    if price <= lot.high_bid or state.privates[sym].owner is not None:
        return False
    site_ids = {str(p.get("name")): str(p.get("id")) for p in players}
    bidder = next((seat for seat, i in site_ids.items() if i == str(action.get("entity"))),
                  None)
    holders = [p for p in site_states[-1]["players"] if sym in (p.get("companies") or ())]
    if bidder is None or not (
            len(holders) == 1 and str(holders[0]["id"]) == site_ids.get(lot.high_bidder)
            and holders[0]["cash"] == state.player(lot.high_bidder).cash - lot.high_bid):
        return False
    trial = game.clone()
    try:
        # 9.2: the bidders before him who cannot raise drop out (unrecorded), then his
        # raise, which ours accepts.
        while (now := trial.turn()) is not None and now.seat != bidder and \
                trial.legal() == ["pass"]:
            trial.apply(now.seat, Pass())
        trial.apply(bidder, Bid(price))
    except GameError:
        return False
    return True


def ran_earlier_in_round(record: list[dict[str, Any]], at: int,
                         site_states: list[dict[str, Any]]) -> bool:
    """10.6 shown: a train of the RSR's run at record action AT ran for another company
    earlier in the same operating round (the site's round unchanged since)."""
    trains = {str(r.get("train")) for r in record[at].get("routes") or []} \
        if at < len(record) else set()
    if not trains or not site_states:
        return False
    now = site_states[-1].get("round")
    for j in range(min(at, len(site_states)) - 1, -1, -1):
        if site_states[j].get("round") != now:
            return False
        earlier = record[j]
        if earlier.get("type") == "run_routes" and earlier.get("entity") != "RSR" and \
                trains & {str(r.get("train")) for r in earlier.get("routes") or []}:
            return True
    return False


def nationalised_in_its_turn(game: Game, site_states: Sequence[dict[str, Any]] = ()) -> bool:
    """10.6 shown in ours: in this operating round a company was nationalised in its
    own turn (10.8, 10.10) with trains, which the RSR took (the site marks them as
    run: seed 3501 game 109, MVR's 5-train, `operated` once the RSR holds it). A
    company whose run ran no train (ours: "runs for R0: no trains run", an empty run;
    the site skips the step and settles "does not run", marking its trains run) counts
    where the site's last position listing it shows it holding trains (`site_states`;
    seed 3701 game 3: T-R's 3-train, which it had no route for)."""
    log = game.state.log
    begins = max((i for i, line in enumerate(log) if line.startswith("Operating Round")),
                 default=0)
    acting = None
    for line in log[begins:]:
        found = re.match(r"(\S+) operates", line)
        if found is not None:
            acting = found.group(1)
        if acting is None or line != f"{acting} is nationalised":
            continue
        runs = [ln for ln in log[begins:]
                if ln == f"{acting} does not run" or ln.startswith(f"{acting} runs for")]
        if any(not ln.endswith("no trains run") for ln in runs):
            return True  # (its run step reached with trains)
        if runs and held_trains_on_site(game, acting, site_states):
            return True
    return False


def held_trains_on_site(game: Game, sym: str, site_states: Sequence[dict[str, Any]]) -> bool:
    """Whether the site's last position that lists company SYM (a closed one is not
    listed) shows it holding trains."""
    corp = game.state.corporations.get(sym)
    site_id = (corp.spec.site_sym if corp is not None else None) or sym
    for position in reversed(site_states):
        listed = next((c for c in position.get("corporations") or ()
                       if c.get("id") == site_id), None)
        if listed is not None:
            return bool(listed.get("trains"))
    return False


def bank_broken_by_interest(game: Game, site_states: list[dict[str, Any]],
                            extra: int) -> bool:
    """10.8 (listed) shown where the site's game is over and ours goes on: the site's
    bank has broken (13: "if the Bank runs out of money in an Operating Round, complete
    that Operating Round"), ours has not, and the two banks differ by exactly what the
    site's RSR holds of unpaid interest (`extra`), which ours paid to the Bank: ours
    less that money would have broken too (seed 3501 game 37: the site's bank at -R5,
    ours at R10, R15 of interest unpaid)."""
    if not site_states or not extra or game.state.game_over or \
            game.state.end_triggered is not None:
        return False
    site_bank = int(site_states[-1].get("bank", 0))
    ours = game.state.bank_cash
    return site_bank < 0 <= ours and ours - extra == site_bank


def may_token(game: Game, action: dict[str, Any] | None = None) -> bool:
    """10.5 shown in ours: the company acting, its steps before the token step passed,
    may place a station in a hex where a company nationalised in this or the last
    operating round had one the RSR did not take (the site's stale graph has no city
    for it and skips its token step). `action`, the refused record action: where our
    importer left the RSR's turn open before it (its trains are bought as the next
    entity acts; seed 3701 game 89: MVR first in the next operating round), the RSR's
    turn is ended first."""
    trial = game.clone()
    if action is not None:
        try:
            end_national_turn(trial, action, apply_move)
        except GameError:
            return False
    for _ in range(3):
        turn = trial.turn()
        if turn is None or turn.step == "token" or turn.step not in ("track",):
            break
        try:
            trial.apply(turn.seat, Pass())
        except GameError:
            return False
    turn = trial.turn()
    if turn is None or turn.step != "token":
        return False
    places = {a.hex for a in legal.legal_token_places(trial) if isinstance(a, PlaceToken)}
    return bool(places & freed_by_nationalisation(game))


def freed_by_nationalisation(game: Game) -> set[str]:
    """The hexes where a company nationalised in this or the last operating round had
    a station that the RSR did not take, as our log tells them (11: its stations are
    removed but those the RSR takes, one a hex; seed 3501 game 67: Moscow's stations
    of N, M-NN and M-K, the RSR taking N's), and the RSR's home where it took one (its
    space kept there is then free)."""
    log = game.state.log
    rounds = [i for i, line in enumerate(log) if line.startswith("Operating Round")]
    since = rounds[-2] if len(rounds) > 1 else 0
    gone = {line.removesuffix(" is nationalised") for line in log[since:]
            if line.endswith(" is nationalised")}
    freed: Counter[str] = Counter()  # stations by hex (one taken frees no other)
    rsr_home = game.state.corporations[RSR].spec.home if RSR in game.state.corporations \
        else None
    for line in log:
        found = re.match(r"(\S+) places (?:its home station|a station) in (\S+)", line)
        if found is not None and found.group(1) in gone:
            freed[found.group(2)] += 1
        taken = re.match(rf"{RSR} takes (\S+)'s station in (\S+)", line)
        if taken is not None and taken.group(1) in gone:
            freed[taken.group(2)] -= 1
            if taken.group(2) == rsr_home:
                # 7.4: the RSR's space kept in St. Petersburg is free once it holds a
                # station there (seed 3501 game 21: SP-W's, and NW may take E1's other)
                freed[taken.group(2)] += 1
    return {hex_id for hex_id, count in freed.items() if count > 0}


def trainless(site_states: list[dict[str, Any]], action: dict[str, Any]) -> bool:
    """Whether the company acting holds no train in the site's last position."""
    corps = site_states[-1]["corporations"] if site_states else []
    return any(c["id"] == action.get("entity") and not c.get("trains") for c in corps)


def difference_at(record: dict[str, Any], at: int, diff: list[str],
                  ours: dict[str, Any], site: dict[str, Any]) -> str | None:
    """A lasting difference first seen at record action `at` that is one of 1861's
    listed differences, or None. `ours` and `site` are the positions there in the
    differential's shape."""
    action = record["actions"][at]
    if action.get("type") == "merge" and "company price" in diff:
        sym = action.get("corporation")
        mine = ours["corporations"].get(sym, {}).get("price")
        theirs = site["corporations"].get(sym, {}).get("price")
        if theirs == SITE_MERGER_FLOOR and mine is not None and mine < SITE_MERGER_FLOOR:
            return f"12.3 a merged company's price below R{SITE_MERGER_FLOOR}"
    if action.get("entity") == RSR and action.get("type") == "run_routes" and \
            rsr_bought_after_choice(record, at, ours, site):
        return RSR_AFTER_CHOICE
    return None


RSR_AFTER_CHOICE = ("10.10 the RSR's purchase with a public nationalised at a phase's "
                    "start by its Director (the site: its turn over)")


def rsr_bought_after_choice(record: dict[str, Any], at: int, ours: dict[str, Any],
                            site: dict[str, Any]) -> bool:
    """10.10 with 11 (listed) shown at the RSR's run, record action AT: its purchases
    after the run began a phase whose start let the Director of a trainless public
    nationalise it, which the next record action does ("choose"); in ours the RSR,
    its train step not over, buys further trains with that treasury; the site's RSR,
    whose purchases ended before the choice, does not. Shown where the site's RSR
    there holds exactly ours' after the choice less those further trains, its cash
    plus what the public gave equals ours' plus their prices (seed 3701 game 58: NW's
    R1112 and a R800 7-train), and each player's cash there plus what ours paid him
    for the public's shares is ours' after the choice. `ours` and `site` are the
    positions at AT."""
    actions = record["actions"]
    if at + 1 >= len(actions):
        return False
    choice = actions[at + 1]
    if choice.get("type") != "choose" or choice.get("choice") != "nationalize" or \
            choice.get("entity_type") != "corporation":
        return False
    site_id = str(choice.get("entity"))
    public = ours["corporations"].get(site_id)
    theirs = site["corporations"].get(RSR)
    if public is None or theirs is None or public.get("cash") is None:
        return False
    try:
        after = import_record({**record, "actions": actions[:at + 2], "result": {}}).game
    except Exception:
        return False
    state = after.state
    sym = next((c.sym for c in state.corporations.values()
                if (c.spec.site_sym or c.sym) == site_id), site_id)
    log = state.log
    gone = [i for i, line in enumerate(log) if line == f"{sym} is nationalised"]
    if not gone:
        return False
    bought: list[tuple[str, int]] = []
    for line in log[gone[-1]:]:
        found = re.fullmatch(rf"{RSR} buys a (\S+)-train for \D*(\d+)", line)
        if found is not None:
            bought.append((found.group(1), int(found.group(2))))
    rsr = state.corporations.get(RSR)
    if not bought or rsr is None:
        return False
    left = Counter(t.name for t in rsr.trains)
    left.subtract(name for name, _ in bought)
    value, _ = after.rules.loan_terms(state)
    repaid = value * min(int(public.get("loans") or 0), public["cash"] // value)
    given = public["cash"] - repaid
    # The players as the site has them before the choice, paid for the public's
    # shares as ours' log says (ours at AT had not yet made the phase's
    # nationalisations, which the importer makes as the next action comes).
    paid: Counter[str] = Counter()
    for line in log[gone[-1]:]:
        found = re.fullmatch(rf"(\S+) receives \D*(\d+) for \d+ share\(s\) of {re.escape(sym)}",
                             line)
        if found is not None:
            paid[found.group(1)] += int(found.group(2))
    seats = {str(p.get("id")): str(p.get("name")) for p in record.get("players") or ()}
    players_meet = all(
        seats.get(pid) in state.players and
        state.players[seats[pid]].cash == player["cash"] + paid[seats[pid]]
        for pid, player in (site.get("players") or {}).items())
    return players_meet and sorted(left.elements()) == sorted(theirs["trains"]) and \
        theirs["cash"] + given == rsr.cash + sum(price for _, price in bought)
