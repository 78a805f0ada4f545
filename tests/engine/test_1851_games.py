"""Whole 1851 games played by a seeded chooser (scenarios_1851.Driver, which takes its
actions from engine.legal.legal_actions when it has no preference), checked move by
move against the rulebook as read independently in scenarios_1851 (Auditor):

* a four-player game from set-up to the bank breaking (ENDING THE GAME), with cash
  conserved after every action, the broken bank paying on, and the final scores;
* a four-player game to a bankruptcy (PURCHASE TRAINS, ENDING THE GAME);
* the same bank game audited rule by rule: routes and revenue (ROUTES, RUN TRAIN(S)),
  dividends and price moves (PAY DIVIDENDS), tiles (LAY OR UPGRADE TRACK), stations,
  operating order, privates' income, priority, sold-out companies, operating rounds
  per set, phases (PHASES), train limits and prices (PURCHASE TRAINS), stock sales.
"""

from __future__ import annotations

import functools
import random

import pytest
from scenarios_1851 import (
    BANK_TOTAL,
    SEATS,
    TRAIN_LIMIT,
    Auditor,
    Driver,
    expected_scores,
    new_game,
    train_hungry,
)

from engine import routes, trains
from engine.actions import BuyTrain, DiscardTrain
from engine.game import Game, Move
from engine.rounds.operating import OperatingRound

BANK_GAME_SEEDS = (5, 1, 8, 3, 7, 2, 6)
ORDER_GAME_SEEDS = (3, 1, 2, 4, 5)
DISCARD_GAME_SEEDS = (5, 2, 4, 10)  # played buying shares at every turn
MAX_MOVES = 1500  # the games here end within about 700 moves
# (seed, company): with that company never buying a train unless forced and every
# player spending all he can on shares, these games end in a bankruptcy; (seed, None):
# the bank game's chooser, spending all it can on shares, does too. The first that ends
# in a bankruptcy is the game tested (several, so that an engine change that saves one
# president does not leave the rule untested).
BANKRUPTCY_GAMES: tuple[tuple[int, str | None], ...] = (
    (9, "L&N"), (1, "SR"), (10, None), (11, None), (7, None))


# What the bank game should show, so that every audit below checks something.
COVERAGE = (
    "route with two off-boards", "route through Birmingham", "Louisville upgraded",
    "route to an off-board at its lowest value", "route to an off-board at its middle value",
    "route to an off-board at its highest value", "stock round sale", "emergency sale",
    "dividend payout", "dividend half",
    "dividend withhold", "dividend moves right", "dividend no move", "terrain paid",
    "two yellow tiles", "sold out moves up", "token", "set of ORs in phase 5",
)


def missing_coverage(g: Game, audit: Auditor) -> list[str]:
    missing = [kind for kind in COVERAGE if not audit.seen[kind]]
    if g.state.end_reason != "bank":
        missing.append("the bank breaking")
    after = audit.bank_after_break
    if not after or min(after) >= after[0]:
        missing.append("payments by the broken bank")
    if not any(isinstance(m.action, DiscardTrain) for m in g.log):
        missing.append("a discard")
    if set(audit.phase_starts) != {"3", "4", "5", "6", "8"}:
        missing.append("every phase")
    return missing


def play_bank_game(seed: int, buys_shares: float = 0.9) -> tuple[Game, Auditor]:
    g = new_game(SEATS, seed)
    audit = Auditor()
    Driver(g, seed, dividend=train_hungry(random.Random(seed)), sells_shares=0.15,
           buys_shares=buys_shares, watch=audit).play(max_moves=MAX_MOVES)
    return g, audit


@functools.lru_cache(maxsize=1)
def bank_game() -> tuple[Game, Auditor]:
    """The first of BANK_GAME_SEEDS whose game shows everything in COVERAGE (else the
    one that shows most): a four-player game from set-up to the bank breaking."""
    best: tuple[Game, Auditor, list[str]] | None = None
    for seed in BANK_GAME_SEEDS:
        g, audit = play_bank_game(seed)
        missing = missing_coverage(g, audit)
        if not missing or g.state.end_reason != "bank":
            return g, audit  # complete; or the bank did not end it: let the tests say
        if best is None or len(missing) < len(best[2]):
            best = (g, audit, missing)
    assert best is not None
    return best[0], best[1]


@functools.lru_cache(maxsize=4)
def game_showing(kind: str, seeds: tuple[int, ...], buys_shares: float = 0.9
                 ) -> tuple[Game, Auditor]:
    """The bank game if its audit saw `kind`, else the first game of `seeds` (played as
    the bank game is, buying shares with probability `buys_shares`) that shows it."""
    g, audit = bank_game()
    for seed in seeds:
        if audit.seen[kind]:
            break
        g, audit = play_bank_game(seed, buys_shares)
    return g, audit


