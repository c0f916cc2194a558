"""The store's read-only search primitives: FTS5 BM25, the LIKE fallback, the vector matrix.

``Store`` (``kb.store``) inherits these; they only read, through the calling thread's reader
connection, and cache what is costly to load (the vector matrix, documents' creation times)
until the index ``generation`` changes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np


@dataclass(frozen=True, slots=True)
class Filters:
    """Scope of a search, applied inside each search before any top-k cut.

    Attributes:
        sources: keep chunks whose document source equals, or starts with, one of these.
        source_types: keep chunks whose document type is one of these.
    """

    sources: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] | None = None

    @property
    def active(self) -> bool:
        """Whether any restriction is set."""
        return bool(self.sources or self.source_types or self.doc_ids is not None)

    def sql(self) -> tuple[str, list[str]]:
        """A ``WHERE`` fragment over alias ``d`` (documents) and its parameters."""
        parts: list[str] = []
        params: list[str] = []
        if self.sources:
            ors = []
            for s in self.sources:
                ors.append("(d.source = ? OR substr(d.source, 1, length(?)) = ?)")
                params += [s, s, s]
            parts.append("(" + " OR ".join(ors) + ")")
        if self.source_types:
            parts.append(f"d.source_type IN ({','.join('?' * len(self.source_types))})")
            params += list(self.source_types)
        if self.doc_ids is not None:
            parts.append("d.id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(list(self.doc_ids)))
        return (" AND ".join(parts) or "1"), params


@dataclass(frozen=True, slots=True)
class VectorMatrix:
    """All stored vectors of one fingerprint, for an exact numpy scan.

    Attributes:
        chunk_ids: shape (n,), int64.
        doc_ids: shape (n,), int64.
        matrix: shape (n, dim), float32, rows L2-normalised.
    """

    chunk_ids: np.ndarray
    doc_ids: np.ndarray
    matrix: np.ndarray


class SearchPrimitives:
    """Searches over a kb database; mixed into ``kb.store.Store``, which provides the state."""

    _vectors: dict[str, tuple[int, VectorMatrix]]
    _created: tuple[int, dict[int, datetime]]

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's reader connection (``Store.conn``)."""
        raise NotImplementedError

    def generation(self) -> int:
        """The index generation (``Store.generation``)."""
        raise NotImplementedError

    def fts_search(self, match: str, limit: int, filters: Filters = Filters()
                   ) -> list[tuple[int, float]]:
        """BM25 search over FTS5.

        Args:
            match: a *safe* MATCH expression (see ``kb.textindex.match_expression``).
            limit: maximum hits, cut after filtering.
            filters: scope applied in the same query, before the cut.

        Returns:
            (chunk id, BM25 score) best first; the score is FTS5's ``bm25()`` negated so that
            higher is better, range [0, inf).

        Raises:
            sqlite3.OperationalError: FTS5 rejected the expression.
        """
        if not filters.active:  # FTS5 alone: no join to evaluate for every match (2x faster)
            rows = self.conn.execute(
                "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY rank, rowid LIMIT ?", (match, limit)).fetchall()
            return [(int(r[0]), float(r[1])) for r in rows]
        where, params = filters.sql()
        rows = self.conn.execute(
            "SELECT f.rowid, -bm25(chunks_fts) AS s FROM chunks_fts f "
            "JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.doc_id "
            f"WHERE chunks_fts MATCH ? AND {where} ORDER BY s DESC, f.rowid LIMIT ?",
            [match, *params, limit]).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

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
            "SELECT id, doc_id, embedding FROM chunks WHERE embedding_fingerprint = ? "
            "AND embedding IS NOT NULL ORDER BY id", (fingerprint,)).fetchall()
        if rows:
            matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4")
            matrix = matrix.reshape(len(rows), -1).astype(np.float32)
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
        vm = VectorMatrix(np.array([r[0] for r in rows], dtype=np.int64),
                          np.array([r[1] for r in rows], dtype=np.int64), matrix)
        self._vectors = {fingerprint: (gen, vm)}
        return vm

    def created_at_map(self) -> dict[int, datetime]:
        """Document id -> timezone-aware creation time, cached until the next write."""
        gen = self.generation()
        if self._created[0] != gen:
            out = {}
            for doc_id, raw in self.conn.execute("SELECT id, created_at FROM documents"):
                t = datetime.fromisoformat(raw)
                out[int(doc_id)] = t if t.tzinfo else t.replace(tzinfo=UTC)
            self._created = (gen, out)
        return self._created[1]

    def doc_ids_matching(self, filters: Filters) -> np.ndarray:
        """Ids of documents inside ``filters`` (int64 array)."""
        where, params = filters.sql()
        rows = self.conn.execute(f"SELECT d.id FROM documents d WHERE {where}", params)
        return np.array([r[0] for r in rows], dtype=np.int64)
