"""1861 moves in 18xx.games' own forms, for `engine.records.writing` (issue #17).

The site plays 1861 as a variant of its 1867 code. What differs from the forms the
general export writes:

- a minor is put up for auction (9.2) by a `bid` naming the `corporation` by the
  site's symbol ("MNN" for the rulebook's M-NN); a bidder who cannot raise is dropped
  from the auction without a record; so is every bidder on a private whose minimum a
  full round of passes lowered (9.4): the site sells it to the first bidder at once
  (its "Dutch" mode, docs/site-differences.md), and refuses a raise;
- the merger round (12): each minor asked passes, or `convert`s and names the public
  (`merge`), or names each partner (`merge`), passes, names the public (`merge`) and,
  where the minors hold more than two stations or two in one hex, removes stations
  (`remove_token`) until two in different hexes are left; the other owners are not
  asked to agree, so a merger one of them refuses has no form there;
- a trainless public's Director (11) keeps it with a `pass`, or `choose`s
  "nationalize";
- in a company's turn the site stops for a private purchase from a player (7.1) after
  the dividend (before loans) and after the train step; ours has no such stops.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine import board, loans, track
from engine.actions import (
    Accept,
    Bid,
    Convert,
    Done,
    Keep,
    Merge,
    Nationalise,
    Pass,
    StartAuction,
)
from engine.records.forms import NO_FORM, SiteForms
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.merger import MergerRound
from engine.rounds.operating import OperatingRound

if TYPE_CHECKING:
    from engine.game import Game, Move
    from engine.state import Corporation, GameState


class _Rules1861(Protocol):
    """What the export asks of 1861's rules beyond the core's (the title's module stays
    behind the registry: the core knows no title)."""

    def unstarted_publics(self, state: GameState) -> list[str]: ...

    def auction_target(self, state: GameState, name: str) -> str: ...

    def merger_alias(self, state: GameState, name: str) -> str: ...

    def merger_candidates(self, state: GameState) -> list[str]: ...

    def merger_stations(self, state: GameState, order: list[str],
                        named: tuple[str, ...]) -> list[str]: ...

    def merge_partners(self, state: GameState, sym: str) -> list[str]: ...


def _rules(game: Game) -> _Rules1861:
    assert game.state.title.name == "1861"
    return cast("_Rules1861", game.rules)


# (NO_FORM, engine/records/forms.py: a move of ours the site has no form for, such as a
# merger another owner refuses, 12.1.)
Form = dict[str, Any] | list[dict[str, Any]] | bool | object | None


def site_offers_par(game: Game, seat: str) -> bool:
    """Whether the site's stock turn offers `seat` to start a public company (9.3, from
    phase 4), so that it does not pass him by itself: it offers it to a player who has
    not bought this turn, is below the certificate limit and holds twice its lowest
    start space of any kind (R50, a minor's), while a public is unstarted, even where
    no public's space (R70 to R200) is within his cash."""
    from engine.rounds.stock import StockRound
    from engine.shares import certificate_count

    state, rnd = game.state, game.round
    if not isinstance(rnd, StockRound) or rnd.s.turn.bought or \
            int(game.rules.phase(state).name) < 4:
        return False
    lowest = min(c.price for c in state.title.market.par_cells())
    return state.players[seat].cash >= 2 * lowest and \
        certificate_count(game.rules, state, seat) < game.rules.certificate_limit(state) \
        and bool(_rules(game).unstarted_publics(state))


def site_sym(game: Game, sym: str) -> str:
    """The site's symbol for one of our companies (its minors' drop the hyphens)."""
    if sym in game.state.corporations:
        return game.state.corporations[sym].spec.site_sym or sym
    return sym


def sold_at_once(game: Game) -> str | None:
    """9.4 as the site plays it (listed): the private up for auction, a bid standing on
    it, after a full round of passes lowered its minimum. The rulebook resumes the
    auction "in the same manner as Minor Companies" (raises allowed); the site has sold
    it to the first bidder at his bid. The private's symbol, or None."""
    rnd = game.round
    if not isinstance(rnd, AuctionStockRound) or rnd.lot is None:
        return None
    private = game.state.privates.get(rnd.lot.target)
    if private is None or private.price is None:
        return None
    printed = private.spec.min_bid or private.spec.value
    return private.sym if private.price < printed else None


def before(renderer: Any, index: int, move: Move) -> Form:
    """The site's form of `move` read off the position before it: a dict; a list of
    site actions, the last carrying the move; True/False: a pass in a stock round the
    site makes by itself (unrecorded) or not; NO_FORM; None: the general export's."""
    game: Game = renderer.game
    rnd = game.round
    action = move.action
    state = game.state
    if isinstance(rnd, AuctionStockRound) and isinstance(action, StartAuction | Bid):
        target = action.target or (rnd.lot.target if rnd.lot else None)
        if target in state.corporations:  # 9.2: a minor (or 9.3's public)
            return {"type": "bid", "corporation": target, "price": action.amount}
        return {"type": "bid", "company": target, "price": action.amount}
    if isinstance(rnd, AuctionStockRound) and isinstance(action, Pass) and rnd.lot is not None:
        # 9.2: the site drops a bidder who cannot raise without asking him; 9.4: it has
        # sold a private whose minimum fell to its first bidder.
        return game.legal() == ["pass"] or sold_at_once(game) is not None
    if isinstance(action, Keep | Nationalise):
        corp = action.corporation
        entity = {"entity": corp, "entity_type": "corporation"}
        if isinstance(action, Keep):
            return {**entity, "type": "pass"}
        return {**entity, "type": "choose", "choice": "nationalize"}
    if isinstance(rnd, MergerRound):
        return _merger_round(renderer, index, move, rnd)
    return None


def _merger_round(renderer: Any, index: int, move: Move, rnd: MergerRound) -> Form:
    game: Game = renderer.game
    state = game.state
    action = move.action
    if rnd.proposal is not None:
        # 12.1: the site does not ask; an agreement is made by the importer.
        return None if isinstance(action, Accept) else NO_FORM
    if rnd.dealing is not None:
        if isinstance(action, Pass | Done):
            return {"type": "pass"}
        return None  # a share from the treasury: the general `buy_shares`
    minor = rnd.current
    rules = _rules(game)
    assert minor is not None
    entity: dict[str, Any] = {"entity": minor, "entity_type": "corporation"}
    if isinstance(action, Pass | Done):
        return {**entity, "type": "pass"}
    if isinstance(action, Convert):
        into = action.into
        if into is None:
            free = rules.unstarted_publics(state)
            into = free[0] if len(free) == 1 else None
        assert into is not None
        public = rules.auction_target(state, into)
        return [{**entity, "type": "convert"},
                {**entity, "type": "merge", "corporation": public}]
    if isinstance(action, Merge):
        if not _agreed(renderer, index):
            return NO_FORM
        alias = rules.merger_alias
        minors = [alias(state, m) for m in action.minors]
        public = rules.auction_target(state, action.into)
        forms = [{**entity, "type": "merge", "corporation": m} for m in minors if m != minor]
        if _more_partners(game, [minor, *(m for m in minors if m != minor)]):
            forms.append({**entity, "type": "pass"})  # done naming partners
        forms.append({**entity, "type": "merge", "corporation": public})
        order = [m for m in rules.merger_candidates(state) if m in minors]
        stations = tuple(alias(state, m) for m in action.stations)
        kept = set(rules.merger_stations(state, order, stations))
        removed = _removed_stations(renderer, order, kept)
        forms += [{"entity": public, "entity_type": "corporation", "type": "remove_token",
                   "city": city, "slot": slot} for city, slot in removed]
        return forms
    return None


def merger_owners(game: Game, move: Move) -> tuple[str, list[str]] | None:
    """For a merger that takes place: the public and the merging minors' owners in
    operating order (the order the site hands out the new company's shares in)."""
    rnd = game.round
    action = move.action
    if not isinstance(rnd, MergerRound):
        return None
    rules = _rules(game)
    state = game.state
    if isinstance(action, Merge) and rnd.proposal is None:
        named, into = action.minors, action.into
    elif isinstance(action, Accept) and rnd.proposal is not None and \
            len(rnd.proposal.waiting) == 1:  # the last owner agrees: the merger is made
        named, into = rnd.proposal.minors, rnd.proposal.into
    else:
        return None
    minors = {rules.merger_alias(state, m) for m in named}
    order = [m for m in rules.merger_candidates(state) if m in minors]
    return rules.auction_target(state, into), \
        [state.corporations[m].president or "" for m in order]


def deal_merger_shares(held: dict[str, dict[str, list[int]]], game: Game, public: str,
                       owners: list[str]) -> None:
    """12.3 as the site hands the certificates out (which ids each owner holds, for the
    export's share ledger): to each minor's owner in operating order the last share of
    the treasury, and to one who comes to hold two the Director's certificate for them."""
    state = game.state
    corp = state.corporations[public]
    if not corp.floated or not all(corp.percent_held_by(o) for o in owners):
        return  # the merger did not take place (or is not yet agreed)
    from engine.state import TREASURY

    # (The site's treasury list in the order shares came to it: a share given back goes
    # to its end, and the last one is handed out next.)
    treasury = sorted(i for indexes in held[public].values() for i in indexes)
    mine: dict[str, list[int]] = {}
    for owner in owners:
        if treasury[0] == 0 and len(mine.get(owner, [])) == 1:
            treasury.append(mine[owner].pop())
            treasury.remove(0)
            mine[owner].append(0)
        else:
            mine.setdefault(owner, []).append(treasury.pop())
    ours = {o: corp.percent_held_by(o) for o in owners}
    site = {o: sum(corp.certificates[i].percent for i in v) for o, v in mine.items()}
    if ours != site:
        return  # ours dealt otherwise: the ledger keeps its own reading
    held[public] = {TREASURY: treasury, **mine}


def _more_partners(game: Game, merging: list[str]) -> bool:
    """Whether the site would offer another partner to the minors merging (12.3): one
    connected to any of them, while fewer than ten merge and its owner has fewer than
    six among them. Without one the site goes on to the public by itself."""
    rules = _rules(game)
    state = game.state
    if len(merging) >= 10:
        return False
    owners = [state.corporations[m].president for m in merging]
    full = {o for o in owners if owners.count(o) >= 6}
    return any(other not in merging and state.corporations[other].president not in full
               for m in merging for other in rules.merge_partners(state, m))


def _agreed(renderer: Any, index: int) -> bool:
    """Whether the merger proposed by moves[index] takes place: no owner declines."""
    moves: list[Move] = renderer.moves
    probe: Game = renderer.game.clone()
    if not probe.attempt(moves[index].seat, moves[index].action):
        return False
    for move in moves[index + 1:]:
        rnd = probe.round
        if not isinstance(rnd, MergerRound) or rnd.proposal is None:
            break
        if not probe.attempt(move.seat, move.action):
            return False
    rnd = probe.round
    action = moves[index].action
    assert isinstance(action, Merge)
    public = probe.rules.auction_target(probe.state, action.into)
    return not (isinstance(rnd, MergerRound) and rnd.proposal is not None) and \
        probe.state.corporations[public].floated


def _removed_stations(renderer: Any, order: list[str], kept: set[str]
                      ) -> list[tuple[str, int]]:
    """The site's (city, slot) of each merging minor's station the new company does not
    take; those sharing a hex with another first (the site asks for them first). Of
    minors sharing one city the site keeps the last in operating order by itself."""
    state = renderer.game.state
    at: dict[str, tuple[str, int]] = {}
    for hex_id, cities in state.board.tokens.items():
        for city, corps in cities.items():
            for sym in corps:
                if sym in order:
                    at[sym] = (hex_id, city)
    by_city = {at[m]: m for m in order if m in at}  # the last minor of each city
    standing = [m for m in order if m in at and by_city[at[m]] == m]
    gone = [m for m in standing if m not in kept]
    hexes = [at[m][0] for m in standing]
    gone.sort(key=lambda m: hexes.count(at[m][0]) == 1)
    return [(renderer.tiles.city_id(*at[m]), renderer.slots.slots[(at[m][0], m)])
            for m in gone]


def may_buy_private(game: Game, corp: Corporation, cash: int | None = None) -> bool:
    """Whether the site offers `corp` a private of a player's (7.1: phases 3-5, from
    R1, with `cash` or its own; the RSR buys none)."""
    state = game.state
    cash = corp.cash if cash is None else cash
    for private in state.privates.values():
        if private.closed or private.owner not in state.players:
            continue
        if cash >= 1 and game.rules.why_not_buy_private(
                state, corp, private, 1, game.round) is None:
            return True
    return False


def extra_stops(game: Game, step: str, preloan: bool | None = None) -> int:
    """The site's stops in a company's turn that ours has no step for, counted with our
    step they follow: after the dividend its private purchase before loans (blocking;
    passed by itself, as an auto action, only for a company without loans), and after
    the train step its private purchase (ours offers a private in its own orders).
    `preloan`: the stop before loans as judged when the dividend was done."""
    rnd = game.round
    if step not in ("dividend", "train") or not isinstance(rnd, OperatingRound) or \
            rnd.current is None:
        return 0
    if step == "dividend" and preloan is not None:
        return int(preloan)
    corp = rnd.company()
    if step == "train" and not corp.trains:
        return 0  # passing its train step without a train, the company is nationalised
    return int(may_buy_private(game, corp))


def redeem_stop(game: Game) -> bool:
    """Whether the site's turn begins at its redemption step (10.3): shares of the
    company in the Bank Pool and the cash for one."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    corp, state = rnd.company(), game.state
    if corp.spec.kind != "major" or corp.sym not in state.market.positions:
        return False
    from engine.state import POOL

    return bool(corp.certificates_of(POOL)) and corp.cash >= state.market.price(corp.sym)


def token_stop(game: Game) -> bool:
    """Whether the site stops at the company's token step: a station marker left, cash
    for the cheapest one's price (10.5's multiplier) and a city within reach with room,
    whether or not the distance makes it dearer (the site then passes by itself, as an
    auto action)."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    corp, state = rnd.company(), game.state
    if rnd.current.token_placed or not corp.token_costs or corp.cash < min(corp.token_costs):
        return False
    nodes, _ = track.reachable(state, track.build_track(state), corp.sym)
    return any(node.kind == "c" and not board.has_token_in(state, corp.sym, node.hex)
               and board.free_slots(state, node.hex, node.index)
               - board.reserved_slots(state, node.hex, node.index, corp.sym) > 0
               for node in nodes)


