"""Every example of the contract (ORDERS.md, copied here) parses to the intended order.

The expectations are spelled out line by line: "parses" is not enough, each example
must give exactly the dataclass(es) it means. A new example in the contract fails
`test_every_example_is_covered` until its expectation is added here.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from order_helpers import names

from engine import actions as a
from grammar import commands as c
from grammar.parser import Order, parse_line

CONTRACT = Path(__file__).with_name("ORDERS.md")

# example line (as in the contract, comment removed) -> (title, intended orders)
EXPECTED: dict[str, tuple[str, tuple[Order, ...]]] = {
    # stock round
    "pass": ("18TN", (a.Pass(),)),
    "buy TC": ("18TN", (a.BuyShares("TC"),)),
    "buy TC from pool": ("18TN", (a.BuyShares("TC", source="pool"),)),
    "buy 3 SOO from pool": ("1850", (a.BuyShares("SOO", count=3, source="pool"),)),
    "par IC at 75": ("18TN", (a.Par("IC", 75),)),
    "sell 2 TC": ("18TN", (a.SellShares("TC", count=2),)),
    "sell 20% IC": ("18TN", (a.SellShares("IC", count=None, percent=20),)),
    # privates and auctions
    "buy TCC": ("18TN", (a.BuyPrivate("TCC"),)),
    "bid 45 on MCR": ("18TN", (a.Bid(45, "MCR"),)),
    "bid 60": ("18TN", (a.Bid(60),)),
    "auction K-B 100": ("1861", (a.StartAuction("K-B", 100),)),
    "sell TCC to Bob for 30": ("18TN", (a.SellPrivate("TCC", "Bob", 30),)),
    "accept": ("18TN", (a.Accept(),)),
    "decline": ("18TN", (a.Decline(),)),
    "sell L&M to bank": ("1825", (a.SellPrivate("L&M", "bank"),)),
    # title specials in the stock round
    "redeem SOO": ("1850", (a.RedeemShares(1, company="SOO"),)),
    "reissue SOO": ("1850", (a.ReissueShares(company="SOO"),)),
    "protect SOO": ("1850", (a.Protect("SOO"),)),
    "decline protection": ("1850", (a.DeclineProtection(),)),
    # operating round
    "lay 57 at H5 rot 2": ("18TN", (a.LayTile("57", "H5", 2),)),
    "token F11": ("18TN", (a.PlaceToken("F11"),)),
    "run auto": ("18TN", (a.RunRoutes(auto=True),)),
    "run 2: F11 G12; 3: B13 C14 D15 F11": (
        "18TN",
        (
            a.RunRoutes(
                routes=(
                    a.Route("2", ("F11", "G12")),
                    a.Route("3", ("B13", "C14", "D15", "F11")),
                )
            ),
        ),
    ),
    "run none": ("18TN", (a.RunRoutes(),)),
    "pay": ("18TN", (a.Dividend("payout"),)),
    "withhold": ("18TN", (a.Dividend("withhold"),)),
    "half": ("1851", (a.Dividend("half"),)),
    "buy train 3": ("18TN", (a.BuyTrain("3"),)),
    "buy train 4 from pool": ("18TN", (a.BuyTrain("4", source="pool"),)),
    "buy train 3 from IC for 150": ("18TN", (a.BuyTrain("3", source="IC", price=150),)),
    "discard train 2": ("18TN", (a.DiscardTrain("2"),)),
    "buy private TCC from Ann for 30": ("18TN", (a.BuyPrivate("TCC", seller="Ann", price=30),)),
    "issue 2": ("1851", (a.IssueShares(2),)),
    "redeem 1": ("1851", (a.RedeemShares(1),)),
    "take loan": ("1861", (a.TakeLoan(),)),
    "repay loan": ("1861", (a.RepayLoan(),)),
    "pay mesabi": ("1850", (a.PayMesabi(),)),
    "use TCC lay 8 at H17 rot 1": ("18TN", (a.UsePrivate("TCC", a.LayTile("8", "H17", 1)),)),
    "sell 2 IC": ("18TN", (a.SellShares("IC", count=2),)),
    "done": ("18TN", (a.Done(),)),
    # 1861 merger round and nationalisation
    "convert M-K": ("1861", (a.Convert("M-K"),)),
    "convert M-K into NW": ("1861", (a.Convert("M-K", "NW"),)),
    "propose M-K at 100": ("1861", (a.StartAuction("M-K", 100),)),
    "merge N K-B into NW": ("1861", (a.Merge(("N", "K-B"), "NW"),)),
    "merge N K-B M-K into NW stations of N M-K": (
        "1861", (a.Merge(("N", "K-B", "M-K"), "NW", ("N", "M-K")),)),
    "buy 2 NW": ("1861", (a.BuyShares("NW", count=2),)),
    "nationalise NW": ("1861", (a.Nationalise("NW"),)),
    "keep NW": ("1861", (a.Keep("NW"),)),
    # 1825
    "lease train": ("1825", (a.LeaseTrain(),)),
    "run 2+2: U17 V18 W19": (
        "1825",
        (a.RunRoutes(routes=(a.Route("2+2", ("U17", "V18", "W19")),)),),
    ),
    # not game moves
    "status": ("18TN", (c.Status(),)),
    "map": ("18TN", (c.ShowMap(),)),
    "history 20": ("18TN", (c.History(20),)),
    "legal": ("18TN", (c.Legal(),)),
    "help": ("18TN", (c.Help(),)),
    "help lay": ("18TN", (c.Help("lay"),)),
    "undo": ("18TN", (c.UndoLast(),)),
    "resign": ("18TN", (c.Resign(),)),
    "set format html": ("18TN", (c.SetFormat("html"),)),
    "set reports digest": ("18TN", (c.SetReports("digest"),)),
    "set timezone Europe/Berlin": ("18TN", (c.SetTimezone("Europe/Berlin"),)),
    "away 2026-12-01 to 2026-12-10": (
        "18TN",
        (c.Away(datetime.date(2026, 12, 1), datetime.date(2026, 12, 10)),),
    ),
    # game master
    "create game 18TN": ("18TN", (c.CreateGame("18TN"),)),
    "invite ann@example.org as Ann": ("18TN", (c.Invite("ann@example.org", "Ann"),)),
    "join": ("18TN", (c.Join(),)),
    "start": ("18TN", (c.Start(),)),
    "set deadline 48h": ("18TN", (c.SetDeadline(48 * 60),)),
    "set timeout pass": ("18TN", (c.SetTimeout("pass"),)),
    "pause": ("18TN", (c.Pause(),)),
    "resume": ("18TN", (c.Resume(),)),
    "replace Ann with carol@example.org": ("18TN", (c.Replace("Ann", "carol@example.org"),)),
    "force Ann: pass": ("18TN", (c.Force("Ann", (a.Pass(),)),)),
    "undo to move 120": ("18TN", (c.UndoTo(120),)),
    "end game": ("18TN", (c.EndGame(),)),
}

# Forms the contract names in its prose rather than in code blocks.
PROSE: dict[str, tuple[str, tuple[Order, ...]]] = {
    "veto": ("1825", (a.Veto(),)),  # 1825 6.4.5 (docs/orders.md; not in the contract)
    "buy L&N": ("18TN", (a.BuyShares("L&N"),)),
    "buy LN": ("18TN", (a.BuyShares("L&N"),)),
    "buy l&n": ("18TN", (a.BuyShares("L&N"),)),
    "buy NC&StL": ("18TN", (a.BuyShares("NC&StL"),)),
    "buy NCSTL": ("18TN", (a.BuyShares("NC&StL"),)),
    "buy TC from ipo": ("18TN", (a.BuyShares("TC", source="ipo"),)),
    "buy TC from treasury": ("1851", (a.BuyShares("TC", source="treasury"),)),
    "lay 57 at H-5 rot 2": ("18TN", (a.LayTile("57", "H5", 2),)),
    "lay 57 at h5 rot 2": ("18TN", (a.LayTile("57", "H5", 2),)),
    "upgrade 15 at H5 rot 0": ("18TN", (a.LayTile("15", "H5", 0),)),
    "lay TN1 at F11 rot 0": ("18TN", (a.LayTile("TN1", "F11", 0),)),
    "par IC at $90": ("18TN", (a.Par("IC", 90),)),
    "par LNWR at £90": ("1825", (a.Par("LNWR", 90),)),
    "par NW at R90": ("1861", (a.Par("NW", 90),)),
    "TC: lay 57 at H5 rot 2": ("18TN", (a.LayTile("57", "H5", 2, company="TC"),)),
    # Players count cities from 1: "city 2" is the engine's city index 1.
    "token F11 city 2": ("18TN", (a.PlaceToken("F11", city=1),)),
    "sell 2 TC, 1 IC": ("18TN", (a.SellShares("TC", count=2), a.SellShares("IC", count=1))),
    "edge token B1": ("1850", (a.PlaceEdgeToken("B1"),)),
    "game 18TN-7": ("18TN", (c.GameId("18TN-7"),)),
    "move 212": ("18TN", (c.MoveNumber(212),)),
    "buy private TCC": ("18TN", (a.BuyPrivate("TCC"),)),
}


def contract_examples(text: str) -> list[str]:
    """Every example line of the code blocks, without its `#` comment."""
    lines: list[str] = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            code = line.split("#", 1)[0].strip()
            if code:
                lines.append(code)
    return lines


EXAMPLES = contract_examples(CONTRACT.read_text(encoding="utf-8"))


def test_the_copy_is_the_contract() -> None:
    shared = Path("/work/shared/ORDERS.md")
    if not shared.exists():
        pytest.skip("the shared contract is not on this machine")
    assert CONTRACT.read_text(encoding="utf-8") == shared.read_text(encoding="utf-8")


def test_every_example_is_covered() -> None:
    assert len(EXAMPLES) >= 70
    assert [line for line in EXAMPLES if line not in EXPECTED] == []


@pytest.mark.parametrize("line", sorted(set(EXAMPLES)))
def test_contract_example(line: str) -> None:
    title, expected = EXPECTED[line]
    assert parse_line(line, names(title)) == expected


@pytest.mark.parametrize("line", sorted(PROSE))
def test_prose_form(line: str) -> None:
    title, expected = PROSE[line]
    assert parse_line(line, names(title)) == expected


def _shout(line: str) -> str:
    """Upper case, except mail addresses (their case is the sender's business)."""
    return " ".join(w if "@" in w else w.upper() for w in line.split(" "))


@pytest.mark.parametrize("line", sorted(set(EXAMPLES) | set(PROSE)))
def test_case_spaces_and_punctuation_do_not_matter(line: str) -> None:
    title, expected = EXPECTED.get(line) or PROSE[line]
    n = names(title)
    assert parse_line(_shout(line), n) == expected
    assert parse_line("  " + line.replace(" ", "   ") + "  ", n) == expected
    assert parse_line(line + ".", n) == expected
    assert parse_line(line + "   # a comment", n) == expected
