"""What ``kb status`` reports: counts, models, the judge threshold in use, a re-embed, integrity.

``index_status`` assembles the ``Status`` of an open knowledge base (``KnowledgeBase.status``).
"""

from __future__ import annotations

from pathlib import Path

from kb.config import scale_warning
from kb.embedding import EmbedderState
from kb.retrieve.calibration import judge_threshold_in_use
from kb.store import Store, vectors
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
        warnings=tuple(w for w in (scale_warning(counts["chunks"]),) if w),
    )


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
