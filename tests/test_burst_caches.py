"""What a burst of mail to one game does not do again (issue 14, speed under a burst):
the board a reader was last shown is kept, not replayed from move 0, and a part of the
map that several readers get is cut once. Played with the recorded 18TN game 7818
through the processor (as the daemon's worker runs it), counting the work done."""

from __future__ import annotations

import email
import email.policy
import json
from pathlib import Path

import pytest

from engine.game import Game
from engine.legal import orders_listed
from moderator.cli.bench_mail import burst, burst_message, seated_game
from moderator.cli.bench_replay import FIXTURES
from moderator.config import ModeratorConfig
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.reports.crop import crop_map
from moderator.reports.report import MAP_CID, Position
from moderator.store import Store

RECORD = FIXTURES / "18TN" / "7818.json"

pytestmark = pytest.mark.skipif(not RECORD.exists(), reason="the recorded games are not here")


def _burst(tmp_path: Path, count: int) -> tuple[Processor, Store, list[bytes]]:
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORD, 300)
    mails = burst(game_id, whole, 300, count)
    raws = [burst_message(m, game_id, addresses, config.address, config.secret).as_bytes()
            for m in mails]
    return Processor(store, ProcessorSettings.from_config(config)), store, raws


def _process(processor: Processor, raw: bytes) -> None:
    key, _ = processor.receive(raw)
    assert processor.process(key).status == "processed"


def test_the_board_of_each_readers_last_report_is_kept_not_replayed(tmp_path: Path) -> None:
    processor, store, raws = _burst(tmp_path, 40)
    pictures = processor.games.pictures
    _process(processor, raws[0])  # the first mail finds the board at 300 (the seated
    # members' last report) kept by the game's loading: the log is not replayed again
    assert pictures.boards_replayed == 0
    replayed = pictures.boards_replayed
    for raw in raws[1:]:
        _process(processor, raw)
    # Ten moves applied and reported to everyone, 30 refusals, tile lays among them:
    # every reader's next map is measured against the board of their last report,
    # which was kept when that report was made.
    assert len(store.moves(store.execute("SELECT id FROM games")[0][0])) == 310
    assert pictures.boards_remembered > 0
    assert pictures.boards_replayed == replayed
    store.close()


def _parts(store: Store, move: int) -> list[bytes]:
    """The map parts of the reports queued for MOVE (the ones that carry a part)."""
    parts = []
    for (raw,) in store.execute(
            "SELECT b.raw FROM outbox_queue o JOIN outbox_raw b ON b.id = o.id "
            "WHERE o.kind IN ('report', 'reply')"):
        message = email.message_from_bytes(raw)
        if message["X-Moderator-Move"] != str(move):
            continue
        for part in message.walk():
            if part.get("Content-ID") == f"<{MAP_CID}>" and "-part" in (
                    part.get_filename() or ""):
                payload = part.get_payload(decode=True)
                assert isinstance(payload, bytes)
                parts.append(payload)
    return parts


def test_a_part_of_the_map_that_several_readers_get_is_cut_once(tmp_path: Path) -> None:
    processor, store, raws = _burst(tmp_path, 1)
    pictures = processor.games.pictures
    # The first mail is the game's move 300, a tile lay: every reader but the one to
    # lay next gets the part round the new tile (they were all shown move 300).
    _process(processor, raws[0])
    parts = _parts(store, 301)
    assert len(parts) >= 3
    # The same part went to several readers, cut once (one cut per distinct part).
    assert pictures.cropped == len(set(parts)) < len(parts)
    # And it is the part the map itself gives: cut from the map everyone was shown.
    game_id = store.execute("SELECT id FROM games")[0][0]
    game = processor.game(game_id)
    whole = pictures.map_for(game_id, game, 300)
    changed = pictures.changed(game_id, game, 300)
    assert crop_map(whole.png, game.state.title, changed) in parts
    store.close()


