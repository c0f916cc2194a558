"""Backfill vectors for chunks that have none (or a stale fingerprint), outside any transaction.

Text is always committed before this runs, so a failing embedder costs vectors, never text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from kb.backends.embedding import EmbeddingService
from kb.store import vector_to_blob

log = logging.getLogger(__name__)
EMBED_PAGE = 64  # chunks read per round trip


def backfill_vectors(service: EmbeddingService,
                     on_progress: Callable[[str, int, int], None] | None = None
                     ) -> tuple[int, str | None]:
    """Embed every chunk lacking a vector of ``service``'s fingerprint.

    Each page of vectors is committed in its own short transaction after the model call.
    ``on_progress`` is called with (``"vectors"``, done, total) after each page.

    Returns:
        (vectors written, error message or ``None``). On a model failure the remaining chunks
        keep NULL vectors and the message says why; nothing is raised.
    """
    store, fp = service.store, service.fingerprint.key
    total = store.count_needing_vectors(fp)
    written = 0
    while True:
        rows = store.chunks_needing_vectors(fp, EMBED_PAGE)
        if not rows:
            return written, None
        texts = [f"{prefix}\n{text}" for _, prefix, text in rows]
        try:
            vectors = service.embed_documents(texts)
        except Exception as exc:  # any backend failure leaves NULL vectors, never lost text
            log.warning("embedding failed: %s", exc)
            return written, f"embedding failed ({type(exc).__name__}: {exc}); run `kb reembed`"
        store.set_vectors([(cid, vector_to_blob(v)) for (cid, _, _), v in zip(rows, vectors,
                                                                             strict=True)], fp)
        written += len(rows)
        if on_progress:
            on_progress("vectors", written, total)
