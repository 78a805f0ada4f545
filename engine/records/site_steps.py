"""Where the site's engine stops in a company's turn for a decision, and so where a
record must pass a step: its own steps, the steps ours does not have (1861), and what
the site offers at each (a tile lay at hand, a token to place, a train to buy).
"""

from __future__ import annotations

from engine import board, routes, track, trains
from engine.actions import Action, Done, Pass, PlaceToken, SellShares
from engine.game import Game, Move
from engine.records import forms_1825, forms_1861
from engine.records.conventions import site_difference, site_forms
from engine.records.ledgers import Holdings
from engine.rounds.operating import CompanyTurn, OperatingRound
from engine.state import POOL, Corporation, GameState


def site_stops_at(game: Game, step: str, preloan: bool | None = None,
                   removed: frozenset[str] = frozenset()) -> int:
    """How many times the site stops for the operating company at our `step`: its own
    stop there, and the stops of its steps ours does not have (1861; `preloan`: its
    stop before loans, where judged already; `removed`: the trains the site took out
    of the game, `removed_at_close`)."""
    if site_forms(game.state.title.name).steps_of_1867:
        if forms_1861.national_operates(game):
            return int(step == "route" and site_waits_at(game, step, removed))  # 7.4
        if step == "token":
            return int(forms_1861.token_stop(game))
        if step == "train":
            # (The interest and repayments come first, 10.8, 10.9: only a company that
            # could pay for a bank train with its loans must buy one.)
            waits = forms_1861.must_buy_train(game) or site_train_step_open(
                game, removed=removed)
            return int(waits) + forms_1861.extra_stops(game, step, preloan)
        return int(site_waits_at(game, step, removed)) + forms_1861.extra_stops(
            game, step, preloan)
    return int(site_waits_at(game, step, removed))


def end_the_game(game: Game, moves: list[Move]) -> bool:
    """Whether the last moves are passes that end the game: a company's pass of a step
    the site skips (1825: the train step it does not open after a bankruptcy) in the
    last operating round, after which the site ends the game by itself."""
    for move in moves:
        if not isinstance(move.action, Pass | Done) or not game.attempt(move.seat,
                                                                         move.action):
            return False
    return game.state.game_over


