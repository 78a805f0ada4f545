"""Tournaments by mail through the processor (no servers): every command's checks, the
director's password, heats and a final, a dropout replaced, standings checked against
a computation made here from the games' own scores."""

from __future__ import annotations

import itertools
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest
from mailservers import text_of
from test_mail_processor import SECRET, Harness

from moderator.desk.auth import make_token

DIRECTOR = "dana@example.org"
PLAYERS = [f"p{n}@example.org" for n in range(1, 10)]  # nine players
RESERVE = "rae@example.org"


def last_text(h: Harness, to: str) -> str:
    return text_of(h.outbox(to)[-1])


def director_password(h: Harness) -> str:
    match = re.search(r"password ([a-z2-7]{16})", last_text(h, DIRECTOR))
    assert match is not None
    return match.group(1)


def tables(h: Harness, name: str) -> list[tuple[str, int, int, str, float | None]]:
    return [tuple(r) for r in h.store.execute(  # type: ignore[misc]
        "SELECT game_id, heat, number, title, ended FROM tournament_tables WHERE "
        "tournament = ? ORDER BY heat, number", [name])]


def seats_of(h: Harness, game_id: str) -> dict[str, str]:
    """Each seat's address now."""
    return {m.seat: m.address for m in h.store.members(game_id)
            if m.role == "player" and m.seat}


def table_shares(values: dict[str, int]) -> dict[str, Fraction]:
    """`scoring share` worked out again here: value / total, in percent."""
    total = sum(values.values())
    return {p: Fraction(100 * v, total) if total else Fraction(100, len(values))
            for p, v in values.items()}


def placement_and_margin(values: dict[str, int]) -> dict[str, tuple[Fraction, Fraction]]:
    """(placement, margin) worked out again here: for each pair of players the higher
    value takes a point (a tie half each), and placement is the points in percent of
    the other players at the table; margin is the value's distance from the table's
    average in percent of it."""
    total = sum(values.values())
    average = Fraction(total, len(values))
    points = {p: Fraction(0) for p in values}
    for a, b in itertools.combinations(values, 2):
        if values[a] > values[b]:
            points[a] += 1
        elif values[b] > values[a]:
            points[b] += 1
        else:
            points[a] += Fraction(1, 2)
            points[b] += Fraction(1, 2)
    return {p: (points[p] * 100 / (len(values) - 1),
                100 * (v - average) / average if total else Fraction(0))
            for p, v in values.items()}


def play_by_mail(h: Harness, game_id: str, mails: int, rng: random.Random) -> int:
    """Up to MAILS orders mailed by the seats to move, each a legal order chosen at
    random (bids and purchases preferred, so that the players' values differ); how
    many moves the game made."""
    start = h.processor.game(game_id).next_move
    for _ in range(mails):
        game = h.processor.game(game_id)
        turn = game.turn()
        if turn is None:
            break
        address = seats_of(h, game_id)[turn.seat]
        # `par IC at 65, 70, 75` lists the prices to choose from: the first is an order.
        options = [o.split(" (")[0].split(",")[0] for o in game.legal()]
        busy = [o for o in options if o.startswith(("bid", "buy", "par"))]
        order = rng.choice(busy if busy and rng.random() < 0.8 else options)
        h.send(address, f"password {make_token(SECRET, game_id, turn.seat)}\n{order}",
               subject=f"[{game_id}] orders")
        assert h.processor.game(game_id).next_move > game.next_move, (order, last_text(
            h, address))
    return h.processor.game(game_id).next_move - start


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path, tournament_directors=(DIRECTOR,))


def confirmed(h: Harness, sender: str, body: str) -> str:
    """SENDER's `register` or `create tournament`, then the reply that confirms it
    (issue 31: a From line alone enters nobody); the text of the last answer."""
    h.send(sender, body)
    asked = h.last_to(sender)
    assert "[confirm " in str(asked["Subject"]), last_text(h, sender)
    h.reply(sender, asked, "yes\n\n> quoted request")
    return last_text(h, sender)


def direct(h: Harness, password: str, *lines: str) -> str:
    h.send(DIRECTOR, "\n".join([f"password {password}", *lines]))
    return last_text(h, DIRECTOR)


