"""Whether what `Game.legal()` lists and what `Game.apply` accepts are the same set.

`Game.legal()` gives order texts (some with placeholders: "issue N", "lay TILE at HEX
rot N"); `engine.legal.legal_actions` gives the concrete candidate actions that
`apply` accepts (each tried on a copy). Both are reduced to kinds of action ("sell",
"train", "dividend payout", ...) and compared:

* every kind listed is accepted for some candidate action, except "lay" and
  "token", which `legal()` lists while the step is open without searching for a
  tile or city that fits;
* every kind accepted is listed.

Concrete texts are checked exactly where the candidates cover them: "buy train X"
and "buy train X from pool".
"""

from __future__ import annotations

import itertools

from engine.actions import (
    Accept,
    Action,
    Bid,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    Decline,
    DeclineProtection,
    DiscardTrain,
    Dividend,
    Done,
    IssueShares,
    LayTile,
    LeaseTrain,
    Par,
    Pass,
    PayMesabi,
    PlaceEdgeToken,
    PlaceToken,
    Protect,
    RedeemShares,
    ReissueShares,
    RunRoutes,
    SellPrivate,
    SellShares,
    SellTrain,
    UsePrivate,
)
from engine.game import Game
from engine.rounds.operating import OperatingRound
from engine.state import POOL

HINTS = frozenset({"lay", "token", "use"})  # listed while the step is open


def _protection_asked(game: Game) -> bool:
    turn = game.turn()
    return turn is not None and turn.step.startswith("protect ")


def action_kind(game: Game, action: Action) -> str:
    if isinstance(action, Pass) and _protection_asked(game):
        return "decline protection"  # 1850 5.9: passing lets the sale stand
    if isinstance(action, Pass) and _before_train_step(game):
        return "pass"  # in an operating round: skip one step
    if isinstance(action, Pass | Done):
        return "done"
    if isinstance(action, UsePrivate):
        return "use"
    if isinstance(action, Dividend):
        return f"dividend {action.choice}"
    kinds: dict[type[Action], str] = {
        LayTile: "lay", PlaceToken: "token", RunRoutes: "run", BuyTrain: "train",
        DiscardTrain: "discard", IssueShares: "issue", RedeemShares: "redeem",
        SellShares: "sell", BuyShares: "buy share", Par: "par", Bid: "bid",
        BuyPrivate: "buy private", SellPrivate: "sell private", Accept: "accept",
        Decline: "decline", Protect: "protect", DeclineProtection: "decline protection",
        ReissueShares: "reissue", PayMesabi: "mesabi", PlaceEdgeToken: "edge token",
        LeaseTrain: "lease", SellTrain: "sell train",
    }
    return kinds[type(action)]


def _before_train_step(game: Game) -> bool:
    rnd = game.round
    return (isinstance(rnd, OperatingRound) and rnd.current is not None
            and not rnd.offer and not rnd.discards
            and rnd.current.step < rnd.steps.index("train"))


def text_kind(game: Game, text: str) -> str:
    words = text.split()
    first = words[0]
    if text.startswith("pay mesabi"):
        return "mesabi"
    if first == "pass" and _before_train_step(game):
        return "pass"
    if first in ("pass", "done"):
        return "done"
    if first in ("pay", "withhold", "half"):
        return "dividend " + {"pay": "payout"}.get(first, first)
    if text.startswith("buy train"):
        return "train"
    if text.startswith("discard train"):
        return "discard"
    if text.startswith("sell train"):
        return "sell train"
    if first == "buy":
        target = words[1]
        if target == "private" or target in game.state.privates:
            return "buy private"
        return "buy share"
    if first == "sell" and " to " in text and words[1] in game.state.privates:
        return "sell private"
    if text.startswith("decline protection"):
        return "decline protection"
    if text.startswith("edge token"):
        return "edge token"
    return {"lay": "lay", "token": "token", "run": "run", "issue": "issue",
            "redeem": "redeem", "sell": "sell", "par": "par", "bid": "bid",
            "accept": "accept", "decline": "decline", "use": "use", "protect": "protect",
            "reissue": "reissue", "lease": "lease"}[first]


def disagreements(game: Game, accepted: list[Action]) -> list[str]:
    """What `legal()` and the accepted candidates `accepted` disagree on (empty: they
    agree). `accepted` is `legal_actions(game)`."""
    texts = game.legal()
    listed = {text_kind(game, t) for t in texts}
    done = {action_kind(game, a) for a in accepted}
    out = [f"listed, never accepted: {k} ({[t for t in texts if text_kind(game, t) == k]})"
           for k in sorted(listed - done - HINTS)]
    out += [f"accepted, not listed: {k} ({[a for a in accepted if action_kind(game, a) == k][:3]})"
            for k in sorted(done - listed)]
    for text in texts:
        words = text.split(" (")[0].split()
        if words[:2] != ["buy", "train"] or len(words) not in (3, 5):
            continue
        if len(words) == 3:
            want: Action = BuyTrain(words[2])
        elif words[3:] == ["from", "pool"]:
            want = BuyTrain(words[2], POOL)
        else:
            continue
        if not any(isinstance(a, BuyTrain) and a.train == want.train  # type: ignore[attr-defined]
                   and a.source == want.source for a in accepted):  # type: ignore[attr-defined]
            out.append(f"listed, refused: {text}")
    return out


def edges_crossed_twice(runs: list[tuple[str, ...]]) -> list[frozenset[str]]:
    """Hex edges crossed more than once by a company's routes (each route as the hexes
    it passes, no hex repeated in a row): from the map's geometry alone, independent
    of the track model (18TN 4.2.3(b), (j); 1851 ROUTES)."""
    seen: set[frozenset[str]] = set()
    twice: list[frozenset[str]] = []
    for hexes in runs:
        for a, b in itertools.pairwise(hexes):
            edge = frozenset((a, b))
            if edge in seen:
                twice.append(edge)
            seen.add(edge)
    return twice
