"""Tile rotation and upgrade legality on real tiles and hexes of every title."""

from __future__ import annotations

import dataclasses

import pytest

from engine import tiles as T
from engine.title import HexSpec, TileSpec, Title, available_titles, load_title


def tile(title: str, name: str) -> TileSpec:
    return load_title(title).tile(name)


def hexspec(title: str, hex_id: str) -> HexSpec:
    return load_title(title).hex(hex_id)


def upgrades(
    title: str, old: str, color: str, *, rotation: int = 0, on: str | None = None
) -> dict[str, list[int]]:
    """Every tile of ``color`` that may replace ``old`` (a hex id or a tile), with rotations."""
    t = load_title(title)
    source: TileSpec | HexSpec = t.hexes[old] if old in t.hexes else t.tile(old)
    on_hex = t.hex(on) if on else None
    out = {}
    for name, new in t.tiles.items():
        if new.color == color:
            rots = T.legal_rotations(source, rotation, new, on_hex=on_hex)
            if rots:
                out[name] = rots
    return out


# --------------------------------------------------------------------------- rotation


def test_rotated_paths_and_exits() -> None:
    t57 = tile("18TN", "57")
    assert [str(p) for p in T.rotated_paths(t57, 1)] == ["e1-c0", "c0-e4"]
    assert T.exits(t57, 0) == {0, 3} and T.exits(t57, 1) == {1, 4} and T.exits(t57, 7) == {1, 4}
    assert T.stop_edges(t57, 2, "c0") == {2, 5}
    a2 = hexspec("1850", "A2").paths
    assert a2[2].lanes == 2 and a2[0].terminal


@pytest.mark.parametrize("name", available_titles())
def test_rotation_is_a_turn_of_every_edge(name: str) -> None:
    for tl in load_title(name).tiles.values():
        for r in range(6):
            assert T.exits(tl, r) == {(e + r) % 6 for e in tl.exits}
            assert T.placement_key(tl, r) == T.placement_key(tl, r + 6)
        rots = T.distinct_rotations(tl)
        assert rots[0] == 0 and len(rots) in (1, 2, 3, 6), tl.name
        # every rotation is the same placement as exactly one listed rotation
        for r in range(6):
            same = [q for q in rots if T.placement_key(tl, q) == T.placement_key(tl, r)]
            assert len(same) == 1, (tl.name, r)


@pytest.mark.parametrize(
    ("title", "name", "rotations"),
    [
        ("18TN", "63", [0]),  # six exits
        ("18TN", "9", [0, 1, 2]),  # straight
        ("18TN", "57", [0, 1, 2]),
        ("18TN", "7", [0, 1, 2, 3, 4, 5]),
        ("18TN", "14", [0, 1, 2]),  # X city
        ("18TN", "TN1", [0, 1]),  # three exits on alternate sides
        ("1851", "511", [0, 1]),
        ("1825", "32", [0]),  # London: six stations, one per side
    ],
)
def test_distinct_rotations(title: str, name: str, rotations: list[int]) -> None:
    assert T.distinct_rotations(tile(title, name)) == rotations


# --------------------------------------------------------------------------- laying yellow


def test_yellow_on_blank_and_city_hexes() -> None:
    plain = upgrades("18TN", "D9", "yellow")
    assert plain == {"7": [0, 1, 2, 3, 4, 5], "8": [0, 1, 2, 3, 4, 5], "9": [0, 1, 2]}
    city = upgrades("18TN", "F11", "yellow")  # Nashville: no label yet
    assert city == {"5": [0, 1, 2, 3, 4, 5], "6": [0, 1, 2, 3, 4, 5], "57": [0, 1, 2]}
    town = upgrades("18TN", "C16", "yellow")
    assert set(town) == {"3", "4", "58"}
    assert upgrades("1851", "F12", "yellow") == {"202": [0, 1, 2, 3, 4, 5]}  # Y city
    assert set(upgrades("1850", "E10", "yellow")) == {"1", "2", "55", "56", "69"}  # two towns


def test_yellow_rejects() -> None:
    t = load_title("1851")
    nashville, plain = t.hex("F12"), t.hex("A7")
    assert "label Y" in " ".join(T.upgrade_problems(nashville, 0, t.tile("57"), 0))
    assert "label" in " ".join(T.upgrade_problems(t.hex("D14"), 0, t.tile("202"), 0))
    assert "cities" in " ".join(T.upgrade_problems(plain, 0, t.tile("57"), 0))
    assert "cities" in " ".join(T.upgrade_problems(nashville, 0, t.tile("9"), 0))
    assert "takes a yellow tile" in " ".join(T.upgrade_problems(plain, 0, t.tile("16"), 0))


# --------------------------------------------------------------------------- plain track


