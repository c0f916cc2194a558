"""Chunks still waiting for their vector: noted, and past a share, no vector search at all.

Text is stored first and vectors follow (DESIGN: embeddings enhance the index, never gate it):
during an ingest, or when vectors were left to ``kb reembed``, some chunks have none. A search
still finds them by their keywords; the caller is told how many are waiting.
"""

from __future__ import annotations

from kb.embedding import EmbeddingService
from kb.retrieve.trace import Trace
from kb.store import Store

# Past this share of chunks without a vector, a search is BM25 only: with vectors nulled at
# random in the eval caches, hybrid nDCG@10 fell to BM25's at 30% missing on scifact-small
# (0.8773 against 0.8759; 0.9124 with all vectors) and below it at 35% on cmrc2018-small
# (0.9708 against 0.9747; 0.9943 with all), session 7, 2026-12-01 (bench/README.md).
PENDING_VECTORS_MAX_SHARE = 0.3


def too_few_vectors(store: Store, service: EmbeddingService, trace: Trace) -> bool:
    """Whether too many chunks lack a vector of ``service`` to search vectors at all.

    Chunks without one are found by keywords alone, and a degraded note in ``trace`` says how
    many; from ``PENDING_VECTORS_MAX_SHARE`` of the chunks on, the search is BM25 only (and
    the note says so): fused with vectors of part of the index, the embedded chunks outrank
    the others. Two counts, cached per generation (``Store.script_mix``,
    ``Store.live_vectors``).

    Returns:
        ``True``: search BM25 only.
    """
    total = store.script_mix()[1]
    missing = total - store.live_vectors(service.fingerprint.key)
    if missing <= 0:
        return False
    model = service.embedder.model_id
    if missing >= PENDING_VECTORS_MAX_SHARE * total:
        trace.degraded.append(
            f"vectors: {missing:,} of {total:,} chunks have no vector from {model} yet, too "
            "many to mix with keywords (an ingest still running adds them; else run the "
            "ingest again, or `kb reembed`); BM25 only")
        return True
    trace.degraded.append(
        f"vectors: {missing:,} of {total:,} chunks have no vector from {model} yet and are "
        "found by keywords alone (an ingest still running adds them; else run the ingest "
        "again, or `kb reembed`)")
    # (with ``recall="vector"`` they are not found at all: that setting's own choice)
    return False
