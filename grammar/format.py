"""Canonical order text: what the moderator writes when it echoes or suggests an order.

`format_order(x, names)` gives, for any engine action or meta command, the line that
parses back to it (the contract's own spelling where it has one: `lay 57 at H5 rot
2`, `buy train 3 from IC for 150`). Amounts are plain numbers, names the printed
symbols. Limits of the round trip, by design:
- `Undo(to_move=N)` is written `undo to move N`, which parses to the game master's
  `UndoTo(N)` command (whose `to_action()` is that Undo again);
- a route's city pins (`B13 city 1`) must follow the route's order, which is how the
  parser produces them; a pin on a hex the route does not visit raises ValueError,
  as do combinations no line expresses (`RunRoutes` with both `auto` and routes).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import singledispatch

from engine import actions as a
from grammar import commands as cmd
from grammar.names import NameProblem, Names, lookup_company


def format_order(order: a.Action | cmd.Command, names: Names) -> str:
    """The canonical text of one action or command."""
    if isinstance(order, cmd.Command):
        return _command(order, names)
    body = _action(order, names)
    company = getattr(order, "company", None)
    if company and not isinstance(order, _COMPANY_IN_BODY):
        return f"{_sym(company, names)}: {body}"
    return body


# Orders whose company the contract writes after the verb (`redeem SOO`).
_COMPANY_IN_BODY = (a.RedeemShares, a.IssueShares, a.ReissueShares)


def format_line(orders: Sequence[a.Action | cmd.Command], names: Names) -> str:
    """One line for the orders of one line: `sell 2 TC, 1 IC` joins sales.

    Raises ValueError for orders that no single line gives.
    """
    if len(orders) == 1:
        return format_order(orders[0], names)
    if orders and all(isinstance(o, a.SellShares) for o in orders):
        parts = [format_order(o, names).removeprefix("sell ") for o in orders]
        return "sell " + ", ".join(parts)
    raise ValueError(f"no single line gives {len(orders)} orders of these kinds: {orders!r}")


def _sym(sym: str | None, names: Names) -> str:
    """The printed symbol (an action may carry a loose spelling such as `LN`)."""
    if sym is None:
        return ""
    try:
        return lookup_company(names, sym, ("corporation", "minor", "private"))
    except NameProblem:
        return sym


def _from(source: str | None) -> str:
    return f" from {source}" if source else ""


def _for(price: int | None) -> str:
    return "" if price is None else f" for {price}"


@singledispatch
def _fmt(action: a.Action, names: Names) -> str:
    raise ValueError(f"no order text for {action!r}")


def _action(action: a.Action, names: Names) -> str:
    return _fmt(action, names)


@_fmt.register
def _(x: a.Pass, names: Names) -> str:
    return "pass"


@_fmt.register
def _(x: a.BuyShares, names: Names) -> str:
    count = f"{x.count} " if x.count != 1 else ""
    return f"buy {count}{_sym(x.corporation, names)}{_from(x.source)}"


@_fmt.register
def _(x: a.Par, names: Names) -> str:
    return f"par {_sym(x.corporation, names)} at {x.price}"


@_fmt.register
def _(x: a.SellShares, names: Names) -> str:
    sym = _sym(x.corporation, names)
    if x.percent is not None:
        return f"sell {x.percent}% {sym}"
    if x.count is None:
        raise ValueError(f"a sale needs a count or a percent: {x!r}")
    return f"sell {x.count} {sym}"


@_fmt.register
def _(x: a.BuyPrivate, names: Names) -> str:
    sym = _sym(x.private, names)
    if x.seller is None and x.price is None and x.company is None:
        return f"buy {sym}"
    return f"buy private {sym}{_from(_holder(x.seller, names))}{_for(x.price)}"


def _holder(name: str | None, names: Names) -> str | None:
    if name is None or name in names.seats:
        return name
    return _sym(name, names)


@_fmt.register
def _(x: a.Bid, names: Names) -> str:
    on = f" on {_sym(x.target, names)}" if x.target else ""
    return f"bid {x.amount}{on}"


@_fmt.register
def _(x: a.StartAuction, names: Names) -> str:
    return f"auction {_sym(x.target, names)} {x.amount}"


@_fmt.register
def _(x: a.SellPrivate, names: Names) -> str:
    return f"sell {_sym(x.private, names)} to {x.buyer}{_for(x.price)}"


@_fmt.register
def _(x: a.Accept, names: Names) -> str:
    return "accept"


@_fmt.register
def _(x: a.Decline, names: Names) -> str:
    return "decline"


def _count_and_company(verb: str, count: int, company: str | None, names: Names) -> str:
    """`redeem 2` (1851, the acting company), `redeem SOO` / `redeem 2 SOO` (1850)."""
    if company is None:
        return f"{verb} {count}"
    return f"{verb} {f'{count} ' if count != 1 else ''}{_sym(company, names)}"


@_fmt.register
def _(x: a.RedeemShares, names: Names) -> str:
    text = _count_and_company("redeem", x.count, x.company, names)
    return text + _from(_holder(x.holder, names))


@_fmt.register
def _(x: a.IssueShares, names: Names) -> str:
    return _count_and_company("issue", x.count, x.company, names)


@_fmt.register
def _(x: a.ReissueShares, names: Names) -> str:
    return f"reissue {_sym(x.company, names)}" if x.company else "reissue"


@_fmt.register
def _(x: a.Protect, names: Names) -> str:
    return f"protect {_sym(x.corporation, names)}"


@_fmt.register
def _(x: a.DeclineProtection, names: Names) -> str:
    return "decline protection"


@_fmt.register
def _(x: a.LayTile, names: Names) -> str:
    return f"lay {x.tile} at {x.hex} rot {x.rotation}"


@_fmt.register
def _(x: a.PlaceToken, names: Names) -> str:
    city = f" city {x.city + 1}" if x.city is not None else ""
    return f"token {x.hex}{city}"


@_fmt.register
def _(x: a.PlaceEdgeToken, names: Names) -> str:
    return f"edge token {x.hex}"


@_fmt.register
def _(x: a.RunRoutes, names: Names) -> str:
    if x.auto:
        if x.routes:
            raise ValueError(f"no order text runs both auto and named routes: {x!r}")
        return "run auto"
    if not x.routes:
        return "run none"
    return "run " + "; ".join(_route(r) for r in x.routes)


def _route(route: a.Route) -> str:
    """`3: B13 C14 city 1 D15`: each city pin after the first visit of its hex that
    comes after the previous pin, so that the parser rebuilds the pins in order."""
    pinned: dict[int, int] = {}
    cursor = 0
    for hex_id, city in route.cities:
        at = next((i for i in range(cursor, len(route.hexes)) if route.hexes[i] == hex_id), None)
        if at is None:
            raise ValueError(f"route pin {hex_id} city {city} is not on the route {route!r}")
        pinned[at] = city
        cursor = at + 1
    stops = [f"{h} city {pinned[i] + 1}" if i in pinned else h
             for i, h in enumerate(route.hexes)]
    return f"{route.train}: {' '.join(stops)}"


@_fmt.register
def _(x: a.Dividend, names: Names) -> str:
    return {"payout": "pay", "withhold": "withhold", "half": "half"}[x.choice]


@_fmt.register
def _(x: a.BuyTrain, names: Names) -> str:
    source = "" if x.source == "bank" else _from(_sym(x.source, names))
    traded = f" trade in {x.trade_in}" if x.trade_in else ""
    return f"buy train {x.train}{source}{_for(x.price)}{traded}"


@_fmt.register
def _(x: a.DiscardTrain, names: Names) -> str:
    return f"discard train {x.train}"


@_fmt.register
def _(x: a.TakeLoan, names: Names) -> str:
    return "take loan"


@_fmt.register
def _(x: a.RepayLoan, names: Names) -> str:
    return "repay loan"


@_fmt.register
def _(x: a.PayMesabi, names: Names) -> str:
    return "pay mesabi"


@_fmt.register
def _(x: a.LeaseTrain, names: Names) -> str:
    return "lease train"


@_fmt.register
def _(x: a.SellTrain, names: Names) -> str:
    return f"sell train {x.train} to {_sym(x.to, names)}{_for(x.price)}"


@_fmt.register
def _(x: a.Veto, names: Names) -> str:
    return "veto"


@_fmt.register
def _(x: a.UsePrivate, names: Names) -> str:
    return f"use {_sym(x.private, names)} {_action(x.then, names)}"


@_fmt.register
def _(x: a.Done, names: Names) -> str:
    return "done"


@_fmt.register
def _(x: a.Convert, names: Names) -> str:
    into = f" into {_sym(x.into, names)}" if x.into else ""
    return f"convert {_sym(x.minor, names)}{into}"


@_fmt.register
def _(x: a.Merge, names: Names) -> str:
    minors = " ".join(_sym(m, names) for m in x.minors)
    stations = " ".join(_sym(m, names) for m in x.stations)
    return f"merge {minors} into {_sym(x.into, names)}" + \
        (f" stations of {stations}" if stations else "")


@_fmt.register
def _(x: a.Nationalise, names: Names) -> str:
    return f"nationalise {_sym(x.corporation, names)}"


@_fmt.register
def _(x: a.Keep, names: Names) -> str:
    return f"keep {_sym(x.corporation, names)}"


@_fmt.register
def _(x: a.Undo, names: Names) -> str:
    return f"undo to move {x.to_move}"


def _duration(minutes: int) -> str:
    if minutes % 1440 == 0:
        return f"{minutes // 1440}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def _command(c: cmd.Command, names: Names) -> str:
    match c:
        case cmd.History(count=None):
            return "history"
        case cmd.History(count=n):
            return f"history {n}"
        case cmd.Help(topic=None):
            return "help"
        case cmd.Help(topic=t):
            return f"help {t}"
        case cmd.SetFormat(format=f):
            return f"set format {f}"
        case cmd.SetReports(mode=m):
            return f"set reports {m}"
        case cmd.SetTimezone(zone=z):
            return f"set timezone {z}"
        case cmd.Away(start=s, end=e):
            return f"away {s.isoformat()} to {e.isoformat()}"
        case cmd.MoveNumber(number=n):
            return f"move {n}"
        case cmd.GameId(game=g):
            return f"game {g}"
        case cmd.Password(token=t):
            return f"password {t}"
        case cmd.AutoPass(enabled=on):
            return "auto pass" if on else "auto pass off"
        case cmd.CreateGame(title=t, options=opts):
            return " ".join(("create game", t, *opts))
        case cmd.Invite(address=addr, seat=seat):
            return f"invite {addr} as {seat}"
        case cmd.Observe(game=g):
            return f"observe {g}"
        case cmd.SetDeadline(minutes=m):
            return f"set deadline {_duration(m)}"
        case cmd.SetTimeout(policy=p):
            return f"set timeout {p}"
        case cmd.Replace(seat=seat, address=addr):
            return f"replace {seat} with {addr}"
        case cmd.Force(seat=seat, actions=acts):
            return f"force {seat}: {format_line(acts, names)}"
        case cmd.UndoTo(move=n):
            return f"undo to move {n}"
        case cmd.ShowHex(hex=h):
            return f"show {h}"
        case cmd.Webhook(url=None):
            return "webhook off"
        case cmd.Webhook(url=str(url), form=form):
            return f"webhook {url}" + (f" {form}" if form else "")
    simple = {
        cmd.Status: "status", cmd.ShowMap: "map", cmd.Legal: "legal", cmd.UndoLast: "undo",
        cmd.Resign: "resign", cmd.Join: "join", cmd.Start: "start", cmd.Pause: "pause",
        cmd.Resume: "resume", cmd.EndGame: "end game", cmd.Stop: "stop",
    }  # fmt: skip
    text = simple.get(type(c))
    if text is None:
        raise ValueError(f"no order text for {c!r}")
    return text
