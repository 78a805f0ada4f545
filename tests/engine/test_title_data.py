"""Cross-check the project's title data against the reference files, fact by fact.

Every hex, tile, train, phase, market cell, private and company of each title is
compared with shared/reference. Where the data deliberately differs, the test
asserts the decided value and names the decision recorded in the title file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.title import (
    FrozenDict,
    LaneSpec,
    PathSpec,
    Title,
    available_titles,
    load_tile_catalogue,
    load_title,
)

REFERENCE = Path(os.environ.get("PBEM_REFERENCE_DIR", "/work/shared/reference"))
TITLES = {"18TN": "18TN", "1851": "1851", "1850": "1850", "1861": "1861", "1825": "1825-unit1"}


def ref(title: str) -> dict[str, Any]:
    return _read_ref(f"{TITLES[title]}.json")


def _read_ref(file_name: str) -> dict[str, Any]:
    path = REFERENCE / file_name
    if not path.is_file():
        pytest.skip(f"reference data not available at {REFERENCE}")
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def renamed(text: str | None, title: str) -> str | None:
    """Reference prose as the data files word it: 'the data' names its source."""
    if text is None:
        return None
    poss = "Rails'" if title == "1851" else "18xx.games'"
    text = re.sub(r"\b[Tt]he map data's\b", poss, text)
    text = re.sub(r"\bsee notes\b", "see decisions", text)
    text = re.sub(r"\b[Tt]he map data\b", f"{poss} data", text)
    text = re.sub(r"\b[Tt]he data's\b", poss, text)
    text = re.sub(r"\b[Tt]he data\b", f"{poss} data", text)
    text = re.sub(r"\bmap data\b", f"{poss} data", text)
    text = re.sub(r"\btobymao's\b", "18xx.games'", text)
    return re.sub(r"\btobymao(?!/)\b", "18xx.games", text)


def thaw(value: object) -> object:
    """FrozenDicts and tuples back to plain JSON shapes, for comparison."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def decided(title: Title, decision_id: str) -> None:
    """The title records this decision (so a deliberate difference is documented)."""
    assert title.decision(decision_id).startswith(f"{decision_id}: ")


def ref_path(raw: list[Any]) -> PathSpec:
    attrs: dict[str, Any] = raw[2] if len(raw) > 2 else {}
    lane = {
        k: LaneSpec(v["width"], v["index"]) for k, v in attrs.items() if k in ("a_lane", "b_lane")
    }
    return PathSpec(
        raw[0],
        raw[1],
        terminal=attrs.get("terminal", False),
        lanes=attrs.get("lanes", 1),
        a_lane=lane.get("a_lane"),
        b_lane=lane.get("b_lane"),
    )


def ref_count(value: object) -> int | None:
    return None if value == "unlimited" else value  # type: ignore[return-value]


@pytest.fixture(params=list(TITLES), scope="module")
def pair(request: pytest.FixtureRequest) -> tuple[Title, dict[str, Any]]:
    return load_title(request.param), ref(request.param)


# --------------------------------------------------------------------------- loader


def test_available_titles_and_names() -> None:
    assert available_titles() == sorted(TITLES)
    for name in TITLES:
        assert load_title(name.lower()) is load_title(name)
    assert load_title("1825-unit1") is load_title("1825")


def test_unknown_title_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="known titles: 1825, 1850, 1851, 1861, 18TN"):
        load_title("1830")


def test_every_title_records_decisions_and_source() -> None:
    for name in TITLES:
        t = load_title(name)
        assert t.decisions and t.source
        ids = [d.split(":", 1)[0] for d in t.decisions]
        assert len(ids) == len(set(ids)), "decision ids are unique"


# --------------------------------------------------------------------------- header facts