def buys_when_needed(g: Game, corp: str) -> str:
    """Withhold while a train is wanted and cannot be paid for; else pay out."""
    c = g.state.corporation(corp)
    offer = trains.next_offered(g.state)
    limit = trains.train_limit(g.rules, g.state, c)
    if offer and len(c.trains) < limit and c.cash < g.state.title.train(offer.name).price:
        return "withhold"
    return "payout"


@functools.lru_cache(maxsize=1)
def bankruptcy_game() -> tuple[Game, Auditor] | None:
    """The first of BANKRUPTCY_GAMES to end in a bankruptcy: the starved company pays
    out everything and buys a train only when it must; the others buy trains whenever
    they can; every player spends all he can on shares."""
    for seed, starved in BANKRUPTCY_GAMES:
        g = new_game(SEATS, seed)
        audit = Auditor()
        if starved is None:
            driver = Driver(g, seed, dividend=train_hungry(random.Random(seed)),
                            sells_shares=0.15, buys_shares=1.0, watch=audit)
        else:
            def dividend(game: Game, corp: str, starved: str = starved) -> str:
                return "payout" if corp == starved else buys_when_needed(game, corp)

            def buys(game: Game, corp: str, starved: str = starved) -> bool:
                return corp != starved

            driver = Driver(g, seed, dividend=dividend, buys_trains=buys, buys_shares=1.0,
                            watch=audit)
        driver.play(max_moves=MAX_MOVES)
        if g.state.end_reason == "bankruptcy":
            return g, audit
    return None


def bankrupt_game() -> tuple[Game, Auditor]:
    found = bankruptcy_game()
    if found is None:
        pytest.fail(f"none of the games {BANKRUPTCY_GAMES} ended in a bankruptcy")
    return found


def clean(audit: Auditor, *kinds: str) -> None:
    for kind in kinds:
        assert audit.problems.get(kind, []) == [], f"{kind}: {audit.problems[kind][:5]}"


# --- the bank breaks -------------------------------------------------------------------------


def test_a_full_four_player_game_ends_after_the_operating_round_in_which_the_bank_broke() -> None:
    g, audit = bank_game()
    assert g.state.game_over and g.state.end_reason == "bank"
    assert g.turn() is None
    assert audit.bank_broke_in is not None
    # The game ends at the next end of an operating round after the bank could not pay:
    # the round it broke in, or the first one after the stock round it broke in.
    if audit.bank_broke_in.startswith("Operating Round"):
        assert g.round_name == audit.bank_broke_in
    else:
        number = audit.bank_broke_in.split()[-1]
        assert g.round_name == f"Operating Round {number}.1"
    rnd = g.round
    assert isinstance(rnd, OperatingRound) and rnd.over()
    floated = {c.sym for c in g.state.corporations.values() if c.floated}
    assert rnd.done == floated  # every company had its turn in that round


def test_cash_is_conserved_after_every_action_the_broken_banks_debt_included() -> None:
    g, audit = bank_game()
    clean(audit, "cash")
    assert audit.seen["action"] == len(g.log) > 300
    assert g.state.bank_cash < 0  # the debt is carried, not forgiven
    assert g.state.total_cash() == BANK_TOTAL


def test_the_broken_bank_keeps_paying_until_the_end_of_the_round() -> None:
    _, audit = bank_game()
    assert audit.bank_after_break, "nothing happened after the bank broke"
    first = audit.bank_after_break[0]
    assert min(audit.bank_after_break) < first  # it paid more while broken


def test_scores_are_cash_plus_shares_at_market_plus_open_privates() -> None:
    g, _ = bank_game()
    assert g.scores() == expected_scores(g)
    # Privates closed in phase 5: they count for nothing.
    assert all(p.closed for p in g.state.privates.values())


def test_the_game_replays_from_its_log_to_the_same_end() -> None:
    g, _ = bank_game()
    again = Game(g.setup, [Move.from_json(m.to_json()) for m in g.log])
    assert again.state.game_over and again.state.end_reason == "bank"
    assert again.scores() == g.scores()
    assert again.state.bank_cash == g.state.bank_cash


# --- a bankruptcy ------------------------------------------------------------------------------