def test_the_position_is_made_once_for_every_mail_that_shows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import moderator.desk.answers as answers

    made: list[int] = []
    real = answers.position

    def counted(game_id: str, game: Game) -> Position:
        made.append(game.next_move)
        return real(game_id, game)

    monkeypatch.setattr(answers, "position", counted)
    processor, store, raws = _burst(tmp_path, 9)
    for raw in raws:
        _process(processor, raw)
    # Moves 300 and 301 applied (mails 0 and 4), each refusal answered with the stored
    # position: each position is made once, whoever it is shown to.
    assert made == [301, 302, 303]
    # And every reply shows the position it answered at.
    moves = [email.message_from_bytes(raw)["X-Moderator-Move"] for (raw,) in store.execute(
        "SELECT r.raw FROM outbox_queue o JOIN outbox_raw r ON r.id = o.id "
        "WHERE o.kind = 'reply' ORDER BY o.id")]
    assert moves == ["301", "301", "301", "301", "302", "302", "302", "302", "303"]
    store.close()


def test_a_market_picture_is_made_once_for_positions_with_the_same_tokens(
        tmp_path: Path) -> None:
    """In a stock round most moves (a share bought from the IPO, a pass) leave the
    tokens where they were: the report's market picture is not drawn again for them,
    and the one shown is the picture the later position draws."""
    from engine.records import import_record
    from engine.rounds.stock import StockRound
    from moderator.desk.answers import Answers
    from moderator.desk.timekeeper import timer_incoming
    from moderator.reports.marketimage import report_market

    whole = import_record(json.loads(RECORD.read_text())).game
    game = Game(whole.setup)
    before = None
    # The first stock-round move with a token on the market that leaves the stacks
    # alone (a market with no token is not drawn at all, issue 30).
    for move in whole.log:
        stacks = {p: list(s) for p, s in game.state.market.stacks.items() if s}
        was_stock = isinstance(game.round, StockRound)
        earlier = game.clone()
        game.apply(move.seat, move.action)
        if stacks and was_stock and isinstance(game.round, StockRound) and stacks == {
                p: list(s) for p, s in game.state.market.stacks.items() if s}:
            before = earlier
            break
    assert before is not None
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    answers = Answers(store, ProcessorSettings.from_config(config), timer_incoming("t"), 0.0)
    first, = answers.market_for("g", before, "a@example.org", whole=True)
    second, = answers.market_for("g", game, "a@example.org", whole=True)
    assert first.png is second.png  # not drawn again
    assert second.png == report_market(game)  # and what this position draws
    assert first.filename != second.filename  # each named by its own move
    store.close()


def test_a_part_is_cut_once_for_moves_that_leave_the_board_alone(tmp_path: Path) -> None:
    """A move that changes no hex (a share bought, a train run) makes a new map only in
    its caption: a reader's part, which lies above the caption, is not cut again, and
    it is the part the new map's own picture gives."""
    from engine.records import import_record
    from moderator.desk.games import PictureCache

    whole = import_record(json.loads(RECORD.read_text())).game
    game = Game(whole.setup, whole.log[:300])

    def board(game: Game) -> tuple[object, ...]:
        return (dict(game.state.board.tiles), repr(game.state.board.tokens),
                repr(game.state.board.markers), game.rules.phase(game.state).name)

    for move in whole.log[300:]:  # the next move that leaves the board and phase alone
        before = game.clone()
        game.apply(move.seat, move.action)
        if board(before) == board(game):
            break
    pictures = PictureCache()
    first = pictures.map_for("g", before, 290)
    changed = pictures.changed("g", before, 290)
    assert changed
    part = pictures.part(first, before.state.title, changed)
    assert part is not None and pictures.cropped == 1
    later = pictures.map_for("g", game, 290)
    assert later.png != first.png  # its caption names the new move
    again = pictures.part(later, game.state.title, changed)
    assert pictures.cropped == 1  # not cut again
    assert again == crop_map(later.png, game.state.title, changed)  # cut from its PNG


