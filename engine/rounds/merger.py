"""The merger round (1861 12): minors may convert into, or merge to form, public companies.

A title switches it on from `Rules.next_round`. In operating order (12.1) each
candidate minor's owner is asked once: convert (12.2, `convert M-K into NW`), merge
with other minors (12.3, `merge N M-K into NW`), or pass. The title carries the
formation out (`Rules.convert`, `Rules.merge`: assets, stations, the price, the
certificates handed out) and says who may take part (`Rules.merger_candidates`,
`merger_options`).

Then the new company's shares are dealt from its treasury (12.4): first each player
holding its shares, from the Director to the left, buys any number, one order at a
time, until he passes; then every player, from the Director to the left, may buy one.
A player who cannot buy a share is not asked; a Director whose two turns would follow
each other has them as one (any number, then one more, is any number). A player who
comes to hold more shares than the Director takes the Director's certificate.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from engine.actions import Accept, Action, BuyShares, Convert, Decline, Done, Merge, Pass
from engine.errors import GameError, require
from engine.rounds.base import Round, Turn, not_here
from engine.shares import buy_certificate, check_can_hold
from engine.state import TREASURY, Corporation, GameState, copy_records, money

if TYPE_CHECKING:
    from engine.rules import Rules


@dataclass
class Proposal:
    """A merger waiting for the other minors' owners to agree (12.1)."""

    proposer: str
    minors: tuple[str, ...]
    into: str
    stations: tuple[str, ...]
    waiting: list[str]  # owners still to agree, the next first


@dataclass
class Dealing:
    """The shares of a company just formed, offered to the players (12.4)."""

    corporation: str
    waiting: list[str]  # seats still to be asked in this phase, the next first
    several: bool  # the shareholders' phase: any number each
    bought: set[str] = field(default_factory=set)  # who bought in this turn
    # 12.4: the game as it was before a merger, restored if nobody comes to hold two
    # shares (None for a conversion: its owner holds the Director's certificate).
    before: GameState | None = None


