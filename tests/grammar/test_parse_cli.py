"""`moderator parse`: grammar.cli.parse_command."""

from __future__ import annotations

import io
import json

from grammar.cli import parse_command


def run(title: str, text: str) -> tuple[int, str]:
    out = io.StringIO()
    code = parse_command(title, io.StringIO(text), out)
    return code, out.getvalue()


def test_the_issue_example_prints_five_orders() -> None:
    code, out = run("18TN", "lay 57 at H-5 rot 2\nbuy L&N\npar IC at 75\nrun auto\npay\n")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"type": "lay_tile", "tile": "57", "hex": "H5", "rotation": 2},
        {"type": "buy_shares", "corporation": "L&N"},
        {"type": "par", "corporation": "IC", "price": 75},
        {"type": "run_routes", "auto": True},
        {"type": "dividend", "choice": "payout"},
    ]


def test_commands_several_orders_comments_and_errors() -> None:
    code, out = run("18tn", "# plan\n\nstatus\nsell 2 TC, 1 IC\nlay 75 at H5 rot 2\n")
    assert code == 1
    assert out == (
        '{"command": "status"}\n'
        '{"type": "sell_shares", "corporation": "TC", "count": 2}\n'
        '{"type": "sell_shares", "corporation": "IC"}\n'
        "line 5:\n"
        "  lay 75 at H5 rot 2\n"
        "      ^^\n"
        "  tile 75 does not exist in 18TN; did you mean 57?\n"
    )


def test_unknown_title() -> None:
    code, out = run("18XX", "pass\n")
    assert code == 1
    assert out.startswith("unknown title '18XX'")