def test_sharp_curve_upgrades() -> None:
    # 7 at rotation 0 joins SW and W: every green tile that keeps that curve
    assert upgrades("1851", "7", "green") == {
        "18": [5],
        "21": [3],
        "22": [4],
        "26": [1],
        "27": [0],
        "28": [1],
        "29": [0],
        "30": [0],
        "31": [1],
        "624": [0, 5],
        "625": [0, 4],
        "626": [0],
    }


def test_straight_upgrades() -> None:
    assert upgrades("1851", "9", "green") == {
        "18": [0, 3],
        "19": [0, 3],
        "20": [0, 2],
        "23": [0, 3],
        "24": [0, 3],
        "26": [0, 3],
        "27": [0, 3],
    }


def test_track_must_be_kept() -> None:
    t = load_title("18TN")
    assert T.legal_rotations(t.tile("23"), 0, t.tile("40")) == []
    assert "does not keep all existing track" in " ".join(
        T.upgrade_problems(t.tile("23"), 0, t.tile("40"), None)
    )
    assert T.can_upgrade(t.tile("23"), 0, t.tile("47"), 0)
    # right tile, wrong rotation
    assert T.can_upgrade(t.tile("9"), 0, t.tile("20"), 0)
    assert not T.can_upgrade(t.tile("9"), 0, t.tile("20"), 1)
    assert T.upgrade_problems(t.tile("9"), 0, t.tile("20"), 1) == [
        "tile 20 at rotation 1 does not keep all existing track"
    ]


def test_colours_go_one_step_at_a_time() -> None:
    t = load_title("18TN")
    assert "takes a green tile, not brown" in " ".join(
        T.upgrade_problems(t.tile("7"), 0, t.tile("41"), None)
    )
    # green -> gray skips brown
    assert T.legal_rotations(t.tile("14"), 0, t.tile("TN3"), on_hex=t.hex("H3")) == []
    assert T.legal_rotations(t.tile("57"), 0, t.tile("57")) == []
    assert T.next_color("gray") is None and T.next_color("red") is None
    # preprinted gray and red hexes take nothing
    for hex_id in ("B13", "J11", "A16"):
        assert all(
            T.legal_rotations(t.hex(hex_id), 0, new) == [] for new in t.tiles.values()
        ), hex_id


# --------------------------------------------------------------------------- city tiles


def test_city_upgrades() -> None:
    assert upgrades("1851", "57", "green") == {"14": [0, 2], "15": [0, 3], "619": [0, 3]}
    assert upgrades("18TN", "14", "brown") == {"63": [0]}
    assert upgrades("1851", "619", "brown") == {"611": [0, 2]}
    # preprinted yellow city: its track stays
    assert upgrades("1850", "H11", "green") == {"14": [0, 1], "15": [1, 4]}


def test_labelled_city_chains_18tn() -> None:
    # Nashville: ordinary yellow, then green N, brown P, gray P
    assert upgrades("18TN", "57", "green", on="F11") == {"TN2": [0, 2, 3, 5]}
    assert upgrades("18TN", "TN2", "brown", on="F11") == {"170": [3]}
    assert upgrades("18TN", "170", "gray", on="F11") == {"TN3": [0]}
    # Chattanooga, preprinted yellow C
    assert upgrades("18TN", "H15", "green") == {"TN1": [0]}
    assert upgrades("18TN", "TN1", "brown", on="H15") == {"170": [1, 3, 5]}
    # Memphis: brown must be P
    assert upgrades("18TN", "14", "brown", on="H3") == {"170": [0, 3]}
    assert upgrades("18TN", "14", "brown", on="D7") == {"63": [0]}
    t = load_title("18TN")
    problems = T.upgrade_problems(t.tile("14"), 0, t.tile("63"), 0, on_hex=t.hex("H3"))
    assert problems == ["this hex needs a tile with label P; tile 63 has no label"]


def test_y_cities_1851_and_louisville() -> None:
    assert upgrades("1851", "202", "green", on="F12") == {"511": [0]}
    assert upgrades("1851", "511", "brown", on="F12") == {"216": [0, 2, 4]}
    assert upgrades("1851", "216", "gray", on="F12") == {"512": [0]}
    # Louisville counts as a yellow Y tile: its two cities merge into 511's one,
    # which must keep the SW exit
    assert upgrades("1851", "B16", "green") == {"511": [0]}
    t = load_title("1851")
    assert T.stop_mappings(t.hex("B16").tile or T.EMPTY_HEX_TILE, 0, t.tile("511"), 0) == [
        {"c0": "c0", "c1": "c0"}
    ]
    assert T.exits(t.tile("511"), 0) >= {0}


