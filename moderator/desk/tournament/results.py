"""A tournament's results from the store: a table scored when its game ends (at its end
or on the director's word), the standings, reliability, and the standings mail.

`table_ended` is called by `moderator.desk.changes.advance` for every game that ends;
it does nothing for a game that is not a tournament table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.game import Game
from moderator.desk.tournament.reliability import Reliability
from moderator.desk.tournament.scoring import (
    TIE_BREAK,
    Credit,
    Standing,
    credit_table,
    final_order,
    rule_name,
    standings,
    table_scores,
)
from moderator.desk.tournament.seating import display_names
from moderator.desk.work import Work
from moderator.store import Store, Tournament

__all__ = ["Board", "board", "entrant_names", "mail_standings", "points", "recipients",
           "reliability", "standings_text", "table_ended", "tell"]


@dataclass(frozen=True, slots=True)
class Board:
    """What the standings mail shows: the heats' standings, the final's order once the
    final has been played, the tables and their state."""

    tournament: Tournament
    heats: tuple[Standing, ...]
    final: tuple[str, ...] | None
    tables: tuple[tuple[str, int, int, str, bool], ...]  # game, heat, number, title, ended
    names: dict[str, str]  # each entrant's name (`entrant_names`)


def points(value: Fraction) -> str:
    """A score as the standings print it: two decimals at most (the sums are exact)."""
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def reliability(store: Store, address: str) -> Reliability:
    return Reliability(address, *store.reliability_counts(address))


def entrant_names(store: Store, tournament: str) -> dict[str, str]:
    """Every entrant's name at the tables and in the standings (never the address:
    players do not learn each other's addresses)."""
    return display_names([e.address for e in store.entrants(tournament)])


def _seat_moves(store: Store, game_id: str, seat: str, since: int, until: int | None) -> int:
    rows = store.execute("SELECT COUNT(*) FROM moves WHERE game_id = ? AND seat = ? AND "
                         "number >= ? AND number < ?",
                         [game_id, seat, since, until if until is not None else 1 << 62])
    return int(rows[0][0])


def _credits(store: Store, game_id: str) -> dict[str, Credit]:
    values = store.tournament_results(game_id)
    holders: dict[str, list[tuple[str, int]]] = {}
    for holder in store.holders(game_id):
        holders.setdefault(holder.seat, []).append(
            (holder.address, _seat_moves(store, game_id, holder.seat, holder.since,
                                         holder.until)))
    return credit_table(game_id, table_scores(values), holders)


def board(store: Store, tournament: Tournament) -> Board:
    tables = store.tournament_tables(tournament.name)
    entry = [e.address for e in store.entrants(tournament.name)]
    heat_credits: dict[str, list[Credit]] = {}
    final_credits: dict[str, Credit] = {}
    for table in tables:
        if table.ended is None:
            continue
        for person, credit in _credits(store, table.game_id).items():
            if table.heat > tournament.heats:
                final_credits[person] = credit
            else:
                heat_credits.setdefault(person, []).append(credit)
    played = [p for p in entry if p in heat_credits]
    everyone = played + [p for p in heat_credits if p not in played]
    heats = standings(heat_credits, tournament.scoring, everyone)
    final_tables = [t for t in tables if t.heat > tournament.heats]
    final = (tuple(final_order(heats, final_credits, tournament.scoring))
             if final_tables and all(t.ended is not None for t in final_tables) else None)
    return Board(tournament, tuple(heats), final,
                 tuple((t.game_id, t.heat, t.number, t.title, t.ended is not None)
                       for t in tables), entrant_names(store, tournament.name))


