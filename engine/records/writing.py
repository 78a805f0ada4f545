"""Exporting a game as an 18xx.games game record: the inverse of `engine.records`.

At the end of a game played by mail every player gets the record as an attachment, so
that the game can be reviewed on 18xx.games; `moderator import` reads it back to the
same game. The record names things by the site's ids: player ids, shares ("TC_1"),
tile copies ("57-0", numbered per tile as the site hands them out), cities ("57-0-0";
"F11-0-0" for printed content), trains ("3-0"; "3'-0" where the site names a type apart).

The export works in two passes.

1. Our moves (the ones that stand after undo) are replayed and each is rendered in the
   site's form, read off the position before and after it: which certificate, train or
   tile copy moved, which slot a token took. Some moves have no form of the site's: a
   declined offer, a pass the site makes by itself because nothing is left to do.
2. The rendered actions are read back through `engine.records` one by one, each proved
   to make exactly our next moves. Where the site's form reads back as a different
   action of ours (`done` is the site's `pass`; `sell 2 TC` is the site's sale of 20%),
   the action also carries ours under `moderator_actions`, which the site ignores; where
   the site has no form, ours travels in a chat message. A move the site makes without
   recording it is left out when the importer makes it again by itself.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import board, routes, track, trains
from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    RunRoutes,
    SellPrivate,
    SellShares,
    UsePrivate,
    to_json,
)
from engine.game import Game, Move, Setup
from engine.records import forms_1825, forms_1861
from engine.records.forms import NO_FORM
from engine.records.reading import (
    OUR_ACTIONS,
    OUR_EXACT,
    OUR_SETUP,
    RecordError,
    RecordMapper,
    pass_idle_players,
    replay_action,
    setup_of,
    site_difference,
    site_forms,
    site_idle,
    site_options,
)
from engine.rounds.operating import CompanyTurn, OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, TREASURY, Corporation, GameState, PlacedTile, Train
from engine.title import Title

# Our end reasons in the site's words.
END_REASONS = {"bank": "bank", "market": "stock_market", "bankruptcy": "bankrupt"}


def export_record(game: Game, *, game_id: int | str = 0,
                  players: Mapping[str, str] | None = None,
                  description: str = "") -> dict[str, Any]:
    """The game as an 18xx.games record (a JSON-ready dict); `players` maps our seat
    names to the names the record shows (default: the seats)."""
    setup = game.setup
    names = {seat: (players or {}).get(seat, seat) for seat in setup.seats}
    ids = {seat: number for number, seat in enumerate(setup.seats, start=1)}
    record = _header(game, ids, names, game_id, description)
    moves = [game.log[i] for i in game.effective]
    if setup.title in OWN_FORM_ONLY:
        record["actions"] = _own_form(moves, ids)
        return record
    renderer = _Renderer(setup, ids)
    pieces = renderer.render(moves)
    actions = _read_back(record, [_renamed(m, names) for m in moves], pieces, renderer.said)
    forms = site_forms(setup.title)
    actions = [forms.site_action(game, a) for a in actions]
    record["actions"] = [{"id": number, **action}
                         for number, action in enumerate(actions, start=1)]
    return record


# Titles whose moves are not yet written in the site's forms: their record carries our
# moves only, each as a chat message with our action attached (`moderator import` reads
# it back exactly; the site shows the messages). 1861: issue #17's differential step.
OWN_FORM_ONLY: frozenset[str] = frozenset()


def _own_form(moves: list[Move], ids: dict[str, int]) -> list[dict[str, Any]]:
    return [{"id": number, "type": "message", "entity": ids[move.seat],
             "entity_type": "player", "message": f"{move.seat}: {move.action.kind}",
             OUR_ACTIONS: [to_json(move.action)], OUR_EXACT: True}
            for number, move in enumerate(moves, start=1)]


# --- the record's head ----------------------------------------------------------------


def _header(game: Game, ids: dict[str, int], names: dict[str, str], game_id: int | str,
            description: str) -> dict[str, Any]:
    setup, state = game.setup, game.state
    # The site gives the first player listed the Priority Deal: list the players
    # clockwise from the one who held it at the start.
    first = setup.priority or Game(setup).state.priority
    order = state.seats_from(first) if first in setup.seats else list(setup.seats)
    turn = game.turn()
    record: dict[str, Any] = {
        "id": game_id,
        "title": setup.title,
        "description": description,
        "players": [{"id": ids[seat], "name": names[seat]} for seat in order],
        "settings": {"seed": setup.seed,
                     "optional_rules": site_options(setup.title, setup.options)},
        "status": "finished" if state.game_over else "active",
        "turn": state.stock_round_number,
        "round": "Stock Round" if isinstance(game.round, StockRound) else "Operating Round",
        "acting": [ids[turn.seat]] if turn is not None else [],
        "result": {str(ids[seat]): value for seat, value in game.scores().items()}
        if state.game_over else {},
    }
    if state.game_over and state.end_reason is not None:
        record["game_end_reason"] = END_REASONS.get(state.end_reason, state.end_reason)
    seats = tuple(names[seat] for seat in setup.seats)
    priority = None if setup.priority is None else names[setup.priority]
    listed = tuple(names[seat] for seat in order)
    if (seats, priority) != (listed, listed[0]):
        # Our seating or a drawn Priority Deal is not what the site's convention gives.
        record[OUR_SETUP] = {"seats": [ids[seat] for seat in setup.seats],
                             "priority": None if setup.priority is None
                             else ids[setup.priority]}
    return record


def _renamed(move: Move, names: dict[str, str]) -> Move:
    """A move with seats called by the record's player names (as an import calls them)."""
    action = move.action
    if isinstance(action, SellPrivate) and action.buyer in names:
        action = dataclasses.replace(action, buyer=names[action.buyer])
    if isinstance(action, BuyPrivate) and action.seller in names:
        action = dataclasses.replace(action, seller=names[str(action.seller)])
    return Move(names[move.seat], action)


# --- pass 1: each move in the site's form ----------------------------------------------


@dataclass(frozen=True)
class _Piece:
    """One action of the record as the site would have it.

    `site`: the site's form (without id), None where the site has none; `move`: the index
    of the move of ours it carries, None for a site pass that stands for nothing of ours
    (a step our engine passes by itself); `unrecorded`: a move the site makes by itself
    without recording it (an idle player's last pass, the end of a finished turn)."""

    site: dict[str, Any] | None
    move: int | None
    unrecorded: bool = False
    # A site action standing for nothing of ours that the importer still reads (the
    # first of several site actions one move of ours is: 1861's `convert`).
    plain: bool = False


@dataclass(frozen=True)
class _Holdings:
    """What moves hands in one action: certificates, trains, tiles and tokens."""

    certificates: dict[tuple[str, int], str]
    trains: dict[str, tuple[str, ...]]  # corporation or POOL -> train ids
    tiles: dict[str, PlacedTile]
    tokens: dict[tuple[str, str], int]  # (hex, corporation) -> city

    @staticmethod
    def of(state: GameState) -> _Holdings:
        trains = {c.sym: tuple(t.id for t in c.trains) for c in state.corporations.values()}
        trains[POOL] = tuple(t.id for t in state.trains_pool)
        return _Holdings(
            {(c.corporation, c.index): c.owner
             for corp in state.corporations.values() for c in corp.certificates},
            trains, dict(state.board.tiles),
            {(hex_id, corp): city for hex_id, cities in state.board.tokens.items()
             for city, corps in cities.items() for corp in corps})


