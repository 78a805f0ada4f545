"""Station placements without guessing: the cities where the acting company may place
its next station token now, each with the order that places it, its price and the
company's money after it (issue 30, item 5: a player sees what a choice costs before
he makes it).

The price is the rules' own (`Rules.token_cost`): the next token on the charter
(18TN, 1850, 1825: $40 then $100; 1851: free), 1861 10.5's R20 or R40 a hex from the
nearest station, an 1850 edge token's $50 (7.4). Tokens are paid from the treasury
alone: no title lends for them (tests/test_token_prices.py compares each price with
what the engine charges in the recorded games).
"""

from __future__ import annotations

import dataclasses

from engine import board
from engine.actions import PlaceEdgeToken, PlaceToken
from engine.game import Game
from engine.legal import legal_token_places
from engine.rounds.operating import OperatingRound
from engine.title import Title

__all__ = ["TokenPlace", "hex_places", "legal_places", "places_text"]


@dataclasses.dataclass(frozen=True, slots=True)
class TokenPlace:
    """One legal station placement, as the player orders it, and what it costs."""

    hex: str
    city: int | None  # the city index where the hex has several (None: the only one)
    edge: bool  # an 1850 edge token
    paid: int  # out of the treasury
    left: int  # the company's money after it

    @property
    def order(self) -> str:
        if self.edge:
            return f"edge token {self.hex}"
        return f"token {self.hex}" + (f" city {self.city + 1}" if self.city is not None
                                      else "")

    def text(self, title: Title) -> str:
        spec = title.hexes.get(self.hex)
        name = f" ({spec.name})" if spec is not None and spec.name else ""
        currency = title.currency
        price = (f"{currency}{self.paid}, leaves {currency}{self.left}" if self.paid
                 else "free")
        return f"{self.order}{name}: {price}"


def legal_places(game: Game) -> tuple[TokenPlace, ...]:
    """Every station placement the acting company may make now, priced as the engine
    charges it (`board.place_token`, `Rules.place_edge_token`)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None:
        return ()
    corp = rnd.company()
    state = game.state
    rules = game.rules
    places = []
    for action in legal_token_places(game):
        if isinstance(action, PlaceEdgeToken):
            edge = corp.spec.edge_token
            assert edge is not None
            places.append(TokenPlace(action.hex, None, True, edge.cost,
                                     corp.cash - edge.cost))
            continue
        assert isinstance(action, PlaceToken)
        cost = rules.token_cost(state, corp, action.hex)
        several = board.city_count(state, action.hex) > 1
        places.append(TokenPlace(action.hex, action.city if several else None, False,
                                 cost, corp.cash - cost))
    return tuple(places)


def hex_places(places: tuple[TokenPlace, ...], hex_id: str) -> tuple[TokenPlace, ...]:
    return tuple(p for p in places if p.hex == hex_id)


def places_text(title: Title, places: tuple[TokenPlace, ...]) -> str:
    """One line a placement: `token F11 (Nashville): $40, leaves $210`."""
    return "\n".join(p.text(title) for p in places)
