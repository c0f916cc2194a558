"""What ``kb status`` reports: counts, models, the judge threshold in use, a re-embed, integrity.

``index_status`` assembles the ``Status`` of an open knowledge base (``KnowledgeBase.status``).
"""

from __future__ import annotations

from pathlib import Path

from kb.embedding import EmbedderState
from kb.retrieve.calibration import judge_threshold_in_use
from kb.store import Store, bitindex, vectors
from kb.types import Status


def index_status(store: Store, embedding: EmbedderState, embedder_configured: str) -> Status:
    """The ``Status`` of ``store``.

    ``judge_threshold`` (in [0, 1]) and ``judge_threshold_source`` (``shipped (...)`` or
    ``kb calibrate <date> on <set>``) are those of the stored vectors' model, or of the
    BM25-only judge when the index has none or the configured embedder is ``none``.

    Args:
        store: the open index.
        embedding: its embedder state (the stored model's key and description).
        embedder_configured: the configured embedder spec (``none`` for BM25 only).
    """
    key, description = embedding.stored()
    counts = store.counts()
    target = vectors.reembed_target(store)
    enabled = embedder_configured != "none"
    threshold, source = judge_threshold_in_use(store, key if enabled else None)
    index, due = vector_index_status(store, key if enabled else None)
    return Status(
        path=str(Path(store.path).absolute()),
        documents=counts["documents"], chunks=counts["chunks"],
        fts_rows=counts["fts_rows"], vectors=counts["vectors"],
        vectors_pending=counts["chunks"] - counts["vectors"] if enabled else 0,
        vectors_enabled=enabled,
        documents_pending_models=store.count_pending_models(),
        embedder_configured=embedder_configured,
        embedder_stored=description if key else None,
        judge_threshold=threshold,
        judge_threshold_source=source,
        reembed_target=target.description if target else None,
        reembed_staged=(counts["chunks"] - vectors.count_unstaged(store, target.key)
                        if target else 0),
        fts_integrity=fts_integrity(store),
        vector_index=index,
        warnings=(due,) if due else (),
    )


def vector_index_status(store: Store, key: str | None) -> tuple[str, str | None]:
    """What searches of ``key``'s vectors scan, and a warning when a bit index is due.

    Up to ``store.exact_scan_max_vectors`` live vectors: the exact scan; above, the bit index
    with its int8 codes (``kb.store.bitindex``) when it is in step, else the exact scan until
    the next ingest builds it (``bitindex.ensure``).

    Args:
        store: the open index.
        key: the stored vectors' fingerprint key; ``None`` when there are none or vectors are
            off.
    """
    if key is None:
        return "none (no vectors stored, or vectors off)", None
    live, limit = bitindex.count_live(store.conn, key), store.exact_scan_max_vectors
    if live <= limit:
        return f"exact scan ({live:,} live vectors, up to {limit:,})", None
    if bitindex.in_step(store.conn, key):
        return f"bit + int8 index ({live:,} live vectors, above {limit:,})", None
    return (f"exact scan, bit + int8 index due ({live:,} live vectors, above {limit:,})",
            f"{live:,} live vectors, above the exact scan's {limit:,}, and no bit + int8 index in "
            "step: searches scan them exactly until the next `kb ingest` builds it")


def fts_integrity(store: Store) -> str:
    """The full-text index's state: ``ok`` or ``FAILED``, with a note.

    FTS5's integrity-check (an INSERT), or, in a read-only file, the check made at open
    (``kb.store.health.fts_problem``).
    """
    if store.read_only:
        if store.fts_problem is not None:
            return f"FAILED ({store.fts_problem}; a read-only file: not rebuilt)"
        return "ok (read-only file: the check made at open)"
    if not store.fts_integrity_ok():
        return "FAILED (FTS5 integrity-check)"
    return f"ok (rebuilt at open: {store.fts_rebuilt})" if store.fts_rebuilt else "ok"
