"""Games for the 1850 rule tests, played through `Game.apply` with real actions.

Three players, Ann, Bob and Cy, with Ann holding the priority card (3.2): each starts
with $2100 / 3 = $700 (3.3). `privates_sold` sells the seven privates at face value
in the order of 5.7 (Ann P1, Bob P2, Cy P3, Ann P4, Bob P5, Cy P6, Ann P7); then
`companies_started` pars and sells six shares of two companies so that both float.

The market squares used are named by (row, column) of data/1850.json (row 0 at the
top): the start squares are $100 (0, 6), $90 (1, 6), $82 (2, 6), $76 (3, 6),
$72 (4, 6), $68 (5, 6).
"""

from __future__ import annotations

import json
from pathlib import Path

from scenario_moves import play, seat_to_act

from engine.actions import BuyPrivate, BuyShares, Done, Par, Pass
from engine.game import Game, Setup
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound

SEATS = ("Ann", "Bob", "Cy")
RECORD = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "1850" / "115810.json"


def new_game(seats: tuple[str, ...] = SEATS, options: frozenset[str] = frozenset()) -> Game:
    return Game(Setup("1850", seats, 0, options, priority=seats[0]))


now = seat_to_act


def privates_sold(g: Game) -> None:
    """5.7: each player in turn buys the cheapest private at face value."""
    for _ in range(7):
        rnd = g.round
        assert isinstance(rnd, StockRound)
        cheapest = rnd.cheapest()
        assert cheapest is not None
        g.apply(now(g), BuyPrivate(cheapest.sym))


def companies_started(g: Game) -> None:
    """After the privates: Bob pars the CB&Q at $68, Cy the GN at $76; both sell six
    shares (CBQ: Bob 40%, Ann 20%; GN: Cy 40%, Ann 20%) and the round ends.
    Cash afterwards: Ann $182, Bob $308, Cy $266."""
    assert now(g) == "Bob"
    play(g, ("Bob", Par("CBQ", 68)), ("Cy", Par("GN", 76)),
         ("Ann", BuyShares("CBQ")), ("Bob", BuyShares("CBQ")), ("Cy", BuyShares("GN")),
         ("Ann", BuyShares("CBQ")), ("Bob", BuyShares("CBQ")), ("Cy", BuyShares("GN")),
         ("Ann", BuyShares("GN")), ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("GN")))


def pass_round(g: Game) -> None:
    """Every player passes: the stock round ends."""
    start = g.state.stock_round_number
    while isinstance(g.round, StockRound) and g.state.stock_round_number == start:
        g.apply(now(g), Pass())


def finish_operating_round(g: Game) -> None:
    """Each company ends its turn at once (no track, no run): `done` or `pass`."""
    while isinstance(g.round, OperatingRound):
        legal = g.legal()
        g.apply(now(g), Done() if "done" in legal else Pass())


def record_game(moves: int) -> Game:
    """The recorded game 115810 after its first `moves` of our moves."""
    replay = import_record(json.loads(RECORD.read_text()))
    game = replay.game
    return Game(game.setup, game.log[:moves])