def site_train_ids(title: Title) -> dict[str, str]:
    """Our train ids -> the site's. The site names a type apart where a phase starts with
    a later copy of ours (title_specific.site_differences.train_names): 18TN's 4th and
    5th 3-trains are its "3'-0" and "3'-1", the 2nd 6-train its "6'-0"."""
    renamed: Mapping[str, str] = site_difference(title, "train_names") or {}
    out: dict[str, str] = {}
    for spec in title.trains:
        first_apart, site_name = spec.count or 0, spec.name
        for site, ours in renamed.items():
            starts = [p.starts_on_nth for p in title.phases
                      if p.starts_on == ours == spec.name and p.starts_on_nth > 1]
            if starts:
                first_apart, site_name = starts[0] - 1, site
        for index in range(spec.count or 0):
            apart = index >= first_apart
            out[f"{spec.name}-{index}"] = (f"{site_name}-{index - first_apart}" if apart
                                           else f"{spec.name}-{index}")
    return out


class _TileCopies:
    """Which copy of a tile the site hands out: the lowest-numbered copy never laid, then
    the copies an upgrade gave back, in the order they came back."""

    def __init__(self, title: Title) -> None:
        self.free = {name: list(range(count or 0)) for name, count in
                     title.tile_manifest.items()}
        self.made = {name: count or 0 for name, count in title.tile_manifest.items()}
        self.on_hex: dict[str, str] = {}  # hex -> the site id of the tile laid there
        # The site numbers a printed hex's content among the hexes printed alike (1861's
        # L12 is "L12-5"; title_specific.site_differences.preprinted_tile_index).
        self.printed: Mapping[str, int] = site_difference(title, "preprinted_tile_index") or {}

    def lay(self, hex_id: str, name: str) -> str:
        copies = self.free.setdefault(name, [])
        if copies:
            index = copies.pop(0)
        else:  # an unlimited tile: a new copy
            index = self.made.get(name, 0)
            self.made[name] = index + 1
        old = self.on_hex.get(hex_id)
        if old is not None:
            old_name, old_index = old.rsplit("-", 1)
            self.free.setdefault(old_name, []).append(int(old_index))
        self.on_hex[hex_id] = f"{name}-{index}"
        return self.on_hex[hex_id]

    def city_id(self, hex_id: str, city: int) -> str:
        # Printed content is the site's tile "<hex>-0".
        printed = f"{hex_id}-{self.printed.get(hex_id, 0)}"
        return f"{self.on_hex.get(hex_id, printed)}-{city}"


class _TokenSlots:
    """The slot each station token takes on the site: a home station its reserved slot,
    any other the first slot neither taken nor reserved (home reservations take the
    first slots of a city, in the order the title lists them)."""

    def __init__(self, title: Title) -> None:
        self.reserved: dict[tuple[str, int], list[str]] = {}
        for spec in title.hexes.values():
            for reservation in spec.reserved:
                if reservation.kind == "home":
                    key = (spec.id, reservation.city or 0)
                    self.reserved.setdefault(key, []).append(reservation.by)
        self.slots: dict[tuple[str, str], int] = {}  # (hex, corporation) -> slot

    def update(self, tokens: dict[tuple[str, str], int],
               closed: frozenset[str] = frozenset()) -> None:
        for key in [k for k in self.slots if k not in tokens]:
            del self.slots[key]
        for (hex_id, corp), city in tokens.items():
            if (hex_id, corp) not in self.slots:
                self.slots[(hex_id, corp)] = self._slot_for(tokens, hex_id, city, corp,
                                                            closed)

    def _slot_for(self, tokens: dict[tuple[str, str], int], hex_id: str, city: int,
                  corp: str, closed: frozenset[str]) -> int:
        reserved = self.reserved.get((hex_id, city), [])
        if corp in reserved:
            return reserved.index(corp)
        taken = {slot for (h, other), slot in self.slots.items()
                 if h == hex_id and tokens.get((h, other)) == city}
        slot = 0
        # A closed company's home slot is free: the site drops its reservation
        # (CLOSED_CORP_RESERVATIONS_REMOVED; 1825 6.3, a bankrupt company's base).
        while slot in taken or (slot < len(reserved) and reserved[slot] != corp
                                and reserved[slot] not in closed):
            slot += 1
        return slot


class _ShareLedger:
    """The site's own certificates: which holder has which, in the order the site keeps
    them, so that a record names the shares the site would move. The site buys the
    lowest-numbered share of the IPO (or treasury), the share longest in the pool, sells
    a holder's shares in the order they came (the president's last), and on a change of
    president swaps the new president's first shares for the president's certificate.
    Our engine's certificates say how much moves between whom; this says which ids."""

    def __init__(self, state: GameState) -> None:
        self.percent: dict[tuple[str, int], int] = {}
        self.held: dict[str, dict[str, list[int]]] = {}  # corp -> holder -> indexes
        for corp in state.corporations.values():
            for cert in corp.certificates:
                self.percent[(corp.sym, cert.index)] = cert.percent
                self.held.setdefault(corp.sym, {}).setdefault(cert.owner, []).append(cert.index)

    def update(self, before: _Holdings, after: _Holdings,
               first: tuple[str, str, str] | None, newest: bool = False,
               amount: int | None = None) -> list[str]:
        """Follow one move; `first` (corporation, from, to) is the move's own transfer,
        made first (`newest`: of the shares last come to its source, as a protected sale
        is bought back; AMOUNT: its percent, where the move's end hides it, as a sale
        that closed the company); returns the site's ids of the shares it moved."""
        moved: list[str] = []
        if first is not None:
            sym, source, target = first
            was, now = self._ours(sym, before), self._ours(sym, after)
            if amount is None:
                amount = min(was.get(source, 0) - now.get(source, 0),
                             now.get(target, 0) - was.get(target, 0))
            if amount > 0:
                moved = [f"{sym}_{i}"
                         for i in self._move(sym, source, target, amount, newest)]
        for sym in sorted(self.held):
            self._swap_president(sym, after)
            self._settle(sym, after)
        return moved

    def sold(self, transfer: tuple[str, str, str], before: _Holdings, after: _Holdings
             ) -> int:
        """The percent the seller of `transfer` parted with."""
        sym, source, _ = transfer
        return self._ours(sym, before).get(source, 0) - self._ours(sym, after).get(source, 0)

    def _ours(self, sym: str, holdings: _Holdings) -> dict[str, int]:
        """Percent per holder of a corporation in our engine."""
        out: dict[str, int] = {}
        for (corp, index), owner in holdings.certificates.items():
            if corp == sym:
                out[owner] = out.get(owner, 0) + self.percent[(corp, index)]
        return out

    def _settle(self, sym: str, after: _Holdings) -> None:
        """Whatever else moved (a company floating, the rest of a president's certificate
        sold in part, a bankrupt's shares) moves here too, as it comes."""
        ours = self._ours(sym, after)
        for _ in range(len(self.percent)):
            theirs = {holder: sum(self.percent[(sym, i)] for i in indexes)
                      for holder, indexes in self.held[sym].items()}
            delta = {h: ours.get(h, 0) - theirs.get(h, 0) for h in {*ours, *theirs}}
            surplus = sorted(h for h, v in delta.items() if v < 0)
            short = sorted(h for h, v in delta.items() if v > 0)
            if not surplus or not short:
                return
            self._move(sym, surplus[0], short[0], min(-delta[surplus[0]], delta[short[0]]))

    def peek(self, sym: str, source: str, target: str, amount: int) -> list[str]:
        """The site's ids of the shares a transfer would move, moving nothing."""
        kept = {holder: list(indexes) for holder, indexes in self.held[sym].items()}
        try:
            return [f"{sym}_{i}" for i in self._move(sym, source, target, amount)]
        finally:
            self.held[sym] = kept

    def _move(self, sym: str, source: str, target: str, amount: int,
              newest: bool = False) -> list[int]:
        held = self.held[sym]
        order = held.get(source, [])
        if newest:
            order = order[::-1]
        if source in (IPO, TREASURY):
            order = sorted(order)
        # The president's certificate last, then the bigger ones (a stable sort keeps
        # the order the shares came in).
        order = sorted(order, key=lambda i: (i == 0, self.percent[(sym, i)]))
        if source == IPO and target not in (POOL, TREASURY) and 0 in order and \
                amount >= self.percent[(sym, 0)]:
            order = [0, *[i for i in order if i != 0]]  # a par: the president's first
        taken: list[int] = []
        total = 0
        for index in order:
            if total >= amount:
                break
            taken.append(index)
            total += self.percent[(sym, index)]
        if newest:  # named in the order they came, as the site lists a sale bought back
            came = held.get(source, [])
            taken.sort(key=came.index)
        for index in taken:
            held[source].remove(index)
            held.setdefault(target, []).append(index)
        return taken

    def _swap_president(self, sym: str, after: _Holdings) -> None:
        held = self.held[sym]
        ours = after.certificates[(sym, 0)]
        theirs = next(h for h, indexes in held.items() if 0 in indexes)
        if ours == theirs:
            return
        need = self.percent[(sym, 0)]
        given: list[int] = []
        for index in list(held.get(ours, [])):
            if sum(self.percent[(sym, i)] for i in given) >= need:
                break
            given.append(index)
        for index in given:
            held[ours].remove(index)
            held.setdefault(theirs, []).append(index)
        held[theirs].remove(0)
        held.setdefault(ours, []).append(0)


