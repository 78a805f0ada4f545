"""The title's rules as settings and hooks over the 1830-family core.

`Rules` holds the defaults every title starts from (most of them 18TN's, which is
close to 1830). A title module subclasses it and overrides only what its rulebook
changes; see `docs/architecture.md` for which hook carries which title mechanic.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from engine import market
from engine.citations import WORDS, Cite, cite
from engine.errors import GameError, require
from engine.prices import move_token
from engine.state import (
    BANK,
    IPO,
    POOL,
    TREASURY,
    Board,
    Certificate,
    Corporation,
    GameState,
    Player,
    Private,
    Train,
    money,
)
from engine.title import PhaseSpec, TileSpec, Title

if TYPE_CHECKING:
    from engine.actions import Action, LayTile, UsePrivate
    from engine.rounds.base import Round, Turn
    from engine.walks import TrainRun, Walk


def private_tile_lay(state: GameState, corp: Corporation, action: UsePrivate
                     ) -> tuple[Private, LayTile]:
    """The private and the lay of a `use PRIVATE lay ...` order, after the checks every
    title makes: the company owns the open private and its lay is unused."""
    from engine.actions import LayTile

    private = state.privates.get(action.private)
    require(private is not None, f"there is no private {action.private}")
    assert private is not None
    require(private.owner == corp.sym, f"{corp.sym} does not own {private.sym}")
    require(not private.closed, f"{private.sym} is closed")
    require(not private.ability_used, f"{private.sym}'s tile lay has been used")
    lay = action.then
    require(isinstance(lay, LayTile), f"{private.sym}'s ability is a tile lay")
    assert isinstance(lay, LayTile)
    return private, lay


class Rules(ABC):
    """Defaults of the 1830 family; each title overrides what its rulebook changes.

    The hooks marked abstract have their defaults in `engine.family.FamilyRules`: they
    act through the mechanics and rounds, which sit above `Rules` and ask its hooks."""

    # --- stock -------------------------------------------------------------------------
    ipo_buys_at_par = True  # IPO certificates cost par, pool certificates market value
    holding_limit_percent = 60
    pool_limit_percent = 50
    sell_in_first_stock_round = False  # 18TN 3.2(a)(1)
    # 1850 5.7: a bidder who passes in an auction is out of it (18TN 3.1.1: he may bid
    # again while the auction lasts).
    auction_pass_is_final = False
    sell_after_buy = True  # 18TN 3.2: the purchase may come before or after all sales
    sell_in_blocks = False  # 1850 5.3.3: one sale per company per turn
    # 18TN 4.2.5.2(a), (d): a president's sale for the train is his contribution, after
    # which no train comes from another company.
    sale_is_contribution = True
    # The title's words and sections for the rules the core cites (engine.citations);
    # a rule the title does not map is said plainly, without a number.
    citations: ClassVar[Mapping[str, Cite]] = {}
    # The title's names for the core's terms (engine.citations.WORDS: "head",
    # "market", "offering"), where its rulebook names them differently from 18TN.
    words: ClassVar[Mapping[str, str]] = {}
    # 4.2.5.2(d) sales follow 3.2(a) (price of the moment); 1851 pays the price at the
    # start of the train purchase for every share.
    forced_sales_at_start_prices = False
    bankrupt_forfeits_cash = True  # 18TN 6.1; 1851 counts a bankrupt player's cash
    # 18TN 4.2.5.2: the president "cannot (or chooses not to)" buy from another company,
    # so only his money decides a bankruptcy; 1851 (see its decisions) counts a train
    # the company can buy from a company with the same president.
    sister_train_averts_bankruptcy = False
    # --- operating ---------------------------------------------------------------------
    yellow_lays_per_turn = 2  # 18TN 4.2(b): one or two yellow tiles, or one upgrade
    upgrades_per_turn = 1
    one_bank_train_per_turn_until: str | None = None  # train name lifting the limit
    # Whether the Open Market's trains count toward that limit (1850 10.3 limits only
    # new trains).
    pool_trains_count_as_new = True
    least_train_price = 1  # the least price of a train between companies (1825: £10)

    def __init__(self, title: Title, options: frozenset[str] = frozenset()) -> None:
        self.title = title
        self.options = options

    def cite(self, key: str, **fields: object) -> str:
        """The rule `key` of engine.citations in this title's words, with its section."""
        return cite(self.citations, key, fields, self.words)

    def word(self, key: str) -> str:
        """The title's name for the core's term `key` (engine.citations.WORDS)."""
        return self.words.get(key, WORDS[key])

    # --- set-up ------------------------------------------------------------------------
    def initial_state(self, seats: tuple[str, ...], seed: int) -> GameState:
        """Cash, certificates, privates, trains and the map as the rulebook's set-up says."""
        title = self.title
        n = len(seats)
        cash = title.starting_cash[n]
        players = {s: Player(s, cash) for s in seats}
        corporations = {
            spec.sym: Corporation(
                sym=spec.sym,
                spec=spec,
                certificates=[
                    Certificate(spec.sym, i, pct, IPO) for i, pct in enumerate(spec.shares)
                ],
                token_costs=list(spec.token_costs),
            )
            for spec in title.corporations
        }
        privates = {p.sym: Private(p.sym, p, price=p.value) for p in self.privates_in_play(n)}
        trains: list[Train] = []
        for spec in title.trains:
            count = spec.count if spec.count is not None else 99
            trains += [Train(spec.name, f"{spec.name}-{i}") for i in range(count)]
        state = GameState(
            title=title,
            seats=seats,
            players=players,
            corporations=corporations,
            privates=privates,
            market=market.StockMarket(title.market),
            board=Board(supply=dict(title.tile_manifest)),
            bank_cash=title.bank - cash * n,
            trains_offered=trains,
        )
        rng = random.Random(seed)
        self.set_up(state, rng)
        state.priority = self.first_priority(state, rng)
        return state

    def set_up(self, state: GameState, rng: random.Random) -> None:
        """What the title's set-up does beyond cash and certificates (1851 deals privates)."""

    def privates_in_play(self, players: int) -> list:  # type: ignore[type-arg]
        return list(self.title.privates)

    def first_priority(self, state: GameState, rng: random.Random) -> str:
        """2: the Priority Deal goes to a random player (seeded, so replays agree)."""
        return rng.choice(state.seats)

    @abstractmethod
    def first_round(self, state: GameState) -> Round:
        """The game's first round (the 1830 family: a stock round)."""

    # --- stock round -------------------------------------------------------------------
    def certificate_limit(self, state: GameState) -> int:
        return self.title.cert_limit[len(state.seats)]

    def exempt_from_certificate_limit(self, state: GameState, corp: Corporation) -> bool:
        """18TN 3.3(b): shares in the yellow and green zones do not count."""
        if corp.sym not in state.market.positions:
            return False
        return state.market.cell(corp.sym).zone in ("yellow", "green", "orange", "brown")

    def exempt_for_holder(self, state: GameState, corp: Corporation, seat: str) -> bool:
        """Whether `seat`'s certificates of `corp` stay outside his certificate limit: by
        default as the price's area says for everyone (1850 5.3.5 adds a seller's view)."""
        return self.exempt_from_certificate_limit(state, corp)

    def holding_limit_exempt(self, state: GameState, corp: Corporation) -> bool:
        """18TN 3.3(a): no 60% limit in the green zone."""
        if corp.sym not in state.market.positions:
            return False
        return state.market.cell(corp.sym).zone in ("green", "orange", "brown")

    def may_sell(self, state: GameState, corp: Corporation, round_number: int) -> str | None:
        """Why shares of `corp` may not be sold now, or None if they may."""
        if round_number == 1 and not self.sell_in_first_stock_round:
            return "no certificates may be sold in the first stock round"
        return None

    def start_of_stock_round(self, state: GameState, round: Round) -> None:
        """A hook for what a title does as a stock round begins (18TN: TCC discount)."""

    def may_par(self, state: GameState, corp: Corporation) -> bool:
        """Whether a player may buy this corporation's president's certificate now."""
        return True

    def why_not_par(self, state: GameState, corp: Corporation) -> str | None:
        """Why a player may not start this corporation now, or None."""
        if self.may_par(state, corp):
            return None
        return f"{corp.sym}'s {self.word('head')}'s certificate is not for sale"

    #: Whether players buy certificates from a corporation's treasury (1851's unsold
    #: shares); 1850's redeemed shares wait there for a reissue.
    treasury_shares_for_sale = True

    def default_share_source(self, state: GameState, corp: Corporation) -> str:
        """Where `buy TC` takes a certificate from when no source is named: the Initial
        Offering, else the corporation's treasury, else the Open Market."""
        for source in (IPO, TREASURY) if self.treasury_shares_for_sale else (IPO,):
            if corp.certificates_of(source):
                return source
        return POOL

    def may_buy_several(self, state: GameState, corp: Corporation, source: str) -> bool:
        """Whether several certificates may be bought at once (1850's brown zone)."""
        return False

    def private_price(self, state: GameState, private: Private, stock_round: int) -> int:
        """What the bank asks for the cheapest unsold private in this stock round."""
        return private.spec.value

    def private_sale_to_bank(self, state: GameState, private: Private) -> int:
        """What the bank pays a player for a private (1825 4.2); titles where the bank
        buys none refuse."""
        raise GameError(f"the bank buys no private companies in {state.title.name}")

    def must_take_private(self, state: GameState, seat: str, stock_round: int,
                          round: Round) -> bool:
        """Whether `seat` is forced to take the cheapest private this turn (18TN 3.1.2)."""
        return False

    def may_sell_private(self, state: GameState, private: Private) -> str | None:
        """Why a private may not be sold to another player, or None (18TN 3.2(b))."""
        return None

    def private_grants_presidency(self, state: GameState, private: Private) -> str | None:
        """The corporation whose president's certificate comes with this private, if any."""
        return None

    def after_private_par(self, state: GameState, corp: Corporation) -> None:
        """What follows setting the par value of a corporation that came with a private."""

    def private_grants_share(self, state: GameState, private: Private) -> str | None:
        """The corporation a 10% share of which comes with this private (1850's P7)."""
        return None

    def move_price(self, state: GameState, corp: Corporation, direction: str,
                   times: int = 1) -> None:
        """Move a share price token up/down/left/right (1850 has its own ledges)."""
        move_token(state, corp, direction, times)

    def move_price_after_sale(self, state: GameState, corp: Corporation, shares: int) -> None:
        """18TN 3.2(a): one space down per 10% share sold, stopping at the bottom."""
        self.move_price(state, corp, "down", shares)

    def sale_moves_price(self, state: GameState, corp: Corporation, seller: str,
                         president: str) -> bool:
        """Whether a sale moves the price at all (1861 9.1: only the Director's)."""
        return True

    # 1850 5.9: a sale's price drop waits for the president's answer after the turn.
    price_protection = False
    # 1850 5.3: a president may redeem or reissue for his company as his stock turn.
    companies_act_in_stock_rounds = False

    def least_sale_percent(self, state: GameState, seat: str, corp: Corporation) -> int:
        """The smallest sale of `corp` `seat` may make (1850 5.9.8: down to 60%)."""
        return 10

    def share_payee(self, state: GameState, corp: Corporation, source: str) -> str:
        """Who receives the money for a certificate bought from `source`: the company
        for its treasury's, else the bank."""
        return corp.sym if source == TREASURY else BANK

    def why_not_redeem(self, state: GameState, corp: Corporation, round: Round) -> str | None:
        """Why `corp` may not redeem a share in this stock round (1850 5.10)."""
        return "companies do not redeem shares in a stock round in this title"

    def why_not_redeem_from(self, state: GameState, corp: Corporation, source: str
                            ) -> str | None:
        """Why `corp` may not redeem the share of `source` (a seat or the pool)."""
        return None

    def redeem(self, state: GameState, corp: Corporation, source: str) -> None:
        """Carry out a redemption that `why_not_redeem` allowed."""
        raise GameError("companies do not redeem shares in this title")

    # 1861 10.3: a public company buys back shares from the pool at the start of its
    # operating turn (`Rules.redeem_in_turn`).
    redeems_at_turn_start = False

    def redeem_in_turn(self, state: GameState, corp: Corporation, count: int) -> None:
        raise GameError("companies do not redeem shares in this title")

    def why_not_reissue(self, state: GameState, corp: Corporation, round: Round
                        ) -> str | None:
        """Why `corp` may not reissue its redeemed shares now (1850 5.11)."""
        return "companies do not reissue shares in this title"

    def reissue(self, state: GameState, corp: Corporation) -> None:
        raise GameError("companies do not reissue shares in this title")

    def par_values(self, corp: Corporation) -> tuple[int, ...]:
        return tuple(self.title.par_values)

    def floats(self, state: GameState, corp: Corporation) -> bool:
        """18TN 3.4: a corporation floats when its float percentage has left the IPO."""
        needed = corp.spec.float_percent
        return needed is not None and 100 - corp.ipo_percent >= needed

    def float_corporation(self, state: GameState, corp: Corporation) -> None:
        """18TN 3.4: the bank pays the corporation ten times its par value."""
        assert corp.par_price is not None
        capital = corp.par_price * 10
        corp.floated = True
        state.transfer_cash(BANK, corp.sym, capital)
        state.say(f"{corp.sym} floats and receives {money(state, capital)}")

    def end_of_stock_round(self, state: GameState) -> None:
        """18TN 3.6: every corporation whose shares are all held by players moves up."""
        sold_out = [
            c for c in state.corporations.values()
            if c.par_price is not None and c.sym in state.market.positions
            and c.ipo_percent == 0 and c.pool_percent == 0
            and sum(c.percent_held_by(s) for s in state.seats) == 100
        ]
        for corp in sorted(sold_out, key=lambda c: state.market.order_key(c.sym)):
            self.move_price(state, corp, "up")

    # --- auctions (rounds/auction_stock.py: 1861 9.2, 9.4) ---------------------------------
    auction_increment = 5  # bids rise by multiples of this

    def opening_lots(self, state: GameState, round: Round) -> list[str]:
        """Items auctioned one by one, in this order, before anything else is done."""
        return []

    def lower_opening_minimum(self, state: GameState, item: str) -> bool:
        """A full round of passes on an opening lot: lower its minimum; True when it
        reached nothing and goes free to the player who began the passes."""
        raise GameError(f"{item} has no minimum to lower")

    def auction_items(self, state: GameState) -> list[str]:
        """What a player may put up for auction on a stock turn."""
        return []

    def auction_target(self, state: GameState, name: str) -> str:
        """The symbol of an item named in an order (any spelling the title accepts)."""
        return name

    def auction_minimum(self, state: GameState, target: str) -> int:
        """The least opening bid on `target`."""
        raise GameError(f"{target} is not sold by auction")

    def why_not_propose(self, state: GameState, seat: str, target: str) -> str | None:
        """Why `seat` may not put `target` up for auction now, or None."""
        return f"nothing is sold by auction in {state.title.name}"

    def win_auction(self, state: GameState, seat: str, target: str, price: int) -> None:
        """Give `target` to the auction's winner for `price`."""
        raise GameError(f"{target} is not sold by auction")

    def seat_after_auction(self, state: GameState, winner: str, proposer: str) -> str:
        """9.2: the next turn is the player after the winner."""
        return state.next_seat(winner)

    def home_choices(self, state: GameState, sym: str) -> list[str]:
        """Hexes where a company just started by its Director may put its home station
        (1861 9.3); empty: it has a fixed home or none to choose."""
        return []

    def place_home(self, state: GameState, corp: Corporation, hex_id: str,
                   city: int | None) -> None:
        raise GameError(f"{corp.sym} does not choose its home")

    # --- merger rounds (rounds/merger.py: 1861 12) ----------------------------------------
    def merger_candidates(self, state: GameState) -> list[str]:
        """The companies asked in a merger round, in the order they are asked."""
        return []

    def merger_options(self, state: GameState, sym: str) -> list[str]:
        """What the owner of `sym` may do in a merger round, as order texts."""
        return []

    def merger_candidate_actions(self, state: GameState, sym: str) -> list[Action]:
        """The conversions and mergers `engine.legal` tries for the company `sym`."""
        return []

    def merger_alias(self, state: GameState, name: str) -> str:
        """The symbol of a company named in a merger order."""
        return name

    def convert(self, state: GameState, minor: str, into: str | None, round: Round) -> str:
        """Convert `minor` into the company `into`; returns the company formed."""
        raise GameError(f"{minor} cannot convert in {state.title.name}")

    def merge(self, state: GameState, minors: tuple[str, ...], into: str, round: Round,
              stations: tuple[str, ...] = ()) -> str:
        """Merge `minors` to form `into`, taking the stations of `stations` (when there
        is a choice); returns the company formed."""
        raise GameError(f"{', '.join(minors)} cannot merge in {state.title.name}")

    def after_formation(self, state: GameState, corp: Corporation, round: Round) -> None:
        """Once the shares of a company just formed have been dealt."""

    # --- operating rounds ---------------------------------------------------------------
    def operating_rounds_after_stock_round(self, state: GameState) -> int:
        """7: as many operating rounds as the current phase says; one once the end is near."""
        if state.end_triggered:
            return 1
        return self.phase(state).operating_rounds

    def phase(self, state: GameState) -> PhaseSpec:
        return self.title.phases[state.phase_index]

    def operating_order(self, state: GameState, done: set[str]) -> str | None:
        """4(b): the floated corporation with the highest share price goes next."""
        waiting = [
            c.sym for c in state.corporations.values()
            if c.floated and not c.closed and c.sym not in done
        ]
        if not waiting:
            return None
        return min(waiting, key=state.market.order_key)

    def pay_privates(self, state: GameState) -> None:
        """4.1: each private pays its fixed revenue to its owner."""
        for private in state.privates.values():
            if private.closed or private.owner is None or not private.spec.revenue:
                continue
            state.transfer_cash(BANK, private.owner, private.spec.revenue)
            state.say(f"{private.sym} pays {money(state, private.spec.revenue)} "
                      f"to {private.owner}")

    @abstractmethod
    def next_round(self, state: GameState, finished: Round) -> Round | None:
        """The round after `finished`: a set of operating rounds follows each stock round."""

    @abstractmethod
    def new_stock_round(self, state: GameState) -> Round:
        """A title's own stock round where it has one (1825's share dealing round)."""

    @abstractmethod
    def start_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """4.2(a): on its first turn a company places its home station, free."""

    def idle_turn(self, state: GameState, corp: Corporation) -> str | None:
        """Why `corp` does nothing in its turn now (no track, base, run or train: its
        income is nil and settles at once, as the title's dividend rules say); None: it
        operates (1825 R1: a minor without a director)."""
        return None

    def end_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """A hook for what happens when a company's turn ends."""

    def end_of_operating_round(self, state: GameState, round: Round) -> None:
        """A hook for what happens when an operating round ends."""

    def start_of_operating_round(self, state: GameState, round: Round) -> None:
        """What happens after the privates pay, before the first company operates
        (1825 5.1.2: companies form)."""

    def train_purchase_forced(self, state: GameState, corp: Corporation) -> bool:
        """Whether a company with a route and no train must buy one, with its president's
        money if need be (4.2.5.2); 1825 never forces a purchase (5.6)."""
        return True

    def tile_lay_kind(self, state: GameState, hex_id: str, kind: str) -> str:
        """Whether a lay counts as a "yellow" lay or an "upgrade" (1825 5.2: the first
        tile on a preprinted hex without track is a lay)."""
        return kind

    def why_not_lay_in_turn(self, state: GameState, corp: Corporation, hex_id: str,
                            kind: str, laid: tuple[str, ...]) -> str | None:
        """A title's limits on a lay given the hexes laid this turn (1825 5.2.1: two lays
        not adjacent to each other)."""
        return None

    def why_not_walk(self, state: GameState, corp: Corporation, train: Train, walk: Walk
                     ) -> str | None:
        """Why a declared route is not a legal route of the title (1825 5.5.2: it begins
        and ends at large stations), or None."""
        return None

    def tile_lays(self, state: GameState, corp: Corporation) -> tuple[int, int]:
        """(yellow tiles, upgrades) a company may lay this turn: one or the other."""
        return self.yellow_lays_per_turn, self.upgrades_per_turn

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        """A title's own restrictions on a tile lay (reserved hexes, special tiles)."""
        return None

    def why_not_reached(self, state: GameState, corp: Corporation, hex_id: str,
                        tile: TileSpec, rotation: int) -> str | None:
        """A title's own connection rule for a lay, beside new track or a city reached
        (1825 5.2.4: a promotion adds track the company reaches or raises a route);
        judged with the connection (`board.check_lay`'s `need_connection`)."""
        return None

    def upgrade_cost(self, state: GameState, hex_id: str, tile: TileSpec) -> int:
        """What laying `tile` on `hex_id` costs beyond the terrain paid on its first
        tile (1861 10.4: Kiev's upgrade to brown)."""
        return 0

    def after_lay(self, state: GameState, corp: Corporation, hex_id: str, tile: str) -> None:
        """What a tile lay sets off (1861 7.4: the RSR's station on grey Moscow)."""

    def stock_candidates(self, state: GameState, seat: str) -> list[Action]:
        """Stock-round actions a title adds to `legal_actions`' candidates (1825: privates
        bought from and sold to the bank)."""
        return []

    def token_cost(self, state: GameState, corp: Corporation, hex_id: str) -> int:
        """What the next station token costs (the charter prints it)."""
        return corp.token_costs[0] if corp.token_costs else 0

    def token_price_text(self, state: GameState, corp: Corporation) -> str:
        """The next station's price as `legal` states it (a title pricing by hex says
        how: 1861 10.5)."""
        cost = corp.token_costs[0] if corp.token_costs else 0
        return f"costs {money(state, cost)}" if cost else "free"  # (1851: every one)

    def why_not_place_token(self, state: GameState, corp: Corporation) -> str | None:
        """Why `corp` places no station token in its turn at all (1861 10: the RSR)."""
        return None

    def use_private(self, state: GameState, corp: Corporation, action: UsePrivate,
                    round: Round) -> None:
        """A private's special ability, used by the company owning it."""
        raise GameError(f"{action.private} has no ability the engine can use here")

    def place_edge_token(self, state: GameState, corp: Corporation, hex_id: str) -> None:
        """An edge token on an off-board area (1850 7.4)."""
        raise GameError(f"`edge token` is not available in {state.title.name}: it has no "
                        "edge tokens")

    def pay_mesabi(self, state: GameState, corp: Corporation) -> None:
        """Buy the rights to run to the Mesabi Range (1850 6.5.1)."""
        raise GameError(f"`pay mesabi` is not available in {state.title.name}: it has no "
                        "Mesabi Range")

    half_dividends = False

    # Whether the one order offered at a dividend step is the automatic dividend (1861
    # 10.7: a minor's nil earnings; whatever the order says, the rule settles them).
    offers_only_automatic_dividend = False

    def automatic_dividend(self, state: GameState, corp: Corporation) -> str | None:
        """How a company's revenue is settled without its president's choice (1861's
        minors pay half to their owner), or None: the president chooses."""
        return None

    def why_not_lay_count(self, state: GameState, corp: Corporation, kind: str,
                          hex_id: str, yellow_lays: int, upgrades: int,
                          lay_hexes: tuple[str, ...]) -> str | None:
        """Whether the company may lay one more tile of `kind` ("yellow" or "upgrade")
        after the lays made this turn: by `tile_lays`, yellow tiles or upgrades, not
        both (1861: a second lay of either kind for a fee, one upgrade at most)."""
        yellow, ups = self.tile_lays(state, corp)
        if kind == "yellow":
            ok = upgrades == 0 and yellow_lays < yellow
        else:
            ok = yellow_lays == 0 and upgrades < ups
        if ok:
            return None
        return (f"{corp.sym} may lay {yellow} yellow tile(s) or {ups} upgrade per turn; "
                "it has used its tile lays")

    def max_loans(self, state: GameState, corp: Corporation) -> int:
        """How many loans `corp` may have (engine.loans; 1861 10.2); 0: no loans."""
        return 0

    def loan_terms(self, state: GameState) -> tuple[int, int]:
        """A loan's value and its interest per operating round (1861: R50, R5)."""
        return 0, 0

    def loan_answer(self, state: GameState, corp: Corporation, action: Action) -> str:
        """The answer to `take loan` / `repay loan`."""
        what = action.kind.replace("_", " ")
        return f"`{what}` is not available in {state.title.name}: it has no loans"

    def afford(self, state: GameState, corp: Corporation, amount: int, purpose: str) -> None:
        """Before `corp` pays `amount` for `purpose` ("track", "train"): a title may
        raise the money first (1861 10.2 takes loans)."""

    @abstractmethod
    def check_sale(self, state: GameState, seat: str, corp: Corporation, percent: int
                   ) -> None:
        """Raise when the sale is refused (18TN 3.2(a); 1825 4.4 lets the director's
        certificate go to the pool)."""

    def director_of(self, state: GameState, corp: Corporation) -> str:
        """Who decides for `corp` outside its turn (a discard): its president; 1825 6.4:
        a company in receivership, its receiver."""
        return corp.president or ""

    def charter_notes(self, state: GameState, corp: Corporation) -> tuple[str, ...]:
        """What reports say is marked on the company's charter (18TN's Civil War,
        1850's Mesabi rights, ...): its markers, unless a title words them."""
        return tuple(sorted(corp.markers))

    def position_notes(self, state: GameState) -> list[str]:
        """Lines a title adds to the reports' position (1825: the bank's new shares on
        sale, a vote under way)."""
        return []

    def train_sets(self, state: GameState, corp: Corporation) -> list[list[Train]]:
        """The ways `corp`'s trains may run this turn, each a list of trains (1825
        5.5.5: two 2-trains double-headed count as one `2+2`); the first is the trains
        one by one."""
        return [list(corp.trains)]

    def hold_for_vote(self, state: GameState, corp: Corporation, seat: str,
                      action: Action, round: Round) -> bool:
        """Whether the operating company's action waits for the other players' vote
        (1825 6.4.5: the veto of a receiver who is also a director)."""
        return False

    def company_action(self, state: GameState, corp: Corporation, seat: str,
                       action: Action, round: Round) -> bool:
        """A title's own order of the operating company, carried out: True (1825 5.6.5:
        a train offered to another company, and the answer to such an offer)."""
        return False

    def train_sale_agreed(self, state: GameState, buyer: Corporation, seller: Corporation,
                          name: str, price: int) -> bool:
        """Whether the seller's director already agreed to this sale (1825 5.6.5: his
        standing offer, used up by the purchase), so he is not asked again."""
        return False

    def resolve_order(self, state: GameState, round: Round, action: Action) -> Action:
        """The action an order stands for, as the log keeps it (1825 5.6.5: the buyer's
        `accept` of a train offered to its company is its purchase)."""
        return action

    def turn_extras(self, state: GameState, corp: Corporation, round: Round) -> list[str]:
        """Order texts a title adds to any step of a company's turn (1825 5.6.5)."""
        return []

    def turn_candidates(self, state: GameState, corp: Corporation) -> list[Action]:
        """Candidate actions behind `turn_extras`, for the list of legal actions."""
        return []

    def route_step_extras(self, state: GameState, corp: Corporation) -> list[str]:
        """Order texts a title adds before the run (1825 6.4.3: the lease)."""
        return []

    def why_not_run(self, state: GameState, corp: Corporation) -> str | None:
        """Why `corp` may not run (or skip running) yet: 1825 6.4.3, a receiver must
        first lease a train that improves the income."""
        return None

    def lease_train(self, state: GameState, corp: Corporation, ran: bool) -> None:
        """A company leases a train for its run (1825 6.4.3)."""
        raise GameError(f"`lease train` is not available in {state.title.name}: only "
                        "1825's receivers lease trains")

    def why_not_buy_train(self, state: GameState, corp: Corporation, source: str,
                          name: str, price: int | None) -> str | None:
        """Why `corp` may not buy this train (1825 6.4.4: a company in receivership
        buys only the bank's next new train)."""
        return None

    @abstractmethod
    def cheapest_train(self, state: GameState) -> tuple[Train, int, str] | None:
        """The cheapest train a company may buy from the bank (4.2.5.2(a)): of those the
        Initial Offering offers now (`offered_trains`: its next one; 1861 10.10 in phase
        8 also a 2+2; 1850 16.2 a diesel) or one of the Open Market."""

    def must_buy_train(self, state: GameState, corp: Corporation) -> bool | None:
        """Whether `corp` must buy a train before its turn ends; None: the 1830 rule (a
        route, no train, a train left; the president helps pay)."""
        return None

    def offered_trains(self, state: GameState) -> list[Train]:
        """The trains a company may buy from the Initial Offering: the next one."""
        return state.trains_offered[:1]

    def trade_ins(self, state: GameState, corp: Corporation, new: str) -> dict[str, int]:
        """The trains of `corp` it may trade in for a `new` one, with their credit."""
        return {}

    def trade_in(self, state: GameState, corp: Corporation, new: str, old: str) -> int:
        """Take `corp`'s `old` train in part payment for a `new` one from the bank and
        return the credit (1850 16.2's diesels); titles without trade-ins refuse."""
        raise GameError(f"{state.title.name} has no trade-in of trains")

    def train_budget(self, state: GameState, corp: Corporation) -> int:
        """What `corp` may spend on a train from the bank (1861: with loans)."""
        return corp.cash

    def track_budget(self, state: GameState, corp: Corporation) -> int:
        """What `corp` may spend on a tile lay (1861 10.2: with the loans `afford` takes)."""
        return corp.cash

    president_contributes = True  # 18TN 4.2.5.2; 1861 10.10: loans instead

    def pending_decision(self, state: GameState) -> Turn | None:
        """A decision the title asks for before play goes on (1861 11: a Director
        whether to nationalise his trainless company), or None."""
        return None

    def decision_options(self, state: GameState) -> list[str]:
        return []

    def decision_candidates(self, state: GameState) -> list[Action]:
        return []

    def decide(self, state: GameState, seat: str, action: Action, round: Round) -> None:
        raise GameError("nothing is to be decided now")

    def home_default(self, state: GameState) -> Action | None:
        """Where the pending decision is a director's choice of his company's home city
        (`CorporationSpec.home_choice`): the choice made for him if he makes none (a
        deadline's default; a record that asks him later). None otherwise."""
        return None

    def nationalised_shares(self, state: GameState, corp: Corporation, seat: str) -> int:
        """How many shares `seat` is paid for when `corp` is nationalised."""
        return corp.percent_held_by(seat) // 10

    def after_dividend(self, state: GameState, corp: Corporation, round: Round) -> None:
        """Once a company's revenue is settled (1861 10.8, 10.9: loan interest and
        repayment)."""

    def lay_fee(self, state: GameState, corp: Corporation, lays_made: int) -> int:
        """What the company pays the bank for a lay after `lays_made` this turn."""
        return 0


    @abstractmethod
    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """4.2.4: pay out (price right) or withhold (price left)."""

    def dividend_choices(self, state: GameState, corp: Corporation, revenue: int
                         ) -> list[str]:
        """The answers to a company's revenue, as order texts (1825 6.3 may forbid
        withholding)."""
        auto = self.automatic_dividend(state, corp)
        if auto is not None and self.offers_only_automatic_dividend:
            return ["pay" if auto == "payout" else auto]
        return ["pay", "withhold"] + (["half"] if self.half_dividends else [])

    def closes_on_withholding(self, state: GameState, corp: Corporation) -> bool:
        """Whether withholding would close the company (1850's black area): its turn
        then ends at the dividend."""
        return False

    def why_not_train_price(self, state: GameState, buyer: Corporation, seller: Corporation,
                            train: Train, price: int) -> str | None:
        """Limits on the price of a train sold between companies (18TN: any, at least $1)."""
        return None

    def hexes_closed_to_routes(self, state: GameState, corp: Corporation | None = None
                               ) -> frozenset[str]:
        """Hexes whose track `corp`'s trains may not use (1851's Birmingham before phase
        4; 1850's Mesabi Range without the rights)."""
        return frozenset()

    def halts_on(self, state: GameState, walk: Walk) -> tuple[int, ...]:
        """The places in `walk.hexes` where a route passes a halt: a stop no train
        counts (1825 R1's tile 11; none elsewhere)."""
        return ()

    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        """What one train earns on a walk: the sum of its stops' values."""
        return sum(values)

    #: Whether `route_revenue` depends on the set of a walk's stops alone (not their
    #: order, nor the track or hexes between them): the optimizer then values each set
    #: once, on a walk holding only the stops (no segments, no hexes).
    route_revenue_by_stops: ClassVar[bool] = False

    def run_revenue(self, state: GameState, corp: Corporation, runs: tuple[TrainRun, ...]
                    ) -> int:
        """What all the company's trains earn together (title bonuses hook in here)."""
        return sum(r.revenue for r in runs)

    def run_revenue_only_falls(self) -> bool:
        """Whether `run_revenue` never pays more than its routes earn together (a title
        may take revenue away, never add): the optimizer may then bound a run by the sum
        of its routes. A title that overrides `run_revenue` says so itself."""
        return type(self).run_revenue is Rules.run_revenue

    @abstractmethod
    def may_buy_another_bank_train(self, state: GameState, bought_this_turn: int) -> bool:
        """4.2.5(f): one train from the bank per turn until the limit is lifted."""

    def why_not_buy_private(self, state: GameState, corp: Corporation, private: Private,
                            price: int, round: Round) -> str | None:
        """Whether a company may buy a private from a player now, at this price."""
        return "companies cannot buy privates in this title"

    operating_steps: tuple[str, ...] = (
        "track", "token", "route", "dividend", "train", "privates")

    def step_available(self, state: GameState, corp: Corporation, step: str,
                       round: Round) -> bool:
        """Whether a title's own end-of-turn step has anything to offer now."""
        return False

    def step_options(self, state: GameState, corp: Corporation, step: str,
                     round: Round) -> list[str]:
        """What a title's own step offers, as order texts (for reports)."""
        return []

    def step_action(self, state: GameState, corp: Corporation, step: str, action: Action,
                    round: Round) -> None:
        """Carry out an action of a title's own operating step (1851's issue/redeem)."""
        raise GameError(f"{step} is not a step of {state.title.name}")

    def step_extras(self, state: GameState, corp: Corporation, step: str, round: Round
                    ) -> list[str]:
        """Order texts a title adds to the track or token step (1850: the Mesabi rights,
        the privates' lays, the edge token)."""
        return []

    def private_lays_tiles(self, state: GameState, private: Private) -> bool:
        """Whether a private still gives its owning company a tile lay."""
        return bool(private.spec.tiles) and not private.ability_used

    def private_lay_hexes(self, state: GameState, private: Private) -> frozenset[str] | None:
        """Where a private's tile lay may go: its own hexes (18TN), or None for any hex
        the company reaches (1850's Gant Brothers)."""
        return frozenset(private.spec.hexes)

    def after_private_sold(self, state: GameState, private: Private, buyer: str) -> None:
        """What a private brings its new owner beyond itself (1850's Mesabi token)."""

    def offer_privates_at_end_of_turn(self, state: GameState, corp: Corporation) -> bool:
        """Whether passing the train step stops at a last chance to buy privates."""
        return True

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """What a phase does beyond the data (privates closing, the Civil War)."""

    def on_trains_removed(self, state: GameState, corp: Corporation, gone: list[Train]
                          ) -> None:
        """A hook for trains a company just lost to rust (18TN 8(c) pays salvage)."""

    def bankruptcy(self, state: GameState, seat: str, corp: Corporation) -> None:
        """4.2.5.2/6(c): the president cannot raise the money: the game ends at once."""
        player = state.player(seat)
        player.bankrupt = True
        state.say(f"{seat} is bankrupt")
        self.end_game(state, "bankruptcy")

    # --- game end ----------------------------------------------------------------------
    def check_end(self, state: GameState) -> None:
        """Called after every action: note a game end that completes a round first."""

    def game_ends_after_operating_round(self, state: GameState, round: Round) -> bool:
        """6(a),(b): a triggered end completes the current operating round."""
        return state.end_triggered is not None

    def end_game(self, state: GameState, reason: str) -> None:
        state.game_over = True
        state.end_reason = reason
        state.say(f"The game ends ({reason})")

    def scores(self, state: GameState) -> dict[str, int]:
        """6.1: cash, shares at market value, privates at par value."""
        out: dict[str, int] = {}
        for seat, player in state.players.items():
            value = 0 if player.bankrupt and self.bankrupt_forfeits_cash else player.cash
            for corp in state.corporations.values():
                pct = corp.percent_held_by(seat)
                if pct and corp.sym in state.market.positions:
                    value += state.market.price(corp.sym) * pct // 10
            value += sum(p.spec.value for p in state.privates.values()
                         if p.owner == seat and not p.closed)
            out[seat] = value
        return out
