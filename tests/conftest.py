"""Shared test configuration."""

import sys
from pathlib import Path

from hypothesis import settings

# The engine's scenario builders (tests/engine/tn_scenarios.py, scenarios_1851.py) serve
# the service's tests too: positions to put in a real store.
sys.path.insert(0, str(Path(__file__).parent / "engine"))

# Fixtures and helpers for the end-to-end mail tests: tests/mailservers.py.
pytest_plugins = ["mailservers", "realmail"]

# Hypothesis fails an example that takes over 200 ms of wall clock (and calls a rerun
# that is quicker "flaky"): a loaded machine, as CI's two cores, makes any example that
# slow. No test here is about speed; each test's own limit (pytest-timeout) still holds.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