def test_yellow_oo_to_green_oo_to_brown_oo() -> None:
    # 1825's preprinted yellow OO hexes carry two cities and no track
    assert upgrades("1825", "R12", "green") == {"52": [0, 1, 2, 3, 4, 5]}
    assert upgrades("1825", "52", "brown", on="R12") == {
        "64": [2, 4],
        "65": [0, 4],
        "66": [0, 5],
        "67": [0, 2],
        "68": [2],
    }
    t = load_title("1825")
    # the OO label keeps single-city tiles off, and two-city tiles off plain cities
    assert T.legal_rotations(t.hex("R12"), 0, t.tile("14")) == []
    assert T.legal_rotations(t.hex("R16"), 0, t.tile("52")) == []
    # tokens follow their track: city by city
    assert T.stop_mappings(t.tile("52"), 0, t.tile("64"), 2) == [{"c0": "c1", "c1": "c0"}]


def test_multi_city_cities_merge() -> None:
    # 1850 Chicago: two cities in yellow and green, one from brown
    assert upgrades("1850", "I18", "yellow") == {"128": [0, 1, 2, 3, 4, 5]}
    assert upgrades("1850", "128", "green", on="I18") == {"129": [0, 1]}
    assert upgrades("1850", "129", "brown", on="I18") == {"130": [0]}
    assert upgrades("1850", "130", "gray", on="I18") == {"131": [0, 1]}
    # 1861: Kiev, Moscow, St. Petersburg
    assert upgrades("1861", "D14", "green") == {"635": [0, 1]}
    assert upgrades("1861", "635", "brown", on="D14") == {"636": [0]}
    assert upgrades("1861", "H8", "green") == {"637": [0, 1]}
    assert upgrades("1861", "637", "brown", on="H8") == {"638": [0]}
    assert upgrades("1861", "638", "gray", on="H8") == {"639": [0]}
    assert upgrades("1861", "E1", "brown") == {"641": [0]}
    assert upgrades("1861", "641", "gray", on="E1") == {"642": [0]}
    # 1825: London and Birmingham keep their stations apart
    assert upgrades("1825", "V20", "brown") == {"32": [0]}
    assert upgrades("1825", "S13", "brown") == {"34": [1, 3, 5]}
    t = load_title("1825")
    assert T.stop_mappings(t.hex("S13").tile or T.EMPTY_HEX_TILE, 0, t.tile("34"), 1) == [
        {"c0": "c2", "c1": "c0", "c2": "c1"}
    ]


def test_special_labels_1861_and_1850() -> None:
    assert upgrades("1861", "623", "gray", on="G15") == {"640": [0]}  # Kharkov only
    assert upgrades("1861", "623", "gray", on="B4") == {}
    assert upgrades("1850", "G18", "green") == {"132": [0, 1, 5]}  # Milwaukee M
    assert set(upgrades("1850", "14", "brown", on="L13")) == {"135"}  # St. Louis P
    assert set(upgrades("1850", "14", "brown", on="K14")) == {"63"}


def test_towns() -> None:
    # 1825's tile chart also lets the town grow into the cities 12, 14 and 15 (1.10.1).
    assert upgrades("1825", "3", "green") == {"87": [0, 4, 5], "88": [0],
                                              "12": [0, 5], "14": [0], "15": [0, 4, 5]}
    # two towns do not become one town unless a title allows it (1825: one city, 14)
    assert upgrades("1825", "1", "green") == {"14": [0]}
    t = load_title("1825")
    assert T.legal_rotations(t.tile("1"), 0, t.tile("88"), merge_towns=True) == [0]
    town = dataclasses.replace(t.tile("3"), promotes_to=())  # no tile chart
    assert T.legal_rotations(town, 0, t.tile("14")) == []  # town -> city: no


def test_upgrades_to_restriction() -> None:
    t = load_title("18TN")
    tn1 = t.tile("TN1")
    assert tn1.upgrades_to == ("170",)
    fake = TileSpec(name="X", color="brown", cities=t.tile("170").cities,
                    paths=t.tile("170").paths, label="P")
    assert "upgrades only to 170" in " ".join(
        T.upgrade_problems(tn1, 0, fake, None, on_hex=t.hex("H15"))
    )


@pytest.mark.parametrize("name", available_titles())
def test_legal_rotations_are_distinct_and_legal(name: str) -> None:
    """On every buildable hex of every title, the first tile lay lists each legal
    placement once, and each listed rotation passes the single-rotation check."""
    t: Title = load_title(name)
    for h in t.hexes.values():
        if not h.buildable:
            continue
        next_color = T.next_color(h.color)
        for new in t.tiles.values():
            if new.color != next_color:
                continue
            rots = T.legal_rotations(h, 0, new)
            keys = [T.placement_key(new, r) for r in rots]
            assert len(set(keys)) == len(keys)
            for r in rots:
                assert T.can_upgrade(h, 0, new, r)
                assert h.paths == () or T.stop_mappings(h.tile or T.EMPTY_HEX_TILE, 0, new, r)