class _Renderer:
    """Replays our moves and renders them as the site's actions.

    In a company's turn the site stops at every step that has something to offer until
    it is passed, while our engine lets an action of a later step pass the steps before
    it. So the renderer follows the site's step (`site_step`, in our step numbering) and
    puts a site pass before an action for every step the site would stop at in between.
    Our own passes are carried by those site passes; one the site has no stop for
    travels in a message; our `done` is a site pass at every stop left in the turn."""

    def __init__(self, setup: Setup, ids: dict[str, int]) -> None:
        self.game = Game(setup)
        self.ids = ids
        title = self.game.state.title
        self.forms = site_forms(title.name)
        self.trains = site_train_ids(title)
        self.tiles = _TileCopies(title)
        self.slots = _TokenSlots(title)
        self.shares = _ShareLedger(self.game.state)
        self.pieces: list[_Piece] = []
        self.said: list[str] = []  # per move: what happened, in words
        self.turn_of: object = None  # the company turn the site step belongs to
        self.site_step = 0
        self.waiting: list[int] = []  # our passes not yet carried by a site pass
        # 1861: whether the site stops at its private purchase before loans, judged
        # when the company turn's dividend is done (the turn it belongs to).
        self.preloan: tuple[object, bool] | None = None
        # (1861: what ours paid in interest and repayments after the dividend, which the
        # site pays after its stop before loans: its cash there is ours plus this.)
        self.preloan_paid = 0
        self.turn_begun = False  # 1861: whether the company turn's first step is passed
        # 1825 R1: where the site asks for a minor's home city (engine/forms_1825.py).
        self.homes = self.forms.home_questions()
        # 1825 6.3: the trains of bankrupt companies, which the site removes from the
        # game (our Open Market holds them for resale: docs/site-differences.md).
        self.removed: frozenset[str] = frozenset()

    def render(self, moves: list[Move]) -> list[_Piece]:
        self.moves = moves
        for index, move in enumerate(moves):
            following = moves[index + 1] if index + 1 < len(moves) else None
            self.turn_ended: list[_Piece] = []
            self._render(index, move, following)
            self.pieces.extend(self.turn_ended)  # after the move's own action
        self._flush()
        return self.pieces

    def _render(self, index: int, move: Move, following: Move | None) -> None:
        game = self.game
        entity = self._entity(move)
        before = _Holdings.of(game.state)
        transfer = self._transfer(move)
        ahead = self._before(index, move, following, entity)
        # Our moves are known to be valid: replay them without Game.apply's safety copy
        # and its search for a better run.
        start = len(game.state.log)
        was = game.round
        was_turn = was.current if isinstance(was, OperatingRound) else None
        paid_before = was_turn is not None and was_turn.dividend_done
        merging = self.forms.merger_owners(game, move)
        at_trains = isinstance(was, OperatingRound) and was_turn is not None and \
            "train" in was.steps and was_turn.step >= was.steps.index("train")
        stays_open = False
        if at_trains and was_turn is not None and isinstance(move.action, BuyTrain | Accept):
            # Whether the site's train step stays open, judged on the position right
            # after the purchase: where it ends the round, the next round's private
            # income must not count as the company's cash.
            probe = game.clone()
            probe.round.process(move.seat, probe.resolve(move.action))
            stays_open = _site_train_step_open(
                probe, probe.state.corporation(was_turn.corporation),
                from_depot=(isinstance(move.action, BuyTrain)
                            and move.action.source in ("bank", POOL, None))
                or _bank_barred(game, was_turn), removed=self.removed)
        if not game.attempt(move.seat, move.action):
            raise ValueError(f"move {index} ({move}) does not replay")
        said = game.state.log[start:]
        kind = move.action.kind.replace("_", " ")
        self.said.append(f"{kind}: {'; '.join(said)}" if said else kind)
        after = _Holdings.of(game.state)
        if self.forms.bankrupt_trains_removed:
            self.removed |= removed_at_close(before, after, frozenset(
                c.sym for c in game.state.corporations.values() if c.closed))
        for hex_id, placed in after.tiles.items():
            if before.tiles.get(hex_id) != placed:
                self.tiles.lay(hex_id, placed.name)
        self.slots.update(after.tokens, frozenset(
            c.sym for c in game.state.corporations.values() if c.closed))
        shares = self.shares.update(before, after, transfer,
                                    newest=isinstance(move.action, Protect),
                                    amount=_closing_sale(game.state, move.action))
        if merging is not None:
            forms_1861.deal_merger_shares(self.shares.held, game, *merging)
        now = game.round
        if at_trains and was_turn is not None and not isinstance(move.action, Pass | Done) \
                and (now is not was or (isinstance(now, OperatingRound)
                                         and now.current is not was_turn)) \
                and isinstance(move.action, BuyTrain | Accept) and stays_open:
            # Our engine ended the company's turn by itself (nothing left it may buy);
            # the site still stops at its train step (e.g. a bank train it may not buy
            # this turn): the site's pass, standing for nothing of ours.
            self.turn_ended.append(_Piece({"entity": was_turn.corporation,
                                           "entity_type": "corporation", "type": "pass"},
                                          None))
        ended = was_turn is not None and (now is not was or (
            isinstance(now, OperatingRound) and now.current is not was_turn))
        if self.forms.stops_before_loans and was_turn is not None and not paid_before \
                and (was_turn.dividend_done or ended):
            # The site's private purchase before loans is judged on the cash after the
            # dividend, before the interest and repayments ours made with it (10.8, 10.9).
            corp = game.state.corporations[was_turn.corporation]
            site_cash = forms_1861.cash_before_loans(corp.sym, said, corp.cash)
            self.preloan_paid = site_cash - corp.cash
            self.preloan = (was_turn, forms_1861.may_buy_private(game, corp, site_cash))
        if self.forms.stops_before_loans and isinstance(move.action, BuyPrivate) and \
                was_turn is not None and not ended and \
                self._preloan_stop(was_turn) is not None:
            # A private bought at the site's stop before loans: the stop stays while the
            # company may buy another.
            corp = game.state.corporations[was_turn.corporation]
            self.preloan = (was_turn, forms_1861.may_buy_private(
                game, corp, corp.cash + self.preloan_paid))
        if self.forms.stops_before_loans and was_turn is not None and ended and \
                not isinstance(move.action, Pass | Done):
            # The site's private purchases still to come (ours ended the turn).
            assert isinstance(was, OperatingRound)
            stops = forms_1861.stops_after_turn(game, was_turn.corporation)
            if self.site_step <= was.steps.index("dividend"):
                stops += bool(self._preloan_stop(was_turn))
            self.turn_ended += [
                _Piece({"entity": was_turn.corporation, "entity_type": "corporation",
                        "type": "pass"}, None) for _ in range(stops)]
        if isinstance(move.action, LayTile | UsePrivate) and was_turn is not None and \
                self.turn_of is was_turn and isinstance(now, OperatingRound) and \
                now.current is was_turn and "track" in now.steps:
            track_step = now.steps.index("track")
            if self.site_step <= track_step and not _site_waits_at(game, "track",
                                                                 self.removed):
                # The lay used the site's last one: it leaves its track step at once
                # (ours may stay there, for a private the company could still buy).
                self.site_step = track_step + 1
        if self.homes is not None and was_turn is not None:
            # 1825 R1: the minor's lay in its home hex; the site asks for the city now.
            self.turn_ended += [_Piece(form, None, plain=True) for form in self.homes.after_lay(
                game, move.action, was_turn.corporation, self.tiles.city_id, self._slot)]
        if ahead is _CARRIED:
            return
        if isinstance(ahead, _StockPass):
            # The site passes a player who can do nothing by itself, unrecorded ("has no
            # valid actions and passes"); the importer makes that pass again.
            self.pieces.append(_Piece({**entity, "type": "pass"}, index,
                                      unrecorded=ahead.idle))
            return
        form = ahead if isinstance(ahead, dict) else self._after(move.action, before, after,
                                                                 shares, transfer)
        self.pieces.append(_Piece(None if form is None or ahead is _NO_FORM
                                  else {**entity, **form}, index))

    # --- who acts -----------------------------------------------------------------------
    def _entity(self, move: Move) -> dict[str, Any]:
        turn = self.game.turn()
        assert turn is not None
        action = move.action
        if isinstance(action, UsePrivate):
            return {"entity": action.private, "entity_type": "company"}
        if isinstance(action, RedeemShares | ReissueShares) and action.company is not None:
            # The site's company buys its own share, or "sells" (reissues) the shares it
            # redeemed, in its president's stock turn.
            return {"entity": action.company, "entity_type": "corporation"}
        if isinstance(self.game.round, StockRound) and isinstance(action, PlaceToken) and \
                turn.entity in self.game.state.corporations:
            # 1861 9.3: a public just started places its home station itself.
            return {"entity": turn.entity, "entity_type": "corporation",
                    "tokener": turn.entity}
        if (isinstance(self.game.round, OperatingRound) and turn.entity != turn.seat
                and not isinstance(action, SellShares | Protect | DeclineProtection)):
            return {"entity": turn.entity, "entity_type": "corporation"}
        return {"entity": self.ids[move.seat], "entity_type": "player"}

    def _transfer(self, move: Move) -> tuple[str, str, str] | None:
        """The shares a move itself transfers: (corporation, from, to)."""
        action, state = move.action, self.game.state
        operating = self.game.turn()
        company = operating.entity if operating is not None else ""
        if isinstance(action, Protect):
            return action.corporation, POOL, move.seat
        if isinstance(action, BuyShares):
            source = action.source or self.game.rules.default_share_source(
                state, state.corporation(action.corporation))
            return action.corporation, source, move.seat
        if isinstance(action, Par):
            return action.corporation, IPO, move.seat
        if isinstance(action, SellShares):
            return action.corporation, move.seat, POOL
        if isinstance(action, IssueShares):
            return company, TREASURY, POOL
        if isinstance(action, ReissueShares):
            return action.company or company, TREASURY, IPO
        if isinstance(action, RedeemShares):
            holder = action.holder or POOL
            if holder not in (POOL, move.seat):
                return None  # asked of another player: it moves when he accepts
            return action.company or company, holder, TREASURY
        rnd = self.game.round
        if isinstance(action, Accept) and isinstance(rnd, StockRound) and \
                rnd.s.redemption is not None:
            return rnd.s.redemption.corporation, rnd.s.redemption.holder, TREASURY
        return None

    # --- what needs the position before the move -----------------------------------------
    def _before(self, index: int, move: Move, following: Move | None,
                entity: dict[str, Any]) -> dict[str, Any] | _StockPass | object | None:
        game = self.game
        action = move.action
        rnd = game.round
        if self.forms.national_done(game, move):
            # The site ends the RSR's turn by itself (the importer too): unrecorded.
            self._follow_turn(rnd)  # type: ignore[arg-type]
            self._flush()
            self.pieces.append(_Piece(None, index, unrecorded=True))
            return _CARRIED
        if isinstance(rnd, OperatingRound):
            if rnd.current is not self.turn_of:
                self.turn_begun = False
            self._follow_turn(rnd)
            if self.homes is not None:
                self._site_homes(self.homes.at_turn(game, self.tiles.city_id, self._slot))
                if self.homes.chosen(game, move) is False:
                    # 1825 R1: the director's choice of a home the site does not ask
                    # for yet (no track there): a message; the site's own choice is
                    # written when it asks (forms_1825.SiteHomes).
                    self._flush()
                    self.pieces.append(_Piece(None, index))
                    return _CARRIED
                receiving = forms_1825.receiver_form(game, move, self.moves[index + 1:],
                                                      self.trains)
                if receiving is not None:
                    # 1825 6.4: the receiver's lease and what the site does by itself.
                    bought = isinstance(action, BuyTrain) and "train" in rnd.steps
                    if (isinstance(receiving, dict) or bought) and "route" in rnd.steps \
                            and self._in_turn(rnd):
                        # The site's lease is its track step's (before a lay) or its
                        # run step's: after lays, the track step's pass comes first.
                        # Its own purchase comes after its run (of nothing, where the
                        # company has no train).
                        assert rnd.current is not None
                        self._catch_up(rnd.steps.index("train" if bought else "route"),
                                       {"entity": rnd.current.corporation,
                                        "entity_type": "corporation"})
                    self._flush()
                    if isinstance(receiving, dict) and receiving["type"] == "run_routes":
                        # Our pass at the run step: the site's run of nothing carries it.
                        self.pieces.append(_Piece({**entity, **receiving}, index))
                        self.site_step = max(self.site_step, rnd.steps.index("route") + 1)
                        return _CARRIED
                    if isinstance(receiving, dict):
                        self._site_homes([{**entity, **receiving}])
                    self.pieces.append(_Piece(None, index, unrecorded=True))
                    return _CARRIED
            if self.forms.offers_redemption_first and rnd.current is not None and \
                    not self.turn_begun and not forms_1861.decides(move):
                # 10.3: the site first offers the company its shares in the pool (after
                # the Director's decision on nationalisation, 11).
                self.turn_begun = True
                if not isinstance(action, RedeemShares) and forms_1861.redeem_stop(game):
                    self.pieces.append(_Piece({"entity": rnd.current.corporation,
                                               "entity_type": "corporation",
                                               "type": "pass"}, None))
            if self._in_turn(rnd):
                step = _SITE_STEP_OF.get(type(action))
                if isinstance(action, Pass | Done):
                    if self._bankrupts(move):
                        # The site's own action, taken at the train step (4.2.5.2): the
                        # site passes the steps before it first (its dividend step moves
                        # the price of a company that did not run, 4.2.4).
                        if "train" in rnd.steps:
                            self._catch_up(rnd.steps.index("train"), entity)
                        self._flush()
                        return {"type": "bankrupt"}
                    self._operating_pass(index, move, entity)
                    return _CARRIED
                if step in rnd.steps:
                    # The site's passes are the company's, also before its president's
                    # sale of shares for a train (4.2.5.2(d)).
                    assert rnd.current is not None
                    self._catch_up(rnd.steps.index(step),
                                   {"entity": rnd.current.corporation,
                                    "entity_type": "corporation"})
                    if step in ("route", "dividend") and not _site_waits_at(game, step,
                                                                          self.removed):
                        # An empty run or a dividend of nothing: the site skips the
                        # step by itself (no route, no revenue); ours travels in a
                        # message.
                        return _NO_FORM
                else:
                    self._flush()
        if not isinstance(rnd, OperatingRound) and (self.waiting or self.turn_of is not None):
            # The operating round ended with our passes no site pass carried (the last
            # company passed its last step, which the site ends by itself): they travel
            # before the stock round's first action, not after it.
            self._flush()
            self.turn_of = None
        form = self.forms.before(self, index, move)
        if isinstance(form, bool):
            return _StockPass(idle=form)
        if isinstance(form, list):
            # Several site actions: the first stand for nothing of ours.
            self.pieces += [_Piece(site, None, plain=True) for site in form[:-1]]
            return form[-1] if form else _NO_FORM
        if form is NO_FORM:
            return _NO_FORM
        if form is not None:
            return form
        if isinstance(rnd, StockRound):
            if rnd.s.redemption is not None and isinstance(action, Accept | Decline):
                # The site's company buys the share without asking (5.10.4): an
                # acceptance is made by the importer, a refusal has no form there.
                return _CARRIED if isinstance(action, Accept) else _NO_FORM
            if isinstance(action, RedeemShares) and action.holder not in (
                    None, POOL, move.seat):
                if following is None or not isinstance(following.action, Accept):
                    return _NO_FORM
                sym = str(action.company)
                return {"type": "buy_shares",
                        "shares": self.shares.peek(sym, action.holder, TREASURY,
                                                   self.shares.percent[(sym, 1)])}
            if isinstance(action, Pass | Done):
                # A bidder who passed in the auction under way is out of it on the site:
                # his pass there again is one the site never asks for.
                # A bidder who cannot raise is asked all the same (the site's auction
                # offers the lowest bidder his bid or pass whatever his cash).
                if rnd.s.auction is not None:
                    return _StockPass(idle=move.seat in rnd.s.auction.passed)
                return _StockPass(idle=site_idle(game, move.seat))
            if isinstance(action, Bid):
                target = action.target or (rnd.s.auction.private if rnd.s.auction else None)
                return {"type": "bid", "company": target, "price": action.amount}
            if isinstance(action, BuyPrivate) and rnd.cheapest() is None:
                return None  # 1825: bought from the bank in a regular turn (buy_company)
            if isinstance(action, BuyPrivate):
                private = game.state.privates[action.private]
                price = game.rules.private_price(game.state, private, rnd.number)
                return {"type": "bid", "company": action.private, "price": price}
            if isinstance(action, Par):
                return self._par(action)
        if isinstance(action, RunRoutes):
            return self._run(action)
        if isinstance(action, BuyTrain) and following is not None and isinstance(
                following.action, Decline) and following.seat != move.seat and \
                _waits_for_seller(game, move):
            # An offer refused by the seller's president: nothing happens on the site.
            # (The buyer's own `decline` after it drops offers made to his company,
            # 1825 5.6.5; a purchase the seller agreed to before, 1825 5.6.5's offer
            # taken, is made at once, and the next `decline` is another's.)
            return _NO_FORM
        return None

    # --- the site's steps in a company's turn ---------------------------------------------
    @staticmethod
    def _in_turn(rnd: OperatingRound) -> bool:
        return rnd.current is not None and rnd.offer is None and not rnd.discards

    def _follow_turn(self, rnd: OperatingRound) -> None:
        if rnd.current is not self.turn_of:
            self._flush()
            self.turn_of = rnd.current
            self.site_step = 0

    def _bankrupts(self, move: Move) -> bool:
        """Whether ending the step leaves a president bankrupt (only a company without a
        train can bring that about, so only then is it tried)."""
        game = self.game
        rnd = game.round
        assert isinstance(rnd, OperatingRound)
        if rnd.company().trains:
            return False
        probe = game.clone()
        return probe.attempt(move.seat, move.action) and any(
            player.bankrupt and not game.state.players[seat].bankrupt
            for seat, player in probe.state.players.items())

    def _catch_up(self, upto: int, entity: dict[str, Any]) -> None:
        """Site passes for the steps the site stops at before step `upto` (ours passed
        them by themselves); our passes waiting for a site pass ride on them."""
        rnd = self.game.round
        assert isinstance(rnd, OperatingRound)
        preloan = self._preloan_stop(rnd.current)
        for i in range(self.site_step, upto):
            stops = _site_stops_at(self.game, rnd.steps[i], preloan, self.removed)
            if stops and rnd.steps[i] == "route" and self.forms.receivers:
                # 1825 6.4: a receiver without a train runs nothing on the site: its run
                # step takes no pass, but a run of no routes.
                self._run_of_nothing(entity)
                stops -= 1
            self._site_passes(stops, entity)
        self._flush()
        self.site_step = max(self.site_step, upto)

    def _operating_pass(self, index: int, move: Move, entity: dict[str, Any]) -> None:
        """Our pass: the site passes every stop up to and including our step; our `done`:
        every stop left in the turn."""
        game = self.game
        rnd = game.round
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        ours = rnd.current.step
        preloan = self._preloan_stop(rnd.current)
        stops = sum(_site_stops_at(game, rnd.steps[i], preloan, self.removed)
                    for i in range(self.site_step, ours))
        self.waiting.append(index)
        if isinstance(move.action, Done):
            stops += _site_stops_left(game, move.seat, self.site_step, self.removed)
            stops -= self._receiver_run(stops, len(rnd.steps), entity)
            self._site_passes(stops, entity)
            if self.waiting and self.waiting[-1] == index:
                # No stop left: the site ends the turn by itself, unrecorded.
                self.waiting.pop()
                self._flush()
                self.pieces.append(_Piece(None, index, unrecorded=True))
            self._flush()  # our passes the site has no stop for
            return
        if self.site_step <= ours < len(rnd.steps):
            stops += _site_stops_at(game, rnd.steps[ours], preloan, self.removed)
        stops -= self._receiver_run(stops, ours + 1, entity)
        self._site_passes(stops, entity)
        self.site_step = max(self.site_step, ours + 1)

    def _receiver_run(self, stops: int, upto: int, entity: dict[str, Any]) -> int:
        """1825 6.4: where the passes up to our step `upto` cover the site's receiver's
        stop at its run step (a route, trains or none), the last of them is a run of
        nothing there (its run step takes no pass): written after the others; 1 where
        so (one pass fewer), else 0."""
        game = self.game
        rnd = game.round
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        if not self.forms.receivers or not stops or "route" not in rnd.steps:
            return 0
        route = rnd.steps.index("route")
        if not (self.site_step <= route < upto) or \
                not self.forms.site_runs_receiver(game, rnd.company()) or \
                not _site_waits_at(game, "route", self.removed):
            return 0
        self._site_passes(stops - 1, entity)
        self._run_of_nothing(entity)
        return stops

    def _run_of_nothing(self, entity: dict[str, Any]) -> None:
        """1825 6.4: the site's receiver's run of no routes at its run step, carrying
        the first of our passes waiting for a site action."""
        self.pieces.append(_Piece({**entity, "type": "run_routes", "routes": []},
                                  self.waiting.pop(0) if self.waiting else None))

    def _preloan_stop(self, turn: object) -> bool | None:
        """1861: the site's stop before loans in `turn`, where judged already."""
        if self.preloan is None or self.preloan[0] is not turn:
            return None
        return self.preloan[1]

    def _site_homes(self, forms: list[dict[str, Any]]) -> None:
        """1825 R1: the site's choices of a minor's home city, standing for nothing of
        ours (the importer reads them as the base already there)."""
        self.pieces += [_Piece(form, None, plain=True) for form in forms]

    def _slot(self, hex_id: str, sym: str) -> int:
        return self.slots.slots.get((hex_id, sym), 0)

    def _site_passes(self, count: int, entity: dict[str, Any]) -> None:
        for _ in range(count):
            carried = self.waiting.pop(0) if self.waiting else None
            self.pieces.append(_Piece({**entity, "type": "pass"}, carried))

    def _flush(self) -> None:
        """Our passes the site has no stop for travel in messages."""
        self.pieces.extend(_Piece(None, index) for index in self.waiting)
        self.waiting.clear()

    # --- forms read off the position before the move -------------------------------------
    def _par(self, action: Par) -> dict[str, Any]:
        market = self.game.state.market
        # (1825 R1: a minor's director chooses any price of the index, not only a par.)
        cell = market.par_cell(action.price) or market.price_cell(action.price)
        assert cell is not None
        row, col = cell
        return {"type": "par", "corporation": action.corporation,
                "share_price": f"{action.price},{row},{col}"}

    def _run(self, action: RunRoutes) -> dict[str, Any]:
        return run_form(self.game, action, self.trains)

    # --- forms read off what the move changed ------------------------------------------
    def _after(self, action: Action, before: _Holdings, after: _Holdings,
               shares: list[str], transfer: tuple[str, str, str] | None
               ) -> dict[str, Any] | None:
        if isinstance(action, UsePrivate):
            action = action.then
        if isinstance(action, LayTile):
            return {"type": "lay_tile", "hex": action.hex,
                    "tile": self.tiles.on_hex[action.hex], "rotation": action.rotation}
        if isinstance(action, PlaceToken):
            (hex_id, corp), city = next(
                (key, city) for key, city in after.tokens.items() if key not in before.tokens)
            return {"type": "place_token", "city": self.tiles.city_id(hex_id, city),
                    "slot": self.slots.slots[(hex_id, corp)]}
        if isinstance(action, Dividend):
            return {"type": "dividend", "kind": action.choice}
        if isinstance(action, PlaceEdgeToken):
            return {"type": "choose", "choice": "Place Edge Token"}
        if isinstance(action, PayMesabi):
            return {"type": "choose", "choice": "Buy Mesabi Token"}
        if isinstance(action, BuyShares) and shares == [f"{action.corporation}_0"]:
            # 1825: the first new share is the director's certificate at face value,
            # which the site records as setting the par value.
            price = self.game.state.corporation(action.corporation).par_price
            assert price is not None
            return self._par(Par(action.corporation, price))
        if isinstance(action, BuyShares | RedeemShares | Protect):
            return {"type": "buy_shares", "shares": shares}
        if isinstance(action, DeclineProtection):
            return {"type": "pass"}  # the site's protection step, passed
        if isinstance(action, ReissueShares):
            # 5.11: the site's company "sells" its redeemed shares: they stay its own, on
            # sale at the new par.
            assert transfer is not None
            return {"type": "sell_shares", "shares": shares,
                    "percent": self.shares.sold(transfer, before, after)}
        if isinstance(action, SellShares | IssueShares):
            # The percent sold, not the certificates' face: a president who sells part of
            # his certificate names it with the part sold (the site swaps it for shares).
            assert transfer is not None
            return {"type": "sell_shares", "shares": shares,
                    "percent": _closing_sale(self.game.state, action)
                    or self.shares.sold(transfer, before, after)}
        if isinstance(action, BuyTrain):
            return self._buy_train(action, before, after)
        if isinstance(action, DiscardTrain):
            gone = [t for corp, ids in before.trains.items() if corp != POOL
                    for t in ids if t not in after.trains.get(corp, ())]
            return {"type": "discard_train", "train": self.trains.get(gone[0], gone[0])}
        if isinstance(action, SellPrivate) and action.buyer == "bank":
            # 1825 4.2: to the bank, at the price its rules give.
            private = self.game.state.privates[action.private]
            return {"type": "sell_company", "company": action.private,
                    "price": self.game.rules.private_sale_to_bank(self.game.state, private)}
        if isinstance(action, BuyPrivate):
            value = self.game.state.privates[action.private].spec.value
            return {"type": "buy_company", "company": action.private,
                    "price": value if action.price is None else action.price}
        return None

    def _buy_train(self, action: BuyTrain, before: _Holdings, after: _Holdings
                   ) -> dict[str, Any]:
        state = self.game.state
        rnd = self.game.round
        offer = rnd.offer if isinstance(rnd, OperatingRound) else None
        if offer is not None:  # another president must accept first
            ours = offer.train
        else:
            ours = next(t for corp, ids in after.trains.items() if corp != POOL
                        for t in ids if t not in before.trains.get(corp, ()))
        site = self.trains.get(ours, ours)
        name = ours.rsplit("-", 1)[0]
        price = action.price if action.price is not None else state.title.train(name).price
        form: dict[str, Any] = {"type": "buy_train", "train": site, "price": price}
        if action.source == "bank":
            form["variant"] = site.rsplit("-", 1)[0]
        return form


