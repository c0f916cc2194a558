"""The SQLite store: one file with documents, chunks, FTS5 index, vectors, meta and caches.

The connection runs in autocommit mode; every write happens inside ``Store.write()``, an
``IMMEDIATE`` transaction that also bumps the ``generation`` counter so readers can tell when a
cached vector matrix is stale (cache inserts, on which no cached data depends, do not bump it).
Chunks and their FTS rows (``chunks_fts.rowid = chunks.id``) are always written and deleted in
the same transaction. WAL mode, a reader per thread (``kb.store.readers``) and a busy timeout keep
readers from waiting on a writer. No model or network call is ever made inside ``write()``.
A file that cannot be written opens read-only, and a storage fault (disk full) is one
``StoreError`` with SQLite's reason (``kb.store.connection``).
Which fingerprint ``chunks.embedding`` holds, and the re-embed staging area: ``kb.store.vectors``;
the keys of ``meta``: ``kb.store.meta.MetaKey``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from kb.config import EXACT_SCAN_MAX_VECTORS
from kb.errors import SchemaError, StoreError
from kb.store import health
from kb.store.bitbuild import count_live
from kb.store.connection import WRITE_WAIT_S, OpenMode, connect, immediate, open_mode
from kb.store.documents import delete_source, insert_document
from kb.store.meta import MetaKey
from kb.store.readers import ReaderPool
from kb.store.schema import check_schema, migrate
from kb.store.search import SearchPrimitives, VectorMatrix
from kb.store.textindex import TOKENIZER_FINGERPRINT
from kb.types import Chunk, ChunkDraft, Document, DocumentRow

MAX_ROWID = 2**63 - 1  # SQLite's largest INTEGER: no row has a larger id
DOCUMENT_STATUS_SQL = (  # each document's status from its marker and vectors (? = live key)
    "UPDATE documents SET status = CASE WHEN models_pending THEN 'pending_models' "
    "WHEN EXISTS (SELECT 1 FROM chunks ch WHERE ch.doc_id = documents.id AND "
    "(ch.embedding IS NULL OR ch.embedding_fingerprint IS NOT ?)) THEN 'pending_vectors' "
    "ELSE 'indexed' END")
log = logging.getLogger(__name__)


def now_utc() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)


class Store(SearchPrimitives):
    """One kb SQLite file: a reader connection per thread and one serialised writer.

    Raises:
        StoreError: the file cannot be opened or is not a SQLite database.
        SchemaError: the file was written by a newer kb, or is another application's database.
    """

    def __init__(self, path: Path | str, *,
                 exact_scan_max_vectors: int = EXACT_SCAN_MAX_VECTORS,
                 write_wait_s: float = WRITE_WAIT_S) -> None:
        """Open (creating or migrating) the file at ``path``.

        ``exact_scan_max_vectors``: past this many live vectors the writers keep the bit index
        and searches use it (``kb.store.bitindex``); at or below, searches scan exactly.
        ``write_wait_s``: how long a write waits for another process's write transaction
        before ``write`` raises ``StoreError`` (seconds; searches never wait for a writer).
        """
        self.path = Path(path)
        self.exact_scan_max_vectors = exact_scan_max_vectors
        self.write_wait_s = write_wait_s
        self._lock = threading.RLock()
        self._vectors: dict[str, tuple[int, VectorMatrix]] = {}
        self._created: tuple[int, dict[int, datetime]] = (-1, {})
        self._mix: tuple[int, tuple[int, int]] = (-1, (0, 0))
        self._live: tuple[int, str, int] = (-1, "", 0)
        self._readers = ReaderPool(self._connect, str(self.path))
        self.mode: OpenMode = "rw"
        self.fts_problem: str | None = None  # the index is damaged and cannot be rebuilt here
        self.fts_rebuilt: str | None = None  # what was wrong with the index rebuilt at open
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.mode = open_mode(self.path)
            self._writer = self._connect()
            self._writer.execute(f"PRAGMA busy_timeout = {int(write_wait_s * 1000)}")
            if self.read_only:
                check_schema(self._writer, writable=False)
            else:
                migrate(self._writer)  # first: it refuses another application's file untouched
                self._writer.execute("PRAGMA journal_mode = WAL")
            self.repair()
        except SchemaError as exc:
            raise SchemaError(f"{self.path}: {exc}", path=self.path) from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open as a kb database ({exc})",
                             path=self.path) from exc
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open ({exc.strerror or exc})",
                             path=self.path) from exc

    @property
    def read_only(self) -> bool:
        """Whether the file was opened read-only (``write()`` raises ``StoreError``)."""
        return self.mode != "rw"

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path, self.mode)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's reading connection (WAL: it never waits for the writer).

        Writes go through ``write()``, which serialises them on one writer connection. The
        readers of threads that have ended are closed when a new one opens (``kb.store.readers``).
        """
        return self._readers.connection()

    def close(self) -> None:
        """Close the writer and every reader connection."""
        with self._lock:
            self._readers.close()
            self._writer.close()

    # Transactions and meta

    @contextmanager
    def write(self, *, bump: bool = True) -> Iterator[sqlite3.Connection]:
        """An IMMEDIATE write transaction; rolls back on error; bumps the generation if ``bump``.

        Raises:
            StoreError: the file is read-only, another process held the write lock past
                ``write_wait_s``, or a storage fault (disk full, I/O error) ended the
                transaction (``kb.store.connection.immediate``); nothing of it was written.
        """
        if self.read_only:
            raise StoreError(f"{self.path}: read-only (the file or its folder cannot be "
                             "written): searching works, changing it does not", path=self.path)
        with self._lock, immediate(self._writer, self.path, self.write_wait_s) as c:
            yield c
            if bump:
                c.execute("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) "
                          "DO UPDATE SET value = CAST(value AS INTEGER) + 1", (MetaKey.GENERATION,))

    def get_meta(self, key: str) -> str | None:
        """The value of a ``MetaKey`` (or of a key ``MetaKey.<PREFIX>.of`` built), or ``None``."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set a ``MetaKey``'s value in its own transaction (bumps the generation)."""
        with self.write() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def delete_meta_families(self, *prefixes: MetaKey) -> dict[str, str]:
        """Delete every row of these ``MetaKey`` prefix families, in one transaction.

        Returns:
            The removed keys with their values, in key order (empty when none was stored).

        Raises:
            StoreError: the file is read-only.
        """
        where = " OR ".join("substr(key, 1, length(?)) = ?" for _ in prefixes) or "0"
        params = [str(p) for p in prefixes for _ in (0, 1)]
        with self.write() as c:
            rows = c.execute(f"SELECT key, value FROM meta WHERE {where} ORDER BY key",
                             params).fetchall()
            c.executemany("DELETE FROM meta WHERE key = ?", [(key,) for key, _ in rows])
        return {str(key): str(value) for key, value in rows}

    def generation(self) -> int:
        """A counter that changes on every committed write."""
        return int(self.get_meta(MetaKey.GENERATION) or 0)

    def _check_fts(self) -> None:
        """Rebuild the FTS index from the chunks when damaged or built by another tokenizer.

        Damaged: ``kb.store.health.fts_problem`` (a warning is logged). One transaction, so a
        crash leaves the old index. In a read-only file the damage is kept in ``fts_problem``:
        searches then fail with that reason.

        Raises:
            SchemaError: another tokenizer built the index and the file cannot be written.
        """
        problem = health.fts_problem(self.conn)
        stored = self.get_meta(MetaKey.TOKENIZER_FINGERPRINT)
        # an empty read-only file without a fingerprint has nothing to index, nothing to record
        outdated = stored != TOKENIZER_FINGERPRINT and not (
            stored is None and self.read_only and not self.counts_chunks())
        if problem is None and not outdated:
            return
        if self.read_only:
            if problem is not None:
                self.fts_problem = problem
                return
            raise SchemaError(
                f"{self.path}: the full-text index was built by another tokenizer "
                f"({stored or 'an older kb'}) and cannot be rebuilt here (the file is "
                "read-only); open the file once where it is writable, or ingest into a new "
                "file", path=self.path)
        with self.write() as c:
            health.rebuild_fts(c)
        if problem is not None:
            self.fts_rebuilt = problem
            log.warning("%s: the full-text index was damaged (%s); rebuilt from the chunks",
                        self.path, problem)

    # Integrity

    def repair(self) -> dict[str, int]:
        """Integrity checks plus orphan cleanup, run at open.

        SQLite's quick_check; then the full-text index's (``_check_fts``: rebuilt when damaged
        or built by another tokenizer); then removes chunks whose document is gone, FTS rows and
        staged vectors whose chunk is gone, and indexes chunks missing from FTS, all in one
        transaction.

        Returns:
            Counts of rows fixed per kind.

        Raises:
            StoreError: SQLite's quick_check reports corruption.
        """
        problem = health.quick_check(self.conn)
        if problem is not None:
            raise StoreError(f"{self.path}: the database is corrupt (SQLite quick_check: "
                             f"{problem}); restore a backup or ingest into a new file",
                             path=self.path)
        self._check_fts()
        fixed = dict.fromkeys(("orphan_chunks", "orphan_fts", "orphan_staged", "missing_fts"), 0)
        # the common case, a read-only file, or an index nothing can read: no write
        if self.read_only or self.fts_problem is not None or not health.orphans_found(self.conn):
            return fixed
        with self.write() as c:
            return health.fix_orphans(c)

    def fts_integrity_ok(self) -> bool:
        """FTS5's own integrity-check command passes (``kb.store.health.integrity_ok``)."""
        return health.integrity_ok(self.conn)

    # Documents

    def get_document(self, *, source: str | None = None, doc_id: int | None = None
                     ) -> Document | None:
        """The document with this source or id, or ``None``."""
        where, arg = ("d.source = ?", source) if source is not None else ("d.id = ?", doc_id)
        rows = self._documents(where, [arg])
        return rows[0] if rows else None

    def documents_by_id(self, ids: Iterable[int]) -> dict[int, Document]:
        """Documents by id, in one query (ids not stored are absent)."""
        rows = self._documents("d.id IN (SELECT value FROM json_each(?))", [json.dumps(list(ids))])
        return {d.id: d for d in rows}

    def documents(self) -> list[Document]:
        """All documents ordered by source."""
        return self._documents("1", [])

    def _documents(self, where: str, params: Sequence[object]) -> list[Document]:
        rows = self.conn.execute(
            "SELECT d.id, d.source, d.source_type, d.title, d.content_hash, d.size, d.mtime, "
            "d.created_at, d.ingested_at, CASE WHEN d.models_pending THEN 'pending_models' "
            "ELSE d.status END, d.warnings, "
            "(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id), "
            "(SELECT json_group_array(tag) FROM (SELECT tag FROM document_tags t "
            "WHERE t.doc_id = d.id ORDER BY position)) "
            f"FROM documents d WHERE {where} ORDER BY d.source", list(params)).fetchall()
        return [
            Document(id=r[0], source=r[1], source_type=r[2], title=r[3],
                     content_hash=r[4],
                     size=r[5], mtime=r[6], created_at=datetime.fromisoformat(r[7]),
                     ingested_at=datetime.fromisoformat(r[8]), status=r[9],
                     warnings=tuple(json.loads(r[10])), chunk_count=r[11],
                     tags=tuple(json.loads(r[12])))
            for r in rows
        ]

    def replace_document(self, doc: DocumentRow, chunks: Iterable[ChunkDraft]) -> int:
        """Insert a document with chunks, FTS rows and tags, replacing any of the same source.

        Runs in one transaction: either the old version or the new one is visible, never both
        and never half. ``chunks`` may be a generator producing them as they are written (an
        exception it raises rolls everything back). With ``doc.models_pending`` the row is
        marked (``documents.models_pending``, migration 4: the next ingest redoes the file) and
        the status is ``pending_models``.

        Returns:
            The new document id.
        """
        with self.write() as c:
            return insert_document(c, doc, chunks)

    def replace_if_changed(self, doc: DocumentRow, chunks: Iterable[ChunkDraft],
                           warnings_after: Callable[[], Iterable[str]] | None = None
                           ) -> int | None:
        """``replace_document``, unless the index already holds this version, complete.

        Checked inside the write transaction: when another process (a second ``kb ingest``,
        ``kb watch``) wrote the same content (``content_hash``) of the same source since the
        caller looked, nothing is written (its chunks and vectors stay) and ``None`` is
        returned; ``chunks`` is then not consumed. A stored version waiting for model calls
        (``models_pending``) is replaced. ``warnings_after``: as ``insert_document``'s.

        Returns:
            The new document id, or ``None`` when the stored version was kept.
        """
        with self.write() as c:
            row = c.execute("SELECT content_hash, models_pending FROM documents WHERE source = ?",
                            (doc.source,)).fetchone()
            if row is not None and row[0] == doc.content_hash and not row[1]:
                return None
            return insert_document(c, doc, chunks, warnings_after)

    def record_file_stat(self, source: str, size: int, mtime: float, content_hash: str) -> None:
        """Record a file's size (bytes) and modification time (Unix s), its content unchanged.

        After ``touch``, a checkout or an editor saving the same text: it is not stale. Only
        while the stored version has ``content_hash`` (another ingest may have replaced it).
        """
        with self.write(bump=False) as c:  # no search result changes
            c.execute("UPDATE documents SET size = ?, mtime = ? WHERE source = ? AND "
                      "content_hash = ?", (size, mtime, source, content_hash))

    def delete_document(self, source: str) -> bool:
        """Delete a document with its chunks, FTS rows, vectors and tags; ``False`` if absent."""
        with self.write() as c:
            return delete_source(c, source) is not None

    def count_pending_models(self) -> int:
        """Documents whose model stages are unfinished (status ``pending_models``)."""
        return int(self.conn.execute(
            "SELECT count(*) FROM documents WHERE models_pending").fetchone()[0])

    def refresh_status(self) -> None:
        """Set each document's status from its chunks' vectors.

        ``pending_models`` when the document's model stages are unfinished (the next ingest
        redoes it), else ``indexed`` when every chunk has a vector of the stored embedder
        fingerprint, else ``pending_vectors``.
        """
        fp = self.get_meta(MetaKey.LIVE_FINGERPRINT) or ""
        with self.write() as c:
            c.execute(DOCUMENT_STATUS_SQL, (fp,))

    # Chunks

    def chunks(self, ids: Sequence[int]) -> dict[int, Chunk]:
        """Chunks by id (missing ids are absent from the result)."""
        return self.chunk_rows(ids, None)[0]

    def situated_documents(self) -> tuple[int, int]:
        """Documents with at least one situated chunk, and all documents.

        A chunk is situated when its context prefix has a second line: the LLM's situating
        sentence after title and heading path (``kb.ingest.contextualize``).
        """
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM documents d WHERE EXISTS (SELECT 1 FROM chunks c "
            "WHERE c.doc_id = d.id AND instr(c.context_prefix, char(10)) > 0)), "
            "(SELECT count(*) FROM documents)").fetchone()
        return int(row[0]), int(row[1])

    def counts_chunks(self) -> int:
        """Number of chunks."""
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def live_vectors(self, fingerprint: str) -> int:
        """Chunks holding a vector of ``fingerprint``, cached until the next write."""
        gen = self.generation()
        cached = self._live  # one read: another thread may replace it meanwhile
        if cached[0] == gen and cached[1] == fingerprint:
            return cached[2]
        n = count_live(self.conn, fingerprint)  # the fingerprint index alone
        self._live = (gen, fingerprint, n)
        return n

    def doc_ids_of(self, chunk_ids: Sequence[int]) -> dict[int, int]:
        """Document id of each chunk id."""
        out: dict[int, int] = {}
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start:start + 500])
            out.update(self.conn.execute(
                f"SELECT id, doc_id FROM chunks WHERE id IN ({','.join('?' * len(part))})",
                part).fetchall())
        return out

    def counts(self) -> dict[str, int]:
        """Row counts: documents, chunks, fts rows, chunks with vectors."""
        q = self.conn.execute
        return {
            "documents": q("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": q("SELECT count(*) FROM chunks").fetchone()[0],
            "fts_rows": q("SELECT count(*) FROM chunks_fts").fetchone()[0],
            "vectors": q("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone()[0],
        }
