"""Random 1850 games of our engine, exported as 18xx.games records and replayed by the
18xx.games engine (tools/oracle/differential.py --title 1850), position by position,
to the same scores. The site's scores are kept in tests/fixtures/1850/site_results.json
as facts from an independent engine; here each record is imported and must end on them.

Most random 1850 games end dead: every company closed in the black area, the players
trading shares back and forth. The site ends such a game at its 100th turn; the records
here stop there (docs/site-differences.md, "A dead game"), where the scores are the
players' net worth in both engines. Kept: the 20 agreeing games of 40 (seed 2); the
others met a listed difference, the site's own error, or one still to explain
(issue #16's note). With companies paying out first (seed 4), random games also reach
the rulebook's ends: 10 whole games of 40 agree to their final scores, 8 ended by the
bank breaking (12.2) and 2 by a player's bankruptcy (12.1)."""

from __future__ import annotations

import json

import pytest
from site_results import FIXTURES, replayed, site_results

from engine.actions import RedeemShares, ReissueShares
from engine.records import RecordError, export_record, import_record

pytestmark = pytest.mark.slow  # twenty whole games of up to 1800 record actions

TITLE = "1850"
RESULTS = site_results(TITLE)


def test_the_kept_games_play_the_companies_own_stock_actions() -> None:
    """5.10 redemption and 5.11 reissue, the company's own buy_shares and sell_shares on
    the site, are among the moves the site replayed."""
    assert len(RESULTS) >= 20
    kinds: set[type] = set()
    for name in RESULTS:
        record = json.loads((FIXTURES / TITLE / name).read_text())
        corporate = {a["type"] for a in record["actions"]
                     if a.get("entity_type") == "corporation"}
        if "sell_shares" in corporate or "buy_shares" in corporate:
            kinds |= {type(m.action) for m in import_record(record).game.log}
    assert {RedeemShares, ReissueShares} <= kinds


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_imported_game_ends_on_the_sites_scores(name: str) -> None:
    _, scores = replayed(TITLE, name)
    assert scores == RESULTS[name]


def test_the_kept_games_reach_both_of_the_rulebooks_ends() -> None:
    """12.1 a player's bankruptcy and 12.2 the bank running out of money each end some
    kept game in our engine, at the scores the site computed."""
    ends: dict[str | None, int] = {}
    for name in RESULTS:
        state = replayed(TITLE, name)[0].game.state
        if state.game_over:
            ends[state.end_reason] = ends.get(state.end_reason, 0) + 1
    assert ends.get("bank", 0) >= 5 and ends.get("bankruptcy", 0) >= 1, ends


@pytest.mark.parametrize("name", ["random-5-20.json", "random-4-10.json"])
def test_our_export_of_a_kept_game_is_the_record_the_site_replayed(name: str) -> None:
    """Read back and exported again, a kept record is the very record the site replayed:
    in random-5-20 KATY passes a token step whose only choice is its edge token (7.4),
    where the site's step waits, so the record holds that pass."""
    record = json.loads((FIXTURES / TITLE / name).read_text())
    replay, _ = replayed(TITLE, name)
    again = export_record(replay.game, game_id=record["id"])
    assert again["actions"] == record["actions"]


SITE_ONLY = json.loads((FIXTURES / TITLE / "site_results.json").read_text())["site_only"]


@pytest.mark.parametrize("name", sorted(SITE_ONLY))
def test_a_kept_game_buying_another_companys_train_after_a_sale_is_refused_there(
        name: str) -> None:
    """10.7: "Once the president contributes to the purchase price of a train, the
    railway must buy the cheapest train available from the open market or the bank and
    may not buy a train from another company"; 10.7.2: "He may only sell enough shares
    to buy the train." The site let these random games buy another company's train
    after the president's sale and replayed them to the end; ours refuses exactly that
    purchase (docs/site-differences.md, 10.7)."""
    record = json.loads((FIXTURES / TITLE / name).read_text())
    with pytest.raises(RecordError) as refused:
        import_record(record)
    text = str(refused.value)
    assert text.startswith(f"action {SITE_ONLY[name]['refused_at']} ")
    assert "BuyTrain" in text and "may not buy a train from another company (10.7)" in text
    cut = dict(record, actions=record["actions"][:SITE_ONLY[name]["refused_at"]])
    assert import_record(cut).game.next_move > 0  # everything before it is accepted