# Markers of `_Renderer._before`: the move rides on the site's passes; the site has no form.
_CARRIED = object()
_NO_FORM = object()

# The step of ours at which the site takes an action (a private's own lay and buying a
# private are the site's non-blocking steps: no step needs passing first).
_SITE_STEP_OF: dict[type[Action], str] = {
    LayTile: "track", PlaceToken: "token", RunRoutes: "route", Dividend: "dividend",
    BuyTrain: "train", SellShares: "train", IssueShares: "issue", RedeemShares: "issue",
    PlaceEdgeToken: "token", PayMesabi: "track",
}


@dataclass(frozen=True)
class _StockPass:
    """A pass (or `done`) in a stock round; `idle`: the player could do nothing else."""

    idle: bool


def run_form(game: Game, action: RunRoutes, ids: Mapping[str, str] | None = None
             ) -> dict[str, Any]:
    """The site's `run_routes` for the operating company's run ACTION at the position
    (`run auto`: the best run); IDS: our train ids -> the site's (`site_train_ids`)."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp, state = rnd.company(), game.state
    if ids is None:
        ids = site_train_ids(state.title)
    run = routes.check_run(game.rules, state, corp, action)
    unused = list(corp.trains)
    out = []
    for train_run in run.runs:
        if train_run.train not in {t.name for t in corp.trains}:
            out += _double_headed(ids, unused, train_run)
            continue
        # check_run gives each declared route the first unused train of its type.
        train = next(t for t in unused if t.name == train_run.train)
        unused.remove(train)
        walk = train_run.walk
        ident = forms_1825.site_train_id(train.id)  # 1825: a leased train
        nodes = node_places(walk, site_forms(state.title.name).passed_nodes(state, walk))
        out.append({"train": ids.get(ident, ident),
                    "connections": connections(walk, nodes),
                    "hexes": [walk.hexes[at] for at in nodes],
                    "revenue": train_run.revenue})
    return {"type": "run_routes", "routes": out}


def _double_headed(ids: Mapping[str, str], unused: list[Train], train_run: routes.TrainRun
                   ) -> list[dict[str, Any]]:
    """1825 5.5.5: two 2-trains run as one (`2+2`). The site takes them as two routes of
    two stops sharing the middle one; a route of two stops is one train's."""
    head = train_run.train.split("+")[0]
    pair = [t for t in unused if t.name == head][:2]
    walk = train_run.walk
    chains = connections(walk)
    out = []
    for i, train in enumerate(pair[:len(chains)]):
        unused.remove(train)
        out.append({"train": ids.get(train.id, train.id), "connections": [chains[i]],
                    "hexes": [walk.stops[i].hex, walk.stops[i + 1].hex],
                    "revenue": train_run.revenue if i == 0 else 0})
    return out


