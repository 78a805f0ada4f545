"""The 1861 minor's operating turn by mail (issue 35, item 2): 10.7 gives a minor no
dividend choice, and 10.10 nationalises a trainless company only "if, with the maximum
loans allowed, it cannot afford the cheapest train available".

The issue's reproduction, played through the real daemon, IMAP and SMTP servers: seats
drawn Cy, Ann, Bob; stock round 1 auctions the privates at their minimums, then N; Bob
proposes M-V at 100, Cy bids 110, Ann passes, Bob bids 115, Cy passes; everyone passes.
In operating round 1.1 M-V (Bob, R115) lays 57 on I13 and 9 on I15 (R40 terrain, R20
for the second lay): R55 left, no train, and a 2-train costs R100. Bob mails the
orders of the turn, `withhold` at its dividend step as the issue's player did: M-V's nil
earnings are settled by the rule (no choice, 10.7), not by nationalising it, and `buy
train 2` takes a loan: M-V is not nationalised.

Before M-V's lays Bob also mails a lay as a JSON action marked as taken from an
imported 18xx.games record (which skips the connection check): refused, as only the
importer may mark a lay so; his ordinary orders after it are answered.

Each player mails only his decisions (what the moderator asks of nobody, such as a pass
that is all a player may do, it may play by itself): the test reads the stored game
before each mail, and checks the outcome, not the number of mails.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from mailgame import WAIT, answers, seat_by_mail
from mailservers import Inboxes, daemon_settings, reply_to, running_daemon, text_of

from engine.game import Game
from engine.rounds.auction_stock import AuctionStockRound
from engine.rounds.operating import OperatingRound
from moderator.mail.local import LocalMail
from moderator.store import Store

pytestmark = [pytest.mark.mail, pytest.mark.slow, pytest.mark.timeout(600)]

GM = "gm@example.org"
# Invited in the order the seats are drawn: Cy first, with the Priority Deal.
PLAYERS = {"Cy": "cy@example.org", "Ann": "ann@example.org", "Bob": "bob@example.org"}
PRIVATES = (("TSR", 20), ("BSS", 30), ("MYR", 40), ("MRR", 50), ("WVR", 60))  # 9.4
# The M-V auction as the issue gives it, bid by bid.
M_V_BIDS = {"Cy": ["bid 110", "pass"], "Ann": ["pass"], "Bob": ["bid 115"]}

def m_v_order(game: Game) -> list[str]:
    """Bob's orders at the step M-V's turn stands at: its two lays; `pass` at the steps
    left that offer nothing (the moderator may pass them itself); `withhold` at its
    dividend step, the order the issue's player sent (10.7 settles a minor's earnings
    whatever the order says); `buy train 2` at its train step."""
    rnd, turn = game.round, game.turn()
    assert isinstance(rnd, OperatingRound) and rnd.current is not None and turn is not None
    if not rnd.current.lay_hexes:
        return ["lay 57 at I13 rot 0", "lay 9 at I15 rot 0"]
    return {"dividend": ["withhold"], "train": ["buy train 2"]}.get(turn.step, ["pass"])


def stock_order(game: Game, seat: str, m_v_bids: dict[str, list[str]]) -> str:
    """SEAT's decision in stock round 1: each private at its minimum, then N at 100 by
    whoever's turn it is, M-V proposed by Bob and bid for as the issue says; else pass."""
    rnd = game.round
    assert isinstance(rnd, AuctionStockRound)
    owned = {p.sym for p in game.state.privates.values() if p.owner is not None}
    minors = game.state.corporations
    if rnd.lot is not None:
        if rnd.lot.target == "M-V" and m_v_bids.get(seat):
            return m_v_bids[seat].pop(0)
        return "pass"
    unsold = [(sym, price) for sym, price in PRIVATES if sym not in owned]
    if unsold:
        sym, price = unsold[0]
        return f"bid {price} on {sym}"
    if minors["N"].president is None:
        return "propose N at 100"
    if minors["M-V"].president is None and seat == "Bob":
        return "propose M-V at 100"
    return "pass"


