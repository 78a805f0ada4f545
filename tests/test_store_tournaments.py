"""Schema 6: the tournament tables, and a database of schema 5 migrated to them."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from engine.actions import Pass
from engine.game import Move, Setup
from moderator.store import SCHEMA_VERSION, Holder, Store, Tournament, TournamentTable

TABLES = ("tournaments", "tournament_entrants", "tournament_tables", "tournament_holders",
          "tournament_results")


def terms(name: str = "Spring") -> Tournament:
    return Tournament(name, "dir@x.org", ("18TN", "1850"), (3, 4), 2, 4, "share",
                      48 * 3600.0, "pass", 7, None, "entry", 0)


def schema_5_database(path: Path) -> None:
    """A database as schema 5 left it: every table of today's but the tournaments',
    a mail game with a member in it, and version 5 in `meta`."""
    store = Store(path)
    with store.transaction():
        store.create_mail_game("18TN", "gm@x.org", [], 1, 5.0)
        store.add_member("18TN-1", "ann@x.org", "player", "Ann", seat="Ann", now=5.0)
    store.close()
    conn = sqlite3.connect(path)
    for table in TABLES:
        conn.execute(f"DROP TABLE {table}")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


def test_a_schema_5_database_gains_the_tournament_tables_and_keeps_its_data(
        tmp_path: Path) -> None:
    path = tmp_path / "five.sqlite"
    schema_5_database(path)
    conn = sqlite3.connect(path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert not names & set(TABLES)
    store = Store(path)
    assert SCHEMA_VERSION >= 6  # later schemas add tables of their own
    assert store.execute("SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)]
    names = {r[0] for r in store.execute("SELECT name FROM sqlite_master")}
    assert set(TABLES) <= names
    assert [m.address for m in store.members("18TN-1")] == ["ann@x.org"]
    with store.transaction():
        store.create_tournament(terms(), 1.0)
    assert store.tournament("spring") == terms()


def test_entrants_tables_holders_results_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    with store.transaction():
        store.create_tournament(terms(), 1.0)
        for n, address in enumerate(["Bob@x.org", "ann@x.org", "rae@x.org"]):
            store.add_entrant("Spring", address, "reserve" if n == 2 else "player", 10.0 + n)
        store.set_entrant("Spring", "bob@x.org", status="withdrawn")
        store.add_entrant("Spring", "bob@x.org", "player", 99.0)  # back, first place kept
        store.update_tournament("Spring", stage="heats", heat=1)
        store.add_tournament_table(TournamentTable("18TN-1", "Spring", 1, 1, "18TN", None))
        store.add_holder("18TN-1", "Bob", "bob@x.org", 0)
        store.end_holder("18TN-1", "Bob", "bob@x.org", 12)
        store.add_holder("18TN-1", "Bob", "rae@x.org", 12)
        store.end_tournament_table("18TN-1", {"Bob": 900, "Ann": 1200}, 50.0)
    assert [(e.address, e.role, e.status) for e in store.entrants("spring")] == [
        ("bob@x.org", "player", "entered"), ("ann@x.org", "player", "entered"),
        ("rae@x.org", "reserve", "entered")]
    tournament = store.tournament("Spring")
    assert tournament is not None and (tournament.stage, tournament.heat) == ("heats", 1)
    table = store.tournament_table("18tn-1")
    assert table is not None and table.ended == 50.0
    assert store.holders("18TN-1") == [Holder("Bob", "bob@x.org", 0, 12),
                                       Holder("Bob", "rae@x.org", 12, None)]
    assert store.tournament_results("18TN-1") == {"Ann": 1200, "Bob": 900}
    assert store.reliability_counts("bob@x.org") == (0, 0, 0, 0, 1)


def test_reliability_counts_every_game_of_a_person(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    with store.transaction():
        store.create_game(Setup("18TN", ("Ann", "Bob", "Cy"), 1), "18TN-1")
        store.add_member("18TN-1", "ann@x.org", "player", "Ann", seat="Ann", now=1.0)
        # Three mails of Ann's made moves (one of them two moves), one mail of Bob's,
        # and a move of the clock's.
        store.append("18TN-1", 0, [Move("Ann", Pass())], cause="<a1>", actor="ann@x.org")
        store.append("18TN-1", 1, [Move("Bob", Pass())], cause="<b1>", actor="bob@x.org")
        store.append("18TN-1", 2, [Move("Cy", Pass())], cause="timer", actor="moderator")
        store.append("18TN-1", 3, [Move("Ann", Pass()), Move("Ann", Pass())], cause="<a2>",
                     actor="ann@x.org")
        store.append("18TN-1", 5, [Move("Ann", Pass())], cause="<a3>", actor="ann@x.org")
        # Ann was late once in a game that waits, and the clock passed for her once.
        store.record_late("ann@x.org", "18TN-1", "Ann", 3, 10.0, "wait", 11.0)
        store.record_late("ann@x.org", "18TN-1", "Ann", 5, 20.0, "pass", 21.0)
        store.update_seat("18TN-1", "Ann", resigned=30.0)
    assert store.reliability_counts("Ann@x.org") == (3, 1, 1, 1, 0)
    assert store.reliability_counts("bob@x.org") == (1, 0, 0, 0, 0)


def test_a_schema_6_tournaments_table_takes_the_new_scoring_rules_and_keeps_its_rows(
        tmp_path: Path) -> None:
    # Schema 6 as first written checked `scoring IN ('placement', 'share')`: a
    # tournament scored by margin could not be kept. Opening the database widens the
    # check and keeps the tournaments already there.
    path = tmp_path / "six.sqlite"
    store = Store(path)
    with store.transaction():
        store.create_tournament(terms("Old"), 1.0)
    store.close()
    conn = sqlite3.connect(path)
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'tournaments'"
                          ).fetchone()
    narrow = sql.replace("('margin', 'placement', 'winner', 'share')",
                         "('placement', 'share')")
    assert narrow != sql
    conn.execute("ALTER TABLE tournaments RENAME TO t_old")
    conn.execute(narrow)
    conn.execute("INSERT INTO tournaments SELECT * FROM t_old")
    conn.execute("DROP TABLE t_old")
    conn.commit()
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE tournaments SET scoring = 'margin'")
    conn.close()
    store = Store(path)
    assert store.tournament("Old") == terms("Old")
    new = dataclasses.replace(terms("New"), scoring="margin")
    with store.transaction():
        store.create_tournament(new, 2.0)
    assert store.tournament("New") == new


def test_a_tournaments_table_from_before_heat_deadlines_gains_their_columns(
        tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    store = Store(path)
    with store.transaction():
        store.create_tournament(terms("Old"), 1.0)
    store.close()
    conn = sqlite3.connect(path)
    for column in ("heat_limit", "heat_started", "heat_ends", "heat_warned"):
        conn.execute(f"ALTER TABLE tournaments DROP COLUMN {column}")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.tournament("Old") == terms("Old")
    with store.transaction():
        store.update_tournament("Old", heat_ends=5.0, stage="heats")
    assert store.timed_heats() == ["Old"]
