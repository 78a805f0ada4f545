"""Exporting games as 18xx.games records (engine.records.writing): the site's forms, and our own
import reading every export back to the same game."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from random_play import choose
from tn_scenarios import bankruptcy_with_a_saleable_share, three_company_opening

from engine.actions import (
    Accept,
    Bid,
    BuyPrivate,
    BuyTrain,
    Decline,
    Done,
    LayTile,
    Pass,
    Undo,
)
from engine.game import Game, Move, Setup
from engine.legal import legal_actions
from engine.records import (
    OUR_ACTIONS,
    OUR_SETUP,
    Replay,
    connections,
    export_record,
    idle_alike,
    import_record,
    site_idle,
    site_train_ids,
    walk_hexes,
)
from engine.track import Node
from engine.walks import Walk

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
RECORD = FIXTURES / "18TN" / "7818.json"
SITE_IDS = {797: 1, 648: 2, 523: 3, 3759: 4}  # the record's player ids -> our export's

# The site's forms every one of our actions of that kind reads back from, unextended.
PLAIN_SITE_TYPES = {"lay_tile", "place_token", "run_routes", "dividend", "par", "bid",
                    "buy_company", "discard_train", "bankrupt"}
# Our actions whose wording the site's form does not keep (`done`, `sell 2`, a train
# bought without naming its price, ...), or which the site has no form for.
# An empty run and a dividend of nothing travel in messages: the site skips those steps.
EXTENDED_KINDS = {"done", "pass", "sell_shares", "buy_train", "buy_shares", "issue_shares",
                  "redeem_shares", "decline", "accept", "sell_private", "run_routes",
                  "dividend"}


@functools.lru_cache(maxsize=1)
def record_7818() -> dict[str, Any]:
    if not RECORD.exists():
        pytest.fail(f"fixture {RECORD} is missing: shared/ must sit beside the repository")
    data: dict[str, Any] = json.loads(RECORD.read_text())
    return data


@functools.lru_cache(maxsize=1)
def exported_7818() -> tuple[Replay, dict[str, Any]]:
    replay = import_record(record_7818())
    return replay, export_record(replay.game, game_id=7818)


def standing(game: Game) -> list[Move]:
    """The moves that stand after undo folding."""
    return [game.log[i] for i in game.effective]


def assert_reads_back(game: Game, record: dict[str, Any]) -> Replay:
    """The export is JSON, numbered 1, 2, 3, ... and imports to the same game."""
    record = json.loads(json.dumps(record))
    assert [a["id"] for a in record["actions"]] == list(range(1, len(record["actions"]) + 1))
    back = import_record(record)
    assert back.game.setup == game.setup
    # The same moves, but for an idle player's `done` in a stock round: the site passes
    # him by itself, unrecorded, and the importer's pass does the same (export.idle_alike).
    ours = standing(game)
    # The game's last moves may be passes the site makes by itself at once, which the
    # record leaves out: each is one the importer would make (site_idle).
    for move in ours[len(back.game.log):]:
        turn = back.game.turn()
        assert turn is not None and turn.seat == move.seat and site_idle(back.game, move.seat)
        back.game.apply(move.seat, move.action)
    assert len(back.game.log) == len(ours)
    assert all(a == b or idle_alike(a, b) for a, b in zip(back.game.log, ours, strict=True))
    assert back.game.scores() == game.scores()
    assert back.game.round_name == game.round_name
    assert back.game.state.board.tiles == game.state.board.tiles
    assert back.game.state.board.tokens == game.state.board.tokens
    return back


def extensions(record: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(site type, our action kinds) of every action that carries our own actions."""
    return [(a["type"], [own["type"] for own in a[OUR_ACTIONS]])
            for a in record["actions"] if OUR_ACTIONS in a]


# --- the recorded game 7818 -----------------------------------------------------------


