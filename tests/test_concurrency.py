"""Many readers and one writer share a KnowledgeBase across threads."""

import threading

from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config


def test_readers_search_while_a_writer_ingests(tmp_path):
    base = tmp_path / "base"
    write(base / "seed.txt", "Seed document about orchard pruning in winter.")
    batch = tmp_path / "batch"
    for i in range(120):
        write(batch / f"f{i:03d}.txt", f"Batch file {i} about orchard pruning and apple {i}.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([base])
        errors: list[BaseException] = []
        counts: list[int] = []
        done = threading.Event()

        def reader() -> None:
            try:
                while not done.is_set():
                    result = kb.search("orchard pruning", decay=False, top_k=5)
                    assert result.diagnostics.error is None, result.diagnostics.error
                    assert result.references
                    counts.append(len(result.references))
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads:
            t.start()
        report = kb.ingest([batch])
        done.set()
        for t in threads:
            t.join(timeout=30)
        assert not errors, errors
        assert report.count("added") == 120
        assert len(counts) >= 3  # readers made progress while the writer worked
        c = kb.store.counts()
        assert c["documents"] == 121 and c["fts_rows"] == c["chunks"]


def test_a_write_waits_for_another_process_then_fails_in_one_line(tmp_path):
    # a new-user trial: a second `kb ingest` during a 30 MB one printed a 40-line traceback
    # ending "sqlite3.OperationalError: database is locked"
    import sqlite3
    import time

    import pytest

    from kb.errors import StoreError
    from kb.store import Store

    path = tmp_path / "kb.db"
    Store(path).close()
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)  # a writer
    other.execute("BEGIN IMMEDIATE")
    try:
        store = Store(path, write_wait_s=0.3)
        started = time.monotonic()
        with pytest.raises(StoreError, match="another process is writing this index and did "
                                             "not finish within 0.3 s"):
            store.set_meta("probe", "1")
        assert time.monotonic() - started < 5  # its own wait, not the readers' 10 s
        assert store.get_meta("probe") is None  # nothing written

        def release() -> None:
            time.sleep(0.5)
            other.execute("COMMIT")

        threading.Thread(target=release).start()
        patient = Store(path, write_wait_s=10)
        patient.set_meta("probe", "2")  # waits for the lock, then writes
        assert patient.get_meta("probe") == "2"
        store.close()
        patient.close()
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()
