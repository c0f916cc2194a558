"""Computed document vectors kept in ``embedding_cache``, so an unchanged text is embedded once.

Rows are keyed by ``kb.embedding``'s cache key (sha256 of the fingerprint and the text
as embedded) and hold float32 BLOBs (``kb.store.codec``). Inserts do not bump the store's
generation: no cached index data depends on this table, so cached vector matrices stay warm.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kb.store import Store
from kb.store.codec import blob_to_vector, vector_to_blob

_BATCH = 500  # keys per statement, below SQLite's default limit of 999 parameters


def cached_vectors(store: Store, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The cached vector of each key found (absent keys are left out), float32, shape (d,)."""
    found: dict[str, np.ndarray] = {}
    for start in range(0, len(keys), _BATCH):
        part = list(keys[start:start + _BATCH])
        rows = store.conn.execute(
            f"SELECT key, vector FROM embedding_cache WHERE key IN ({','.join('?' * len(part))})",
            part)
        found.update({k: blob_to_vector(v) for k, v in rows})
    return found


def cache_vectors(store: Store, items: Sequence[tuple[str, np.ndarray]]) -> None:
    """Store (key, vector) pairs in one transaction; a read-only file is left as it is.

    Raises:
        kb.errors.StoreError: a storage fault (disk full) ended the write.
    """
    if store.read_only:  # a read-only file is searched without caching
        return
    with store.write(bump=False) as c:
        c.executemany("INSERT OR REPLACE INTO embedding_cache(key, vector) VALUES (?, ?)",
                      [(k, vector_to_blob(v)) for k, v in items])
