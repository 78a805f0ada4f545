"""How 18xx.games writes a title's records where it departs from the 1830 family's
forms (its "dialect"), for `engine.records.writing` and `reading`.

The base class describes the forms of 18TN and 1850. A title whose site code writes
other forms (1861 on the site's 1867 code, 1825 with its receivers) has a subclass in
its export module (engine/records/forms_1861.py, forms_1825.py) that switches on the
flags below and answers the questions; `engine.records.site_forms` finds it by the
title's name. The export and the importer ask these questions, never a title's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.game import Game, Move
    from engine.state import Corporation, GameState
    from engine.walks import Walk

#: The site's identifiers of a city and of a token slot: (hex, city) -> id,
#: (hex, company) -> slot.
CityId = Callable[[str, int], str]
SlotOf = Callable[[str, str], int]


class HomeQuestions(Protocol):
    """Where the site asks a minor's director for its home city (1825 R1; the export's
    state for it, engine/records/forms_1825.py `SiteHomes`)."""

    def at_turn(self, game: Game, city_id: CityId, slot: SlotOf) -> list[dict[str, Any]]:
        """The site's choices of home city due before the move about to be written."""
        ...

    def chosen(self, game: Game, move: Move) -> bool | None:
        """Whether `move` is a choice of home city the site asks for now; False: not
        yet; None: no such choice."""
        ...

    def after_lay(self, game: Game, action: Action, sym: str, city_id: CityId,
                  slot: SlotOf) -> list[dict[str, Any]]:
        """The site's choice of home city right after the minor's own lay at home."""
        ...


#: A title's answer (`SiteForms.before`) for a move the site has no form of.
NO_FORM = object()


class SiteForms:
    """The 1830 family's forms: nothing differs."""

    #: Our game options in the site's words, where they differ (1825: `site_figures` is
    #: the site's `unit_1`, with its bank and the SECR's face value: data/1825.json,
    #: decisions bank-6000, secr-par-67).
    option_names: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    #: Options the site always plays the title with (1861: unlimited 2+2 and 5+5E
    #: trains, optional rule 14.2).
    implied_options: frozenset[str] = frozenset()
    #: The site stops a company's turn for a private purchase from a player after its
    #: dividend, before its loans' interest (1861 7.1 on the 1867 code).
    stops_before_loans = False
    #: The site first offers a company the shares of it in the pool (1861 10.3).
    offers_redemption_first = False
    #: The site passes by itself the company steps ours does not have (1861: a token
    #: step without tokens, the private purchase before loans).
    passes_steps_by_itself = False
    #: A company's pass, a step ours skips, ends the turn of the company before it
    #: (1861: that turn's interest and nationalisation came at once, 10.8).
    pass_ends_turn_before = False
    #: The site's pass that ends a company turn ours ended by itself stands for
    #: nothing (1861).
    passes_finished_turns = False
    #: A trainless company's Director keeps it or `choose`s "nationalize" (1861 11).
    director_chooses_nationalisation = False
    #: Laying track and placing a base are one step, ended by a pass (1825).
    one_build_step = False
    #: The share dealing round's turn: the site passes a player by his own options
    #: only (1825).
    dealing_rounds = False
    #: Receivers (1825 6.4): a lease is the site's `special_buy`, a trainless
    #: receiver with a route runs nothing, and the site buys the receiver's train by
    #: itself.
    receivers = False
    #: The site removes a bankrupt company's trains (1825 6.3); ours are in the pool.
    bankrupt_trains_removed = False

    #: The site's company turn is its 1867 code's (1861): the national company stops
    #: only for its run, its token and train steps are judged by that code's rules
    #: (with loans), and it stops for private purchases ours has no step for.
    steps_of_1867 = False

    def site_action(self, game: Game, action: dict[str, Any]) -> dict[str, Any]:
        """An exported action in the site's own symbols (1861: "MNN" for M-NN)."""
        return action

    def home_questions(self) -> HomeQuestions | None:
        """What follows where the site asks for a minor's home city (1825 R1)."""
        return None

    def merger_owners(self, game: Game, move: Move) -> tuple[str, list[str]] | None:
        """Before a merger's move: the public formed and the minors' owners (1861 12)."""
        return None

    def national_done(self, game: Game, move: Move) -> bool:
        """Whether the move ends a national company's turn, which the site ends by
        itself (1861 7.4)."""
        return False

    def before(self, renderer: Any, index: int, move: Move) -> object:
        """The title's own form of a move read off the position before it, where it
        has one (1861: its auctions, merger rounds and Directors' choices): a dict; a
        list of site actions, the last carrying the move; True/False: a pass in a stock
        round the site makes by itself (unrecorded) or not; NO_FORM; or None, the
        general export's form."""
        return None

    def sold_at_once(self, game: Game) -> str | None:
        """The private the site has already sold to its first bidder, where ours still
        auctions it (1861 9.4, the site's "Dutch" mode after its minimum fell)."""
        return None

    def offers_par(self, game: Game, seat: str) -> bool:
        """Whether the site offers `seat` a par (a public to start) where ours has
        nothing for him to do (1861 9.3)."""
        return False

    def site_runs_receiver(self, game: Game, corp: Corporation) -> bool:
        """Whether the site runs `corp` by its receiver's rules (1825 6.4)."""
        return False

    def passed_nodes(self, state: GameState, walk: Walk) -> tuple[int, ...]:
        """The places in `walk.hexes` where the route passes a stop of the site's that
        ours is not (1825 R1: a halt): the site's route names it as a node."""
        return ()
