"""The store's read-only search primitives: FTS5 BM25, the LIKE fallback, the vector matrix.

``Store`` (``kb.store``) inherits these; they only read, through the calling thread's reader
connection, and cache what is costly to load (the vector matrix, documents' creation times)
until the index ``generation`` changes.

``snapshot()`` holds one read transaction on that connection, so every read inside it (and every
cached object, which is keyed by the generation read inside it) sees the same committed state
of the file: a document committed by another connection or process half-way through a search is
either wholly visible to it or not at all (WAL: https://sqlite.org/wal.html#concurrency).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

import numpy as np

from kb.store.codec import blob_to_vector
from kb.store.health import fts_row_count
from kb.store.textindex import phrase_counts, phrase_expression
from kb.types import Chunk, folder_prefix

# ``Store.phrase_chunks_by_doc`` reads at most this many chunks' bodies a call
PHRASE_SCAN_CHUNKS_MAX = 500


@dataclass(frozen=True, slots=True)
class Filters:
    """Scope of a search, applied inside each search before any top-k cut.

    Attributes:
        sources: keep chunks whose document source is one of these or under it (folder_prefix).
        source_types: keep chunks whose document type is one of these.
        doc_ids: keep chunks of these documents; ``None``: no such restriction.
        tag_keys: keep chunks whose document carries at least one of these tags, given as
            ``kb.types.tag_key`` gives them (case-folded); a key no document carries keeps none.
    """

    sources: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] | None = None
    tag_keys: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """Whether any restriction is set."""
        return bool(self.sources or self.source_types or self.doc_ids is not None
                    or self.tag_keys)

    def sql(self) -> tuple[str, list[str]]:
        """A ``WHERE`` fragment over alias ``d`` (documents) and its parameters."""
        parts: list[str] = []
        params: list[str] = []
        if self.sources:
            ors = []
            for s in self.sources:  # a folder holds what lies under it, not a sibling
                ors.append("(d.source = ? OR substr(d.source, 1, length(?)) = ?)")
                params += [s, folder_prefix(s), folder_prefix(s)]
            parts.append("(" + " OR ".join(ors) + ")")
        if self.source_types:
            parts.append(f"d.source_type IN ({','.join('?' * len(self.source_types))})")
            params += list(self.source_types)
        if self.doc_ids is not None:
            parts.append("d.id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(list(self.doc_ids)))
        if self.tag_keys:  # any of them: index document_tags_key, one range read per tag
            parts.append("d.id IN (SELECT doc_id FROM document_tags WHERE tag_key IN "
                         f"({','.join('?' * len(self.tag_keys))}))")
            params += list(self.tag_keys)
        return (" AND ".join(parts) or "1"), params


@dataclass(frozen=True, slots=True)
class VectorMatrix:
    """All stored vectors of one fingerprint, for an exact numpy scan.

    Attributes:
        chunk_ids: shape (n,), int64.
        doc_ids: shape (n,), int64.
        matrix: shape (n, dim), float32, rows L2-normalised.
        groups: shape (n,), int8: each chunk's baseline group (``baseline_group``), or
            ``None`` (all in group 0).
    """

    chunk_ids: np.ndarray
    doc_ids: np.ndarray
    matrix: np.ndarray
    groups: np.ndarray | None = None


class ChunkSpan(NamedTuple):
    """A document's chunks: how many, and the lowest and highest chunk id among them."""

    chunks: int
    first_id: int
    last_id: int


class FtsRow(NamedTuple):
    """One BM25 hit.

    Attributes:
        chunk_id: the chunk (the FTS row id).
        score: FTS5's ``bm25()`` negated, higher is better, in [0, inf).
        matched: the index tokens of the chunk that matched the expression, when asked
            for (``kb.retrieve.tiers.tiered_search``); else empty.
    """

    chunk_id: int
    score: float
    matched: frozenset[str] = frozenset()


