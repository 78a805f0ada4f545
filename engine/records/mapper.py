"""The site's ids turned into our actions: `RecordMapper` reads one record action at a
time on the position reached so far (where a share lies, who presides a company, which
tile copy, city or train an id names) and says which moves of ours it stands for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Convert,
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    Keep,
    LayTile,
    LeaseTrain,
    Merge,
    Nationalise,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    Route,
    RunRoutes,
    SellShares,
    ShareSource,
    UsePrivate,
)
from engine.game import Game
from engine.records.conventions import AUTO, site_forms
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, TREASURY


class RecordMapper:
    """Turns one record action into our (seat, action) pairs, keeping track of what the
    site's ids name in `game` (which must be the game the actions are applied to)."""

    def __init__(self, game: Game, names: dict[str, str]) -> None:
        self.game = game
        self.forms = site_forms(game.state.title.name)
        self.names = names  # record player id -> seat name
        self.train_ids: dict[str, str] = {}  # site train id -> our train id
        self.pool_shares: set[str] = set()  # site share ids now in the Open Market
        self.tile_hexes: dict[str, str] = {}  # site tile id ("57-0") -> hex it lies on
        self.share_owners: dict[str, str] = {}  # site share id -> seat, once a player's
        # 1861: a conversion or merger the site builds over several actions: the kind,
        # the minor asked, the partners named so far.
        self.forming: tuple[str, str, tuple[str, ...]] | None = None
        # 1861 12.3: a merger whose stations the site has the Director reduce by
        # `remove_token` after naming the public: the seat, the minors, the public, and
        # the (hex, city) of each minor's station still standing.
        self.reducing: tuple[str, tuple[str, ...], str, dict[str, tuple[str, int]]] | None \
            = None
        # 1825: a receiver's lease the site takes at the start of the company's turn
        # (`special_buy`), ours at its run (6.4.3): the company, until it runs.
        self.leasing: str | None = None
        # The whole record's actions where the reader has them (`import_record`): 1825
        # R1's Taff Vale's choice of its city, which the site asks for later than ours.
        self.ahead: list[dict[str, Any]] | None = None

    def fork(self, game: Game) -> RecordMapper:
        """A copy of this bookkeeping that follows `game` (this game or a clone of it)."""
        other = RecordMapper(game, self.names)
        other.train_ids = dict(self.train_ids)
        other.pool_shares = set(self.pool_shares)
        other.tile_hexes = dict(self.tile_hexes)
        other.share_owners = dict(self.share_owners)
        other.forming = self.forming
        other.leasing = self.leasing
        if self.reducing is not None:
            seat, minors, into, standing = self.reducing
            other.reducing = (seat, minors, into, dict(standing))
        return other

    def normalised(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The record action with the site's company symbols as ours (1861's minors:
        the site's "MNN" is the rulebook's M-NN), in its entity, target and share ids."""
        state = self.game.state
        changed: dict[str, Any] = {}
        for key in ("entity", "corporation", "minor"):
            value = raw.get(key)
            if isinstance(value, str) and value not in state.corporations and \
                    value not in state.privates and not value.isdigit():
                ours = self._our_sym(value)
                if ours != value:
                    changed[key] = ours
        shares = raw.get("shares")
        if isinstance(shares, list) and shares:
            renamed = []
            for share in shares:
                corp, _, index = str(share).rpartition("_")
                renamed.append(f"{self._our_sym(corp)}_{index}" if corp else share)
            if renamed != shares:
                changed["shares"] = renamed
        return {**raw, **changed} if changed else raw

    def _our_sym(self, sym: str) -> str:
        state = self.game.state
        if sym in state.corporations:
            return sym
        try:
            return state.title.corporation(sym).sym
        except (KeyError, LookupError):
            return sym

    def seat_of(self, raw: dict[str, Any]) -> str:
        if raw.get("entity_type") == "player":
            return self.names[str(raw["entity"])]
        entity = str(raw["entity"])
        state = self.game.state
        if entity in state.corporations:
            corp = state.corporations[entity]
            # (1825: a company in receivership decides through its receiver, 6.4.)
            president = corp.president or self.game.rules.director_of(state, corp)
            if not president:
                raise ValueError(f"{entity} has no president")
            return president
        if entity in state.privates:
            owner = state.privates[entity].owner or ""
            if owner in state.corporations:
                return state.corporations[owner].president or ""
            return owner
        raise ValueError(f"unknown entity {entity}")

    def map(self, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        kind = raw["type"]
        if kind == "message" or kind.startswith("program_") or kind == "end_game":
            return []
        if kind == "remove_token":  # the public removing tokens has no Director yet
            return self._remove_token(raw)
        seat = self.seat_of(raw)
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            raise ValueError(f"no mapping for {kind}")
        result: list[tuple[str, Action]] = handler(seat, raw)
        return result

    # --- stock round ---------------------------------------------------------------------
    def _pass(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        if self._protection_asked():
            return [(seat, DeclineProtection())]
        pending = self.game.rules.pending_decision(self.game.state)
        if pending is not None and pending.entity == raw.get("entity"):
            return [(seat, Keep(pending.entity))]  # 1861 11: the Director declines
        if self._finished_pass(raw) or self._track_and_token_pass(raw):
            return []
        if self.forming is not None and self.forming[0] == "merge":
            return []  # the site's "done adding minors": the merger order follows
        if raw.get(AUTO) and self.forms.passes_steps_by_itself and \
                isinstance(self.game.round, OperatingRound):
            # 1861: the site passes steps ours does not have (a token step of a company
            # without tokens, the private purchase before its loans) by itself; ours
            # moves on by the next action (or ends the turn when another entity acts).
            return []
        return [(seat, Pass())]

    def _track_and_token_pass(self, raw: dict[str, Any]) -> bool:
        """1825: the site's track and base step is one, ended by a pass; ours ends with
        the base built, so the pass after it finds our company at its run, which the
        site never passes."""
        turn = self.game.turn()
        return self.forms.one_build_step and \
            raw.get("entity_type") == "corporation" and turn is not None and \
            turn.entity == raw.get("entity") and turn.step == "route"

    def _finished_pass(self, raw: dict[str, Any]) -> bool:
        """1861: the site's pass ending a company turn ours ended by itself (nothing
        left to do) stands for nothing, in the operating round or just after it."""
        from engine.rounds.merger import MergerRound

        if not self.forms.passes_finished_turns or raw.get("entity_type") != "corporation":
            return False
        entity = str(raw.get("entity"))
        rnd = self.game.round
        turn = self.game.turn()
        if isinstance(rnd, OperatingRound):
            return entity in rnd.done
        if isinstance(rnd, MergerRound):
            return turn is not None and turn.entity != entity and entity not in \
                self.game.rules.merger_candidates(self.game.state)[:1]
        return False

    def _protection_asked(self) -> bool:
        """1850 5.9: the round waits for a president to protect a sale or let it stand."""
        turn = self.game.turn()
        return turn is not None and turn.step.startswith("protect ")

    def _bid(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        target = raw.get("company") or raw.get("minor") or raw.get("corporation")
        price = int(raw["price"])
        rnd = self.game.round
        if isinstance(rnd, StockRound) and rnd.s.auction is None:
            cheapest = rnd.cheapest()
            if cheapest is not None and cheapest.sym == target:
                return [(seat, BuyPrivate(str(target)))]
            return [(seat, Bid(price, str(target)))]
        return [(seat, Bid(price))]

    def _par(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        price = int(str(raw["share_price"]).split(",")[0])
        self.share_owners[f"{raw['corporation']}_0"] = seat
        return [(seat, Par(str(raw["corporation"]), price))]

    def _shares(self, raw: dict[str, Any]) -> tuple[str, list[int]]:
        ids = [str(s) for s in raw["shares"]]
        corp = ids[0].rsplit("_", 1)[0]
        return corp, [int(s.rsplit("_", 1)[1]) for s in ids]

    def _buy_shares(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        corp_sym, indexes = self._shares(raw)
        ids = [str(s) for s in raw["shares"]]
        if raw.get("entity_type") == "corporation":
            return self._redeem(seat, corp_sym, ids[0], indexes[0])
        if self._protection_asked():
            self.pool_shares.difference_update(ids)
            self.share_owners.update(dict.fromkeys(ids, seat))
            return [(seat, Protect(corp_sym))]
        self.share_owners.update(dict.fromkeys(ids, seat))
        source: ShareSource = "pool" if ids[0] in self.pool_shares \
            else self._unsold_source(corp_sym)
        self.pool_shares.difference_update(ids)
        return [(seat, BuyShares(corp_sym, len(indexes), source))]

    def _unsold_source(self, corp_sym: str) -> ShareSource:
        """Where a company's never-sold shares lie: the IPO, or (1851, once the company
        floats) its treasury."""
        corp = self.game.state.corporations[corp_sym]
        if not corp.certificates_of(IPO) and corp.certificates_of(TREASURY):
            return "treasury"
        return "ipo"

    def _redeem(self, seat: str, corp_sym: str, share_id: str, index: int
                ) -> list[tuple[str, Action]]:
        """1850 5.10: a company buying its own share redeems it; the site asks nobody's
        consent, so the holder's acceptance follows at once."""
        if share_id in self.pool_shares:
            self.pool_shares.discard(share_id)
            return [(seat, RedeemShares(company=corp_sym))]
        holder = self.share_owners.pop(share_id, None)
        if holder is None:
            holder = self.game.state.corporations[corp_sym].certificates[index].owner
        action: list[tuple[str, Action]] = [(seat, RedeemShares(company=corp_sym,
                                                                holder=holder))]
        if holder != seat:
            action.append((holder, Accept()))
        return action

    def _sell_shares(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        corp_sym, indexes = self._shares(raw)
        corp = self.game.state.corporations[corp_sym]
        if raw.get("entity_type") == "corporation" and \
                isinstance(self.game.round, StockRound):
            # 1850 5.11: a company "selling" its redeemed shares in the stock round
            # reissues them; they stay its own, for sale at the new par.
            return [(seat, ReissueShares(company=corp_sym))]
        for share in raw["shares"]:
            self.share_owners.pop(str(share), None)
        self.pool_shares.update(str(s) for s in raw["shares"])
        percent = raw.get("percent")
        if percent is None:
            percent = sum(corp.certificates[i].percent for i in indexes)
        return [(seat, SellShares(corp_sym, None, int(percent)))]

    # --- 1861 merger round ----------------------------------------------------------------
    def _convert(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """The site converts in two actions: `convert`, then `merge` naming the public."""
        self.forming = ("convert", str(raw["entity"]), ())
        return []

    def _merge(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """The site merges by naming each partner minor (`merge`), passing, then naming
        the public (`merge`); ours is one `merge` order."""
        target = str(raw["corporation"])
        entity = str(raw["entity"])
        kind = self.game.state.corporations[target].spec.kind
        forming = self.forming
        if forming is not None and forming[0] == "convert":
            self.forming = None
            return [(seat, Convert(forming[1], target))]
        if kind == "minor":
            partners = forming[2] if forming is not None else ()
            self.forming = ("merge", entity, (*partners, target))
            return []
        minors = (entity, *(forming[2] if forming is not None else ()))
        self.forming = None
        standing = self._stations_of(minors)
        if _over_token_limit(standing):
            # 12.3: the site merges first and then has the Director remove stations
            # (`remove_token`) until two in different hexes are left: ours names the
            # minors whose stations are kept in the merger order itself.
            self.reducing = (seat, minors, target, standing)
            return []
        return self._merge_order(seat, minors, target)

    def _merge_order(self, seat: str, minors: tuple[str, ...], into: str,
                     stations: tuple[str, ...] = ()) -> list[tuple[str, Action]]:
        # 12.1: the other minors' owners agree (the site does not ask them).
        state = self.game.state
        owners = {state.corporations[m].president for m in minors if m in state.corporations}
        agree: list[tuple[str, Action]] = [(s, Accept()) for s in state.seats_from(seat)
                                           if s in owners and s != seat]
        return [(seat, Merge(minors, into, stations)), *agree]

    def _stations_of(self, minors: tuple[str, ...]) -> dict[str, tuple[str, int]]:
        """Each merging minor's station (hex, city); a minor has one (7.2). Of minors
        sharing one city the site keeps one by itself: the last in the merger's order."""
        found: dict[str, tuple[str, int]] = {}
        for hex_id, cities in self.game.state.board.tokens.items():
            for city, corps in cities.items():
                for sym in corps:
                    if sym in minors:
                        found[sym] = (hex_id, city)
        order = [m for m in self.game.rules.merger_candidates(self.game.state) if m in found]
        by_city = {found[m]: m for m in order}
        return {m: found[m] for m in order if by_city[found[m]] == m}

    def _remove_token(self, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """12.3: the Director removes one of the merged minors' stations (the site's city
        and slot after the merger); once two in different hexes are left, the merger
        order names the minors whose stations stand."""
        if self.reducing is None:
            raise ValueError("a token removed outside a merger")
        seat, minors, into, standing = self.reducing
        tile_id, city = str(raw["city"]).rsplit("-", 1)
        place = (self.tile_hexes.get(tile_id, tile_id.split("-")[0]), int(city))
        removed = next((m for m, at in standing.items() if at == place), None)
        if removed is None:
            raise ValueError(f"no merged station at {place[0]} city {place[1]}")
        del standing[removed]
        if _over_token_limit(standing):
            return []
        self.reducing = None
        kept = tuple(standing)
        if set(kept) == set(self._unnamed_stations(minors)):
            kept = ()  # the stations ours takes when the order names none (12.3)
        return self._merge_order(seat, minors, into, kept)

    def _unnamed_stations(self, minors: tuple[str, ...]) -> list[str]:
        """12.3 as ours reads a merger order naming no stations, where at most two hexes
        hold the minors' stations: one per hex, the earliest operating minor's."""
        state = self.game.state
        hexes = {m: {h for h, cities in state.board.tokens.items()
                     for corps in cities.values() if m in corps} for m in minors}
        if len(set().union(*hexes.values())) > 2:
            return []
        out: list[str] = []
        seen: set[str] = set()
        for m in [m for m in self.game.rules.merger_candidates(state) if m in minors]:
            if hexes[m] and not seen & hexes[m]:
                out.append(m)
                seen |= hexes[m]
        return out

    # --- operating round -----------------------------------------------------------------
    def _choose(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """1850's site choices: the edge token and the Mesabi rights."""
        choice = str(raw.get("choice", ""))
        corp = str(raw["entity"])
        if choice == "Place Edge Token":
            edge = self.game.state.corporations[corp].spec.edge_token
            return [(seat, PlaceEdgeToken(edge.hex if edge else "", company=corp))]
        if choice == "Buy Mesabi Token":
            return [(seat, PayMesabi(company=corp))]
        if self.forms.director_chooses_nationalisation:  # 1861 11
            if choice == "nationalize":
                return [(seat, Nationalise(corp))]
            return [(seat, Keep(corp))]
        raise ValueError(f"no mapping for the choice {choice!r}")

    def _bankrupt(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        # The president cannot buy the train the company must have: ending the turn
        # makes our engine sell what he may and declare him bankrupt.
        return [(seat, Done())]

    def _lay_tile(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        tile = str(raw["tile"]).rsplit("-", 1)[0]
        self.tile_hexes[str(raw["tile"])] = str(raw["hex"])
        lay = LayTile(tile, str(raw["hex"]), int(raw["rotation"]))
        if raw.get("entity_type") == "company":
            return [(seat, UsePrivate(str(raw["entity"]), lay))]
        return [(seat, lay)]

    def _place_token(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        # "57-0-1": city 1 of tile copy 57-0, wherever it lies; a preprinted hex's
        # content is named by the hex itself ("B13-0-0").
        tile_id, city = str(raw["city"]).rsplit("-", 1)
        hex_id = self.tile_hexes.get(tile_id, tile_id.split("-")[0])
        token = PlaceToken(hex_id, int(city))
        if raw.get("entity_type") == "company":
            return [(seat, UsePrivate(str(raw["entity"]), token))]
        corp = self.game.state.corporations.get(str(raw.get("entity")))
        if corp is not None and corp.spec.kind == "minor" and corp.spec.home == hex_id \
                and corp.sym in self.game.state.board.tokens.get(hex_id, {}).get(int(city), []):
            # 1825 R1: the site's minor places its home base as its first operating act;
            # ours placed it when the minor formed.
            return []
        return [(seat, token)]

    def _special_buy(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        """1825: the receiver's lease of the bank's train (6.4.3), taken up at its run."""
        if not self.forms.receivers:
            raise ValueError("no mapping for special_buy")
        self.leasing = str(raw.get("entity"))
        return []

    def _run_routes(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        lease: list[tuple[str, Action]] = []
        if self.leasing is not None and self.leasing == raw.get("entity"):
            self.leasing = None
            lease = [(seat, LeaseTrain())]
        routes = []
        for route in raw.get("routes") or []:
            train = self._our_train(str(route["train"]))
            routes.append(Route(train.split("-")[0], walk_hexes(route["connections"])))
        return [*lease, (seat, RunRoutes(tuple(routes)))]

    def _dividend(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        return [(seat, Dividend(raw["kind"]))]

    def _buy_train(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        site_id = str(raw["train"])
        state = self.game.state
        price = int(raw["price"])
        if site_id in self.train_ids:
            ours = self.train_ids[site_id]
            if any(t.id == ours for t in state.trains_pool):
                return [(seat, BuyTrain(ours.split("-")[0], POOL, price))]
            for corp in state.corporations.values():
                if any(t.id == ours for t in corp.trains):
                    return [(seat, BuyTrain(ours.split("-")[0], corp.sym, price))]
            raise ValueError(f"train {site_id} is nowhere")
        offered = state.trains_offered[0]
        variant = raw.get("variant")
        if variant is not None and variant != offered.name:
            # 1861 phase 8: the 5+5E and 2+2 trains are offered beside the 8-trains.
            offered = next((t for t in state.trains_offered if t.name == variant), offered)
        self.train_ids[site_id] = offered.id
        return [(seat, BuyTrain(offered.name, "bank", price))]

    def _our_train(self, site_id: str) -> str:
        return self.train_ids.get(site_id, site_id.replace("'", ""))

    def _discard_train(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        return [(seat, DiscardTrain(self._our_train(str(raw["train"])).split("-")[0]))]

    def _buy_company(self, seat: str, raw: dict[str, Any]) -> list[tuple[str, Action]]:
        company = str(raw["company"])
        owner = self.game.state.privates[company].owner
        return [(seat, BuyPrivate(company, owner, int(raw["price"])))]


def _over_token_limit(stations: Mapping[str, tuple[str, int]]) -> bool:
    """12.3: a new company takes at most two stations, in different hexes."""
    hexes = [at[0] for at in stations.values()]
    return len(hexes) > 2 or len(set(hexes)) < len(hexes)


def walk_hexes(connections: list[list[str]]) -> tuple[str, ...]:
    """The hexes a route passes, in order, from the site's node-to-node chains."""
    chains = [list(c) for c in connections if c]
    if not chains:
        return ()
    if len(chains) == 1:
        return tuple(chains[0])
    first, second = chains[0], chains[1]
    if first[0] in (second[0], second[-1]) and first[-1] not in (second[0], second[-1]):
        first = first[::-1]
    out = list(first)
    for chain in chains[1:]:
        if chain[0] == out[-1]:
            out += chain[1:]
        elif chain[-1] == out[-1]:
            out += chain[::-1][1:]
        else:
            raise ValueError(f"route chains do not join: {connections}")
    return tuple(out)
