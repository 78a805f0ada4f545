"""1825 Unit 1, 5.6.5: "Trains can be bought from another Company for any multiple of £10
agreed by their Director(s)."

Besides the buyer's offer (`buy train 3 from LNWR for £200`, which the seller's director
accepts or declines at once), the seller's director may offer a train in his company's
turn: `sell train 3 to GWR for £200`. The offer stands until the seller's next turn; the
buyer's director takes it in his company's turn with `accept` (or the buyer's order
`buy train 3 from LNWR for £200`, which then needs no second answer) or drops it with
`decline`. Buying happens in the buyer's train step, as 5.6 has it. A company in
receivership never sells a train (6.4.4). The offers are markers on the selling company,
so they are copied and replayed with the state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import trains
from engine.actions import Accept, Action, BuyTrain, Decline, SellTrain
from engine.errors import GameError, require
from engine.rounds.operating import OperatingRound
from engine.state import money
from engine.titles import t1825_minors as minors
from engine.titles import t1825_receivership as rcv

if TYPE_CHECKING:
    from engine.rounds.base import Round
    from engine.rules import Rules
    from engine.state import Corporation, GameState

SELLS = "sells:"  # + the offer as JSON
LEAST_PRICE = 10  # 5.6.5: a multiple of £10


@dataclass(frozen=True)
class Offer:
    seller: str
    train: str
    buyer: str
    price: int

    @property
    def marker(self) -> str:
        return SELLS + json.dumps({"train": self.train, "to": self.buyer,
                                   "price": self.price}, sort_keys=True)

    def describe(self, state: GameState) -> str:
        return f"{self.seller}'s {self.train}-train for {money(state, self.price)}"


def offers(state: GameState, buyer: str | None = None) -> list[Offer]:
    """The standing offers (to `buyer` only, if named), in the order of the sellers."""
    out = []
    for corp in state.corporations.values():
        for marker in sorted(m for m in corp.markers if m.startswith(SELLS)):
            data = json.loads(marker[len(SELLS):])
            offer = Offer(corp.sym, str(data["train"]), str(data["to"]), int(data["price"]))
            if buyer is None or offer.buyer == buyer:
                out.append(offer)
    return out


def withdraw_all(corp: Corporation) -> None:
    """The seller's next turn: its offers lapse."""
    for marker in [m for m in corp.markers if m.startswith(SELLS)]:
        corp.markers.discard(marker)


def offer_train(rules: Rules, state: GameState, seller: Corporation, action: SellTrain
                ) -> None:
    buyer = _check_offer(rules, state, seller, action)
    offer = Offer(seller.sym, action.train, buyer.sym, action.price)
    for old in offers(state, buyer.sym):
        if old.seller == seller.sym and old.train == action.train:
            seller.markers.discard(old.marker)  # the new price replaces the old one
    seller.markers.add(offer.marker)
    state.say(f"{seller.sym} offers {buyer.sym} its {action.train}-train for "
              f"{money(state, action.price)}; {buyer.president or 'its receiver'} may "
              f"accept or decline it in {buyer.sym}'s turn (5.6.5)")


def _check_offer(rules: Rules, state: GameState, seller: Corporation, action: SellTrain
                 ) -> Corporation:
    require(not rcv.in_receivership(seller),
            f"{seller.sym} is in receivership: it may never sell a train (6.4.4)")
    buyer = state.corporations.get(action.to)
    require(buyer is not None and buyer.floated and not buyer.closed,
            f"{action.to} is no company operating; a train is offered to one that has "
            "formed: " + ", ".join(c.sym for c in state.corporations.values()
                                   if c.floated and not c.closed and c is not seller))
    assert buyer is not None
    require(buyer is not seller, f"{seller.sym} cannot sell a train to itself")
    train = next((t for t in seller.trains if t.name == action.train and not t.obsolete),
                 None)
    require(train is not None, f"{seller.sym} owns no {action.train}-train to sell; it "
            f"owns: {', '.join(t.name for t in seller.trains) or 'none'}",
            tuple(f"sell train {t.name} to {buyer.sym} for £{action.price}"
                  for t in seller.trains if not t.obsolete))
    assert train is not None
    kept = minors.own_train_kept(state, seller.sym, train.name)
    if kept:
        raise GameError(kept)
    why = rules.why_not_train_price(state, buyer, seller, train, action.price)
    if why:
        raise GameError(why)
    return buyer