def test_7818_round_trip_gives_the_same_moves_and_scores() -> None:
    replay, record = exported_7818()
    back = assert_reads_back(replay.game, record)
    assert back.game.scores() == {"Player 2": 5615, "Player 1": 5368, "Player 4": 4355,
                                  "Player 3": 4354}
    assert record["status"] == "finished" and record["game_end_reason"] == "bank"
    ids = {p["name"]: str(p["id"]) for p in record["players"]}
    assert record["result"] == {ids[seat]: value for seat, value in back.result.items()}
    assert back.result == back.game.scores()
    assert record["title"] == "18TN" and record["id"] == 7818
    assert record["settings"]["seed"] == 7818


def test_7818_exports_in_the_sites_own_forms_without_extensions() -> None:
    _, record = exported_7818()
    assert extensions(record) == []
    assert OUR_SETUP not in record  # the first player listed holds the Priority Deal


def site_fields(action: dict[str, Any]) -> dict[str, Any]:
    """The fields compared with the record: everything but ids and bookkeeping; routes as
    trains and the hexes they pass (the site keeps no direction for a chain)."""
    out = {k: v for k, v in action.items()
           if k not in ("id", "original_id", "user", "created_at")}
    if "routes" in out:
        out["routes"] = [(r["train"], sorted((walk := walk_hexes(r["connections"]),
                                              walk[::-1]))[0]) for r in out["routes"]]
    return out


def test_7818_exports_the_records_own_actions_field_by_field() -> None:
    """Every action, in order: tile copies ("6-0" taken back and laid again), cities
    ("TN2-0-0") and slots, share ids of the IPO, the pool and sales ("GMO_5", "GMO_1"),
    trains ("3'-0"), prices, kinds; the idle last pass of Stock Round 1 left out."""
    _, record = exported_7818()
    fixture = record_7818()["actions"]
    assert len(record["actions"]) == len(fixture)
    for ours, theirs in zip(record["actions"], fixture, strict=True):
        expected = site_fields(theirs)
        if theirs["entity_type"] == "player":
            expected["entity"] = SITE_IDS[theirs["entity"]]
        assert site_fields(ours) == expected, (ours["id"], theirs["id"])


def test_7818_sample_of_fields_named_by_the_site() -> None:
    _, record = exported_7818()
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in record["actions"]:
        by_type.setdefault(action["type"], []).append(action)
    lays = [(a["hex"], a["tile"]) for a in by_type["lay_tile"]]
    assert lays[:3] == [("B15", "8-0"), ("E10", "58-0"), ("F17", "5-0")]
    assert ("H7", "6-0") in lays  # 6-0 came back from Nashville (F11) and is laid again
    # Slot 0 of Nashville (TN2 on F11) is kept for TC's home station.
    assert [(a["city"], a["slot"]) for a in by_type["place_token"]][:2] == [
        ("TN2-0-0", 1), ("6-2-0", 0)]
    assert by_type["par"][0]["share_price"] == "90,1,4"
    assert [a["train"] for a in by_type["buy_train"]][8:10] == ["3'-0", "3'-1"]
    first = by_type["buy_train"][0]
    assert (first["train"], first["price"], first["variant"]) == ("2-0", 80, "2")
    assert by_type["sell_shares"][0]["shares"] == ["GMO_1"]
    assert {a["kind"] for a in by_type["dividend"]} == {"payout", "withhold"}


# --- games played here ----------------------------------------------------------------




def random_game(title: str, seed: int, moves: int, undo_at: tuple[int, ...]) -> Game:
    """A game of random legal moves; at each of `undo_at` the last two moves are taken
    back (Undo stays in the log; the export has only the moves that stand)."""
    rng = random.Random(seed)
    game = Game(Setup(title, ("Ann", "Bob", "Cy", "Di")[: 3 + seed % 2], seed=seed))
    for number in range(moves):
        turn = game.turn()
        if turn is None:
            break
        if number in undo_at:
            game.apply(turn.seat, Undo(len(game.log) - 2))
            continue
        game.apply(turn.seat, choose(rng, legal_actions(game)))
    return game


