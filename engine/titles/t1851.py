"""1851 (Chris Lawson, Steve Thomas, from Mark Derrick's 18TN): what it changes in the core.

Section names refer to shared/rules/1851.txt (the rulebook has headings, no numbers):
SETTING UP, SELLING STOCK, BUYING STOCK, LAY OR UPGRADE TRACK, PLACE STATION MARKER,
RUN TRAIN(S), PAY DIVIDENDS, PURCHASE TRAINS, ISSUE OR REDEEM STOCK, ENDING THE GAME.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from engine import board
from engine.actions import Action, IssueShares, RedeemShares
from engine.citations import PLAIN, Cite
from engine.dividends import pay_out, withhold
from engine.errors import GameError, require
from engine.family import FamilyRules
from engine.prices import move_token
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import ParPending, StockRound
from engine.state import BANK, IPO, POOL, TREASURY, Corporation, GameState, Private, Train, money
from engine.tiles import exits
from engine.title import PhaseSpec, PrivateSpec, TileSpec

if TYPE_CHECKING:
    from engine.rounds.base import Round
    from engine.walks import Walk

LOUISVILLE = "B16"
BIRMINGHAM = "J12"
L_AND_N = "L&N"
LN_PRESIDENCY_PRIVATE = "L&O"
LN_SHARE_PRIVATES = ("O&W", "CNO&TP")
SOUTH_WEST = 0  # pointy layout: edge 0 is the south-west side


# The core's rules in 1851's words, under its headings (engine.citations).
CITATIONS: Mapping[str, Cite] = {
    "track_connects": Cite("the track on {hex} must extend a route of {corp}",
                           "LAY OR UPGRADE TRACK"),
    "station_once_per_hex": Cite("{corp} already has a station in {hex}: no more than one "
                                 "Station Marker of any Corporation may be placed in any "
                                 "hex", "PLACE STATION MARKER"),
    "station_space_kept": Cite("no free station space in {hex}: a space is left free for a "
                               "Corporation not yet floated", "PLACE STATION MARKER"),
    "station_connects": Cite("{hex} is not on a route of {corp}", "PLACE STATION MARKER"),
    "separate_tracks": Cite("these routes share track: the routes of a Corporation's "
                            "Trains may not share any track segments", "RUN TRAIN(S)"),
    "cheapest_with_president": Cite("it must buy the cheapest Train from the Bank or Bank "
                                    "Pool and the President must make up the shortfall: "
                                    "the {train}-train for {price}", "PURCHASE TRAINS"),
    "contribution": Cite("{president} contributes to {corp}'s train: it must buy the "
                         "cheapest Train from the Bank or Bank Pool and the President must "
                         "make up the shortfall", "PURCHASE TRAINS"),
    "forced_sale": Cite("{seat} may sell only enough to raise {need}: the sales must stop "
                        "as soon as the necessary cash is raised", "PURCHASE TRAINS"),
    "forced_train": Cite("{corp} has no train and a route on which it could legally run "
                         "one: \"it must buy one even if it has insufficient resources\"",
                         "PURCHASE TRAINS"),
    "forced_train_bankrupt": Cite("{corp} must buy a train, and {president} is unable to "
                                  "raise the purchase price: he is bankrupt, and `done` "
                                  "declares it", "PURCHASE TRAINS"),
    "no_buy_back": Cite("{seat} sold {corp} earlier in this Stock Round and may not buy it",
                        "BUYING STOCK"),
    "over_limit_buy": Cite("{seat} holds the certificate limit and may not purchase a "
                           "certificate", "BUYING STOCK"),
    "over_limit_pass": Cite(PLAIN["over_limit_pass"], "BUYING STOCK"),
}


class Rules1851(FamilyRules):
    ipo_buys_at_par = False  # BUYING STOCK: the price is always the current share price
    sell_after_buy = False  # STOCK ROUNDS: sell any number, then buy one
    forced_sales_at_start_prices = True  # PURCHASE TRAINS
    citations = CITATIONS
    # The rulebook's "Bank Pool" (never "Open Market"); "President", "Initial Offering".
    words: ClassVar[Mapping[str, str]] = {"market": "Bank Pool", "token": "station marker"}
    sister_train_averts_bankruptcy = True  # PURCHASE TRAINS (see the title's decisions)
    bankrupt_forfeits_cash = False  # ENDING THE GAME: wealth is stock plus cash, for all
    sell_in_first_stock_round = True  # only "has not yet operated" limits sales
    operating_steps = ("track", "token", "route", "dividend", "train", "issue")
    half_dividends = True

    # --- SETTING UP ----------------------------------------------------------------------
    def privates_in_play(self, players: int) -> list[PrivateSpec]:
        """As many privates as players: L&O, M&C, ET&WNC; O&W with 4+; CNO&TP with 5."""
        return list(self.title.privates[:players])

    def set_up(self, state: GameState, rng: random.Random) -> None:
        """Privates dealt at random and paid for at face value; the L&O holder gets the
        L&N president's certificate, the O&W and CNO&TP holders a 10% L&N share each."""
        privates = list(state.privates.values())
        rng.shuffle(privates)
        ln = state.corporations[L_AND_N]
        for seat, private in zip(state.seats, privates, strict=True):
            private.owner = seat
            state.transfer_cash(seat, BANK, private.spec.value)
            state.say(f"{seat} is dealt {private.sym} and pays "
                      f"{money(state, private.spec.value)}")
            if private.sym == LN_PRESIDENCY_PRIVATE:
                ln.certificates[0].owner = seat
                ln.president = seat
                state.say(f"{seat} receives the L&N president's certificate")
            elif private.sym in LN_SHARE_PRIVATES:
                cert = next(c for c in ln.certificates if c.owner == IPO and not c.president)
                cert.owner = seat
                state.say(f"{seat} receives a 10% share of the L&N")

    def first_priority(self, state: GameState, rng: random.Random) -> str:
        """The Priority Deal goes to the player left of the L&N president."""
        president = state.corporations[L_AND_N].president
        assert president is not None
        return state.next_seat(president)

    def first_round(self, state: GameState) -> Round:
        """The L&O holder first sets the L&N's price on a yellow square."""
        round = StockRound(state, self)
        president = state.corporations[L_AND_N].president
        assert president is not None
        round.s.par_pending = ParPending(president, L_AND_N)
        return round

    def private_grants_presidency(self, state: GameState, private: Private) -> str | None:
        return None

    def after_private_par(self, state: GameState, corp: Corporation) -> None:
        """The L&N's price is set; it floats like any other corporation (at 50%)."""

    def may_sell_private(self, state: GameState, private: Private) -> str | None:
        return "private companies may never be sold (SELLING STOCK)"

    # --- stock round ---------------------------------------------------------------------
    def exempt_from_certificate_limit(self, state: GameState, corp: Corporation) -> bool:
        """1851's yellow squares only mark starting prices: every certificate counts."""
        return False

    def holding_limit_exempt(self, state: GameState, corp: Corporation) -> bool:
        return False

    def may_sell(self, state: GameState, corp: Corporation, round_number: int) -> str | None:
        """SELLING STOCK: not a corporation that has not completed an operating turn."""
        if not corp.operated:
            return f"{corp.sym} has not yet completed an operating turn; its shares may " \
                   "not be sold"
        return None

    def float_corporation(self, state: GameState, corp: Corporation) -> None:
        """BUYING STOCK: at the fourth certificate the treasury gets 5 x price - $100 and the
        remaining five 10% certificates, the home station is placed, the price moves up."""
        price = state.market.price(corp.sym)
        capital = 5 * price - 100
        corp.floated = True
        state.transfer_cash(BANK, corp.sym, capital)
        moved = corp.certificates_of(IPO)
        for cert in moved:
            cert.owner = TREASURY
        state.say(f"{corp.sym} floats: its treasury receives {money(state, capital)} and "
                  f"{sum(c.percent for c in moved)}% of its shares")
        board.place_home_token(state, corp)
        move_token(state, corp, "up")

    # --- operating round -----------------------------------------------------------------
    def tile_lays(self, state: GameState, corp: Corporation) -> tuple[int, int]:
        """LAY OR UPGRADE TRACK: one yellow tile in phase 2; later two yellows or one
        upgrade."""
        if self.phase(state).name == "2":
            return 1, 0
        return 2, 1

    def why_not_lay(self, state: GameState, corp: Corporation, hex_id: str,
                    tile: TileSpec, rotation: int) -> str | None:
        home = corp.spec.home
        if home is not None and not _has_track(state, home) and hex_id != home:
            return f"{corp.sym} must first lay a city tile in its home hex {home}"
        if hex_id == LOUISVILLE and LOUISVILLE not in state.board.tiles \
                and SOUTH_WEST not in exits(tile, rotation):
            return "Louisville's first green tile must have track on its south-west " \
                   "edge (LAY OR UPGRADE TRACK)"
        return None

    def hexes_closed_to_routes(self, state: GameState, corp: Corporation | None = None
                               ) -> frozenset[str]:
        """Track in Birmingham may not be used in a route before phase 4."""
        if state.phase_index < state.title.phase_index("4"):
            return frozenset({BIRMINGHAM})
        return frozenset()

    def route_revenue(self, state: GameState, corp: Corporation, train: Train, walk: Walk,
                      values: list[int]) -> int:
        """RUN TRAIN(S): a route with two red off-boards earns $10 more per stop."""
        offboards = sum(1 for n in walk.stops if n.kind == "o")
        bonus = 10 * len(walk.stops) if offboards >= 2 else 0
        return sum(values) + bonus

    def pay_dividend(self, state: GameState, corp: Corporation, revenue: int, choice: str,
                     round: Round) -> None:
        """PAY DIVIDENDS: all, none or half (rounded up to $10); treasury shares pay the
        company, pool shares nobody; right only if 10x the dividend per share reaches the
        price, left when nothing is paid."""
        if choice == "withhold" or revenue <= 0:
            withhold(state, corp, revenue)
            move_token(state, corp, "left")
            return
        paid = revenue if choice == "payout" else -(-revenue // 20) * 10
        pay_out(state, corp, paid, pool_pays_company=False)
        if paid < revenue:
            withhold(state, corp, revenue - paid)
        if 10 * (paid // 10) >= state.market.price(corp.sym):
            move_token(state, corp, "right")

    def why_not_train_price(self, state: GameState, buyer: Corporation, seller: Corporation,
                            train: Train, price: int) -> str | None:
        """PURCHASE TRAINS: same president, any price up to the treasury; otherwise face
        value."""
        face = state.title.train(train.name).price
        if seller.president != buyer.president and price != face:
            return f"a train from a company with another president costs its face value, " \
                   f"{money(state, face)}"
        return None

    def step_available(self, state: GameState, corp: Corporation, step: str,
                       round: Round) -> bool:
        if step != "issue":
            return False
        done = _issue_record(round)
        if corp.sym in done:
            return False
        return bool(_issuable(self, state, corp) or _redeemable(self, state, corp))

    def step_options(self, state: GameState, corp: Corporation, step: str,
                     round: Round) -> list[str]:
        out = []
        price = money(state, state.market.price(corp.sym))
        if _issuable(self, state, corp):
            out.append(f"issue N (at {price} a share)")
        if _redeemable(self, state, corp):
            out.append(f"redeem N (at {price} a share)")
        return out

    def step_action(self, state: GameState, corp: Corporation, step: str, action: Action,
                    round: Round) -> None:
        """ISSUE OR REDEEM STOCK: one or the other, once per turn."""
        done = _issue_record(round)
        require(corp.sym not in done or done[corp.sym] == action.kind,
                f"{corp.sym} may issue or redeem in a turn, not both")
        if isinstance(action, IssueShares):
            self._issue(state, corp, action.count)
        elif isinstance(action, RedeemShares):
            self._redeem(state, corp, action.count)
        else:
            raise GameError(f"{action.kind} is not part of the issue step")
        done[corp.sym] = action.kind

    def _issue(self, state: GameState, corp: Corporation, count: int) -> None:
        require(corp.operated, f"{corp.sym} may not issue shares in its first operating turn")
        certs = sorted(corp.certificates_of(TREASURY), key=lambda c: c.index)
        require(len(certs) >= count, f"{corp.sym}'s treasury holds {len(certs)} share(s)")
        require(corp.pool_percent + 10 * count <= self.pool_limit_percent,
                f"the Bank Pool would hold {corp.pool_percent + 10 * count}% of "
                f"{corp.sym}; at most {self.pool_limit_percent}%")
        price = state.market.price(corp.sym)
        for cert in certs[:count]:
            cert.owner = POOL
        state.transfer_cash(BANK, corp.sym, price * count)
        state.say(f"{corp.sym} issues {count} share(s) for {money(state, price * count)}")
        move_token(state, corp, "down", count)

    def _redeem(self, state: GameState, corp: Corporation, count: int) -> None:
        certs = sorted(corp.certificates_of(POOL), key=lambda c: c.index)
        require(len(certs) >= count, f"the Bank Pool holds {len(certs)} {corp.sym} share(s)")
        after = corp.percent_held_by(TREASURY) + 10 * count
        require(after <= 50, f"{corp.sym}'s treasury would hold {after}%; redemptions may "
                "not take it above 50%")
        price = state.market.price(corp.sym)
        require(corp.cash >= price * count, f"{corp.sym} has {money(state, corp.cash)}; "
                f"{count} share(s) cost {money(state, price * count)}")
        for cert in certs[:count]:
            cert.owner = TREASURY
        state.transfer_cash(corp.sym, BANK, price * count)
        state.say(f"{corp.sym} redeems {count} share(s) for {money(state, price * count)}")

    def on_phase_change(self, state: GameState, phase: PhaseSpec) -> None:
        """Phase 5: the privates close."""
        if phase.name == "5":
            for private in state.privates.values():
                private.closed = True
            state.say("all private companies close")

    # --- ENDING THE GAME -----------------------------------------------------------------
    def check_end(self, state: GameState) -> None:
        """The game ends at the end of the operating round in which the bank breaks (it
        goes on paying); there is no share-price end."""
        if state.end_triggered is None and state.bank_cash < 0:
            state.end_triggered = "bank"
            state.say("The bank has broken: the game ends after this operating round")


def _has_track(state: GameState, hex_id: str) -> bool:
    if hex_id in state.board.tiles:
        return True
    spec = state.title.hexes[hex_id]
    return spec.tile is not None and bool(spec.tile.paths)


def _issue_record(round: Round) -> dict[str, str]:
    """What each company issued or redeemed this round (one or the other per turn)."""
    assert isinstance(round, OperatingRound)
    return round.title_notes


def _issuable(rules: Rules1851, state: GameState, corp: Corporation) -> bool:
    return (corp.operated and bool(corp.certificates_of(TREASURY))
            and corp.pool_percent + 10 <= rules.pool_limit_percent)


def _redeemable(rules: Rules1851, state: GameState, corp: Corporation) -> bool:
    return (bool(corp.certificates_of(POOL)) and corp.percent_held_by(TREASURY) + 10 <= 50
            and corp.cash >= state.market.price(corp.sym))
