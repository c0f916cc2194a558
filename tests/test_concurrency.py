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


def test_a_version_another_process_indexed_meanwhile_is_kept_not_rewritten(tmp_path):
    # two `kb ingest` runs of one folder at once reported 43 "added" for 40 files, and the
    # second write of a file dropped the chunks (and vectors) the first had just written
    from datetime import UTC, datetime

    from kb.store import Store
    from kb.types import ChunkDraft, DocumentRow

    store = Store(tmp_path / "kb.db")
    when = datetime(2024, 1, 1, tzinfo=UTC)
    first = DocumentRow("/notes/a.md", "md", "a", "hash-1", 10, 0.0, when)
    store.replace_document(first, [ChunkDraft("Axolotls regrow limbs.", "a", 0, 22)])
    written_at = store.get_document(source="/notes/a.md").ingested_at

    def never_read():  # the chunks of a version not written are not even produced
        raise AssertionError("chunks consumed")
        yield

    assert store.replace_if_changed(first, never_read()) is None
    assert store.get_document(source="/notes/a.md").ingested_at == written_at  # kept
    changed = DocumentRow("/notes/a.md", "md", "a", "hash-2", 12, 0.0, when)
    assert store.replace_if_changed(changed, [ChunkDraft("Axolotls regrow gills.", "a", 0,
                                                         22)]) is not None
    assert store.get_document(source="/notes/a.md").content_hash == "hash-2"
    # a stored version still waiting for model calls is redone, whatever its hash
    pending = DocumentRow("/notes/b.md", "md", "b", "hash-3", 5, 0.0, when, models_pending=True)
    store.replace_document(pending, [ChunkDraft("Tea grows on hills.", "b", 0, 19)])
    done = DocumentRow("/notes/b.md", "md", "b", "hash-3", 5, 0.0, when)
    assert store.replace_if_changed(done, [ChunkDraft("Tea grows on hills.", "b", 0, 19)])
    assert store.get_document(source="/notes/b.md").status != "pending_models"
    store.close()


def test_two_ingests_of_one_folder_at_once_add_each_file_once(tmp_path):
    import json
    import subprocess
    import sys

    notes = tmp_path / "notes"
    for i in range(40):  # Markdown (extracted, then written) and text (streamed into the write)
        write(notes / f"n{i:02d}.{'md' if i % 2 else 'txt'}",
              f"Note {i} about lighthouse keeper number {i}. " * 40)
    cmd = [sys.executable, "-m", "kb", "--db", str(tmp_path / "kb.db"), "--embedder", "none",
           "ingest", "--json", str(notes)]
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    lines = [json.loads(line) for r in runs for line in r.communicate(timeout=300)[0].splitlines()]
    assert [r.returncode for r in runs] == [0, 0]
    added = [o["path"] for o in lines if o["type"] == "file" and o["action"] == "added"]
    assert sorted(added) == sorted(str(p.resolve()) for p in notes.iterdir())  # each once
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        counts = kb.store.counts()
    assert counts["documents"] == 40 and counts["fts_rows"] == counts["chunks"]
