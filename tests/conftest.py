"""Shared test configuration."""

import sys
from pathlib import Path

# The engine's scenario builders (tests/engine/tn_scenarios.py, scenarios_1851.py) serve
# the service's tests too: positions to put in a real store.
sys.path.insert(0, str(Path(__file__).parent / "engine"))

# Fixtures and helpers for the end-to-end mail tests: tests/mailservers.py.
pytest_plugins = ["mailservers", "realmail"]
