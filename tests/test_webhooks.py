"""Games' webhooks (issue 19, "Beyond mail"): which addresses are taken, what is posted
in each form, and the sender's behaviour against a real HTTP server on loopback --
timeouts, retries with back-off, refusals, garbage, a bounded queue."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from pathlib import Path

import pytest
from webhookserver import hook_server

from moderator.desk.webhooks import MAX_LINES, summary_lines
from moderator.mail import webhook
from moderator.mail.webhook import (
    MAX_TEXT,
    Post,
    WebhookError,
    WebhookPolicy,
    WebhookSender,
    address_problem,
    guess_kind,
    payload,
    post_once,
    url_problem,
)

pytestmark = pytest.mark.timeout(60)


def post(url: str, kind: str = "json", lines: tuple[str, ...] = ("#7 Ann: buys TC",)) -> Post:
    return Post(game_id="18TN-1", url=url, kind=kind,  # type: ignore[arg-type]
                headline="OR 1.1: TC to move", lines=lines, move=8, to_move="Ann",
                game_over=False, moderator="18xx moderator")


# -- addresses -----------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "ftp://example.org/hook", "file:///etc/passwd", "gopher://example.org", "example.org/x",
    "javascript:alert(1)"])
def test_only_http_and_https_urls(url: str) -> None:
    assert url_problem(url, allow_private=True) is not None


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://127.1.2.3:8080/", "http://localhost/hook",
    "http://LOCALHOST:80/", "http://printer.local/", "http://10.0.0.5/", "http://192.168.1.1/",
    "http://172.16.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/",
    "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://100.64.0.1/",
    "http://[fd00::1]/",
    # Issue 31, case 5: what the resolver reads as loopback though `ipaddress` does not.
    "http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://0177.0.0.1/",
    "http://0/", "http://localhost./", "http://LocalHost.:8080/x"])
def test_this_machine_and_private_networks_are_refused(url: str) -> None:
    """SSRF: the service is public, so nobody makes it post into its own network --
    unless the operator allows it (the tests' local server)."""
    problem = url_problem(url, allow_private=False)
    assert problem is not None and "private network" in problem
    assert url_problem(url, allow_private=True) is None


@pytest.mark.parametrize("url", [
    "https://discord.com/api/webhooks/1/abc", "https://hooks.slack.com/services/T/B/x",
    "http://93.184.216.34:8080/hook", "https://example.org/hook?key=1"])
def test_public_addresses_are_taken(url: str) -> None:
    assert url_problem(url, allow_private=False) is None


def test_every_resolved_address_is_checked() -> None:
    assert address_problem(ipaddress.ip_address("8.8.8.8")) is None
    for text in ("127.0.0.1", "::1", "10.1.2.3", "::ffff:10.1.2.3", "224.0.0.1"):
        assert address_problem(ipaddress.ip_address(text)) is not None, text


def test_the_form_follows_the_address() -> None:
    assert guess_kind("https://discord.com/api/webhooks/1/abc") == "discord"
    assert guess_kind("https://discordapp.com/api/webhooks/1/abc") == "discord"
    assert guess_kind("https://hooks.slack.com/services/T/B/x") == "slack"
    assert guess_kind("https://discord.com/channels/1") == "json"
    assert guess_kind("https://example.org/hook") == "json"


# -- what is posted --------------------------------------------------------------------------


def test_discord_gets_content_without_pings() -> None:
    body = json.loads(payload(post("https://discord.com/api/webhooks/1/a", "discord",
                                   ("#7 @everyone: buys TC",))))
    assert body["content"] == "[18TN-1] OR 1.1: TC to move\n#7 @everyone: buys TC"
    assert body["allowed_mentions"] == {"parse": []}  # no @everyone from players' text


def test_slack_gets_text_escaped() -> None:
    body = json.loads(payload(post("https://hooks.slack.com/x", "slack", ("#7 A&B: <x>",))))
    assert body == {"text": "[18TN-1] OR 1.1: TC to move\n#7 A&amp;B: &lt;x&gt;"}


def test_plain_json_carries_the_fields() -> None:
    body = json.loads(payload(post("https://example.org/hook")))
    assert body["game"] == "18TN-1" and body["move"] == 8 and body["to_move"] == "Ann"
    assert body["moves"] == ["#7 Ann: buys TC"] and body["game_over"] is False
    assert body["headline"] == "OR 1.1: TC to move"


def test_a_long_summary_keeps_the_last_moves_and_fits_a_chat_message() -> None:
    lines = summary_lines([f"#{n} Ann: passes" for n in range(40)])
    assert len(lines) == MAX_LINES and lines[0] == f"({40 - MAX_LINES + 1} earlier moves)"
    assert lines[-1] == "#39 Ann: passes"
    long = post("https://example.org/hook", lines=tuple("x" * 300 for _ in range(10)))
    assert len(long.text) == MAX_TEXT


# -- the sender ------------------------------------------------------------------------------


LOCAL = WebhookPolicy(timeout=2.0, attempts=3, retry_min=0.05, allow_private=True)


async def test_a_post_reaches_the_server() -> None:
    async with hook_server(204) as server:
        assert await post_once(post(server.url + "?k=1"), LOCAL) == 204
        [got] = server.received
    assert got.path == "/hook?k=1" and got.headers["content-type"] == "application/json"
    assert got.headers["host"] == f"127.0.0.1:{server.port}"
    assert got.json()["moves"] == ["#7 Ann: buys TC"]


async def test_loopback_is_refused_by_default_before_any_request() -> None:
    async with hook_server(200) as server:
        with pytest.raises(WebhookError) as refused:
            await post_once(post(server.url), WebhookPolicy(timeout=2.0))
        assert not refused.value.retry and "private network" in str(refused.value)
        # A name is resolved and its addresses checked too.
        named = server.url.replace("127.0.0.1", "localhost.")
        with pytest.raises(WebhookError):
            await post_once(post(named), WebhookPolicy(timeout=2.0))
        assert server.received == []


@pytest.mark.parametrize(("answer", "retry"), [(500, True), (503, True), (429, True),
                                               (404, False), (400, False), (302, False),
                                               ("garbage", True), ("flood", True),
                                               ("hang", True)])
async def test_failures_say_whether_to_try_again(answer: int | str, retry: bool) -> None:
    # Short only for the hook that hangs: an answer that is merely slow (a loaded
    # machine) would time out too, and a timeout is always tried again.
    timeout = 0.5 if answer == "hang" else 10.0
    async with hook_server(answer) as server:
        with pytest.raises(WebhookError) as failed:
            await post_once(post(server.url), WebhookPolicy(timeout=timeout, allow_private=True))
    assert failed.value.retry == retry


async def test_a_refused_port_fails_and_is_tried_again() -> None:
    async with hook_server() as server:
        url = server.url
    with pytest.raises(WebhookError) as failed:  # the server is gone
        await post_once(post(url), LOCAL)
    assert failed.value.retry


async def test_the_sender_tries_again_after_a_wait_and_logs(
        caplog: pytest.LogCaptureFixture) -> None:
    """Two 500s and then a 200: the third try delivers; each failure is logged."""
    caplog.set_level(logging.INFO, "moderator.mail.webhook")
    sender = WebhookSender(LOCAL)
    stop = asyncio.Event()
    async with hook_server(500, 500, 200) as server:
        task = asyncio.create_task(sender.run(stop))
        await asyncio.sleep(0)
        sender.submit(post(server.url))
        await server.wait_for(3)
        while sender.posted == 0:
            await asyncio.sleep(0.01)
        stop.set()
        await task
    assert sender.posted == 1 and sender.given_up == 0
    assert [r.json()["move"] for r in server.received] == [8, 8, 8]
    failures = [r.message for r in caplog.records if "failed" in r.message]
    assert len(failures) == 2 and "HTTP 500" in failures[0] and "again in" in failures[0]


async def test_the_sender_gives_up_after_its_tries() -> None:
    sender = WebhookSender(LOCAL)
    stop = asyncio.Event()
    async with hook_server(500) as server:
        task = asyncio.create_task(sender.run(stop))
        await asyncio.sleep(0)
        sender.submit(post(server.url))
        while sender.given_up == 0:
            await asyncio.sleep(0.01)
        stop.set()
        await task
    assert len(server.received) == LOCAL.attempts and sender.posted == 0


async def test_the_queue_is_bounded(monkeypatch: pytest.MonkeyPatch,
                                    caplog: pytest.LogCaptureFixture) -> None:
    """A webhook that hangs holds its game's poster; what comes meanwhile waits in the
    game's queue of bounded size, the oldest dropped first (and logged)."""
    monkeypatch.setattr(webhook, "QUEUE_SIZE", 3)
    sender = WebhookSender(WebhookPolicy(timeout=30.0, attempts=1, allow_private=True))
    stop = asyncio.Event()
    async with hook_server("hang") as server:
        task = asyncio.create_task(sender.run(stop))
        await asyncio.sleep(0)

        def submit(move: int) -> None:
            sender.submit(Post("18TN-1", server.url, "json", "h", (), move, None, False, "m"))

        submit(1)  # this one hangs
        await server.wait_for(1)
        for move in range(2, 7):  # five into three
            submit(move)
        while sender.given_up < 2:
            await asyncio.sleep(0.01)
        server.release()
        while len(server.received) < 4:
            await asyncio.sleep(0.01)
        stop.set()
        await task
    moves = sorted(r.json()["move"] for r in server.received)
    assert moves == [1, 4, 5, 6]  # the two oldest waiting were dropped
    assert sum("queue of 18TN-1 full" in r.message for r in caplog.records) == 2


async def test_a_hung_game_does_not_delay_another_games_posts() -> None:
    """Issue 31, case 4: every game posts from its own queue. Game A's hook hangs with
    three posts waiting; game B's ten posts all go meanwhile."""
    sender = WebhookSender(WebhookPolicy(timeout=30.0, attempts=1, allow_private=True,
                                         total=30.0))
    stop = asyncio.Event()
    async with hook_server("hang") as hung, hook_server(200) as quick:
        task = asyncio.create_task(sender.run(stop))
        await asyncio.sleep(0)
        for move in range(1, 4):
            sender.submit(Post("18TN-A", hung.url, "json", "h", (), move, None, False, "m"))
        await hung.wait_for(1)
        for move in range(1, 11):
            sender.submit(Post("18TN-B", quick.url, "json", "h", (), move, None, False, "m"))
        received = await quick.wait_for(10, timeout=10)
        assert [r.json()["move"] for r in received] == list(range(1, 11))  # in order
        while sender.posted < 10:  # their answers read, while A's first still hangs
            await asyncio.sleep(0.01)
        assert hung.hanging == 1 and hung.received == []
        hung.release()
        stop.set()
        await task


async def test_a_post_gives_up_when_its_total_is_spent() -> None:
    """However many tries the policy allows, one post holds its game for at most
    `total` seconds: the next post of the game goes then."""
    # Seconds enough that a loaded machine's pause of a second or two leaves the
    # second try inside the total.
    policy = WebhookPolicy(timeout=1.0, attempts=50, retry_min=0.3, allow_private=True,
                           total=3.0)
    sender = WebhookSender(policy)
    stop = asyncio.Event()
    async with hook_server(503) as server:
        task = asyncio.create_task(sender.run(stop))
        await asyncio.sleep(0)
        sender.submit(Post("18TN-1", server.url, "json", "h", (), 1, None, False, "m"))
        sender.submit(Post("18TN-1", server.url, "json", "h", (), 2, None, False, "m"))
        while sender.given_up < 2:
            await asyncio.sleep(0.02)
        stop.set()
        await task
    # Tries after waits of 0.3, 0.6 and 1.2 s; the next wait would end past the total.
    tries = [r.json()["move"] for r in server.received]
    assert 2 <= tries.count(1) <= 5 and 2 <= tries.count(2) <= 5, tries


# -- set before `start` ---------------------------------------------------------------------


def test_the_game_master_sets_the_webhook_during_set_up(tmp_path: Path) -> None:
    """`webhook URL` in the lobby (the game master only; a bad address refuses the mail
    as in play); the report at `start` is the first post, and each move's the next."""
    from test_mail_processor import GM, PLAYERS, Harness, text_of

    posts: list[webhook.Post] = []
    h = Harness(tmp_path, notify=posts.append)
    h.send(GM, "create game 18TN seed=5")
    created = h.last_to(GM)
    h.reply(GM, created, "\n".join(f"invite {a} as {s}" for s, a in PLAYERS.items()))
    for address in PLAYERS.values():
        h.reply(address, h.last_to(address), "join\n")
    h.reply(PLAYERS["Ann"], h.last_to(PLAYERS["Ann"]),
            "webhook https://discord.com/api/webhooks/1/abc\n")
    assert "only the game master may set the game's webhook" in text_of(
        h.last_to(PLAYERS["Ann"]))
    h.reply(GM, h.last_to(GM), "webhook ftp://example.org/x\n")
    assert "a webhook must be an http or https URL" in text_of(h.last_to(GM))
    # A public address that needs no DNS (the tests run offline): it is resolved and
    # judged now, when it is set (issue 31), and the posts keep what was judged.
    h.reply(GM, h.last_to(GM), "webhook https://93.184.216.34/api/webhooks/1/abc discord\n")
    assert "webhook set: each report's summary is posted to 93.184.216.34 (discord)" in \
        text_of(h.last_to(GM))
    assert posts == []  # nothing to post before the game starts
    h.reply(GM, h.last_to(GM), "start\n")
    [started] = posts
    assert started.url == "https://93.184.216.34/api/webhooks/1/abc"
    assert started.addresses == ("93.184.216.34",)
    assert started.kind == "discord" and started.move == 0 and started.lines == ()
    assert started.to_move is not None and started.headline.startswith("SR 1")
    mover = PLAYERS[started.to_move]
    h.reply(mover, h.last_to(mover), "pass\n")
    assert [p.move for p in posts] == [0, 1]
    assert posts[1].lines and posts[1].lines[0].startswith(f"#0 {started.to_move}")
