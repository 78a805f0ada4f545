"""Games for the 1825 Unit 1 rule tests, played through `Game.apply` with real actions.

Four players, Ann, Bob, Cy and Di, seated in that order, are dealt the four privates in
ascending value (3): Ann S&M (£30), Bob C&HP (£75), Cy C&W (£130), Di L&M (£210), each
paying its face value from £630, so they hold £600, £555, £500 and £420; Ann, seated
first, holds the Priority Deal.

`first_round` plays Share Dealing Round 1: the LNWR sold out (Ann the director's
certificate and two shares, the others two shares each), then the GWR's director's
certificate (Bob) and four shares (Cy, Di, Ann, Bob), so that both have sold six or
more new shares and form in the first operating round (4.1). Cash afterwards: Ann £110,
Bob £85, Cy £210, Di £130; the Priority Deal goes to Cy, left of Bob, the last to buy.
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path
from typing import Any

from scenario_moves import seat_to_act

from engine.actions import BuyShares, BuyTrain, Done, LayTile, Pass, PlaceToken
from engine.game import Game, Setup
from engine.legal import legal_actions
from engine.records import RecordMapper, expanded, folded_actions, replay_action, setup_of
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound

SEATS = ("Ann", "Bob", "Cy", "Di")


def new_game(seats: tuple[str, ...] = SEATS, options: frozenset[str] = frozenset()) -> Game:
    return Game(Setup("1825", seats, 0, options))


now = seat_to_act


def buy(g: Game, seat: str, corp: str, source: str | None = None) -> None:
    """A purchase that is the player's whole turn (`done` after it if need be)."""
    g.apply(seat, BuyShares(corp, 1, source))  # type: ignore[arg-type]
    if now(g) == seat and isinstance(g.round, StockRound):
        g.apply(seat, Done())


def first_round(g: Game) -> None:
    order = ("Ann", "Bob", "Cy", "Di")
    for i in range(9):  # the LNWR sold out: the director's certificate and 8 shares
        buy(g, order[i % 4], "LNWR")
    for seat in ("Bob", "Cy", "Di", "Ann", "Bob"):  # the GWR: director and 4 shares
        buy(g, seat, "GWR")
    for seat in ("Cy", "Di", "Ann", "Bob"):
        g.apply(seat, Pass())
    assert isinstance(g.round, OperatingRound)


def pass_company(g: Game) -> None:
    """The operating company does nothing more this turn."""
    rnd = g.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    g.apply(now(g), Done())


def lays_at(g: Game, hex_id: str) -> list[LayTile]:
    """The legal tile lays of the operating company on HEX_ID."""
    return [a for a in legal_actions(g) if isinstance(a, LayTile) and a.hex == hex_id]


def lay(g: Game, hex_id: str, tile: str | None = None) -> LayTile:
    """Lay a legal tile on HEX_ID (TILE if named) for the operating company."""
    options = [a for a in lays_at(g, hex_id) if tile is None or a.tile == tile]
    assert options, f"no legal lay on {hex_id}"
    g.apply(now(g), options[0])
    return options[0]


def company_turn(g: Game) -> str:
    rnd = g.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    return rnd.current.corporation


def all_pass(g: Game) -> None:
    """Every player passes in the share dealing round under way."""
    rnd = g.round
    assert isinstance(rnd, StockRound)
    while g.round is rnd:
        g.apply(now(g), Pass())


def lnwr_first_turn(g: Game) -> None:
    """Operating Round 1.1, the LNWR (Ann): tile 8 on T14 joins its base at Wolverton
    (T16, £10) to Birmingham's south-east station (S13, £40); a base there for £40, a
    2-train for £180 (company credit £1000 -> £780); no income yet, so its price falls
    from £100 to £90 (6.3)."""
    g.apply("Ann", LayTile("8", "T14", 2))
    g.apply("Ann", PlaceToken("S13", None))
    g.apply("Ann", BuyTrain("2"))
    g.apply("Ann", Done())


#: The one recorded 1825 game (R1, Wales), from the shared fixtures.
R1_RECORD = Path(__file__).resolve().parents[3] / "shared/fixtures/1825/1825_game_end_bank.json"


def r1_record_prefix(count: int, record: dict[str, Any] | None = None
                     ) -> tuple[Game, dict[str, str]]:
    """The recorded R1 game (or RECORD) read up to its first COUNT actions as the importer
    reads them, with the importer's names of the record's players."""
    if record is None:
        record = json.loads(R1_RECORD.read_text())
    setup, names = setup_of(record)
    game = Game(setup)
    mapper = RecordMapper(game, names)
    for index, raw in enumerate(islice(expanded(folded_actions(record["actions"])), count)):
        replay_action(game, mapper, index, raw)
    return game, names
