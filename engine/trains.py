"""Trains and phases: buying, phase changes, rusting, obsolescence, train limits.

A phase begins when the first train of a type (or its n-th, `starts_on_nth`) is bought
from the Initial Offering (18TN 1.2, 4.2.5(e)); its effects are immediate. What a
phase does beyond the data (privates closing, the Civil War) is the title's hook.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engine.state import BANK, Corporation, GameState, Train, money

if TYPE_CHECKING:
    from engine.rules import Rules


def next_offered(state: GameState) -> Train | None:
    """The next train of the Initial Offering (trains are bought in order, 4.2.5(b))."""
    return state.trains_offered[0] if state.trains_offered else None


def offered_of_type(state: GameState, name: str) -> list[Train]:
    """Trains of the type now on offer that the Initial Offering still holds."""
    first = next_offered(state)
    if first is None:
        return []
    return [t for t in state.trains_offered if t.name == first.name] if first.name == name else []


def bought_from_offering(state: GameState, name: str) -> int:
    """How many trains of type `name` have left the Initial Offering."""
    spec = state.title.train(name)
    total = spec.count if spec.count is not None else 99
    return total - sum(1 for t in state.trains_offered if t.name == name)


def train_limit(rules: Rules, state: GameState, corp: Corporation) -> int:
    """Trains `corp` may own in the current phase (None in the data: no limit)."""
    try:
        limit = rules.phase(state).train_limit_for(corp.spec.kind)
    except LookupError:
        return 0
    return 99 if limit is None else limit


def over_limit(rules: Rules, state: GameState) -> list[Corporation]:
    """Corporations owning more trains than the phase allows: they must discard, in
    market order (highest price, right-most, top of the stack first; 1851 says so)."""
    over = [
        c for c in state.corporations.values()
        if c.floated and not c.closed and len(c.trains) > train_limit(rules, state, c)
    ]
    return sorted(over, key=lambda c: state.market.order_key(c.sym))


def take_from_offering(rules: Rules, state: GameState, corp: Corporation, price: int,
                       train: Train | None = None) -> Train:
    """Move the next offered train (or `train`, where the title offers several) to
    `corp` for `price`, then run any phase change."""
    if train is None:
        train = state.trains_offered[0]
    state.trains_offered.remove(train)
    state.transfer_cash(corp.sym, BANK, price)
    corp.trains.append(train)
    state.say(f"{corp.sym} buys a {train.name}-train for {money(state, price)}")
    check_phase_change(rules, state, train.name)
    return train


def check_phase_change(rules: Rules, state: GameState, bought: str) -> None:
    """Start every phase this purchase triggers, in order."""
    count = bought_from_offering(state, bought)
    for index, phase in enumerate(state.title.phases):
        if index <= state.phase_index:
            continue
        if phase.starts_on == bought and (phase.starts_on_nth or 1) == count:
            start_phase(rules, state, index)


def start_phase(rules: Rules, state: GameState, index: int) -> None:
    phase = state.title.phases[index]
    state.phase_index = index
    state.say(f"Phase {phase.name} begins")
    rust_trains(rules, state, phase.name)
    make_obsolete(state, phase.name)
    rules.on_phase_change(state, phase)


def rust_trains(rules: Rules, state: GameState, phase_name: str) -> None:
    """Trains that rust when this phase starts are removed from play at once."""
    doomed = {t.name for t in state.title.trains if t.rusts_on == phase_name}
    if not doomed:
        return
    for corp in state.corporations.values():
        gone = [t for t in corp.trains if t.name in doomed]
        if gone:
            corp.trains = [t for t in corp.trains if t.name not in doomed]
            state.say(f"{corp.sym} loses {len(gone)} rusted train(s)")
            rules.on_trains_removed(state, corp, gone)
    state.trains_pool = [t for t in state.trains_pool if t.name not in doomed]
    for name in sorted(doomed):
        state.say(f"all {name}-trains are removed from play")


def make_obsolete(state: GameState, phase_name: str) -> None:
    """18TN 4.2.5.1: pool copies go at once; company copies run once more."""
    doomed = {t.name for t in state.title.trains if t.obsolete_on == phase_name}
    if not doomed:
        return
    state.trains_pool = [t for t in state.trains_pool if t.name not in doomed]
    for corp in state.corporations.values():
        if any(train.name in doomed for train in corp.trains):
            # (a new card: trains are shared by copies of the game, never changed)
            corp.trains = [dataclasses.replace(train, obsolete=True)
                           if train.name in doomed else train for train in corp.trains]
    for name in sorted(doomed):
        state.say(f"{name}-trains become obsolete")


def remove_obsolete(state: GameState, corp: Corporation) -> None:
    """After the dividend step, obsolete trains leave play (18TN 4.2(f))."""
    gone = [t for t in corp.trains if t.obsolete]
    if gone:
        corp.trains = [t for t in corp.trains if not t.obsolete]
        state.say(f"{corp.sym} removes {len(gone)} obsolete train(s)")


def cheapest_available(state: GameState, offered: list[Train] | None = None
                       ) -> tuple[Train, int, str] | None:
    """The cheapest train in the Initial Offering or the Open Market (4.2.5.2(a)); of
    the Initial Offering, its next train, or the trains `offered` where a title offers
    more than one (1861 10.10: in phase 8 a 2+2 or a 5+5E besides the 8-train)."""
    options: list[tuple[int, int, Train, str]] = []
    for first in [next_offered(state)] if offered is None else offered:
        if first is not None:
            options.append((state.title.train(first.name).price, 0, first, "bank"))
    for i, train in enumerate(state.trains_pool):
        options.append((state.title.train(train.name).price, i + 1, train, "pool"))
    if not options:
        return None
    price, _, train, source = min(options, key=lambda o: (o[0], o[1]))
    return train, price, source