def test_a_full_four_player_game_ends_at_once_on_a_bankruptcy() -> None:
    g, audit = bankrupt_game()
    clean(audit, "cash")
    assert g.state.game_over and g.state.end_reason == "bankruptcy"
    assert g.turn() is None
    bankrupt = [p.name for p in g.state.players.values() if p.bankrupt]
    assert len(bankrupt) == 1
    # The game ended at once, in the middle of the operating round: the company whose
    # train could not be paid for is still the one operating.
    rnd = g.round
    assert isinstance(rnd, OperatingRound) and rnd.current is not None
    corp = g.state.corporation(rnd.current.corporation)
    assert corp.president == bankrupt[0]
    assert corp.trains == [] and routes.has_route(g.rules, g.state, corp)
    cheapest = trains.cheapest_available(g.state)
    assert cheapest is not None
    assert corp.cash + g.state.players[bankrupt[0]].cash < cheapest[1]
    assert g.state.bank_cash >= 0  # not the bank


def test_scores_after_a_bankruptcy_follow_the_formula_for_the_others() -> None:
    g, _ = bankrupt_game()
    want = expected_scores(g)
    got = g.scores()
    for seat in g.state.seats:
        if not g.state.players[seat].bankrupt:
            assert got[seat] == want[seat]


def test_a_bankrupt_player_is_scored_on_his_cash_and_stock_like_everyone() -> None:
    # ENDING THE GAME: "Each player's total wealth is the value of his stock, at current
    # prices, plus his cash on hand ... It is possible ... for a player to go bankrupt
    # and still win." No exception is made for the bankrupt player's cash.
    g, _ = bankrupt_game()
    assert g.scores() == expected_scores(g)


# --- the bank game audited rule by rule -------------------------------------------------------


def test_every_route_follows_the_route_rules() -> None:
    # ROUTES / RUN TRAIN(S): 2..n stops, no stop twice, off-boards only at the ends, a
    # station of the company on it, never through a city full of others' stations, no
    # track shared between a company's trains.
    _, audit = bank_game()
    clean(audit, "route")
    assert audit.seen["route"] > 80


def test_route_values_use_the_off_board_value_of_the_phase() -> None:
    # Lowest value in phases 2-3, middle in 4-5, highest in 6-8; cities as printed on
    # their tiles; Birmingham and Johnson City by phase too.
    _, audit = bank_game()
    clean(audit, "revenue")
    for bracket in ("lowest", "middle", "highest"):
        assert audit.seen[f"route to an off-board at its {bracket} value"] > 0, bracket


def test_a_route_with_two_off_boards_earns_10_more_per_stop() -> None:
    _, audit = bank_game()
    clean(audit, "revenue")
    assert audit.seen["route with two off-boards"] > 0


def test_birmingham_is_used_in_routes_only_from_phase_4() -> None:
    _, audit = bank_game()
    clean(audit, "route")
    assert audit.seen["route through Birmingham"] > 0


def test_every_dividend_pays_and_moves_the_price_as_the_rulebook_says() -> None:
    # PAY DIVIDENDS: all, none or half (rounded up to $10); 10% of the dividend per
    # share, treasury shares to the company, pool shares to nobody; withheld: left (down
    # at the left edge); right (up at the right end) when 10 x the dividend per share
    # reaches the price; otherwise no move.
    _, audit = bank_game()
    clean(audit, "dividend")
    for kind in ("dividend payout", "dividend half", "dividend withhold",
                 "dividend moves right", "dividend no move"):
        assert audit.seen[kind] > 0, kind


def test_every_tile_lay_respects_phase_colours_lay_counts_y_cities_and_terrain() -> None:
    _, audit = bank_game()
    clean(audit, "tile")
    for kind in ("tile", "terrain paid", "two yellow tiles", "Louisville upgraded"):
        assert audit.seen[kind] > 0, kind


def test_stations_are_placed_free_at_most_one_per_turn() -> None:
    _, audit = bank_game()
    clean(audit, "token")
    assert audit.seen["token"] > 0


def test_the_next_company_to_operate_is_decided_afresh_by_price_column_and_stack() -> None:
    # OPERATING ROUNDS: highest price first, then the token furthest right, then the top
    # of a pile; decided only when the previous company has finished, so sales during
    # the round (a president raising money for a train) may change the order.
    _, audit = bank_game()
    clean(audit, "order")
    assert audit.seen["operating order"] > 50
    _, audit = game_showing("operating order changed during the round", ORDER_GAME_SEEDS)
    clean(audit, "order")
    assert audit.seen["operating order changed during the round"] > 0


def test_the_privates_pay_at_the_start_of_every_operating_round() -> None:
    _, audit = bank_game()
    clean(audit, "privates")
    assert audit.seen["privates pay"] > 5


def test_priority_goes_to_the_left_of_the_last_player_to_buy_or_sell() -> None:
    _, audit = bank_game()
    clean(audit, "priority")
    assert audit.seen["stock round end"] > 5


def test_companies_wholly_owned_by_players_rise_at_the_end_of_each_stock_round() -> None:
    _, audit = bank_game()
    clean(audit, "sold out")
    assert audit.seen["sold out moves up"] > 0