def node_places(walk: routes.Walk, passed: Sequence[int] = ()) -> list[int]:
    """The places in `walk.hexes` of the site's nodes of a route, in order: its stops,
    and the stops of the site's it passes that ours are not (`passed`: 1825 R1's halts,
    `SiteForms.passed_nodes`)."""
    at: list[int] = []
    position = 0
    for stop in walk.stops:
        while walk.hexes[position] != stop.hex:
            position += 1
        at.append(position)
    # (Two stops of one hex keep a place each: the site's chain between them is that hex.)
    return sorted([*at, *(p for p in passed if p not in at)])


def connections(walk: routes.Walk, nodes: Sequence[int] | None = None) -> list[list[str]]:
    """A route as the site's node-to-node chains: the hexes from each node to the next
    (`nodes`: their places in `walk.hexes`, `node_places`; by default its stops)."""
    at = node_places(walk) if nodes is None else nodes
    return [list(walk.hexes[a:b + 1]) for a, b in itertools.pairwise(at)]


def idle_alike(a: Move, b: Move) -> bool:
    """In a stock round `pass` and `done` of a player who has not acted do the same (he
    passes); the site records neither for a player with nothing to do, and the importer
    makes his pass again: so our `done` there reads back as `pass`."""
    return a.seat == b.seat and {type(a.action), type(b.action)} <= {Pass, Done}