def test_header(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert t.layout == r["layout"] and t.grid.layout == r["layout"]
    assert t.currency == r["currency"]
    assert t.bank == r["bank"]
    assert (t.players_min, t.players_max) == (r["players"]["min"], r["players"]["max"])
    assert dict(t.starting_cash) == {int(k): v for k, v in r["starting_cash"].items()}
    assert dict(t.cert_limit) == {int(k): v for k, v in r["cert_limit"].items()}
    assert list(t.par_values) == r["par_values"]
    if "full_title" in r:
        assert t.full_title == r["full_title"]


# --------------------------------------------------------------------------- market

_SRC_FLAGS = {"p": "par", "m": "ceiling", "C": "convert", "x": "par-minor", "z": "par-major"}


def test_market(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    m = r["market"]
    assert t.market.kind == m["type"]
    assert len(t.market.rows) == len(m["rows"])
    for ri, row in enumerate(m["rows"]):
        assert len(t.market.rows[ri]) == len(row)
        for ci, cell in enumerate(row):
            ours = t.market.cell(ri, ci)
            if cell is None:
                assert ours is None
                continue
            assert ours is not None and (ours.row, ours.col) == (ri, ci)
            assert ours.price == cell["price"]
            assert ours.zone == cell["zone"]
            assert ours.can_par == cell["par"]
            assert list(ours.par_for) == cell.get("par_for", [])
            assert ours.arrow == cell["arrow"]
            assert list(ours.ledges) == (cell.get("ledge") or [])
            assert ours.area == cell.get("area")
            assert ours.convert == cell.get("convert", False)
            assert ours.minor_ceiling == cell.get("minor_ceiling", False)
            # 1825's "end" zone is the end-game space: marked as such too
            assert ours.endgame == (cell.get("endgame", False) or cell["zone"] == "end")
            if "src" in cell:
                src = re.fullmatch(r"(\d+)([a-zA-Z]*)", cell["src"])
                assert src is not None and int(src.group(1)) == ours.price
                letters = src.group(2)
                assert ("p" in letters or "x" in letters or "z" in letters) == ours.can_par
                assert ("m" in letters) == ours.minor_ceiling
                assert ("C" in letters) == ours.convert
    assert t.market.par_cells() == tuple(c for c in t.market.cells() if c.can_par)


def test_market_lookups() -> None:
    t = load_title("1861")
    assert t.market.cell(0, 0) is None and t.market.cell(99, 0) is None
    minor_prices = sorted({c.price for c in t.market.par_cells("minor")})
    major_prices = sorted({c.price for c in t.market.par_cells("major")})
    by_type = t.title_specific["par_values_by_type"]
    assert isinstance(by_type, Mapping)
    assert minor_prices == list(by_type["minor"])
    assert major_prices == list(by_type["major"])


def test_par_values_are_par_cells(pair: tuple[Title, dict[str, Any]]) -> None:
    t, _ = pair
    # 1825's index also marks 71 and 82, face values of other units
    assert set(t.par_values) <= {c.price for c in t.market.par_cells()}


# --------------------------------------------------------------------------- trains, phases


def test_trains(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert [tr.name for tr in t.trains] == [x["name"] for x in r["trains"]]
    for x in r["trains"]:
        tr = t.train(x["name"])
        assert tr.distance.stops == x["distance"]
        assert tr.price == x["price"]
        assert tr.count == ref_count(x["count"])
        assert tr.obsolete_on == x["obsolete_on"]
        assert tr.note == renamed(x["note"], t.name)
        if t.name == "1825" and x["rusts_on"] == "5":
            # the reference names the train; the data names the phase it starts
            decided(t, "two-train-removal")
            assert tr.rusts_on == "3" and t.phase("3").starts_on == "5"
        else:
            assert tr.rusts_on == x["rusts_on"]


def test_unusual_trains() -> None:
    t = load_title("1861")
    e = t.train("5+5E")
    assert (e.distance.raw, e.distance.stops, e.distance.plus, e.distance.express) == (
        "5+5E",
        5,
        5,
        True,
    )
    assert e.multiplier == 2
    two = t.train("2+2")
    assert (two.distance.stops, two.distance.express, two.multiplier, two.count) == (2, False, 2, 0)
    assert t.train("8").count is None
    assert load_title("1825").train("2").double_heads_as == "3"
    decided(load_title("1825"), "double-heading")


def test_phases(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert [p.name for p in t.phases] == [p["name"] for p in r["phases"]]
    for x in r["phases"]:
        p = t.phase(x["name"])
        assert p.starts_on == x["starts_on"]
        assert p.starts_on_nth == x.get("starts_on_nth", 1)
        assert list(p.tiles) == x["tiles"]
        assert p.operating_rounds == x["operating_rounds"]
        assert p.offboard_key == x["offboard_values"]
        assert list(p.events) == [renamed(e, t.name) for e in x["events"]]
        limit = x["train_limit"]
        if isinstance(limit, int):
            assert p.train_limit == limit
        else:
            # null in the reference: that kind does not operate; "unlimited": no limit
            assert isinstance(p.train_limit, FrozenDict)
            assert set(p.train_limit) == {k for k, v in limit.items() if v is not None}
            for kind, v in limit.items():
                if v is None:
                    with pytest.raises(LookupError):
                        p.train_limit_for(kind)
                else:
                    assert p.train_limit_for(kind) == ref_count(v)


def test_revenue_in_phase() -> None:
    tn = load_title("18TN")
    assert tn.revenue_in_phase(tn.hex("A16").offboard or 0, "4") == 50
    assert tn.revenue_in_phase(tn.hex("A16").offboard or 0, "5") == 80
    assert tn.revenue_in_phase(tn.hex("E22").offboard or 0, "8") == 40
    mw = load_title("1850")
    a2 = mw.hex("A2").offboard or 0
    assert [mw.revenue_in_phase(a2, p.name) for p in mw.phases] == [30, 30, 30, 40, 40, 40, 40, 40]
    ru = load_title("1861")
    romania = ru.hex("B18").offboard or 0
    assert [ru.revenue_in_phase(romania, p.name) for p in ru.phases] == [10, 20, 20, 30, 30, 30, 30]
    assert ru.revenue_in_phase(7, "2") == 7


# --------------------------------------------------------------------------- companies


def test_privates(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert [p.sym for p in t.privates] == [p["sym"] for p in r["privates"]]
    for x in r["privates"]:
        p = t.private(x["sym"])
        assert p.name == x["name"]
        assert p.value == x["value"] and p.revenue == x["revenue"]
        assert list(p.hexes) == x["hexes"]
        assert list(p.rules_hexes) == x.get("rules_hexes", [])
        assert list(p.tiles) == x.get("tiles", [])
        assert p.region == x.get("region")
        assert p.min_bid == x.get("min_bid")
        assert p.number == (None if x.get("number") is None else str(x["number"]))
        assert p.ability == renamed(x["ability"], t.name)
        assert p.note == renamed(x.get("note"), t.name)


def test_mcr_hex_decision() -> None:
    t = load_title("18TN")
    decided(t, "mcr-hex")
    mcr = t.private("MCR")
    assert mcr.hexes == ("H3",) and mcr.rules_hexes == ("H5",)
    assert t.hex("H3").name == "Memphis" and t.hex("H5").tile is None


def test_corporations(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert [c.sym for c in t.corporations] == [c["sym"] for c in r["corporations"]]
    for x in r["corporations"]:
        c = t.corporation(x["sym"])
        assert c.name == x["name"]
        assert c.kind == x["type"]
        assert (c.home, c.home_city) == (x["home"], x["home_city"])
        assert list(c.token_costs) == x["tokens"]
        assert list(c.shares) == x["shares"]
        assert c.float_percent == x["float_percent"]
        assert c.rules_sym == x.get("rules_sym")
        assert c.par == x.get("par")
        assert c.available_from_phase == x.get("available_from_phase")
        edge = x.get("edge_token")
        ours_edge = (c.edge_token.hex, c.edge_token.cost) if c.edge_token else None
        assert ours_edge == ((edge["hex"], edge["cost"]) if edge else None)
        site = re.search(r'tobymao sym "([A-Z]+)"', x.get("note") or "")
        if site:
            assert c.site_sym == site.group(1)
            assert t.corporation(site.group(1)) is c
        if x.get("rules_sym"):
            assert t.corporation(x["rules_sym"]) is c
        assert c.note == renamed(x.get("note"), t.name)


def test_corporation_lookups_and_decisions() -> None:
    tn = load_title("18TN")
    assert tn.corporation("sou") is tn.corporation("SR")
    decided(tn, "names-and-syms")
    ru = load_title("1861")
    assert ru.corporation("Y").sym == "D" and ru.corporation("D").home == "H18"
    decided(ru, "minor-d")
    with pytest.raises(KeyError, match="known"):
        ru.corporation("XYZ")
    assert load_title("1851").corporation("L&N").home_city == 0
    decided(load_title("1851"), "ln-home-city")
    mc = load_title("1825")
    assert mc.corporation("SECR").par == 67
    decided(mc, "secr-par-67")
    assert mc.bank == 6000
    decided(mc, "bank-6000")


# --------------------------------------------------------------------------- hexes


def _revenue(value: object) -> object:
    return thaw(value)


def test_hexes(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    assert list(t.hexes) == [h["id"] for h in r["hexes"]]
    for x in r["hexes"]:
        h = t.hexes[x["id"]]
        where = f"{t.name} {h.id}"
        assert h.name == x["name"], where
        assert h.color == x["color"], where
        assert h.terrain_cost == sum(z["cost"] for z in x["terrain"]), where
        assert list(h.terrain) == [z["type"] for z in x["terrain"]], where
        assert [(_revenue(c.revenue), c.slots) for c in h.cities] == [
            (c["revenue"], c["slots"]) for c in x["cities"]
        ], where
        towns = [_revenue(tw.revenue) for tw in h.towns]
        if t.name == "1851" and h.id == "E23":
            decided(t, "johnson-city-values")
            assert x["towns"] == [{"revenue": {"2": 40, "4": 30, "6": 30}}]
            assert towns == [{"2": 30, "4": 30, "6": 40}]
        else:
            assert towns == [tw["revenue"] for tw in x["towns"]], where
        if x["offboard"] is None:
            assert h.offboard is None and h.offboard_group is None, where
            assert h.tile is None or not h.tile.offboards
        else:
            assert _revenue(h.offboard) == x["offboard"]["revenue"], where
            assert h.offboard_group == x["offboard"]["group"], where
            assert h.tile is not None and len(h.tile.offboards) == 1
        assert list(h.paths) == [ref_path(p) for p in x["paths"]], where
        assert h.label == x["label"], where
        if x.get("future_label"):
            fl = x["future_label"]
            assert h.label_for(fl["color"]) == fl["label"], where
        assert list(h.borders) == sorted(b["edge"] for b in x["borders"]), where
        assert all(b["type"] == "impassable" for b in x["borders"])
        ours = {(rv.by, rv.city, rv.kind) for rv in h.reserved}
        assert ours == {(rv["by"], rv["city"], rv["kind"]) for rv in x["reserved"] or []}, where
        assert h.note == renamed(x["note"], t.name), where
        has_content = bool(x["cities"] or x["towns"] or x["offboard"] or x["paths"])
        assert (h.tile is not None) == has_content, where


def test_future_labels_decided() -> None:
    tn = load_title("18TN")
    decided(tn, "city-labels")
    colours = ("yellow", "green", "brown", "gray")
    assert [tn.hex("F11").label_for(c) for c in colours] == [None, "N", "P", "P"]
    assert [tn.hex("H15").label_for(c) for c in colours] == ["C", "C", "P", "P"]
    assert load_title("1861").hex("G15").label_for("gray") == "Kh"
    assert load_title("1850").hex("L13").label_for("gray") == "P"


def test_hex_lookup_spellings() -> None:
    t = load_title("18TN")
    assert t.hex("h-3") is t.hex("H3")
    with pytest.raises(KeyError, match="not on the 18TN map"):
        t.hex("Z99")
    assert load_title("1851").hex("@18").name == "Cincinnati"


# --------------------------------------------------------------------------- tiles


def _tile_facts(tile: Any) -> dict[str, Any]:
    return {
        "color": tile.color,
        "cities": [{"revenue": _revenue(c.revenue), "slots": c.slots} for c in tile.cities],
        "towns": [{"revenue": _revenue(tw.revenue)} for tw in tile.towns],
        "paths": list(tile.paths),
        "label": tile.label,
    }


def _ref_tile_facts(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "color": raw["color"],
        "cities": raw["cities"],
        "towns": raw["towns"],
        "paths": [ref_path(p) for p in raw["paths"]],
        "label": raw["label"],
    }


def test_tile_catalogue() -> None:
    cat = load_tile_catalogue()
    raw = _read_ref("tiles.json")
    assert list(cat) == list(raw)
    for name, tile in raw.items():
        assert _tile_facts(cat[name]) == _ref_tile_facts(tile), name
        assert cat[name].note == tile.get("note")


def test_title_tiles_and_manifest(pair: tuple[Title, dict[str, Any]]) -> None:
    t, r = pair
    cat = _read_ref("tiles.json")
    assert list(t.tile_manifest) == list(r["tile_manifest"])
    assert set(t.tiles) == set(r["tile_manifest"])
    for name, count in r["tile_manifest"].items():
        if t.name in ("1851", "1861") and name in ("7", "8", "9"):
            decided(t, "plain-yellow-unlimited")
            assert t.tile_manifest[name] is None
        else:
            assert t.tile_manifest[name] == ref_count(count), name
        raw = r["custom_tiles"].get(name) or cat[name]
        assert _tile_facts(t.tile(name)) == _ref_tile_facts(raw), name
        if name in r["custom_tiles"]:
            cost = sum(z["cost"] for z in raw.get("terrain", []))
            assert t.tile(name).terrain_cost == cost
            assert t.tile(name).note == renamed(raw.get("note"), t.name)


def test_tile_upgrade_restrictions_come_from_the_reference() -> None:
    tn = load_title("18TN")
    assert tn.tile("TN1").upgrades_to == ("170",) and tn.tile("TN2").upgrades_to == ("170",)
    assert load_title("1851").tile("511").upgrades_to == ("216",)


# --------------------------------------------------------------------------- title-specific


def test_title_specific_blocks() -> None:
    mw, r50 = load_title("1850"), ref("1850")
    assert thaw(mw.title_specific["cert_limit_reduced"]) == r50["cert_limit_reduced"]
    assert thaw(mw.title_specific["regions"]) == r50["regions"]
    assert thaw(mw.title_specific["par_boxes"]) == r50["market"]["par_boxes"]
    ru, r61 = load_title("1861"), ref("1861")
    for key in (
        "loans",
        "revenue_bonuses",
        "offboard_groups",
        "private_company_hexes",
        "par_values_by_type",
        "conversion_range",
    ):
        assert thaw(ru.title_specific[key]) == r61[key], key
    mc, r25 = load_title("1825"), ref("1825")
    credit = mc.title_specific["company_credit"]
    assert isinstance(credit, Mapping)
    assert credit["note"] == r25["company_credit"] and credit["formation_multiple"] == 10
    assert set(load_title("18TN").title_specific) == {"site_differences"}


@pytest.mark.parametrize("name", ["18TN", "1850", "1861", "1825"])
def test_site_differences_name_their_decisions(name: str) -> None:
    t = load_title(name)
    site = t.title_specific["site_differences"]
    assert isinstance(site, Mapping)
    for decision_id in site["decisions"]:
        decided(t, decision_id)
        assert "18xx.games" in t.decision(decision_id)


def test_site_differences_values() -> None:
    mc = load_title("1825")
    site = mc.title_specific["site_differences"]
    assert isinstance(site, Mapping)
    assert site["bank"] == 5000 and site["par"]["SECR"] == 71
    assert mc.bank == 6000 and mc.corporation("SECR").par == 67
    tn = load_title("18TN").title_specific["site_differences"]
    assert isinstance(tn, Mapping)
    assert all(load_title("18TN").train(ours) for ours in tn["train_names"].values())
    ru = load_title("1861")
    site = ru.title_specific["site_differences"]
    assert isinstance(site, Mapping)
    assert set(site["train_counts"]) == {"5+5E", "2+2"}
    assert ru.train("2+2").count == 0 and ru.train("5+5E").count == 2


def test_group_offboards_match_their_groups() -> None:
    ru = load_title("1861")
    groups = ru.title_specific["offboard_groups"]
    assert isinstance(groups, Mapping)
    for name, group in groups.items():
        for hex_id in group["hexes"]:
            h = ru.hex(hex_id)
            assert h.offboard_group == name and thaw(h.offboard) == thaw(group["revenue"])