def test_operating_rounds_per_set_follow_the_phase_at_the_start_of_the_set() -> None:
    _, audit = bank_game()
    clean(audit, "rounds")
    for phase in ("2", "3", "5"):
        assert audit.seen[f"set of ORs in phase {phase}"] > 0


def test_every_phase_starts_with_the_first_train_of_its_type_and_eliminates_old_trains() -> None:
    _, audit = bank_game()
    clean(audit, "phase")
    for phase in ("3", "4", "5", "6", "8"):
        assert audit.seen[f"phase {phase}"] == 1, phase


def test_train_limits_hold_after_every_action() -> None:
    _, audit = bank_game()
    clean(audit, "limit")


def test_companies_over_the_limit_discard_in_market_order() -> None:
    # PURCHASE TRAINS: several companies over the new limit discard in descending order
    # of price; the one furthest right first; on one square, the top one first.
    _, audit = bank_game()
    clean(audit, "discard order")
    _, audit = game_showing("several companies discard", DISCARD_GAME_SEEDS, 1.0)
    clean(audit, "discard order")
    assert audit.seen["several companies discard"] > 0


def test_trains_from_the_bank_or_pool_cost_their_face_value() -> None:
    _, audit = bank_game()
    clean(audit, "train")
    assert audit.seen["train"] > 10


def test_stock_round_sales_drop_one_row_per_share_and_pay_the_pre_sale_price() -> None:
    _, audit = bank_game()
    clean(audit, "sale")
    assert audit.seen["stock round sale"] > 10


def test_forced_sales_are_paid_the_price_at_the_start_of_the_train_purchase() -> None:
    # PURCHASE TRAINS: "the President receives the full value of each share sold (i.e.
    # its value at the start of the Train-buying action), even if the price drops as a
    # result of those sales".
    _, audit = bank_game()
    assert audit.seen["emergency sale"] > 1
    clean(audit, "emergency sale")


# --- phases, replayed from the bank game --------------------------------------------------------


@functools.lru_cache(maxsize=8)
def before_phase(phase: str) -> tuple[Game, Move]:
    """The bank game just before the move that began `phase`, and that move."""
    g, audit = bank_game()
    index = audit.phase_starts[phase]
    return Game(g.setup, g.log[:index]), g.log[index]


def play_phase_move(phase: str) -> tuple[Game, Game]:
    before, move = before_phase(phase)
    after = before.clone()
    after.apply(move.seat, move.action)
    assert isinstance(move.action, BuyTrain) and move.action.train == phase
    return before, after


def train_names(g: Game) -> list[str]:
    names = [t.name for c in g.state.corporations.values() for t in c.trains]
    return names + [t.name for t in g.state.trains_pool]


def test_phase_4_begins_with_the_first_4_train_and_2_trains_are_eliminated() -> None:
    before, after = play_phase_move("4")
    assert before.rules.phase(before.state).name == "3"
    assert "2" in train_names(before)
    assert after.rules.phase(after.state).name == "4"
    assert "2" not in train_names(after)


def test_phase_5_begins_with_the_first_5_train_and_the_privates_close() -> None:
    before, after = play_phase_move("5")
    assert not any(p.closed for p in before.state.privates.values())
    assert all(p.closed for p in after.state.privates.values())
    # Closed privates count for nothing any more.
    for seat in after.state.seats:
        assert after.scores()[seat] == expected_scores(after)[seat]


def test_phase_6_begins_with_the_first_6_train_and_3_trains_are_eliminated() -> None:
    before, after = play_phase_move("6")
    assert "3" in train_names(before)
    assert "3" not in train_names(after)


def test_phase_8_begins_with_the_first_8_train_and_4_trains_are_eliminated() -> None:
    before, after = play_phase_move("8")
    assert "4" in train_names(before)
    assert "4" not in train_names(after)
    assert after.rules.phase(after.state).name == "8"


def test_excess_trains_are_discarded_to_the_pool_when_the_limit_falls() -> None:
    g, _ = bank_game()
    index = next(i for i, m in enumerate(g.log) if isinstance(m.action, DiscardTrain))
    before = Game(g.setup, g.log[:index])
    move = g.log[index]
    rnd = before.round
    assert isinstance(rnd, OperatingRound) and rnd.discards
    corp = before.state.corporation(rnd.discards[0])
    phase = before.rules.phase(before.state).name
    assert len(corp.trains) > TRAIN_LIMIT[phase]
    pool = len(before.state.trains_pool)
    held = len(corp.trains)
    before.apply(move.seat, move.action)
    assert len(before.state.trains_pool) == pool + 1
    assert len(before.state.corporation(corp.sym).trains) == held - 1
