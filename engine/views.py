"""Plain views of a game for reports, the CLI and tools: no engine objects leak out.

`game_view(game)` returns frozen dataclasses holding only strings, numbers and tuples;
`as_json` turns a view into the JSON object that `moderator status --json` prints.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.citations import WORDS
from engine.game import Game
from engine.legal import orders_listed
from engine.state import IPO, POOL, TREASURY, GameState, money
from engine.trains import next_offered, train_limit


@dataclass(frozen=True, slots=True)
class PlayerView:
    name: str
    cash: int
    certificates: tuple[str, ...]  # "TC 20% (president)", "TCC (private)"
    value: int
    priority: bool


@dataclass(frozen=True, slots=True)
class CorporationView:
    sym: str
    name: str
    president: str | None
    par: int | None
    price: int | None
    treasury: int
    trains: tuple[str, ...]
    tokens_left: int
    floated: bool
    ipo_percent: int
    pool_percent: int
    treasury_percent: int
    privates: tuple[str, ...]
    # What the title marks on the charter: 18TN's Civil War, 1850's Mesabi rights,
    # edge token, capital due at the end of the stock round, reissued shares; 1861's
    # loans and the interest they cost a round.
    markers: tuple[str, ...] = ()
    kind: str = "major"  # "minor", "national" (1861's RSR): its charter is shown too
    closed: bool = False  # gone for good (a merged or nationalised minor): not shown


@dataclass(frozen=True, slots=True)
class PrivateView:
    sym: str
    name: str
    value: int
    revenue: int
    owner: str | None
    closed: bool


@dataclass(frozen=True, slots=True)
class GameView:
    title: str
    round: str
    phase: str
    train_limit: int
    next_train: str | None
    # The Initial Offering by type, in order; None: without limit (1850's 12-trains).
    trains_left: tuple[tuple[str, int | None], ...]
    trains_in_pool: tuple[str, ...]
    market: tuple[tuple[int, tuple[str, ...]], ...]  # occupied spaces: price, top first
    bank: int
    acting_seat: str | None
    acting_entity: str | None
    step: str | None
    legal: tuple[str, ...]
    next_move: int
    players: tuple[PlayerView, ...]
    corporations: tuple[CorporationView, ...]
    privates: tuple[PrivateView, ...]
    tiles: tuple[tuple[str, str, int], ...]  # (hex, tile, rotation)
    game_over: bool
    end_reason: str | None
    scores: tuple[tuple[str, int], ...]
    # Where the limit differs by kind of company (1861): "minors 2, public companies 4".
    train_limits: str = ""
    currency: str = "$"  # the title's money sign (1861: R, 1825: £)
    # What the title adds to the position (1825: the new shares the bank sells now).
    notes: tuple[str, ...] = ()
    # What a company's money is called (1825: company credit, not the bank's money).
    treasury_word: str = "treasury"
    # The rulebook's names for a company's head and the market's pool of shares and
    # trains (1825, 1861: "Director", "Bank Pool"; `Rules.words`).
    head_word: str = "president"
    market_word: str = "Open Market"
    # A company's token (1825: "Base") and the short head of the offering's column
    # (IPO where the rulebook has an Initial Offering; 1825, 1861: the Bank).
    station_word: str = "station"
    tokens_word: str = "tokens"
    offering_short: str = "IPO"


#: The rulebook's own name of a round where it is not the usual one: 1825 calls its
#: stock round the Share Dealing Round (and its engine says so in its moves).
_ROUND_TITLES = {"1825": (("Stock Round", "Share Dealing Round"),)}


def round_title(title: str, round_name: str) -> str:
    """ROUND_NAME as TITLE's rulebook names it."""
    for usual, own in _ROUND_TITLES.get(title, ()):
        if round_name.startswith(usual):
            return own + round_name[len(usual):]
    return round_name


