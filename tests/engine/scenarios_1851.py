"""Games for the 1851 rule tests, all played through `Game.apply` with real actions.

The deal is the seed's: with four players (Ann, Bob, Cy, Di) and seed 0, Ann is dealt
the ET&WNC ($80), Bob the L&O ($200, so the L&N president's certificate), Cy the M&C
($50) and Di the O&W ($210, so a 10% L&N share). Cash after the deal: Ann 350,
Bob 230, Cy 380, Di 220; the Priority Deal is Cy's (left of Bob).

Three players, seed 0: Ann L&O (L&N president), Bob ET&WNC, Cy M&C; cash Ann 300,
Bob 420, Cy 450; priority Bob.

Market squares are (row, column) of data/1851.json, row 0 at the top: the yellow
starting squares are 100 (2,4), 90 (3,4), 82 (3,3), 75 (4,3), 70 (4,2).

Three kinds of helpers:

* scripted openings (ln_priced, ln_shareholders_opening, two_company_opening,
  louisville_opening, tc_opening, single_company_opening) for rules that need a
  particular position;
* `Driver`, a seeded chooser that plays whole games, and positions it stops at
  (forced_purchase_position, limit_position, forced_purchase_with_unoperated_shares):
  they are found by playing on until a condition holds, so they survive engine changes
  that alter the course of a game;
* `Auditor`, which checks every action of a driven game against the rulebook as read
  here from data/1851.json and the rules text, independently of the engine.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from pathlib import Path

from scenario_moves import entity_to_act, play

from engine.actions import (
    Action,
    BuyShares,
    BuyTrain,
    Dividend,
    Done,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RunRoutes,
)
from engine.errors import GameError
from engine.game import Game, Setup
from engine.rounds.operating import OperatingRound

SEATS = ("Ann", "Bob", "Cy", "Di")
SEATS3 = ("Ann", "Bob", "Cy")
SEATS5 = ("Ann", "Bob", "Cy", "Di", "Ed")

# Market squares (row, column).
SQ_100_PAR = (2, 4)
SQ_90_PAR = (3, 4)
SQ_82_PAR = (3, 3)
SQ_75_PAR = (4, 3)
SQ_70_PAR = (4, 2)


def new_game(seats: tuple[str, ...] = SEATS, seed: int = 0) -> Game:
    return Game(Setup("1851", seats, seed=seed))


now = entity_to_act


def president(g: Game) -> str:
    """The seat that must act now."""
    turn = g.turn()
    assert turn is not None
    return turn.seat


def price(g: Game, sym: str) -> int:
    return g.state.market.price(sym)


def square(g: Game, sym: str) -> tuple[int, int]:
    return g.state.market.positions[sym]


def cash(g: Game, who: str) -> int:
    return g.state.cash_of(who)


def pct(g: Game, sym: str, owner: str) -> int:
    return g.state.corporations[sym].percent_held_by(owner)


def pass_stock_round(g: Game) -> None:
    """Everyone passes until the stock round under way is over."""
    label = g.round_name
    assert label.startswith("Stock Round"), label
    while g.round_name == label:
        g.apply(president(g), Pass())


def operating(g: Game) -> OperatingRound:
    rnd = g.round
    assert isinstance(rnd, OperatingRound)
    return rnd


def revenue(g: Game) -> int | None:
    current = operating(g).current
    assert current is not None
    return current.revenue


def still_operating(g: Game, corp: str) -> bool:
    return not g.state.game_over and g.turn() is not None and now(g) == corp


def finish_turn(g: Game, corp: str, dividend: str = "payout") -> None:
    """End `corp`'s turn from wherever it stands: run its best routes, settle them
    (`dividend`), buy a train from the bank only when it must have one."""
    seat = president(g)
    t = operating(g).current
    assert t is not None
    if g.state.corporation(corp).trains and t.revenue is None:
        g.apply(seat, RunRoutes(auto=True))
    t = operating(g).current
    if still_operating(g, corp) and t is not None and t.revenue and not t.dividend_done:
        g.apply(seat, Dividend(dividend))  # type: ignore[arg-type]
    if still_operating(g, corp):
        try:
            g.apply(seat, Done())
        except GameError:
            g.apply(seat, BuyTrain(g.state.trains_offered[0].name))
            if still_operating(g, corp):
                g.apply(seat, Done())


def play_operating_round(g: Game, turn: Callable[[Game], None] | None = None) -> list[str]:
    """Play the rest of the current operating round; returns the order of companies."""
    label = g.round_name
    order: list[str] = []
    while g.round_name == label and not g.state.game_over:
        corp = now(g)
        order.append(corp)
        if turn is None:
            finish_turn(g, corp)
        else:
            turn(g)
    return order


# --- openings ---------------------------------------------------------------------------


def ln_priced(ln_price: int = 90) -> Game:
    """4 players, seed 0: Bob (L&O) has set the L&N's price; Cy is to act."""
    g = new_game()
    g.apply("Bob", Par("L&N", ln_price))
    return g


def ln_shareholders_opening() -> Game:
    """4 players, seed 0, at the start of Stock Round 2 after one operating round.

    Stock Round 1: Bob pars the L&N at 90 (free); Cy passes; Di buys from the IPO (the
    third certificate out); Ann buys from the IPO (the fourth: the L&N floats with
    $350 at 90 and moves up to 100); Bob and then Ann buy from the treasury at 100;
    everyone passes. L&N: Bob 30% (president), Ann 20%, Di 20% (one from the O&W),
    treasury 30%, cash $550.
    Operating Round 1.1: the L&N has a route (Louisville's two cities) and no train: it
    earns nothing (price left to 90, square (2,3)) and buys a 2-train ($100): $450.
    Cash at the start of Stock Round 2: Ann 175, Bob 135, Cy 390, Di 150. Bob has
    priority (left of Ann, the last to buy).
    """
    g = ln_priced(90)
    play(g, ("Cy", Pass()), ("Di", BuyShares("L&N")), ("Ann", BuyShares("L&N")),
         ("Bob", BuyShares("L&N", source="treasury")), ("Cy", Pass()), ("Di", Pass()),
         ("Ann", BuyShares("L&N", source="treasury")))
    pass_stock_round(g)
    assert g.round_name == "Operating Round 1.1"
    g.apply("Bob", BuyTrain("2"))
    if still_operating(g, "L&N"):
        g.apply("Bob", Done())
    assert g.round_name == "Stock Round 2"
    return g


