"""1861: the Russian State Railway's Moscow station and its last train (7.4), played at
positions of record 167259 (an 18xx.games game).

Where a position needs what the record never shows (a Moscow without an RSR station,
a richer RSR), the test says what it changes before playing the rule out."""

from __future__ import annotations

from scenarios_1861 import now, record_game

from engine.actions import Done, LayTile
from engine.national import RESERVE
from engine.state import BANK


def _rsr_stations(g: object, hex_id: str) -> int:
    tokens = g.state.board.tokens.get(hex_id, {})  # type: ignore[attr-defined]
    return sum(corps.count("RSR") for corps in tokens.values())


def test_7_4_the_rsr_places_its_station_when_moscow_upgrades_to_grey() -> None:
    g = record_game(586)  # OR 5.2: M-V lays the grey Moscow (639)
    state = g.state
    rsr = state.corporations["RSR"]
    # In the record the RSR already holds a Moscow station (a nationalised company's);
    # here it is taken back, as if that company had never stationed in Moscow.
    for corps in state.board.tokens["H8"].values():
        if "RSR" in corps:
            corps.remove("RSR")
            rsr.token_costs.append(0)
    rsr.markers.add(RESERVE + "H8")
    left = len(rsr.token_costs)
    assert _rsr_stations(g, "H8") == 0
    g.apply(now(g), LayTile("639", "H8", 0))
    assert _rsr_stations(g, "H8") == 1  # 7.4, on the space kept for it (10.5)
    assert len(rsr.token_costs) == left - 1
    assert RESERVE + "H8" not in rsr.markers
    assert "RSR places its station in Moscow" in state.log


def test_7_4_the_rsr_with_a_moscow_station_places_no_second_one() -> None:
    g = record_game(586)
    rsr = g.state.corporations["RSR"]
    assert _rsr_stations(g, "H8") == 1  # taken from a nationalised company (11)
    left = len(rsr.token_costs)
    g.apply(now(g), LayTile("639", "H8", 0))
    assert _rsr_stations(g, "H8") == 1 and len(rsr.token_costs) == left


def test_7_4_the_rsr_buys_the_first_8_train_and_no_more() -> None:
    """7.4: it may buy the first 8-train and no longer operates once one is bought;
    10.10: it buys the cheapest new trains while it can pay."""
    g = record_game(595)  # OR 5.2: the RSR has run and buys its trains at its turn's end
    state = g.state
    rsr = state.corporations["RSR"]
    assert [t.name for t in state.trains_offered[:5]] == ["6", "7", "7", "8", "8"]
    # R3000 more from the bank: enough for a 6, two 7s and two 8s (R4250 with its own).
    state.transfer_cash(BANK, "RSR", 3000)
    assert rsr.cash >= 650 + 2 * 800 + 2 * 1000
    start = len(state.log)
    g.apply(now(g), Done())
    bought = [line for line in state.log[start:] if line.startswith("RSR buys")]
    assert [line.split()[3] for line in bought] == ["6-train", "7-train", "7-train",
                                                    "8-train"]
    assert [t.name for t in rsr.trains].count("8") == 1
    assert g.rules.phase(state).name == "8"
    assert rsr.cash >= 1000  # it could pay for another 8-train, and buys none (7.4)
    assert not g.rules.national_operates(state)  # type: ignore[attr-defined]
