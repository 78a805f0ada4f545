"""1825's minor companies (R1: the Cambrian and the Taff Vale), as 18xx.games plays them
(our rulebook has no text of the kits; data/1825.json, title_specific "r1").

A minor's director's certificate is 40%, its other three 20%, each priced per 10% at
the price its director chose from the Share Price Index (above a tenth of its own
train's price). What players pay for its new shares is its own money (not the full
company credit of a major, 5.1.2). It forms once its money covers its own train (the
U3 or the 4T, kept out of the bank's trains), which it buys at once. Minors are on
sale once the bank sells the £71 companies' band is done (the band after them), and
they operate after every major company.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from engine.actions import Action, PlaceToken
from engine.errors import GameError, require
from engine.shares import money
from engine.state import BANK, IPO, Corporation, GameState, Train

if TYPE_CHECKING:
    from engine.rounds.base import Turn
    from engine.rules import Rules
    from engine.title import Title

MINOR = "minor"
DIRECTOR_PERCENT = 40
FORMED_MINOR = "minor formed:"  # + its place in the minors' order of formation


def is_minor(corp: Corporation) -> bool:
    return corp.spec.kind == MINOR


def _kit(title: Title) -> dict[str, Any]:
    return cast("dict[str, Any]", title.title_specific.get("r1", {}))


def idle_in_receivership(title: Title) -> bool:
    """Whether a minor without a director does nothing in its turns (the kit's
    `minors.receivership` "idle"): Unit 1's receiver runs a Major Company only (6.4);
    18xx.games' silent receivership."""
    return bool(_kit(title).get("minors", {}).get("receivership") == "idle")


def own_train(title: Title, sym: str) -> str:
    """The train type the minor forms with (its `required_train`)."""
    for spec in _kit(title).get("corporations", ()):
        if spec["sym"] == sym:
            return str(spec["required_train"])
    raise GameError(f"{sym} has no train of its own")


def reserved_trains(title: Title) -> set[str]:
    """The minors' own train types: never sold by the bank."""
    return {str(c["required_train"]) for c in _kit(title).get("corporations", ())}


def own_train_kept(state: GameState, owner: str, name: str) -> str | None:
    """Why a minor's own train (the U3, the 4T) does not change hands: the kit's minors
    keep the train they formed with (18xx.games: never buyable), and a bankrupt
    minor's is not for resale. None for any other train."""
    if name not in reserved_trains(state.title):
        return None
    corp = state.corporations.get(owner)
    whose = corp.sym if corp is not None else "a minor"
    return f"{whose}'s own {name}-train is never sold: a minor keeps the train it " \
           "formed with (R1)"


def par_prices(title: Title, sym: str) -> tuple[int, ...]:
    """The prices a minor's director may choose: a share (10%) above a tenth of its
    train's price, short of the top of the index."""
    train = title.train(own_train(title, sym)).price
    return tuple(cell.price for cell in title.market.cells()
                 if 10 * cell.price > train and not cell.endgame and cell.price > 0)


def why_not_on_sale(state: GameState, face_value: dict[str, int]) -> str | None:
    """Minors are on sale from the band after the £71 companies' (the £76 companies'
    where none is at £71): once a major of that face value or below is fully
    subscribed."""
    faces = set(face_value.values())
    limit = 71 if 71 in faces else 76
    if any(not c.certificates_of(IPO) for c in state.corporations.values()
           if not is_minor(c) and face_value.get(c.sym, 0) <= limit):
        return None
    return f"the bank sells the minors once a £{limit} company is fully subscribed (4.1)"


def buy_director(state: GameState, seat: str, corp: Corporation, price: int) -> int:
    """The director's 40% at `price` a share: what he pays is the minor's money."""
    prices = par_prices(state.title, corp.sym)
    require(price in prices, f"{corp.sym}'s price is chosen from "
            f"{', '.join(money(state, p) for p in prices)}")
    cost = price * DIRECTOR_PERCENT // 10
    require(state.player(seat).cash >= cost,
            f"{seat} has {money(state, state.player(seat).cash)}; {corp.sym}'s "
            f"director's certificate at {money(state, price)} costs {money(state, cost)}")
    cell = state.market.price_cell(price)
    assert cell is not None  # one of par_prices
    state.market.place(corp.sym, cell)
    corp.par_price = price
    pres = corp.certificates[0]
    pres.owner = seat
    corp.president = seat
    state.transfer_cash(seat, BANK, cost)
    credit(state, corp, cost)
    state.say(f"{seat} buys {corp.sym}'s director's certificate at {money(state, price)} "
              f"a share for {money(state, cost)}")
    return cost


def credit(state: GameState, corp: Corporation, amount: int) -> None:
    """A minor's new shares pay the minor (the players' money goes to the bank; the
    minor's is company credit, as every company's)."""
    state.transfer_cash(BANK, corp.sym, amount)