def standings_text(b: Board) -> str:
    """The standings as the mail prints them (also the `standings` answer)."""
    t = b.tournament
    rule = rule_name(t.scoring)
    other = TIE_BREAK[t.scoring]
    names = b.names
    # The player column as wide as the longest name: a table of short names fits a
    # phone's width (issue 19) instead of wrapping every row.
    width = max([len("player"), *(len(names.get(s.player, s.player)) for s in b.heats)]) + 2
    lines = [f"Standings of {t.name} after the heats played (by {rule}):",
             f"  {'place':<6}{'player':<{width}}{'score':>9}{other:>10}{'wins':>5}"
             f"{'tables':>7}"]
    for s in b.heats:
        name = names.get(s.player, s.player)
        lines.append(f"  {s.place:<6}{name:<{width}}{points(s.total):>9}"
                     f"{points(s.other):>10}{s.wins:>5}{s.tables:>7}")
    if b.final is not None:
        lines += ["", f"Final order of {t.name} (the final decides, then the heats):"]
        lines += [f"  {n:<6}{names.get(p, p)}" for n, p in enumerate(b.final, 1)]
    if b.tables:
        lines += ["", "Tables:"]
        for game_id, heat, number, title, ended in b.tables:
            stage = "final" if heat > t.heats else f"heat {heat}"
            lines.append(f"  {stage}, table {number}: {game_id} ({title}) "
                         f"{'ended' if ended else 'playing'}")
    return "\n".join(lines)


def recipients(store: Store, tournament: Tournament) -> list[str]:
    """Everyone entered (players, reserves, dropouts), everyone who held a seat (a
    player who withdrew mid-heat is still ranked) and the director."""
    seated = {h.address for t in store.tournament_tables(tournament.name)
              for h in store.holders(t.game_id)}
    found = [e.address for e in store.entrants(tournament.name)
             if e.status in ("entered", "dropped") or e.address in seated]
    return list(dict.fromkeys([*found, tournament.director]))


def tell(work: Work, address: str, name: str, subject: str, why: str, text: str) -> None:
    """A mail to ADDRESS about tournament NAME that concerns them alone (kept out,
    replaced, removed, a heat's end coming): WHY heads it, TEXT follows."""
    work.answers.mail(address, "tournament", "report", game_id=None, key=None,
                      subject=f"[{name}] {subject}", kind="told", name=name, why=why,
                      text=text, results=(), sections=())


def mail_standings(work: Work, tournament: Tournament, why: str,
                   skip: Sequence[str] = ()) -> int:
    """The standings to every entrant and the director but SKIP; how many mails."""
    text = standings_text(board(work.store, tournament))
    sent = 0
    for address in recipients(work.store, tournament):
        if address in skip:
            continue
        work.answers.mail(address, "tournament", "report", game_id=None, key=None,
                          subject=f"[{tournament.name}] standings", kind="standings",
                          name=tournament.name, why=why, text=text, results=(),
                          sections=())
        sent += 1
    return sent


def table_ended(work: Work, game_id: str, game: Game) -> str | None:
    """GAME_ID's game has ended: score it if it is a tournament table, mail the
    standings to every entrant, and close a tournament whose last table this was.
    What the table's reports should say, or None for a game of no tournament."""
    store = work.store
    table = store.tournament_table(game_id)
    if table is None or table.ended is not None:
        return None
    store.end_tournament_table(game_id, game.scores(), work.now)
    tournament = store.tournament(table.tournament)
    assert tournament is not None
    tables = store.tournament_tables(tournament.name)
    last_heat = tournament.heat >= tournament.heats and tournament.advance == 0
    if (tournament.stage == "final" or last_heat) and all(
            t.ended is not None for t in tables if t.heat == tournament.heat):
        store.update_tournament(tournament.name, stage="over")
        tournament = store.tournament(tournament.name)
        assert tournament is not None
    stage = "the final" if table.heat > tournament.heats else f"heat {table.heat}"
    why = (f"{stage}, table {table.number} ({game_id}) has ended"
           + ("; the tournament is over" if tournament.stage == "over" else ""))
    mail_standings(work, tournament, why)
    return (f"This was {stage}, table {table.number} of the tournament {tournament.name}: "
            "every entrant gets the standings now (`standings "
            f"{tournament.name}` mails them any time).")
