"""What the moderator does for a player who does not: deadline defaults and auto pass.

Two pure functions for the mail service (no I/O, no clock; the service decides when a
deadline has passed and applies what these return):

* `conservative_action(game)`: the action taken for the acting entity when its player
  has missed the deadline and the game's timeout policy is `pass`. It is the least a
  player can do under the rules: in a stock round the player passes (3.6), in an
  auction he drops out (3.1.1), an offer addressed to him is declined; an operating
  company lays no track and places no station, runs for the best revenue (4.2.3) and
  withholds it (4.2.4), and buys a train only when the rules force it (4.2.5.2), the
  cheapest one, its president selling the smallest share first if he must raise cash.
  A director asked for his company's home city takes the title's default (1825 R1: the
  Taff Vale's second city of V8).
* `sole_action(game)`: the pass (or `done`) when that is all the acting player may do,
  for players who asked the moderator to pass for them (`auto pass`).
* `no_decision(game)`: the step nobody has to decide, which the moderator passes
  itself (issue 30): the acting player's only legal orders at this step are `pass` and
  `done` -- a company with no station marker to place, no train to run, no tile to lay,
  a player who can neither buy nor sell nor bid -- and passing it takes no later
  choice away; with the one line the reports say about it.

Both try concrete actions on a copy of the game (`Game.clone().attempt`), so they are
exactly as strict as the rules: the candidates are `engine.legal`'s, reordered (and
filtered) by preference rather than enumerated again here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine import routes
from engine.actions import (
    Accept,
    Action,
    BuyPrivate,
    BuyTrain,
    Decline,
    DiscardTrain,
    Dividend,
    Done,
    Keep,
    LeaseTrain,
    Par,
    Pass,
    PlaceToken,
    RunRoutes,
    SellPrivate,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game
from engine.legal import candidates, legal_actions
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.merger import MergerRound
from engine.rounds.operating import STEP_OF, OperatingRound
from engine.rounds.stock import StockRound
from engine.shares import certificate_count
from engine.state import POOL

# A candidate's place in the order of preference: lower is tried first.
Rank = tuple[int, int, str]

__all__ = ["Skip", "conservative_action", "no_decision", "sole_action"]


# --- the deadline default -------------------------------------------------------------


def conservative_action(game: Game) -> Action:
    """The action taken for the acting entity whose player missed the deadline.

    Candidates are tried in order of preference on a copy of the game; the first the
    rules accept is returned (not applied). Spending that the rules leave optional (a
    tile, a station, a voluntary train, a share, a bid, a private) is never chosen.
    Raises GameError when the game is over or, which the rules should never allow,
    when no conservative action is accepted.
    """
    turn = game.turn()
    if turn is None:
        raise GameError("the game is over: nobody is to act")
    for action in _conservative_candidates(game):
        if game.clone().attempt(turn.seat, action):
            return action
    raise GameError(f"no conservative action is legal for {turn.entity} ({turn.step}) "
                    f"in {game.round_name}", tuple(game.legal()))


@dataclass(frozen=True, slots=True)
class _Duties:
    """What the rules demand of the acting player now, worked out once per call: only
    a demand makes a purchase, a sale or a par acceptable as a default."""

    forced_purchase: bool  # 4.2.5.2: the company has a route and no train
    over_certificate_limit: bool  # 3.3: the player must sell before passing
    must_take_private: bool  # 18TN 3.1.2: private #1 is his, for nothing
    par_pending: str | None  # the corporation whose par a private demands now


def _duties(game: Game) -> _Duties:
    rnd = game.round
    turn = game.turn()
    assert turn is not None
    state = game.state
    stock = rnd if isinstance(rnd, StockRound) else None
    return _Duties(
        forced_purchase=_forced_purchase(game),
        over_certificate_limit=stock is not None and certificate_count(
            game.rules, state, turn.seat) > game.rules.certificate_limit(state),
        must_take_private=stock is not None and stock.cheapest() is not None
        and game.rules.must_take_private(state, turn.seat, stock.number, stock),
        par_pending=stock.s.par_pending.corporation
        if stock is not None and stock.s.par_pending is not None else None,
    )


def _conservative_candidates(game: Game) -> Iterator[Action]:
    """The conservative candidates, best first, each once.

    Doing nothing comes first, then at a company's turn what the rules may require of
    it (its best run, withholding, the cheapest train when it must have one); these
    cost nothing to build and settle nearly every deadline. Only when the rules refuse
    them all is the full candidate list built (at a track step that means every tile
    lay near the company's track), then ranked.
    """
    rnd = game.round
    first: list[Action] = [Done() if _company_turn(game) else Pass()]
    if _company_turn(game):
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        if rnd.company().trains and rnd.current.revenue is None:
            first.append(RunRoutes(auto=True))
        if rnd.current.revenue is not None and not rnd.current.dividend_done:
            first.append(Dividend("withhold"))
            # 1825 6.3: where withholding would bankrupt the company, it pays out.
            first.append(Dividend("payout"))
        cheapest = game.rules.cheapest_train(game.state)
        if cheapest is not None and _forced_purchase(game):
            train, _, source = cheapest
            first.append(BuyTrain(train.name, source))
    yield from first
    duties = _duties(game)
    ranked = [(rank, index, action)
              for index, action in enumerate(candidates(game))
              if action not in first and (rank := _rank(game, duties, action)) is not None]
    for _, _, action in sorted(ranked, key=lambda entry: (entry[0], entry[1])):
        yield action


def _rank(game: Game, duties: _Duties, action: Action) -> Rank | None:
    """Where `action` stands in the conservative order; None: never chosen by default.

    Each kind that costs or commits something is admitted only under the duty that
    demands it, so an action the rules accept but leave optional is never reached,
    whatever the order.
    """
    if isinstance(action, Decline | Keep):
        # An offer addressed to the player: no sale, no purchase; 1861 11: a trainless
        # public is kept rather than nationalised.
        return (0, 0, "")
    if isinstance(action, Accept):
        # After `decline` where both are offered; 1825 6.4.5: a vote nobody answers
        # lets the receiver's decision stand (no veto).
        return (0, 1, "")
    if isinstance(action, PlaceToken) and action == game.rules.home_default(game.state):
        # 1825 R1: a director asked for his company's home city (the Taff Vale's in V8)
        # takes the title's default city.
        return (0, 0, "")
    if isinstance(action, PlaceToken) and isinstance(game.round, AuctionStockRound) \
            and game.round.home_pending is not None:
        return (4, 0, action.hex)  # 1861 9.3: the home a started public must have
    if isinstance(action, RunRoutes):
        # 4.2.3: a company with a train and a route must run; the best run (`run auto`,
        # resolved by the engine to the optimizer's routes) is what every shareholder
        # may insist on (4.2.3.1).
        return (1, 0, "") if action.auto and not action.routes else None
    if isinstance(action, LeaseTrain):
        # 1825 6.4.3: a receiver must lease the train that improves the income (the
        # engine refuses any other lease), before the run.
        return (1, -1, "")
    if isinstance(action, Dividend):
        # 4.2.4: withholding keeps the money in the company (the price moves left).
        return (2, 0, "") if action.choice == "withhold" else None
    if isinstance(action, DiscardTrain):
        return (3, *_train_value(game, action.train))
    if isinstance(action, Par):
        # Only a par a private demands now (18TN's L&N, 1851's L&N at the start): the
        # lowest par commits the least.
        if action.corporation != duties.par_pending:
            return None
        return (4, action.price, action.corporation)
    if isinstance(action, BuyPrivate):
        # 18TN 3.1.2: in the fifth stock round the Priority Deal holder must take
        # private #1, for nothing; no other private purchase is ever forced.
        if action.seller is None and duties.must_take_private:
            return (5, 0, action.private)
        return None
    if isinstance(action, BuyTrain):
        # 4.2.5.2: a company with a route and no train must buy the cheapest one (from the
        # bank's offering or the Open Market); another company's train is never forced.
        if action.source not in ("bank", POOL) or not duties.forced_purchase:
            return None
        price = game.state.title.train(action.train).price
        return (6, price, "0" if action.source == "bank" else "1")
    if isinstance(action, SellShares):
        # The smallest sale first: one share, of the cheapest company. Sales are only
        # ever forced: to pay for a forced train (4.2.5.2(d)), or to come back under the
        # certificate limit (3.3).
        if not (duties.forced_purchase or duties.over_certificate_limit):
            return None
        count = action.count if action.count is not None else (action.percent or 10) // 10
        price = game.state.market.price(action.corporation) * count
        return (7, price, action.corporation)
    if isinstance(action, Pass) and isinstance(game.round, OperatingRound):
        # Passing one step at a time is a last resort: `done` passes them all at once
        # and is tried first; `pass` is accepted at a track step even where the company
        # must then run, so it must come after the run.
        return (8, 0, "")
    return None


def _train_value(game: Game, name: str) -> tuple[int, str]:
    """How much a company loses by discarding a train of this type: an obsolete train
    (18TN 4.2.5.1: it runs once more, then leaves) is worth least, then by price."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.discards
    corp = game.state.corporation(rnd.discards[0])
    of_type = [t for t in corp.trains if t.name == name]
    obsolete = bool(of_type) and all(t.obsolete for t in of_type)
    price = game.state.title.train(name).price
    return (price if not obsolete else -1, name)


def _company_turn(game: Game) -> bool:
    """Whether an operating company is at its turn (no offer or discard pending)."""
    rnd = game.round
    return (isinstance(rnd, OperatingRound) and rnd.offer is None and not rnd.discards
            and rnd.current is not None)


def _forced_purchase(game: Game) -> bool:
    """4.2.5.2: the operating company has a route but no train, so it must buy one."""
    if not _company_turn(game):
        return False
    rnd = game.round
    assert isinstance(rnd, OperatingRound)
    corp = rnd.company()
    own = game.rules.must_buy_train(game.state, corp)  # 1861 10.10: route or not
    if own is not None:
        return own
    return not corp.trains and routes.has_route(game.rules, game.state, corp)


# --- auto pass ------------------------------------------------------------------------


def sole_action(game: Game) -> Action | None:
    """`pass` (or `done`) when that is the only thing the acting player may do; else None.

    `pass` and `done` count as one action where both are accepted (in a stock round
    they are the same order; in an operating round both only pass). The search stops at
    the first other action the rules accept, and tries `done` and `pass` first, so a
    turn with choices costs a few tries, not the whole legal list.
    """
    turn = game.turn()
    if turn is None:
        return None
    passing: Action | None = None
    tried: set[Action] = set()
    for action in _sole_candidates(game):
        if action in tried:
            continue
        tried.add(action)
        if not game.clone().attempt(turn.seat, action):
            continue
        if not isinstance(action, Pass | Done):
            return None  # a real choice: the player decides
        passing = passing or action
    return passing


def _sole_candidates(game: Game) -> Iterator[Action]:
    """Passing first; at a company's turn a few cheap probes, one of which the rules
    accept whenever the company has the usual choices or a duty (running none instead
    of its best run, settling its revenue, buying the cheapest train, selling a share
    for a forced purchase), so such a turn is settled before the tile lays are built;
    then `engine.legal`'s candidates; then offering a private to another player (18TN
    3.2(b)), which `engine.legal` does not list but which is a choice all the same: a
    player holding a private does not have only a pass. The caller skips repeats."""
    rnd = game.round
    state = game.state
    if _company_turn(game):
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        yield Done()
        yield Pass()
        corp = rnd.company()
        if corp.trains and rnd.current.revenue is None:
            yield RunRoutes()  # a declared run below the best stands (4.2.3.1)
        if rnd.current.revenue is not None and not rnd.current.dividend_done:
            yield Dividend("withhold")
        cheapest = game.rules.cheapest_train(state)
        if cheapest is not None:
            train, _, source = cheapest
            yield BuyTrain(train.name, source)
        if _forced_purchase(game):
            president = corp.president or ""
            for other in state.corporations.values():
                if other.percent_held_by(president):
                    yield SellShares(other.sym, 1)  # 4.2.5.2(d)
    yield from candidates(game)
    turn = game.turn()
    if not isinstance(rnd, StockRound) or turn is None:
        return
    buyer = state.next_seat(turn.seat)
    for private in state.privates.values():
        if private.owner == turn.seat and not private.closed:
            yield SellPrivate(private.sym, buyer, 1)


# --- steps nobody decides ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Skip:
    """A step the moderator passes for the acting player: the pass (one step) or `done`
    (the whole turn, when nothing at all is left to decide), and the line that says so."""

    seat: str
    action: Action
    text: str


def no_decision(game: Game, legal: list[Action] | None = None) -> Skip | None:
    """The step the acting player has nothing to decide at, passed for him; None when
    there is something to decide (or nobody is to act).

    LEGAL is `legal_actions(game)` when the caller has it (it costs tens of ms in a big
    position: callers that settle several steps pass each position's list once). A
    step is skipped only where the rules leave nothing but `pass` and `done` at it:

    * no legal action but `pass` and `done`, and no private the player could offer to
      another (18TN 3.2(b), which `engine.legal` does not list), and not where the
      rules would take `pass` as a decision of their own (a company's turn is then
      ended with `done` when nothing later remains either);
    * at a company's step with no action of that step but `pass` (a token step with no
      station marker to place, a route step with no train, a track step with no lay),
      where every other choice belongs to a later step (an action of no step, such
      as buying a private, may open this one) and the pass leaves them all open:
      the same company is still at its turn after it, with each of them still legal;
    * at the dividend step of a run of nothing (revenue 0), where each answer the
      rules accept comes to the same as the pass's withholding (4.2.4).
    """
    turn = game.turn()
    if turn is None:
        return None
    acts = legal_actions(game) if legal is None else legal
    choices = [a for a in acts if not isinstance(a, Pass | Done)]
    passes = [a for a in acts if isinstance(a, Pass | Done)]
    if not passes:
        return None
    if not choices:
        if _private_offers(game, turn.seat):
            return None
        done = next((a for a in passes if isinstance(a, Done)), None)
        action = done if done is not None and _company_turn(game) else passes[0]
        return Skip(turn.seat, action, _skip_text(game, action))
    if not _company_turn(game) or Pass() not in passes:
        return None
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    step = rnd.steps[rnd.current.step] if rnd.current.step < len(rnd.steps) else ""
    mine = [a for a in choices if STEP_OF.get(type(a)) == step]
    if mine and not (step == "dividend" and _same_as_passing(game, turn.seat, mine)):
        return None
    here = rnd.current.step
    if any(STEP_OF.get(type(a)) not in rnd.steps[here + 1:] for a in choices if a not in mine):
        # An action of no step (buying a private, selling a share) may open this step
        # (1850: a private bought at the track step lays its tile): the player decides.
        return None
    trial = game.clone()
    if not trial.attempt(turn.seat, Pass()):
        return None
    then = trial.turn()
    if then is None or (then.seat, then.entity) != (turn.seat, turn.entity):
        return None  # the pass would end the turn with choices open
    later = set(legal_actions(trial))
    if any(a not in later for a in choices if a not in mine):
        return None  # the pass would take a choice away: the player decides
    return Skip(turn.seat, Pass(), _skip_text(game, Pass()))


def _private_offers(game: Game, seat: str) -> bool:
    """Whether SEAT may offer a private he holds to another player now (18TN 3.2(b))."""
    if not isinstance(game.round, StockRound):
        return False
    buyer = game.state.next_seat(seat)
    return any(game.clone().attempt(seat, SellPrivate(p.sym, buyer, 1))
               for p in game.state.privates.values() if p.owner == seat and not p.closed)


def _same_as_passing(game: Game, seat: str, answers: list[Action]) -> bool:
    """Whether every answer to a revenue of nothing ends as the pass does (the price,
    the cash of everyone): then the rules leave no choice."""
    rnd = game.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    if rnd.current.revenue != 0:
        return False
    outcomes = []
    for action in [Pass(), *answers]:
        trial = game.clone()
        if not trial.attempt(seat, action):
            return False
        state = trial.state
        outcomes.append((state.players, state.corporations, state.market, state.bank_cash))
    return all(outcome == outcomes[0] for outcome in outcomes[1:])


def _skip_text(game: Game, action: Action) -> str:
    """One line for the reports: who had nothing to decide, and what the step was."""
    turn = game.turn()
    assert turn is not None
    rnd = game.round
    who = turn.entity
    if _company_turn(game):
        assert isinstance(rnd, OperatingRound) and rnd.current is not None
        if isinstance(action, Done):
            return f"{who} has nothing to decide: its turn ends"
        step = rnd.steps[rnd.current.step]
        why = {"track": "has no tile to lay",
               "token": f"has no {game.rules.word('token')} to place",
               "route": "has no train to run",
               "dividend": "earned nothing to pay out",
               "train": "can buy no train"}.get(step, f"has nothing to do at its {step} step")
        return f"{who} {why}: {step} step skipped"
    if isinstance(rnd, MergerRound):
        return f"{who} has no company to convert or merge: passes"
    if turn.step.startswith("auction of "):
        return f"{who} cannot raise the bid in the {turn.step}: passes"
    if turn.step == "stock turn":
        return f"{who} can neither buy nor sell: passes"
    return f"{who} has nothing to decide ({turn.step}): passes"