def check_formation(rules: Rules, state: GameState, corp: Corporation) -> None:
    """The minor forms once its money covers its own train, which it buys at once (no
    phase changes with it)."""
    from engine.board import place_home_token

    if corp.floated or not is_minor(corp):
        return
    name = own_train(state.title, corp.sym)
    price = state.title.train(name).price
    if corp.cash < price:
        return
    count = sum(1 for c in state.corporations.values()
                if any(m.startswith(FORMED_MINOR) for m in c.markers))
    corp.markers.add(f"{FORMED_MINOR}{count}")
    corp.floated = True
    corp.trains.append(Train(name, f"{name}-0"))
    state.transfer_cash(corp.sym, BANK, price)
    state.say(f"{corp.sym} forms and buys its own {name}-train for {money(state, price)}")
    if not corp.spec.home_choice:  # (a chosen home waits for its director, below)
        place_home_token(state, corp)


# --- a home chosen by the director (the Taff Vale's city in V8) ---------------------------

HOME_CHOICE = "home-choice"  # its director is asked now which city takes its base


def home_choices(state: GameState, corp: Corporation) -> list[int]:
    """The cities of its home hex that may take the company's base: a free space not
    kept for another company's home (5.4)."""
    from engine.board import city_count, free_slots, reserved_slots

    home = corp.spec.home
    if home is None:
        return []
    return [c for c in range(city_count(state, home))
            if free_slots(state, home, c) - reserved_slots(state, home, c, corp.sym) > 0]


def ask_homes(state: GameState) -> None:
    """When an operating round begins, each formed company choosing its home and
    without a base there is given one: its director is asked which city where there is
    a choice (R1: the Taff Vale's director, as 18xx.games asks him); the one city left,
    or the default where nobody directs it, is taken at once."""
    from engine.board import has_token_in, place_home_token

    for corp in state.corporations.values():
        home = corp.spec.home
        if not corp.spec.home_choice or not corp.floated or corp.closed or home is None \
                or has_token_in(state, corp.sym, home) or HOME_CHOICE in corp.markers:
            continue
        choices = home_choices(state, corp)
        if len(choices) > 1 and corp.president is not None:
            corp.markers.add(HOME_CHOICE)
            state.say(f"{corp.president} chooses the city of {home} that takes "
                      f"{corp.sym}'s base")
        elif choices:
            place_home_token(state, corp, default_home(state, corp))


def default_home(state: GameState, corp: Corporation) -> int:
    """The city taken where nobody chooses: the title's (`home_city`, R1: the second
    city of V8, the recorded game's director's choice) if free, else the first free."""
    choices = home_choices(state, corp)
    preferred = corp.spec.home_city or 0
    return preferred if preferred in choices or not choices else choices[0]


def awaiting_home(state: GameState) -> Corporation | None:
    for corp in state.corporations.values():  # (a loop: asked at every `turn`)
        if HOME_CHOICE in corp.markers:
            return corp
    return None


def home_turn(state: GameState) -> Turn | None:
    corp = awaiting_home(state)
    if corp is None:
        return None
    from engine.rounds.base import Turn  # (only when a choice waits: asked at every turn)

    return Turn(corp.president or "", corp.sym,
                f"choose the city of {corp.spec.home} for {corp.sym}'s base: "
                + " or ".join(f"`token {corp.spec.home} city {c + 1}`"
                              for c in home_choices(state, corp)))


def home_options(state: GameState, corp: Corporation) -> list[str]:
    home = corp.spec.home
    default = default_home(state, corp)
    return [f"token {home} city {c + 1}" + (" (the default)" if c == default else "")
            for c in home_choices(state, corp)]


def home_candidates(state: GameState, corp: Corporation) -> list[PlaceToken]:
    home = corp.spec.home
    assert home is not None
    return [PlaceToken(home, c) for c in home_choices(state, corp)]


def choose_home(state: GameState, corp: Corporation, seat: str, action: Action) -> None:
    """The director's `token HEX city N`: the base goes there, free."""
    from engine.board import place_home_token

    home = corp.spec.home
    choices = home_choices(state, corp)
    options = tuple(home_options(state, corp))
    require(isinstance(action, PlaceToken),
            f"{seat} must first choose the city of {home} that takes {corp.sym}'s base",
            options)
    assert isinstance(action, PlaceToken)
    require(action.hex == home, f"{corp.sym}'s base goes in its home hex {home}, not "
            f"{action.hex}", options)
    require(action.city is not None,
            f"{home} has {len(choices)} cities free; say which", options)
    require(action.city in choices,
            f"city {(action.city or 0) + 1} of {home} has no free space for "
            f"{corp.sym}'s base", options)
    corp.markers.discard(HOME_CHOICE)
    place_home_token(state, corp, action.city)


def formation_index(corp: Corporation) -> int:
    for marker in corp.markers:
        if marker.startswith(FORMED_MINOR):
            return int(marker[len(FORMED_MINOR):])
    return 0
