"""1825 Unit 1, 6.4.5: when the receiver is also a director, any two other players may
veto his decisions.

Not to be vetoed: a tile that extends track (5.2.4.a: a yellow lay, reached from a base
by the lay rules), a promotion or a base that raises the income of this turn's run, and
what the rules oblige the receiver to do (the lease, the run, the withheld income, the
train 6.4.4 forces on the company). Everything else that spends the company's credit or
changes the map (a promotion or base that raises nothing, a train bought by choice) is
put to the vote before it is carried out: the other players are asked in turn from the
receiver's left, `veto` or `accept`. Two vetoes cancel it (the receiver goes on with his
turn); once two vetoes can no longer be reached, it is carried out. By mail the vote has
the game's deadline: a player who does not answer lets the decision stand
(engine/defaults.py). The decision and the answers so far are kept as markers on the
company, so they are copied and replayed with the state.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from engine.actions import Accept, Action, BuyTrain, LayTile, PlaceToken, Veto, from_json, to_json
from engine.errors import GameError, require
from engine.state import Corporation, GameState, copy_records
from engine.titles import t1825_receivership as rcv

if TYPE_CHECKING:
    from engine.rounds.base import Round, Turn
    from engine.rules import Rules

VOTE = "vote:"  # + the decision as JSON
VETO = "veto-by:"
ACCEPT = "accept-by:"
APPROVED = "vote-passed"  # the decision may now be carried out, once
VETOES_NEEDED = 2


def voting(state: GameState) -> Corporation | None:
    # Plain loops: asked several times a position (every `turn`), where nested
    # generators cost a tenth of a record's replay.
    for corp in state.corporations.values():
        if corp.markers:
            for marker in corp.markers:
                if marker.startswith(VOTE):
                    return corp
    return None


def decision(corp: Corporation) -> Action:
    marker = next(m for m in corp.markers if m.startswith(VOTE))
    return from_json(json.loads(marker[len(VOTE):]))


def _answered(corp: Corporation, prefix: str) -> list[str]:
    return [m[len(prefix):] for m in corp.markers if m.startswith(prefix)]


def voters(state: GameState, corp: Corporation) -> list[str]:
    """6.4.5: the other players, from the receiver's left."""
    seat = rcv.receiver(corp) or ""
    return [s for s in state.seats_from(state.next_seat(seat)) if s != seat]


def describe(action: Action) -> str:
    if isinstance(action, LayTile):
        return f"tile {action.tile} on {action.hex}"
    if isinstance(action, PlaceToken):
        return f"a base in {action.hex}"
    if isinstance(action, BuyTrain):
        where = "the bank" if action.source == "bank" else action.source
        price = "" if action.price is None else f" for £{action.price}"
        return f"a {action.train}-train from {where}{price}"
    return action.kind.replace("_", " ")


def pending(state: GameState) -> Turn | None:
    corp = voting(state)
    if corp is None:
        return None
    from engine.rounds.base import Turn  # (only when a vote waits: asked at every turn)

    answered = set(_answered(corp, VETO)) | set(_answered(corp, ACCEPT))
    seat = next(s for s in voters(state, corp) if s not in answered)
    return Turn(seat, corp.sym, f"veto or accept the receiver {rcv.receiver(corp)}'s "
                f"decision for {corp.sym}: {describe(decision(corp))} (6.4.5)")


def _income(rules: Rules, state: GameState, corp: Corporation) -> int:
    """This turn's income: the best run, with the lease the receiver must take."""
    own = rcv.best_income(rules, state, corp)
    if rcv.leased(corp) is None:
        train = rcv.lease_candidate(state, corp)
        if train is not None:
            return max(own, rcv.best_income(rules, state, corp, train))
    return own


def raises_income(rules: Rules, state: GameState, corp: Corporation, seat: str,
                  action: Action, round: Round) -> bool:
    """Carry the action out on a copy: a refusal is raised now; True when the income of
    this turn's run grows."""
    before = _income(rules, state, corp)
    state2, round2 = copy_records((state, round), {id(rules): rules})
    state2.corporations[corp.sym].markers.add(APPROVED)
    round2.process(seat, action)
    return _income(rules, state2, state2.corporations[corp.sym]) > before


def put_to_vote(rules: Rules, state: GameState, corp: Corporation, seat: str,
                action: Action, round: Round) -> bool:
    """Whether the receiver's action waits for the vote (6.4.5); refusals are raised
    before any vote."""
    if APPROVED in corp.markers:
        corp.markers.discard(APPROVED)
        return False
    if not rcv.in_receivership(corp) or not rcv.directors(state)[seat] or \
            len(voters(state, corp)) < VETOES_NEEDED:
        return False
    if isinstance(action, LayTile):
        if rules.tile_lay_kind(state, action.hex, "yellow") == "yellow":
            return False  # new track, 5.2.4.a
        if raises_income(rules, state, corp, seat, action, round):
            return False
    elif isinstance(action, PlaceToken):
        if raises_income(rules, state, corp, seat, action, round):
            return False
    elif isinstance(action, BuyTrain):
        if rules.must_buy_train(state, corp):
            return False  # 6.4.4 obliges it
        state2, round2 = copy_records((state, round), {id(rules): rules})
        state2.corporations[corp.sym].markers.add(APPROVED)
        round2.process(seat, action)  # refused now if at all
    else:
        return False
    corp.markers.add(VOTE + json.dumps(to_json(action), sort_keys=True))
    state.say(f"{seat}, {corp.sym}'s receiver, is also a director: {describe(action)} "
              "waits for the other players, any two of whom may veto it (6.4.5)")
    return True


def answer(rules: Rules, state: GameState, seat: str, action: Action, round: Round
           ) -> None:
    corp = voting(state)
    assert corp is not None
    require(isinstance(action, Veto | Accept),
            f"{seat} is asked to `veto` the receiver's decision for {corp.sym} or "
            "`accept` it (6.4.5)", ("veto", "accept"))
    corp.markers.add((VETO if isinstance(action, Veto) else ACCEPT) + seat)
    state.say(f"{seat} {'vetoes' if isinstance(action, Veto) else 'accepts'} "
              f"{describe(decision(corp))} for {corp.sym}")
    vetoes = len(_answered(corp, VETO))
    left = len(voters(state, corp)) - vetoes - len(_answered(corp, ACCEPT))
    if vetoes < VETOES_NEEDED and vetoes + left >= VETOES_NEEDED:
        return
    held = decision(corp)
    for marker in [m for m in corp.markers if m.startswith((VOTE, VETO, ACCEPT))]:
        corp.markers.discard(marker)
    if vetoes >= VETOES_NEEDED:
        state.say(f"Two players veto it: {corp.sym} does not do it (6.4.5)")
        return
    state.say(f"No veto: {corp.sym} goes ahead (6.4.5)")
    corp.markers.add(APPROVED)
    try:
        round.process(rcv.receiver(corp) or "", held)
    except GameError:
        corp.markers.discard(APPROVED)
        raise


__all__ = ["answer", "pending", "put_to_vote", "voting"]
