"""Rounds: the stock round, the operating round, and the titles' special rounds.

A round knows whose turn it is, what they may do, and how each action changes the
state; `engine.game.Game` moves from one round to the next.
"""
