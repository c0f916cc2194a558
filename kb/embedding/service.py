"""What kb adds around any Embedder, written once: fingerprint, truncation gate, cache, batches.

* Fingerprint: model id, dimensions, prompt format and chunk parameters, hashed; stored with
  every vector so searches never mix models.
* Truncation gate: at most ``max_chars`` code points, then cut further until the model's own
  token limit holds (binary search on length using the model's tokenizer).
* Cache: ``embedding_cache`` rows (``kb.store.embedding_cache``) keyed by sha256(fingerprint +
  truncated text).
* Batches: by count and UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kb.backends import Embedder
from kb.config import ChunkSettings, EmbedSettings
from kb.store import Store
from kb.store.embedding_cache import cache_vectors, cached_vectors


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """Identity of a vector space.

    Attributes:
        key: short stable hash stored in ``chunks.embedding_fingerprint``.
        description: human-readable form naming the model (used in error messages).
    """

    key: str
    description: str


def fingerprint_of(embedder: Embedder, chunk: ChunkSettings) -> Fingerprint:
    """The fingerprint of ``embedder`` applied to chunks made with ``chunk`` settings."""
    spec = {
        "model": embedder.model_id,
        "dimensions": embedder.dimensions,
        "prompt_format": embedder.prompt_format,
        "chunk_target_chars": chunk.target_chars,
        "chunk_overlap_chars": chunk.overlap_chars,
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]
    return Fingerprint(
        key=f"{embedder.model_id}/{embedder.dimensions}/{digest}",
        description=f"{embedder.model_id} ({embedder.dimensions}-d)",
    )


class EmbeddingService:
    """Embeds documents and queries through one Embedder with kb's gate, cache and batching."""

    def __init__(self, embedder: Embedder, store: Store, chunk: ChunkSettings,
                 settings: EmbedSettings) -> None:
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.fingerprint = fingerprint_of(embedder, chunk)
        self._query_cache = lru_cache(maxsize=256)(self._embed_query_uncached)

    def truncate(self, text: str) -> str:
        """Cut ``text`` to the character gate, then to the model's token limit if known."""
        text = text[: self.settings.max_chars]
        limit = self.embedder.max_tokens
        count = self.embedder.token_count(text) if limit else None
        if limit is None or count is None or count <= limit:
            return text
        lo, hi = 0, len(text)  # longest prefix within the token limit
        while lo < hi:
            mid = (lo + hi + 1) // 2
            n = self.embedder.token_count(text[:mid])
            if n is not None and n <= limit:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]

    def _cache_key(self, text: str) -> str:
        return hashlib.sha256(f"{self.fingerprint.key}\0{text}".encode()).hexdigest()

    def batches(self, texts: Sequence[str]) -> Iterator[list[int]]:
        """Index lists of ``texts`` bounded by ``batch_size`` and ``batch_max_bytes``."""
        batch: list[int] = []
        size = 0
        for i, t in enumerate(texts):
            n = len(t.encode("utf-8"))
            if batch and (len(batch) >= self.settings.batch_size
                          or size + n > self.settings.batch_max_bytes):
                yield batch
                batch, size = [], 0
            batch.append(i)
            size += n
        if batch:
            yield batch

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for document texts, from the cache where possible.

        Returns:
            Shape (len(texts), dimensions), float32, rows L2-normalised.

        Raises:
            Exception: whatever the embedder raises; nothing is cached for a failed batch.
        """
        gated = [self.truncate(t) for t in texts]
        keys = [self._cache_key(t) for t in gated]
        out = np.zeros((len(texts), self.embedder.dimensions), dtype=np.float32)
        found = cached_vectors(self.store, keys)
        todo = [i for i, k in enumerate(keys) if k not in found]
        for i, k in enumerate(keys):
            if k in found:
                out[i] = found[k]
        for batch in self.batches([gated[i] for i in todo]):
            idx = [todo[j] for j in batch]
            vectors = self.embedder.embed_documents([gated[i] for i in idx])
            out[idx] = vectors
            cache_vectors(self.store, [(keys[i], out[i]) for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Vector for a query (memoised in process); shape (dimensions,)."""
        return self._query_cache(self.truncate(text))

    def _embed_query_uncached(self, text: str) -> np.ndarray:
        v = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        v.setflags(write=False)
        return v
