"""1850 rule sections no other test names (issue 35, item 8; docs/rule-coverage.md), each
played out from a position and checked against the words of shared/rules/1850.md.

Positions: the fresh three-player game of scenarios_1850 (Ann, Bob, Cy; Bob's CB&Q at
$68 and Cy's GN at $76 floated in the initial stock round) and the recorded game
115810, which buys the first train of every type (the phase changes of 4.2)."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from collections.abc import Callable

import pytest
from scenario_moves import play
from scenarios_1850 import (
    RECORD,
    companies_started,
    finish_operating_round,
    new_game,
    now,
    pass_round,
    privates_sold,
)

from engine import board, shares, trains
from engine.actions import (
    Accept,
    Action,
    BuyPrivate,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    Done,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    Route,
    RunRoutes,
    SellShares,
)
from engine.errors import GameError
from engine.game import Game, Move
from engine.records import import_record
from engine.rounds.operating import OperatingRound
from engine.rounds.stock import StockRound
from engine.state import IPO, POOL, PlacedTile

# --- positions ----------------------------------------------------------------------------


def opening() -> Game:
    """Operating round 1.1 of the fresh game, GN (Cy, $76) to operate first."""
    g = new_game()
    privates_sold(g)
    companies_started(g)
    pass_round(g)
    return g


def second_stock_round() -> Game:
    """Stock round 2 of the fresh game: both companies ran nothing in OR 1.1 (GN at $72,
    CB&Q at $64); Bob has the priority. Cash: Ann $217, Bob $333, Cy $296."""
    g = opening()
    finish_operating_round(g)
    assert isinstance(g.round, StockRound) and now(g) == "Bob"
    return g


@functools.cache
def _record() -> tuple[Game, tuple[Move, ...]]:
    replay = import_record(json.loads(RECORD.read_text()))
    return replay.game, tuple(replay.game.log)


def before(n: int) -> Game:
    """The recorded game 115810 just before our move `n`."""
    game, log = _record()
    return Game(game.setup, log[:n])


def move(n: int) -> Move:
    return _record()[1][n]


def first(predicate: Callable[[Move], bool]) -> int:
    return next(i for i, m in enumerate(_record()[1]) if predicate(m))


def first_bank_train(name: str) -> int:
    """The move buying the first `name`-train from the bank: it starts phase `name`."""
    return first(lambda m: isinstance(m.action, BuyTrain) and m.action.source == "bank"
                 and m.action.train == name)


def first_lay_of(colour: str) -> int:
    game, _ = _record()
    return first(lambda m: isinstance(m.action, LayTile)
                 and game.state.title.tile(m.action.tile).color == colour)


def phase_start(name: str) -> tuple[Game, Game]:
    """The recorded game before and after the purchase that starts phase `name`."""
    n = first_bank_train(name)
    after = before(n)
    after.apply(move(n).seat, move(n).action)
    return before(n), after


def phase(g: Game) -> str:
    return g.rules.phase(g.state).name


def held_trains(g: Game) -> dict[str, list[str]]:
    return {sym: [t.name for t in c.trains] for sym, c in g.state.corporations.items()
            if c.trains}


def limit(g: Game) -> int:
    corp = next(c for c in g.state.corporations.values() if c.floated and not c.closed)
    return trains.train_limit(g.rules, g.state, corp)


def next_set_of_operating_rounds(g: Game, moves_from: int) -> Game:
    """Play the record on from move `moves_from` until the first operating round after
    the next stock round."""
    _, log = _record()
    seen_stock_round = False
    for m in log[moves_from:]:
        g.apply(m.seat, m.action)
        if isinstance(g.round, StockRound):
            seen_stock_round = True
        elif seen_stock_round and isinstance(g.round, OperatingRound):
            return g
    raise AssertionError("the record has no later set of operating rounds")


def refusal(g: Game, seat: str, action: Action) -> str:
    with pytest.raises(GameError) as err:
        g.apply(seat, action)
    return str(err.value)


def with_phase(g: Game, name: str) -> Game:
    """A copy of `g` in phase `name` (every other piece of the position kept): to show
    that a rule turns on the phase alone."""
    copied = copy.deepcopy(g)
    copied.state.phase_index = next(i for i, p in enumerate(copied.state.title.phases)
                                    if p.name == name)
    return copied


# --- 2: equipment -------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_2_4_the_bank_is_12000_and_includes_the_players_starting_capital(players: int) -> None:
    # "At the start of the game, the bank consists of $12,000 ... This money includes the
    # players' starting capital."
    seats = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")[:players]
    g = new_game(seats)
    assert g.state.bank_cash + sum(p.cash for p in g.state.players.values()) == 12000
    assert g.state.bank_cash == 12000 - 2100


def test_2_5_the_trains_are_the_rulebooks_types_costs_and_numbers() -> None:
    # "Type Cost Number: 2 $80 6, 3 $180 6, 4 $300 4, 5 $450 3, 6 $630 3, 8 $800 3,
    # 10 $950 2, 12 $1100 unlimited"
    table = {"2": (80, 6), "3": (180, 6), "4": (300, 4), "5": (450, 3), "6": (630, 3),
             "8": (800, 3), "10": (950, 2)}
    g = new_game()
    offered = Counter(t.name for t in g.state.trains_offered)
    for name, (cost, number) in table.items():
        assert offered[name] == number, name
        assert g.state.title.train(name).price == cost, name
    assert g.state.title.train("12").price == 1100
    assert g.state.title.train("12").count is None  # "12-trains are to be considered unlimited"
    # each type is sold in the rulebook's order, the 12-trains last
    names = [t.name for t in g.state.trains_offered]
    assert names == sorted(names, key=int)


# --- 4.1 and 5.2: the sequence of play ----------------------------------------------------

def test_5_2_1_the_stock_round_starts_with_the_priority_card_and_goes_clockwise() -> None:
    # "The stock round starts with the player with the priority card. Play in the stock
    # round normally proceeds from player to player in clockwise direction."
    g = second_stock_round()
    assert g.state.priority == "Bob"
    order = []
    for _ in range(3):
        order.append(now(g))
        g.apply(now(g), Pass())
    assert order == ["Bob", "Cy", "Ann"]


def test_5_2_2_the_round_ends_after_all_pass_in_turn_and_priority_goes_left_of_the_last_actor(
        ) -> None:
    # "The stock round ends when all players have passed consecutively. The priority card
    # is given to the person to the left of the last person to perform a stock action
    # affecting the priority order. These actions include buying ..."
    g = second_stock_round()
    play(g, ("Bob", Pass()), ("Cy", BuyShares("GN")), ("Cy", Done()), ("Ann", Pass()),
         ("Bob", Pass()))
    assert isinstance(g.round, StockRound)  # Cy's purchase broke the run of passes
    g.apply("Cy", Pass())
    assert isinstance(g.round, OperatingRound)
    assert g.state.priority == "Ann"  # left of Cy, the last to buy


def test_4_1_1_the_first_stock_round_begins_with_the_priority_holder() -> None:
    # "Players buy and sell shares in turn, beginning with the player holding the
    # priority card and proceeding clockwise."
    g = new_game()
    assert g.state.priority == "Ann" and now(g) == "Ann"
    g.apply("Ann", BuyPrivate(g.round.cheapest().sym))  # type: ignore[attr-defined]
    assert now(g) == "Bob"


def test_4_1_2_privates_pay_first_then_companies_operate_in_share_price_order() -> None:
    # "First, all private companies pay their owner ... Next, all floated corporations
    # operate in share price order."
    g = opening()
    log = list(g.state.log)
    start = max(i for i, line in enumerate(log) if "Operating Round 1.1 begins" in line)
    lines = log[start + 1:]
    pays = [i for i, line in enumerate(lines) if " pays $" in line]
    gn = next(i for i, line in enumerate(lines) if line.startswith("GN operates"))
    assert len(pays) == 7 and max(pays) < gn
    # GN ($76) before CB&Q ($68)
    assert g.turn().entity == "GN"  # type: ignore[union-attr]
    g.apply("Cy", Done())
    assert g.turn().entity == "CBQ"  # type: ignore[union-attr]


def test_4_1_operating_rounds_follow_each_stock_round_then_a_stock_round() -> None:
    # "Each complete game turn consists of a Stock Round followed by one, two or three
    # operating rounds." In phase two: "There is one operating round between each stock
    # round."
    g = opening()
    assert g.state.operating_rounds_in_set == 1
    finish_operating_round(g)
    assert isinstance(g.round, StockRound) and g.state.stock_round_number == 2


# --- 4.2: phases ---------------------------------------------------------------------------

def test_4_2_1_phase_two_yellow_tiles_four_trains_one_operating_round() -> None:
    # "Phase two runs from the beginning of the game to the purchase of the first
    # 3-train ... Only yellow tiles may be placed. Each public company may own up to four
    # trains ... There is one operating round between each stock round."
    g = opening()
    assert phase(g) == "2" and limit(g) == 4 and g.state.operating_rounds_in_set == 1
    n = first_lay_of("green")
    position = before(n)
    assert phase(position) != "2"
    why = refusal(with_phase(position, "2"), move(n).seat, move(n).action)
    assert "green tiles are not available in phase 2" in why
    position.apply(move(n).seat, move(n).action)  # the same lay in the recorded phase


def test_4_2_2_phase_three_starts_with_the_first_3_train_two_operating_rounds_from_the_next_set(
        ) -> None:
    # "Phase three starts immediately after the purchase of the first 3-train ... Yellow
    # tiles or green upgrades may be placed ... All private companies may now be purchased
    # by public companies ... There is one set of two operating rounds between stock
    # rounds." (4.2: "a change in the number of operating rounds ... only after a stock
    # round")
    was, now_ = phase_start("3")
    assert (phase(was), phase(now_)) == ("2", "3")
    assert now_.state.operating_rounds_in_set == 1  # this set is not lengthened
    later = next_set_of_operating_rounds(now_, first_bank_train("3") + 1)
    assert later.state.operating_rounds_in_set == 2
    # privates: in phase two only P3 (MRB) and P5 (MRC) are offered to the company
    offered_before = [line for line in was.legal() if line.startswith("buy private")]
    assert offered_before and all(" MRB " in line or " MRC " in line for line in offered_before)
    offered_after = [line for line in now_.legal() if line.startswith("buy private")]
    assert any(" GRSC " in line for line in offered_after)  # P1, in phase three


def test_4_2_3_phase_four_scraps_the_2_trains_and_limits_companies_to_three() -> None:
    # "Phase four starts immediately after the purchase of the first 4-train ... Each
    # public company may own up to three trains ... All 2-trains are scrapped as obsolete."
    was, now_ = phase_start("4")
    assert any("2" in names for names in held_trains(was).values())
    assert not any("2" in names for names in held_trains(now_).values())
    assert "2" not in [t.name for t in now_.state.trains_pool]
    assert (limit(was), limit(now_)) == (4, 3)


def test_10_4_scrapped_trains_earn_their_owners_nothing() -> None:
    # "When a train is scrapped, its owner receives no compensation for it."
    n = first_bank_train("4")
    was, now_ = phase_start("4")
    buyer = was.turn().entity  # type: ignore[union-attr]
    losers = [sym for sym, names in held_trains(was).items() if "2" in names and sym != buyer]
    assert losers
    for sym in losers:
        assert now_.state.corporations[sym].cash == was.state.corporations[sym].cash, sym
    assert move(n).action == BuyTrain("4", "bank", 300)


def test_4_2_4_phase_five_closes_p1_p3_p5_p7_and_brown_tiles_come() -> None:
    # "Phase five starts immediately after the purchase of the first 5-train ... Yellow
    # tiles or green and brown upgrades may be placed. Each public company may own up to
    # two trains. Private companies P1, P3, P5, and P7 close. P2, P4, and P6 remain open
    # if their tile lays have not been used, but no longer pay income."
    _, now_ = phase_start("5")
    privates = now_.state.privates
    assert all(privates[p].closed for p in ("GRSC", "MRB", "MRC", "MMR"))  # P1 P3 P5 P7
    assert limit(now_) == 2
    n = first_lay_of("brown")
    position = before(n)
    why = refusal(with_phase(position, "4"), move(n).seat, move(n).action)
    assert "brown tiles are not available in phase 4" in why
    position.apply(move(n).seat, move(n).action)


def test_11_4_p1_p3_p5_p7_close_at_the_start_of_phase_five_the_others_stay() -> None:
    # "Privates P1, P3, P5, and P7 close at the start of phase five; the others may
    # survive until phase six."
    was, now_ = phase_start("5")
    for sym in ("GRSC", "MRB", "MRC", "MMR"):  # P1 P3 P5 P7
        assert not was.state.privates[sym].closed, sym
        assert now_.state.privates[sym].closed, sym
    for sym in ("CM", "GBC", "WLG"):  # P2 P4 P6, their tile lays unused in this game
        assert not now_.state.privates[sym].ability_used, sym
        assert not now_.state.privates[sym].closed, sym
    _, six = phase_start("6")
    assert all(p.closed for p in six.state.privates.values())


def test_4_2_4_surviving_privates_pay_no_income_after_phase_five() -> None:
    # "After phase five begins, any surviving companies do not pay revenue." (4.1.2)
    _, now_ = phase_start("5")
    open_ = [p for p in now_.state.privates.values() if not p.closed and p.owner]
    assert open_  # P2, P4 and P6 survive in this game
    later = next_set_of_operating_rounds(now_, first_bank_train("5") + 1)
    start = max(i for i, line in enumerate(later.state.log) if "Operating Round" in line
                and "begins" in line)
    paid = [line for line in later.state.log[start:] if " pays $" in line
            and line.split()[0] in {p.sym for p in now_.state.privates.values()}]
    assert not paid, (paid, [p.sym for p in open_])


def test_4_2_5_phase_six_closes_every_private_and_scraps_the_3_trains() -> None:
    # "Phase six ... All remaining private companies close ... All 3-trains are scrapped
    # as obsolete."
    was, now_ = phase_start("6")
    assert all(p.closed for p in now_.state.privates.values())
    assert any("3" in names for names in held_trains(was).values())
    assert not any("3" in names for names in held_trains(now_).values())
    assert limit(now_) == 2 and now_.state.operating_rounds_in_set == 3


def test_4_2_6_phase_eight_scraps_the_4_trains_and_grey_tiles_come() -> None:
    # "Phase eight ... Yellow tiles or green, brown and grey upgrades may be placed ...
    # All 4-trains are scrapped as obsolete."
    was, now_ = phase_start("8")
    assert any("4" in names for names in held_trains(was).values())
    assert not any("4" in names for names in held_trains(now_).values())
    n = first_lay_of("gray")
    position = before(n)
    why = refusal(with_phase(position, "6"), move(n).seat, move(n).action)
    assert "gray tiles are not available in phase 6" in why
    position.apply(move(n).seat, move(n).action)


def test_4_2_7_phase_ten_scraps_nothing() -> None:
    # "Phase ten starts immediately after the purchase of the first 10-train ..." (no
    # train is scrapped)
    was, now_ = phase_start("10")
    buyer = was.turn().entity  # type: ignore[union-attr]
    before_ = held_trains(was)
    after = held_trains(now_)
    assert phase(now_) == "10"
    for sym, names in before_.items():
        if sym != buyer:
            assert after.get(sym) == names, sym
    assert Counter(after[buyer]) - Counter(before_.get(buyer, [])) == Counter({"10": 1})


def test_4_2_8_phase_twelve_scraps_the_5_trains() -> None:
    # "Phase twelve ... All five trains are scrapped as obsolete."
    was, now_ = phase_start("12")
    assert phase(now_) == "12"
    held_before = [n for names in held_trains(was).values() for n in names]
    assert not any("5" in names for names in held_trains(now_).values())
    assert "5" not in [t.name for t in now_.state.trains_pool]
    assert "5" in held_before + [t.name for t in was.state.trains_pool]


def test_5_1_5_the_number_of_operating_rounds_changes_only_after_a_stock_round() -> None:
    # "the number of operating rounds between stock rounds only changes after a stock
    # round." Phase five brings three operating rounds a set (4.2.4).
    n = first_bank_train("5")
    _, now_ = phase_start("5")
    assert now_.state.operating_rounds_in_set == 2
    later = next_set_of_operating_rounds(now_, n + 1)
    assert later.state.operating_rounds_in_set == 3


# --- 5: the stock round --------------------------------------------------------------------

def test_5_3_1_initial_offering_at_par_open_market_at_the_market_price() -> None:
    # "Original offering shares are available at their original issue (par) price ...
    # Shares on the open market are available at their current market price."
    g = second_stock_round()
    gn = g.state.corporations["GN"]
    assert gn.par_price == 76 and g.state.market.price("GN") == 72
    cash = g.state.players["Bob"].cash
    g.apply("Bob", BuyShares("GN"))
    assert g.state.players["Bob"].cash == cash - 76  # from the initial offering, at par
    play(g, ("Bob", Done()), ("Cy", SellShares("GN")), ("Cy", Done()))  # to the open market
    price = g.state.market.price("GN")
    assert gn.percent_held_by(POOL) == 10
    cash = g.state.players["Ann"].cash
    g.apply("Ann", BuyShares("GN", source=POOL))
    assert g.state.players["Ann"].cash == cash - price


def test_5_3_4_a_player_may_buy_first_and_then_sell_even_the_share_just_bought() -> None:
    # "a player may ... first buy a single certificate and then sell as much stock as
    # legally permitted – possibly including the share just purchased."
    g = second_stock_round()
    held = g.state.corporations["CBQ"].percent_held_by("Bob")
    g.apply("Bob", BuyShares("CBQ"))
    g.apply("Bob", SellShares("CBQ", count=1))
    assert g.state.corporations["CBQ"].percent_held_by("Bob") == held


def test_5_5_a_player_holding_more_than_the_president_becomes_president() -> None:
    # "If a player should acquire more shares in a company than the current president,
    # either through his buying or the president selling, that player becomes the new
    # president"
    g = second_stock_round()
    cbq = g.state.corporations["CBQ"]
    assert cbq.president == "Bob" and cbq.percent_held_by("Bob") == 40
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("CBQ")), ("Ann", Done()),
         ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("CBQ")), ("Ann", Done()))
    assert cbq.percent_held_by("Ann") == 40 and cbq.president == "Bob"  # equal is not more
    play(g, ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("CBQ")))
    assert cbq.president == "Ann"
    assert any(c.president for c in cbq.certificates_of("Ann"))


def test_5_5_the_president_keeps_20_percent_unless_another_holds_20() -> None:
    # "The president may not sell any part of his remaining twenty percent unless there
    # is both another player with twenty percent or more of the stock in that company,
    # and space for at least one share on the open market."
    g = second_stock_round()
    gn = g.state.corporations["GN"]  # Cy 40% president, Ann 20%
    assert gn.percent_held_by("Cy") == 40 and gn.percent_held_by("Ann") == 20
    g.apply("Bob", Pass())
    g.apply("Cy", SellShares("GN", count=3))  # down to 10%: Ann, with 20%, takes it
    assert gn.president == "Ann"
    g.apply("Cy", Done())
    # Ann now presides the GN with 20% and nobody else holds 20%: she may not sell it
    why = refusal(g, "Ann", SellShares("GN", count=1))
    assert "20" in why or "presiden" in why
    assert g.state.corporations["GN"].percent_held_by("Ann") == 20


def test_5_6_1_a_new_token_goes_below_those_already_in_its_par_box() -> None:
    # "If one or more share price tokens are already in this value box, this new token is
    # placed below all the others."
    g = new_game()
    privates_sold(g)
    play(g, ("Bob", Par("CBQ", 76)), ("Cy", Par("GN", 76)))
    pos = g.state.market.positions["CBQ"]
    assert g.state.market.positions["GN"] == pos
    assert g.state.market.stacks[pos] == ["CBQ", "GN"]


def test_5_6_2_a_company_with_five_shares_sold_does_not_operate() -> None:
    # "A company must have six shares sold from the initial offering for it to commence
    # operating. If a company does not have six shares sold at the start of an operating
    # round, it does not operate"
    g = new_game()
    privates_sold(g)
    play(g, ("Bob", Par("CBQ", 68)), ("Cy", Par("GN", 76)),
         ("Ann", BuyShares("CBQ")), ("Bob", BuyShares("CBQ")), ("Cy", BuyShares("GN")),
         ("Ann", BuyShares("CBQ")), ("Bob", Pass()), ("Cy", BuyShares("GN")),
         ("Ann", BuyShares("GN")), ("Bob", Pass()), ("Cy", Pass()), ("Ann", BuyShares("GN")))
    # CB&Q: Bob 20% + 10%, Ann 20% = five shares; GN: six
    assert g.state.corporations["CBQ"].ipo_percent == 50
    pass_round(g)
    assert isinstance(g.round, OperatingRound) and g.turn().entity == "GN"  # type: ignore[union-attr]
    g.apply("Cy", Done())
    assert isinstance(g.round, StockRound)  # the CB&Q did not operate
    assert not any(line.startswith("CBQ operates") for line in g.state.log)
    assert g.state.corporations["CBQ"].cash == 0


# --- 7: tokens -----------------------------------------------------------------------------

def test_7_1_the_home_token_is_free_and_placed_when_the_company_first_operates() -> None:
    # "Each company has a free home station token that it must place on its starting city
    # when it first starts operating."
    g = opening()
    gn = g.state.corporations["GN"]
    assert gn.cash == 760  # ten times $76 par, nothing paid for the home token
    assert "GN places its home station in D9" in g.state.log
    assert "GN" in [sym for stack in g.state.board.tokens.get("D9", {}).values() for sym in stack]


def test_7_5_tokens_cost_what_the_charter_lists() -> None:
    # "The cost of each token is listed on each company's charter. This ranges from Free
    # (home token) to $100."
    n = first(lambda m: isinstance(m.action, PlaceToken))
    g = before(n)
    corp = g.state.corporations[g.turn().entity]  # type: ignore[union-attr]
    assert corp.sym == "KATY" and corp.token_costs == [40, 100]  # the home token was free
    cash = corp.cash
    g.apply(move(n).seat, move(n).action)
    assert corp.cash == cash - 40 and corp.token_costs == [100]


# --- 9, 10, 11: dividends, trains, privates ------------------------------------------------

def test_9_1_3_a_company_with_no_train_pays_no_dividend_and_falls() -> None:
    # "If a company owns no trains it may not pay a dividend." 5.8.2: "Moved left if
    # during an operating round an operating railway pays no dividend".
    g = opening()
    assert not any(a.startswith(("pay", "half")) for a in g.legal())
    g.apply("Cy", Done())
    assert "GN share price moves from $76 to $72" in g.state.log


def test_10_5_1_the_bank_sells_its_trains_in_order() -> None:
    # "The bank will only sell these trains in order. Type two trains are available for
    # sale first."
    g = opening()
    assert "2-train" in refusal(g, "Cy", BuyTrain("3"))
    g.apply("Cy", BuyTrain("2"))
    assert [t.name for t in g.state.corporations["GN"].trains] == ["2"]


def test_10_6_bank_trains_cost_the_printed_price_others_any_price_from_1() -> None:
    # "Trains purchased from the bank or open market are purchased at the price printed on
    # the train card. Trains purchased from other companies may be bought at any price
    # mutually agreed ... The minimum price is $1."
    g = opening()
    gn = g.state.corporations["GN"]
    g.apply("Cy", BuyTrain("2"))
    assert gn.cash == 760 - 80
    assert g.turn().entity == "CBQ"  # type: ignore[union-attr]  # one new train a turn
    refusal(g, "Bob", BuyTrain("2", source="GN", price=0))
    cbq = g.state.corporations["CBQ"]  # a refusal leaves the game as it was, anew
    g.apply("Bob", BuyTrain("2", source="GN", price=1))
    if not cbq.trains:  # the GN's president agrees
        g.apply("Cy", Accept())
    assert [t.name for t in cbq.trains] == ["2"] and cbq.cash == 680 - 1


def test_10_8_a_company_may_sell_its_only_train() -> None:
    # "A company may sell its only remaining train."
    g = opening()
    gn = g.state.corporations["GN"]
    g.apply("Cy", BuyTrain("2"))
    g.apply("Bob", BuyTrain("2", source="GN", price=50))
    if gn.trains:
        g.apply("Cy", Accept())
    assert not gn.trains and gn.cash == 760 - 80 + 50


def test_11_3_a_private_owned_by_a_company_pays_into_its_treasury() -> None:
    # "when private companies owned by public companies operate, they pay their income
    # into the public company treasury."
    # a company's purchase from a player names the seller
    n = first(lambda m: isinstance(m.action, BuyPrivate) and m.action.seller is not None)
    g = before(n + 1)
    owner = next(p for p in g.state.privates.values()
                 if p.owner in g.state.corporations and not p.closed)
    corp = g.state.corporations[owner.owner]  # type: ignore[index]
    later = copy.deepcopy(g)
    _, log = _record()
    start = len(later.state.log)
    for m in log[n + 1:]:
        later.apply(m.seat, m.action)
        if any("Operating Round" in line and "begins" in line
               for line in later.state.log[start:]):
            break
    paid = [line for line in later.state.log[start:]
            if line.startswith(f"{owner.sym} pays")]
    assert paid == [f"{owner.sym} pays ${owner.spec.revenue} to {corp.sym}"], paid


# --- 6: track -----------------------------------------------------------------------------

def lay_problem(g: Game, hex_id: str, tile: str, rotation: int) -> str | None:
    """Why `tile` may not go on `hex_id` at `rotation` (None: it may), by the tile rules
    alone: the GN lays it, with money enough, no connection asked."""
    corp = g.state.corporations["GN"]
    corp.cash = max(corp.cash, 1000)
    try:
        board.check_lay(g.rules, g.state, corp, hex_id, tile, rotation, need_connection=False)
    except GameError as err:
        return str(err)
    return None


def fits(g: Game, hex_id: str, tile: str) -> bool:
    return any(lay_problem(g, hex_id, tile, r) is None for r in range(6))


def test_6_4_1_town_hexes_take_tiles_with_as_many_towns() -> None:
    # "Hexes with one or two small dots may only have yellow tiles with the corresponding
    # number of towns laid on them."
    g = opening()
    one, two = "C16", "I8"
    assert fits(g, one, "3") and fits(g, one, "4")
    assert not fits(g, one, "1") and not fits(g, one, "7") and not fits(g, one, "57")
    assert fits(g, two, "1") and fits(g, two, "55")
    assert not fits(g, two, "3") and not fits(g, two, "57")


def test_6_4_1_single_towns_upgrade_to_141_to_144_double_towns_never() -> None:
    # "Single-town tiles may be upgraded with #141, #142, #143 or #144 tiles ...
    # Double-town tiles may not be upgraded."
    g = with_phase(opening(), "5")
    rotation = next(r for r in range(6) if lay_problem(g, "C16", "3", r) is None)
    g.state.board.tiles["C16"] = PlacedTile("3", rotation)
    assert any(fits(g, "C16", t) for t in ("141", "142", "143", "144"))
    assert not fits(g, "C16", "14") and not fits(g, "C16", "63")
    rotation = next(r for r in range(6) if lay_problem(g, "I8", "1", r) is None)
    g.state.board.tiles["I8"] = PlacedTile("1", rotation)
    green_or_brown = [name for name, spec in g.state.title.tiles.items()
                      if spec.color in ("green", "brown", "gray")]
    assert not any(fits(g, "I8", t) for t in green_or_brown)


def test_6_4_2_vacant_city_hexes_take_only_yellow_city_tiles_5_6_57() -> None:
    # "Vacant hexes with cities shown by a large open circle may only have yellow tiles
    # with a corresponding city placed on them (tiles #5, #6, and #57)."
    g = opening()
    city = "B5"
    assert fits(g, city, "5") and fits(g, city, "6") and fits(g, city, "57")
    assert not fits(g, city, "7") and not fits(g, city, "3") and not fits(g, city, "1")


def test_6_2_yellow_is_upgraded_to_green_then_brown_then_grey() -> None:
    # "Yellow tiles are upgraded to green tiles. Green tiles are upgraded to brown tiles.
    # Brown tiles are upgraded to grey tiles."
    g = with_phase(opening(), "8")
    rotation = next(r for r in range(6) if lay_problem(g, "B5", "57", r) is None)
    g.state.board.tiles["B5"] = PlacedTile("57", rotation)
    assert fits(g, "B5", "14") or fits(g, "B5", "15")
    assert not fits(g, "B5", "63")  # brown straight onto yellow
    assert not fits(g, "B5", "5")  # yellow onto yellow


def test_6_3_no_track_may_end_against_the_map_edge() -> None:
    # "No tile may be placed so that any track ends against printed terrain where tiles
    # may not be placed. Examples ... the green map edge"
    g = opening()
    problems = [lay_problem(g, "A4", "9", r) for r in range(6)]
    assert any(p is None for p in problems)
    assert any(p is not None for p in problems)


# --- 15.1: privates -------------------------------------------------------------------------

def test_15_1_a_private_held_by_a_player_counts_as_one_certificate() -> None:
    # "Each private company held by a player always counts as one certificate towards his
    # certificate limit."
    g = new_game()
    privates_sold(g)
    owned = Counter(p.owner for p in g.state.privates.values())
    assert owned == Counter({"Ann": 3, "Bob": 2, "Cy": 2})
    # and Ann's 10% of the Rock Island that came with P7 (5.7)
    assert g.state.corporations["RI"].percent_held_by("Ann") == 10
    for seat in g.state.seats:
        extra = 1 if seat == "Ann" else 0
        assert shares.certificate_count(g.rules, g.state, seat) == owned[seat] + extra, seat


# --- positions of the record for 5.4, 7.2, 7.3, 8.2, 10 --------------------------------------

def play_until(g: Game, n: int, done: Callable[[Game], bool]) -> Game:
    """Play the record on from move `n` until `done(g)`."""
    _, log = _record()
    for m in log[n:]:
        if done(g):
            return g
        g.apply(m.seat, m.action)
    raise AssertionError("the record never reaches that position")


def test_5_4_1_a_player_at_the_certificate_limit_may_not_buy_a_counted_share() -> None:
    # "A player may never exceed his certificate limit at any time during his turn in a
    # stock round ... certificates of companies whose share price token is in the yellow,
    # green or brown sections of the stock market do not count towards this total."
    g = before(367)  # Player 3 holds 17 certificates; three players, limit 17
    seat = "Player 3"
    assert now(g) == seat
    assert shares.certificate_count(g.rules, g.state, seat) == g.rules.certificate_limit(g.state)
    cbq = g.state.corporations["CBQ"]
    assert cbq.ipo_percent and not g.rules.exempt_from_certificate_limit(g.state, cbq)
    g.state.players[seat].cash += 500  # money enough: only the limit stands in the way
    assert "limit" in refusal(g, seat, BuyShares("CBQ"))


def test_7_3_a_token_only_in_a_city_the_company_can_reach() -> None:
    # "To place a station token, the company must be able to trace a valid train route
    # from one of its station tokens to the city it wishes to place the new token in."
    n = first(lambda m: isinstance(m.action, PlaceToken))  # KATY's token in K4
    g = before(n)
    assert g.turn().entity == "KATY"  # type: ignore[union-attr]
    refusal(g, move(n).seat, PlaceToken("B5", 0))  # far in the north-west
    g.apply(move(n).seat, move(n).action)
    assert "KATY" in g.state.board.tokens_in("K4", 0)


def test_7_2_one_additional_token_per_operating_round() -> None:
    # "Each operating round (including the first), a railway may pay to place one
    # additional station or edge token"
    n = first(lambda m: isinstance(m.action, PlaceToken))  # KATY's first, in K4
    g = before(n)
    assert any(line.startswith("token") for line in g.legal())
    g.apply(move(n).seat, move(n).action)
    assert g.turn().entity == "KATY"  # type: ignore[union-attr]
    assert g.state.corporations["KATY"].token_costs == [100]  # one more on the charter
    assert not any(line.startswith("token") for line in g.legal())
    refusal(g, move(n).seat, PlaceToken("K6", 0))


def test_8_2_a_train_runs_at_most_its_number_of_stops() -> None:
    # "A train may not run on a route longer than the number of the train type."
    n = 187  # NP runs two 2-trains and a 3-train B5 A6 A8 A10 B11 (three stops)
    action = move(n).action
    assert isinstance(action, RunRoutes)
    three = next(r for r in action.routes if r.train == "3")
    g = before(n)
    why = refusal(g, move(n).seat, RunRoutes((Route("2", three.hexes),)))
    assert "at most 2 stops" in why
    g = before(n)
    g.apply(move(n).seat, action)
    assert g.state.log[-1].startswith("NP runs for")


def test_10_1_a_company_with_a_route_and_no_train_must_buy_one() -> None:
    # "An operating railway with a legal route of any length must own a train and is
    # forced to purchase one during this phase if it does not possess one."
    g = before(437)  # KATY, its trains scrapped, at its train step
    katy = g.state.corporations["KATY"]
    assert g.turn().entity == "KATY" and not katy.trains  # type: ignore[union-attr]
    assert not any(line in ("done", "pass") or line.startswith("pass ") for line in g.legal())
    why = refusal(g, move(437).seat, Done())
    assert "must own a train and is forced to purchase one" in why and "(10.1)" in why


def test_10_2_a_company_at_its_train_limit_may_not_buy_another() -> None:
    # "A company may purchase a new train provided that it does not cause it to exceed
    # the current train limits."
    g = before(285)  # phase five (limit two) has just begun; the NP holds a 3 and a 4
    np_ = g.state.corporations["NP"]
    assert g.turn().entity == "NP" and len(np_.trains) == 2  # type: ignore[union-attr]
    assert trains.train_limit(g.rules, g.state, np_) == 2
    _, log = _record()
    n = 285
    while g.turn().entity == "NP":  # type: ignore[union-attr]
        assert not isinstance(log[n].action, BuyTrain)
        last = log[n].action
        g.apply(log[n].seat, log[n].action)
        n += 1
    # its turn ended at the dividend: no train step was offered
    assert isinstance(last, Dividend) and len(g.state.corporations["NP"].trains) == 2


def test_10_7_1_the_president_contributes_only_to_a_forced_purchase() -> None:
    # "The president may only contribute towards the purchase of a train from his personal
    # holdings if the company is forced to buy a train."
    g = before(168)  # RI, with two 2-trains and $115, at its train step; a 3-train is $180
    ri = g.state.corporations["RI"]
    assert g.turn().entity == "RI" and ri.trains and ri.cash == 115  # type: ignore[union-attr]
    assert g.state.players[ri.president].cash >= 65  # type: ignore[index]
    assert "$180" in refusal(g, move(168).seat, BuyTrain("3"))


def test_10_7_the_president_makes_up_what_the_forced_company_lacks() -> None:
    # "If the railway must buy a train and does not have enough money to do so, the
    # president must make up the difference from his own cash"
    g = before(438)  # KATY, trainless with a route, buys the first 8-train ($800)
    katy = g.state.corporations["KATY"]
    seat = katy.president
    assert seat is not None and katy.cash < 800
    company, own = katy.cash, g.state.players[seat].cash
    g.apply(move(438).seat, move(438).action)
    assert [t.name for t in katy.trains] == ["8"] and katy.cash == 0
    assert g.state.players[seat].cash == own - (800 - company)


def test_10_7_2_the_president_sells_only_enough_for_the_train() -> None:
    # "He may only sell enough shares to buy the train."
    g = before(437)  # after one sale; a share of NP ($140) now covers what is missing
    offers = [line for line in g.legal() if line.startswith("sell N NP")]
    assert offers and "up to 1" in offers[0]
    refusal(g, move(437).seat, SellShares("NP", count=2))


def test_8_3_a_run_is_worth_its_stops_and_several_trains_add_up() -> None:
    # "The income value of the trains' run is equal to the total of the values of the
    # cities it traces a route through or to ... Where multiple trains are run, the
    # dividend value is the total of all the trains' runs."
    g = before(187)  # NP: 2-trains D9 B11 and B11 A10, 3-train B5 A10 B11 (Fargo's new tile)
    g.apply(move(187).seat, move(187).action)
    m = re.fullmatch(r"NP runs for \$(\d+): 2: D9 B11 \((\d+)\); 2: B11 A10 \((\d+)\); "
                     r"3: B5 A10 B11 \((\d+)\)", g.state.log[-1])
    assert m, g.state.log[-1]
    total, first_2, second_2, three = map(int, m.groups())
    assert total == first_2 + second_2 + three
    # B5 A10 B11 earns Fargo's tile 5 plus what A10 and B11 earned the second 2-train
    assert three == g.state.title.tile("5").cities[0].revenue + second_2


def test_10_2_1_excess_trains_go_to_the_open_market_in_descending_share_price_order(
        ) -> None:
    # "If buying a train initiates a phase change causing any railway to possess too many
    # trains, then the excess trains from these companies are immediately discarded into
    # the open market without compensation. The president decides which train is
    # discarded. ... Otherwise, discards are made in descending share price order."
    g = before(284)  # RI buys the first 5-train: phase five, two trains a company
    state = g.state
    # The position, built: KATY's 3-train has gone to the NP ($100), UP's 4-train to the
    # CB&Q ($90), as train sales between companies would move them: both hold three.
    state.corporations["NP"].trains.append(state.corporations["KATY"].trains.pop())
    state.corporations["CBQ"].trains.append(state.corporations["UP"].trains.pop())
    assert state.market.price("NP") > state.market.price("CBQ")
    cash = {sym: state.corporations[sym].cash for sym in ("NP", "CBQ")}
    g.apply(move(284).seat, move(284).action)
    asked = []
    while g.turn() is not None and g.turn().step == "discard a train":  # type: ignore[union-attr]
        turn = g.turn()
        assert turn is not None
        asked.append(turn.entity)
        corp = g.state.corporations[turn.entity]
        assert turn.seat == corp.president  # the president decides
        g.apply(turn.seat, DiscardTrain("3"))
    assert asked == ["NP", "CBQ"]
    assert sorted(held_trains(g)["NP"]) == ["3", "4"]
    assert sorted(held_trains(g)["CBQ"]) == ["4", "4"]
    assert Counter(t.name for t in g.state.trains_pool) == Counter({"3": 2})
    for sym, before_cash in cash.items():
        assert g.state.corporations[sym].cash == before_cash, sym


def test_5_4_2_no_sale_may_put_more_than_half_a_company_in_the_open_market() -> None:
    # "There may be no more than 50% of a particular company in the open market at any
    # time. As a result, players may not sell shares if by doing so they exceed this 50%
    # limit."
    g = second_stock_round()
    gn = g.state.corporations["GN"]
    # The position, built: four GN shares in the open market, as earlier sales would
    # have put them there (the initial offering's four).
    for cert in gn.certificates:
        if cert.owner == IPO:
            cert.owner = POOL
    assert gn.percent_held_by(POOL) == 40 and gn.percent_held_by("Ann") == 20
    play(g, ("Bob", Pass()), ("Cy", Pass()))
    why = refusal(g, "Ann", SellShares("GN", count=2))  # 60% in the open market
    assert "50" in why
    g.apply("Ann", SellShares("GN", count=1))
    assert g.state.corporations["GN"].percent_held_by(POOL) == 50
