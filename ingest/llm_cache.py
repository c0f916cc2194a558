"""Ingest-time model replies cached in ``llm_cache``, so a re-ingest is reproducible.

The key is ``sha256(model_id + NUL + request)``, the same form the retrieval stages use for
their prompts; an image request names the image by the SHA-256 of its bytes. A failed call is
not cached. The model is called outside any transaction; only the insert is a (short) write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime

from kb.store import Store


def cache_key(model_id: str, request: str) -> str:
    """The ``llm_cache`` key of ``request`` sent to ``model_id``."""
    return hashlib.sha256(f"{model_id}\0{request}".encode()).hexdigest()


def cached_reply(store: Store, model_id: str, request: str, call: Callable[[], str]) -> str:
    """The cached reply to ``request``, else ``call()``'s, stored for next time.

    Args:
        store: the open store (its ``llm_cache`` table).
        model_id: the model answering, part of the key.
        request: the prompt as sent (plus, for an image, its digest).
        call: asks the model; runs only on a cache miss.

    Raises:
        Exception: whatever ``call`` raises (nothing is cached then).
    """
    key = cache_key(model_id, request)
    row = store.conn.execute("SELECT completion FROM llm_cache WHERE key = ?", (key,)).fetchone()
    if row:
        return str(row[0])
    reply = call()
    with store.write() as c:
        c.execute("INSERT OR REPLACE INTO llm_cache(key, model, completion, created_at) "
                  "VALUES (?, ?, ?, ?)", (key, model_id, reply, datetime.now(UTC).isoformat()))
    return reply
