"""The export's first pass: each of our moves rendered in the site's form (`Renderer`),
read off the position before and after it, with the passes the site's steps ask for
around it (engine/records/site_steps.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
)
from engine.game import Game, Move, Setup
from engine.records import forms_1825, forms_1861
from engine.records.bridging import site_idle
from engine.records.conventions import site_forms
from engine.records.forms import NO_FORM
from engine.records.ledgers import (
    Holdings,
    Piece,
    ShareLedger,
    TileCopies,
    TokenSlots,
    site_train_ids,
)
from engine.records.runs import run_form
from engine.records.site_steps import (
    bank_barred,
    closing_sale,
    removed_at_close,
    site_stops_at,
    site_stops_left,
    site_train_step_open,
    site_waits_at,
    waits_for_seller,
)
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, TREASURY


class Renderer:
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
        self.tiles = TileCopies(title)
        self.slots = TokenSlots(title)
        self.shares = ShareLedger(self.game.state)
        self.pieces: list[Piece] = []
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

    def render(self, moves: list[Move]) -> list[Piece]:
        self.moves = moves
        for index, move in enumerate(moves):
            following = moves[index + 1] if index + 1 < len(moves) else None
            self.turn_ended: list[Piece] = []
            self._render(index, move, following)
            self.pieces.extend(self.turn_ended)  # after the move's own action
        self._flush()
        return self.pieces

    def _render(self, index: int, move: Move, following: Move | None) -> None:
        game = self.game
        entity = self._entity(move)
        before = Holdings.of(game.state)
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
            stays_open = site_train_step_open(
                probe, probe.state.corporation(was_turn.corporation),
                from_depot=(isinstance(move.action, BuyTrain)
                            and move.action.source in ("bank", POOL, None))
                or bank_barred(game, was_turn), removed=self.removed)
        if not game.attempt(move.seat, move.action):
            raise ValueError(f"move {index} ({move}) does not replay")
        said = game.state.log[start:]
        kind = move.action.kind.replace("_", " ")
        self.said.append(f"{kind}: {'; '.join(said)}" if said else kind)
        after = Holdings.of(game.state)
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
                                    amount=closing_sale(game.state, move.action))
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
            self.turn_ended.append(Piece({"entity": was_turn.corporation,
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
                Piece({"entity": was_turn.corporation, "entity_type": "corporation",
                        "type": "pass"}, None) for _ in range(stops)]
        if isinstance(move.action, LayTile | UsePrivate) and was_turn is not None and \
                self.turn_of is was_turn and isinstance(now, OperatingRound) and \
                now.current is was_turn and "track" in now.steps:
            track_step = now.steps.index("track")
            if self.site_step <= track_step and not site_waits_at(game, "track",
                                                                 self.removed):
                # The lay used the site's last one: it leaves its track step at once
                # (ours may stay there, for a private the company could still buy).
                self.site_step = track_step + 1
        if self.homes is not None and was_turn is not None:
            # 1825 R1: the minor's lay in its home hex; the site asks for the city now.
            self.turn_ended += [Piece(form, None, plain=True) for form in self.homes.after_lay(
                game, move.action, was_turn.corporation, self.tiles.city_id, self._slot)]
        if ahead is _CARRIED:
            return
        if isinstance(ahead, _StockPass):
            # The site passes a player who can do nothing by itself, unrecorded ("has no
            # valid actions and passes"); the importer makes that pass again.
            self.pieces.append(Piece({**entity, "type": "pass"}, index,
                                      unrecorded=ahead.idle))
            return
        form = ahead if isinstance(ahead, dict) else self._after(move.action, before, after,
                                                                 shares, transfer)
        self.pieces.append(Piece(None if form is None or ahead is _NO_FORM
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
            self.pieces.append(Piece(None, index, unrecorded=True))
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
                    self.pieces.append(Piece(None, index))
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
                        self.pieces.append(Piece({**entity, **receiving}, index))
                        self.site_step = max(self.site_step, rnd.steps.index("route") + 1)
                        return _CARRIED
                    if isinstance(receiving, dict):
                        self._site_homes([{**entity, **receiving}])
                    self.pieces.append(Piece(None, index, unrecorded=True))
                    return _CARRIED
            if self.forms.offers_redemption_first and rnd.current is not None and \
                    not self.turn_begun and not forms_1861.decides(move):
                # 10.3: the site first offers the company its shares in the pool (after
                # the Director's decision on nationalisation, 11).
                self.turn_begun = True
                if not isinstance(action, RedeemShares) and forms_1861.redeem_stop(game):
                    self.pieces.append(Piece({"entity": rnd.current.corporation,
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
                    if step in ("route", "dividend") and not site_waits_at(game, step,
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
            self.pieces += [Piece(site, None, plain=True) for site in form[:-1]]
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
                waits_for_seller(game, move):
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
            stops = site_stops_at(self.game, rnd.steps[i], preloan, self.removed)
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
        stops = sum(site_stops_at(game, rnd.steps[i], preloan, self.removed)
                    for i in range(self.site_step, ours))
        self.waiting.append(index)
        if isinstance(move.action, Done):
            stops += site_stops_left(game, move.seat, self.site_step, self.removed)
            stops -= self._receiver_run(stops, len(rnd.steps), entity)
            self._site_passes(stops, entity)
            if self.waiting and self.waiting[-1] == index:
                # No stop left: the site ends the turn by itself, unrecorded.
                self.waiting.pop()
                self._flush()
                self.pieces.append(Piece(None, index, unrecorded=True))
            self._flush()  # our passes the site has no stop for
            return
        if self.site_step <= ours < len(rnd.steps):
            stops += site_stops_at(game, rnd.steps[ours], preloan, self.removed)
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
                not site_waits_at(game, "route", self.removed):
            return 0
        self._site_passes(stops - 1, entity)
        self._run_of_nothing(entity)
        return stops

    def _run_of_nothing(self, entity: dict[str, Any]) -> None:
        """1825 6.4: the site's receiver's run of no routes at its run step, carrying
        the first of our passes waiting for a site action."""
        self.pieces.append(Piece({**entity, "type": "run_routes", "routes": []},
                                  self.waiting.pop(0) if self.waiting else None))

    def _preloan_stop(self, turn: object) -> bool | None:
        """1861: the site's stop before loans in `turn`, where judged already."""
        if self.preloan is None or self.preloan[0] is not turn:
            return None
        return self.preloan[1]

    def _site_homes(self, forms: list[dict[str, Any]]) -> None:
        """1825 R1: the site's choices of a minor's home city, standing for nothing of
        ours (the importer reads them as the base already there)."""
        self.pieces += [Piece(form, None, plain=True) for form in forms]

    def _slot(self, hex_id: str, sym: str) -> int:
        return self.slots.slots.get((hex_id, sym), 0)

    def _site_passes(self, count: int, entity: dict[str, Any]) -> None:
        for _ in range(count):
            carried = self.waiting.pop(0) if self.waiting else None
            self.pieces.append(Piece({**entity, "type": "pass"}, carried))

    def _flush(self) -> None:
        """Our passes the site has no stop for travel in messages."""
        self.pieces.extend(Piece(None, index) for index in self.waiting)
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
    def _after(self, action: Action, before: Holdings, after: Holdings,
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
                    "percent": closing_sale(self.game.state, action)
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

    def _buy_train(self, action: BuyTrain, before: Holdings, after: Holdings
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


# Markers of `Renderer._before`: the move rides on the site's passes; the site has no form.
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
