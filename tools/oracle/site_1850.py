"""1850 in the differential check (tools/oracle/differential.py): the random player's
moves left out because the site refuses them, and the site's moments classed as listed
differences (docs/site-differences.md, 1850)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from engine import legal, market, routes
from engine.actions import (
    Action,
    Bid,
    BuyPrivate,
    BuyTrain,
    Dividend,
    Done,
    Pass,
    RedeemShares,
    ReissueShares,
    SellShares,
)
from engine.game import Game
from engine.records import (
    RecordMapper,
    expanded,
    folded_actions,
    replay_action,
    setup_of,
    site_idle,
)
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.shares import certificate_count
from engine.state import Corporation
from engine.title import MarketSpec
from engine.titles.t1850 import MESABI_RANGE, reissue_par


def site_refuses(game: Game, action: Action) -> bool:
    """1850's listed differences (docs/site-differences.md) the random players stay clear
    of: a third bidder on a private (5.7: with two, both engines give the turn to the
    lower bidder; with more, ours goes clockwise from the highest bidder's left and the
    site to the lowest bidder), and a company's redemption or reissue when its
    president could do nothing for himself (5.10.6: the site passes him), or a
    redemption of another player's share (5.10.3: the site takes only the president's); a train from
    the Open Market once a company closed in the black area (5.1.1 puts its trains
    there; the site removes them); and a player's sale of a company another player is
    president of, or one that makes another player president (5.9: the site asks him
    about protection and then counts the seller's turn as a pass, 5.2.2); a company's
    purchase of the Mesabi or river private in phase 2 (the site fails once the company
    closes in phase 2); and a sale or a withholding that takes a company holding trains
    into the black area (5.1.1: its trains go to our Open Market, not the site's, and
    a later forced purchase or train step differs there)."""
    rnd = game.round
    if AVOID_CLOSING_WITH_TRAINS and closes_with_trains(game, action):
        return True
    if AVOID_BANKRUPTCY_SALES and bankrupt_with_own_sales(game, action):
        return True
    if isinstance(action, BuyPrivate) and action.private in ("MRC", "MRB") and \
            not isinstance(rnd, StockRound) and game.rules.phase(game.state).name == "2":
        # A company's purchase (a player's in the private sale is his): bought in
        # phase 2 and closed with its company before phase 3, the private trips the
        # site's own error (site_difference below).
        return True
    if isinstance(action, BuyPrivate) and isinstance(rnd, OperatingRound) and \
            rnd.current is not None and rnd.current.revenue is None and \
            (rnd.current.step > rnd.steps.index("track") or rnd.current.lay_hexes) and \
            not rnd.company().trains:
        # A trainless company's empty run and its price's fall are settled when its
        # track step ends there, ours at its run (listed): a purchase in between would
        # come after a closing in the black area there (5.1.1); after its lay the site
        # may have ended that step (seed 3501 game 114).
        return True
    if isinstance(action, BuyTrain) and action.source == "pool":
        return any(c.closed for c in game.state.corporations.values())
    if not isinstance(rnd, StockRound):
        return False
    turn = game.turn()
    seat = turn.seat if turn is not None else ""
    if isinstance(action, Pass) and all_pass_with_cm_unsold(game):
        return True
    if isinstance(action, Bid):
        if rnd.s.auction is not None:
            return False  # 5.7: a bidder who passed has no turn in either engine
        bids = rnd.s.bids.get(action.target or "", {})
        return seat not in bids and len(bids) >= 2
    if isinstance(action, RedeemShares) and action.holder not in (None, seat):
        return True  # 5.10.3: from another player; the site redeems from the president only
    if isinstance(action, ReissueShares):
        mine = [c for c in game.state.corporations.values()
                if c.sym == action.company or (action.company is None and c.president == seat)]
        if len(mine) == 1 and site_reissue_par(game, mine[0]) != reissue_par(game.state, mine[0]):
            return True  # 5.11: the site's par above the display's $200 (docs)
    if isinstance(action, RedeemShares | ReissueShares):
        return site_idle(game, seat)
    if isinstance(action, SellShares) and action.company is None:
        corp = game.state.corporations[action.corporation]
        if over_certificate_limit(game, seat):
            # He must sell (5.4.1): any sale but one closing a company with trains
            # (above), rather than the first refused one (seed 3501 game 124: the sale
            # that closed CBQ with its trains, where RI's was left).
            return False
        if corp.president is not None and corp.president != seat:
            return True
        # The president's own sale that hands the presidency on: the site asks the new
        # president about protection as well.
        sold = action.percent or (action.count or 1) * 10
        others = [corp.percent_held_by(s) for s in game.state.seats if s != seat]
        return corp.percent_held_by(seat) - sold < max(others, default=0)
    return False


#: The random players leave a sale or a withholding that closes a company holding
#: trains (5.1.1, listed): on by default since 28 November 2026 (seed 3501 from game 60
#: on; the games played before keep their cached moves).
AVOID_CLOSING_WITH_TRAINS = True


def closes_with_trains(game: Game, action: Action) -> bool:
    """Whether ACTION takes the price of a company holding trains into the black area
    (5.1.1): a withholding one space left of it (9.1), or a player's sale whose fall
    (5.8.1, after the sales of it already waiting for the president's answer, 5.9)
    ends there; or gives a train to a company without a route."""
    state = game.state
    if isinstance(action, BuyTrain) and isinstance(game.round, OperatingRound) and \
            game.round.current is not None:
        # A company with no route: its runs of nothing move its price left (5.8.2)
        # until it closes with the train it buys now, unless its track reaches a route
        # in time (a random player's seldom does).
        return not has_route_now(game)
    if isinstance(action, Dividend) and action.choice == "withhold":
        rnd = game.round
        if not isinstance(rnd, OperatingRound) or rnd.current is None:
            return False
        corp = rnd.company()
        return bool(corp.trains) and game.rules.closes_on_withholding(state, corp)
    if not isinstance(action, SellShares):
        return False
    corp = state.corporations[action.corporation]
    if not corp.trains or corp.sym not in state.market.positions:
        return False
    falls = [s.percent // 10 for s in state.pending_sales if s.corporation == corp.sym]
    falls.append((action.percent or (action.count or 1) * 10) // 10)
    spec = state.market.spec
    pos = state.market.positions[corp.sym]
    for shares in falls:
        pos = fall_after_sale(spec, pos, shares)
    cell = market.cell_at(spec, pos)
    return cell is not None and cell.zone == "black"


#: The random players leave a president's sale for a train after which he cannot
#: raise its price (10.7.2: one block a company, 5.3.3), and the end of a turn that
#: makes him bankrupt, while he presides another company whose shares he sells (12.1,
#: listed: the site leaves those sales queued), unless nothing else is left: on by
#: default since 28 November 2026 (seed 3501 from game 120 on).
AVOID_BANKRUPTCY_SALES = True


def bankrupt_with_own_sales(game: Game, action: Action) -> bool:
    """Whether ACTION makes the president of the company acting bankrupt with sales of
    another company he presides (12.1's listed difference): the company must buy a
    train (10.1) and after ACTION its treasury, his cash and all he may still sell
    (a company once, 5.3.3) cannot pay for the cheapest (10.7.2: "If the president
    cannot raise enough money through stock sales he is bankrupt"), ACTION being a
    sale of his for it or the end of the turn (the bankruptcy itself); and a sale of
    his own other company waits or would come (5.9: nobody may protect it)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer is not None:
        return False
    turn = game.turn()
    if turn is None or not (isinstance(action, SellShares | Done) or
                            (isinstance(action, Pass) and turn.step == "train")):
        return False
    corp = rnd.company()
    seat = corp.president or ""
    if not rnd.must_buy(corp):
        return False
    cheapest = game.rules.cheapest_train(game.state)
    if cheapest is None:
        return False
    state = game.state
    selling = rnd._sellable_percents(seat, corp)  # (what a bankruptcy sells)
    prices = rnd._sale_prices()
    raised = corp.cash + state.player(seat).cash
    own = {s.corporation for s in state.pending_sales
           if s.seller == seat and s.president == seat and s.corporation != corp.sym}
    if isinstance(action, SellShares):
        sold = action.percent or 10 * (action.count or 1)
        raised += prices.get(action.corporation, 0) * sold // 10
        selling = {sym: pct for sym, pct in selling.items() if sym != action.corporation}
        if state.corporations[action.corporation].president == seat:
            own.add(action.corporation)
    raised += sum(prices[sym] * pct // 10 for sym, pct in selling.items())
    own |= {sym for sym in selling if state.corporations[sym].president == seat}
    return raised < cheapest[1] and bool(own - {corp.sym})


def over_certificate_limit(game: Game, seat: str) -> bool:
    """Whether SEAT holds more certificates than the limit (5.4.1), so must sell."""
    return certificate_count(game.rules, game.state, seat) > \
        game.rules.certificate_limit(game.state)


#: has_route_now's last answer: (the game, its number of moves) and the answer.
_ROUTE_SEEN: list[tuple[tuple[int, int], bool]] = []


def has_route_now(game: Game) -> bool:
    """Whether the company acting has a route (10.1), asked once a position: the train
    purchases among the random player's candidates are many."""
    key = (id(game.state), len(game.log))
    if _ROUTE_SEEN and _ROUTE_SEEN[0][0] == key:
        return _ROUTE_SEEN[0][1]
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    answer = routes.has_route(game.rules, game.state, rnd.company())
    _ROUTE_SEEN[:] = [(key, answer)]
    return answer


def fall_after_sale(spec: MarketSpec, pos: market.Position, shares: int) -> market.Position:
    """5.8.1 DOWN as `T1850.move_price_after_sale` moves a price: a space a share, the
    lower ledge stopping it and the Soft Ledge stopping the last share."""
    while shares > 0:
        cell = market.cell_at(spec, pos)
        if cell is None or "floor" in cell.ledges or \
                ("soft_below" in cell.ledges and shares == 1):
            break
        pos = market.down(spec, pos)
        shares -= 1
    return pos


def all_pass_with_cm_unsold(game: Game) -> bool:
    """Whether a pass now ends a stock round (everybody passed, 5.2.2) while the bank
    still holds the Chicago & Mississippi private: the site's income step after an
    all-pass of its privates' auction fails there (its own error, `NoMethodError` for
    the CM's owner; docs/site-differences.md)."""
    rnd = game.round
    cm = game.state.privates.get("CM")
    return isinstance(rnd, StockRound) and rnd.s.auction is None and cm is not None and \
        cm.owner is None and not cm.closed and \
        rnd.s.passes >= len(game.state.seats) - 1


def stock_round_ended_early(site_states: list[dict[str, Any]], at: int) -> bool:
    """Whether the site went on to the next stock round at record action `at` (its
    operating round of nothing but private income in between), as after 5.2.2's
    difference: our stock round goes on."""
    before, now = str(site_states[at - 1]["round"]), str(site_states[at]["round"])
    return before.startswith("Stock Round") and now.startswith("Stock Round") and \
        before.split(".")[0] != now.split(".")[0]


def train_step_skipped(record: dict[str, Any], at: int, game: Game | None = None) -> bool:
    """Whether record action AT is a company's pass at our train step where the only
    trains it could buy were on the Open Market after a company closed (5.1.1): the
    site, which removed them, skipped that step, so the pass meets its next one (the
    purchase of a private that ours makes after it)."""
    action = record["actions"][at]
    if action.get("type") != "pass" or action.get("entity_type") != "corporation":
        return False
    if game is None:
        setup, names = setup_of(record)
        game = Game(setup)
        mapper = RecordMapper(game, names)
        for index, raw in enumerate(expanded(folded_actions(record["actions"][:at]))):
            replay_action(game, mapper, index, raw)
    turn = game.turn()
    if turn is None or turn.step != "train" or not any(
            c.closed for c in game.state.corporations.values()):
        return False
    buys = [a for a in legal.legal_actions(game) if isinstance(a, BuyTrain)]
    return bool(buys) and all(a.source == "pool" for a in buys)


def closed_trains_apart(game: Game, site_states: list[dict[str, Any]]) -> Counter[str]:
    """5.1.1 shown at a position: the trains our Open Market holds that the site's does
    not, where a company has closed (5.1.1 puts its trains there; the site removes
    them). GAME is ours at the position, the site's its last summary."""
    if not site_states or not any(c.closed for c in game.state.corporations.values()):
        return Counter()
    ours = Counter(t.name for t in game.state.trains_pool)
    ours.subtract(str(t).replace("'", "") for t in site_states[-1].get("pool_trains", ()))
    return +ours


def cheapest_is_closed_train(game: Game, site_states: list[dict[str, Any]]) -> bool:
    """Whether the cheapest train ours offers a forced purchase (10.7) is one of a
    closed company's trains in our Open Market the site does not have."""
    cheapest = game.rules.cheapest_train(game.state)
    return cheapest is not None and cheapest[2] == "pool" and \
        closed_trains_apart(game, site_states)[cheapest[0].name] > 0


def site_difference(game: Game, answer: dict[str, Any], action: dict[str, Any],
                    site_states: list[dict[str, Any]]) -> str | None:
    """A refusal of the site that is one of 1850's listed differences
    (docs/site-differences.md), or None. GAME is ours just before the refused action:
    each difference is named only where the two positions there differ as listed."""
    error = str(answer.get("error"))
    at = int(answer.get("error_action_index") or 0)
    record = answer.get("record_actions") or []
    in_or = bool(site_states) and site_states[-1]["round"].startswith("Operating Round")
    if action.get("type") == "sell_shares" and "Cannot sell shares" in error and in_or \
            and isinstance(game.round, OperatingRound) and \
            cheapest_is_closed_train(game, site_states):
        # A forced purchase (10.7): ours must buy the cheapest train, an Open Market
        # train of a closed company the site has removed, so the sales it needs differ.
        return "5.1.1 a closed company's trains (a forced purchase)"
    pool = [m.get("train") for m in action.get("moderator_actions", [])
            if m.get("source") == "pool"]
    if action.get("type") == "buy_train" and pool and \
            closed_trains_apart(game, site_states)[str(pool[0])] > 0:
        # The same forced purchase where the president can pay: ours buys the closed
        # company's train from the Open Market, which the site does not have there.
        return "5.1.1 a closed company's trains (a forced purchase)"
    if action.get("type") == "buy_shares" and action.get("entity_type") == "corporation" \
            and "Cannot buy share from player" in error:
        # 5.10.3: a redemption from a player who is not the president, which the random
        # player makes only where his rules leave him nothing else.
        return "5.10.3 redeeming another player's share"
    if action.get("type") == "buy_company" and "cannot process action buy_company" in error \
            and site_states and site_states[-1]["round"].startswith("Stock Round") and \
            trainless_closed_there(game, action, site_states):
        # A trainless company's purchase after its lay: the site has settled its empty
        # run there, its price fell into the black area and it closed (the site's
        # moments); ours settles the run after the purchase.
        return "the site's moments: a trainless company's purchase before its empty run"
    stock_action = action.get("type") in ("pass", "buy_shares", "sell_shares", "par") \
        if action.get("entity_type") == "player" else \
        action.get("type") in ("buy_shares", "sell_shares")  # (a redemption, a reissue)
    if stock_action and "Cannot sell shares" not in error and in_or \
            and isinstance(game.round, StockRound) and \
            stock_round_ended_after_sale(record, at, site_states):
        # A pass after a sale the president was asked to protect ended the site's
        # stock round, not ours; the next action in ours may be a president's for his
        # company (seed 3701 game 60: Ann's sale of her own GN, her `done`, then GN's
        # redemption).
        return "5.2.2 the site's stock round ended"
    if action.get("entity_type") == "corporation" and action.get("type") == "pass" and \
            "Blocking step" in error and "cannot process action pass" in error and \
            record and train_step_skipped({"actions": record}, at, game) and \
            closed_trains_apart(game, site_states):
        # 5.1.1 puts a closed company's trains on the Open Market; the site removes
        # them, so where they were a company's only choice it skips the train step
        # our company passes at, and our next pass meets its next step (a run, or the
        # stock round after the last company).
        return "5.1.1 a closed company's trains"
    if action.get("entity_type") == "player" and action.get("type") in ("pass", "buy_shares") \
            and "cannot process action" in error and \
            protector_sold_it(game, action, site_states):
        # Ours asks the president about protecting a sale of his company after he sold
        # shares of it himself this round (5.9.10 lets him); the site passes him by.
        return "5.9.10 protection by a president who sold the company this round"
    if action.get("entity_type") == "corporation" and action.get("type") == "pass" and \
            "Blocking step Run Routes cannot process action pass" in error and \
            city_freed_unseen(game):
        # Our company passes its token step, where it could place a station only in a
        # city a closed company's station left (5.1.1); the site skipped that step, its
        # answer to "can it place a station" kept from before the closing (its own
        # error: a closing does not clear its graph; a lay or a station would).
        return "the site's error at a city freed by a closed company"
    if action.get("entity_type") == "corporation" and action.get("type") == "run_routes" \
            and "cannot process action run_routes" in error and \
            mesabi_rights_unseen(game, action):
        # Our company runs to the Mesabi Range with the rights it bought (6.5.1), and
        # nothing was laid or placed since: the site skipped its run, its graph kept
        # from before the rights (its own error: buying them does not clear it).
        return "the site's error at the Mesabi rights (its graph kept from before)"
    if action.get("entity_type") == "player" and action.get("type") in ("pass", "buy_shares") \
            and "cannot process action" in error and closure_sales_unsettled(
                game, action, site_states, answer.get("record_players") or []):
        # The president's sale for a train closed the company (10.7.2); ours asks the
        # presidents of his other companies sold about protection (5.9), the site has
        # gone on with those sales still queued and his money left to him.
        return "10.7.2 the president's other sales at a closure for a train (the site's " \
            "queue unsettled)"
    if "NoMethodError" in error and "player?" in error and action.get("type") == "pass" \
            and all_pass_with_cm_unsold(game):
        # Everybody passed with the CM still in the bank: the site fails paying the
        # privates' income (its own error, no rule of ours).
        return "the site's error at an all-pass with the CM unsold"
    if "NoMethodError" in error and "phase_2_companies" in error and any(
            game.state.privates[sym].closed for sym in ("MRC", "MRB")):
        # In phase 2 the site lists the Mesabi and river privates' owners, and a private
        # closed with its company (5.1.1) has none: its own error, no rule of ours.
        return "the site's error at a closed phase-2 private"
    return None


#: What may differ at a bankruptcy for `bankrupt_sales_unsettled` to be asked: prices
#: and shares, and the cash and trains of a company the bankrupt president's own sale
#: closed in ours (5.1.1: its money to the bank, its trains to the Open Market; seed
#: 3501 game 113), which it checks company by company.
BANKRUPTCY_APART = frozenset({"company price", "player shares", "company cash",
                              "company trains"})


def protector_sold_it(game: Game, action: dict[str, Any],
                      site_states: list[dict[str, Any]]) -> bool:
    """5.9.10 shown: GAME (ours before ACTION) waits for the answer of the president
    of the first sale waiting for one (5.9.2), another player than the seller, who
    has sold shares of that company himself this round, and the player answering in
    the record is him, while the site's next to act is somebody else (it passes by a
    president who sold the company this round)."""
    turn = game.turn()
    sales = game.state.pending_sales
    if turn is None or not sales or not site_states:
        return False
    sale = sales[0]
    return turn.seat == sale.president != sale.seller and \
        sale.corporation in game.state.player(sale.president).sold_this_round and \
        str(action.get("entity")) not in {str(a) for a in site_states[-1].get("acting", ())}


STATION = re.compile(r"^(\S+) places (?:its home station|a station) in (\S+)")
CLOSING = re.compile(r"^(\S+)'s price enters the black area: \S+ closes")
BUILDING = re.compile(r"^\S+ (?:lays tile|places (?:its home station|a station)) ")


LOST = re.compile(r"^(.+?)'s \$(\d+) is lost with (\S+): ")  # rules.cite("own_sale_closes")


def closure_money_kept(after: Game, action: dict[str, Any], ours: dict[str, Any],
                       site: dict[str, Any]) -> bool:
    """10.7.2 with 5.1.1 (listed) shown at a president's sale for a train: ours (AFTER,
    after ACTION) closed the company needing the train at that sale and took his money
    ("all money including that for all share sales and the president's personal funds
    are lost"); the site closes it too but leaves him his cash. OURS and SITE, the
    positions there, differ only in the seller's cash, by what ours took (seed 3601
    game 16: Ann's sale of GN)."""
    if action.get("type") != "sell_shares" or action.get("entity_type") != "player":
        return False
    found = next((m for line in after.state.log[-6:] if (m := LOST.match(line))), None)
    if found is None:
        return False
    apart = [pid for pid, mine in ours["players"].items()
             if site["players"].get(pid, {}).get("cash") != mine["cash"]]
    return apart == [str(action.get("entity"))] and \
        site["players"][apart[0]]["cash"] - ours["players"][apart[0]]["cash"] == \
        int(found.group(2))


OPERATES = re.compile(r"^(\S+) operates \(")
SOLD = re.compile(r"^(.+?) sells \d+% of (\S+) for ")


def closure_sales_unsettled(game: Game, action: dict[str, Any],
                            site_states: list[dict[str, Any]],
                            players: list[dict[str, Any]]) -> bool:
    """10.7.2 with 5.9 (listed) shown at a protection answer the site refuses: GAME (ours
    before ACTION) asks a president about protecting a sale the president of the
    company buying a train made for it, whose last sale closed that company ("all money
    including that for all share sales and the president's personal funds are lost");
    the site has gone on (the player answering is not among its acting), its queue of
    those sales unsettled. The positions differ only as listed: the seller's cash by
    what ours took, and the prices of the other companies he sold in that turn (seed
    3701 game 72: Cy's sales of RI, MILW, NP, MP and CBQ for CBQ's train; ours asks Ann
    about NP, the site is in stock round 23)."""
    turn = game.turn()
    sales = game.state.pending_sales
    if turn is None or not sales or not site_states or not turn.step.startswith("protect"):
        return False
    site = site_states[-1]
    if str(action.get("entity")) in {str(a) for a in site.get("acting", ())}:
        return False
    log = game.state.log
    lost_at = max((i for i, line in enumerate(log) if LOST.match(line)), default=None)
    began = max((i for i, line in enumerate(log) if OPERATES.match(line)), default=None)
    if lost_at is None or began is None or lost_at < began:
        return False
    lost = LOST.match(log[lost_at])
    assert lost is not None
    seller, closed = lost.group(1), lost.group(3)
    if any(sale.seller != seller for sale in sales):
        return False
    sold = {m.group(2) for line in log[began:lost_at] if (m := SOLD.match(line))
            and m.group(1) == seller} - {closed}
    ids = {str(p.get("name")): str(p.get("id")) for p in players}
    site_players = {str(p["id"]): p for p in site.get("players", ())}
    theirs = site_players.get(ids.get(seller, ""))
    if theirs is None or \
            theirs["cash"] - game.state.players[seller].cash != int(lost.group(2)):
        return False
    if any(str(p["id"]) != ids.get(seller) and p["cash"] != game.state.players[name].cash
           for name, p in ((n, site_players.get(ids.get(n, ""))) for n in game.state.seats)
           if p is not None):
        return False
    apart = {c["id"] for c in site.get("corporations", ())
             if c["id"] in game.state.corporations and c["id"] != closed and
             c.get("price") != (game.state.market.price(c["id"])
                                if c["id"] in game.state.market.positions else None)}
    return apart <= sold


MESABI_BOUGHT = re.compile(r"^(\S+) (?:buys the Mesabi rights|receives a Mesabi token)")


def mesabi_rights_unseen(game: Game, action: dict[str, Any]) -> bool:
    """Whether the run ACTION of GAME's company acting (ours just before it) takes every
    route to the Mesabi Range (6.5.1: "To run to or through the Mesabi Range a company
    must pay the $80 cost for rights"; P5, the Mesabi Mining Company, "Comes with a
    Mesabi Range token" for the company that buys it), rights it gained with no tile laid and no
    station placed anywhere since: the site's graph, which only a lay or a station
    clears, still holds the company's reach as it was without them (seed 3601 game 86:
    NP, B11-A10)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None:
        return False
    sym = rnd.company().sym
    runs = action.get("routes") or []
    if str(action.get("entity")) != sym or not runs or \
            not all(MESABI_RANGE in (r.get("hexes") or []) for r in runs):
        return False
    log = game.state.log
    last = max((i for i, line in enumerate(log)
                if (m := MESABI_BOUGHT.match(line)) and m.group(1) == sym), default=None)
    return last is not None and not any(BUILDING.match(line) for line in log[last + 1:])


def city_freed_unseen(game: Game) -> bool:
    """Whether GAME's company acting may place a station now (its token step not yet
    passed) only in hexes where a company now closed had one (5.1.1: "All tokens of
    that company are removed from the map"), with no tile laid and no station placed
    anywhere since the last of those closings: the site's graph, which only a lay or a
    station clears, still holds those cities as they were."""
    places = {p.hex for p in legal.legal_token_places(game)}
    log = game.state.log
    closed = {sym for sym, corp in game.state.corporations.items() if corp.closed}
    freed: dict[str, str] = {}  # hex: the closed company whose station stood there
    for line in log:
        if (m := STATION.match(line)) and m.group(1) in closed:
            freed[m.group(2)] = m.group(1)
    if not places or not places <= set(freed):
        return False
    owners = {freed[h] for h in places}
    last = max((i for i, line in enumerate(log)
                if (m := CLOSING.match(line)) and m.group(1) in owners), default=None)
    return last is not None and not any(BUILDING.match(line) for line in log[last + 1:])


def bankrupt_sales_unsettled(game: Game, action: dict[str, Any], ours: dict[str, Any],
                             site: dict[str, Any]) -> bool:
    """12.1 with 5.8, 5.9 shown at a bankruptcy (listed): the positions differ only in
    the prices of companies whose sales by the bankrupt president, their own president,
    ours let stand as the game ended (nobody may protect them), other than the company
    that needed the train (the site moves its price at the sale); the site's game ends
    with those sales still queued for a protection nobody can give. GAME is ours after
    the bankruptcy, OURS and SITE the positions there."""
    stood = {m.group(1) for line in game.state.log[-12:]
             if (m := re.search(r"sale of \d+% of (\S+) stands \(5\.9", line))}
    apart = {sym for sym, mine in ours["corporations"].items()
             if sym in site["corporations"] and
             mine["price"] != site["corporations"][sym]["price"]}
    others = {sym for sym, mine in ours["corporations"].items()
              if sym in site["corporations"] and any(
                  mine[k] is not None and k in site["corporations"][sym] and
                  mine[k] != site["corporations"][sym][k] for k in ("cash", "trains"))}
    # A fall into the black area closes the company in ours (5.1.1): its shares leave
    # the players' hands there (seed 3501 game 98).
    shares = {sym for pid, mine in ours["players"].items()
              for sym in set(mine["shares"]) | set(site["players"].get(pid, {}).get(
                  "shares", {}))
              if mine["shares"].get(sym) != site["players"].get(pid, {}).get(
                  "shares", {}).get(sym)}
    closed = {sym for sym in stood if ours["corporations"].get(sym, {}).get("price") is None}
    return bool(apart) and not others - closed and \
        apart | shares <= stood - {str(action.get("entity"))}


def reissue_par_shown(game: Game, action: dict[str, Any], ours: dict[str, Any],
                      site: dict[str, Any]) -> bool:
    """5.11 shown at a player's purchase of a reissued share (listed): ours sells it at
    the par the Par Value Display caps at $200, and the company's cash and the buyer's
    differ by just the site's higher par less ours (the site's top-row par). GAME is
    ours before the purchase, OURS and SITE the positions after it."""
    shares = action.get("shares") or []
    sym = str(shares[0]).split("_")[0] if shares else ""
    corp = game.state.corporations.get(sym)
    if corp is None or corp.par_price != 200 or sym not in ours["corporations"] or \
            sym not in site["corporations"]:
        return False
    gap = site["corporations"][sym]["cash"] - (ours["corporations"][sym]["cash"] or 0)
    buyer = str(action.get("entity"))
    paid = ours["players"].get(buyer, {}).get("cash", 0) - \
        site["players"].get(buyer, {}).get("cash", 0)
    top = {cell.price for cell in game.state.title.market.rows[0] if cell is not None}
    return gap > 0 and gap == paid and 200 + gap in top


def trainless_closed_there(game: Game, action: dict[str, Any],
                           site_states: list[dict[str, Any]]) -> bool:
    """The site's moments shown: the company buying holds no train in ours and has
    left the site's market (closed there)."""
    corp = game.state.corporations.get(str(action.get("entity")))
    if corp is None or corp.trains:
        return False
    theirs = next((c for c in site_states[-1]["corporations"]
                   if c["id"] == action.get("entity")), None)
    return theirs is None or theirs.get("price") is None


def stock_round_ended_after_sale(record: list[dict[str, Any]], at: int,
                                 site_states: list[dict[str, Any]]) -> bool:
    """5.2.2 shown: the site went from its stock round to an operating round at a
    player's pass after a player's sale (the pass it counted for the seller's turn
    ended its round), while ours is still in the stock round."""
    for k in range(min(at, len(site_states)) - 1, 0, -1):
        before, now = str(site_states[k - 1]["round"]), str(site_states[k]["round"])
        if before.startswith("Stock Round") and now.startswith("Operating Round"):
            earlier = record[max(0, k - 3 * len(site_states[k]["players"])):k + 1]
            return record[k].get("type") == "pass" and any(
                a.get("type") == "sell_shares" and a.get("entity_type") == "player"
                for a in earlier)
        if not now.startswith("Operating Round"):
            return False
    return False


def site_reissue_par(game: Game, corp: Corporation) -> int:
    """The par the site gives CORP's reissue: the nearest price of the market's top row
    to 75% of the share price (rounded up at a tie), not the Par Value Display's (5.11
    caps it at $200), and at least the old par."""
    assert corp.par_price is not None
    top = [cell.price for cell in game.state.title.market.rows[0] if cell is not None]
    target = game.state.market.price(corp.sym) * 3 / 4 + 1
    return max(corp.par_price, min(top, key=lambda p: abs(target - p)))