def game_view(game: Game) -> GameView:
    state = game.state
    rules = game.rules
    scores = rules.scores(state)
    players = []
    for seat in state.seats:
        certs: list[str] = []
        for corp in state.corporations.values():
            pct = corp.percent_held_by(seat)
            if pct:
                pres = f" ({rules.word('head')})" if corp.president == seat else ""
                certs.append(f"{corp.sym} {pct}%{pres}")
        certs += [f"{p.sym} (private)" for p in state.privates.values()
                  if p.owner == seat and not p.closed]
        players.append(PlayerView(seat, state.players[seat].cash, tuple(certs), scores[seat],
                                  state.priority == seat))
    corps = []
    for corp in state.corporations.values():
        price = state.market.price(corp.sym) if corp.sym in state.market.positions else None
        corps.append(CorporationView(
            corp.sym, corp.spec.name or corp.sym, corp.president, corp.par_price, price,
            corp.cash, tuple(t.name + (" (obsolete)" if t.obsolete else "")
                             for t in corp.trains),
            len(corp.token_costs), corp.floated, corp.percent_held_by(IPO),
            corp.percent_held_by(POOL), corp.percent_held_by(TREASURY),
            tuple(p.sym for p in state.privates.values()
                  if p.owner == corp.sym and not p.closed),
            tuple(m for m in rules.charter_notes(state, corp) if not m.startswith("reserve "))
            + _loans(game, corp),
            corp.spec.kind, corp.closed))
    privates = tuple(PrivateView(p.sym, p.spec.name, p.spec.value, p.spec.revenue, p.owner,
                                 p.closed) for p in state.privates.values())
    turn = game.turn()
    offer = next_offered(state)
    phase = rules.phase(state)
    kinds = dict(phase.train_limit) if not isinstance(phase.train_limit, int) else {}
    kind = "major" if "major" in kinds or not kinds else next(iter(kinds))
    limit_corp = next((c for c in state.corporations.values() if c.spec.kind == kind),
                      next(iter(state.corporations.values())))
    return GameView(
        title=state.title.name,
        round=round_title(state.title.name, game.round_name),
        phase=rules.phase(state).name,
        train_limit=train_limit(rules, state, limit_corp),
        next_train=offer.name if offer else None,
        trains_left=_trains_left(state),
        market=tuple(
            (state.market.price(stack[0]), tuple(stack))
            for _, stack in sorted(((pos, st) for pos, st in state.market.stacks.items() if st),
                                   key=lambda kv: (-state.market.price(kv[1][0]), -kv[0][1]))),
        trains_in_pool=tuple(t.name for t in state.trains_pool),
        bank=state.bank_cash,
        acting_seat=turn.seat if turn else None,
        acting_entity=turn.entity if turn else None,
        step=turn.step if turn else None,
        legal=tuple(orders_listed(game)),
        next_move=game.next_move,
        players=tuple(players),
        corporations=tuple(corps),
        privates=privates,
        tiles=tuple((h, t.name, t.rotation) for h, t in sorted(state.board.tiles.items())),
        game_over=state.game_over,
        end_reason=state.end_reason,
        scores=tuple(sorted(scores.items(), key=lambda kv: -kv[1])),
        train_limits=_train_limits(game, kinds) if set(kinds) - {"major"} else "",
        currency=state.title.currency,
        notes=tuple(rules.position_notes(state)),
        treasury_word="company credit" if state.company_credit else "treasury",
        head_word=rules.word("head"),
        market_word=rules.word("market"),
        station_word=rules.word("station"),
        # "tokens left" beside a company, unless the title names them otherwise (1825).
        tokens_word=("tokens" if rules.word("token").startswith("station")
                     else f"{rules.word('token')}s"),
        offering_short=("IPO" if rules.word("offering") == WORDS["offering"]
                        else rules.word("offering")),
    )


_KIND_WORDS = {"minor": "minors", "major": "public companies"}


def _train_limits(game: Game, kinds: dict[str, int | None]) -> str:
    """The phase's train limit of each kind of company (1861 8), in its words."""
    words = []
    for kind, limit in kinds.items():
        national = next((c.sym for c in game.state.corporations.values()
                         if c.spec.kind == kind), kind)
        words.append(f"{_KIND_WORDS.get(kind, national)} "
                     f"{'no limit' if limit is None or limit >= 99 else limit}")
    return ", ".join(words)


def _loans(game: Game, corp: Any) -> tuple[str, ...]:
    """A company's loans and what they cost each operating round (1861 10.2, 10.8)."""
    if not corp.loans:
        return ()
    _, interest = game.rules.loan_terms(game.state)
    return (f"{corp.loans} loan{'s' if corp.loans > 1 else ''}, "
            f"{money(game.state, corp.loans * interest)} interest a round",)


def _trains_left(state: GameState) -> tuple[tuple[str, int | None], ...]:
    counts: dict[str, int | None] = {}
    for train in state.trains_offered:
        unlimited = state.title.train(train.name).count is None
        counts[train.name] = None if unlimited else (counts.get(train.name) or 0) + 1
    return tuple(counts.items())


def as_json(view: Any) -> Any:
    """A view as JSON-ready data (dataclasses become objects, tuples lists)."""
    if dataclasses.is_dataclass(view) and not isinstance(view, type):
        return {f.name: as_json(getattr(view, f.name)) for f in dataclasses.fields(view)}
    if isinstance(view, tuple | list):
        return [as_json(v) for v in view]
    return view