async def test_a_minor_short_of_a_train_takes_a_loan_for_it_and_is_not_nationalised(
        mail_servers: LocalMail) -> None:
    config = await daemon_settings(mail_servers, imap={"idle": False, "poll_interval": 0.05})
    inboxes = Inboxes(mail_servers)
    try:
        async with running_daemon(config):
            game_id = await _start(mail_servers, inboxes)
            store = Store(config.moderator.database)
            try:
                assert store.load(game_id).setup.seats == tuple(PLAYERS)
                game = await _play_to_m_v_train(mail_servers, inboxes, store, game_id)
            finally:
                store.close()
    finally:
        await inboxes.close()
    m_v = game.state.corporations["M-V"]
    assert m_v.president == "Bob" and not m_v.closed
    assert [t.name for t in m_v.trains] == ["2"]  # bought with a loan (10.2, 10.10)
    assert m_v.loans == 1
    assert "M-V takes a loan of R50 for train and receives R45 after its interest (10.2)" \
        in game.state.log
    assert not any("M-V is nationalised" in line for line in game.state.log)
    # 10.7: M-V's nil earnings settled by the rule, whatever Bob's order said: its price
    # moved left, and it reached its train step.
    assert "M-V share price moves from R55 to R50" in game.state.log
    assert "M-V buys a 2-train for R100" in game.state.log


async def _start(mail_servers: LocalMail, inboxes: Inboxes) -> str:
    """Create the game, seat the three players in the drawn order and start it."""
    return await seat_by_mail(mail_servers, inboxes, "create game 1861", PLAYERS)


async def _play_to_m_v_train(mail_servers: LocalMail, inboxes: Inboxes, store: Store,
                             game_id: str) -> Game:
    """Each player mails his decision when it is his turn, read from the stored game,
    until M-V has had its train step; returns the stored game then."""
    bids = {seat: list(orders) for seat, orders in M_V_BIDS.items()}
    for _ in range(80):  # a bound on the mails, not their number
        game = store.load(game_id)
        m_v = game.state.corporations["M-V"]
        if m_v.trains or m_v.closed or game.state.game_over:
            return game
        turn = game.turn()
        assert turn is not None
        if isinstance(game.round, OperatingRound):
            assert turn.entity == "M-V", (turn, game.state.log[-5:])
            if not game.round.current or not game.round.current.lay_hexes:
                await _hostile_lay(mail_servers, inboxes, store, game_id)
            orders = m_v_order(game)
        else:
            orders = [stock_order(game, turn.seat, bids)]
        answer = await _mail(mail_servers, inboxes, game_id, PLAYERS[turn.seat], orders)
        assert "Applied." in text_of(answer), (orders, text_of(answer))
    raise AssertionError("M-V never reached its train step")


async def _hostile_lay(mail_servers: LocalMail, inboxes: Inboxes, store: Store,
                       game_id: str) -> None:
    """Bob mails, as a JSON action, a lay in I7 (no track of M-V near it) marked as taken
    from an imported record, which would skip its connection (`LayTile.as_recorded`):
    refused, nothing applied; the ordinary orders after it are answered (the caller)."""
    hostile = ('{"type": "lay_tile", "tile": "9", "hex": "I7", "rotation": 0, '
               '"as_recorded": true}')
    answer = text_of(await _mail(mail_servers, inboxes, game_id, PLAYERS["Bob"], [hostile]))
    assert "`as_recorded` is set only by an imported 18xx.games record" in answer, answer
    assert "Nothing was applied" in answer
    assert "I7" not in store.load(game_id).state.board.tiles


async def _mail(mail_servers: LocalMail, inboxes: Inboxes, game_id: str, address: str,
                orders: list[str]) -> EmailMessage:
    await inboxes.refresh(address)
    latest = next(m for m in reversed(inboxes.messages(address))
                  if m["X-Moderator-Game"] == game_id)
    sent = await reply_to(mail_servers, address, latest, "\n".join(orders) + "\n")
    return await inboxes.wait(address, answers(sent), timeout=WAIT)