def two_company_opening() -> Game:
    """4 players, seed 0, Stock Round 1 played out; the game stands at the start of
    Operating Round 1.1.

    Bob pars the L&N at 90; Cy pars the IC at 100 ($200) on square (2,4); Di and Bob buy
    L&N from the IPO: the L&N floats with 5 x 90 - 100 = $350 and moves up from 90 to
    100 (2,4), under the IC's token; Ann, Cy and Di buy IC from the IPO: the IC floats
    with 5 x 100 - 100 = $400 and moves up to 110 (1,4). Everyone then passes.
    L&N: Bob 30% (president), Di 20%; IC: Cy 30% (president), Ann 10%, Di 10%.
    Cash after the privates paid: Ann 265, Bob 145, Cy 90, Di 50.
    """
    g = ln_priced(90)
    play(g, ("Cy", Par("IC", 100)), ("Di", BuyShares("L&N")), ("Ann", BuyShares("IC")),
         ("Bob", BuyShares("L&N")), ("Cy", BuyShares("IC")), ("Di", BuyShares("IC")))
    pass_stock_round(g)
    return g


def end_turn(g: Game, corp: str) -> None:
    """`done` for `corp` unless its turn has already ended by itself (a turn ends once
    nothing is left to do)."""
    if still_operating(g, corp):
        g.apply(president(g), Done())


def louisville_opening() -> Game:
    """4 players, seed 0: the L&N (Bob) and the TC (Cy) share Louisville; the game stands
    at the start of Operating Round 4.1, in phase 3.

    Stock Round 1: Bob pars the L&N at 90, Cy the TC at 82; Di and Bob buy L&N, Ann, Cy
    and Di buy TC: both float (L&N $350 on 100, TC $310 on 90).
    OR 1.1: the L&N lays 9 on C15 (Louisville's SW side to Bowling Green D14) and buys
    three 2-trains; the TC lays 202 on its home Nashville F12 (exits NE to E13 and SE to
    G13, $40 water) and buys the last two 2-trains. Both withheld nothing (no trains).
    OR 2.1: the L&N lays 57 on Bowling Green D14 and runs Louisville's two cities
    (c0-c1, $40), withholding; the TC lays 9 on E13, which joins Nashville to Bowling
    Green and Louisville, places a station on Louisville's south-west city (city 1) and
    runs F12-D14 ($50) and Louisville c1-c0 ($40, ending in the L&N's full city),
    withholding.
    OR 3.1: both run and withhold; the TC buys the first 3-train: phase 3.
    Stock Round 4 follows (the set of one round is not lengthened); then OR 4.1 of two.
    Cash at the start of OR 4.1: L&N $130, TC $50. Trains: L&N 2, 2, 2; TC 2, 2, 3.
    """
    g = ln_priced(90)
    play(g, ("Cy", Par("TC", 82)), ("Di", BuyShares("L&N")), ("Ann", BuyShares("TC")),
         ("Bob", BuyShares("L&N")), ("Cy", BuyShares("TC")), ("Di", BuyShares("TC")))
    pass_stock_round(g)
    play(g, ("Bob", LayTile("9", "C15", 0)), ("Bob", BuyTrain("2")), ("Bob", BuyTrain("2")),
         ("Bob", BuyTrain("2")))
    end_turn(g, "L&N")
    play(g, ("Cy", LayTile("202", "F12", 3)), ("Cy", BuyTrain("2")), ("Cy", BuyTrain("2")))
    end_turn(g, "TC")
    pass_stock_round(g)
    play(g, ("Bob", LayTile("57", "D14", 0)), ("Bob", RunRoutes(auto=True)),
         ("Bob", Dividend("withhold")))
    end_turn(g, "L&N")
    play(g, ("Cy", LayTile("9", "E13", 0)), ("Cy", PlaceToken("B16", 1)),
         ("Cy", RunRoutes(auto=True)), ("Cy", Dividend("withhold")))
    end_turn(g, "TC")
    pass_stock_round(g)
    finish_turn(g, "L&N", "withhold")
    play(g, ("Cy", RunRoutes(auto=True)), ("Cy", Dividend("withhold")), ("Cy", BuyTrain("3")))
    end_turn(g, "TC")
    pass_stock_round(g)
    assert g.round_name == "Operating Round 4.1" and now(g) == "L&N"
    return g


def tc_opening() -> Game:
    """4 players, seed 0; only the TC (Cy) floats; the game stands at the start of OR 1.1.

    Bob pars the L&N at 90; Cy pars the TC at 82; Di, Ann and Cy buy TC from the IPO: it
    floats with 5 x 82 - 100 = $310 and moves up to 90 (2,3). TC: Cy 30%, Ann 10%,
    Di 10%, treasury 50%. Cash after the privates pay: Ann 283, Bob 235, Cy 144, Di 158.
    """
    g = ln_priced(90)
    play(g, ("Cy", Par("TC", 82)), ("Di", BuyShares("TC")), ("Ann", BuyShares("TC")),
         ("Bob", Pass()), ("Cy", BuyShares("TC")))
    pass_stock_round(g)
    assert now(g) == "TC"
    return g


def single_company_opening(sym: str, price_: int = 70) -> Game:
    """4 players, seed 0: Cy starts `sym` at `price_`; Di, Ann and Cy buy from the IPO and
    it floats; the L&N does not. The game stands at the start of OR 1.1."""
    g = ln_priced(90)
    play(g, ("Cy", Par(sym, price_)), ("Di", BuyShares(sym)), ("Ann", BuyShares(sym)),
         ("Bob", Pass()), ("Cy", BuyShares(sym)))
    pass_stock_round(g)
    assert now(g) == sym
    return g


def next_operating_round(g: Game) -> None:
    """Finish the current operating round plainly (if one is under way) and the stock
    round after it (everyone passes)."""
    if g.round_name.startswith("Operating"):
        play_operating_round(g)
    pass_stock_round(g)


# --- a seeded player for whole games ----------------------------------------------------


