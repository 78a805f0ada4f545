"""A client for the oracle: the 18xx.games engine replaying records through driver.rb.

The site's engine lives outside the repository (DEVELOPERS.md says how to set it up);
this module only starts `ruby driver.rb SITE_LIB_DIR` and speaks its line protocol.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

DRIVER = Path(__file__).with_name("driver.rb")
DEFAULT_SITE_LIB = Path(os.environ.get("ORACLE_SITE_LIB", "/work/oracle/site/lib"))


class Oracle:
    """One long-lived Ruby process; `replay` sends a record and reads the answer."""

    def __init__(self, site_lib: Path = DEFAULT_SITE_LIB) -> None:
        if not (site_lib / "engine.rb").is_file():
            raise FileNotFoundError(f"no 18xx.games engine at {site_lib} (see DEVELOPERS.md)")
        self._process = subprocess.Popen(
            ["ruby", str(DRIVER), str(site_lib)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "ENGINE_LOG_LEVEL": "4"},
        )
        assert self._process.stderr is not None
        for line in self._process.stderr:
            if line.strip() == "ready":
                break
        else:
            raise RuntimeError("the oracle exited before it was ready")
        # From here on stderr is the engine's chatter: drain it so the pipe never fills.
        threading.Thread(target=self._process.stderr.read, daemon=True).start()

    def replay(self, path: Path, *, states: bool = False, repeat: int = 1) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        request = {"path": str(path.resolve()), "repeat": repeat, "states": states}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the oracle died")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