# --- where the site stops in a company's turn -------------------------------------------


def _site_stops_at(game: Game, step: str, preloan: bool | None = None,
                   removed: frozenset[str] = frozenset()) -> int:
    """How many times the site stops for the operating company at our `step`: its own
    stop there, and the stops of its steps ours does not have (1861; `preloan`: its
    stop before loans, where judged already; `removed`: the trains the site took out
    of the game, `removed_at_close`)."""
    if site_forms(game.state.title.name).steps_of_1867:
        if forms_1861.national_operates(game):
            return int(step == "route" and _site_waits_at(game, step, removed))  # 7.4
        if step == "token":
            return int(forms_1861.token_stop(game))
        if step == "train":
            # (The interest and repayments come first, 10.8, 10.9: only a company that
            # could pay for a bank train with its loans must buy one.)
            waits = forms_1861.must_buy_train(game) or _site_train_step_open(
                game, removed=removed)
            return int(waits) + forms_1861.extra_stops(game, step, preloan)
        return int(_site_waits_at(game, step, removed)) + forms_1861.extra_stops(
            game, step, preloan)
    return int(_site_waits_at(game, step, removed))


def _end_the_game(game: Game, moves: list[Move]) -> bool:
    """Whether the last moves are passes that end the game: a company's pass of a step
    the site skips (1825: the train step it does not open after a bankruptcy) in the
    last operating round, after which the site ends the game by itself."""
    for move in moves:
        if not isinstance(move.action, Pass | Done) or not game.attempt(move.seat,
                                                                         move.action):
            return False
    return game.state.game_over


