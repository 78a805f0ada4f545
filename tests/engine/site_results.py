"""Random records kept beside the 18xx.games engine's scores for them
(tools/oracle/keep_fixtures.py), and our importer's scores of the same records: both keyed
by the record's player ids, for the `test_*_site_replays` tests."""

from __future__ import annotations

import json
from pathlib import Path

from engine.records import Replay, import_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def site_results(title: str) -> dict[str, dict[str, int]]:
    """Record file name -> the site's final score per player id, for TITLE's records."""
    facts = json.loads((FIXTURES / title / "site_results.json").read_text())
    return {name: {pid: int(v) for pid, v in scores.items()}
            for name, scores in facts["results"].items()}


def replayed(title: str, name: str) -> tuple[Replay, dict[str, int]]:
    """The record imported, and our final score per player id."""
    replay = import_record(json.loads((FIXTURES / title / name).read_text()))
    ids = {seat: pid for pid, seat in replay.names.items()}
    return replay, {ids[seat]: value for seat, value in replay.game.scores().items()}


def accepted_part(path: Path) -> dict[str, object]:
    """The record at PATH, cut before the action our engine refuses when the record is
    one the site replays and ours does not (`site_only` in its title's
    site_results.json: a listed difference of the site's, docs/site-differences.md)."""
    record: dict[str, object] = json.loads(path.read_text())
    results = path.parent / "site_results.json"
    if results.exists():
        refused = json.loads(results.read_text()).get("site_only", {}).get(path.name)
        if refused is not None:
            actions = record["actions"]
            assert isinstance(actions, list)
            record = dict(record, actions=actions[:refused["refused_at"]])
    return record
