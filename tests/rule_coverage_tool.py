"""tools/rule_coverage.py loaded as a module (tools/ is no package): its rulebook
parser is what the coverage and citation tests read the rulebooks' sections with."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

TOOL = Path(__file__).resolve().parents[1] / "tools" / "rule_coverage.py"


@cache
def rule_coverage() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_coverage", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rule_coverage"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module