class Driver:
    """Plays a game with a seeded chooser biased toward sensible play.

    The chooser proposes actions in its order of preference and the game takes the
    first it accepts (a refused action leaves the game as it was); when it has no
    proposal left, or something unusual is asked (a forced sale, a discard, an offer to
    answer), it chooses among `engine.legal.legal_actions`. Preferences:

    * stock rounds: first, with probability `sells_shares`, sell one share of a company
      (any the rules allow); then, with probability `buys_shares`, buy a share: from the
      IPO of a started company (to float it), else from a treasury (the president's
      own companies first), else from the pool; else start a new company half of the
      time; else pass.
    * operating rounds: lay a tile (upgrades of cities first, then city tiles, then
      plain track; only lays the map accepts are tried), place a station where one
      fits, run the best routes, settle the revenue (`dividend(game, corp)`: "payout",
      "half" or "withhold"), buy trains from the bank while below the limit and
      `buys_trains(game, corp)` says so, and end the turn; a forced purchase buys
      the cheapest train, selling shares as legal_actions allows.
    """

    def __init__(self, game: Game, seed: int, *,
                 dividend: Callable[[Game, str], str] | None = None,
                 buys_trains: Callable[[Game, str], bool] | None = None,
                 buys_shares: float = 0.9, sells_shares: float = 0.0,
                 watch: Auditor | None = None) -> None:
        self.g = game
        self.rng = random.Random(seed)
        self.dividend = dividend or (lambda g, corp: "payout")
        self.buys_trains = buys_trains or (lambda g, corp: True)
        self.buys_shares = buys_shares
        self.sells_shares = sells_shares
        self.watch = watch
        self.moves = 0
        self.from_legal_count = 0  # actions chosen from legal_actions

    # --- applying --------------------------------------------------------------------
    def try_apply(self, seat: str, action: Action) -> bool:
        seen = self.watch.before(self.g, seat, action) if self.watch else None
        try:
            self.g.apply(seat, action)
        except GameError:
            return False
        self.moves += 1
        if self.watch:
            self.watch.after(self.g, seat, self.g.log[-1].action, seen)
        return True

    def first_accepted(self, seat: str, actions: list[Action]) -> bool:
        return any(self.try_apply(seat, a) for a in actions)

    def from_legal(self, seat: str, prefer: tuple[type, ...] = ()) -> None:
        from engine.legal import legal_actions

        options = legal_actions(self.g)
        self.from_legal_count += 1
        assert options, f"no legal action for {self.g.turn()} in {self.g.round_name}"
        for kind in prefer:
            chosen = [a for a in options if isinstance(a, kind)]
            if chosen:
                assert self.try_apply(seat, self.rng.choice(chosen))
                return
        assert self.try_apply(seat, options[0])

    # --- one action ------------------------------------------------------------------
    def step(self) -> None:
        from engine.actions import Accept, DiscardTrain, SellShares

        g = self.g
        turn = g.turn()
        assert turn is not None
        rnd = g.round
        if isinstance(rnd, OperatingRound):
            if rnd.offer is not None or rnd.discards:
                self.from_legal(turn.seat, (Accept, DiscardTrain))
                return
            if self._operate(turn.seat, turn.entity):
                return
            self.from_legal(turn.seat, (BuyTrain, SellShares))
            return
        if self._stock_turn(turn.seat):
            return
        self.from_legal(turn.seat, (SellShares,))

    def _stock_turn(self, seat: str) -> bool:
        state = self.g.state
        rng = self.rng
        from engine.actions import SellShares

        done = self.g.round.s.turn  # type: ignore[attr-defined]
        if done.bought:
            return self.try_apply(seat, Done())
        if self.sells_shares and not done.sold and rng.random() < self.sells_shares:
            sales: list[Action] = [SellShares(c.sym, 1) for c in state.corporations.values()
                                   if c.percent_held_by(seat)]
            rng.shuffle(sales)
            if self.first_accepted(seat, sales):
                return True
        if rng.random() < self.buys_shares:
            ipo: list[Action] = []
            own: list[Action] = []
            treasury: list[Action] = []
            pool: list[Action] = []
            for corp in state.corporations.values():
                if corp.par_price is not None and not corp.floated:
                    ipo.append(BuyShares(corp.sym, source="ipo"))
                if corp.certificates_of("treasury"):
                    (own if corp.president == seat else treasury).append(
                        BuyShares(corp.sym, source="treasury"))
                if corp.certificates_of("pool"):
                    pool.append(BuyShares(corp.sym, source="pool"))
            for group in (ipo, own, treasury, pool):
                rng.shuffle(group)
            if self.first_accepted(seat, ipo + own + treasury + pool):
                return True
        unstarted = [c.sym for c in state.corporations.values() if c.par_price is None]
        if unstarted and rng.random() < 0.5:
            values = sorted((70, 75, 82, 90, 100), key=lambda _: rng.random())
            pars: list[Action] = [Par(rng.choice(unstarted), v) for v in values]
            if self.first_accepted(seat, pars):
                return True
        return self.try_apply(seat, Pass())

    def _operate(self, seat: str, sym: str) -> bool:
        from engine import trains

        g = self.g
        t = operating(g).current
        assert t is not None
        corp = g.state.corporation(sym)
        yellow, upgrades = g.rules.tile_lays(g.state, corp)
        may_yellow = t.upgrades == 0 and t.yellow_lays < yellow
        may_upgrade = t.yellow_lays == 0 and t.upgrades < upgrades
        if t.step == 0 and (may_yellow or may_upgrade) and self._lay_tile(
                seat, sym, may_yellow, may_upgrade):
            return True
        if t.step <= 1 and not t.token_placed and self._place_token(seat, sym):
            return True
        if t.step <= 2 and t.revenue is None and corp.trains:
            return self.try_apply(seat, RunRoutes(auto=True))
        if t.revenue and not t.dividend_done:
            return self.try_apply(seat, Dividend(self.dividend(g, sym)))  # type: ignore[arg-type]
        offer = trains.next_offered(g.state)
        limit = trains.train_limit(g.rules, g.state, corp)
        if (offer is not None and len(corp.trains) < limit
                and corp.cash >= g.state.title.train(offer.name).price
                and self.buys_trains(g, sym) and self.try_apply(seat, BuyTrain(offer.name))):
            return True
        if self.try_apply(seat, Done()):
            return True
        cheapest = trains.cheapest_available(g.state)
        if cheapest is not None:
            train, _, source = cheapest
            action = BuyTrain(train.name) if source == "bank" else BuyTrain(train.name, "pool")
            if self.try_apply(seat, action):
                return True
        # A forced purchase the president cannot pay for: sell a share at a time.
        from engine.actions import SellShares

        sales: list[Action] = [SellShares(c.sym, 1) for c in g.state.corporations.values()
                               if c.percent_held_by(seat)]
        self.rng.shuffle(sales)
        return self.first_accepted(seat, sales)

    def _lay_tile(self, seat: str, sym: str, yellow: bool, upgrade: bool) -> bool:
        """Lay a tile that extends the company's track (or upgrades a hex on it)."""
        from engine import board, tiles, track
        from engine.geometry import neighbour, opposite
        from engine.title import COLOR_ORDER

        g = self.g
        state = g.state
        title = state.title
        corp = state.corporation(sym)
        graph = track.build_track(state)
        nodes, segments = track.reachable(state, graph, sym)
        open_edges: dict[str, set[int]] = {}  # blank hex -> sides the track reaches
        for seg_id in segments:
            seg = graph.segments[seg_id]
            for end in (seg.a, seg.b):
                if isinstance(end, track.Side) and end not in graph.across:
                    other = neighbour(title.grid, end.hex, end.edge)
                    open_edges.setdefault(other, set()).add(opposite(end.edge))
        for node in track.token_nodes(state, sym):
            if board.current(state, node.hex)[2] == "white":
                open_edges.setdefault(node.hex, set()).update(range(6))
        upgradable = {graph.segments[s].hex for s in segments} | {n.hex for n in nodes}
        colours = g.rules.phase(state).tiles
        ranked: list[tuple[int, float, str, str, set[int] | None]] = []
        for hex_id in sorted(set(open_edges) | upgradable):
            spec = title.hexes.get(hex_id)
            if spec is None or not spec.buildable:
                continue
            colour = board.current(state, hex_id)[2]
            if colour == "white" and (hex_id not in open_edges or not yellow):
                continue
            if colour != "white" and not upgrade:
                continue
            nxt = COLOR_ORDER[COLOR_ORDER.index(colour) + 1] if colour != "gray" else None
            if nxt not in colours:
                continue
            for name, tile in title.tiles.items():
                left = state.board.supply.get(name, 0)
                if tile.color != nxt or (left is not None and left <= 0):
                    continue
                rank = 0 if tile.cities and nxt != "yellow" else 1 if tile.cities else 2
                edges = open_edges.get(hex_id) if colour == "white" else None
                ranked.append((rank, self.rng.random(), hex_id, name, edges))
        ranked.sort(key=lambda x: (x[0], x[1]))
        tried = 0
        for _, _, hex_id, name, edges in ranked:
            rotations = board.legal_rotations(g.rules, state, hex_id, name)
            self.rng.shuffle(rotations)
            for rotation in rotations:
                if edges is not None and not edges & tiles.exits(title.tile(name), rotation):
                    continue
                tried += 1
                if tried > 30:
                    return False
                try:
                    board.check_lay(g.rules, state, corp, hex_id, name, rotation)
                except GameError:
                    continue
                if self.try_apply(seat, LayTile(name, hex_id, rotation)):
                    return True
        return False

    def _place_token(self, seat: str, sym: str) -> bool:
        from engine import track

        g = self.g
        state = g.state
        if not state.corporation(sym).token_costs:
            return False
        nodes, _ = track.reachable(state, track.build_track(state), sym)
        tokens = [PlaceToken(n.hex, n.index) for n in sorted(nodes, key=str)
                  if n.kind == "c" and not any(sym in c for c in
                                               state.board.tokens.get(n.hex, {}).values())]
        return self.first_accepted(seat, tokens[:6])  # type: ignore[arg-type]

    def play(self, until: Callable[[Game], bool] = lambda g: False,
             max_moves: int = 5000) -> None:
        """Play until the game is over, `until(game)` holds, or `max_moves` are made."""
        while self.g.turn() is not None and not until(self.g) and self.moves < max_moves:
            self.step()