def test_the_charts_values_are_replayed_only_since_the_last_position() -> None:
    """The charts (net worths and prices after each stock round) kept going from move to
    move give what a whole replay of the log gives, at every position of a stretch that
    ends a stock round; a log that does not go on from the replayed one (an `undo`) is
    replayed anew."""
    from engine.records import import_record
    from engine.rounds.stock import StockRound
    from moderator.desk.games import PictureCache
    from moderator.reports.charts import progress

    whole = import_record(json.loads(RECORD.read_text())).game
    game = Game(whole.setup, whole.log[:326])  # a stock round, ended by move 332
    pictures = PictureCache()
    ends = 0
    for move in whole.log[326:340]:
        was_stock = isinstance(game.round, StockRound)
        game.apply(move.seat, move.action)
        ends += was_stock and not isinstance(game.round, StockRound)
        kept = pictures.progress("g", game)
        assert pictures._progress["g"].replay.next_move == game.next_move
        if game.next_move in (330, 333, 334, 340):  # in the stock round, after, later
            assert kept == progress(game)
    assert ends >= 1  # the stretch holds the end of a stock round
    earlier = Game(whole.setup, whole.log[:300])
    replay = pictures._progress["g"]
    assert not replay.follows(earlier)
    assert pictures.progress("g", earlier) == progress(earlier)
    assert pictures._progress["g"] is not replay


def test_the_charts_picture_is_drawn_once_while_its_values_stay(tmp_path: Path) -> None:
    """Between stock rounds the charts' values stay: the reports at two positions of
    one operating round carry the same picture, drawn once."""
    from engine.records import import_record
    from engine.rounds.operating import OperatingRound
    from moderator.desk.answers import Answers
    from moderator.desk.timekeeper import timer_incoming
    from moderator.reports.charts import chart_png, progress

    whole = import_record(json.loads(RECORD.read_text())).game
    game = Game(whole.setup, whole.log[:300])
    positions: list[Game] = []
    for move in whole.log[300:]:
        game.apply(move.seat, move.action)
        if isinstance(game.round, OperatingRound) and game.round_name.endswith(".1"):
            positions.append(game.clone())
            if len(positions) == 2:
                break
    assert len(positions) == 2
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    answers = Answers(store, ProcessorSettings.from_config(config), timer_incoming("t"), 0.0)
    first_data, (first,) = answers.charts_for("g", positions[0], "a@example.org")
    second_data, (second,) = answers.charts_for("g", positions[1], "a@example.org")
    assert first_data == second_data == progress(positions[1])
    assert first.png is second.png  # drawn once
    assert second.png == chart_png(positions[1], progress(positions[1]))
    assert first.filename != second.filename  # each named by its own move
    store.close()


def test_a_part_reaching_into_the_caption_band_is_cut_once_while_its_pixels_stay(
        ) -> None:
    """A part of the bottom rows reaches into the caption band, so each move's map (its
    caption names the move) is another picture: the part is kept by the pixels it is cut
    from, cut once while they stay the same (the caption lies beside it), and cut again
    as soon as they differ (a tile laid in it) -- always the part of the map's own PNG."""
    from engine.records import import_record
    from moderator.desk.games import PictureCache, above_caption

    whole = import_record(json.loads(RECORD.read_text())).game
    game = Game(whole.setup, whole.log[:300])
    hexes = frozenset({"G16", "I16"})  # the bottom rows, under the caption's top
    pictures = PictureCache()
    before = game.clone()
    first = pictures.map_for("g", before, 290)
    part = pictures.part(first, before.state.title, hexes)
    assert part is not None and pictures.cropped == 1
    plate = pictures._plate_of[first.png][1]
    assert not above_caption(game.state.title, hexes, plate)  # the case under test
    changed_inside = False
    for move in whole.log[300:330]:
        game.apply(move.seat, move.action)
        cropped = pictures.cropped
        picture = pictures.map_for("g", game, 290)
        again = pictures.part(picture, game.state.title, hexes)
        assert again == crop_map(picture.png, game.state.title, hexes)  # never stale
        if again != part:
            changed_inside = True
            assert pictures.cropped == cropped + 1
        part = again
    assert changed_inside  # the stretch lays a tile in the part (I16, 18TN 7818)
    assert pictures.cropped < 30 // 2  # and most moves were not cut again