def test_only_a_listed_director_creates_and_only_with_the_password_directs(
        h: Harness) -> None:
    h.send("mallory@example.org", "create tournament Spring titles 18TN")
    assert "REFUSED: only the tournament directors" in last_text(h, "mallory@example.org")
    h.send(DIRECTOR, "create tournament Spring titles 18TN,Nope")
    assert "REFUSED" in last_text(h, DIRECTOR)
    h.send(DIRECTOR, "create tournament Spring titles 18TN sizes 3-7")
    assert "no title of 18TN takes 6 players" in last_text(h, DIRECTOR)
    confirmed(h, DIRECTOR, "create tournament Spring titles 18TN,1850 sizes 3-4 heats 2 final 4 "
           "scoring share deadline 24h timeout pass seed 11")
    assert "tournament Spring created" in last_text(h, DIRECTOR)
    password = director_password(h)
    confirmed(h, "p1@example.org", "register Spring")
    assert "you are entered in Spring as a player" in last_text(h, "p1@example.org")
    # The director's commands: never without the password, never from another address.
    h.send(DIRECTOR, "close entry Spring")
    assert "director password" in last_text(h, DIRECTOR)
    h.send("p1@example.org", f"password {password}\nclose entry Spring")
    assert "only the director of Spring" in last_text(h, "p1@example.org")
    # A refused line takes the mail's other lines back.
    h.send("p2@example.org", "register Spring\nwithdraw Nowhere")
    assert "there is no tournament Nowhere" in last_text(h, "p2@example.org")
    assert [e.address for e in h.store.entrants("Spring")] == ["p1@example.org"]
    # Too few players to seat: entry stays open.
    assert "cannot be seated" in direct(h, password, "close entry Spring")
    assert h.store.tournament("Spring").stage == "entry"  # type: ignore[union-attr]
    h.send("p1@example.org", "standings Nowhere")
    assert "no tournament Nowhere" in last_text(h, "p1@example.org")
    h.send("stranger@example.org", "standings Spring")
    assert "go to its entrants" in last_text(h, "stranger@example.org")
    h.send("p1@example.org", "register Spring as maybe")
    assert "REFUSED: write `register NAME`" in last_text(h, "p1@example.org")


