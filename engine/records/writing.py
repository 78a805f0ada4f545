"""Exporting a game as an 18xx.games game record: the inverse of the importer
(`engine.records.reading`).

At the end of a game played by mail every player gets the record as an attachment, so
that the game can be reviewed on 18xx.games; `moderator import` reads it back to the
same game. The record names things by the site's ids: player ids, shares ("TC_1"),
tile copies ("57-0", numbered per tile as the site hands them out), cities ("57-0-0";
"F11-0-0" for printed content), trains ("3-0"; "3'-0" where the site names a type apart).

The export works in two passes.

1. Our moves (the ones that stand after undo) are replayed and each is rendered in the
   site's form (`rendering`), read off the position before and after it: which
   certificate, train or tile copy moved, which slot a token took. Some moves have no
   form of the site's: a declined offer, a pass the site makes by itself because nothing
   is left to do.
2. The rendered actions are read back through the importer one by one (`read_back`),
   each proved to make exactly our next moves. Where the site's form reads back as a
   different action of ours (`done` is the site's `pass`; `sell 2 TC` is the site's sale
   of 20%), the action also carries ours under `moderator_actions`, which the site
   ignores; where the site has no form, ours travels in a chat message. A move the site
   makes without recording it is left out when the importer makes it again by itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.actions import BuyPrivate, SellPrivate, to_json
from engine.game import Game, Move
from engine.records.conventions import OUR_ACTIONS, OUR_EXACT, OUR_SETUP, site_forms, site_options
from engine.records.read_back import read_back
from engine.records.rendering import Renderer
from engine.rounds.stock import StockRound

# Our end reasons in the site's words.
END_REASONS = {"bank": "bank", "market": "stock_market", "bankruptcy": "bankrupt"}


def export_record(game: Game, *, game_id: int | str = 0,
                  players: Mapping[str, str] | None = None,
                  description: str = "") -> dict[str, Any]:
    """The game as an 18xx.games record (a JSON-ready dict); `players` maps our seat
    names to the names the record shows (default: the seats)."""
    setup = game.setup
    names = {seat: (players or {}).get(seat, seat) for seat in setup.seats}
    ids = {seat: number for number, seat in enumerate(setup.seats, start=1)}
    record = _header(game, ids, names, game_id, description)
    moves = [game.log[i] for i in game.effective]
    if setup.title in OWN_FORM_ONLY:
        record["actions"] = _own_form(moves, ids)
        return record
    renderer = Renderer(setup, ids)
    pieces = renderer.render(moves)
    actions = read_back(record, [_renamed(m, names) for m in moves], pieces, renderer.said)
    forms = site_forms(setup.title)
    actions = [forms.site_action(game, a) for a in actions]
    record["actions"] = [{"id": number, **action}
                         for number, action in enumerate(actions, start=1)]
    return record


# Titles whose moves are not yet written in the site's forms: their record carries our
# moves only, each as a chat message with our action attached (`moderator import` reads
# it back exactly; the site shows the messages). 1861: issue #17's differential step.
OWN_FORM_ONLY: frozenset[str] = frozenset()


def _own_form(moves: list[Move], ids: dict[str, int]) -> list[dict[str, Any]]:
    return [{"id": number, "type": "message", "entity": ids[move.seat],
             "entity_type": "player", "message": f"{move.seat}: {move.action.kind}",
             OUR_ACTIONS: [to_json(move.action)], OUR_EXACT: True}
            for number, move in enumerate(moves, start=1)]


# --- the record's head ----------------------------------------------------------------


def _header(game: Game, ids: dict[str, int], names: dict[str, str], game_id: int | str,
            description: str) -> dict[str, Any]:
    setup, state = game.setup, game.state
    # The site gives the first player listed the Priority Deal: list the players
    # clockwise from the one who held it at the start.
    first = setup.priority or Game(setup).state.priority
    order = state.seats_from(first) if first in setup.seats else list(setup.seats)
    turn = game.turn()
    record: dict[str, Any] = {
        "id": game_id,
        "title": setup.title,
        "description": description,
        "players": [{"id": ids[seat], "name": names[seat]} for seat in order],
        "settings": {"seed": setup.seed,
                     "optional_rules": site_options(setup.title, setup.options)},
        "status": "finished" if state.game_over else "active",
        "turn": state.stock_round_number,
        "round": "Stock Round" if isinstance(game.round, StockRound) else "Operating Round",
        "acting": [ids[turn.seat]] if turn is not None else [],
        "result": {str(ids[seat]): value for seat, value in game.scores().items()}
        if state.game_over else {},
    }
    if state.game_over and state.end_reason is not None:
        record["game_end_reason"] = END_REASONS.get(state.end_reason, state.end_reason)
    seats = tuple(names[seat] for seat in setup.seats)
    priority = None if setup.priority is None else names[setup.priority]
    listed = tuple(names[seat] for seat in order)
    if (seats, priority) != (listed, listed[0]):
        # Our seating or a drawn Priority Deal is not what the site's convention gives.
        record[OUR_SETUP] = {"seats": [ids[seat] for seat in setup.seats],
                             "priority": None if setup.priority is None
                             else ids[setup.priority]}
    return record


def _renamed(move: Move, names: dict[str, str]) -> Move:
    """A move with seats called by the record's player names (as an import calls them)."""
    action = move.action
    if isinstance(action, SellPrivate) and action.buyer in names:
        action = dataclasses.replace(action, buyer=names[action.buyer])
    if isinstance(action, BuyPrivate) and action.seller in names:
        action = dataclasses.replace(action, seller=names[str(action.seller)])
    return Move(names[move.seat], action)
