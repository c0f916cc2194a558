"""The Python API: ``KnowledgeBase(path)``, composing the store, ingest and retrieval.

>>> with KnowledgeBase("notes.kb") as kb:          # doctest: +SKIP
...     kb.ingest(["docs/"])
...     result = kb.search("how do I rotate the keys?")
...     print(result.context)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ingest.pipeline import ProgressFn, ingest_paths
from kb.backends import LLM, Embedder, Reranker
from kb.backends.embedding import EmbeddingService
from kb.backends.registry import make_embedder, make_llm, make_reranker, server_model_id
from kb.config import Config, SearchOptions
from kb.errors import BackendError, DocumentNotFound, FingerprintMismatch
from kb.store import Store
from kb.types import Document, IngestReport, SearchResult
from retrieve.pipeline import Engines
from retrieve.pipeline import search as run_search

EMBEDDER_KEY = "embedder_fingerprint"
EMBEDDER_DESCRIPTION = "embedder_description"
EMBEDDER_RETRY_S = 60.0  # a failed embedder is retried after the circuit breaker's cooldown


class KnowledgeBase:
    """One knowledge base in one SQLite file.

    Args:
        path: the database file (created if absent).
        config: embedder spec, chunk and embedding settings.
        embedder: an Embedder object to use instead of ``config.embedder``'s spec.
        llm: optional chat model (expansion, LLM rerank).
        reranker: optional cross-encoder.

    Raises:
        kb.errors.StoreError: the file cannot be opened as a kb database.
    """

    def __init__(self, path: Path | str, config: Config | None = None, *,
                 embedder: Embedder | None = None, llm: LLM | None = None,
                 reranker: Reranker | None = None) -> None:
        self.config = config or Config()
        self.store = Store(path)
        self.llm = llm
        self.reranker = reranker
        self._lock = threading.RLock()
        self._service: EmbeddingService | None = None
        self._problem: str | None = None
        self._retry_at = 0.0  # monotonic time before which a failed embedder is not retried
        self._embedder = embedder
        self.problems: list[str] = []
        if llm is None and self.config.llm:
            try:
                self.llm = make_llm(self.config.llm, ollama_host=self.config.ollama_host,
                                    api_key=self.config.api_key)
            except (BackendError, ValueError) as exc:
                self.problems.append(f"LLM unavailable ({exc})")
        if reranker is None and self.config.reranker:
            try:
                self.reranker = make_reranker(self.config.reranker, api_key=self.config.api_key)
            except (BackendError, ValueError) as exc:
                self.problems.append(f"reranker unavailable ({exc})")

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    # --- embedder ----------------------------------------------------------------------------

    def _embedding(self) -> tuple[EmbeddingService | None, str | None]:
        with self._lock:
            if self._service is None and time.monotonic() >= self._retry_at:
                self._retry_at = time.monotonic() + EMBEDDER_RETRY_S
                try:
                    embedder = self._embedder or make_embedder(
                        self.config.embedder, ollama_host=self.config.ollama_host,
                        api_key=self.config.api_key, dimensions=self._stored_dimensions())
                    self._problem = None if embedder else "no embedder configured"
                except BackendError as exc:
                    embedder, self._problem = None, f"embedder unavailable ({exc})"
                if embedder is not None:
                    self._service = EmbeddingService(embedder, self.store, self.config.chunk,
                                                     self.config.embed)
            return self._service, self._problem

    def _stored_dimensions(self) -> int | None:
        """Vector length of the stored fingerprint when it belongs to the configured model."""
        key, _ = self._stored_fingerprint()
        model = server_model_id(self.config.embedder)
        if key is None or model is None:
            return None
        stored_model, dims, _ = key.rsplit("/", 2)
        return int(dims) if stored_model == model and dims.isdigit() else None

    def _stored_fingerprint(self) -> tuple[str | None, str]:
        return (self.store.get_meta(EMBEDDER_KEY),
                self.store.get_meta(EMBEDDER_DESCRIPTION) or "unknown model")

    def _check_fingerprint(self, service: EmbeddingService) -> FingerprintMismatch | None:
        key, description = self._stored_fingerprint()
        if key is None or key == service.fingerprint.key:
            return None
        if self.store.counts()["vectors"] == 0:
            return None
        return FingerprintMismatch(description, service.fingerprint.description)

    def _claim_fingerprint(self, service: EmbeddingService) -> None:
        self.store.set_meta(EMBEDDER_KEY, service.fingerprint.key)
        self.store.set_meta(EMBEDDER_DESCRIPTION, service.fingerprint.description)

    # --- ingest ------------------------------------------------------------------------------

    def ingest(self, paths: Iterable[Path | str], *, sync: bool = False,
               on_progress: ProgressFn | None = None) -> IngestReport:
        """Ingest files and folders (recursively); see ``ingest.pipeline``.

        Raises:
            FileNotFoundError: a given path does not exist.
            kb.errors.FingerprintMismatch: the index holds vectors of another model.
        """
        service, problem = self._embedding()
        if service is not None:
            mismatch = self._check_fingerprint(service)
            if mismatch:
                raise mismatch
            self._claim_fingerprint(service)
        with self._lock:
            return ingest_paths(self.store, paths, chunk=self.config.chunk, service=service,
                                sync=sync, on_progress=on_progress,
                                no_vectors_reason=problem or "no embedder configured")

    def sync(self, paths: Iterable[Path | str], *,
             on_progress: ProgressFn | None = None) -> IngestReport:
        """Ingest folders and remove documents whose files are gone from them."""
        return self.ingest(paths, sync=True, on_progress=on_progress)

    def reembed(self, *, on_progress: ProgressFn | None = None) -> IngestReport:
        """Embed every chunk lacking a vector of the configured model (also after a switch).

        Raises:
            kb.errors.BackendUnavailable: no embedder can be loaded.
        """
        service, problem = self._embedding()
        if service is None:
            raise BackendError(f"cannot re-embed: {problem}", backend=self.config.embedder)
        self._claim_fingerprint(service)
        with self._lock:
            return ingest_paths(self.store, [], chunk=self.config.chunk, service=service,
                                on_progress=on_progress)

    # --- query -------------------------------------------------------------------------------

    def search(self, query: str, options: SearchOptions | None = None, **kwargs: Any
               ) -> SearchResult:
        """Search; see ``retrieve.pipeline.search``. Keyword arguments build ``SearchOptions``.

        Never raises for search-time failures (the result carries the reason).

        Raises:
            ValueError: malformed options.
        """
        options = options or SearchOptions(**kwargs)
        service, problem = self._embedding()
        if service is not None:
            mismatch = self._check_fingerprint(service)
            if mismatch:
                service, problem = None, f"fingerprint mismatch: {mismatch}"
        engines = Engines(embedding=service, embedding_problem=problem, llm=self.llm,
                          reranker=self.reranker)
        return run_search(self.store, query, options, engines=engines)

    def context(self, query: str, options: SearchOptions | None = None, **kwargs: Any) -> str:
        """The context block for ``query`` (references + answer-only-from-these instruction)."""
        return self.search(query, options, **kwargs).context

    # --- documents ---------------------------------------------------------------------------

    def documents(self) -> list[Document]:
        """All documents, ordered by source."""
        return self.store.documents()

    def remove(self, ref: str) -> Document:
        """Delete a document (by id, or source path) with its chunks, FTS rows and vectors.

        Raises:
            kb.errors.DocumentNotFound: nothing matches ``ref``.
        """
        doc = None
        if ref.isdigit():
            doc = self.store.get_document(doc_id=int(ref))
        if doc is None:
            doc = self.store.get_document(source=ref) or self.store.get_document(
                source=str(Path(ref).expanduser().resolve()))
        if doc is None:
            raise DocumentNotFound(ref)
        self.store.delete_document(doc.source)
        return doc

    def status(self) -> dict[str, Any]:
        """Counts, embedder, fingerprint state and integrity."""
        key, description = self._stored_fingerprint()
        counts = self.store.counts()
        return {
            "path": str(self.store.path),
            **counts,
            "vectors_pending": counts["chunks"] - counts["vectors"],
            "embedder_configured": self.config.embedder,
            "embedder_stored": description if key else None,
            "fts_integrity": "ok" if self.store.fts_integrity_ok() else "FAILED",
        }


__all__ = ["KnowledgeBase"]