def test_a_reports_tables_are_rendered_once_and_never_stale(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables of a position (shares, companies, trains ...) are kept with and
    without the market's picture: every mail that shows them gets what rendering them
    from scratch gives -- after moves that change them (shares, trains) too -- and most
    mails of a burst do not render them again."""
    import moderator.desk.answers as answers
    from moderator.reports.report import render_tables

    made: list[object] = []
    shown: list[object] = []
    real_tables, real_render = answers.render_tables, answers.render

    def counted(*args: object) -> object:
        made.append(args)
        return real_tables(*args)  # type: ignore[arg-type]

    def checked(template: str, **context: object) -> tuple[str, str]:
        if template == "report" and context.get("pos") is not None:
            tables = context["tables"]
            shown.append(tables)
            assert tables == render_tables(context["pos"],  # type: ignore[arg-type]
                                           context["market_cid"])  # type: ignore[arg-type]
        return real_render(template, **context)  # type: ignore[arg-type]

    monkeypatch.setattr(answers, "render_tables", counted)
    monkeypatch.setattr(answers, "render", checked)
    processor, store, raws = _burst(tmp_path, 40)
    for raw in raws:
        _process(processor, raw)
    assert len(store.moves(store.execute("SELECT id FROM games")[0][0])) == 310
    assert len(shown) > 40 and len(made) < len(shown) / 2
    store.close()


def test_a_refusal_says_what_the_stored_position_expects(tmp_path: Path) -> None:
    """A mail refused at its first order (an order from a player whose company is not
    operating) is told what the game expects now: read from the report's view of the
    stored position, made once per position, it is the stored game's orders as listed
    (`orders_listed`: `legal` less a lay or station none can make) -- at each position
    of the burst."""
    processor, store, raws = _burst(tmp_path, 12)
    game_id = store.execute("SELECT id FROM games")[0][0]
    told: set[str] = set()
    for raw in raws:
        _process(processor, raw)
        (answer,) = store.execute(
            "SELECT b.raw FROM outbox_queue o JOIN outbox_raw b ON b.id = o.id "
            "WHERE o.kind = 'reply' ORDER BY o.id DESC LIMIT 1")[0]
        message = email.message_from_bytes(answer)
        plain = next(p for p in message.walk() if p.get_content_type() == "text/plain")
        payload = plain.get_payload(decode=True)
        assert isinstance(payload, bytes)
        text = " ".join(payload.decode().split())
        if "What the game expects now:" in text:
            stored = processor.game(game_id)  # (kept: checked against the store)
            assert stored.next_move == len(store.moves(game_id))
            expects = "What the game expects now: " + "; ".join(orders_listed(stored)[:12])
            assert " ".join(expects.split()) in text
            told.add(expects)
    assert len(told) >= 2  # positions that expect different orders


def test_the_stations_are_judged_once_for_every_mail_at_a_position(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player to lay track (18TN 7818 at move 308) mails three refused orders: each
    reply lists the stations he may place, judged once for the position (issue 33)."""
    import moderator.desk.answers as answers
    from moderator.cli.bench_mail import BurstMail

    judged: list[int] = []
    real = answers.legal_places

    def counted(game: Game) -> tuple[answers.TokenPlace, ...]:
        judged.append(game.next_move)
        return real(game)

    monkeypatch.setattr(answers, "legal_places", counted)
    config = ModeratorConfig(address="moderator@bench.test", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    game_id, addresses, whole = seated_game(store, RECORD, 308)
    position = Game(whole.setup, whole.log[:308])
    turn = position.turn()
    assert turn is not None and turn.step == "track"
    places = real(position)
    assert places  # D7 and H7
    processor = Processor(store, ProcessorSettings.from_config(config))
    for number in range(3):
        mail = BurstMail(f"<stations{number}@bench.test>", turn.seat, "buy train 2",
                         False)
        _process(processor, burst_message(mail, game_id, addresses, config.address,
                                          config.secret).as_bytes())
    assert judged == [308]
    replies = [email.message_from_bytes(raw, policy=email.policy.default)
               for (raw,) in store.execute(
                   "SELECT r.raw FROM outbox_queue o JOIN outbox_raw r ON r.id = o.id "
                   "WHERE o.kind = 'reply' ORDER BY o.id")]
    assert len(replies) == 3
    for reply in replies:  # each lists the stations
        text = next(part.get_content() for part in reply.walk()  # type: ignore[attr-defined]
                    if part.get_content_type() == "text/plain")
        assert all(place.order in text for place in places), text
    store.close()
