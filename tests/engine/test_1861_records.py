"""1861 records of 18xx.games read by the importer (engine.records): the forms the
site writes for 1861's own decisions, at positions of record 167259."""

from __future__ import annotations

from typing import Any

import pytest
from scenarios_1861 import record

from engine import routes
from engine.actions import Accept, Done, Merge, RunRoutes
from engine.errors import GameError
from engine.game import Game
from engine.records import RecordMapper, expanded, folded_actions, replay_action, setup_of


def _before(action_id: int) -> tuple[Game, RecordMapper]:
    """Record 167259 replayed up to the site action `action_id`, with the importer's
    bookkeeping (which tile lies where) as it stands there."""
    data = record()
    setup, names = setup_of(data)
    g = Game(setup)
    mapper = RecordMapper(g, names)
    for index, raw in enumerate(expanded(folded_actions(data["actions"]))):  # type: ignore[arg-type]
        if raw.get("id") == action_id:
            break
        replay_action(g, mapper, index, raw)
    return g, mapper


def _stations(g: Game, sym: str) -> list[tuple[str, int]]:
    return sorted((h, c) for h, cities in g.state.board.tokens.items()
                  for c, corps in cities.items() if sym in corps)


def _replay(g: Game, mapper: RecordMapper, site: list[dict[str, Any]]) -> int:
    return sum(replay_action(g, mapper, i, raw) for i, raw in enumerate(site))


def _site_merger(partners: tuple[str, ...], removed: tuple[str, ...]) -> list[dict[str, Any]]:
    """M-NN merges with `partners` into MKN as the site writes it: each partner named,
    a pass, the public named, then the Director's `remove_token`s (the site's city ids:
    tile copy, then city)."""
    site: list[dict[str, Any]] = [
        {"type": "merge", "entity": "MNN", "entity_type": "corporation", "corporation": p}
        for p in partners]
    site.append({"type": "pass", "entity": "MNN", "entity_type": "corporation"})
    site.append({"type": "merge", "entity": "MNN", "entity_type": "corporation",
                 "corporation": "MKN"})
    site += [{"type": "remove_token", "entity": "MKN", "entity_type": "corporation",
              "city": city, "slot": 0} for city in removed]
    return site


def test_12_3_remove_token_names_the_stations_the_new_company_keeps() -> None:
    """12.3: M-NN (Moscow, H8), K-K (Kiev, D14) and M-V (I13) merge into MKN: three
    hexes, so the site has the Director remove one after the merger (Kiev, tile copy
    635-0, city 1); ours is one merger order keeping M-NN's and M-V's stations, which
    M-V's owner (Player 4) agrees to."""
    g, mapper = _before(328)
    mapper_probe = mapper.fork(g)
    site = _site_merger(("KK", "MV"), ("635-0-1",))
    assert [mapper_probe.map(mapper_probe.normalised(raw)) for raw in site[:-1]] == \
        [[], [], [], []]  # nothing happens until the stations are known
    assert mapper_probe.map(site[-1]) == [
        ("Player 3", Merge(("M-NN", "K-K", "M-V"), "MKN", ("M-NN", "M-V"))),
        ("Player 4", Accept())]
    assert _replay(g, mapper, site) == 2
    assert _stations(g, "MKN") == [("H8", 2), ("I13", 0)]
    assert _stations(g, "K-K") == [] and g.state.board.tokens["D14"][1] == []


def test_12_3_remove_token_chooses_between_two_stations_in_one_hex() -> None:
    """12.3: M-NN (Moscow city 2), M-K (Moscow city 0) and K-K (Kiev) merge: two
    stations in one hex, so the Director removes one of them; removing M-NN's (tile
    copy 637-0, city 2) keeps M-K's, where ours alone would keep the earlier
    operating minor's (M-NN's)."""
    g, mapper = _before(328)
    assert _replay(g, mapper, _site_merger(("M-K", "KK"), ("637-0-2",))) == 2
    assert _stations(g, "MKN") == [("D14", 1), ("H8", 0)]
    assert g.state.board.tokens["H8"][2] == []


def test_10_a_pass_of_the_next_company_ends_the_turn_the_site_ended_by_itself() -> None:
    """10.10 with 11: O-K has laid its tiles and cannot afford a 4-train, so the rest of
    its turn is the site's own (it is nationalised at once). Where the next record
    action is the next company's pass that stands for nothing of ours (a step ours
    skips, the export's empty list), the importer ends O-K's turn there, not at M-V's
    first action of ours: the positions meet at that pass (seed 7 game 3 of the
    differential: NW nationalised for its interest, 10.8, three actions late)."""
    g, mapper = _before(392)
    turn = g.turn()
    assert turn is not None and (turn.entity, turn.step) == ("O-K", "track")
    replay_action(g, mapper, 0, {"type": "pass", "entity": "MV", "entity_type": "corporation",
                                 "moderator_actions": []})
    turn = g.turn()
    assert turn is not None and turn.entity == "M-V"
    assert g.state.corporations["O-K"].closed


def test_10_6_a_turn_the_site_ended_without_a_run_is_a_declared_run_of_nothing() -> None:
    """10.6: "If the Company ... has one or more trains, it runs them to establish
    earnings ... players are not obliged to announce earnings higher than those declared
    by the Director." The site passes a run step where its graph finds no route and
    records no run; ours, finding N's 2-train a route, rightly asks for a run order, so
    the importer's `done` alone for the turn the site ended was refused ("N must run its
    trains first (`run auto`)", an import stopped so). The record's turn is N's Director
    declaring nothing: the importer bridges it as `run none`, then `done`. Built at OR
    1.2 of record 167259: N at its track step with a 2-train and a route, and the next
    record action M-K's tile lay (as if the site had passed N's run)."""
    g, mapper = _before(69)
    turn = g.turn()
    assert turn is not None and (turn.entity, turn.step) == ("N", "track")
    n = g.state.corporations["N"]
    assert n.president == turn.seat
    assert [t.name for t in n.trains] == ["2"] and routes.has_route(g.rules, g.state, n)
    price = g.state.market.price("N")
    with pytest.raises(GameError, match=r"N must run its trains first"):
        g.clone().apply(turn.seat, Done())  # ours: the run step is the Director's
    replay_action(g, mapper, 0, {"type": "lay_tile", "entity": "M-K",
                                 "entity_type": "corporation", "tile": "9-0",
                                 "hex": "nowhere", "rotation": 0,
                                 "moderator_actions": []})
    turn = g.turn()
    assert turn is not None and turn.entity == "M-K"
    director = n.president
    assert [(m.seat, m.action) for m in g.log if m.seat == director][-2:] == \
        [(director, RunRoutes()), (director, Done())]
    assert "N runs for R0: no trains run" in g.state.log and not n.closed
    assert g.state.market.price("N") < price  # 10.7: nil earnings move a minor left
