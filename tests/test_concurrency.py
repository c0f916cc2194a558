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