def test_a_tournament_through_heats_and_a_final(h: Harness) -> None:
    confirmed(h, DIRECTOR, "create tournament Spring titles 18TN,1850 sizes 3-4 heats 2 final 4 "
           "scoring placement deadline 24h timeout pass seed 11")
    password = director_password(h)
    for address in PLAYERS:
        confirmed(h, address, "register Spring")
    confirmed(h, RESERVE, "register Spring as reserve")
    answer = direct(h, password, "close entry Spring minimum 50")
    assert "entry to Spring is closed: 9 players" in answer
    assert "p1@example.org: no record yet" in answer  # reliability shown to the director
    answer = direct(h, password, "start heat Spring")
    assert "heat 1 of Spring is seated at 3 tables" in answer
    heat1 = tables(h, "Spring")
    assert [(t[1], t[2], t[3]) for t in heat1] == [(1, 1, "18TN"), (1, 2, "1850"),
                                                   (1, 3, "18TN")]
    # Every player has the first report of their table, which says which table it is.
    first = seats_of(h, heat1[0][0])
    for address in first.values():
        assert "Tournament Spring, heat 1, table 1." in last_text(h, address)
    # A second `start heat` while heat 1 plays is refused.
    assert "still playing" in direct(h, password, "start heat Spring")
    # Table 1 plays a few moves; then a dropout: its first seat goes to the reserve,
    # who plays on. Every table is driven by mail, then ended by the director.
    rng = random.Random(3)
    assert play_by_mail(h, heat1[0][0], 6, rng) == 6
    dropout = next(iter(first.values()))
    answer = direct(h, password, f"replace {dropout} in Spring")
    assert f"{RESERVE} takes" in answer
    assert RESERVE in seats_of(h, heat1[0][0]).values()
    assert "The director of Spring gives you the seat" in last_text(h, RESERVE)
    assert "given your seat" in last_text(h, dropout)

    values: dict[str, dict[str, int]] = {}
    for game_id, *_ in heat1:
        play_by_mail(h, game_id, 5, rng)
        values[game_id] = h.processor.game(game_id).scores()
        answer = direct(h, password, f"end table {game_id} anyway")
        assert f"{game_id} ended and scored" in answer
    # Standings went to every entrant when each table ended.
    assert "Standings of Spring" in last_text(h, "p5@example.org")
    assert h.store.tournament("Spring").stage == "heats"  # type: ignore[union-attr]

    answer = direct(h, password, "start heat Spring")
    assert "heat 2 of Spring" in answer
    heat2 = [t for t in tables(h, "Spring") if t[1] == 2]
    # Nine players at three tables of three met 9 pairs; heat 2 can avoid them all.
    met = {frozenset(p) for t in heat1 for p in itertools.combinations(
        [r[0] for r in h.store.execute("SELECT address FROM tournament_holders WHERE "
                                       "game_id = ?", [t[0]])], 2)}
    again = sum(1 for t in heat2 for p in itertools.combinations(seats_of(h, t[0]).values(),
                                                                   2)
                if frozenset(p) in met)
    assert again <= 1  # a reserve joined table 1: a perfect split may not exist
    for game_id, *_ in heat2:
        play_by_mail(h, game_id, 5, rng)
        values[game_id] = h.processor.game(game_id).scores()
        direct(h, password, f"end table {game_id} anyway")

    # The standings, computed here from the games' scores and who held each seat.
    totals: dict[str, Fraction] = {}
    others: dict[str, Fraction] = {}
    wins: dict[str, int] = {}
    for game_id, seat_values in values.items():
        scored = placement_and_margin(seat_values)
        holders = h.store.holders(game_id)
        for seat, (placement, margin) in scored.items():
            held = [x for x in holders if x.seat == seat]
            moves = {x.address: int(h.store.execute(
                "SELECT COUNT(*) FROM moves WHERE game_id = ? AND seat = ? AND number >= ? "
                "AND number < ?", [game_id, seat, x.since, x.until or 10**9])[0][0])
                for x in held}
            whole = sum(moves.values())
            for x in held:
                part = (Fraction(1) if len(held) == 1 else
                        Fraction(moves[x.address], whole) if whole else
                        Fraction(1 if x.until is None else 0))
                totals[x.address] = totals.get(x.address, Fraction(0)) + placement * part
                others[x.address] = others.get(x.address, Fraction(0)) + margin * part
                alone = all(v < seat_values[seat] for s, v in seat_values.items() if s != seat)
                wins[x.address] = wins.get(x.address, 0) + int(alone and part == 1)
    assert any(v for v in totals.values()) and len(set(totals.values())) > 1
    entry = [*PLAYERS, RESERVE]
    expected_order = sorted(totals, key=lambda a: (-totals[a], -others[a], -wins[a],
                                                   entry.index(a)))
    h.send("p3@example.org", "standings Spring")
    text = last_text(h, "p3@example.org")
    rows = re.findall(r"^\s+(\d+)\s+(\w+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\d+)", text, re.M)
    address_of = {a.split("@")[0].capitalize(): a for a in entry}  # the names shown
    assert [address_of[r[1]] for r in rows] == expected_order
    for _, name, total, other, won in rows:
        address = address_of[name]
        assert float(total) == pytest.approx(float(totals[address]), abs=0.006), address
        assert float(other) == pytest.approx(float(others[address]), abs=0.006), address
        assert int(won) == wins[address]
    assert "@" not in text.split("Standings of Spring")[1].split("-- ")[0]  # no addresses
    shown = expected_order

    answer = direct(h, password, "start heat Spring")
    assert "the final of Spring is seated at 1 table and started: " in answer
    final = [t for t in tables(h, "Spring") if t[1] == 3]
    assert len(final) == 1
    dropped = {dropout}
    seeds = [a for a in shown if a not in dropped][:4]
    assert sorted(seats_of(h, final[0][0]).values()) == sorted(seeds)
    play_by_mail(h, final[0][0], 5, rng)
    final_values = h.processor.game(final[0][0]).scores()
    direct(h, password, f"end table {final[0][0]} anyway")
    assert h.store.tournament("Spring").stage == "over"  # type: ignore[union-attr]
    # The last standings mail (a finalist's final report of the table may come after it).
    text = [t for t in map(text_of, h.outbox("p9@example.org")) if "Standings of" in t][-1]
    assert "the tournament is over" in text and "Final order of Spring" in text
    by_seat = placement_and_margin(final_values)
    seat_of = {a: s for s, a in seats_of(h, final[0][0]).items()}
    expected = sorted(seeds, key=lambda a: (-by_seat[seat_of[a]][0], shown.index(a)))
    order = re.findall(r"^\s+\d+\s+(\w+)\s*$", text.split("Final order")[1], re.M)
    assert [address_of[name] for name in order] == expected + [
        a for a in shown if a not in expected]
    assert "over" in direct(h, password, "start heat Spring")



