"""A title changed for a game's options is made once and shared by every game with
those options (`engine.title.loading.derived_title`), as a loaded title is: what the
engine keeps per title (track pieces, tile shapes) then serves every game, and no
longer starts cold, or grows, with each new game."""

from __future__ import annotations

import pytest

from engine.game import Game, Setup
from engine.title import Title, load_title
from engine.title.loading import derived_title
from engine.titles import rules_for


def test_games_with_the_same_options_share_one_title() -> None:
    for title, options in (("1861", {"unlimited_trains"}), ("1861", {"two_plus_two"}),
                           ("1825", {"r1", "site_figures"}), ("1825", {"site_figures"}),
                           ("1850", {"diesels"})):
        first = rules_for(title, frozenset(options)).title
        again = rules_for(title, frozenset(options)).title
        assert first is again, (title, options)
        assert first is not load_title(title)  # (each option does change the title)
        games = [Game(Setup(title, ("A", "B", "C"), seed, frozenset(options)))
                 for seed in (1, 2)]
        assert games[0].state.title is games[1].state.title is first


def test_each_option_has_its_own_title() -> None:
    unlimited = rules_for("1861", frozenset({"unlimited_trains"})).title
    two = rules_for("1861", frozenset({"two_plus_two"})).title
    assert unlimited is not two
    counts = {t.name: t.count for t in unlimited.trains}
    assert counts["2+2"] is None and counts["5+5E"] is None  # 14.2
    assert {t.name: t.count for t in two.trains}["2+2"] == 2  # 14.1
    site = rules_for("1825", frozenset({"site_figures"})).title
    assert site.bank != load_title("1825").bank  # the site's bank (data/1825.json)


def test_derived_title_makes_once_per_title_and_variant() -> None:
    made: list[str] = []
    base = load_title("18TN")

    def make(title: Title) -> Title:
        made.append(title.name)
        return title

    assert derived_title(base, "test-a", make) is base
    derived_title(base, "test-a", make)
    derived_title(base, "test-b", make)
    assert made == ["18TN", "18TN"]


def test_company_names_kept_per_title_find_what_a_search_finds() -> None:
    """`Title.corporation` reads a kept index of every company's names: for every name
    of every company of every title (any case), and names of none, it answers as a
    search of the companies in order does."""
    from engine.title import available_titles

    for name in available_titles():
        title = load_title(name)
        for corp in title.corporations:
            for alias in corp.aliases:
                for asked in (alias, alias.lower(), f" {alias.upper()} "):
                    wanted = asked.strip().upper()
                    first = next(c for c in title.corporations
                                 if wanted in (a.upper() for a in c.aliases))
                    assert title.corporation(asked) is first
        with pytest.raises(KeyError, match="has no company"):
            title.corporation("NO SUCH COMPANY")
