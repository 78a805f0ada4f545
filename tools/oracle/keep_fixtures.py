"""Keep agreeing games of a differential run as test fixtures.

    .venv/bin/python tools/oracle/keep_fixtures.py OUTCOMES.json RECORDS_DIR SEED \
        tests/fixtures/18TN --count 20 [--title 1850]

Copies the exported records of the COUNT shortest games both engines agree on (the
suite replays them all; a record that goes to a bankruptcy or other end is as good as
a long one) and writes
`site_results.json` beside them: the 18xx.games engine's final scores for each (a fact
from an independent engine, the test's expectation), with the site's commit.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

from differential import record_name

SITE_REPO = Path("/work/.mirror/tobymao+18xx/repo")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("outcomes", type=Path, nargs="+")
    parser.add_argument("--records", type=Path, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--to", type=Path, required=True)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--title", default="18TN")
    args = parser.parse_args(argv)
    agreeing = []
    for path in args.outcomes:
        for group, outcomes in json.loads(path.read_text()).items():
            # "agree", and 1850's "agree to the site's end of a dead game": the record
            # up to the site's end, where both engines' scores are the same.
            if group.startswith("agree") and "so far" not in group:
                agreeing += outcomes
    def length(outcome: dict[str, object]) -> int:
        source = args.records / record_name(args.title, args.seed, int(str(outcome["index"])))
        upto = re.match(r"upto (\d+);", str(outcome.get("detail", "")))
        if upto is not None:
            return int(upto.group(1))
        return len(json.loads(source.read_text())["actions"])

    agreeing.sort(key=length)
    try:
        commit = subprocess.run(["git", "-C", str(SITE_REPO), "rev-parse", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    args.to.mkdir(parents=True, exist_ok=True)
    facts: dict[str, object] = {
        "about": "Final scores of each record as the 18xx.games engine replays it "
                 "(tools/oracle/differential.py; random games of our engine).",
        "site_commit": commit,
        "results": {},
    }
    # The entries kept before stay (other seeds' games, `site_only` records).
    facts_path = args.to / "site_results.json"
    before = json.loads(facts_path.read_text()) if facts_path.exists() else {}
    facts.update({k: v for k, v in before.items() if k not in ("site_commit", "results")})
    results: dict[str, dict[str, int]] = dict(before.get("results", {}))
    for outcome in sorted(agreeing[: args.count], key=lambda o: int(str(o["index"]))):
        name = f"random-{args.seed}-{outcome['index']}.json"
        source = args.records / record_name(args.title, args.seed, int(str(outcome["index"])))
        record = json.loads(source.read_text())
        upto = re.match(r"upto (\d+);", str(outcome.get("detail", "")))
        if upto is not None:
            # The site ended the dead game there (its 100th turn): keep what it played.
            record["actions"] = record["actions"][: int(upto.group(1))]
            record["result"] = outcome["site_result"]
        (args.to / name).write_text(json.dumps(record, separators=(",", ":")) + "\n")
        results[name] = outcome["site_result"]
    facts["results"] = results
    facts_path.write_text(json.dumps(facts, indent=1) + "\n")
    print(f"kept {len(results)} games in {args.to}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