def take_agreed(state: GameState, buyer: Corporation, seller: Corporation, name: str,
                price: int) -> bool:
    """Whether the seller offered this sale; the offer is used up."""
    for offer in offers(state, buyer.sym):
        if offer.seller == seller.sym and offer.train == name and offer.price == price:
            seller.markers.discard(offer.marker)
            return True
    return False


def answer(state: GameState, corp: Corporation, seat: str, action: Action, round: Round
           ) -> bool:
    """The buyer's `accept` or `decline` of an offer made to its company; False for any
    other action (or when no offer is made to it)."""
    if not isinstance(action, Accept | Decline):
        return False
    standing = offers(state, corp.sym)
    if not standing:
        return False
    if isinstance(action, Decline):
        for offer in standing:
            state.corporation(offer.seller).markers.discard(offer.marker)
            state.say(f"{seat} declines {offer.describe(state)} for {corp.sym}")
        return True
    forms = tuple(f"buy train {o.train} from {o.seller} for £{o.price}" for o in standing)
    require(len(standing) == 1, f"{corp.sym} is offered "
            f"{'; '.join(o.describe(state) for o in standing)}: name the one it buys",
            forms)
    offer = standing[0]
    round.process(seat, BuyTrain(offer.train, offer.seller, offer.price))
    return True


def as_purchase(rules: Rules, state: GameState, round: Round, action: Action) -> Action:
    """The buyer's `accept` of the one offer made to the operating company, as the log
    keeps it: the purchase at the offered price (the site's form of it too)."""
    if not isinstance(action, Accept) or not isinstance(round, OperatingRound) or \
            round.current is None or round.offer is not None or round.discards or \
            rules.pending_decision(state) is not None:
        return action
    standing = offers(state, round.current.corporation)
    if len(standing) != 1:
        return action
    offer = standing[0]
    return BuyTrain(offer.train, offer.seller, offer.price)


def options(rules: Rules, state: GameState, corp: Corporation) -> list[str]:
    """Order texts of the operating company: the offers made to it, and its own."""
    standing = offers(state, corp.sym)
    takeable = [o for o in standing if _takeable(rules, state, corp, o)]
    out = [f"accept ({takeable[0].describe(state)}, 5.6.5)"] if len(standing) == 1 and \
        takeable else [f"buy train {o.train} from {o.seller} for £{o.price}"
                       for o in takeable if len(standing) > 1]
    if standing:
        out.append("decline (the offers to it)")
    if any(isinstance(a, SellTrain) and why_not_offer(rules, state, corp, a) is None
           for a in candidates(state, corp)):
        out.append("sell train N to COMPANY for £M (its director may accept it in its "
                   "turn, 5.6.5)")
    return out


def _takeable(rules: Rules, state: GameState, buyer: Corporation, offer: Offer) -> bool:
    seller = state.corporation(offer.seller)
    train = next((t for t in seller.trains if t.name == offer.train and not t.obsolete),
                 None)
    return train is not None and not seller.closed and buyer.cash >= offer.price and \
        len(buyer.trains) < trains.train_limit(rules, state, buyer) and \
        rules.why_not_train_price(state, buyer, seller, train, offer.price) is None and \
        rules.why_not_buy_train(state, buyer, seller.sym, offer.train, offer.price) is None


def why_not_offer(rules: Rules, state: GameState, seller: Corporation, action: SellTrain
                  ) -> str | None:
    try:
        _check_offer(rules, state, seller, action)
    except GameError as e:
        return str(e)
    return None


def candidates(state: GameState, corp: Corporation) -> list[Action]:
    """The actions behind `options`: each train offered to each company at the least
    price and at its price from the bank, and the answers to the offers made to it."""
    out: list[Action] = []
    if offers(state, corp.sym):
        out += [Accept(), Decline()]
    for other in state.corporations.values():
        if other is corp or not other.floated or other.closed:
            continue
        for name in sorted({t.name for t in corp.trains if not t.obsolete
                            and not minors.own_train_kept(state, corp.sym, t.name)}):
            for price in sorted({LEAST_PRICE, state.title.train(name).price}):
                out.append(SellTrain(name, other.sym, price))
    return out


__all__ = ["Offer", "answer", "as_purchase", "candidates", "offer_train", "offers",
           "options", "take_agreed", "why_not_offer", "withdraw_all"]
