"""1861 12: the merger rounds: a minor converts into a public company, or minors merge
into one. `Rules1861` (engine/titles/t1861.py) keeps each hook and asks these.

Section numbers refer to shared/rules/1861.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import routes, track
from engine.actions import Convert, Merge
from engine.errors import GameError, require
from engine.rounds.merger import claim_presidency
from engine.state import CLOSED, TREASURY, Corporation, GameState, money

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.rounds.base import Round
    from engine.rules import Rules


def merger_round_follows(rules: Rules, state: GameState) -> bool:
    """12: after each operating round of phases 3 to 7."""
    return 3 <= int(rules.phase(state).name) <= 7


def merger_candidates(rules: Rules, state: GameState) -> list[str]:
    """12.1: each minor, in operating order."""
    minors = [c.sym for c in state.corporations.values()
              if c.spec.kind == "minor" and c.floated and not c.closed]
    return sorted(minors, key=state.market.order_key)


def merger_alias(rules: Rules, state: GameState, name: str) -> str:
    return rules.auction_target(state, name)


def merger_options(rules: Rules, state: GameState, sym: str) -> list[str]:
    free = ", ".join(unstarted_publics(rules, state))
    out = []
    if why_not_convert(rules, state, sym) is None:
        out.append(f"convert {sym} into PUBLIC ({free})")
    partners = merge_partners(rules, state, sym)
    if partners:
        out.append(f"merge {sym} with any of {', '.join(partners)} into PUBLIC ({free})")
    return out


def merger_candidate_actions(rules: Rules, state: GameState, sym: str) -> list[Action]:
    publics = unstarted_publics(rules, state)[:1]
    out: list[Action] = [Convert(sym, into) for into in publics]
    out += [Merge((sym, other), into) for other in merge_partners(rules, state, sym)
            for into in publics]
    return out


def unstarted_publics(rules: Rules, state: GameState) -> list[str]:
    return [c.sym for c in state.corporations.values()
            if c.spec.kind == "major" and c.president is None and not c.floated]


def why_not_convert(rules: Rules, state: GameState, sym: str) -> str | None:
    """12.2: the minor's price lies in the conversion zone (R100 to R165)."""
    if not state.market.cell(sym).convert:
        return (f"{sym}'s price {money(state, state.market.price(sym))} is outside the "
                "conversion zone (R100 to R165; 12.2)")
    return None


def merge_partners(rules: Rules, state: GameState, sym: str) -> list[str]:
    """12.3: minors connected to `sym` by track a train could run."""
    corp = state.corporations[sym]
    graph = routes.route_track(rules, state, corp)
    nodes, _ = track.reachable(state, graph, sym)
    out = []
    for other in rules.merger_candidates(state):
        if other == sym:
            continue
        if any(track.Node(hex_id, "c", city) in nodes
               for hex_id, cities in state.board.tokens.items()
               for city, corps in cities.items() if other in corps):
            out.append(other)
    return out


def _public(rules: Rules, state: GameState, into: str | None) -> Corporation:
    free = unstarted_publics(rules, state)
    if into is None and len(free) == 1:
        into = free[0]  # `convert M-K`: the one public company left to form
    require(into is not None, f"name the public company: `into PUBLIC`, one of "
            f"{', '.join(free)}")
    assert into is not None
    sym = rules.auction_target(state, into)
    require(sym in free, f"{into} is not a public company waiting to be formed; "
            f"these are: {', '.join(free)}")
    return state.corporations[sym]


def convert(rules: Rules, state: GameState, minor: str, into: str | None, round: Round) -> str:
    """12.2, 12.4: the public takes the minor's price (on the red or purple space of
    that value, under any markers there), its station, its assets and loans; the
    owner receives the Director's certificate; the other shares lie in the
    treasury."""
    why = why_not_convert(rules, state, minor)
    if why:
        raise GameError(why)
    public = _public(rules, state, into)
    old = state.corporations[minor]
    owner = old.president or ""
    price = state.market.price(minor)
    _form(rules, state, public, price)
    public.certificates[0].owner = owner
    public.president = owner
    _take_over(rules, state, old, public)
    state.say(f"{minor} converts into {public.sym} at {money(state, price)}; "
              f"{owner} receives its Director's certificate")
    return public.sym


