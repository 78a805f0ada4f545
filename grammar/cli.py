"""`moderator parse`: read order lines, print what each one parses to.

`parse_command` is the whole command; moderator/cli.py wires it to click. It
parses each line on its own (as a submission does, but without stopping at
signatures), so it doubles as a checker for a file of orders.
"""

from __future__ import annotations

import json
from typing import TextIO

from engine.actions import Action, to_json
from grammar.commands import Command, command_to_json
from grammar.errors import OrderError
from grammar.names import Names, names_for_title
from grammar.parser import Confirmed, Order, parse_line


def order_to_json(order: Order) -> dict[str, object]:
    """An action's engine JSON (`{"type": ...}`), or a command's `{"command": ...}`."""
    if isinstance(order, Command):
        return command_to_json(order)
    if isinstance(order, Confirmed):
        return {"confirm": [to_json(action) for action in order.actions]}
    assert isinstance(order, Action)
    return to_json(order)


def parse_command(title: str, stdin: TextIO, stdout: TextIO, seats: tuple[str, ...] = ()) -> int:
    """Print each line's order(s) as JSON (one per output line) or its error with a caret.

    Blank lines and `#` comment lines are skipped. Returns 1 if any line failed, else 0.
    Seat names are taken as written unless `seats` lists them.
    """
    from engine.title import load_title

    try:
        names: Names = names_for_title(load_title(title), seats)
    except ValueError as e:
        stdout.write(f"{e}\n")
        return 1
    failed = False
    for number, line in enumerate(stdin, start=1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            orders = parse_line(text, names)
        except OrderError as e:
            failed = True
            stdout.write(f"line {number}:\n{e.format_error(indent='  ')}\n")
            continue
        for order in orders:
            stdout.write(json.dumps(order_to_json(order), ensure_ascii=False) + "\n")
    return 1 if failed else 0