def _site_waits_at(game: Game, step: str, removed: frozenset[str] = frozenset()) -> bool:
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
            return _site_train_step_open(game, removed=removed)  # 6.3: its pool
        return rnd.can_buy_train(corp) or _site_train_step_open(game, removed=removed)
    return rnd.step_available(corp, step)


def _closing_sale(state: GameState, action: Action) -> int | None:
    """The percent a player's sale sold where it closed the company (1850 5.1.1: its
    price entered the black area, and every certificate went with it), else None."""
    if not isinstance(action, SellShares) or action.company is not None:
        return None
    corp = state.corporation(action.corporation)
    if not corp.closed:
        return None
    share = min(cert.percent for cert in corp.certificates)
    return action.percent or (action.count or 1) * share


def _site_train_step_open(game: Game, corp: Corporation | None = None,
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
            rnd.current.corporation == corp.sym and _bank_barred(game, rnd.current):
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


def removed_at_close(before: _Holdings, after: _Holdings, closed: frozenset[str]
                     ) -> frozenset[str]:
    """The trains one move took from a company it closed (CLOSED: the companies closed
    after it) and put in the Open Market: 1825 6.3, a bankrupt company's trains "return
    to the bank for resale", which the site instead removes from the game."""
    pool = set(after.trains.get(POOL, ()))
    return frozenset(t for corp, ids in before.trains.items()
                     if corp != POOL and corp in closed and not after.trains.get(corp)
                     for t in ids if t in pool)


def _waits_for_seller(game: Game, move: Move) -> bool:
    """Whether MOVE, a purchase from another company, waits for its seller's answer."""
    probe = game.clone()
    if not probe.attempt(move.seat, move.action):
        return False
    return isinstance(probe.round, OperatingRound) and probe.round.offer is not None


def _bank_barred(game: Game, turn: CompanyTurn) -> bool:
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


def _site_stops_left(game: Game, seat: str, site_step: int = 0,
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
            stops += _site_stops_at(probe, now.steps[turn.step], removed=removed)
        if not probe.attempt(seat, Pass()):
            break
    return stops


# --- pass 2: read every action back -----------------------------------------------------


class _Reader:
    """The importer, one record action at a time, on the position reached so far."""

    def __init__(self, setup: Setup, names: dict[str, str]) -> None:
        self.setup = setup
        self.names = names
        self.taken: list[dict[str, Any]] = []  # the record's actions read so far
        self.game = Game(setup)
        self.mapper = RecordMapper(self.game, names)

    def take(self, raw: dict[str, Any], expected: Sequence[Move], at_least: int) -> int:
        """Read `raw`; when the moves it makes are the first `at_least` or more of
        `expected`, keep them and return how many; else leave the position and return 0."""
        if OUR_ACTIONS not in raw and at_least == 1 and not self._maps_to(raw, expected):
            return 0  # plainly another action of ours: no need to try it
        start = len(self.game.log)
        stock = isinstance(self.game.round, StockRound)
        # Where the read may well not fit, keep a copy to go back to (reading the whole
        # record again after each misfit made long games quadratic).
        backup = self.game.clone() if at_least > 1 or OUR_ACTIONS in raw else None
        backup_mapper = self.mapper.fork(backup) if backup is not None else None
        try:
            replay_action(self.game, self.mapper, len(self.taken), raw, throwaway=True)
            made = self.game.log[start:]
            # A company's action read in a stock round ends it: the moves before it are
            # the stock round's passes, it is no stock move itself.
            last_in_stock = stock and raw.get("entity_type") not in ("corporation", "company")
            fits = len(made) >= at_least and all(
                a == b or (stock and (i < len(made) - 1 or last_in_stock) and idle_alike(a, b))
                for i, (a, b) in enumerate(zip(made, expected[:len(made)], strict=False))) \
                and len(made) <= len(expected)
        except RecordError:
            fits = False
        if not fits:
            if backup is not None and backup_mapper is not None:
                self.game, self.mapper = backup, backup_mapper
            else:
                # Rare (a move the importer made by itself that is not ours): read again.
                self._read_again()
            return 0
        self.taken.append(raw)
        return len(self.game.log) - start

    def take_plain(self, raw: dict[str, Any]) -> None:
        """Read `raw`, which makes none of our moves (the importer notes what it names)."""
        start = len(self.game.log)
        replay_action(self.game, self.mapper, len(self.taken), raw)
        if len(self.game.log) != start:
            raise RuntimeError(f"{raw} makes moves of ours")
        self.taken.append(raw)

    def _maps_to(self, raw: dict[str, Any], expected: Sequence[Move]) -> bool:
        """Whether the importer maps `raw` onto our next moves (before trying it)."""
        try:
            mapped = self.mapper.fork(self.game).map(raw)
        except (KeyError, ValueError, IndexError):
            return False
        return bool(mapped) and [Move(seat, action) for seat, action in mapped] == list(
            expected[:len(mapped)])

    def _read_again(self) -> None:
        self.game = Game(self.setup)
        self.mapper = RecordMapper(self.game, self.names)
        for index, raw in enumerate(self.taken):
            replay_action(self.game, self.mapper, index, raw)


def _read_back(record: dict[str, Any], moves: list[Move], pieces: list[_Piece],
               said: list[str]) -> list[dict[str, Any]]:
    """The record's actions, each proved to read back as our next moves."""
    setup, by_id = setup_of(record)
    reader = _Reader(setup, by_id)
    out: list[dict[str, Any]] = []
    at = 0  # our moves made so far
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if piece.move is None:
            assert piece.site is not None
            if piece.plain:
                reader.take_plain(piece.site)
                out.append(piece.site)
            else:
                out.append(_extended(piece.site, None))
        elif piece.move >= at:
            if piece.move != at:
                raise RuntimeError(f"move {at} has no action in the record")
            if all(p.unrecorded for p in pieces[index:] if p.move is not None):
                break  # the site's own passes to the end (made below)
            skipped = _leave_out(reader, moves, pieces, index, said, out) \
                if piece.unrecorded else None
            if skipped is not None:
                index, taken = skipped
            else:
                taken = _spell_out(reader, moves, piece, said, out)
            at += taken
        # else: made already, as the importer's own move (a train sale it accepts)
        index += 1
    if at != len(moves) and all(p.unrecorded for p in pieces if p.move is not None
                                and p.move >= at):
        # The game's last moves are passes the site makes by itself, at once: the record
        # leaves them out (checked: they are such passes), as the site's own records do.
        probe = reader.game.clone()
        if pass_idle_players(probe) < len(moves) - at and not probe.state.game_over and \
                not _end_the_game(reader.game.clone(), moves[at:]):
            raise RuntimeError(f"moves from {at} on are not the site's own passes")
        at = len(moves)
    if at != len(moves):
        raise RuntimeError(f"moves from {at} on have no action in the record")
    return out


def _leave_out(reader: _Reader, moves: list[Move], pieces: list[_Piece], index: int,
               said: list[str], out: list[dict[str, Any]]) -> tuple[int, int] | None:
    """Leave out the moves the site makes unrecorded, from pieces[index] on, when the
    importer makes them again before the next recorded action: returns the index of
    that action's piece and the moves covered, or None."""
    carrier = index
    while carrier < len(pieces) and (pieces[carrier].unrecorded or pieces[carrier].move is None):
        carrier += 1
    if carrier == len(pieces):
        return None
    piece = pieces[carrier]
    at, upto = pieces[index].move, piece.move
    if at is None or upto is None:
        return None
    for raw in _forms(reader, moves, piece, said):
        taken = reader.take(raw, moves[at:], upto - at + 1)
        if taken:
            out.extend(_extended(p.site, None) for p in pieces[index:carrier]
                       if p.move is None and p.site is not None)
            out.append(raw)
            return carrier, taken
    return None


def _spell_out(reader: _Reader, moves: list[Move], piece: _Piece, said: list[str],
               out: list[dict[str, Any]]) -> int:
    """A move in the site's form, extended with ours where the site's form reads back
    otherwise, or as a message carrying ours; returns the moves covered."""
    assert piece.move is not None
    for raw in _forms(reader, moves, piece, said):
        taken = reader.take(raw, moves[piece.move:], 1)
        if taken:
            out.append(raw)
            return taken
    raise RuntimeError(f"move {piece.move} ({moves[piece.move]}) does not read back")


def _forms(reader: _Reader, moves: list[Move], piece: _Piece, said: list[str]
           ) -> list[dict[str, Any]]:
    """The forms a move may take in the record, in order of preference: the site's own,
    the site's carrying ours, a message carrying ours (where the site has no form)."""
    assert piece.move is not None
    move = moves[piece.move]
    forms = [] if piece.site is None else [piece.site, _extended(piece.site, move.action)]
    return [*forms, {"type": "message", "entity": _player_id(reader, move.seat),
                     "entity_type": "player", "message": said[piece.move],
                     OUR_ACTIONS: [to_json(move.action)]}]


def _player_id(reader: _Reader, seat: str) -> int:
    """The record's id of a player by the name the record gives them."""
    return int(next(i for i, name in reader.mapper.names.items() if name == seat))


def _extended(raw: dict[str, Any], action: Action | None) -> dict[str, Any]:
    """`raw` carrying our own action (None: standing for none of ours)."""
    return {**raw, OUR_ACTIONS: [] if action is None else [to_json(action)]}
