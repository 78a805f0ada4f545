"""The 18xx rules engine: pure Python, deterministic, no I/O beyond reading title data.

A game is its title, options, seat order, seed and an ordered list of actions; the
state is built by replaying the actions.
"""
