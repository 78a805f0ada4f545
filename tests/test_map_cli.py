"""`moderator map` through the real command: it writes PNG files Pillow can read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from engine.records import import_record
from engine.title import load_title
from moderator.reports.mapimage import map_geometry
from moderator.reports.marketimage import market_geometry
from moderator.store import Store

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18TN" / "7818.json"


def moderator(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("moderator")
    found = str(script) if script.exists() else shutil.which("moderator")
    if found is None:
        pytest.fail("the `moderator` console script is not installed (pip install -e .)")
    return subprocess.run([found, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the finished 18TN record as game 18TN-1."""
    game = import_record(json.loads(FIXTURE.read_text())).game
    path = tmp_path_factory.mktemp("store") / "games.sqlite"
    store = Store(path)
    game_id = store.create_game(game.setup)
    with store.transaction():
        store.append(game_id, 0, list(game.log))
    store.close()
    return path


def test_map_writes_a_png(store_file: Path, tmp_path: Path) -> None:
    out = moderator("map", "18TN-1", "--db", str(store_file), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    written = tmp_path / "18TN-1-map.png"
    assert f"written to {written.name}" in out.stdout
    with Image.open(written) as image:
        image.verify()
    with Image.open(written) as image:
        assert image.format == "PNG"
        assert image.size[0] == map_geometry(load_title("18TN")).size[0]


def test_map_at_a_move_with_changes_and_market(store_file: Path, tmp_path: Path) -> None:
    out = moderator("map", "18TN-1", "--db", str(store_file), "--at", "300", "--since", "250",
                    "--out", "mid.png", "--market", "market.png", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "at move 300" in out.stdout and "market.png" in out.stdout
    with Image.open(tmp_path / "mid.png") as image:
        image.load()
        width, height = map_geometry(load_title("18TN")).size
        assert image.size[0] == width and image.size[1] > height  # caption band
    with Image.open(tmp_path / "market.png") as image:
        image.load()
        assert image.size[0] == market_geometry(load_title("18TN")).size[0]


def test_map_refuses_a_move_past_the_end_and_an_unknown_game(store_file: Path,
                                                             tmp_path: Path) -> None:
    late = moderator("map", "18TN-1", "--db", str(store_file), "--at", "9999", cwd=tmp_path)
    assert late.returncode == 2 and "has 578 moves" in late.stderr
    unknown = moderator("map", "NOPE-1", "--db", str(store_file), cwd=tmp_path)
    assert unknown.returncode == 2 and "there is no game NOPE-1" in unknown.stderr
    assert not list(tmp_path.glob("*.png"))