MULTIBYTE_RATIO = 1.5  # UTF-8 bytes per character: Latin text is about 1.0, Cyrillic 2, CJK 3
SHORT_CHUNK_CHARS = 80  # under 80: a navigation line or heading (issue 13 counted such chunks)
# A chunk's baseline group, computed by SQLite from the text alone: bit 0 = mostly non-Latin
# script (UTF-8 needs >= 1.5 bytes per character: Cyrillic, Greek, Arabic, CJK, Thai...),
# bit 1 = shorter than SHORT_CHUNK_CHARS. An embedding model puts such chunks at other cosines.
BASELINE_GROUP_SQL = (f"((length(CAST(text AS BLOB)) >= {MULTIBYTE_RATIO} * length(text)) "
                      f"+ 2 * (length(text) < {SHORT_CHUNK_CHARS}))")


class SearchPrimitives:
    """Searches over a kb database; mixed into ``kb.store.Store``, which provides the state."""

    _vectors: dict[str, tuple[int, VectorMatrix]]
    _created: tuple[int, dict[int, datetime]]
    _mix: tuple[int, tuple[int, int]]

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's reader connection (``Store.conn``)."""
        raise NotImplementedError

    def generation(self) -> int:
        """The index generation (``Store.generation``)."""
        raise NotImplementedError

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction on this thread's connection for the block: one snapshot.

        In WAL mode a reader keeps the snapshot of its transaction's first read until the
        transaction ends, and never waits for a writer. Nested use joins the open transaction.
        The transaction is ended (it wrote nothing) when the block ends, however it ends.
        """
        conn = self.conn
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error:  # e.g. interrupted: nothing was written, end it anyway
                    conn.execute("ROLLBACK")

    def fts_search(self, match: str, limit: int, filters: Filters = Filters()) -> list[FtsRow]:
        """BM25 search over FTS5.

        Args:
            match: a *safe* MATCH expression (see ``kb.store.textindex.match_expression``).
            limit: maximum hits, cut after filtering.
            filters: scope applied in the same query, before the cut.

        Returns:
            Hits best first (``FtsRow``, ``matched`` empty).

        Raises:
            sqlite3.OperationalError: FTS5 rejected the expression.
        """
        if not filters.active:  # FTS5 alone: no join to evaluate for every match (2x faster)
            rows = self.conn.execute(
                "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY rank, rowid LIMIT ?", (match, limit)).fetchall()
        else:
            where, params = filters.sql()
            rows = self.conn.execute(
                "SELECT f.rowid, -bm25(chunks_fts) AS s FROM chunks_fts f "
                "JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.doc_id "
                f"WHERE chunks_fts MATCH ? AND {where} ORDER BY s DESC, f.rowid LIMIT ?",
                [match, *params, limit]).fetchall()
        return [FtsRow(int(r[0]), float(r[1])) for r in rows]

    def fts_bodies(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """Chunk id -> its index body (index tokens joined by spaces, ``textindex.index_body``).

        Reads the FTS5 content by row id, one query (about 0.2 ms for 50 rows at 100k chunks;
        ``highlight()`` in the ranking query cost 3 ms, computed for every matching row).
        """
        if not chunk_ids:
            return {}
        return dict(self.conn.execute(
            "SELECT rowid, body FROM chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(list(chunk_ids)),)).fetchall())

    def fts_rows(self) -> int:
        """Rows in the full-text index, the chunk count ``bm25()`` uses (one read, no scan)."""
        return fts_row_count(self.conn)

    def count_matching(self, match: str) -> int:
        """How many chunks match a *safe* MATCH expression (a phrase's chunk frequency)."""
        return int(self.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                     (match,)).fetchone()[0])

    def like_search(self, needles: Sequence[str], limit: int, filters: Filters = Filters()
                    ) -> list[tuple[int, float]]:
        """Substring scan (the FTS fallback): chunks containing the most needles first.

        Returns:
            (chunk id, fraction of needles found in [0, 1]) best first.
        """
        if not needles:
            return []
        where, params = filters.sql()
        hits = " + ".join("(instr(lower(c.context_prefix || ' ' || c.text), ?) > 0)"
                          for _ in needles)
        lowered = [n.lower() for n in needles]
        rows = self.conn.execute(
            f"SELECT c.id, ({hits}) AS n FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE {where} AND ({hits}) > 0 ORDER BY n DESC, c.id LIMIT ?",
            [*lowered, *params, *lowered, limit]).fetchall()
        return [(int(r[0]), r[1] / len(needles)) for r in rows]

    def vector_matrix(self, fingerprint: str) -> VectorMatrix:
        """All vectors of ``fingerprint`` as one matrix, cached until the next write."""
        gen = self.generation()
        cached = self._vectors.get(fingerprint)
        if cached and cached[0] == gen:
            return cached[1]
        rows = self.conn.execute(
            f"SELECT id, doc_id, embedding, {BASELINE_GROUP_SQL} FROM chunks "
            "WHERE embedding_fingerprint = ? AND embedding IS NOT NULL ORDER BY id",
            (fingerprint,)).fetchall()
        if rows:
            matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4")
            matrix = matrix.reshape(len(rows), -1).astype(np.float32)
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
        vm = VectorMatrix(np.array([r[0] for r in rows], dtype=np.int64),
                          np.array([r[1] for r in rows], dtype=np.int64), matrix,
                          np.array([r[3] for r in rows], dtype=np.int8))
        self._vectors = {fingerprint: (gen, vm)}  # keyed by the generation it was read at
        return vm

    def has_vectors(self, fingerprint: str) -> bool:
        """Whether any chunk has a vector of ``fingerprint``."""
        return self.conn.execute(
            "SELECT 1 FROM chunks WHERE embedding_fingerprint = ? AND embedding IS NOT NULL "
            "LIMIT 1", (fingerprint,)).fetchone() is not None

    def chunk_rows(self, chunk_ids: Sequence[int], fingerprint: str | None
                   ) -> tuple[dict[int, Chunk], dict[int, np.ndarray]]:
        """Chunk rows by id, and the stored vectors of ``fingerprint`` among them, in one read.

        Args:
            chunk_ids: the chunks wanted (missing ids are absent from both results).
            fingerprint: whose vectors to return, or ``None`` for none.

        Returns:
            Chunk id -> chunk, and chunk id -> float32 vector (chunks without a vector of
            ``fingerprint`` are left out).
        """
        chunks: dict[int, Chunk] = {}
        vectors: dict[int, np.ndarray] = {}
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start:start + 500])
            rows = self.conn.execute(
                "SELECT id, doc_id, chunk_index, text, context_prefix, char_start, char_end, "
                "page, heading_path, embedding IS NOT NULL, CASE WHEN embedding_fingerprint = ? "
                "THEN embedding END, COALESCE(page_end, page) FROM chunks "
                f"WHERE id IN ({','.join('?' * len(part))})", [fingerprint, *part]).fetchall()
            for r in rows:
                chunks[r[0]] = Chunk(id=r[0], doc_id=r[1], chunk_index=r[2], text=r[3],
                                     context_prefix=r[4], char_start=r[5], char_end=r[6],
                                     page=r[7], page_end=r[11], has_embedding=bool(r[9]),
                                     heading_path=tuple(json.loads(r[8])))
                if r[10] is not None:
                    vectors[int(r[0])] = blob_to_vector(r[10])
        return chunks, vectors

    def token_chunk_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """Index token -> number of chunks holding it (FTS5 vocabulary); absent tokens omitted."""
        out: dict[str, int] = {}
        unique = sorted(set(tokens))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            out.update(self.conn.execute(
                f"SELECT term, doc FROM chunks_vocab WHERE term IN ({','.join('?' * len(part))})",
                part).fetchall())
        return out

    def doc_chunk_spans(self, doc_ids: Sequence[int]) -> dict[int, ChunkSpan]:
        """Document id -> its chunk count and chunk id range (``ChunkSpan``), one query.

        Documents without chunks are omitted. Read on the ``chunks_doc`` index.
        """
        ids = sorted(set(doc_ids))
        if not ids:
            return {}
        return {int(d): ChunkSpan(int(n), int(lo), int(hi)) for d, n, lo, hi in self.conn.execute(
            "SELECT doc_id, count(*), min(id), max(id) FROM chunks "
            f"WHERE doc_id IN ({','.join('?' * len(ids))}) GROUP BY doc_id", ids)}

    def phrase_chunks_by_doc(self, phrases: Mapping[str, Sequence[str]],
                             spans: Mapping[int, ChunkSpan], *,
                             scan_chunks_max: int = PHRASE_SCAN_CHUNKS_MAX
                             ) -> dict[tuple[int, str], int]:
        """(document id, key) -> chunks of that document matching the key's phrase.

        The smallest documents, while their chunks add up to at most ``scan_chunks_max``, are
        counted in their index bodies, read in one query (``textindex.phrase_counts``: 0.4 ms
        for ten SciFact documents and eight phrases at 100k chunks). FTS5 counts in the others,
        and in those whose body or phrase holds a token it might read otherwise
        (``textindex.fts_plain``): a query per document and phrase over the document's chunk
        id range (eight phrases: 1.7 ms for ten SciFact documents at 100k chunks, where a MATCH
        constrained to their chunk ids took 9-27; 0.9 ms for a book of 5,320 chunks, whose
        bodies took 25-40 ms and that MATCH 1.5 s). Both give FTS5's counts.

        Args:
            phrases: key -> index tokens in order (a phrase of one token: a term).
            spans: the documents to count in, with their chunk spans (``doc_chunk_spans``).
            scan_chunks_max: at most this many chunks are read as bodies (>= 0).

        Raises:
            sqlite3.OperationalError: the full-text index failed, or the read was interrupted.
        """
        scanned: list[int] = []
        for d in sorted(spans, key=lambda d: (spans[d].chunks, d)):
            if sum(spans[s].chunks for s in scanned) + spans[d].chunks > scan_chunks_max:
                break
            scanned.append(d)
        out: dict[tuple[int, str], int] = {}
        left = set(spans) - set(scanned)
        if scanned:
            rows = self.conn.execute(
                "SELECT c.doc_id, f.body FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                "WHERE f.rowid IN (SELECT id FROM chunks WHERE doc_id IN "
                f"({','.join('?' * len(scanned))}))", scanned).fetchall()
            out, unplain = phrase_counts(((int(d), body) for d, body in rows), phrases)
            left |= unplain
        for doc_id in sorted(left):
            _, lo, hi = spans[doc_id]
            for key, tokens in phrases.items():
                # CROSS JOIN: FTS5 first, seeking the range in its posting lists
                (n,) = self.conn.execute(
                    "SELECT count(*) FROM chunks_fts f CROSS JOIN chunks c ON c.id = f.rowid "
                    "WHERE chunks_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND c.doc_id = ?",
                    (phrase_expression(tokens), lo, hi, doc_id)).fetchone()
                if n:
                    out[(doc_id, key)] = int(n)
        return out

    def script_mix(self) -> tuple[int, int]:
        """(chunks holding Han characters, all chunks), cached until the next write."""
        gen = self.generation()
        cached = self._mix  # one read: another thread may replace it meanwhile
        if cached[0] == gen:
            return cached[1]
        row = self.conn.execute(
            "SELECT coalesce(sum(text GLOB '*[\u3400-\u9fff]*'), 0), count(*) FROM chunks"
        ).fetchone()
        mix = (int(row[0]), int(row[1]))
        self._mix = (gen, mix)
        return mix

    def created_at_map(self) -> dict[int, datetime]:
        """Document id -> timezone-aware creation time, cached until the next write."""
        gen = self.generation()
        cached = self._created  # one read: another thread may replace it meanwhile
        if cached[0] == gen:
            return cached[1]
        out = {}
        for doc_id, raw in self.conn.execute("SELECT id, created_at FROM documents"):
            t = datetime.fromisoformat(raw)
            out[int(doc_id)] = t if t.tzinfo else t.replace(tzinfo=UTC)
        self._created = (gen, out)
        return out

    def any_document(self, filters: Filters) -> bool:
        """Whether at least one document is inside ``filters``."""
        where, params = filters.sql()
        return self.conn.execute(f"SELECT 1 FROM documents d WHERE {where} LIMIT 1",
                                 params).fetchone() is not None

    def doc_ids_matching(self, filters: Filters) -> np.ndarray:
        """Ids of documents inside ``filters`` (int64 array)."""
        where, params = filters.sql()
        rows = self.conn.execute(f"SELECT d.id FROM documents d WHERE {where}", params)
        return np.array([r[0] for r in rows], dtype=np.int64)
