"""1861 7.4, 10.10, 11: the Russian State Railway (its stations and its trains) and the
nationalisation of trainless companies (the Director's choice). `Rules1861`
(engine/titles/t1861.py) keeps each hook and asks these.

Section numbers refer to shared/rules/1861.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import loans, national, trains
from engine.actions import Keep, Nationalise
from engine.board import has_token_in
from engine.errors import GameError
from engine.national import RESERVE
from engine.rounds.base import Turn
from engine.rounds.operating import OperatingRound
from engine.state import BANK, Corporation, GameState, money

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.rounds.base import Round
    from engine.rules import Rules
    from engine.state import Train

TRAINLESS = "trainless: may be nationalised"  # 11: the Director decides
MOSCOW = "H8"
ST_PETERSBURG = "E1"
RSR = "RSR"


def national_operates(rules: Rules, state: GameState) -> bool:
    """7.4: in phases 4 to 7."""
    try:
        rules.phase(state).train_limit_for("national")
    except LookupError:
        return False
    return True


def rsr_home(rules: Rules, state: GameState, rsr: Corporation) -> None:
    """7.4: when it first operates, a station in St. Petersburg (its reserved
    space), if it has none there."""
    _rsr_station(rules, state, rsr, ST_PETERSBURG, rsr.spec.home_city or 0)


def _rsr_station(rules: Rules, state: GameState, rsr: Corporation, hex_id: str, city: int
                 ) -> None:
    """7.4: the RSR's station on the space kept for it in `hex_id`, unless it has
    one there already (from a nationalised company, 11)."""
    reserve = RESERVE + hex_id
    if reserve not in rsr.markers or has_token_in(state, RSR, hex_id):
        rsr.markers.discard(reserve)
        return
    rsr.markers.discard(reserve)
    state.board.tokens.setdefault(hex_id, {}).setdefault(city, []).append(RSR)
    rsr.token_costs.pop(0)
    state.say(f"{RSR} places its station in {state.title.hexes[hex_id].name or hex_id}")


def after_lay(rules: Rules, state: GameState, corp: Corporation, hex_id: str, tile: str) -> None:
    """7.4: when Moscow upgrades to grey, the RSR places its station there (the
    grey tile's fourth space is the one kept for it, 10.5)."""
    if hex_id == MOSCOW and state.title.tile(tile).color == "gray":
        _rsr_station(rules, state, state.corporations[RSR], MOSCOW, 0)


def end_of_company_turn(rules: Rules, state: GameState, corp: Corporation, round: Round) -> None:
    """7.4, 10.10: the RSR buys the cheapest train if it has none (with loans) and
    then every next train it can pay for; a company ending its turn without a
    train is nationalised."""
    if corp.sym == RSR:
        _rsr_buys_trains(rules, state, corp)
        return
    if not corp.trains and not corp.closed:
        national.nationalise(rules, state, corp)


def _rsr_buys_trains(rules: Rules, state: GameState, rsr: Corporation) -> None:
    if not rsr.trains:
        cheapest = trains.cheapest_available(state)
        if cheapest is not None:
            _rsr_buy(rules, state, rsr, cheapest[0], cheapest[1], cheapest[2])
    while national_operates(rules, state):
        offer = trains.next_offered(state)
        if offer is None:
            break
        price = state.title.train(offer.name).price
        if rsr.cash < price:
            break
        _rsr_buy(rules, state, rsr, offer, price, "bank")


def _rsr_buy(rules: Rules, state: GameState, rsr: Corporation, train: Train, price: int,
             source: str) -> None:
    if rsr.cash < price:
        loans.take_loans_for(rules, state, rsr, price, "a train")
    if source == "pool":
        state.trains_pool.remove(train)
        state.transfer_cash(rsr.sym, BANK, price)
        rsr.trains.append(train)
        state.say(f"{RSR} buys a {train.name}-train from the Bank Pool for "
                  f"{money(state, price)}")
        return
    trains.take_from_offering(rules, state, rsr, price)


def why_not_place_token(rules: Rules, state: GameState, corp: Corporation) -> str | None:
    """10: the RSR runs, withholds, pays interest, repays and buys trains, and places
    no station marker in its turn (7.4: St. Petersburg when it first operates,
    Moscow when it upgrades to grey, the nationalised companies' stations, 11)."""
    if corp.spec.kind == "national":
        return f"{RSR} places no station markers in its turn (7.4, 10)"
    return None


def _trainless(rules: Rules, state: GameState) -> list[Corporation]:
    waiting = [c for c in state.corporations.values() if TRAINLESS in c.markers]
    return sorted(waiting, key=lambda c: state.market.order_key(c.sym))


def pending_decision(rules: Rules, state: GameState) -> Turn | None:
    # (Asked at every turn of the game: the companies are sorted only when one waits.)
    if not any(TRAINLESS in c.markers for c in state.corporations.values()):
        return None
    corp = _trainless(rules, state)[0]
    return Turn(corp.president or "", corp.sym, f"nationalise {corp.sym} or keep it")


def decision_options(rules: Rules, state: GameState) -> list[str]:
    corp = _trainless(rules, state)[0]
    return [f"nationalise {corp.sym}", f"keep {corp.sym}"]


def decision_candidates(rules: Rules, state: GameState) -> list[Action]:
    corp = _trainless(rules, state)[0]
    return [Nationalise(corp.sym), Keep(corp.sym)]


def decide(rules: Rules, state: GameState, seat: str, action: Action, round: Round) -> None:
    """11: at the start of phases 4, 6 and 8 the Director of a public company that
    has operated and owns no train may have it nationalised."""
    corp = _trainless(rules, state)[0]
    if not isinstance(action, Nationalise | Keep):
        raise GameError(f"{seat} must first decide whether {corp.sym} is nationalised",
                        tuple(rules.decision_options(state)))
    named = rules.auction_target(state, action.corporation)
    if named != corp.sym:
        raise GameError(f"{corp.sym} is to be decided now, not {action.corporation}",
                        tuple(rules.decision_options(state)))
    corp.markers.discard(TRAINLESS)
    if isinstance(action, Nationalise):
        national.nationalise(rules, state, corp)
    else:
        state.say(f"{seat} keeps {corp.sym}")

    if not _trainless(rules, state) and isinstance(round, OperatingRound) and \
            round.current is None and RSR in round.done:
        # 10.10: the phase began with the RSR's purchase at its turn's end, the last
        # of the round; with what the nationalisations brought it, it goes on
        # buying the cheapest new trains it can pay for (as the site has it).
        _rsr_buys_trains(rules, state, state.corporations[RSR])


def nationalised_shares(rules: Rules, state: GameState, corp: Corporation, seat: str) -> int:
    """11: a minor counts as two shares."""
    if corp.spec.kind == "minor":
        return 2 if corp.percent_held_by(seat) else 0
    return corp.percent_held_by(seat) // 10