@pytest.mark.parametrize(("title", "seed", "moves"), [("18TN", 1, 150), ("1851", 1, 160)])
def test_random_games_with_undo_read_back_to_the_same_game(title: str, seed: int,
                                                           moves: int) -> None:
    game = random_game(title, seed, moves, undo_at=(40, 90))
    assert any(isinstance(m.action, Undo) for m in game.log)
    record = export_record(game, game_id=f"{title}-{seed}")
    assert_reads_back(game, record)
    assert record["status"] == "active" and record["result"] == {}
    assert all(a["type"] != "undo" for a in record["actions"])
    for site_type, ours in extensions(record):
        assert site_type not in PLAIN_SITE_TYPES, (site_type, ours)
        assert set(ours) <= EXTENDED_KINDS, (site_type, ours)
    # The seats, the seed and the Priority Deal as drawn come back.
    assert record[OUR_SETUP] == {"seats": [1, 2, 3, 4][: len(game.setup.seats)],
                                 "priority": None}
    first = game.setup.priority or Game(game.setup).state.priority
    assert record["players"][0]["name"] == first


@functools.lru_cache(maxsize=1)
def opening_turns() -> tuple[Game, str]:
    """OR 1.1 of a fresh game: TC lays one yellow tile and buys a 2-train; SR offers $50
    for it (TC's president declines), then $60 (accepted), and ends its turn."""
    game = three_company_opening()
    turn = game.turn()
    assert turn is not None and (turn.entity, turn.step) == ("TC", "track")
    lay = next(a for a in legal_actions(game) if isinstance(a, LayTile))
    game.apply(turn.seat, lay)
    game.apply(turn.seat, BuyTrain("2"))
    turn = game.turn()
    assert turn is not None and turn.entity == "SR"
    game.apply(turn.seat, BuyTrain("2", "TC", 50))
    game.apply("Bob", Decline())
    game.apply(turn.seat, BuyTrain("2", "TC", 60))
    game.apply("Bob", Accept())
    game.apply(turn.seat, Done())
    return game, lay.hex


def test_site_passes_fill_the_steps_our_engine_passes_by_itself() -> None:
    """After one yellow tile the site still offers a second lay: buying a train straight
    away takes a site pass first, which stands for nothing of ours. Our `done` is the
    site's pass at each step it would still stop at."""
    game, hex_id = opening_turns()
    record = export_record(game)
    assert_reads_back(game, record)
    tc = [a for a in record["actions"] if a.get("entity") == "TC"]
    assert [a["type"] for a in tc] == ["lay_tile", "pass", "buy_train"]
    assert tc[0]["hex"] == hex_id and tc[1][OUR_ACTIONS] == []
    sr = [a for a in record["actions"] if a.get("entity") == "SR"]
    assert sr[-1]["type"] == "pass" and sr[-1][OUR_ACTIONS] == [{"type": "done"}]


def test_a_refused_offer_for_a_train_is_no_purchase_on_the_site() -> None:
    game, _ = opening_turns()
    record = export_record(game)
    assert_reads_back(game, record)
    carried = [own for a in record["actions"] if a["type"] == "message"
               for own in a[OUR_ACTIONS]]
    assert carried == [{"type": "buy_train", "train": "2", "source": "TC", "price": 50},
                       {"type": "decline"}]
    purchases = [a for a in record["actions"] if a["type"] == "buy_train"]
    assert [(a["entity"], a["train"], a["price"]) for a in purchases] == [
        ("TC", "2-0", 80), ("SR", "2-0", 60)]
    # The site sells between companies without asking: the importer accepts by itself.
    assert OUR_ACTIONS not in purchases[1]
    assert all("accept" not in kinds for _, kinds in extensions(record))