def merge(rules: Rules, state: GameState, minors: tuple[str, ...], into: str, round: Round,
          stations: tuple[str, ...] = ()) -> str:
    """12.3: two to ten connected minors (at most six of one player); the price is
    the highest plus the lowest (at most R200); each minor becomes one share for
    its owner; the most shares direct it (ties: the minor that operated first); it
    takes two of their stations, in different hexes, those of `stations` when
    there is a choice."""
    order = [m for m in rules.merger_candidates(state) if m in minors]
    require(len(order) == len(set(minors)) and 2 <= len(order) <= 10,
            "two to ten minors that may still merge this round (12.3)")
    owners = [state.corporations[m].president or "" for m in order]
    require(all(owners.count(o) <= 6 for o in owners),
            "no more than six minors of one player (12.3)")
    reach = set(merge_partners(rules, state, order[0])) | {order[0]}
    require(all(m in reach for m in order),
            f"the minors must be connected by track to {order[0]} (12.3)")
    taken = merger_stations(rules, state, order, stations)
    public = _public(rules, state, into)
    prices = [state.market.price(m) for m in order]
    price = min(200, max(prices) + min(prices))
    _form(rules, state, public, price)
    first_owner = owners[0]
    for owner in owners:
        cert = next(c for c in public.certificates
                    if c.owner == TREASURY and not c.president)
        cert.owner = owner
    public.president = first_owner
    claim_presidency(state, public)
    kept: set[str] = set()
    for sym in order:
        _take_over(rules, state, state.corporations[sym], public, kept,
                        limit=2 if sym in taken else 0)
    state.say(f"{', '.join(order)} merge into {public.sym} at "
              f"{money(state, state.market.price(public.sym))}; "
              f"{public.president} directs it")
    return public.sym


def merger_stations(rules: Rules, state: GameState, order: list[str],
                    named: tuple[str, ...]) -> list[str]:
    """12.3: the minors whose stations the new company takes: two in different
    hexes (one, when all lie in one hex). Where more than two hexes hold them the
    order names two (`stations of N M-K`); otherwise it may name them or not."""
    hexes = {m: [h for h, cities in state.board.tokens.items()
                 for corps in cities.values() if m in corps] for m in order}
    spread = {h for found in hexes.values() for h in found}
    want = min(2, len(spread))

    def describe(m: str) -> str:
        return f"{m} ({', '.join(hexes[m]) or 'no station'})"

    choices = "; ".join(describe(m) for m in order if hexes[m])
    if not named:
        require(len(spread) <= 2, f"the new company takes two of the merging minors' "
                f"stations (12.3); name them: `stations of MINOR MINOR`, of {choices}")
        out: list[str] = []
        seen: set[str] = set()
        for m in order:  # all of them; one per hex, the earliest operating minor's
            if hexes[m] and not seen & set(hexes[m]):
                out.append(m)
                seen |= set(hexes[m])
        return out
    chosen = list(dict.fromkeys(named))
    require(all(m in order for m in chosen),
            f"the stations kept are merging minors' (12.3): of {choices}")
    chosen_hexes = [h for m in chosen for h in hexes[m]]
    require(len(chosen) == want and len(set(chosen_hexes)) == len(chosen_hexes) == want,
            f"the new company takes {want} station(s) in different hexes (12.3); "
            f"of {choices}")
    return chosen


def _form(rules: Rules, state: GameState, public: Corporation, price: int) -> None:
    """The public's marker on the red or purple space of `price` (rounded down to a
    space there is); all its certificates in its treasury."""
    cells = [c for c in state.market.spec.par_cells("major") if c.price <= price]
    cell = max(cells, key=lambda c: c.price)
    for cert in public.certificates:
        cert.owner = TREASURY
    public.par_price = cell.price
    public.floated = True
    public.operated = False
    public.closed = False
    public.token_costs = list(public.spec.token_costs)
    state.market.place(public.sym, (cell.row, cell.col))


def _take_over(rules: Rules, state: GameState, minor: Corporation, public: Corporation,
               kept: set[str] | None = None, limit: int | None = None) -> None:
    """12.4: cash, trains, privates and loans pass to the public; its stations are
    replaced (free), at most `limit` and one per hex."""
    state.transfer_cash(minor.sym, public.sym, minor.cash)
    public.trains += minor.trains
    minor.trains = []
    public.loans += minor.loans
    minor.loans = 0
    for private in state.privates.values():
        if private.owner == minor.sym:
            private.owner = public.sym
    kept = kept if kept is not None else set()
    for hex_id, cities in state.board.tokens.items():
        for corps in cities.values():
            if minor.sym not in corps:
                continue
            i = corps.index(minor.sym)
            if hex_id in kept or (limit is not None and len(kept) >= limit) or \
                    not public.token_costs:
                corps.pop(i)
                continue
            corps[i] = public.sym
            public.token_costs.pop(0)
            kept.add(hex_id)
    for cert in minor.certificates:
        cert.owner = CLOSED
    minor.president = None
    minor.closed = True
    minor.floated = False
    state.market.remove(minor.sym)