def site_waits_at(game: Game, step: str, removed: frozenset[str] = frozenset()) -> bool:
    """Whether the site stops for the operating company at `step`. It passes a step by
    itself when the step offers nothing: no tile lay left, no token that fits, no train
    to run, no revenue to share, no train or private to buy."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    turn, corp, state = rnd.current, rnd.company(), game.state
    forms = site_forms(state.title.name)
    if forms.one_build_step and step in ("track", "token"):
        # One site step lays tiles and places a base, in any order: its stop is our
        # token step's, open while a lay is left or a base may be placed.
        return step == "token" and (rnd.lays_left(corp) or (
            not turn.token_placed and _may_place_token(game)))
    if step == "track":
        # (A lay with a fee, 1861's second, only while the company can pay it, with the
        # loans it may still take, 10.2, each worth its value less the interest.)
        fee = game.rules.lay_fee(state, corp, len(turn.lay_hexes))
        value, interest = game.rules.loan_terms(state)
        power = corp.cash + max(0, game.rules.max_loans(state, corp) - corp.loans) * (
            value - interest)
        return (rnd.lays_left(corp) and power >= fee) or _tile_lay_at_hand(game)
    if step == "token":
        # (Or a title's own token, 1850's edge token: the site's step offers it too.)
        return not turn.token_placed and (_may_place_token(game) or bool(
            game.rules.step_extras(state, corp, "token", rnd)))
    if step == "route":
        if forms.site_runs_receiver(game, corp):
            # 1825 6.4: the site's receiver runs (or leases) where a route exists, with
            # trains or none.
            return turn.revenue is None and routes.has_route(game.rules, state, corp)
        return turn.revenue is None and bool(corp.trains) and routes.has_route(
            game.rules, state, corp)
    if step == "dividend":
        return bool(turn.revenue) and not turn.dividend_done
    if step == "train":
        if forms.site_runs_receiver(game, corp):
            # 1825 6.4.4: the site's receiver buys the one train that fits by itself,
            # or skips the step.
            return False
        if forms.bankrupt_trains_removed:
            return site_train_step_open(game, removed=removed)  # 6.3: its pool
        return rnd.can_buy_train(corp) or site_train_step_open(game, removed=removed)
    return rnd.step_available(corp, step)


def closing_sale(state: GameState, action: Action) -> int | None:
    """The percent a player's sale sold where it closed the company (1850 5.1.1: its
    price entered the black area, and every certificate went with it), else None."""
    if not isinstance(action, SellShares) or action.company is not None:
        return None
    corp = state.corporation(action.corporation)
    if not corp.closed:
        return None
    share = min(cert.percent for cert in corp.certificates)
    return action.percent or (action.count or 1) * share


def site_train_step_open(game: Game, corp: Corporation | None = None,
                          from_depot: bool | None = None,
                          removed: frozenset[str] = frozenset()) -> bool:
    """Whether the site stops at (or, after a purchase, stays in) the company's train step:
    it has room for a train (obsolete trains do not count) and cash for the cheapest
    train anyone offers (the Initial Offering's next train even when the one-train-per-
    turn limit, 4.2.5(f), bars buying it; the Open Market's; another company's at $1).
    After a train bought from the bank (`from_depot`) it stays only while another
    company's train could be bought. The Open Market's trains in `removed` (1825 6.3: a
    bankrupt company's, `removed_at_close`) are not on the site's offer."""
    state = game.state
    if corp is None:
        rnd = game.round
        assert isinstance(rnd, OperatingRound)
        corp = rnd.company()
    # The site does not count obsolete trains toward the limit (docs/site-differences.md,
    # 4.2.5(g) with 4.2.5.1): its step stays open where ours is full.
    if sum(not t.obsolete for t in corp.trains) >= trains.train_limit(game.rules, state, corp):
        return False
    rnd = game.round
    if isinstance(rnd, OperatingRound) and rnd.current is not None and \
            rnd.current.corporation == corp.sym and bank_barred(game, rnd.current):
        from_depot = True
    others = corp.cash >= 1 and any(
        other.sym != corp.sym and any(not t.obsolete
                                      and forms_1825.site_buyable(game, corp, other, t)
                                      for t in other.trains)
        for other in state.corporations.values())
    # 6.3: the site removes a bankrupt company's trains; ours are in the Open Market for
    # resale (docs/site-differences.md): the site's cheapest is of the others.
    prices = [state.title.train(t.name).price for t in state.trains_pool
              if t.id not in removed]
    offer = trains.next_offered(state)
    if offer is not None:
        prices.append(state.title.train(offer.name).price)
    if not others and (not prices or corp.cash < min(prices)):
        return False
    return others if from_depot else True


def removed_at_close(before: Holdings, after: Holdings, closed: frozenset[str]
                     ) -> frozenset[str]:
    """The trains one move took from a company it closed (CLOSED: the companies closed
    after it) and put in the Open Market: 1825 6.3, a bankrupt company's trains "return
    to the bank for resale", which the site instead removes from the game."""
    pool = set(after.trains.get(POOL, ()))
    return frozenset(t for corp, ids in before.trains.items()
                     if corp != POOL and corp in closed and not after.trains.get(corp)
                     for t in ids if t in pool)


def waits_for_seller(game: Game, move: Move) -> bool:
    """Whether MOVE, a purchase from another company, waits for its seller's answer."""
    probe = game.clone()
    if not probe.attempt(move.seat, move.action):
        return False
    return isinstance(probe.round, OperatingRound) and probe.round.offer is not None


def bank_barred(game: Game, turn: CompanyTurn) -> bool:
    """Whether a limit for good (1850 10.3: one new train a turn) bars the bank's trains
    for the rest of the turn: the site then offers only other companies' trains, as right
    after the purchase. 18TN's limit until the first 4-train does not (its site still
    offers the Initial Offering's next train)."""
    return game.rules.one_bank_train_per_turn_until is None and \
        not game.rules.may_buy_another_bank_train(game.state, turn.bank_trains_bought)


def _tile_lay_at_hand(game: Game) -> bool:
    """The site keeps the track step open, lays used or not, while the company owns a
    private whose tile lay is unused, or could buy one from a player (at half its face
    value, the lowest price 18TN allows once privates may change hands)."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp, state = rnd.company(), game.state
    first = site_difference(game.rules.title,
                            "track_step_waits_for_private_purchase_from_phase")
    # 1850's site offers a purchase in its track step only once every private may be
    # bought (phase 3), not for the bridge company buyable in phase 2.
    purchases = first is None or state.phase_index >= game.rules.title.phase_index(first)
    for private in state.privates.values():
        if private.closed or not game.rules.private_lays_tiles(state, private):
            continue
        if private.owner == corp.sym:
            if private.last_used != rnd.label:  # a lay a round (1850's P4) is spent
                return True
            continue
        if not purchases:
            continue
        lowest = (private.spec.value + 1) // 2
        if private.owner in state.players and corp.cash >= lowest and \
                game.rules.why_not_buy_private(state, corp, private, lowest, rnd) is None:
            return True
    return False


def _may_place_token(game: Game) -> bool:
    """Whether some city within reach takes a station of the operating company now."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp, state = rnd.company(), game.state
    if not corp.token_costs or corp.president is None:
        return False
    nodes, _ = track.reachable(state, track.build_track(state), corp.sym)
    for node in sorted(nodes, key=str):
        if node.kind != "c" or board.has_token_in(state, corp.sym, node.hex):
            continue
        free = board.free_slots(state, node.hex, node.index)
        if free - board.reserved_slots(state, node.hex, node.index, corp.sym) <= 0:
            continue
        if corp.cash < game.rules.token_cost(state, corp, node.hex):
            continue
        if game.clone().attempt(corp.president, PlaceToken(node.hex, node.index)):
            return True
    return False


def site_stops_left(game: Game, seat: str, site_step: int = 0,
                     removed: frozenset[str] = frozenset()) -> int:
    """How many times the site stops from our step to the end of the company's turn
    (what our `done` passes)."""
    probe = game.clone()
    rnd = probe.round
    assert isinstance(rnd, OperatingRound)
    turn = rnd.current
    stops = 0
    for _ in range(2 * len(rnd.steps)):
        now = probe.round
        if (probe.state.game_over or not isinstance(now, OperatingRound)
                or now.current is not turn or now.discards or now.offer is not None
                or turn is None or turn.step >= len(now.steps)):
            break
        if turn.step >= site_step:
            stops += site_stops_at(probe, now.steps[turn.step], removed=removed)
        if not probe.attempt(seat, Pass()):
            break
    return stops