def test_a_game_ended_by_a_bankruptcy_with_the_players_names() -> None:
    game = bankruptcy_with_a_saleable_share()
    game.apply("Bob", Done())  # TC cannot buy its forced train: Bob is bankrupt
    names = {"Ann": "Ann Arbor", "Bob": "Bob Bell", "Cy": "Cy Cole", "Di": "Di Dunn"}
    record = json.loads(json.dumps(export_record(game, game_id=42, players=names,
                                                 description="scripted")))
    assert record["status"] == "finished" and record["game_end_reason"] == "bankrupt"
    assert record["actions"][-1] == {**record["actions"][-1], "type": "bankrupt",
                                     "entity": "TC", "entity_type": "corporation"}
    assert [p["name"] for p in record["players"]] == list(names.values())
    ids = {p["name"]: str(p["id"]) for p in record["players"]}
    scores = game.scores()
    assert record["result"] == {ids[names[seat]]: value for seat, value in scores.items()}
    back = import_record(record)
    renamed = [(names[m.seat], m.action) for m in standing(game)]
    # A private sold between players names its buyer by the record's name.
    assert [(m.seat, m.action) for m in back.game.log if m.action.kind != "sell_private"] \
        == [(s, a) for s, a in renamed if a.kind != "sell_private"]
    assert back.game.scores() == {names[seat]: value for seat, value in scores.items()}
    assert back.result == back.game.scores()


def test_a_whole_1851_game_to_the_bank_breaking() -> None:
    from scenarios_1851 import SEATS, Driver, new_game, train_hungry

    game = new_game(SEATS, 5)
    Driver(game, 5, dividend=train_hungry(random.Random(5)), sells_shares=0.15).play(
        max_moves=1500)
    assert game.state.game_over and game.state.end_reason == "bank"
    record = export_record(game)
    assert_reads_back(game, record)
    assert record["status"] == "finished" and record["game_end_reason"] == "bank"
    assert {a["type"] for a in record["actions"]} >= {"par", "buy_shares", "lay_tile",
                                                     "place_token", "run_routes",
                                                     "dividend", "buy_train"}


# --- pieces ---------------------------------------------------------------------------


def test_a_route_is_the_sites_chains_from_stop_to_stop() -> None:
    walk = Walk((Node("F11", "c", 0), Node("H7", "c", 0), Node("D7", "c", 0)), frozenset(),
                ("F11", "G10", "G8", "H7", "G6", "F7", "E6", "D7"))
    chains = connections(walk)
    assert chains == [["F11", "G10", "G8", "H7"], ["H7", "G6", "F7", "E6", "D7"]]
    assert walk_hexes(chains) == walk.hexes


def test_the_site_names_the_later_civil_war_trains_apart() -> None:
    game = Game(Setup("18TN", ("Ann", "Bob", "Cy")))
    ids = site_train_ids(game.state.title)
    assert [ids[f"3-{i}"] for i in range(5)] == ["3-0", "3-1", "3-2", "3'-0", "3'-1"]
    assert [ids["6-0"], ids["6-1"], ids["8-6"]] == ["6-0", "6'-0", "8-6"]


# --- the recorded 1850 game 115810 ------------------------------------------------------


@functools.lru_cache(maxsize=1)
def exported_115810() -> tuple[dict[str, Any], Replay, dict[str, Any]]:
    path = FIXTURES / "1850" / "115810.json"
    if not path.exists():
        pytest.fail(f"fixture {path} is missing: shared/ must sit beside the repository")
    fixture: dict[str, Any] = json.loads(path.read_text())
    replay = import_record(fixture)
    return fixture, replay, export_record(replay.game, game_id=115810)


def _corporate(actions: list[dict[str, Any]], kind: str) -> list[tuple[Any, ...]]:
    return [(a["entity"], a.get("shares") or a.get("choice")) for a in actions
            if a["type"] == kind and a["entity_type"] == "corporation"]


def test_1850_export_is_all_in_the_sites_forms_and_reads_back() -> None:
    """Every move of 115810 has a site form (no message carries one of ours): the
    18xx.games engine replays this export to the recorded scores (10301/10256/7757)."""
    _, replay, record = exported_115810()
    assert_reads_back(replay.game, record)
    assert [a for a in record["actions"] if a["type"] == "message"] == []
    assert record["result"] == {"1": 7757, "2": 10256, "3": 10301}


