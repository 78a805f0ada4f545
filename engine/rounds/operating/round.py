"""The operating round (18TN 4): who acts, what is legal, and each order sent to its step."""

from __future__ import annotations

from engine.actions import (
    Action,
    BuyPrivate,
    BuyTrain,
    DiscardTrain,
    Dividend,
    Done,
    LayTile,
    LeaseTrain,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    RedeemShares,
    RepayLoan,
    RunRoutes,
    SellShares,
    TakeLoan,
    UsePrivate,
)
from engine.errors import GameError, require
from engine.rounds import protection
from engine.rounds.base import Turn, not_here
from engine.rounds.operating.building import Building
from engine.rounds.operating.privates_step import PrivatesStep
from engine.rounds.operating.train_step import TrainStep
from engine.rounds.operating.turns import STEP_OF, STEPS
from engine.state import Corporation


class OperatingRound(Building, TrainStep, PrivatesStep):
    def turn(self) -> Turn | None:
        pending = self.rules.pending_decision(self.state)
        if pending is not None:
            return pending
        if self.offer is not None:
            return Turn(self.offer.responder, self.offer.seller,
                        f"answer {self.offer.buyer}'s offer for a train")
        if self.discards:
            corp = self.state.corporation(self.discards[0])
            return Turn(self.rules.director_of(self.state, corp), corp.sym, "discard a train")
        if self.protecting:
            sale = self.state.pending_sales[0]
            president = protection.protector(self.state, sale)
            return Turn(president, president,
                        f"protect {sale.corporation}'s price or let {sale.seller}'s sale "
                        "stand")
        if self.current is None:
            return None
        corp = self.company()
        step = self.steps[self.current.step] if self.current.step < len(self.steps) else "done"
        return Turn(corp.president or "", corp.sym, step)

    def legal(self) -> list[str]:
        """What the acting player may do now, as order texts: each is accepted by
        `process` (a text with a placeholder, by some action of its kind; "lay" and
        "token" say only that the step is open)."""
        if self.rules.pending_decision(self.state) is not None:
            return self.rules.decision_options(self.state)
        if self.offer is not None:
            return ["accept", "decline"]
        if self.discards:
            corp = self.state.corporation(self.discards[0])
            return [f"discard train {t.name}" for t in corp.trains]
        if self.protecting:
            return protection.options(self.state, self.state.pending_sales[0])
        if self.current is None:
            return []
        corp = self.company()
        t = self.current
        state = self.state
        out: list[str] = []
        step = t.step
        train = self.steps.index("train")
        if step <= 0 and self.lays_left(corp):
            out.append("lay TILE at HEX rot N")
        if step <= 0:
            out += [f"use {p.sym} lay TILE at HEX rot N (its free tile lay)"
                    for p in state.privates.values()
                    if p.owner == corp.sym and not p.closed and not p.ability_used
                    and p.spec.tiles
                    and any(h not in state.board.tiles for h in p.spec.hexes)]
        if step <= 0:
            out += self.rules.step_extras(state, corp, "track", self)
        if step <= 1 and not t.token_placed and corp.token_costs and \
                self.rules.why_not_place_token(state, corp) is None:
            out.append(f"token HEX ({self.rules.token_price_text(state, corp)})")
        if step <= 1 and not t.token_placed:
            out += self.rules.step_extras(state, corp, "token", self)
        if step <= 2 and t.revenue is None:
            out += self.rules.route_step_extras(state, corp)
        if step <= 2 and corp.trains and t.revenue is None:
            out.append("run auto | run TRAIN: HEX HEX ...")
        if t.revenue is not None and not t.dividend_done:
            out += self.rules.dividend_choices(state, corp, t.revenue)
        forced = self.must_buy(corp)
        reach = not forced or self._train_within_reach(corp)
        # A company whose withholding closes it (1850's black area) never reaches its
        # train step.
        closes = not t.dividend_done and not t.revenue and \
            self.rules.closes_on_withholding(state, corp)
        if step <= train and self._may_pass_to(corp, train) and not closes:
            if self.can_buy_train(corp):
                out += self._train_options(corp, forced)
            if forced:
                out += self._forced_sale_options(corp)
        if not forced:
            for extra in self.steps[train + 1:]:
                index = self.steps.index(extra)
                if (extra not in STEPS and self._may_pass_to(corp, index)
                        and self.step_available(corp, extra)):
                    out += self.rules.step_options(state, corp, extra, self)
        out += self.rules.turn_extras(state, corp, self)
        out += self._private_options(corp)
        if step < train and self._may_pass_to(corp, step + 1):
            out.append(f"pass (skips the {self.steps[step]} step)")
        if (not forced or closes) and (step >= train or self._may_pass_to(corp, train)):
            out.append("done")
        elif forced and not reach:
            out.append(f"done ({corp.president} cannot raise the money for a train and "
                       "is bankrupt)")
        return out

    def process(self, seat: str, action: Action) -> None:
        pending = self.rules.pending_decision(self.state)
        if pending is not None:
            if seat != pending.seat:  # (the alternatives only on a refusal: they cost)
                raise GameError(f"{pending.seat} must first decide: {pending.step}",
                                tuple(self.legal()))
            acting = self.company() if self.current is not None else None
            self.rules.decide(self.state, seat, action, self)
            if acting is not None and not acting.floated and acting.spec.kind != "national":
                # The company operating is gone (nationalised); the RSR never floats
                # (1861 7.4) and its turn goes on after the Directors' choices (11).
                self.done.add(acting.sym)
                self._next_company()
            return
        if self.offer is not None:
            self._answer_offer(seat, action)
            return
        if self.discards:
            self._discard(seat, action)
            return
        if self.protecting:
            self._protection_action(seat, action)
            return
        require(self.current is not None, "the operating round is over")
        corp = self.company()
        require(seat == corp.president,
                f"{corp.sym} is operating; its {self.rules.word('head')} {corp.president} "
                "gives its orders")
        company = getattr(action, "company", None)
        require(company in (None, corp.sym),
                f"{company} is not the company operating now; {corp.sym} is")
        if self.rules.company_action(self.state, corp, seat, action, self):
            return
        if self.rules.hold_for_vote(self.state, corp, seat, action, self):
            return
        if isinstance(action, BuyPrivate):
            self._buy_private(corp, action)
            return
        if isinstance(action, SellShares):
            self._emergency_sale(seat, corp, action)
            return
        if isinstance(action, Done):
            self._done(corp)
            return
        if isinstance(action, Pass):
            self._pass_step(corp)
            return
        if isinstance(action, DiscardTrain):
            raise GameError(f"{corp.sym} is not over its train limit")
        if isinstance(action, TakeLoan | RepayLoan):
            raise GameError(self.rules.loan_answer(self.state, corp, action),
                            tuple(self.legal()))
        if isinstance(action, RedeemShares) and self.rules.redeems_at_turn_start:
            t = self.current
            assert t is not None
            if t.step != 0 or t.lay_hexes:
                raise GameError(f"{corp.sym} redeems shares first in its turn, before it "
                                "lays track", tuple(self.legal()))
            self.rules.redeem_in_turn(self.state, corp, action.count)
            return
        step = STEP_OF.get(type(action))
        if step is None or step not in self.steps:
            raise not_here(action, self.name, self.state.title.name, self.legal())
        self._enter_step(corp, self.steps.index(step))
        if self.current is None or self.current.corporation != corp.sym:
            # (`legal` only on a refusal: it traces routes, and this runs every action)
            raise GameError(self.rules.cite("nationalised_for_interest", corp=corp.sym,
                                            step=step), tuple(self.legal()))
        if step not in STEPS:
            self.rules.step_action(self.state, corp, step, action, self)
            self._finish_if_nothing_left()
            return
        if isinstance(action, LayTile | UsePrivate):
            self._lay(corp, action)
        elif isinstance(action, PayMesabi):
            self._pay_mesabi(corp)
        elif isinstance(action, PlaceToken | PlaceEdgeToken):
            self._token(corp, action)
        elif isinstance(action, RunRoutes):
            self._run(corp, action)
        elif isinstance(action, LeaseTrain):
            self.rules.lease_train(self.state, corp, self.current is not None
                                   and self.current.revenue is not None)
        elif isinstance(action, Dividend):
            self._dividend(corp, action)
        elif isinstance(action, BuyTrain):
            self._buy_train(corp, action)
        self._finish_if_nothing_left()

    def _pass_step(self, corp: Corporation) -> None:
        """`pass` skips the current step; past the train step it moves to the next step
        that has something to offer, or ends the turn."""
        t = self.current
        assert t is not None
        train = self.steps.index("train")
        if t.step < train:
            self._enter_step(corp, t.step + 1)
            return
        later = [i for i in range(t.step + 1, len(self.steps))
                 if self.step_available(corp, self.steps[i])]
        if later:
            if t.step == train:
                self._leave_train_step(corp)
                if self.state.game_over:
                    return
            t.step = later[0]
            return
        self._done(corp)

    def _done(self, corp: Corporation) -> None:
        t = self.current
        assert t is not None
        for step in range(t.step, self.steps.index("train")):
            self._check_skippable(corp, self.steps[step])
            if self.current is not t:
                return  # 1861 10.8: nationalised; the next company's turn has begun
        if t.step <= self.steps.index("train"):
            self._leave_train_step(corp)
        if self.current is not None and not self.state.game_over:
            self._finish_company()