# --- the rulebook, read independently of the engine, for auditing whole games ------------

DATA = json.loads((Path(__file__).resolve().parents[2] / "data" / "1851.json").read_text())
MARKET_ROWS: list[list[str | None]] = DATA["market"]["rows"]
PHASE_BRACKET = {"2": 0, "3": 0, "4": 1, "5": 1, "6": 2, "8": 2}  # lowest, middle, highest
ORS_PER_SET = {"2": 1, "3": 2, "4": 2, "5": 3, "6": 3, "8": 3}
TRAIN_LIMIT = {"2": 4, "3": 4, "4": 3, "5": 2, "6": 2, "8": 2}
TILE_COLOURS = {"2": {"yellow"}, "3": {"yellow", "green"}, "4": {"yellow", "green"},
                "5": {"yellow", "green", "brown"}, "6": {"yellow", "green", "brown"},
                "8": {"yellow", "green", "brown", "gray"}}
RUSTED_BY = {"4": "2", "6": "3", "8": "4"}  # phase -> train type eliminated at its start
TRAIN_PRICE = {t["name"]: t["price"] for t in DATA["trains"]}
PRIVATE_INCOME = {p["sym"]: p["revenue"] for p in DATA["privates"]}
PRIVATE_VALUE = {p["sym"]: p["value"] for p in DATA["privates"]}
DATA_DISTANCE = {t["name"]: int(t["distance"]) for t in DATA["trains"]}
BANK_TOTAL = DATA["bank"]


def market_cell(pos: tuple[int, int]) -> list[str] | None:
    r, c = pos
    if 0 <= r < len(MARKET_ROWS) and 0 <= c < len(MARKET_ROWS[r]):
        text = MARKET_ROWS[r][c]
        return text.split() if text else None
    return None


def market_price(pos: tuple[int, int]) -> int:
    cell = market_cell(pos)
    assert cell is not None
    return int(cell[0])


def market_left(pos: tuple[int, int]) -> tuple[int, int]:
    """Withheld or no earnings: left, or down on a down arrow; else no move."""
    r, c = pos
    if c > 0 and market_cell((r, c - 1)):
        return (r, c - 1)
    if "down" in (market_cell(pos) or []) and market_cell((r + 1, c)):
        return (r + 1, c)
    return pos


def market_right(pos: tuple[int, int]) -> tuple[int, int]:
    """Enough dividend: right, or up on an up arrow; at the top right no move."""
    r, c = pos
    if "up" in (market_cell(pos) or []) and market_cell((r - 1, c)):
        return (r - 1, c)
    if market_cell((r, c + 1)):
        return (r, c + 1)
    return pos


def market_down(pos: tuple[int, int], rows: int) -> tuple[int, int]:
    """A sale or an issue: one row per share, stopping at the bottom of the column."""
    r, c = pos
    while rows and market_cell((r + 1, c)):
        r, rows = r + 1, rows - 1
    return (r, c)


def market_up(pos: tuple[int, int]) -> tuple[int, int]:
    r, c = pos
    return (r - 1, c) if market_cell((r - 1, c)) else pos


def by_phase(values: dict[str, int], phase: str) -> int:
    """Lowest value in phases 2-3, middle in 4-5, highest in 6-8 (RUN TRAIN(S))."""
    return sorted(values.values())[PHASE_BRACKET[phase]]


def expected_scores(g: Game) -> dict[str, int]:
    """ENDING THE GAME: cash + shares at current prices + open privates at face value."""
    state = g.state
    out = {}
    for seat in state.seats:
        value = state.players[seat].cash
        for corp in state.corporations.values():
            held = corp.percent_held_by(seat)
            if held:
                value += state.market.price(corp.sym) * held // 10
        value += sum(PRIVATE_VALUE[p.sym] for p in state.privates.values()
                     if p.owner == seat and not p.closed)
        out[seat] = value
    return out


