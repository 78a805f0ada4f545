"""What an 1861 report shows (views and the plain-text status): the train limit of
each kind of company (8), loans and their interest (10.2, 10.8), the RSR's holdings
(7.4), and no charter of a minor that is gone (12, 11)."""

from __future__ import annotations

from scenarios_1861 import first_operating_round, record_game

from engine.views import game_view
from moderator.desk.answers import Footer
from moderator.desk.orders import status_text
from moderator.reports.report import position as report_position
from moderator.reports.report import render


def test_8_phase_2_shows_the_minors_train_limit() -> None:
    view = game_view(first_operating_round())
    assert view.phase == "2"
    assert view.train_limit == 2 and view.train_limits == "minors 2"  # not "0"
    assert "Train limit minors 2." in status_text("g", view)


def test_8_phase_6_shows_each_kind_of_company_and_the_rsr_its_holdings() -> None:
    g = record_game(595)  # OR 5.2, phase 6
    view = game_view(g)
    assert view.train_limits == "minors 1, public companies 2, RSR no limit"
    rsr = next(c for c in view.corporations if c.sym == "RSR")
    state = g.state
    assert rsr.kind == "national" and rsr.treasury == state.corporations["RSR"].cash
    assert rsr.privates == ("TSR", "BSS", "MYR", "MRR", "WVR")  # nationalised (11)
    text = status_text("g", view)
    assert f"RSR     run by {state.priority}  treasury {rsr.treasury}" in text
    # K-K and M-NN merged into MKN, which was later nationalised (12.3, 11): gone.
    gone = {c.sym for c in view.corporations if c.closed}
    assert {"K-K", "M-NN", "N"} <= gone
    assert not any(line.startswith(f"  {sym} ") for sym in gone for line in text.splitlines())
    unsold = next(line for line in text.splitlines() if "not yet started" in line)
    assert "RSR" not in unsold and "K-K" not in unsold and "MKN" in unsold


def test_10_8_loans_and_their_interest_on_the_charter() -> None:
    view = game_view(record_game(477))  # R-O, M-B and M-V owe one loan each
    markers = {c.sym: c.markers for c in view.corporations}
    assert "1 loan, R5 interest a round" in markers["R-O"]
    assert not any("loan" in m for m in markers["E"])


def test_7_4_the_html_report_shows_who_runs_the_rsr_not_a_price() -> None:
    g = record_game(595)  # the RSR holds nationalised assets; it has no share price
    _, html = render("report", pos=report_position("1861-1", g), you=None, history=(),
                     results=None, sections=(), lobby=None, intro=None, subject="s",
                     footer=Footer("moderator@example.org"), game_id="1861-1",
                     deadline=None, withheld=None, map_cid=None)
    row = next(r for r in html.split("<tr>") if r.startswith("<td>RSR"))
    assert f"run by {g.state.priority}" in row
    assert "None" not in row
