"""Positions built by hand to show a listed difference (docs/site-differences.md) in
both engines: each probe plays a short game in ours, exports it and replays it in the
site's engine (the oracle, DEVELOPERS.md), and prints what each engine did.

    .venv/bin/python tools/oracle/probes.py sr2-sale

sr2-sale (18TN 3.2(a)(1)): three players pass in stock round 1 (it ends: 3.1.2), buy
the five privates in stock round 2 (the TCC at $15), the L&N is parred with the last
private, and another player buys a share of it and sells it in the same turn. Ours
accepts the sale (the rulebook's second stock round); the site refuses it in its first
("Stock Round 1.1").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle import DEFAULT_SITE_LIB, Oracle

from engine.actions import Action, BuyPrivate, BuyShares, Par, Pass, SellShares
from engine.game import Game, Setup
from engine.records import export_record


def sr2_sale() -> Game:
    game = Game(Setup("18TN", ("Ann", "Bob", "Cy"), seed=7))

    def move(action: Action) -> None:
        turn = game.turn()
        assert turn is not None
        game.apply(turn.seat, action)

    for _ in game.setup.seats:  # stock round 1: everyone passes
        move(Pass())
    while not game.round_name.startswith("Stock"):
        move(Pass())
    order = list(game.state.privates)
    while unsold := [s for s in order if game.state.privates[s].owner is None]:
        move(BuyPrivate(unsold[0]))
    move(Par("L&N", 65))  # the L&N Railroad private's owner pars the L&N at once
    turn = game.turn()
    assert turn is not None
    buyer = turn.seat
    move(BuyShares("L&N"))
    for _ in game.setup.seats:
        turn = game.turn()
        assert turn is not None
        move(SellShares("L&N") if turn.seat == buyer else Pass())
        if turn.seat == buyer:
            break
    return game


PROBES = {"sr2-sale": sr2_sale}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("probe", choices=sorted(PROBES))
    parser.add_argument("--site-lib", type=Path, default=DEFAULT_SITE_LIB)
    args = parser.parse_args(argv)
    game = PROBES[args.probe]()
    print("ours:", game.round_name)
    print("\n".join(f"  {line}" for line in game.state.log[-6:]))
    with tempfile.TemporaryDirectory() as tmp, Oracle(args.site_lib) as oracle:
        path = Path(tmp) / f"{args.probe}.json"
        path.write_text(json.dumps(export_record(game, game_id=1)))
        answer = oracle.replay(path, states=True)
    states = answer.get("states") or []
    print("site:", "accepts every action" if answer["ok"] else
          f"refuses record action {answer['error_action_index']} in "
          f"{states[-1]['round'] if states else '?'}: {answer['error']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