def test_a_refused_line_takes_back_a_heat_already_seated(h: Harness) -> None:
    confirmed(h, DIRECTOR, "create tournament Cup titles 18TN sizes 3-4 heats 1 seed 4")
    password = director_password(h)
    for address in PLAYERS[:7]:
        confirmed(h, address, "register Cup")
    direct(h, password, "close entry Cup")
    before = len(h.outbox())
    answer = direct(h, password, "start heat Cup", "withdraw Nowhere")
    assert "Nothing of your tournament mail was done" in answer
    assert "REFUSED: there is no tournament Nowhere" in answer
    # No table, no game, and no report went out: only the answer.
    assert tables(h, "Cup") == [] and h.store.games() == []
    assert len(h.outbox()) == before + 1
    # Seated again after a withdrawal (tables of 3 and 3, not 4 and 3): the games are
    # the new ones under the same ids, not the ones taken back.
    h.send("p7@example.org", "withdraw Cup")
    assert "heat 1 of Cup is seated at 2 tables" in direct(h, password, "start heat Cup")
    for game_id, *_ in tables(h, "Cup"):
        game = h.processor.game(game_id)
        assert set(game.setup.seats) == set(seats_of(h, game_id))
    # The heats are played: no more heats, no final.
    for game_id, *_ in tables(h, "Cup"):
        direct(h, password, f"end table {game_id} anyway")
    assert h.store.tournament("Cup").stage == "over"  # type: ignore[union-attr]
    assert "Cup is over" in direct(h, password, "start heat Cup")
    assert "has ended already" in direct(h, password, f"end table {tables(h, 'Cup')[0][0]}")
    h.send("p1@example.org", "register Cup")
    assert "Cup is over" in last_text(h, "p1@example.org")


def test_an_unconfirmed_entry_is_never_seated_and_expires(h: Harness) -> None:
    confirmed(h, DIRECTOR, "create tournament Cup titles 18TN sizes 3-4 heats 1 seed 4")
    password = director_password(h)
    for address in PLAYERS[:6]:
        confirmed(h, address, "register Cup")
    h.send(PLAYERS[6], "register Cup")  # asked, never confirmed
    asked = h.last_to(PLAYERS[6])
    assert "waits for your confirmation" in last_text(h, PLAYERS[6])
    assert "entry to Cup is closed: 6 players" in direct(h, password, "close entry Cup")
    direct(h, password, "start heat Cup")
    seated = {a for game_id, *_ in tables(h, "Cup") for a in seats_of(h, game_id).values()}
    assert seated == set(PLAYERS[:6])
    # Two days later the reply comes: expired (as a reserve it would still be welcome).
    h.store.execute("UPDATE tournament_confirmations SET created = created - 49 * 3600")
    h.reply(PLAYERS[6], asked, "yes")
    assert "expired" in last_text(h, PLAYERS[6])
    assert PLAYERS[6] not in {e.address for e in h.store.entrants("Cup")}


# -- issue 32: unfinished tables, everyone told, the director's view ------------------------


