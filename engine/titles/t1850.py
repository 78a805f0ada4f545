"""1850: The MidWest (Bill Dixon): what its rulebook changes in the core.

Section numbers refer to shared/rules/1850.md. The game is closest to 1870: a
market with ledges and coloured areas (5.1, 5.8), share price protection (5.9),
redemption and reissue of shares (5.10, 5.11), edge tokens (7.4) and the Mesabi
Range (6.5.1).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from engine import board, market, track
from engine.actions import Action, SellShares, UsePrivate
from engine.citations import PLAIN, Cite
from engine.dividends import pay_out, withhold
from engine.errors import GameError, require
from engine.family import FamilyRules
from engine.prices import place_token
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.rules import private_tile_lay
from engine.shares import remove_from_game
from engine.state import BANK, IPO, POOL, TREASURY, Corporation, GameState, Private, Train, money
from engine.tiles import exits
from engine.title import MarketSpec, PhaseSpec, TileSpec, Title, TrainSpec
from engine.title.loading import derived_title

if TYPE_CHECKING:
    from engine.market import Position
    from engine.rounds.base import Round
    from engine.walks import Walk

GREAT_RIVER = "GRSC"  # P1: its price falls while the privates stay unsold (5.7)
CREDIT_MOBILIER = "CM"  # P2
RIVER_BRIDGE = "MRB"  # P3
GANT_BROTHERS = "GBC"  # P4
MESABI_MINING = "MRC"  # P5
LAND_GRANT = "WLG"  # P6
MISSISSIPPI_MISSOURI = "MMR"  # P7: comes with a share of the Rock Island (3.1, 15.2)
ROCK_ISLAND = "RI"
UNION_PACIFIC = "UP"
ST_LOUIS = "L13"
MESABI_RANGE = "A10"
CHICAGO = "I18"
NORTH_WEST, EAST = 2, 4  # pointy layout edges (shared/reference/SCHEMA.md)
PHASE_2_SALEABLE = (RIVER_BRIDGE, MESABI_MINING)  # 4.2.1, 11.1
CLOSE_AT_5 = (GREAT_RIVER, RIVER_BRIDGE, MESABI_MINING, MISSISSIPPI_MISSOURI)  # 4.2.4
PRIVATE_LAYS = {  # 15.2: what each private's extra yellow lay is
    CREDIT_MOBILIER: "one extra yellow tile west of the Mississippi",
    RIVER_BRIDGE: "a free yellow tile in St. Louis",
    GANT_BROTHERS: "an extra yellow tile for $30",
    LAND_GRANT: "an extra yellow tile, three in all, two west of the Mississippi",
}
CAPITAL_DUE = "capital due at the end of the stock round"  # 5.6.4
MESABI = "Mesabi rights"  # may run to the Mesabi Range (6.5.1)
MESABI_PRICE = 80
EDGE_TOKEN = "edge token"  # its edge token lies on its red area (7.4)
REISSUED = "reissued"
WLG_ANYWHERE = "WLG lay east of the Mississippi used"  # P6: one lay anywhere (15.2)
GANT_BROTHERS_FEE = 30  # its Initial Offering holds reissued shares, which pay it (5.11)

OPTIONS = {
    "finish_on_400": "16.1: the game ends when a share price reaches $400",
    "reduced_tokens": "16.3: the CB&Q and CRI&P have one $100 station fewer",
    "historical_order": "16.4: companies start in the order they commenced construction",
    "diesels": "16.2: no 8- or 10-trains; 12-trains are 1830 diesels, on sale from the "
               "first 6-train, a train traded in for $300",
}
DIESEL = "12"  # 16.2: the 12-trains are the diesels
DIESEL_TRADE_IN = 300
TRADED_IN = ("4", "5", "6")  # 16.2 with 1830's trade-in: "a train", the 4-train included
# 16.4: the order of the historical start (the Missouri Pacific shares 1851 with the
# Rock Island and follows it, as the rulebook lists them).
HISTORICAL_ORDER = ("CBQ", "MILW", "RI", "MP", "GN", "NP", "KATY", "UP", "SOO")


# The core's rules in 1850's words and sections (engine.citations).
CITATIONS: Mapping[str, Cite] = {
    "track_connects": Cite("{corp} cannot reach the new track on {hex}: the company must "
                           "be able to run on some of the new track on the tile", "6"),
    "station_space_kept": Cite("no free station space in {hex}: in a starting city for a "
                               "railway that has not yet started, a company cannot use the "
                               "last tokening space", "7.3.1"),
    "station_connects": Cite("{corp} cannot trace a valid train route from one of its "
                             "station tokens to {hex}", "7.3.1"),
    "separate_tracks": Cite("these routes share track: a train may not use a section of "
                            "track that another of the company's trains has used", "8.1"),
    "bank_train_limit": Cite("{corp} has bought its new train from the bank this turn: a "
                             "company may purchase one new train a turn from the bank",
                             "10.3"),
    "cheapest_with_president": Cite("once the president contributes, the railway must buy "
                                    "the cheapest train available from the open market or "
                                    "the bank: the {train}-train for {price}", "10.7"),
    "contribution": Cite("{president} contributes to {corp}'s train: once the president "
                         "contributes to the purchase price of a train, the railway must "
                         "buy the cheapest train available from the open market or the bank "
                         "and may not buy a train from another company", "10.7"),
    "forced_sale": Cite("{seat} may sell only enough to raise {need}: he may only sell "
                        "enough shares to buy the train", "10.7.2"),
    "own_sale_stands": Cite("{seat}'s sale of {percent}% of {corp} stands: the president "
                            "protects a price by buying from the seller, and the seller is "
                            "the president", "5.9"),
    "own_sale_closes": Cite("{seat}'s {lost} is lost with {corp}: all money including that "
                            "for all share sales and the president's personal funds are "
                            "lost", "10.7.2"),
    "forced_train": Cite("{corp} has a legal route and no train: it \"must own a train and "
                         "is forced to purchase one\"", "10.1"),
    "forced_train_bankrupt": Cite("{corp} must buy a train, and {president} cannot raise "
                                  "enough money through stock sales: he is bankrupt, and "
                                  "`done` declares it", "10.7.2"),
    "closes_on_withholding": Cite("{corp} closes when it withholds, its share price token "
                                  "entering the black area: it never reaches its train "
                                  "step, so no train is forced on it", "5.1.1"),
    "sales_one_side": Cite("a player may sell and then buy a single certificate, or first "
                           "buy and then sell: sales must all come before or all after the "
                           "purchase", "5.3.4"),
    "one_block": Cite("{seat} has sold {corp} {when}: if a player sells more than one "
                      "share in a company he must sell them in one block", "5.3.3"),
    "no_buy_back": Cite("{seat} sold {corp} this round and may not buy another share of it "
                        "until after the next set of operating rounds", "5.3.3"),
    "over_limit_buy": Cite(PLAIN["over_limit_buy"], "5.4.1"),
    "over_limit_pass": Cite(PLAIN["over_limit_pass"], "5.4.1"),
    "more_from_open_market": Cite("only more shares of {corp} from the Open Market may be "
                                  "bought this turn: in the brown area a player may buy "
                                  "shares of one company from the Open Market, those in the "
                                  "initial offering one at a time", "5.1.1"),
    "company_whole_turn": Cite("when the president acts for his company, he may not "
                               "perform any other action for himself that turn", "5.3"),
    "redeem_one": Cite("a company redeems its shares one at a time", "5.10.1"),
    "redeem_ask": Cite(PLAIN["redeem_ask"], "5.10.4"),
    "redeem_refused": Cite(PLAIN["redeem_refused"], "5.10.4"),
    "redeem_open_market_first": Cite(PLAIN["redeem_open_market_first"], "5.10.3"),
    "redeem_name_holder": Cite(PLAIN["redeem_name_holder"], "5.10.3"),
    "redeemed_not_for_sale": Cite(PLAIN["redeemed_not_for_sale"], "5.10.9, 5.11"),
    "protects": Cite(PLAIN["protects"], "5.9"),
    "protect_first": Cite(PLAIN["protect_first"], "5.9"),
}


class Rules1850(FamilyRules):
    citations = CITATIONS
    sell_in_first_stock_round = False  # 5.7: no sales in the initial stock round

    def __init__(self, title: Title, options: frozenset[str] = frozenset()) -> None:
        unknown = sorted(options - set(OPTIONS))
        if unknown:
            known = "; ".join(f"{name} ({what})" for name, what in OPTIONS.items())
            raise GameError(f"1850 has no option {', '.join(unknown)}; its options are: "
                            f"{known}")
        super().__init__(derived_title(title, "diesels", with_diesels)
                         if "diesels" in options else title, options)
    half_dividends = True  # 9.1.2
    yellow_lays_per_turn = 1  # 6: one yellow tile or one upgrade

    def set_up(self, state: GameState, rng: random.Random) -> None:
        """16.3 (option): the CB&Q and CRI&P have one $100 station fewer."""
        if "reduced_tokens" in self.options:
            for corp in state.corporations.values():
                if corp.token_costs.count(100) > 1:
                    corp.token_costs.remove(100)

    # --- 5.7: the initial stock round ---------------------------------------------------
    auction_pass_is_final = True  # 5.7: "after all other participating players have passed"

    def private_price(self, state: GameState, private: Private, stock_round: int) -> int:
        """5.7: each time every player passes before the privates are sold, P1 costs
        $5 less."""
        if private.sym == GREAT_RIVER:
            return max(0, private.spec.value - 5 * (stock_round - 1))
        return private.spec.value

    def must_take_private(self, state: GameState, seat: str, stock_round: int,
                          round: Round) -> bool:
        """5.7: at $0 the priority holder must take P1 as his only action."""
        p1 = state.privates[GREAT_RIVER]
        return (p1.owner is None and not p1.closed and seat == state.priority
                and self.private_price(state, p1, stock_round) == 0)

    def private_grants_share(self, state: GameState, private: Private) -> str | None:
        """3.1: a share of the CRI&P lies with P7 and goes to its buyer."""
        return ROCK_ISLAND if private.sym == MISSISSIPPI_MISSOURI else None

    # --- 5.6: starting and floating a company ------------------------------------------
    def may_par(self, state: GameState, corp: Corporation) -> bool:
        """16.4 (option): a company may start once every company before it in the
        historical order has sold six shares from its Initial Offering."""
        if "historical_order" not in self.options or corp.sym not in HISTORICAL_ORDER:
            return True
        before = HISTORICAL_ORDER[:HISTORICAL_ORDER.index(corp.sym)]
        return all(self.floats(state, state.corporations[sym]) for sym in before
                   if not state.corporations[sym].closed)

    def why_not_par(self, state: GameState, corp: Corporation) -> str | None:
        if self.may_par(state, corp):
            return None
        waiting = [sym for sym in HISTORICAL_ORDER[:HISTORICAL_ORDER.index(corp.sym)]
                   if not self.floats(state, state.corporations[sym])]
        have = "has" if len(waiting) == 1 else "have"
        return f"{corp.sym} starts after {', '.join(waiting)} {have} sold six shares " \
               "(16.4, historical order start)"

    def floats(self, state: GameState, corp: Corporation) -> bool:
        """5.6.2: six shares sold from the Initial Offering (P7's share counts)."""
        return corp.par_price is not None and 100 - corp.ipo_percent >= 60

    def float_corporation(self, state: GameState, corp: Corporation) -> None:
        """5.6.4: ten times par, paid at the end of the stock round of the sixth share."""
        corp.floated = True
        corp.markers.add(CAPITAL_DUE)
        state.say(f"{corp.sym} has sold six shares: it receives its capital at the end "
                  "of this stock round")

    def end_of_stock_round(self, state: GameState) -> None:
        """5.6.4 capital, then 5.2.3: companies all sold move up, highest price first."""
        for corp in state.corporations.values():
            if CAPITAL_DUE not in corp.markers:
                continue
            corp.markers.discard(CAPITAL_DUE)
            assert corp.par_price is not None
            capital = corp.par_price * 10
            if state.bank_cash < capital:
                self.bank_breaks(state)
            state.transfer_cash(BANK, corp.sym, capital)
            state.say(f"{corp.sym} receives its capital, {money(state, capital)}")
        sold_out = [
            c for c in state.corporations.values()
            if c.par_price is not None and not c.closed and c.sym in state.market.positions
            and c.ipo_percent == 0 and c.pool_percent == 0
        ]
        for corp in sorted(sold_out, key=lambda c: state.market.order_key(c.sym)):
            self.move_price(state, corp, "up")
        self.end_of_stock_round_checks(state)

    # --- 5.3.3, 5.9: sales and share price protection ----------------------------------
    price_protection = True
    sell_in_blocks = True
    # 10.7 bars another company's train "once the president contributes to the purchase
    # price"; a sale alone contributes nothing to a price yet, and the site lets the
    # company buy another company's train after one (kept games random-4-6, -23, ...).
    sale_is_contribution = True
    treasury_shares_for_sale = False  # 5.10.9: redeemed shares wait for a reissue (5.11)
    companies_act_in_stock_rounds = True  # 5.3, 5.10, 5.11

    def may_buy_several(self, state: GameState, corp: Corporation, source: str) -> bool:
        """5.1.1 BROWN AREA: any number from the Open Market in one turn."""
        return source == POOL and corp.sym in state.market.positions and \
            state.market.cell(corp.sym).zone == "brown"

    def least_sale_percent(self, state: GameState, seat: str, corp: Corporation) -> int:
        """5.9.8, 10.7.2: a holder above 60% (by protection) who sells must sell down to
        60% unless the price is in the green or brown area."""
        held = corp.percent_held_by(seat)
        if held > self.holding_limit_percent and not self.holding_limit_exempt(state, corp):
            return held - self.holding_limit_percent
        return 10

    def turn_candidates(self, state: GameState, corp: Corporation) -> list[Action]:
        """5.3.3: "If a player sells more than one share in a company he must sell them
        in one block", in an operating round too: a president's sale of two shares or
        more of a company for a train (10.7.2) is one order, so the list of legal
        actions holds one of each size (the core's lists a share at a time, which
        leaves out a sale that must be 20%, 10.7.2's exception)."""
        seat = corp.president
        if seat is None:
            return []
        return [SellShares(other.sym, count) for other in state.corporations.values()
                for count in range(2, other.percent_held_by(seat) // 10 + 1)]

    # --- 5.10: redemption ---------------------------------------------------------------
    def why_not_redeem(self, state: GameState, corp: Corporation, round: Round) -> str | None:
        """5.10.1, .2, .6-.8: an operating company, once per stock round, holding at most
        40% afterwards with 60% left with players and the Open Market, paying the
        market price from money it had before this round's reissue."""
        assert isinstance(round, StockRound)
        if not corp.floated or not corp.operated:
            return f"{corp.sym} has not operated yet (5.10.1, 5.10.8)"
        if f"redeem:{corp.sym}" in round.s.company_actions:
            return f"{corp.sym} has redeemed a share this stock round (5.10.1)"
        if corp.percent_held_by(TREASURY) + 10 > 40:
            return f"{corp.sym} holds 40% of its shares, the most it may (5.10.2)"
        outside = 100 - corp.percent_held_by(TREASURY) - corp.ipo_percent
        if outside - 10 < 60:
            return f"players and the Open Market must keep 60% of {corp.sym} (5.10.2)"
        price = state.market.price(corp.sym)
        if round.may_spend(corp) < price:
            return f"{corp.sym} has {money(state, round.may_spend(corp))} to spend; a share " \
                   f"costs {money(state, price)} (5.10.6)"
        if not corp.certificates_of(POOL) and not any(
                self.why_not_redeem_from(state, corp, seat) is None for seat in state.seats):
            return f"no share of {corp.sym} may be redeemed (5.10.3)"
        return None

    def why_not_redeem_from(self, state: GameState, corp: Corporation, source: str
                            ) -> str | None:
        """5.10.3: any player's plain share, but never one that changes the presidency."""
        if source == POOL:
            return None
        if not any(not c.president for c in corp.certificates_of(source)):
            return f"{source} holds no plain share of {corp.sym}"
        if source == corp.president:
            after = corp.percent_held_by(source) - 10
            if any(corp.percent_held_by(s) > after for s in state.seats if s != source):
                return f"redeeming {source}'s share would change {corp.sym}'s " \
                       "presidency (5.10.3)"
        return None

    def redeem(self, state: GameState, corp: Corporation, source: str) -> None:
        """5.10.6: the market price goes to the bank or the holder; the price stays."""
        price = state.market.price(corp.sym)
        cert = max((c for c in corp.certificates_of(source) if not c.president),
                   key=lambda c: c.index)
        cert.owner = TREASURY
        state.transfer_cash(corp.sym, BANK if source == POOL else source, price)
        where = "the Open Market" if source == POOL else source
        state.say(f"{corp.sym} redeems a share from {where} for {money(state, price)}")

    # --- 5.11: reissue ------------------------------------------------------------------
    def why_not_reissue(self, state: GameState, corp: Corporation, round: Round
                        ) -> str | None:
        assert isinstance(round, StockRound)
        if not corp.certificates_of(TREASURY):
            return f"{corp.sym} holds no redeemed shares (5.11)"
        if corp.certificates_of(IPO):
            return f"{corp.sym}'s original offering is not sold out (5.11)"
        if f"reissue:{corp.sym}" in round.s.company_actions:
            return f"{corp.sym} has reissued shares this stock round (5.11)"
        return None

    def reissue(self, state: GameState, corp: Corporation) -> None:
        """5.11: every redeemed share goes to the Initial Offering at the new par value;
        the company is paid as they are sold."""
        assert corp.par_price is not None
        par = reissue_par(state, corp)
        certs = corp.certificates_of(TREASURY)
        for cert in certs:
            cert.owner = IPO
        corp.par_price = par
        corp.markers.add(REISSUED)
        state.say(f"{corp.sym} reissues {len(certs)} share(s) at {money(state, par)} (5.11)")

    def share_payee(self, state: GameState, corp: Corporation, source: str) -> str:
        """5.3.1: reissued shares pay the company."""
        if source == IPO and REISSUED in corp.markers:
            return corp.sym
        return super().share_payee(state, corp, source)

    # --- 5.8: the market ----------------------------------------------------------------
    def move_price(self, state: GameState, corp: Corporation, direction: str,
                   times: int = 1) -> None:
        """5.8.1 (moves with ledges and arrows) for every direction but sales."""
        spec = state.market.spec
        pos = state.market.positions[corp.sym]
        for _ in range(times):
            pos = _MOVES[direction](spec, pos)
        self._place(state, corp, pos)

    def move_price_after_sale(self, state: GameState, corp: Corporation, shares: int) -> None:
        """5.8.1 DOWN, with its ledges."""
        self._place(state, corp, _down_after_sale(state.market.spec,
                                                  state.market.positions[corp.sym], shares))

    def exempt_for_holder(self, state: GameState, corp: Corporation, seat: str) -> bool:
        """5.3.5: a seller whose sale waits for the president's answer (5.9.2) counts his
        certificates as if the price had fallen: in the yellow, green or brown area they
        do not count (5.4.1), in the black area the company is gone (5.1.1)."""
        sold = sum(s.percent // 10 for s in state.pending_sales
                   if s.corporation == corp.sym and s.seller == seat)
        if not sold or corp.sym not in state.market.positions:
            return self.exempt_from_certificate_limit(state, corp)
        spec = state.market.spec
        cell = market.cell_at(spec, _down_after_sale(spec, state.market.positions[corp.sym],
                                                     sold))
        assert cell is not None
        return cell.zone in ("yellow", "green", "brown", "black")

    def _place(self, state: GameState, corp: Corporation, pos: Position) -> None:
        if place_token(state, corp, pos) and state.market.cell(corp.sym).zone == "black":
            close_company(state, corp)

    def certificate_limit(self, state: GameState) -> int:
        """5.1.1, 21: the lower limits once a company has closed."""
        players = len(state.seats)
        for corp in state.corporations.values():  # (a loop: asked of every listing)
            if corp.closed:
                reduced = cast("Mapping[str, int]",
                               state.title.title_specific.get("cert_limit_reduced", {}))
                if str(players) in reduced:
                    return int(reduced[str(players)])
                break
        return self.title.cert_limit[players]

    # --- 6.5.1: the Mesabi Range; 7.4, 8.4: edge tokens -----------------------------------
    def pay_mesabi(self, state: GameState, corp: Corporation) -> None:
        """$80 for the rights, once P5 belongs to a company or has closed; four tokens,
        one per company; half to the company owning P5, the rest to the bank."""
        p5 = state.privates[MESABI_MINING]
        owner = p5.owner if not p5.closed else None
        require(MESABI not in corp.markers, f"{corp.sym} already has the Mesabi rights")
        require(p5.closed or owner in state.corporations,
                "nobody may buy the Mesabi rights until P5 belongs to a company or has "
                "closed (15.2)")
        require(mesabi_tokens_left(state) > 0, "all four Mesabi tokens are taken (6.5.1)")
        require(reaches(state, corp, MESABI_RANGE), f"{corp.sym}'s track does not reach "
                "the Mesabi Range: the rights are paid for connecting to it (6.5.1, 15.2)")
        require(corp.cash >= MESABI_PRICE, f"{corp.sym} has {money(state, corp.cash)}; "
                f"the Mesabi rights cost {money(state, MESABI_PRICE)}")
        corp.markers.add(MESABI)
        _mark(state, MESABI_RANGE, corp.sym)
        if owner is not None and owner in state.corporations:
            half = MESABI_PRICE // 2
            state.transfer_cash(corp.sym, owner, half)
            state.transfer_cash(corp.sym, BANK, MESABI_PRICE - half)
            state.say(f"{corp.sym} buys the Mesabi rights: {money(state, half)} to {owner}, "
                      f"{money(state, MESABI_PRICE - half)} to the bank")
        else:
            state.transfer_cash(corp.sym, BANK, MESABI_PRICE)
            state.say(f"{corp.sym} buys the Mesabi rights for {money(state, MESABI_PRICE)}")

    def place_edge_token(self, state: GameState, corp: Corporation, hex_id: str) -> None:
        """7.4: a company with an edge token may place it on its red area for $50; it
        counts as its token placement."""
        edge = corp.spec.edge_token
        require(edge is not None, f"{corp.sym} has no edge token (15.3)")
        assert edge is not None
        require(hex_id in (edge.hex, ""), f"{corp.sym}'s edge token goes on {edge.hex} (7.4)")
        require(EDGE_TOKEN not in corp.markers, f"{corp.sym} has placed its edge token")
        require(reaches_edge(state, corp), f"{corp.sym} has no route to {edge.hex}: the "
                "edge token counts as a token placement, which needs one (7.3.1, 7.4)")
        require(corp.cash >= edge.cost, f"{corp.sym} has {money(state, corp.cash)}; its "
                f"edge token costs {money(state, edge.cost)}")
        state.transfer_cash(corp.sym, BANK, edge.cost)
        corp.markers.add(EDGE_TOKEN)
        _mark(state, edge.hex, corp.sym)
        state.say(f"{corp.sym} places its edge token on {edge.hex} for "
                  f"{money(state, edge.cost)}")

    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        """8.4: the red area of a company's edge token counts double for it."""
        total = sum(values)
        edge = corp.spec.edge_token
        if edge is not None and EDGE_TOKEN in corp.markers:
            for node, value in zip(walk.stops, values, strict=True):
                if node.hex == edge.hex:
                    total += value
        return total

    def hexes_closed_to_routes(self, state: GameState, corp: Corporation | None = None
                               ) -> frozenset[str]:
        """6.5.1, 8.1: only a company with the Mesabi rights runs to or through it."""
        if corp is not None and MESABI not in corp.markers:
            return frozenset({MESABI_RANGE})
        return frozenset()

    def after_private_sold(self, state: GameState, private: Private, buyer: str) -> None:
        """15.2: P5 comes with a Mesabi token."""
        if private.sym == MESABI_MINING and buyer in state.corporations:
            state.corporations[buyer].markers.add(MESABI)
            _mark(state, MESABI_RANGE, buyer)
            state.say(f"{buyer} receives a Mesabi token with {private.sym}")

    # --- 9: dividends -------------------------------------------------------------------
    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """9.1: full (right), half (no move; each share's half rounded up for the
        holders) or none (left). Shares in the Initial Offering and redeemed shares pay
        the company, shares in the Open Market the bank."""
        if choice == "withhold" or revenue <= 0:
            withhold(state, corp, revenue)
            self.move_price(state, corp, "left")
            return
        per_share = revenue // 10 if choice == "payout" else -(-revenue // 20)
        pay_out(state, corp, per_share * 10, pool_pays_company=False, ipo_pays_company=True)
        withhold(state, corp, revenue - per_share * 10)  # half: what the company keeps
        if choice == "payout":
            self.move_price(state, corp, "right")

    def closes_on_withholding(self, state: GameState, corp: Corporation) -> bool:
        """5.1.1: a left move into the black area closes the company."""
        if corp.sym not in state.market.positions:
            return False
        spec = state.market.spec
        cell = market.cell_at(spec, _left(spec, state.market.positions[corp.sym]))
        return cell is not None and cell.zone == "black"

    # --- 6: track -----------------------------------------------------------------------
    def tile_lays(self, state: GameState, corp: Corporation) -> tuple[int, int]:
        """6.1.1: two yellow tiles (or one upgrade) the first time it operates; then one
        yellow tile or one upgrade."""
        return (1 if corp.operated else 2), 1

    def use_private(self, state: GameState, corp: Corporation, action: UsePrivate,
                    round: Round) -> None:
        """15.2: the extra yellow lays of P2, P3, P4 and P6, after the company's own lay
        (P3 may come first). Each pays its terrain but P3's bridge."""
        assert isinstance(round, OperatingRound)
        private, lay = private_tile_lay(state, corp, action)
        turn = round.current
        assert turn is not None
        require(private.last_used != round.label,
                f"{private.sym}'s lay has been used this operating round")
        if private.sym != RIVER_BRIDGE:
            require(turn.yellow_lays + turn.upgrades > 0,
                    f"{private.sym}'s lay comes after {corp.sym}'s own tile lay (15.1)")
        require(board.lay_kind(self, state, lay.hex, lay.tile) == "yellow",
                f"{private.sym} lays a yellow tile on an empty hex (15.2)")
        west = west_of_mississippi(state)
        free = False
        cost = 0
        if private.sym == CREDIT_MOBILIER:
            require(lay.hex in west, "the Credit Mobilier's lay is west of the Mississippi")
        elif private.sym == RIVER_BRIDGE:
            require(lay.hex == ST_LOUIS, f"the bridge company lays its tile in St. Louis "
                    f"({ST_LOUIS})")
            free = True
        elif private.sym == GANT_BROTHERS:
            cost = GANT_BROTHERS_FEE
            require(corp.cash >= cost + board.terrain_cost(self, state, lay.hex),
                    f"{corp.sym} cannot pay {money(state, cost)} for the lay and its terrain")
        elif private.sym == LAND_GRANT:
            # One of the three lays anywhere, the others west of the Mississippi.
            anywhere_used = WLG_ANYWHERE in corp.markers
            require(lay.hex in west or not anywhere_used,
                    "the Western Land Grant's remaining lays are west of the Mississippi")
            if lay.hex not in west:
                corp.markers.add(WLG_ANYWHERE)
        else:
            raise GameError(f"{private.sym} has no tile lay")
        if private.spec.tiles:
            require(lay.tile in private.spec.tiles,
                    f"{private.sym} may lay tile {', '.join(private.spec.tiles)}")
        board.lay_tile(self, state, corp, lay.hex, lay.tile, lay.rotation, free=free)
        if cost:
            state.transfer_cash(corp.sym, BANK, cost)
            state.say(f"{corp.sym} pays {money(state, cost)} to {private.sym} for the lay")
        private.uses += 1
        private.last_used = round.label
        if private.sym in (CREDIT_MOBILIER, RIVER_BRIDGE) or \
                (private.sym == LAND_GRANT and private.uses >= 3):
            private.ability_used = True
            if state.phase_index >= state.title.phase_index("5") or private.sym == LAND_GRANT:
                private.closed = True
                state.say(f"{private.sym} has used its lays and closes")

    def step_extras(self, state: GameState, corp: Corporation, step: str, round: Round
                    ) -> list[str]:
        assert isinstance(round, OperatingRound)
        turn = round.current
        assert turn is not None
        out: list[str] = []
        if step == "token":
            edge = corp.spec.edge_token
            if edge is not None and EDGE_TOKEN not in corp.markers and \
                    corp.cash >= edge.cost and reaches_edge(state, corp):
                out.append(f"edge token {edge.hex} ({money(state, edge.cost)})")
            return out
        yellow, _ = self.tile_lays(state, corp)
        lay_left = turn.upgrades == 0 and turn.yellow_lays < yellow
        p5 = state.privates[MESABI_MINING]
        if lay_left and MESABI not in corp.markers and corp.cash >= MESABI_PRICE and \
                mesabi_tokens_left(state) and (p5.closed or p5.owner in state.corporations) \
                and reaches(state, corp, MESABI_RANGE):
            out.append(f"pay mesabi ({money(state, MESABI_PRICE)}, takes a yellow lay)")
        own_lay = turn.yellow_lays + turn.upgrades > 0
        for private in state.privates.values():
            if private.owner != corp.sym or private.closed or private.ability_used or \
                    private.sym not in PRIVATE_LAYS or private.last_used == round.label:
                continue
            if private.sym != RIVER_BRIDGE and not own_lay:
                continue
            out.append(f"use {private.sym} lay TILE at HEX rot N "
                       f"({PRIVATE_LAYS[private.sym]})")
        return out

    def private_lays_tiles(self, state: GameState, private: Private) -> bool:
        """15.2: P2, P3, P4 and P6 lay extra yellow tiles (P4 for as long as it lives)."""
        return private.sym in (CREDIT_MOBILIER, RIVER_BRIDGE, GANT_BROTHERS, LAND_GRANT) \
            and not private.ability_used and not private.closed

    def private_lay_hexes(self, state: GameState, private: Private) -> frozenset[str] | None:
        if private.sym == RIVER_BRIDGE:
            return frozenset({ST_LOUIS})
        if private.sym == CREDIT_MOBILIER:
            return west_of_mississippi(state)
        return None  # P4 anywhere the company reaches; P6 too (one lay east of the river)

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        """6.1.3: Chicago's yellow tile never points north-west and east at once (it could
        not be upgraded)."""
        if hex_id == CHICAGO and tile.color == "yellow" and \
                {NORTH_WEST, EAST} <= set(exits(tile, rotation)):
            return "Chicago's yellow tile may not point both north-west and east (6.1.3)"
        return None

    # --- 10: trains ---------------------------------------------------------------------
    pool_trains_count_as_new = False  # 10.3, 10.5: used trains are not limited

    def may_buy_another_bank_train(self, state: GameState, bought_this_turn: int) -> bool:
        """10.3: one new train a turn from the bank."""
        return bought_this_turn == 0

    # --- 11: companies buying privates -------------------------------------------------
    def why_not_buy_private(self, state: GameState, corp: Corporation, private: Private,
                            price: int, round: Round) -> str | None:
        """4.2.1, 11, 15.1: in phase 2 only P3 and P5, for half to full face value; in
        phases 3 and 4 any, for half to double (the UP pays up to triple for P2)."""
        value = private.spec.value
        phase = self.phase(state).name
        if phase == "2":
            if private.sym not in PHASE_2_SALEABLE:
                return "in phase 2 companies may buy only P3 (MRB) and P5 (MRC) (4.2.1)"
            high = value
        elif phase in ("3", "4"):
            triple = private.sym == CREDIT_MOBILIER and corp.sym == UNION_PACIFIC
            high = value * (3 if triple else 2)
        else:
            return "from phase 5 on companies may not buy privates (4.2.4)"
        low = (value + 1) // 2
        if not low <= price <= high:
            return f"{private.sym} may be bought for {money(state, low)} to " \
                   f"{money(state, high)} (11.1)"
        return None

    def offer_privates_at_end_of_turn(self, state: GameState, corp: Corporation) -> bool:
        """Phases 3 and 4 (11: "at any time during the operating turn"): a last chance
        after the trains, as the site asks too."""
        return self.phase(state).name in ("3", "4")

    # --- 4.2: phases --------------------------------------------------------------------
    def offered_trains(self, state: GameState) -> list[Train]:
        """16.2: from the first 6-train on, a diesel beside the next train."""
        out = state.trains_offered[:1]
        if "diesels" in self.options and \
                state.phase_index >= state.title.phase_index("6"):
            diesel = next((t for t in state.trains_offered if t.name == DIESEL), None)
            if diesel is not None and diesel not in out:
                out.append(diesel)
        return out

    def trade_ins(self, state: GameState, corp: Corporation, new: str) -> dict[str, int]:
        if "diesels" not in self.options or new != DIESEL:
            return {}
        return {name: DIESEL_TRADE_IN for name in sorted({t.name for t in corp.trains})
                if name in TRADED_IN}

    def trade_in(self, state: GameState, corp: Corporation, new: str, old: str) -> int:
        """16.2: with 1830's trade-in, a 4-, 5- or 6-train of the company's goes to the
        Open Market for $300 off a diesel (the 4-train then rusts with the others)."""
        require("diesels" in self.options and new == DIESEL,
                "only a diesel (a 12-train, option diesels: 16.2) takes a train in trade")
        require(old in TRADED_IN, f"a {old}-train is not traded in: a 4-, 5- or 6-train is")
        train = next((t for t in corp.trains if t.name == old), None)
        require(train is not None, f"{corp.sym} owns no {old}-train to trade in")
        assert train is not None
        require(corp.cash >= state.title.train(new).price - DIESEL_TRADE_IN,
                f"{corp.sym} has {money(state, corp.cash)}; the diesel costs "
                f"{money(state, state.title.train(new).price - DIESEL_TRADE_IN)} with the "
                f"{old}-train, from the company's treasury alone")
        corp.trains.remove(train)
        state.trains_pool.append(train)
        state.say(f"{corp.sym} trades in a {old}-train for {money(state, DIESEL_TRADE_IN)}")
        return DIESEL_TRADE_IN

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """4.2.4: P1, P3, P5, P7 close at phase 5, the others stop paying; 4.2.5: all
        close at phase 6."""
        if phase.name == "5":
            for sym in CLOSE_AT_5:
                state.privates[sym].closed = True
            state.say("P1, P3, P5 and P7 close; P2, P4 and P6 pay no more revenue")
        if phase.name == "6":
            for private in state.privates.values():
                private.closed = True
            state.say("all private companies close")

    def pay_privates(self, state: GameState) -> None:
        """4.1.2: privates pay their owner until phase 5; the Credit Mobilier pays the
        president of the company owning it (15.2)."""
        if state.phase_index >= state.title.phase_index("5"):
            return
        for private in state.privates.values():
            if private.closed or private.owner is None or not private.spec.revenue:
                continue
            payee = private.owner
            if private.sym == CREDIT_MOBILIER and payee in state.corporations:
                president = state.corporations[payee].president
                payee = president if president is not None else payee
            state.transfer_cash(BANK, payee, private.spec.revenue)
            state.say(f"{private.sym} pays {money(state, private.spec.revenue)} to {payee}")

    # --- 12: the end; 16.1 the $400 finish -------------------------------------------------
    def _at_400(self, state: GameState) -> Corporation | None:
        if "finish_on_400" not in self.options:
            return None
        return next((c for c in state.corporations.values()
                     if c.sym in state.market.positions and state.market.price(c.sym) >= 400),
                    None)

    def end_of_company_turn(self, state: GameState, corp: Corporation, round: Round) -> None:
        """16.1: a price at $400 ends the game once that company has operated."""
        if self._at_400(state) is not None and not state.game_over:
            self.end_game(state, "market")

    def bankruptcy(self, state: GameState, seat: str, corp: Corporation) -> None:
        """12.1: the game ends at once; the bankrupt president's sales of his own
        companies' shares, which nobody may protect (5.9: the president buys the shares
        from the seller), move their prices first ("Moved down for each share sold (and
        unprotected ...) either during a stock round or during a forced sale", 5.8).
        Other presidents' decisions on his sales are not asked: the game is over."""
        for sale in [s for s in state.pending_sales if s.president == s.seller]:
            if sale not in state.pending_sales:
                continue  # (its company closed at an earlier sale's fall, 5.1.1)
            state.pending_sales.remove(sale)
            sold = state.corporation(sale.corporation)
            state.say(f"{sale.seller}'s sale of {sale.percent}% of {sold.sym} stands "
                      "(5.9: nobody may protect it)")
            self.move_price_after_sale(state, sold, sale.percent // 10)
        super().bankruptcy(state, seat, corp)

    def end_of_stock_round_checks(self, state: GameState) -> None:
        if self._at_400(state) is not None and not state.game_over:
            self.end_game(state, "market")  # 16.1: no company operates
    def bank_breaks(self, state: GameState) -> None:
        if state.end_triggered is None:
            state.end_triggered = "bank"
            state.say("The bank has broken: the game ends after the current set of "
                      "operating rounds (12.2)")

    def check_end(self, state: GameState) -> None:
        """12.2: the bank runs out; 16.1 (option): a price reaches $400."""
        if state.bank_cash < 0:
            self.bank_breaks(state)

    def operating_rounds_after_stock_round(self, state: GameState) -> int:
        """12.2: "If the bank runs out of money during a stock round, you must still
        finish the following set of operating rounds": the whole set of the phase, not
        the one operating round of 18TN's end."""
        return self.phase(state).operating_rounds

    def game_ends_after_operating_round(self, state: GameState, round: Round) -> bool:
        """12.2: a broken bank finishes the set of operating rounds (the next set when
        it breaks in a stock round)."""
        number = getattr(round, "number", 0)
        return state.end_triggered is not None and number >= state.operating_rounds_in_set


def close_company(state: GameState, corp: Corporation) -> None:
    """5.1.1 BLACK AREA: the company closes for good: its tokens leave the map and the
    market, its certificates are collected without compensation, its trains go to the
    Open Market and its money to the bank."""
    remove_from_game(state, corp)
    for private in state.privates.values():
        if private.owner == corp.sym:
            private.closed = True
    state.pending_sales[:] = [s for s in state.pending_sales if s.corporation != corp.sym]
    state.say(f"{corp.sym}'s price enters the black area: {corp.sym} closes and its "
              "shares are worthless (5.1.1); certificate limits fall")


def west_of_mississippi(state: GameState) -> frozenset[str]:
    """The hexes west of the Mississippi (the title's region), for P2's and P6's lays."""
    regions = cast("Mapping[str, Any]", state.title.title_specific.get("regions", {}))
    return frozenset(regions.get("west_of_mississippi", ()))


def with_diesels(title: Title) -> Title:
    """16.2: the title without 8- and 10-trains and their phases; the 12-train is the
    diesel, which rusts the 4-trains; the 5-trains are permanent, as in 1830."""
    trains: list[TrainSpec] = []
    for spec in title.trains:
        if spec.name in ("8", "10"):
            continue
        if spec.name == "4":
            spec = dataclasses.replace(spec, rusts_on=DIESEL)
        elif spec.name == "5":
            spec = dataclasses.replace(spec, rusts_on=None)
        elif spec.name == DIESEL:
            spec = dataclasses.replace(spec, note="A diesel (16.2): on sale from the first "
                                       "6-train; a 4-, 5- or 6-train traded in for $300.")
        trains.append(spec)
    phases: list[PhaseSpec] = []
    for phase in title.phases:
        if phase.name in ("8", "10"):
            continue
        if phase.name == DIESEL:
            phase = dataclasses.replace(phase, events=(
                "4-trains rust", "off-board areas and Mesabi pay their last value"))
        phases.append(phase)
    return dataclasses.replace(title, trains=tuple(trains), phases=tuple(phases))


def reaches_edge(state: GameState, corp: Corporation) -> bool:
    """7.4 with 7.3.1: the company traces a route to its edge area (any connection)."""
    edge = corp.spec.edge_token
    return edge is not None and reaches(state, corp, edge.hex)


def reaches(state: GameState, corp: Corporation, hex_id: str) -> bool:
    """Whether the company's track, from its stations, reaches a stop in `hex_id`."""
    nodes, _ = track.reachable(state, track.build_track(state), corp.sym)
    return any(node.hex == hex_id for node in nodes)


def _mark(state: GameState, hex_id: str, sym: str) -> None:
    """SYM's token on HEX_ID outside its cities, for the map (an edge or Mesabi token)."""
    holders = state.board.markers.setdefault(hex_id, [])
    if sym not in holders:
        holders.append(sym)


def mesabi_tokens_left(state: GameState) -> int:
    """6.5.1: four Mesabi tokens in all."""
    return 4 - sum(1 for c in state.corporations.values() if MESABI in c.markers)


def reissue_par(state: GameState, corp: Corporation) -> int:
    """5.11: the higher of the old par and 75% of the market price rounded to the
    nearest box of the Par Value Display (a tie rounds up)."""
    assert corp.par_price is not None
    raw = state.title.title_specific.get("par_boxes", ())
    boxes = [int(b["price"]) for b in cast("list[Mapping[str, Any]]", raw) if b.get("reissue")]
    target = state.market.price(corp.sym) * 3 / 4
    nearest = min(boxes, key=lambda p: (abs(p - target), -p)) if boxes else corp.par_price
    return max(corp.par_price, nearest)


def _down_after_sale(spec: MarketSpec, pos: Position, shares: int) -> Position:
    """5.8.1 DOWN: one space per share, but a sale that would cross the Soft Ledge with
    exactly one share left stops on it, and the lower ledge stops it."""
    left = shares
    while left > 0:
        cell = market.cell_at(spec, pos)
        assert cell is not None
        if "floor" in cell.ledges:
            break
        if "soft_below" in cell.ledges and left == 1:
            break
        pos = market.down(spec, pos)
        left -= 1
    return pos


def _up(spec: MarketSpec, pos: Position) -> Position:
    """5.8.1 UP: one space up; from the top row one right and one down; $400 stays."""
    row, col = pos
    if row > 0:
        return market.up(spec, pos)
    if market.cell_at(spec, (row, col + 1)) is None:
        return pos
    below = (row + 1, col + 1)
    return below if market.cell_at(spec, below) is not None else (row, col + 1)


def _right(spec: MarketSpec, pos: Position) -> Position:
    """5.8.1 RIGHT, 5.8.3: an up arrow (the row's end or the Soft Ledge) turns it up."""
    cell = market.cell_at(spec, pos)
    assert cell is not None
    if cell.arrow == "up" or "soft_right" in cell.ledges or \
            market.cell_at(spec, (pos[0], pos[1] + 1)) is None:
        return _up(spec, pos)
    return (pos[0], pos[1] + 1)


def _left(spec: MarketSpec, pos: Position) -> Position:
    """5.8.1 LEFT: in the first column (a down arrow) one space down instead."""
    return market.left(spec, pos)


_MOVES = {"up": _up, "right": _right, "left": _left, "down": market.down}

__all__ = ["OPTIONS", "POOL", "Rules1850"]
