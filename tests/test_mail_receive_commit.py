"""Recording a mail the IMAP inbox keeps until it is processed (issue 14, speed under a
burst): its commit waits for no disk flush, the processing's commit does."""

from __future__ import annotations

from pathlib import Path

from moderator.config import ModeratorConfig
from moderator.desk.processor import Processor, ProcessorSettings
from moderator.store import Store

RAW = (b"From: ann@example.org\nTo: moderator@example.org\nSubject: help\n"
       b"Message-ID: <lazy-1@example.org>\n\nhelp\n")


def _processor(tmp_path: Path) -> tuple[Processor, Store, list[str]]:
    config = ModeratorConfig(address="moderator@example.org", secret="s",
                             database=tmp_path / "m.sqlite")
    store = Store(config.database)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    return Processor(store, ProcessorSettings.from_config(config)), store, statements


def _synchronous(store: Store) -> int:
    return int(store.execute("PRAGMA synchronous")[0][0])


def test_a_mail_kept_in_the_inbox_is_recorded_without_a_flush(tmp_path: Path) -> None:
    processor, store, statements = _processor(tmp_path)
    key, done = processor.receive(RAW, kept_elsewhere=True)
    assert not done
    said = [s.split()[0].upper() + " " + s.split()[-1].upper() if s.upper().startswith(
        "PRAGMA") else s.split()[0].upper() for s in statements]
    # Its transaction commits between the two settings: no flush for it alone.
    normal = said.index("PRAGMA SYNCHRONOUS=NORMAL")
    commit = said.index("COMMIT", normal)
    assert said.index("PRAGMA SYNCHRONOUS=FULL", commit) > commit
    # Committed (another connection reads it), and the processing flushes again.
    other = Store(tmp_path / "m.sqlite")
    assert other.message(key) is not None
    other.close()
    assert _synchronous(store) == 2  # FULL
    statements.clear()
    assert processor.process(key).status == "processed"
    assert not any("synchronous" in s.lower() for s in statements)
    assert _synchronous(store) == 2
    store.close()


def test_other_mail_is_recorded_with_a_flush(tmp_path: Path) -> None:
    processor, store, statements = _processor(tmp_path)
    processor.receive(RAW)
    assert not any("synchronous" in s.lower() for s in statements)
    assert _synchronous(store) == 2
    store.close()