class MergerRound(Round):
    def __init__(self, state: GameState, rules: Rules, number: int) -> None:
        super().__init__(state)
        self.rules = rules
        self.number = number
        self.asked: set[str] = set()
        self.current: str | None = None
        self.dealing: Dealing | None = None
        self.proposal: Proposal | None = None
        state.say(f"Merger Round {self.label} begins")
        self._next()

    @property
    def label(self) -> str:
        return f"{self.state.stock_round_number}.{self.number}"

    @property
    def name(self) -> str:
        return f"Merger Round {self.label}"

    def _next(self) -> None:
        waiting = [sym for sym in self.rules.merger_candidates(self.state)
                   if sym not in self.asked]
        self.current = waiting[0] if waiting else None

    def over(self) -> bool:
        return self.current is None and self.dealing is None

    def turn(self) -> Turn | None:
        if self.proposal is not None:
            p = self.proposal
            return Turn(p.waiting[0], p.waiting[0], f"agree to merge {', '.join(p.minors)} "
                        f"into {p.into}, or not")
        if self.dealing is not None:
            seat = self.dealing.waiting[0]
            return Turn(seat, seat, f"buy shares of {self.dealing.corporation}")
        if self.current is None:
            return None
        corp = self.state.corporation(self.current)
        return Turn(corp.president or "", corp.sym, "convert, merge or pass")

    def legal(self) -> list[str]:
        if self.proposal is not None:
            return ["accept", "decline"]
        if self.dealing is not None:
            corp = self.state.corporation(self.dealing.corporation)
            price = money(self.state, self.state.market.price(corp.sym))
            return [f"buy {corp.sym} (from its treasury, {price})",
                    "pass" if not self.dealing.bought else "done"]
        if self.current is None:
            return []
        return [*self.rules.merger_options(self.state, self.current), "pass"]

    def candidates(self) -> list[Action]:
        """The actions `engine.legal` tries now."""
        if self.proposal is not None:
            return [Accept(), Decline()]
        if self.dealing is not None:
            return [BuyShares(self.dealing.corporation, 1, "treasury"), Done()]
        if self.current is None:
            return []
        return self.rules.merger_candidate_actions(self.state, self.current)

    # --- processing --------------------------------------------------------------------
    def process(self, seat: str, action: Action) -> None:
        turn = self.turn()
        require(turn is not None, "the merger round is over")
        assert turn is not None
        require(seat == turn.seat, f"it is {turn.seat}'s turn ({turn.step}), not {seat}'s")
        if self.proposal is not None:
            self._answer(seat, action)
            return
        if self.dealing is not None:
            self._deal(seat, action)
            return
        assert self.current is not None
        minor = self.current
        if isinstance(action, Pass | Done):
            self.state.say(f"{minor} does not convert or merge")
            self.asked.add(minor)
            self._next()
            return
        if isinstance(action, Convert):
            if self.rules.merger_alias(self.state, action.minor) != minor:
                raise GameError(f"{minor} is asked now, not {action.minor}",
                                tuple(self.legal()))
            formed = self.rules.convert(self.state, minor, action.into, self)
            self.asked.add(minor)
        elif isinstance(action, Merge):
            minors = [self.rules.merger_alias(self.state, m) for m in action.minors]
            if minor not in minors:
                raise GameError(f"{minor} is asked now; a merger it proposes names it",
                                tuple(self.legal()))
            stations = tuple(self.rules.merger_alias(self.state, m) for m in action.stations)
            # 12.1: every other owner must agree: the merger is tried on a copy first,
            # so that they are asked only about one that may take place.
            self.rules.merge(copy_records(self.state), tuple(minors), action.into, self,
                             stations)
            owners = {self.state.corporation(m).president for m in minors}
            others = [s for s in self.state.seats_from(seat) if s in owners and s != seat]
            self.proposal = Proposal(seat, tuple(minors), action.into, stations, others)
            self.state.say(f"{seat} proposes to merge {', '.join(minors)} into "
                           f"{action.into}")
            self._settle_proposal()
            return
        else:
            raise not_here(action, self.name, self.state.title.name, self.legal())
        self._start_dealing(formed)

    # --- 12.1: the other owners agree --------------------------------------------------
    def _answer(self, seat: str, action: Action) -> None:
        p = self.proposal
        assert p is not None
        if isinstance(action, Accept):
            self.state.say(f"{seat} agrees to the merger")
            p.waiting.pop(0)
            self._settle_proposal()
        elif isinstance(action, Decline | Pass):
            self.state.say(self.rules.cite("merger_refused", seat=seat,
                                           minors=", ".join(p.minors)))
            self.proposal = None  # the minor asked may propose again, or pass
        else:
            raise GameError(f"{seat} is asked to agree to the merger of "
                            f"{', '.join(p.minors)} into {p.into}: accept or decline",
                            ("accept", "decline"))

    def _settle_proposal(self) -> None:
        """Once everyone has agreed, the merger takes place (12.3)."""
        p = self.proposal
        assert p is not None
        if p.waiting:
            return
        self.proposal = None
        before = copy_records(self.state)  # (the engine's copy: deepcopy cost ~50 ms)
        formed = self.rules.merge(self.state, p.minors, p.into, self, p.stations)
        self.asked.update(p.minors)
        self._start_dealing(formed, before)

    # --- 12.4: the new company's shares ------------------------------------------------
    def _start_dealing(self, sym: str, before: GameState | None = None) -> None:
        corp = self.state.corporation(sym)
        director = corp.president or ""
        holders = [s for s in self.state.seats_from(director) if corp.percent_held_by(s)]
        self.dealing = Dealing(sym, holders, several=True, before=before)
        self._settle_dealing()

    def _deal(self, seat: str, action: Action) -> None:
        dealing = self.dealing
        assert dealing is not None
        state = self.state
        corp = state.corporation(dealing.corporation)
        if isinstance(action, Pass | Done):
            dealing.waiting.pop(0)
            dealing.bought.clear()
        elif isinstance(action, BuyShares):
            if self.rules.merger_alias(state, action.corporation) != corp.sym:
                raise GameError(f"only shares of {corp.sym} are dealt now",
                                tuple(self.legal()))
            require(action.source in (None, TREASURY),
                    self.rules.cite("merger_from_treasury", corp=corp.sym))
            require(action.count == 1 or dealing.several,
                    self.rules.cite("merger_one_share_each", corp=corp.sym))
            for _ in range(action.count):  # `buy 2 NW`: while shareholders buy any number
                require(self._may_buy(seat, corp),
                        self.rules.cite("merger_no_more", seat=seat, corp=corp.sym))
                buy_certificate(self.rules, state, seat, corp, TREASURY)
                claim_presidency(state, corp)
            dealing.bought.add(seat)
            if not dealing.several or not self._may_buy(seat, corp):
                dealing.waiting.pop(0)
                dealing.bought.clear()
        else:
            raise GameError(f"the shares of {corp.sym} are being dealt: buy one or pass",
                            tuple(self.legal()))
        self._settle_dealing(last=seat)

    def _settle_dealing(self, last: str | None = None) -> None:
        """Skip players who cannot buy; move to the second phase, or finish."""
        dealing = self.dealing
        assert dealing is not None
        state = self.state
        corp = state.corporation(dealing.corporation)
        while True:
            if not corp.certificates_of(TREASURY):
                dealing.waiting.clear()
            while dealing.waiting and not self._may_buy(dealing.waiting[0], corp):
                dealing.waiting.pop(0)
            if dealing.waiting:
                return
            if dealing.several and corp.certificates[0].owner not in state.seats:
                self._reverse(dealing)
                return
            if not dealing.several or not corp.certificates_of(TREASURY):
                break
            # 12.4: then every player may buy one, from the Director to the left.
            director = corp.president or ""
            order = [s for s in state.seats_from(director) if self._may_buy(s, corp)]
            if order and order[0] == last:
                # The offer would follow the one he has just answered, nothing bought
                # between: he declined one share with any number (as the site reads it).
                order = order[1:]
            dealing.waiting = order
            dealing.several = False
        self.dealing = None
        self.rules.after_formation(state, corp, self)
        self._next()

    def _reverse(self, dealing: Dealing) -> None:
        """12.3, 12.4: once the shareholders have bought, nobody holds two shares: the
        merger is not allowed and is undone (the minors stay as they were, asked)."""
        assert dealing.before is not None
        state = self.state
        log = state.log
        for f in fields(state):
            if f.name != "log":
                setattr(state, f.name, getattr(dealing.before, f.name))
        state.say(self.rules.cite("merger_reversed", corp=dealing.corporation))
        assert state.log is log
        self.dealing = None
        self._next()

    def _may_buy(self, seat: str, corp: Corporation) -> bool:
        state = self.state
        certs = [c for c in corp.certificates_of(TREASURY) if not c.president]
        if not certs or state.player(seat).cash < state.market.price(corp.sym):
            return False
        try:
            check_can_hold(self.rules, state, seat, corp, 10)
        except GameError:
            return False
        return True


def claim_presidency(state: GameState, corp: Corporation) -> None:
    """12.3, 12.4: the player with most shares directs the company; once he holds two
    plain shares while the Director's certificate lies in the treasury, he exchanges
    them for it."""
    pres = corp.certificates[0]
    holdings = {s: corp.percent_held_by(s) for s in state.seats}
    best = max(holdings.values())
    if corp.president is None or holdings.get(corp.president, 0) < best:
        corp.president = next(s for s in state.seats_from(corp.president or state.seats[0])
                              if holdings[s] == best)
    if pres.owner not in state.seats:
        seat = corp.president
        plain = [c for c in corp.certificates_of(seat) if not c.president]
        if sum(c.percent for c in plain) >= pres.percent:
            given = 0
            for cert in plain:
                if given >= pres.percent:
                    break
                cert.owner = pres.owner
                given += cert.percent
            pres.owner = seat
            state.say(f"{seat} takes the Director's certificate of {corp.sym}")


__all__ = ["Dealing", "MergerRound", "Proposal", "claim_presidency"]
