"""Shared test configuration."""

# Fixtures and helpers for the end-to-end mail tests: tests/mailservers.py.
pytest_plugins = ["mailservers"]
