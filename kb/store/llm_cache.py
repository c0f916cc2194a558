"""Model replies cached in ``llm_cache``, so expansion, reranking, ingest and evaluation repeat.

One cache for every stage that asks a model: query expansion and LLM reranking
(``retrieve``), situating sentences and image descriptions (``ingest``), answers and judgements
(``eval``). The key is ``sha256(model_id + NUL + request)``; an image request names the image
by the SHA-256 of its bytes. A failed call is not cached. The model is called outside any
transaction; only the insert is a (short) write, and it does not bump the store's generation:
no cached index data (vector matrix, creation times) depends on ``llm_cache``, so a new query's
expansion must not make the next search reload the vectors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from kb.backends import LLM
from kb.store import Store, now_utc


def cache_key(model_id: str, request: str) -> str:
    """The ``llm_cache`` key of ``request`` sent to ``model_id`` (64 hex digits)."""
    return hashlib.sha256(f"{model_id}\0{request}".encode()).hexdigest()


def cached_reply(store: Store, model_id: str, request: str, call: Callable[[], str], *,
                 accept: Callable[[str], bool] | None = None) -> str:
    """The cached reply to ``request``, else ``call()``'s, stored for next time.

    Args:
        store: the open store (its ``llm_cache`` table).
        model_id: the model answering, part of the key.
        request: the prompt as sent (plus, for an image, its digest).
        call: asks the model; runs only on a cache miss, outside any transaction.
        accept: when given, a reply it rejects (e.g. one the caller cannot parse) is returned
            but not cached, so the next run asks again instead of failing for good.

    Raises:
        Exception: whatever ``call`` raises (nothing is cached then).
    """
    key = cache_key(model_id, request)
    row = store.conn.execute("SELECT completion FROM llm_cache WHERE key = ?", (key,)).fetchone()
    if row and (accept is None or accept(str(row[0]))):
        return str(row[0])
    if row and not store.read_only:  # cached before ``accept`` existed, or unparsed: ask again
        with store.write(bump=False) as c:
            c.execute("DELETE FROM llm_cache WHERE key = ?", (key,))
    reply = call()
    if (accept is not None and not accept(reply)) or store.read_only:
        return reply
    with store.write(bump=False) as c:
        c.execute("INSERT OR REPLACE INTO llm_cache(key, model, completion, created_at) "
                  "VALUES (?, ?, ?, ?)", (key, model_id, reply, now_utc().isoformat()))
    return reply


def cached_complete(store: Store, llm: LLM, prompt: str, *, timeout_s: float,
                    accept: Callable[[str], bool] | None = None) -> str:
    """``llm``'s completion of ``prompt``, from ``llm_cache`` when present.

    ``accept`` as in ``cached_reply``.

    Raises:
        kb.errors.BackendError: the model call failed or timed out (nothing is cached).
    """
    return cached_reply(store, llm.model_id, prompt,
                        lambda: llm.complete(prompt, timeout_s=timeout_s), accept=accept)


class CachedLLM:
    """An LLM whose completions are read from and stored in a store's ``llm_cache``.

    What the pipeline stages take instead of the store: expansion, the LLM reranker and the
    evaluation's answerer and judge ask it, and only it touches the cache.

    Attributes:
        model_id: the wrapped model's id (part of every cache key).
    """

    def __init__(self, store: Store, llm: LLM) -> None:
        self.model_id = llm.model_id
        self._store = store
        self._llm = llm

    def complete(self, prompt: str, *, timeout_s: float,
                 accept: Callable[[str], bool] | None = None) -> str:
        """The cached completion of ``prompt``, asking the model only on a cache miss.

        ``accept`` as in ``cached_reply``: a reply it rejects is returned, not cached.

        Raises:
            kb.errors.BackendError: the model call failed or timed out (nothing is cached).
        """
        return cached_complete(self._store, self._llm, prompt, timeout_s=timeout_s,
                               accept=accept)
