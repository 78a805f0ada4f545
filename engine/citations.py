"""Rule citations owned by the title.

The core's refusals and notices (engine.board, engine.routes, engine.rounds, ...) are
shared by every title, but each title's rulebook numbers and words its rules in its
own way: a refusal must cite the rulebook of the game being played. So the core never
writes a section number itself: it names the rule by a key, `rules.cite(KEY, ...)`,
and the title's `Rules.citations` maps the key to its own words and section. A key the
title does not map is said plainly, in the words below, with no section number.

A citation's words are a template of named fields (`{corp}`, `{hex}`, ...); a title's
words for a key use only the fields of the plain words, which the caller fills, and
the title's names for the core's terms (`WORDS`: `{head}`, `{market}`, `{offering}`,
`{station}`).

The titles name some of the things the core speaks of differently too (a company's
head is 1825's and 1861's "Director", 18TN's "president"); `WORDS` are the core's
terms in 18TN's words, and a title's `Rules.words` overrides what its rulebook names
differently, so a refusal in one title never speaks another title's vocabulary.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Cite:
    """A rule in a title's words, and where its rulebook says it ("" where it does not:
    the rule is then said without a number). Sections are as the rulebook numbers them
    ("4.2.2(a)", "10.7.2", "PURCHASE TRAINS"); several are separated by ", "."""

    words: str
    section: str = ""

    def text(self, fields: Mapping[str, object]) -> str:
        said = self.words.format_map(dict(fields))
        return f"{said} ({self.section})" if self.section else said


# The core's terms, by key, in 18TN's words (the defaults). Keys are field names the
# plain words below may use; none is a field a caller fills.
WORDS: Mapping[str, str] = {
    "head": "president",  # who directs a company: 1825 and 1861 say "Director"
    "market": "Open Market",  # the bank's second-hand shares and trains: "Bank Pool"
    "offering": "Initial Offering",  # where new shares and trains are sold
    "station": "station",  # a company's token on a city: 1825's "Base"
    "token": "station token",  # the piece itself: 1851, 1861 "station marker"; 1825 "Base"
}


# Every rule the core cites, in plain words (no title's numbers), by key.
PLAIN: Mapping[str, str] = {
    # --- track, stations and routes ----------------------------------------------------
    "track_connects": "the new track on {hex} does not connect to a {corp} {station}",
    "station_once_per_hex": "{corp} already has a {station} in {hex}",
    "station_space_kept": "no free station space in {hex}: a space is kept for a home "
                          "station",
    "station_connects": "{hex} is not connected to a {corp} {station}",
    "area_once": "the {train}-train's route reaches the off-board area {area} twice: "
                 "its hexes are one stop",
    "separate_tracks": "these routes share track; no two trains may use the same piece "
                       "of track",
    # --- trains --------------------------------------------------------------------------
    "obsolete_train": "no company may buy an obsolete train",
    "bank_train_limit": "{corp} may buy only one train from the bank this turn",
    "cheapest_with_president": "with the {head}'s money only the cheapest train may "
                               "be bought: the {train}-train for {price}",
    "contribution": "{president} contributes to {corp}'s train: it may not buy a train "
                    "from another company",
    "forced_sale": "{seat} may sell only enough to raise {need}",
    "own_sale_stands": "{seat}'s sale of {percent}% of {corp} stands: nobody may protect "
                       "the price of the company needing the train",
    "own_sale_closes": "{seat}'s {lost} is lost with {corp}: its closure ends the purchase",
    "forced_train": "{corp} has a route but no train and must buy one",
    "forced_train_bankrupt": "{corp} has a route but no train, and {president} cannot "
                             "raise the money for one: `done` declares the bankruptcy",
    "no_president_money": "the {head}'s money plays no part in {corp}'s train "
                          "purchase; it takes loans",
    "closes_on_withholding": "{corp} closes when it withholds: it never reaches its train "
                             "step, so no train is forced on it",
    "nationalised_for_interest": "{corp}'s turn ended on the way to its {step} step: it "
                                 "was nationalised for interest it could not pay",
    "loan_taken": "{corp} takes a loan of {value} for {purpose} and receives {net} after "
                  "its interest",
    "interest_unpaid": "{corp} owes {owed} interest and has only {cash}",
    # --- stock ---------------------------------------------------------------------------
    "must_take_private": "{seat} must accept {private} this turn",
    "sales_one_side": "sales must all come before or all after the purchase",
    "one_block": "{seat} has sold {corp} {when}: the shares of a company are sold in one "
                 "block",
    "no_buy_back": "{seat} sold {corp} this round and may not buy it back",
    "over_limit_buy": "{seat} is over the certificate limit and must sell first",
    "over_limit_pass": "{seat} holds {count} certificates, over the limit of {limit}: "
                       "sell first",
    "bid_at_limit": "{seat} is at the certificate limit and may not bid",
    "more_from_open_market": "only more shares of {corp} from the {market} may be "
                             "bought this turn",
    "company_whole_turn": "acting for a company is a {head}'s whole stock turn",
    "redeem_one": "a company redeems one share at a time",
    "redeem_ask": "{corp} asks {holder} to let it redeem a share at {price}",
    "redeem_refused": "{seat} refuses to let {corp} redeem his share",
    "redeem_open_market_first": "{corp} must redeem the share in the {market} first",
    "redeem_name_holder": "the {market} holds no {corp} share: name the player, "
                          "`redeem {corp} from NAME`",
    "redeemed_not_for_sale": "{corp}'s redeemed shares are not for sale until it reissues "
                             "them",
    "protects": "{president} protects {corp}'s price: buys {percent}% from {seller}'s sale "
                "for {cost}",
    "protect_first": "{president} must first decide whether to protect {corp}'s price",
    # --- mergers -------------------------------------------------------------------------
    "merger_refused": "{seat} does not agree: the merger of {minors} does not take place",
    "merger_from_treasury": "the shares of {corp} are bought from its treasury",
    "merger_one_share_each": "one share of {corp} each now",
    "merger_no_more": "{seat} may not buy another share of {corp} now",
    "merger_reversed": "nobody holds two shares of {corp}: the merger is not allowed and "
                       "is reversed",
}


def fields_of(template: str) -> frozenset[str]:
    """The named fields a template fills."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def cite(citations: Mapping[str, Cite], key: str, fields: Mapping[str, object],
         words: Mapping[str, str] = WORDS) -> str:
    """The title's words for the rule `key`, with its section; else the plain words.
    `words` are the title's names for the core's terms (`WORDS`)."""
    found = citations.get(key)
    return (found or Cite(PLAIN[key])).text({**WORDS, **words, **fields})


SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)+")


def check_citations(citations: Mapping[str, Cite]) -> list[str]:
    """What is wrong with a title's citations: an unknown key, a field the caller does
    not fill, a section number written into the words instead of `section`."""
    problems = []
    for key, found in citations.items():
        if key not in PLAIN:
            problems.append(f"{key}: no core rule has this key")
            continue
        extra = fields_of(found.words) - fields_of(PLAIN[key]) - WORDS.keys()
        if extra:
            problems.append(f"{key}: the words use {sorted(extra)}, which the core does "
                            "not fill")
        if SECTION_NUMBER.search(found.words):
            problems.append(f"{key}: a section number in the words; put it in `section`")
    return problems
