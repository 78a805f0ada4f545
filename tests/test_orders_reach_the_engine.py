"""Every order of the contract, sent to a real 18TN game, gets an answer: it applies,
or the engine refuses it with a GameError a player can read. Never another exception.
Orders of other titles' mechanics are refused as not available in 18TN."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.errors import GameError
from engine.game import Game
from engine.records import import_record
from grammar.commands import Command
from grammar.errors import OrderError
from grammar.names import names_for_title
from grammar.parser import parse_line

CONTRACT = Path(__file__).parent / "grammar" / "ORDERS.md"
FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"
OTHER_TITLES = {"take_loan", "repay_loan", "pay_mesabi", "lease_train", "issue_shares",
                "redeem_shares", "reissue_shares", "protect", "decline_protection",
                "place_edge_token", "convert", "merge", "nationalise", "keep",
                "start_auction"}


def contract_lines() -> list[str]:
    text = CONTRACT.read_text()
    lines = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for line in block.splitlines():
            code = line.split("  #")[0].strip()
            if code:
                lines.append(code)
    return lines


def positions() -> dict[str, Game]:
    replay = import_record(json.loads(FIXTURE.read_text()))
    log = replay.game.log
    setup = replay.game.setup
    out = {"first stock round": Game(setup, log[:3])}
    for n in range(40, len(log)):
        game = Game(setup, log[:n])
        if game.round_name.startswith("Operating") and "operating round" not in out:
            out["operating round"] = game
        if game.round_name == "Stock Round 3":
            out["later stock round"] = game
            break
    assert len(out) == 3
    return out


@pytest.fixture(scope="module")
def games() -> dict[str, Game]:
    return positions()


def test_every_contract_order_gets_an_answer(games: dict[str, Game]) -> None:
    first = games["first stock round"]
    names = names_for_title(first.rules.title, first.setup.seats)
    refused_elsewhere = 0
    for line in contract_lines():
        try:
            orders = parse_line(line, names)
        except OrderError:
            continue  # another title's names (SOO, K-B, L&M): the grammar answers
        for position, game in games.items():
            for order in orders:
                if isinstance(order, Command):
                    continue
                turn = game.turn()
                assert turn is not None
                trial = game.clone()
                try:
                    trial.apply(turn.seat, order)
                except GameError as exc:
                    assert exc.message, f"{line!r} in {position}: empty refusal"
                    if order.kind in OTHER_TITLES:
                        assert "is not available in 18TN" in exc.message, (line, exc.message)
                        refused_elsewhere += 1
    assert refused_elsewhere >= 10
