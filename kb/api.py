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
from dataclasses import replace
from pathlib import Path
from typing import Any

from ingest.embed import ReembedReport, backfill_vectors, rebuild_vectors
from ingest.pipeline import ProgressFn, ingest_paths
from kb import vectorspace
from kb.answer import ANSWER_TIMEOUT_S, Answer, answer_question
from kb.backends import LLM, Embedder, Reranker, VisionModel
from kb.backends.embedding import EmbeddingService
from kb.backends.http import INGEST_RETRIES
from kb.backends.registry import (
    make_embedder,
    make_llm,
    make_reranker,
    make_vision,
    server_model_id,
)
from kb.config import Config, SearchOptions, scale_warning
from kb.errors import BackendError, DocumentNotFound, FingerprintMismatch, ReembedConflict
from kb.store import LIVE_FINGERPRINT_KEY, Store
from kb.types import Document, IngestReport, SearchResult
from kb.vectorspace import LIVE_DESCRIPTION_KEY, LIVE_SPEC_KEY, ReembedTarget
from retrieve.calibration import meta_key as calibration_key
from retrieve.pipeline import Engines
from retrieve.pipeline import search as run_search

EMBEDDER_KEY = LIVE_FINGERPRINT_KEY
EMBEDDER_DESCRIPTION = LIVE_DESCRIPTION_KEY
EMBEDDER_RETRY_S = 60.0  # a failed embedder is retried after the circuit breaker's cooldown
_STORED_LOCK = threading.Lock()  # builds the stored model's embedder once (searches mid-switch)


def _dimensions_of(key: str | None, model: str | None) -> int | None:
    """The vector length in fingerprint ``key`` (``model/dims/hash``) if it is ``model``'s."""
    if key is None or model is None or key.count("/") < 2:
        return None
    stored_model, dims, _ = key.rsplit("/", 2)
    return int(dims) if stored_model == model and dims.isdigit() else None