class Clock:
    """The processor's time, moved on by the test (the heat deadlines run on it)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_mixed_size_tournament_by_mail_matches_a_hand_computation(h: Harness) -> None:
    """Seven players at a table of four and one of three, two heats, `scoring margin`
    (the default): a table ended before its first operating round is refused without
    `anyway`, an end is taken back, a player withdraws mid-heat and is still ranked and
    told; the standings equal the margins worked out here."""
    confirmed(h, DIRECTOR, "create tournament Mix titles 18TN,1850 sizes 3-4 heats 2 seed 5")
    password = director_password(h)
    players = PLAYERS[:7]
    for address in players:
        confirmed(h, address, "register Mix")
    direct(h, password, "close entry Mix")
    answer = direct(h, password, "start heat Mix")
    heat1 = tables(h, "Mix")
    assert sorted(len(seats_of(h, t[0])) for t in heat1) == [3, 4]  # mixed sizes
    for game_id, *_ in heat1:  # the answer names each table's game
        assert game_id in answer
    rng = random.Random(8)
    first = heat1[0][0]
    play_by_mail(h, first, 4, rng)
    # Still in its first stock round: ending it needs `anyway`.
    refused = direct(h, password, f"end table {first}")
    assert f"end table {first} anyway" in refused and "scores now say little" in refused
    assert h.store.tournament_table(first).ended is None  # type: ignore[union-attr]
    answer = direct(h, password, f"end table {first} anyway")
    assert f"{first} ended and scored" in answer
    # Its last report reads as over: subject and body.
    seat, address = next(iter(seats_of(h, first).items()))
    last = [m for m in h.outbox(address) if m["X-Moderator-Game"] == first][-1]
    assert "game over" in str(last["Subject"]) and "to move" not in str(last["Subject"])
    body = text_of(last)
    assert "has ended this table" in body and "The game is over" in body
    assert "<-- your turn" not in body and "To move:" not in body
    # Taken back: the table plays on, unscored, and everyone is told.
    answer = direct(h, password, f"undo end table {first}")
    assert f"{first} plays on" in answer
    assert h.store.tournament_table(first).ended is None  # type: ignore[union-attr]
    assert h.store.tournament_results(first) == {}
    report = [m for m in h.outbox(address) if m["X-Moderator-Game"] == first][-1]
    assert "taken back the end of this table" in text_of(report)
    assert "to move" in str(report["Subject"])
    assert h.store.clock(first).ended is None  # type: ignore[union-attr]
    assert play_by_mail(h, first, 3, rng) == 3  # orders are taken again

    # A player of the other table withdraws mid-heat: she plays it out and is ranked.
    other = heat1[1][0]
    leaver = next(iter(seats_of(h, other).values()))
    h.send(leaver, "withdraw Mix")
    assert "you still hold a seat" in last_text(h, leaver)
    values: dict[str, dict[str, int]] = {}
    for game_id, *_ in heat1:
        play_by_mail(h, game_id, 5, rng)
        values[game_id] = h.processor.game(game_id).scores()
        direct(h, password, f"end table {game_id} anyway")
    assert any(f"({other}) has ended" in t and "Standings of Mix" in t  # told when her
               for t in map(text_of, h.outbox(leaver)))  # table ended
    direct(h, password, "start heat Mix")
    heat2 = [t for t in tables(h, "Mix") if t[1] == 2]
    assert leaver not in {a for t in heat2 for a in seats_of(h, t[0]).values()}
    for game_id, *_ in heat2:
        play_by_mail(h, game_id, 5, rng)
        values[game_id] = h.processor.game(game_id).scores()
        direct(h, password, f"end table {game_id} anyway")
    assert h.store.tournament("Mix").stage == "over"  # type: ignore[union-attr]

    # By hand: each seat's margin over its table's average (percent), summed per player;
    # ties by placement, then wins, then entry.
    totals = {a: Fraction(0) for a in players}
    others = {a: Fraction(0) for a in players}
    wins = {a: 0 for a in players}
    for game_id, seat_values in values.items():
        average = Fraction(sum(seat_values.values()), len(seat_values))
        for seat, value in seat_values.items():
            person = seats_of(h, game_id)[seat]
            totals[person] += 100 * (value - average) / average
            beaten = sum(1 for v in seat_values.values() if v < value) + Fraction(
                sum(1 for v in seat_values.values() if v == value) - 1, 2)
            others[person] += beaten * 100 / (len(seat_values) - 1)
            wins[person] += all(v < value for s, v in seat_values.items() if s != seat)
    expected = sorted(players, key=lambda a: (-totals[a], -others[a], -wins[a],
                                              players.index(a)))
    text = [t for t in map(text_of, h.outbox(leaver)) if "Standings of" in t][-1]
    assert "the tournament is over" in text  # the withdrawn player gets the last one
    rows = re.findall(r"^\s+(\d+)\s+(\w+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\d+)\s+(\d+)$", text,
                      re.M)
    address_of = {a.split("@")[0].capitalize(): a for a in players}
    assert [address_of[r[1]] for r in rows] == expected
    for _, name, total, other, won, _played in rows:
        assert float(total) == pytest.approx(float(totals[address_of[name]]), abs=0.006)
        assert float(other) == pytest.approx(float(others[address_of[name]]), abs=0.006)
        assert int(won) == wins[address_of[name]]
    # The columns line up: every row's score ends where the header's `score` ends.
    lines = text.split("\n")
    header = next(line for line in lines if "place" in line and "score" in line)
    end = header.index("score") + len("score")
    for line in lines[lines.index(header) + 1:][:len(rows)]:
        assert line[end - 1] != " " and line[end:end + 1] == " ", (header, line)


def test_a_heat_deadline_warns_then_ends_the_tables(tmp_path: Path) -> None:
    clock = Clock(1_800_000_000.0)
    h = Harness(tmp_path, tournament_directors=(DIRECTOR,))
    h.processor.clock = clock
    confirmed(h, DIRECTOR, "create tournament Cup titles 18TN sizes 3-4 heats 2 "
              "heat deadline 10d seed 4")
    assert "a heat ends after 10 days" in last_text(h, DIRECTOR)
    password = director_password(h)
    for address in PLAYERS[:6]:
        confirmed(h, address, "register Cup")
    direct(h, password, "close entry Cup")
    answer = direct(h, password, "start heat Cup deadline 4d")  # this heat: 4 days
    assert "The heat ends" in answer
    heat1 = tables(h, "Cup")
    player = seats_of(h, heat1[0][0])["P1"] if "P1" in seats_of(h, heat1[0][0]) else next(
        iter(seats_of(h, heat1[0][0]).values()))
    assert "The heat ends" in last_text(h, player)  # the first report says it too
    before = len(h.outbox(player))
    clock.now += 2 * 86400  # two days in: nothing yet (the notice comes a day before)
    h.processor.tick()
    assert not [m for m in h.outbox(player)[before:] if "ends soon" in str(m["Subject"])]
    clock.now += 1.5 * 86400
    h.processor.tick()
    told = [m for m in h.outbox(player) if "heat 1 ends soon" in str(m["Subject"])]
    assert len(told) == 1 and "scored on its position" in text_of(told[0])
    assert "heat 1 ends soon" in str(h.last_to(DIRECTOR)["Subject"])
    h.processor.tick()  # told once
    assert len([m for m in h.outbox(player) if "ends soon" in str(m["Subject"])]) == 1
    clock.now += 0.6 * 86400  # past the deadline
    h.processor.tick()
    assert all(t[4] is not None for t in tables(h, "Cup"))
    assert h.store.tournament("Cup").stage == "heats"  # type: ignore[union-attr]
    assert "reached its deadline" in text_of(
        [m for m in h.outbox(player) if m["X-Moderator-Game"] == heat1[0][0]][-1])
    assert "Standings of Cup" in last_text(h, player)
    # Heat 2 takes the tournament's 10 days.
    assert "The heat ends" in direct(h, password, "start heat Cup")
    cup = h.store.tournament("Cup")
    assert cup is not None and cup.heat_ends == pytest.approx(clock.now + 10 * 86400)
    # The service is down for a day: the heat's deadline moves by as much, like a turn's.
    h.processor.tick()
    clock.now += 86400
    assert h.processor.recover_downtime() == pytest.approx(86400)
    later = h.store.tournament("Cup")
    assert later is not None and later.heat_ends == pytest.approx(cup.heat_ends + 86400)


def test_everyone_concerned_is_told_and_the_director_sees_everything(h: Harness) -> None:
    confirmed(h, DIRECTOR, "create tournament Cup titles 18TN sizes 3-4 heats 2 seed 4")
    password = director_password(h)
    for address in PLAYERS[:7]:
        confirmed(h, address, "register Cup")
    confirmed(h, RESERVE, "register Cup as reserve")
    # A reserve who mails `register` is told plainly that she is a player now.
    confirmed(h, RESERVE, "register Cup")
    assert "you were entered in Cup as a reserve; you are now entered as a player " \
        "instead" in last_text(h, RESERVE)
    confirmed(h, RESERVE, "register Cup as reserve")
    assert "as a player; you are now entered as a reserve" in last_text(h, RESERVE)
    # p7 has a record below the minimum: kept out, and told why.
    h.store.execute("INSERT INTO lateness (address, game_id, seat, move, deadline, policy, "
                    "created) VALUES ('p7@example.org', 'X-1', 'A', 1, 0, 'pass', 0)")
    assert "1 below the minimum of 80%" in direct(h, password, "close entry Cup minimum 80")
    kept = h.last_to("p7@example.org")
    assert "not seated" in str(kept["Subject"])
    assert "at least 80% on time" in text_of(kept) and "0% on time" in text_of(kept)
    direct(h, password, "start heat Cup")
    assert "heat 1 has started; you are a reserve" in last_text(h, RESERVE)
    h.send(RESERVE, "register Cup")  # too late to play: said so, she stays a reserve
    assert "you are a reserve of Cup, and entry for players is closed" in last_text(
        h, RESERVE)
    # The director's view: entrants with reliability, tables with their progress.
    game_id = tables(h, "Cup")[0][0]
    play_by_mail(h, game_id, 2, random.Random(1))
    view = direct(h, password, "overview Cup")
    assert "p7@example.org" in view and "refused" in view and "no record yet" in view
    turn = h.processor.game(game_id).turn()
    assert turn is not None
    assert re.search(rf"heat 1, table 1: {game_id} \(18TN\): move 2, Stock Round 1, "
                     rf"{turn.seat} to move, 0\.0 days since the last move", view), view
    assert "p7@example.org: 0% on time" in direct(h, password, "reliability Cup")
    h.send("p1@example.org", "reliability")
    assert "p1@example.org: no record yet" in last_text(h, "p1@example.org")
    # A replaced player is told he is out of the later heats.
    dropout = next(iter(seats_of(h, game_id).values()))
    direct(h, password, f"replace {dropout} in Cup")
    text = last_text(h, dropout)
    assert "given your seat" in text and "out of the later heats" in text
    # The director removes an entrant: refused while she holds a seat, then told.
    seated = list(seats_of(h, game_id).values())[1]
    assert f"`replace {seated} in Cup`" in direct(h, password, f"remove {seated} from Cup")
    other = tables(h, "Cup")[1][0]
    h.send("p1@example.org", "withdraw Cup")
    direct(h, password, f"end table {game_id} anyway", f"end table {other} anyway")
    assert "is out of Cup" in direct(h, password, f"remove {seated} from Cup")
    assert "taken you out of Cup" in last_text(h, seated)
    assert seated not in {e.address for e in h.store.entrants("Cup") if e.status == "entered"}
    direct(h, password, "start heat Cup")
    heat2 = {a for t in tables(h, "Cup") if t[1] == 2 for a in seats_of(h, t[0]).values()}
    assert seated not in heat2 and dropout not in heat2 and RESERVE in heat2


def test_the_director_hears_every_fault_and_which_password_is_wrong(h: Harness) -> None:
    h.send(DIRECTOR, "create tournament Cup titles 18TN final 4 final 6 heats 0 colour red")
    text = last_text(h, DIRECTOR)
    assert "`final` is given twice" in text and "1 to 9 heats" in text
    assert "'colour' is not a term" in text
    confirmed(h, DIRECTOR, "create tournament Cup titles 18TN seed 4")
    h.send(DIRECTOR, "close entry Cup")
    assert "this mail has no `password` line" in last_text(h, DIRECTOR)
    h.send(DIRECTOR, "password abcdefghijklmnop\nclose entry Cup")
    assert "is not the director password of Cup" in last_text(h, DIRECTOR)