def must_buy_train(game: Game) -> bool:
    """10.10 as the site has it: a company without a train must buy one where the
    Initial Offering's (or the Open Market's) cheapest is within its cash and the loans
    it may still take (10.2)."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp, state = rnd.company(), game.state
    cheapest = game.rules.cheapest_train(state)
    return not corp.trains and cheapest is not None and \
        loans.buying_power(game.rules, state, corp) >= cheapest[1]


def stops_after_turn(game: Game, sym: str) -> int:
    """The site's last private purchase stop after a turn ours ended by itself."""
    corp = game.state.corporations[sym]
    return int(not corp.closed and may_buy_private(game, corp))


def cash_before_loans(sym: str, said: list[str], cash: int) -> int:
    """The company's cash before the interest and repayments of its turn (10.8, 10.9)
    that `said` (the log of one move) tells of, from `cash` after them."""
    for line in said:
        # 10.8: interest it cannot pay: it is nationalised, its cash going to the RSR.
        unpaid = re.search(rf"{re.escape(sym)} owes \D*\d+ interest and has only \D*(\d+)",
                           line)
        if unpaid:
            return int(unpaid.group(1))
        for pattern, sign in ((rf"{re.escape(sym)} pays \D*(\d+) interest", 1),
                              (rf"{re.escape(sym)} repays \d+ loan\(s\) for \D*(\d+)", 1),
                              (rf"{re.escape(sym)} takes a loan of \D*\d+ for its loan "
                               rf"interest and receives \D*(\d+)", -1)):
            found = re.search(pattern, line)
            if found:
                cash += sign * int(found.group(1))
    return cash


