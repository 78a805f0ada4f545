"""1825 in the site's forms (engine.records.writing): a minor's home base, a receiver's lease, and
what the site offers (a minor's start, another company's train).

R1's Taff Vale has its home in V8, a hex of two cities. Ours places its base in the
kit's city when it forms (engine/titles/t1825_minors.py); the site places a minor's base
only once its home hex has track (a tile with paths and cities), and where the hex has
several cities it asks the minor's director which one: a `place_token` of the minor
that blocks the round until made (docs/site-differences.md, a minor's home base). The
site asks at three moments: when an operating round begins (every formed company), when
the minor's turn begins, and right after the minor's own lay in its home hex. The export
writes the choice there, naming the city our base stands in; the importer reads it as
nothing (the base is there already). A home of one city (the Cambrian's R8) the site
fills by itself, unrecorded.

And a company in receivership (4.4, 6.4), as the site records it: the receiver's lease
(6.4.3) is the site's `special_buy` of the bank's train for £10, which the importer takes
up at the company's run; the leased train runs under the bank's train's id; the bank's
train the receiver must buy (6.4.4) the site buys by itself when the turn ends, and so
the importer (engine.records), which also ends the turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

from engine import routes, trains
from engine.actions import Action, BuyTrain, Done, LayTile, LeaseTrain, Pass, PlaceToken
from engine.game import Game, Move
from engine.records.forms import SiteForms
from engine.rounds.operating import OperatingRound
from engine.state import Corporation, GameState, Train
from engine.titles import rules_for
from engine.walks import Walk

# (The core knows no title module, tests/test_layers.py: what it needs of 1825's it asks
# the rules or reads off the position.)
#: Our leased train's id: the bank's train's id and this (t1825_receivership).
LEASED_SUFFIX = "-leased"
#: The site's price of a lease (its LEASE_COST; 6.4.3's £10 per OR).
SITE_LEASE_COST = 10
MINOR = "minor"  # a company's kind (R1's minors, engine/titles/t1825_minors.py)
#: What the site's unrecorded moves of a receiver's turn are (see `receiver_form`).
UNRECORDED = "unrecorded"


def site_par_cost(state: GameState, corp: Corporation) -> int:
    """What the site asks of a player before it offers him to start CORP (its
    director's certificate at its price): for a minor not yet priced, whose director
    will choose its price, twice the lowest par price of the index (18xx.games'
    `min_price` of a company without a par, for its 40%; a player with less is passed
    by the site unless he can do something else)."""
    if corp.spec.kind == MINOR and corp.par_price is None:
        return 2 * min(cell.price for cell in state.title.market.par_cells())
    return (corp.par_price or 0) * corp.certificates[0].percent // 10


def site_buyable(game: Game, buyer: Corporation, owner: Corporation, train: Train) -> bool:
    """Whether the site lets BUYER buy OWNER's train: our rules' answer (R1: never a
    minor's own train)."""
    return game.rules.why_not_buy_train(game.state, buyer, owner.sym, train.name,
                                        None) is None


def site_train_id(ident: str) -> str:
    """A leased train runs on the site under the bank's train's own id."""
    return ident.removesuffix(LEASED_SUFFIX)


def receiver_form(game: Game, move: Move, later: Sequence[Move], site_ids: dict[str, str]
                  ) -> dict[str, Any] | str | None:
    """A receiver's move in the site's form: the lease as `special_buy`; the purchase of
    the bank's train it must make, and the end of its turn after its run, UNRECORDED
    (the site makes both by itself, and the importer with the next company's action:
    only where one follows, LATER being the moves after this one); None for any other
    move."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None:
        return None
    corp = game.state.corporations.get(rnd.current.corporation)
    # 6.4.1: a receiver always withholds (the rules' automatic dividend).
    if corp is None or game.rules.automatic_dividend(game.state, corp) != "withhold":
        return None
    action = move.action
    if isinstance(action, LeaseTrain):
        offer = trains.next_offered(game.state)  # 6.4.3: the bank's next new train
        assert offer is not None  # the lease is legal
        site = site_ids.get(offer.id, offer.id)
        return {"type": "special_buy", "description": site.rsplit("-", 1)[0],
                "cost": SITE_LEASE_COST}
    if isinstance(action, BuyTrain) and action.source == "bank" and \
            site_buys(game, corp) and \
            len(later) > int(bool(later) and isinstance(later[0].action, Pass | Done)):
        return UNRECORDED
    if isinstance(action, Pass | Done) and rnd.current.revenue is None and \
            "route" in rnd.steps and rnd.current.step >= rnd.steps.index("route") and \
            site_runs_receiver(game, corp):
        if rnd.current.step == rnd.steps.index("route") and \
                routes.has_route(game.rules, game.state, corp):
            # The site's receiver stops at its run step where a route exists, trains
            # or none: it runs nothing there.
            return {"type": "run_routes", "routes": []}
        if later:
            # Beyond it (or with no route, where the site skips the run) its train
            # step is its own (a purchase where one fits, else nothing).
            return UNRECORDED
    if isinstance(action, Pass | Done) and rnd.current.revenue is not None and later:
        # After its run the site's receiver has no choice to make (its own purchase
        # made, if any, where one train fits): the site ends the turn by itself, our
        # pass of the train step with it.
        return UNRECORDED
    return None


def site_runs_receiver(game: Game, corp: Corporation) -> bool:
    """Whether CORP is a major in receivership (its income withheld by the rules, 6.4.1):
    the site's receiver stops at its run step with a route, trains or none (a minor in
    receivership the site passes by itself)."""
    return corp.spec.kind != MINOR and \
        game.rules.automatic_dividend(game.state, corp) == "withhold"


def site_buys(game: Game, corp: Corporation) -> bool:
    """Whether the site's receiver buys the bank's next new train by itself after its
    run: wherever it has room for it, the money and a route in the site's sense (track
    joining two stops through its base, `routes.has_route`), with trains or none: 6.4.4's
    purchase of a trainless company and more (docs/site-differences.md, 6.4.4: the
    site's receiver buys its train by itself)."""
    state = game.state
    rnd = game.round
    if not site_runs_receiver(game, corp) or (
            isinstance(rnd, OperatingRound) and rnd.current is not None
            and rnd.current.bank_trains_bought):
        return False  # (one purchase: the site's receiver's train step then ends)
    own = [t for t in corp.trains if not t.id.endswith(LEASED_SUFFIX)]
    offer = trains.next_offered(state)
    if offer is None or len(own) >= trains.train_limit(game.rules, state, corp):
        return False
    # (Its budget keeps what it owes at the end of its turn, 6.4.6: the site has taken
    # the lease already.)
    return game.rules.train_budget(state, corp) >= state.title.train(offer.name).price \
        and routes.has_route(game.rules, state, corp)


class SiteHomes:
    """The minors' home bases the site has been told of, and the round and turn last
    seen (an operating round's start and a turn's start are where the site asks)."""

    def __init__(self) -> None:
        self.placed: set[str] = set()
        self.round: object = None
        self.turn: object = None

    def at_turn(self, game: Game, city_id: Callable[[str, int], str],
                slot: Callable[[str, str], int]) -> list[dict[str, Any]]:
        """The site's choices of home city due before the move about to be rendered."""
        rnd = game.round
        if not isinstance(rnd, OperatingRound):
            self.round = self.turn = None
            return []
        due: list[Corporation] = []
        corps = game.state.corporations
        if rnd is not self.round:
            # The site's operating round places every formed company's home base.
            due = [c for c in corps.values() if c.floated]
        if rnd.current is not None and rnd.current is not self.turn and \
                rnd.current.corporation in corps:
            # The minor's own turn begins: a home whose track came during the round.
            due.append(corps[rnd.current.corporation])
        self.round, self.turn = rnd, rnd.current
        return self._choices(game, due, city_id, slot)

    def chosen(self, game: Game, move: Move) -> bool | None:
        """Whether `move` is a director's choice of his minor's home city that the site
        asks for now (its home has track: the move is the site's `place_token`, and the
        base is told of); False: one it does not ask for yet; None: no such choice."""
        if game.rules.home_default(game.state) is None or \
                not isinstance(move.action, PlaceToken):
            return None
        turn = game.rules.pending_decision(game.state)
        corp = game.state.corporations.get(turn.entity) if turn is not None else None
        if corp is None or corp.spec.home not in game.state.board.tiles:
            return False
        self.placed.add(corp.sym)
        return True

    def after_lay(self, game: Game, action: Action, sym: str,
                  city_id: Callable[[str, int], str],
                  slot: Callable[[str, str], int]) -> list[dict[str, Any]]:
        """The site's choice of home city right after the minor's own lay at home."""
        corp = game.state.corporations.get(sym)
        if not isinstance(action, LayTile) or corp is None or action.hex != corp.spec.home:
            return []
        return self._choices(game, [corp], city_id, slot)

    def _choices(self, game: Game, due: list[Corporation],
                 city_id: Callable[[str, int], str],
                 slot: Callable[[str, str], int]) -> list[dict[str, Any]]:
        out = []
        state = game.state
        for corp in due:
            home = corp.spec.home
            if corp.sym in self.placed or corp.spec.kind != MINOR or home is None \
                    or home not in state.board.tiles or corp.closed:
                continue  # not asked: a home without track yet (the site waits)
            printed = state.title.hexes[home].tile
            cities = state.board.tokens.get(home, {})
            city = next((c for c, syms in cities.items() if corp.sym in syms), None)
            if city is None and corp.spec.home_choice:
                continue  # its director has yet to choose (his choice is the site's)
            self.placed.add(corp.sym)
            if printed is None or len(printed.cities) < 2 or city is None:
                continue  # one city: the site places the base by itself
            out.append({"entity": corp.sym, "entity_type": "corporation",
                        "type": "place_token", "city": city_id(home, city),
                        "slot": slot(home, corp.sym)})
        return out


__all__ = ["LEASED_SUFFIX", "UNRECORDED", "SiteHomes", "receiver_form", "site_buyable",
           "site_par_cost", "site_train_id"]


class Forms1825(SiteForms):
    """1825 (engine/records/forms.py): receivers, one build step, share dealing rounds."""

    option_names = MappingProxyType({"site_figures": ("unit_1",)})
    one_build_step = True
    dealing_rounds = True
    receivers = True
    bankrupt_trains_removed = True

    def home_questions(self) -> SiteHomes:
        return SiteHomes()

    def site_runs_receiver(self, game: Game, corp: Corporation) -> bool:
        return site_runs_receiver(game, corp)

    def passed_nodes(self, state: GameState, walk: Walk) -> tuple[int, ...]:
        """R1's halt (tile 11) is a stop on the site's track (a town no train counts
        and only T-trains score), ours track alone: a route through it names it."""
        return rules_for(state.title.name).halts_on(state, walk)


FORMS = Forms1825()