class KnowledgeBase:
    """One knowledge base in one SQLite file.

    Args:
        path: the database file (created if absent).
        config: embedder spec, chunk and embedding settings.
        embedder: an Embedder object to use instead of ``config.embedder``'s spec.
        llm: optional chat model (expansion, LLM rerank; at ingest, situating sentences).
        reranker: optional cross-encoder.
        vision: optional vision model describing images in PDF and DOCX files at ingest.

    Raises:
        kb.errors.StoreError: the file cannot be opened as a kb database.
    """

    def __init__(self, path: Path | str, config: Config | None = None, *,
                 embedder: Embedder | None = None, llm: LLM | None = None,
                 reranker: Reranker | None = None, vision: VisionModel | None = None) -> None:
        self.config = config or Config()
        self.store = Store(path)
        self.llm = llm
        self.ingest_llm = llm  # situating sentences; a given model object serves as it is
        self.reranker = reranker
        self.vision = vision
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
                # Ingest-time twin: retries transient failures; one breaker for both.
                self.ingest_llm = make_llm(self.config.llm, ollama_host=self.config.ollama_host,
                                           api_key=self.config.api_key, retries=INGEST_RETRIES,
                                           breaker=getattr(self.llm, "breaker", None))
            except (BackendError, ValueError) as exc:
                self.problems.append(f"LLM unavailable ({exc})")
        if vision is None and self.config.vision:
            try:
                self.vision = make_vision(self.config.vision, ollama_host=self.config.ollama_host,
                                          api_key=self.config.api_key)
            except (BackendError, ValueError) as exc:
                self.problems.append(f"vision model unavailable ({exc})")
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

    # Built on first use, for searches during a re-embed: (live key, service, problem, retry at).
    _stored_cache: tuple[str, EmbeddingService | None, str | None, float] | None = None

    def embedding_service(self) -> tuple[EmbeddingService | None, str | None]:
        """The configured embedder wrapped in kb's embedding service, built on first use.

        A failed build is retried after ``EMBEDDER_RETRY_S`` (the circuit breaker's cooldown).

        Returns:
            ``(service, None)``, or ``(None, reason)`` when no embedder is configured or it
            cannot be loaded now.
        """
        service = self._service
        if service is not None:  # no lock: a long ingest holding it must not stall a search
            return service, None
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
        """Vector length of a stored fingerprint of the configured server model, if any.

        The live fingerprint, else the re-embed target's; known dimensions save a probe call.
        """
        model = server_model_id(self.config.embedder)
        target = vectorspace.reembed_target(self.store)
        return (_dimensions_of(vectorspace.live_fingerprint(self.store), model)
                or _dimensions_of(target.key if target else None, model))

    def _stored_fingerprint(self) -> tuple[str | None, str]:
        return (self.store.get_meta(EMBEDDER_KEY),
                self.store.get_meta(EMBEDDER_DESCRIPTION) or "unknown model")

    def _stored_embedding(self) -> tuple[EmbeddingService | None, str | None]:
        """The live vectors' own model, rebuilt from the stored spec (searches mid-switch).

        Returns:
            (service, ``None``), or (``None``, why it cannot be used): no spec stored (the
            model was given as an object), the backend fails to load (retried after
            ``EMBEDDER_RETRY_S``), or the spec no longer yields the live fingerprint.
        """
        key = vectorspace.live_fingerprint(self.store)
        spec = self.store.get_meta(LIVE_SPEC_KEY)
        if key is None or spec is None:
            return None, "no embedder spec is stored for it"
        with _STORED_LOCK:
            cached = self._stored_cache
            if cached and cached[0] == key and (cached[1] or time.monotonic() < cached[3]):
                return cached[1], cached[2]
            service, problem = None, None
            try:
                embedder = make_embedder(
                    spec, ollama_host=self.config.ollama_host, api_key=self.config.api_key,
                    dimensions=_dimensions_of(key, server_model_id(spec)))
            except (BackendError, ValueError) as exc:
                embedder, problem = None, f"{spec}: {exc}"
            if embedder is not None:
                service = EmbeddingService(embedder, self.store, self.config.chunk,
                                           self.config.embed)
                if service.fingerprint.key != key:
                    service, problem = None, f"{spec} no longer gives the stored fingerprint"
            elif problem is None:
                problem = f"the stored spec is {spec!r}"
            self._stored_cache = (key, service, problem, time.monotonic() + EMBEDDER_RETRY_S)
            return service, problem

    def _check_fingerprint(self, service: EmbeddingService) -> FingerprintMismatch | None:
        """The error for using ``service`` on this index, or ``None`` when it may.

        It may when no model is claimed, it is the claimed one, no live vector exists, or a
        re-embed to it is in progress (its vectors are then staged, never mixed with the live
        ones; see ``ingest.embed.backfill_vectors``).
        """
        key, description = self._stored_fingerprint()
        if key is None or key == service.fingerprint.key:
            return None
        target = vectorspace.reembed_target(self.store)
        if target is not None and target.key == service.fingerprint.key:
            return None
        if not vectorspace.has_vectors(self.store):
            return None
        return FingerprintMismatch(description, service.fingerprint.description)

    def claim_fingerprint(self, service: EmbeddingService) -> None:
        """Make ``service``'s fingerprint the live one, recording its spec when it came from one.

        Does nothing while live vectors of another model exist: only ``reembed`` switches.
        """
        fp, live = service.fingerprint, vectorspace.live_fingerprint(self.store)
        if live is not None and live != fp.key and vectorspace.has_vectors(self.store):
            return
        spec = self.config.embedder if self._embedder is None else None
        if (live == fp.key and self.store.get_meta(EMBEDDER_DESCRIPTION) == fp.description
                and (spec is None or self.store.get_meta(LIVE_SPEC_KEY) == spec)):
            return  # unchanged: no write, so cached vector matrices stay warm
        vectorspace.claim(self.store, fp.key, fp.description, spec)

    # --- ingest ------------------------------------------------------------------------------

    def ingest(self, paths: Iterable[Path | str], *, sync: bool = False,
               on_progress: ProgressFn | None = None) -> IngestReport:
        """Ingest files and folders (recursively); see ``ingest.pipeline``.

        Raises:
            FileNotFoundError: a given path does not exist.
            kb.errors.FingerprintMismatch: the index holds vectors of another model.
        """
        service, problem = self.embedding_service()
        if service is not None:
            mismatch = self._check_fingerprint(service)
            if mismatch:
                raise mismatch
            self.claim_fingerprint(service)
        with self._lock:
            return ingest_paths(self.store, paths, chunk=self.config.chunk, service=service,
                                sync=sync, on_progress=on_progress,
                                no_vectors_reason=problem or "no embedder configured",
                                llm=self.ingest_llm, vision=self.vision)

    def sync(self, paths: Iterable[Path | str], *,
             on_progress: ProgressFn | None = None) -> IngestReport:
        """Ingest folders and remove documents whose files are gone from them."""
        return self.ingest(paths, sync=True, on_progress=on_progress)

    def reembed(self, *, discard_staged: bool = False,
                on_progress: ProgressFn | None = None) -> ReembedReport:
        """Give every chunk a vector of the configured model.

        With the stored model (or an index without vectors) this backfills missing vectors
        in place. With another model it *switches*, never mixing or deleting vectors on the
        way: every chunk is embedded into a staging area beside the live vectors (page by
        page, outside write transactions; resumable after an interruption), and only when
        every chunk has one do they replace the live vectors, in one transaction that also
        records the new model and drops the old model's calibrated floor. Until then searches
        use the old vectors (``search``). Chunks ingested meanwhile are embedded before the
        switch.

        Args:
            discard_staged: first drop the staged vectors of an unfinished re-embed (to
                another model, or this one to start over); live vectors are never touched.
            on_progress: called with (phase, done, total) after each page.

        Returns:
            The summary; a model failure stops the run early with the reason in
            ``warnings`` (staged vectors are kept for the next run), it does not raise.

        Raises:
            kb.errors.BackendError: no embedder can be loaded.
            kb.errors.ReembedConflict: a re-embed to another model is unfinished and
                ``discard_staged`` is not set.
        """
        service, problem = self.embedding_service()
        if service is None:
            raise BackendError(f"cannot re-embed: {problem}", backend=self.config.embedder)
        fp = service.fingerprint
        live, previous = self._stored_fingerprint()
        switching = live is not None and live != fp.key and vectorspace.has_vectors(self.store)
        target = vectorspace.reembed_target(self.store)
        others = sum(n for key, n in vectorspace.staged_counts(self.store).items() if key != fp.key)
        warnings: list[str] = []
        discarded = 0
        if discard_staged:
            discarded = vectorspace.discard_staged(self.store)
        elif others and switching:
            raise ReembedConflict(target.description if target else "another model", others,
                                  target.spec if target else None)
        elif target is not None and target.key != fp.key:
            warnings.append(f"an unfinished re-embed to {target.description} has {others} "
                            "staged vectors; `kb reembed` with that embedder finishes it, "
                            "`kb reembed --discard-staged` drops them")
        if not switching:
            self.claim_fingerprint(service)
            with self._lock:
                written, error = backfill_vectors(service, on_progress)
            self.store.refresh_status()
            return ReembedReport("backfill", fp.description, embedded=written,
                                 chunks=self.store.counts_chunks(),
                                 pending=self.store.count_needing_vectors(fp.key),
                                 discarded=discarded,
                                 warnings=tuple(warnings + ([error] if error else [])))
        spec = self.config.embedder if self._embedder is None else None
        vectorspace.begin_reembed(self.store, ReembedTarget(fp.key, fp.description, spec))
        staged, switched, error = rebuild_vectors(
            service, drop_meta=(calibration_key(live or ""),), on_progress=on_progress)
        pending = (self.store.count_needing_vectors(fp.key) if switched
                   else vectorspace.count_unstaged(self.store, fp.key))
        return ReembedReport("switch", fp.description, previous=previous, embedded=staged,
                             chunks=self.store.counts_chunks(), pending=pending,
                             switched=switched, discarded=discarded,
                             warnings=tuple(warnings + ([error] if error else [])))

    # --- query -------------------------------------------------------------------------------

    def search(self, query: str, options: SearchOptions | None = None, *,
               cancel: threading.Event | None = None, **kwargs: Any) -> SearchResult:
        """Search; see ``retrieve.pipeline.search``. Keyword arguments build ``SearchOptions``.

        Never raises for search-time failures (the result carries the reason). Set ``cancel``
        from another thread to stop a long search; it then returns an empty result whose
        ``diagnostics.error`` says it was cancelled.

        Raises:
            ValueError: malformed options.
        """
        options = options or SearchOptions(**kwargs)
        service, problem = self.embedding_service()
        note = None
        live, stored = self._stored_fingerprint()
        if (service is not None and live is not None and live != service.fingerprint.key
                and vectorspace.has_vectors(self.store)):
            # One search, one vector space: the live vectors with their own model, or none.
            configured = service.fingerprint.description
            target = vectorspace.reembed_target(self.store)
            if target is None or target.key != service.fingerprint.key:
                service, problem = None, (
                    f"fingerprint mismatch: {FingerprintMismatch(stored, configured)}")
            else:  # mid-switch: the old model still answers until the switch
                service, why = self._stored_embedding()
                if service is None:
                    problem = (f"re-embed to {configured} in progress and the stored model "
                               f"{stored} cannot be used ({why})")
                else:
                    note = (f"vectors: re-embed to {configured} in progress; the stored "
                            f"{stored} vectors are searched until it completes")
        engines = Engines(embedding=service, embedding_problem=problem, llm=self.llm,
                          reranker=self.reranker)
        result = run_search(self.store, query, options, engines=engines, cancel=cancel)
        if note is None:
            return result
        diagnostics = replace(result.diagnostics,
                              degraded=(*result.diagnostics.degraded, note))
        return replace(result, diagnostics=diagnostics)

    def context(self, query: str, options: SearchOptions | None = None, **kwargs: Any) -> str:
        """The context block for ``query`` (references + answer-only-from-these instruction)."""
        return self.search(query, options, **kwargs).context

    def ask(self, query: str, options: SearchOptions | None = None, *,
            timeout_s: float = ANSWER_TIMEOUT_S, **kwargs: Any) -> Answer:
        """Answer ``query`` with the configured LLM from its context block; see ``kb.answer``.

        Searches as ``search`` does; when the evidence is insufficient the answer is kb's
        refusal and the LLM is not called. Keyword arguments build ``SearchOptions``.

        Raises:
            kb.errors.BackendError: no LLM is configured or it could not be set up, or it
                failed to answer (the message names the backend).
            ValueError: malformed options.
        """
        if self.llm is None:
            why = next((p for p in self.problems if p.startswith("LLM")), "no LLM configured")
            raise BackendError(f"cannot answer: {why}; configure a chat model (--llm "
                               "ollama:MODEL or openai:URL#MODEL)", backend=self.config.llm or "")
        return answer_question(self.llm, self.search(query, options, **kwargs),
                               timeout_s=timeout_s)

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
        """Counts, embedder, fingerprint state, an unfinished re-embed, and integrity."""
        key, description = self._stored_fingerprint()
        counts = self.store.counts()
        target = vectorspace.reembed_target(self.store)
        return {
            "path": str(self.store.path),
            **counts,
            "vectors_pending": counts["chunks"] - counts["vectors"],
            "embedder_configured": self.config.embedder,
            "embedder_stored": description if key else None,
            "reembed_target": target.description if target else None,
            "reembed_staged": (counts["chunks"] - vectorspace.count_unstaged(self.store, target.key)
                               if target else 0),
            "fts_integrity": "ok" if self.store.fts_integrity_ok() else "FAILED",
            "warnings": [w for w in (scale_warning(counts["chunks"]),) if w],
        }


__all__ = ["KnowledgeBase"]