class Auditor:
    """Checks every action of a driven game against the rulebook, as read here, and
    records what it saw. `problems[kind]` lists each breach; `seen[kind]` counts the
    cases checked, so a test can tell a clean record from an empty one."""

    def __init__(self) -> None:
        from collections import Counter, defaultdict

        self.problems: dict[str, list[str]] = defaultdict(list)
        self.seen: Counter[str] = Counter()
        self.bank_broke_in: str | None = None
        self.bank_after_break: list[int] = []
        self.sr_last_actor: str | None = None
        self.set_phase: str | None = None
        self.set_length = 0
        self.set_expected = 0
        self.turn_lays: dict[str, list[str]] = {}
        self.turn_tokens: set[str] = set()
        self.sale_prices: dict[tuple[str, str], dict[str, int]] = {}
        self.phase_starts: dict[str, int] = {}  # phase -> index of the move that began it
        self.planned_order: dict[str, list[str]] = {}  # round -> order at its start

    def flag(self, kind: str, message: str) -> None:
        self.problems[kind].append(message)

    # --- before an action --------------------------------------------------------------
    def before(self, g: Game, seat: str, action: Action) -> dict[str, object]:
        state = g.state
        rnd = g.round
        ctx: dict[str, object] = {
            "round": g.round_name,
            "phase": g.rules.phase(state).name,
            "cash": {s: p.cash for s, p in state.players.items()},
            "corp_cash": {c.sym: c.cash for c in state.corporations.values()},
            "bank": state.bank_cash,
            "pos": dict(state.market.positions),
            "holdings": {c.sym: {o: c.percent_held_by(o) for o in (*state.seats, "pool",
                                                                     "treasury")}
                         for c in state.corporations.values()},
            "trains": {c.sym: [t.name for t in c.trains] for c in state.corporations.values()},
            "laid": set(state.board.laid_once),
            "tiles": dict(state.board.tiles),
            "privates": {p.sym: (p.owner, p.closed) for p in state.privates.values()},
            "company": None,
            "wholly_owned": [c.sym for c in state.corporations.values()
                             if c.sym in state.market.positions
                             and sum(c.percent_held_by(s) for s in state.seats) == 100],
        }
        if isinstance(rnd, OperatingRound) and rnd.current is not None:
            ctx["company"] = rnd.current.corporation
            ctx["revenue"] = rnd.current.revenue
            ctx["emergency"] = rnd.current.emergency
            ctx["dividend_done"] = rnd.current.dividend_done
        return ctx

    # --- after an action ---------------------------------------------------------------
    def after(self, g: Game, seat: str, action: Action, ctx: dict[str, object]) -> None:
        from engine.actions import BuyShares, LayTile, PlaceToken, SellShares

        state = g.state
        self.seen["action"] += 1
        if state.total_cash() != BANK_TOTAL:
            self.flag("cash", f"move {len(g.log) - 1}: total cash {state.total_cash()}")
        if self.bank_broke_in is None and state.bank_cash < 0:
            self.bank_broke_in = str(ctx["round"])
        elif self.bank_broke_in is not None:
            self.bank_after_break.append(state.bank_cash)
        phase = g.rules.phase(state).name
        if phase != ctx["phase"]:
            self.phase_starts[phase] = len(g.log) - 1
        in_or = str(ctx["round"]).startswith("Operating")
        if isinstance(action, Dividend):
            self._dividend(g, action, ctx)
        elif isinstance(action, SellShares):
            self._sale(g, seat, action, ctx, in_or)
        elif isinstance(action, RunRoutes):
            self._run(g, ctx)
        elif isinstance(action, LayTile):
            self._tile(g, action, ctx)
        elif isinstance(action, PlaceToken):
            self.seen["token"] += 1
            corp = str(ctx["company"])
            if state.corporation(corp).cash != ctx["corp_cash"][corp]:  # type: ignore[index]
                self.flag("token", f"{corp}'s station in {action.hex} was not free")
            key = f"{ctx['round']} {corp}"
            if key in self.turn_tokens:
                self.flag("token", f"{key}: a second station in one turn")
            self.turn_tokens.add(key)
            if action.hex in ("J12", "E23"):
                self.flag("token", f"{key}: a station in {action.hex}")
        elif isinstance(action, BuyTrain):
            self._train(g, action, ctx)
        if not in_or and isinstance(action, SellShares | BuyShares | Par):
            self.sr_last_actor = seat
        self._limits(g)
        if g.round_name != ctx["round"]:
            self._new_round(g, ctx)
        elif isinstance(g.round, OperatingRound) and g.round.current is not None and \
                g.round.current.corporation != ctx["company"]:
            self._order(g)

    def _dividend(self, g: Game, action: Dividend, ctx: dict[str, object]) -> None:
        self.seen["dividend"] += 1
        self.seen[f"dividend {action.choice}"] += 1
        state = g.state
        corp = str(ctx["company"])
        revenue = int(ctx["revenue"])  # type: ignore[call-overload]
        held = ctx["holdings"][corp]  # type: ignore[index]
        pos = ctx["pos"][corp]  # type: ignore[index]
        paid = {"payout": revenue, "withhold": 0,
                "half": -(-revenue // 20) * 10}[action.choice]
        per_share = paid // 10
        income = self._new_or_income(g, ctx)
        want_cash = {s: ctx["cash"][s] + per_share * held[s] // 10 + income.get(s, 0)  # type: ignore[index]
                     for s in state.seats}
        want_corp = ctx["corp_cash"][corp] + (revenue - paid) \
            + per_share * held["treasury"] // 10  # type: ignore[index,operator]
        got_cash = {s: state.players[s].cash for s in state.seats}
        where = f"{ctx['round']} {corp} {action.choice} {revenue}"
        if got_cash != want_cash:
            self.flag("dividend", f"{where}: players {got_cash}, expected {want_cash}")
        if state.corporation(corp).cash != want_corp:
            self.flag("dividend", f"{where}: {corp} has {state.corporation(corp).cash}, "
                      f"expected {want_corp}")
        if paid == 0:
            want_pos = market_left(pos)
        elif 10 * per_share >= market_price(pos):
            want_pos = market_right(pos)
            self.seen["dividend moves right"] += 1
        else:
            want_pos = pos
            self.seen["dividend no move"] += 1
        if state.market.positions[corp] != want_pos:
            self.flag("dividend", f"{where}: price square {state.market.positions[corp]}, "
                      f"expected {want_pos} from {pos}")
        if held["pool"]:
            self.seen["dividend with pool shares"] += 1
        if held["treasury"] and paid:
            self.seen["dividend with treasury shares"] += 1

    def _sale(self, g: Game, seat: str, action: object, ctx: dict[str, object],
              in_or: bool) -> None:
        from engine.actions import SellShares

        assert isinstance(action, SellShares)
        state = g.state
        sym = action.corporation
        shares = (action.percent or 10 * (action.count or 1)) // 10
        positions = dict(ctx["pos"])  # type: ignore[call-overload]
        if in_or and not ctx["dividend_done"]:
            # A sale moves the company on to its train step: an unsettled turn (no
            # earnings) is withheld first, which moves the operating company left.
            company = str(ctx["company"])
            positions[company] = market_left(positions[company])
        pos = positions[sym]
        start = pos
        if in_or:
            key = (str(ctx["round"]), str(ctx["company"]))
            start = self.sale_prices.setdefault(key, positions)[sym]
            self.seen["emergency sale"] += 1
        else:
            self.seen["stock round sale"] += 1
        want_cash = ctx["cash"][seat] + shares * market_price(start)  # type: ignore[index]
        kind = "emergency sale" if in_or else "sale"
        if state.players[seat].cash != want_cash:
            self.flag(kind, f"{ctx['round']}: {seat} sold {shares} {sym} and has "
                      f"{state.players[seat].cash}, expected {want_cash}")
        if state.market.positions[sym] != market_down(pos, shares):
            self.flag(kind, f"{ctx['round']}: {sym} on {state.market.positions[sym]}, "
                      f"expected {market_down(pos, shares)}")

    def _run(self, g: Game, ctx: dict[str, object]) -> None:
        from engine import track

        rnd = g.round
        if not isinstance(rnd, OperatingRound) or rnd.current is None \
                or rnd.current.corporation != ctx["company"] or rnd.current.run is None:
            return
        state = g.state
        corp = str(ctx["company"])
        phase = str(ctx["phase"])
        run = rnd.current.run
        used: set[int] = set()
        total = 0
        tokens = set(track.token_nodes(state, corp))
        for train_run in run.runs:
            self.seen["route"] += 1
            walk = train_run.walk
            stops = walk.stops
            where = f"{ctx['round']} {corp} {train_run.train}-train {[str(s) for s in stops]}"
            reach = DATA_DISTANCE[train_run.train]
            if not 2 <= len(stops) <= reach:
                self.flag("route", f"{where}: {len(stops)} stops")
            if len(set(stops)) != len(stops):
                self.flag("route", f"{where}: a stop is repeated")
            if any(s.kind == "o" for s in stops[1:-1]):
                self.flag("route", f"{where}: runs through an off-board")
            if not tokens & set(stops):
                self.flag("route", f"{where}: no {corp} station on it")
            for s in stops[1:-1]:
                if track.blocked_for(state, s, corp):
                    self.flag("route", f"{where}: passes a city full of others' stations")
            if PHASE_BRACKET[phase] == 0 and "J12" in walk.hexes:
                self.flag("route", f"{where}: Birmingham before phase 4")
            if "J12" in walk.hexes:
                self.seen["route through Birmingham"] += 1
            if walk.segments & used:
                self.flag("route", f"{where}: shares track with another train")
            used |= walk.segments
            if sum(1 for s in stops if s.hex == "B16") == 2:
                self.seen["route through both Louisville cities"] += 1
            value = sum(self._stop_value(g, s, phase) for s in stops)
            if sum(1 for s in stops if s.kind == "o") >= 2:
                value += 10 * len(stops)
                self.seen["route with two off-boards"] += 1
            if any(s.kind == "o" for s in stops):
                self.seen[f"route to an off-board in phase {phase}"] += 1
                bracket = ("lowest", "middle", "highest")[PHASE_BRACKET[phase]]
                self.seen[f"route to an off-board at its {bracket} value"] += 1
            if train_run.revenue != value:
                self.flag("revenue", f"{where}: earns {train_run.revenue}, expected {value}")
            total += value
        if rnd.current.revenue != total:
            self.flag("revenue", f"{ctx['round']} {corp}: total {rnd.current.revenue} != {total}")

    def _stop_value(self, g: Game, stop: object, phase: str) -> int:
        from engine.track import Node

        assert isinstance(stop, Node)
        hexdata = DATA["hexes"][stop.hex]
        if stop.kind == "o":
            return by_phase(hexdata["offboard"], phase)
        if stop.kind == "t":
            return by_phase(hexdata["towns"][stop.index]["revenue"], phase)
        placed = g.state.board.tiles.get(stop.hex)
        if placed is None:
            return int(hexdata["cities"][stop.index]["revenue"])
        return g.state.title.tile(placed.name).cities[stop.index].revenue  # type: ignore[return-value]

    def _tile(self, g: Game, action: object, ctx: dict[str, object]) -> None:
        from engine.actions import LayTile
        from engine.tiles import exits

        assert isinstance(action, LayTile)
        self.seen["tile"] += 1
        state = g.state
        corp = str(ctx["company"])
        phase = str(ctx["phase"])
        tile = state.title.tile(action.tile)
        hexdata = DATA["hexes"][action.hex]
        where = f"{ctx['round']} {corp} {action.tile} on {action.hex}"
        if tile.color not in TILE_COLOURS[phase]:
            self.flag("tile", f"{where}: {tile.color} in phase {phase}")
        if (hexdata.get("label") == "Y") != (tile.label == "Y"):
            self.flag("tile", f"{where}: Y tiles go on Y cities only, and Y cities take "
                      "only Y tiles")
        first = action.hex not in ctx["laid"]  # type: ignore[operator]
        cost = sum(hexdata.get("terrain", {}).values()) if first and action.hex not in \
            ctx["tiles"] else 0  # type: ignore[operator]
        if ctx["corp_cash"][corp] - cost != state.corporation(corp).cash:  # type: ignore[index]
            self.flag("tile", f"{where}: terrain: paid "
                      f"{ctx['corp_cash'][corp] - state.corporation(corp).cash}, "  # type: ignore[index]
                      f"expected {cost}")
        if cost:
            self.seen["terrain paid"] += 1
        if action.hex == "B16" and "B16" not in ctx["tiles"]:  # type: ignore[operator]
            self.seen["Louisville upgraded"] += 1
            if tile.color != "green" or tile.label != "Y" or 0 not in exits(tile,
                                                                            action.rotation):
                self.flag("tile", f"{where}: Louisville's first tile")
        key = f"{ctx['round']} {corp}"
        lays = self.turn_lays.setdefault(key, [])
        lays.append("yellow" if tile.color == "yellow" else "upgrade")
        if phase == "2" and lays != ["yellow"]:
            self.flag("tile", f"{where}: phase 2 allows one yellow tile, laid {lays}")
        if phase != "2" and lays not in (["yellow"], ["yellow", "yellow"], ["upgrade"]):
            self.flag("tile", f"{where}: one or two yellow tiles or one upgrade, laid {lays}")
        if len(lays) == 2:
            self.seen["two yellow tiles"] += 1

    def _train(self, g: Game, action: BuyTrain, ctx: dict[str, object]) -> None:
        state = g.state
        corp = str(ctx["company"])
        phase = g.rules.phase(state).name
        self.seen["train"] += 1
        president = state.corporation(corp).president or ""
        paid = (ctx["corp_cash"][corp] - state.corporation(corp).cash  # type: ignore[index,operator]
                + ctx["cash"].get(president, 0) - state.players[president].cash  # type: ignore[attr-defined]
                + self._new_or_income(g, ctx).get(president, 0))
        before = ctx["trains"][corp]  # type: ignore[index]
        if len(before) >= TRAIN_LIMIT[str(ctx["phase"])]:
            self.flag("train", f"{corp} bought a train at its limit: {before}")
        if action.source in ("bank", "pool") and paid != TRAIN_PRICE[action.train]:
            self.flag("train", f"{corp} paid {paid} for a {action.train}-train from the "
                      f"{action.source}")
        if phase != ctx["phase"]:
            self.seen[f"phase {phase}"] += 1
            if phase != action.train:
                self.flag("phase", f"phase {phase} began on a {action.train}-train")
            gone = RUSTED_BY.get(phase)
            if gone and any(t.name == gone for c in state.corporations.values()
                            for t in c.trains) | any(t.name == gone
                                                     for t in state.trains_pool):
                self.flag("phase", f"{gone}-trains still in play in phase {phase}")
            if phase == "5" and any(not p.closed for p in state.privates.values()):
                self.flag("phase", "privates open in phase 5")

    @staticmethod
    def _new_or_income(g: Game, ctx: dict[str, object]) -> dict[str, int]:
        """What the privates paid if the action ended an operating round and the next
        one began (its privates pay at once)."""
        out: dict[str, int] = {}
        if g.round_name != ctx["round"] and g.round_name.startswith("Operating"):
            for p in g.state.privates.values():
                if p.owner in g.state.players and not p.closed:
                    out[p.owner] = out.get(p.owner, 0) + PRIVATE_INCOME[p.sym]
        return out

    def _limits(self, g: Game) -> None:
        rnd = g.round
        if isinstance(rnd, OperatingRound) and len(rnd.discards) > 1:
            # PURCHASE TRAINS: companies discard in descending order of price, then the
            # one furthest right, then the top of a pile.
            self.seen["several companies discard"] += 1
            market = g.state.market

            def key(sym: str) -> tuple[int, int, int]:
                pos = market.positions[sym]
                return (-market_price(pos), -pos[1], market.stacks[pos].index(sym))

            if rnd.discards != sorted(rnd.discards, key=key):
                self.flag("discard order", f"{g.round_name}: {rnd.discards}")
        if isinstance(rnd, OperatingRound) and (rnd.discards or rnd.offer):
            return
        phase = g.rules.phase(g.state).name
        for corp in g.state.corporations.values():
            if len(corp.trains) > TRAIN_LIMIT[phase]:
                self.flag("limit", f"{corp.sym} has {len(corp.trains)} trains in phase {phase}")
        if any(p.closed for p in g.state.privates.values()) and phase in ("2", "3", "4"):
            self.flag("phase", f"a private closed in phase {phase}")

    def _order(self, g: Game) -> None:
        rnd = g.round
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        self.seen["operating order"] += 1
        state = g.state
        waiting = [c.sym for c in state.corporations.values()
                   if c.floated and c.sym not in rnd.done]

        def key(sym: str) -> tuple[int, int, int]:
            pos = state.market.positions[sym]
            return (-market_price(pos), -pos[1], state.market.stacks[pos].index(sym))

        want = min(waiting, key=key)
        if rnd.current.corporation != want:
            self.flag("order", f"{g.round_name}: {rnd.current.corporation} operates, "
                      f"expected {want}")
        planned = self.planned_order.get(g.round_name)
        if planned is None:
            self.planned_order[g.round_name] = sorted(waiting, key=key)
        elif [c for c in planned if c in waiting][:1] != [want]:
            self.seen["operating order changed during the round"] += 1

    def _new_round(self, g: Game, ctx: dict[str, object]) -> None:
        state = g.state
        old, new = str(ctx["round"]), g.round_name
        if old.startswith("Stock") and new.startswith("Operating"):
            self.seen["stock round end"] += 1
            # ENDING THE STOCK ROUND: wholly player-owned companies move up one.
            for sym in ctx["wholly_owned"]:  # type: ignore[attr-defined]
                self.seen["sold out moves up"] += 1
                want = market_up(ctx["pos"][sym])  # type: ignore[index]
                if state.market.positions[sym] != want:
                    self.flag("sold out", f"{old}: {sym} on {state.market.positions[sym]}, "
                              f"expected {want}")
            # Priority: left of the last to buy or sell.
            if self.sr_last_actor is not None:
                want_priority = state.next_seat(self.sr_last_actor)
                if state.priority != want_priority:
                    self.flag("priority", f"{old}: priority {state.priority}, expected "
                              f"{want_priority}")
            self.sr_last_actor = None
            # OPERATING ROUNDS: the privates pay first.
            want_cash = dict(ctx["cash"])  # type: ignore[call-overload]
            for sym, (owner, closed) in ctx["privates"].items():  # type: ignore[attr-defined]
                if owner in want_cash and not closed:
                    want_cash[owner] += PRIVATE_INCOME[sym]
            got_cash = {s: p.cash for s, p in state.players.items()}
            if got_cash != want_cash:
                self.flag("privates", f"{new}: {got_cash}, expected {want_cash}")
            self.seen["privates pay"] += 1
            # The number of operating rounds is the phase's when the set begins.
            if self.set_phase is not None and self.set_length != self.set_expected:
                self.flag("rounds", f"a set of {self.set_length} ORs in phase "
                          f"{self.set_phase}, expected {self.set_expected}")
            self.set_phase = g.rules.phase(state).name
            self.set_expected = 1 if state.end_triggered else ORS_PER_SET[self.set_phase]
            self.set_length = 1
            self.seen[f"set of ORs in phase {self.set_phase}"] += 1
        elif new.startswith("Operating"):
            self.set_length += 1
        if new.startswith("Operating") and isinstance(g.round, OperatingRound) and \
                g.round.current is not None:
            self._order(g)


def train_hungry(rng: random.Random) -> Callable[[Game, str], str]:
    """A dividend policy: withhold while a train is wanted and cannot be paid for; else
    pay out, or half the earnings three times in ten."""

    def dividend(g: Game, corp: str) -> str:
        from engine import trains

        c = g.state.corporation(corp)
        offer = trains.next_offered(g.state)
        limit = trains.train_limit(g.rules, g.state, c)
        if offer and len(c.trains) < limit and c.cash < g.state.title.train(offer.name).price:
            return "withhold"
        return "half" if rng.random() < 0.3 else "payout"

    return dividend


def forced_sale_candidate(g: Game) -> tuple[str, str, str] | None:
    """(company, president, company to sell) when the operating company stands at its
    train step with a route, no train and less money than the cheapest train, and its
    president, even with his cash, needs more than one share's price of a company of
    which he holds two plain shares that may go to the pool."""
    from engine import routes, trains

    rnd = g.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer or \
            rnd.discards or rnd.current.step != rnd.steps.index("train"):
        return None
    corp = g.state.corporation(rnd.current.corporation)
    cheapest = trains.cheapest_available(g.state)
    if corp.trains or cheapest is None:
        return None
    seat = corp.president or ""
    need = cheapest[1] - corp.cash - g.state.players[seat].cash
    if need <= 0:
        return None
    for other in g.state.corporations.values():
        if other.sym == corp.sym or not other.operated:
            continue
        plain = other.percent_held_by(seat) - (20 if other.president == seat else 0)
        if (plain >= 20 and other.pool_percent <= 30
                and need > g.state.market.price(other.sym)
                and routes.has_route(g.rules, g.state, corp)):
            return corp.sym, seat, other.sym
    return None


@functools.lru_cache(maxsize=1)
def _forced_purchase_game() -> Game:
    for seed in (2, 3, 8, 11):
        g = new_game(SEATS, seed)
        Driver(g, seed, dividend=train_hungry(random.Random(seed))).play(
            until=lambda game: forced_sale_candidate(game) is not None, max_moves=1000)
        if forced_sale_candidate(g) is not None:
            return g
    raise AssertionError("no driven game reached a forced purchase needing two sales")


def forced_purchase_position() -> tuple[Game, str, str, str]:
    """A driven game (4 players) stopped where a company must buy a train its treasury
    and its president's cash cannot pay for, and the president must sell at least two
    shares of another company (see forced_sale_candidate): (game, company, president,
    company to sell). The game is a fresh copy."""
    g = _forced_purchase_game().clone()
    found = forced_sale_candidate(g)
    assert found is not None
    return g, *found


def certificates(g: Game, seat: str) -> int:
    """Certificates a player holds: every share certificate (a president's counts one)
    and every open private (PRIVATE COMPANIES: they count toward the limit)."""
    state = g.state
    return (sum(len(c.certificates_of(seat)) for c in state.corporations.values())
            + sum(1 for p in state.privates.values() if p.owner == seat and not p.closed))


def _stock_turn_seat(g: Game) -> str | None:
    from engine.rounds.stock import StockRound

    rnd = g.round
    if not isinstance(rnd, StockRound) or g.turn() is None:
        return None
    s = rnd.s
    if s.turn.bought or s.turn.sold or s.par_pending or s.auction or s.proposal:
        return None
    return s.current


def _buyable(g: Game, seat: str, sym: str) -> str | None:
    corp = g.state.corporation(sym)
    if sym in g.state.players[seat].sold_this_round:
        return None
    if g.state.players[seat].cash < g.state.market.price(sym) or \
            corp.percent_held_by(seat) + 10 > 60:
        return None
    return next((src for src in ("pool", "treasury") if corp.certificates_of(src)), None)


def swap_over_limit(g: Game) -> tuple[str, str, str, str] | None:
    """(buyer, president, company, source) when the player to act, below the limit, can
    buy a share that takes the presidency of a company from a player at the limit."""
    y = _stock_turn_seat(g)
    limit = g.rules.certificate_limit(g.state)
    if y is None or certificates(g, y) >= limit:
        return None
    for corp in g.state.corporations.values():
        x = corp.president
        if x is None or x == y or not corp.floated or certificates(g, x) < limit:
            continue
        if corp.percent_held_by(y) + 10 > corp.percent_held_by(x):
            src = _buyable(g, y, corp.sym)
            if src is not None:
                return y, x, corp.sym, src
    return None


def buy_at_limit_taking_presidency(g: Game) -> tuple[str, str, str, str] | None:
    """(player, president, company, source) when the player to act holds exactly the
    limit and could otherwise buy a share that makes him president of a company."""
    x = _stock_turn_seat(g)
    if x is None or certificates(g, x) != g.rules.certificate_limit(g.state):
        return None
    for corp in g.state.corporations.values():
        p = corp.president
        if p is None or p == x or not corp.floated:
            continue
        if corp.percent_held_by(x) + 10 > corp.percent_held_by(p):
            src = _buyable(g, x, corp.sym)
            if src is not None:
                return x, p, corp.sym, src
    return None


@functools.lru_cache(maxsize=4)
def _driven_until(seed: int, which: str) -> Game:
    finder = {"swap": swap_over_limit, "limit": buy_at_limit_taking_presidency}[which]
    g = new_game(SEATS, seed)
    Driver(g, seed, dividend=train_hungry(random.Random(seed)), sells_shares=0.15,
           buys_shares=1.0).play(until=lambda game: finder(game) is not None, max_moves=1000)
    return g


def limit_position(which: str) -> tuple[Game, tuple[str, str, str, str]]:
    """A driven four-player game stopped in a stock round where `which` ("swap": see
    swap_over_limit; "limit": see buy_at_limit_taking_presidency) applies; a fresh copy."""
    finder = {"swap": swap_over_limit, "limit": buy_at_limit_taking_presidency}[which]
    for seed in (1, 2, 3):
        g = _driven_until(seed, which).clone()
        found = finder(g)
        if found is not None:
            return g, found
    raise AssertionError(f"no driven game reached a {which} position")


def unoperated_holding_in_forced_purchase(g: Game) -> str | None:
    """A company of which the president of the company to operate holds shares although
    it has not yet operated, when that company must buy a train its treasury and its
    president's cash cannot pay for (so he must sell)."""
    from engine import routes, trains

    rnd = g.round
    if not isinstance(rnd, OperatingRound) or rnd.current is None or rnd.offer or \
            rnd.discards:
        return None
    corp = g.state.corporation(rnd.current.corporation)
    cheapest = trains.cheapest_available(g.state)
    if corp.trains or cheapest is None:
        return None
    seat = corp.president or ""
    if cheapest[1] <= corp.cash + g.state.players[seat].cash:
        return None
    for other in g.state.corporations.values():
        if (other.sym != corp.sym and not other.operated and other.percent_held_by(seat)
                and other.pool_percent < 50 and routes.has_route(g.rules, g.state, corp)):
            return other.sym
    return None


@functools.lru_cache(maxsize=1)
def _unoperated_game() -> Game:
    for seed in (2, 12):
        g = new_game(SEATS, seed)
        Driver(g, seed, dividend=train_hungry(random.Random(seed)), sells_shares=0.15,
               buys_shares=1.0).play(
            until=lambda game: unoperated_holding_in_forced_purchase(game) is not None,
            max_moves=1500)
        if unoperated_holding_in_forced_purchase(g) is not None:
            return g
    raise AssertionError("no driven game reached the position")


def forced_purchase_with_unoperated_shares() -> tuple[Game, str, str]:
    """A driven game stopped where the company to operate must buy a train its
    president must help pay for, and he holds shares of a company that has not yet
    operated: (game, president, that company); a fresh copy."""
    g = _unoperated_game().clone()
    sym = unoperated_holding_in_forced_purchase(g)
    turn = g.turn()
    assert sym is not None and turn is not None
    return g, turn.seat, sym