def test_1850_redemptions_and_edge_tokens_are_the_companies_own_actions() -> None:
    """5.10: a redemption is the company's purchase of its share (the holder's consent is
    ours alone); 7.2 the edge token and 6.3 the Mesabi rights are the company's choices;
    all three as the recorded game has them, share by share."""
    fixture, _, record = exported_115810()
    assert _corporate(record["actions"], "buy_shares") == \
        _corporate(fixture["actions"], "buy_shares")
    assert _corporate(record["actions"], "choose") == _corporate(fixture["actions"], "choose")
    assert len(_corporate(record["actions"], "buy_shares")) >= 10


def test_1850_share_purchases_name_the_sites_certificates() -> None:
    """Every purchase by a player names the certificates the recorded game names: from
    the IPO, from the pool (the share longest there) and, under 5.9 protection, the very
    shares just sold (the newest in the pool)."""
    fixture, _, record = exported_115810()
    ours_by_name = {p["name"]: p["id"] for p in record["players"]}
    ids = {p["id"]: ours_by_name[p["name"]] for p in fixture["players"]}
    # The site's programmed purchases ride along as auto_actions of another's action.
    flat = [b for a in fixture["actions"] for b in [a, *a.get("auto_actions", [])]]
    theirs = [(ids[a["entity"]], a["shares"]) for a in flat
              if a["type"] == "buy_shares" and a["entity_type"] == "player"]
    ours = [(a["entity"], a["shares"]) for a in record["actions"]
            if a["type"] == "buy_shares" and a["entity_type"] == "player"]
    assert ours == theirs
    assert len(ours) > 80


def test_a_pass_while_privates_are_for_sale_is_recorded_even_with_nothing_else() -> None:
    """While privates are for sale the site's turn always offers a bid and a pass, so it
    never passes a player by itself: Bob, his cash all set aside for his bid (3.1(b)),
    can only pass, and the record holds his pass (found by the 1850 differential check,
    where the site waited for the pass the record left out)."""
    from tn_scenarios import SEATS, new_game

    game = new_game()
    assert SEATS[:4] == ("Ann", "Bob", "Cy", "Di")
    game.apply("Ann", Bid(75, "MCR"))
    game.apply("Bob", Bid(450, "LNR"))  # all of Bob's cash
    game.apply("Cy", Pass())
    game.apply("Di", Pass())
    game.apply("Ann", Pass())
    assert game.turn().seat == "Bob" and game.legal() == ["pass"]  # type: ignore[union-attr]
    game.apply("Bob", Pass())
    game.apply("Cy", BuyPrivate("TCC"))
    record = export_record(game)
    assert_reads_back(game, record)
    ids = {p["name"]: p["id"] for p in record["players"]}
    kinds = [(a["entity"], a["type"]) for a in record["actions"]]
    assert kinds[-3:] == [(ids["Ann"], "pass"), (ids["Bob"], "pass"), (ids["Cy"], "bid")]


def test_the_export_and_the_importer_ask_the_site_forms_never_a_title_name() -> None:
    """Where 18xx.games writes a title's records its own way, engine/records/forms.py says
    so and the title's forms module answers: the rest of engine/records/ compares
    nothing with a title's name (a new title on the site's 1867 code switches flags on,
    it adds no branch there)."""
    import ast

    from engine.records import site_forms
    from engine.records.forms import SiteForms

    names = {"18TN", "1851", "1850", "1861", "1825"}
    package = Path(__file__).resolve().parents[2] / "engine" / "records"
    modules = sorted(p for p in package.glob("*.py")
                     if p.name not in ("forms_1825.py", "forms_1861.py"))
    assert {p.name for p in modules} >= {"__init__.py", "reading.py", "writing.py"}
    for path in modules:
        tree = ast.parse(path.read_text())
        compared = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
                    for side in (node.left, *node.comparators)
                    if isinstance(side, ast.Constant) and side.value in names]
        assert compared == [], (path.name, compared)
    assert type(site_forms("18TN")) is SiteForms and type(site_forms("1850")) is SiteForms
    assert site_forms("1861").steps_of_1867 and not site_forms("1861").receivers
    assert site_forms("1825").receivers and not site_forms("1825").steps_of_1867
