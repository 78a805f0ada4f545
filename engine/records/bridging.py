"""The moves 18xx.games makes without recording them, made again by the importer.

The site passes a player who can do nothing, ends a company's turn once the next entity
acts, sells trains between companies without asking the other president, and (1825) has
a company in receivership buy its train by itself. A record leaves those moves out; the
importer makes them where the next recorded action shows the site made them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import routes
from engine.actions import Accept, Action, BuyTrain, Done, Pass, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.records import forms_1825
from engine.records.conventions import site_difference, site_forms
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import STOCK_ACTIONS, StockRound
from engine.shares import certificate_count
from engine.state import IPO, POOL


def pass_idle_players(game: Game, apply: Apply | None = None) -> int:
    """The players the site passes by itself at once (nothing left to do in a stock
    turn) pass; returns how many passes were made. (A record's last actions may leave
    such passes to be made: the site makes them at once, the importer when the next
    action comes.)"""
    made = 0
    for _ in range(2 * len(game.setup.seats)):
        turn, rnd = game.turn(), game.round
        if turn is None or not isinstance(rnd, StockRound) or rnd.s.auction is not None \
                or game.lone_pass() != "pass" or not site_idle(game, turn.seat, "pass"):
            # (Passing only, he may only pass on his own account too: `_own_lone_pass`.)
            break
        (apply or apply_move)(game, turn.seat, Pass())
        made += 1
    return made


def drop_bidders(game: Game, apply: Apply) -> None:
    """1861 9.2: the site drops at once the bidders who cannot raise from a minor's
    auction; a company's action comes after them (and after the minor's new owner)."""
    for _ in range(len(game.setup.seats)):
        turn = game.turn()
        if turn is None or getattr(game.round, "lot", None) is None or \
                game.legal() != ["pass"]:
            return
        apply(game, turn.seat, Pass())


def sold_at_once(game: Game, raw: dict[str, Any]) -> bool:
    """The site has sold the private at auction to its first bidder (`SiteForms.
    sold_at_once`: 1861 9.4), and the record goes on with something else than a raise on
    it (a raise, which the site refuses, is ours)."""
    sym = site_forms(game.state.title.name).sold_at_once(game)
    return sym is not None and not (raw.get("type") == "bid" and raw.get("company") == sym)


def end_national_turn(game: Game, raw: dict[str, Any], apply: Apply) -> None:
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


Apply = Callable[[Game, str, Action], None]


def apply_move(game: Game, seat: str, action: Action) -> None:
    game.apply(seat, action)


def attempt_move(game: Game, seat: str, action: Action) -> None:
    if not game.attempt(seat, action):
        raise GameError(f"{action.kind} is refused")


def accept_offers(game: Game, apply: Apply) -> None:
    """The site sells trains between companies without asking the other president."""
    turn = game.turn()
    if turn is not None and turn.step.startswith("answer") and "offer for a train" in turn.step:
        apply(game, turn.seat, Accept())


def _own_lone_pass(game: Game) -> str | None:
    """"pass" or "done" when that is all the player to act may do for himself, else
    None: the site's 1850 asks him alone, not his companies (their redemption and
    reissue in his stock turn; title_specific.site_differences.
    idle_ignores_company_actions). (`Game.lone_pass`: the whole listing was ~20% of an
    1861 import.)"""
    if not site_difference(game.rules.title, "idle_ignores_company_actions"):
        return game.lone_pass()
    return game.lone_pass(("redeem ", "reissue "))


# `site_idle` without the player's options at hand.
_UNASKED = "(not asked)"


def site_idle(game: Game, seat: str, own: str | None = _UNASKED) -> bool:
    """Whether the site passes this player by itself in a stock round: he can do nothing
    but pass (or end a turn he has acted in), and cannot buy a private from another
    player either (the site offers that on his stock turn to a player with any cash who
    has not bought this turn, while another player owns one; its 1850 never does:
    title_specific.site_differences.interplayer_privates). The site asks the player
    alone: what his company may do in his turn (1850's redemption and reissue) does not
    keep him from being passed. `own`: `_own_lone_pass` of this position, when the
    caller has it already."""
    rnd = game.round
    forms = site_forms(game.state.title.name)
    if isinstance(rnd, StockRound) and forms.dealing_rounds:
        return site_idle_1825(game, rnd, seat)
    if isinstance(rnd, StockRound) and rnd.s.auction is None and rnd.cheapest() is not None:
        # While privates are for sale the site's turn always offers a bid and a pass,
        # whatever the player's cash: it never passes him by itself.
        return False
    if (own if own != _UNASKED else _own_lone_pass(game)) is None:
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


def _receiver_buys(game: Game, entity: str, apply: Apply) -> bool:
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


def bridge_implicit_passes(game: Game, seat: str, raw: dict[str, Any],
                            apply: Apply = apply_move, action: Action | None = None) -> None:
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
        if getattr(game.round, "lot", None) is not None and (
                game.legal() == ["pass"] or sold_at_once(game, raw)):
            # 1861 9.2: the site drops a bidder who cannot raise from the auction; 9.4:
            # it has sold a private whose minimum fell to its first bidder.
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
        own = game.lone_pass() if company_turn else _own_lone_pass(game)
        if turn.seat == seat and not operating and not (
                auction is None and own == "pass" and (raw.get("type") != "pass" or site_idle(
                    game, seat, _UNASKED if company_turn else own))):
            # (A player the site passes by itself acts in a later turn: he passes now.)
            return
        # A player who can do nothing more: he passes, or ends the turn he acted in.
        if own == "pass":
            apply(game, turn.seat, Pass())
        elif own == "done":
            apply(game, turn.seat, Done())
        else:
            return


def _declare_no_run(game: Game, apply: Apply) -> None:
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
