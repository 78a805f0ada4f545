"""The install a user or an operator makes: a wheel built from the files the container
copies, installed into a fresh virtual environment, run from another directory.

This is the path the Containerfile and the systemd unit take (`pip install .`, not the
editable install of `./dev`), so it is where a forgotten subpackage or data file shows.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"

pytestmark = pytest.mark.slow


def _copied_by_containerfile() -> list[str]:
    """The source paths of the Containerfile's COPY lines (relative to the repository)."""
    sources: list[str] = []
    for line in (DEPLOY / "Containerfile").read_text().splitlines():
        if line.startswith("COPY "):
            parts = line.split()[1:]
            sources += [p for p in parts[:-1] if not p.startswith("--")]
    return sources


def _run(args: list[str | Path], cwd: Path, check: bool = True, stdin: str = ""
         ) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                            input=stdin, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n"
                             f"{result.stderr}")
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel (no extras) installed; its root."""
    base = tmp_path_factory.mktemp("install")
    context = base / "context"
    context.mkdir()
    for source in _copied_by_containerfile():
        origin = ROOT / source
        if origin.is_dir():
            shutil.copytree(origin, context / source,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(origin, context / source)
    wheels = base / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
          "--disable-pip-version-check", "-w", wheels, context], cwd=base)
    (wheel,) = wheels.glob("*.whl")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    _run([env_dir / "bin" / "python", "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", wheel], cwd=base)
    return env_dir


def test_every_module_of_the_wheel_imports(installed: Path, tmp_path: Path) -> None:
    """Every module of engine, grammar and moderator imports from the installed wheel,
    except the embedded mail servers, which need the `local` extra."""
    script = """
import importlib, json, pkgutil
found, failed = [], {}
for top in ("engine", "grammar", "moderator"):
    package = importlib.import_module(top)
    for info in pkgutil.walk_packages(package.__path__, top + "."):
        found.append(info.name)
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            failed[info.name] = exc.name
print(json.dumps({"found": found, "failed": failed, "file": package.__file__}))
"""
    result = _run([installed / "bin" / "python", "-c", script], cwd=tmp_path)
    import json

    report = json.loads(result.stdout)
    assert str(installed) in report["file"], "the wheel, not the source tree, was imported"
    # Every package in the source tree is in the wheel (no hand-kept list to forget).
    source_packages = {
        ".".join(p.relative_to(ROOT).parent.parts)
        for top in ("engine", "grammar", "moderator")
        for p in (ROOT / top).rglob("__init__.py")}
    assert source_packages <= set(report["found"]) | {"engine", "grammar", "moderator"}
    assert {"engine.rounds", "engine.titles", "moderator.desk", "moderator.mail",
            "moderator.reports", "moderator.cli"} <= set(report["found"])
    assert report["failed"] == {"moderator.mail.local": "aiosmtpd"}


def test_cli_from_another_directory(installed: Path, tmp_path: Path) -> None:
    moderator = installed / "bin" / "moderator"
    out = _run([moderator, "new", "18TN", "--players", "Ann,Bob,Cy", "--seed", "7",
                "--db", "p.db"], cwd=tmp_path)
    game_id = out.stdout.split()[0] if out.stdout.strip() else ""
    assert re.fullmatch(r"18TN-\d+", game_id), out.stdout
    status = _run([moderator, "status", game_id, "--db", "p.db"], cwd=tmp_path)
    assert "Ann" in status.stdout and "Stock Round" in status.stdout
    seat = re.search(r"^To move: (\w+)", status.stdout, re.M)
    assert seat is not None, status.stdout
    _run([moderator, "order", game_id, "--as", seat.group(1), "pass", "--db", "p.db"],
         cwd=tmp_path)
    after = _run([moderator, "status", game_id, "--db", "p.db"], cwd=tmp_path)
    assert "next move 1" in after.stdout
    _run([moderator, "map", game_id, "--db", "p.db", "--out", "map.png",
          "--market", "market.png"], cwd=tmp_path)
    for picture in ("map.png", "market.png"):
        assert (tmp_path / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    parsed = _run([moderator, "parse", "--title", "18TN"], cwd=tmp_path,
                  stdin="lay 57 at H5 rot 2\npar IC at 75\n")
    assert '"tile": "57"' in parsed.stdout and '"type": "par"' in parsed.stdout
    help_text = _run([moderator, "--help"], cwd=tmp_path).stdout
    commands = re.findall(r"^  (\w[\w-]*)", help_text.split("Commands:")[1], re.M)
    assert {"serve", "mail", "new", "order", "status", "games", "import", "parse", "map",
            "bench"} <= set(commands)
    for command in commands:  # every subcommand loads and explains itself
        _run([moderator, command, "--help"], cwd=tmp_path)
    # The packaged help text and title data are found from anywhere.
    _run([installed / "bin" / "python", "-c",
          "from grammar.help import help_text; assert 'lay' in help_text('lay');"
          "from engine.title import load_title; [load_title(t) for t in "
          "('18TN','1851','1850','1861','1825')]"], cwd=tmp_path)


def test_serve_says_what_to_install_without_the_local_extra(installed: Path,
                                                            tmp_path: Path) -> None:
    moderator = installed / "bin" / "moderator"
    help_text = _run([moderator, "serve", "--help"], cwd=tmp_path).stdout
    assert "--config" in help_text
    result = _run([moderator, "serve", "--workdir", "w"], cwd=tmp_path, check=False)
    assert result.returncode != 0
    assert "pbem-18xx-moderator[local]" in result.stderr
    assert "--config" in result.stderr
    assert "Traceback" not in result.stderr


def test_deploy_files_point_at_what_is_installed(installed: Path) -> None:
    """The unit's paths, read with the venv standing where the unit expects it."""
    unit = (DEPLOY / "pbem-moderator.service").read_text()
    prefix = "/opt/pbem-moderator"
    exec_start = re.search(r"^ExecStart=(\S+)", unit, re.M)
    assert exec_start is not None and exec_start.group(1).startswith(prefix + "/")
    assert (installed / exec_start.group(1).removeprefix(prefix + "/")).is_file()
    documentation = re.search(r"^Documentation=file://(\S+)", unit, re.M)
    assert documentation is not None
    doc = installed / documentation.group(1).removeprefix(prefix + "/")
    assert doc.is_file() and doc.read_text() == (DEPLOY / "OPERATIONS.md").read_text()
    share = installed / "share" / "pbem-moderator"
    assert (share / "moderator.example.toml").is_file()
    assert (share / "pbem-moderator.service").read_text() == unit
    # The container's entry point is the installed command with options it has.
    containerfile = (DEPLOY / "Containerfile").read_text()
    entry = re.search(r'^ENTRYPOINT \["moderator", "serve", "--config"', containerfile, re.M)
    assert entry is not None
