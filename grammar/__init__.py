"""The order language: the Lark grammar and the code that turns a line into an order.

Public API:

- `parse_line(text, names)` -> tuple of engine actions / meta commands, or OrderError;
- `parse_submission(body, names)` -> Submission (a mail body's order lines, parsed);
- `format_order(order, names)` -> the canonical text of an action or command;
- `Names`, `names_for_title(title, seats)`: the names a game's orders may use;
- `OrderError`: the one error type (line, column, message, suggestions; format_error());
- `help_text(topic)`: sections of docs/orders.md;
- `parse_command(title, stdin, stdout)`: the `moderator parse` command.
"""

from grammar.cli import order_to_json, parse_command
from grammar.commands import Command, command_to_json
from grammar.errors import OrderError
from grammar.format import format_line, format_order
from grammar.help import help_text
from grammar.names import Names, names_for_title
from grammar.parser import Order, parse_line
from grammar.submission import Submission, SubmissionLine, parse_submission, read_game_id

__all__ = [
    "Command",
    "Names",
    "Order",
    "OrderError",
    "Submission",
    "SubmissionLine",
    "command_to_json",
    "format_line",
    "format_order",
    "help_text",
    "names_for_title",
    "order_to_json",
    "parse_command",
    "parse_line",
    "parse_submission",
    "read_game_id",
]