def decides(move: Move) -> bool:
    """Whether `move` is the Director's decision on nationalisation (11), which the site
    asks before the company's turn proper."""
    return isinstance(move.action, Keep | Nationalise)


def national_operates(game: Game) -> bool:
    """Whether the RSR's turn is under way (7.4: the site stops only for its run)."""
    rnd = game.round
    return isinstance(rnd, OperatingRound) and rnd.current is not None and \
        game.state.corporations[rnd.current.corporation].spec.kind == "national"


def national_done(game: Game, move: Move) -> bool:
    """Whether `move` ends the RSR's turn (7.4: it buys its trains by itself; the site
    records only its run)."""
    return national_operates(game) and isinstance(move.action, Done | Pass)


def in_site_symbols(game: Game, action: dict[str, Any]) -> dict[str, Any]:
    """A record action with our company symbols as the site's (`engine.records` reads
    either; our own actions under `moderator_actions` keep ours)."""
    out = dict(action)
    for key in ("entity", "corporation", "minor", "tokener"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = site_sym(game, value)
    shares = out.get("shares")
    if isinstance(shares, list):
        out["shares"] = [f"{site_sym(game, corp)}_{index}" for corp, _, index in
                         (str(s).rpartition("_") for s in shares)]
    return out


class Forms1861(SiteForms):
    """1861 on the site's 1867 code (engine/records/forms.py)."""

    implied_options = frozenset({"unlimited_trains"})  # 14.2, always on at the site
    stops_before_loans = True
    offers_redemption_first = True
    passes_steps_by_itself = True
    pass_ends_turn_before = True
    passes_finished_turns = True
    director_chooses_nationalisation = True
    steps_of_1867 = True

    def sold_at_once(self, game: Game) -> str | None:
        return sold_at_once(game)

    def site_action(self, game: Game, action: dict[str, Any]) -> dict[str, Any]:
        return in_site_symbols(game, action)

    def merger_owners(self, game: Game, move: Move) -> tuple[str, list[str]] | None:
        return merger_owners(game, move)

    def national_done(self, game: Game, move: Move) -> bool:
        return national_done(game, move)

    def before(self, renderer: Any, index: int, move: Move) -> Form:
        return before(renderer, index, move)

    def offers_par(self, game: Game, seat: str) -> bool:
        return site_offers_par(game, seat)


FORMS = Forms1861()
