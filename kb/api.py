"""The Python API: ``KnowledgeBase(path)``, composing the store, ingest and retrieval.

>>> with KnowledgeBase("notes.kb") as kb:          # doctest: +SKIP
...     kb.ingest(["docs/"])
...     result = kb.search("how do I rotate the keys?")
...     print(result.context)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kb.answer import ANSWER_TIMEOUT_S, Answer, answer_question
from kb.backends import LLM, Embedder, Reranker, VisionModel
from kb.backends.registry import configured_models
from kb.config import Config, SearchOptions, check_query, checked_config, type_name
from kb.embedding import EmbedderState, EmbeddingService
from kb.errors import BackendError, ChunkNotFound, DocumentNotFound
from kb.ingest.discover import PathArg, path_list
from kb.ingest.pipeline import ingest_paths
from kb.ingest.reembed import ReembedReport, reembed
from kb.retrieve.evidence import chunk_table_header
from kb.retrieve.pipeline import Engines
from kb.retrieve.pipeline import search as run_search
from kb.status import index_status
from kb.store import MAX_ROWID, Store, bitindex, reading
from kb.types import (
    ChunkInContext,
    Document,
    DocumentText,
    FileOutcome,
    IngestReport,
    ProgressFn,
    SearchResult,
    Status,
)
from kb.types.reading import MAX_NEIGHBOURS, NEIGHBOURS, check_number


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
        TypeError: ``config`` is not a ``kb.config.Config``.
        ValueError: ``path`` is empty.

    Once closed (``close``, or the end of a ``with`` block), each method raises
    ``kb.errors.StoreError`` saying so.
    """

    def __init__(self, path: Path | str, config: Config | None = None, *,
                 embedder: Embedder | None = None, llm: LLM | None = None,
                 reranker: Reranker | None = None, vision: VisionModel | None = None) -> None:
        if isinstance(path, str) and not path:  # Path("") is the working folder
            raise ValueError("path is empty: name the index file (such as 'kb.db')")
        self.config = checked_config(config)
        self.store = Store(path, exact_scan_max_vectors=self.config.exact_scan_max_vectors)
        self._lock = threading.RLock()  # serialises ingests and backfills (not searches)
        self._embedding = EmbedderState(self.store, self.config, embedder)
        models = configured_models(self.config, llm=llm, vision=vision, reranker=reranker)
        self.llm, self.ingest_llm = models.llm, models.ingest_llm  # ingest: retries
        self.reranker, self.vision = models.reranker, models.vision
        self.problems: list[str] = models.problems

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    # Embedder

    def embedding_service(self) -> tuple[EmbeddingService | None, str | None]:
        """The configured embedder wrapped in kb's embedding service, built on first use.

        A failed build is retried after ``kb.embedding.EMBEDDER_RETRY_S`` (the circuit
        breaker's cooldown). Never waits for an ingest in progress.

        Returns:
            ``(service, None)``, or ``(None, reason)`` when no embedder is configured or it
            cannot be loaded now.
        """
        return self._embedding.service()

    def claim_fingerprint(self, service: EmbeddingService) -> None:
        """Make ``service``'s fingerprint the live one, recording its spec when it came from one.

        Does nothing while live vectors of another model exist: only ``reembed`` switches.
        """
        self._embedding.claim(service)

    # Ingest

    def ingest(self, paths: PathArg | Iterable[PathArg], *, sync: bool = False,
               allow_empty: bool = False, on_progress: ProgressFn | None = None,
               ignore: Sequence[str] = (), on_file: Callable[[str], None] | None = None,
               inside: PathArg | None = None, named: Iterable[PathArg] | None = None,
               on_outcomes: Callable[[tuple[FileOutcome, ...]], None] | None = None
               ) -> IngestReport:
        """Ingest files and folders (recursively); see ``kb.ingest.pipeline``.

        ``paths`` is one path (``str`` or ``os.PathLike``) or a list of them. With ``sync``,
        documents under the given folders whose files are gone are removed; a folder that
        holds no files at all keeps its documents and is reported failed (an unmounted drive
        looks empty) unless ``allow_empty`` is set. Folder walks leave out what the ignore
        rules say (``kb.ingest.ignore``), plus the gitignore patterns of
        ``Config.ingest_ignore`` and ``ignore``, relative to each folder given. ``on_file``
        is called with each file's path before it is read; ``on_progress`` with (phase, done,
        total) for ``files``, ``vectors`` and ``waiting`` (see ``kb.ingest.pipeline``). With
        ``inside`` (a folder), a file whose real path is outside it is skipped, not followed.
        A file that failed before and is unchanged is skipped unless ``named`` (default: the
        files in ``paths``) holds it: a caller that walked folders itself names the rest.
        ``on_outcomes`` gets every file's outcome once all are known, before embedding.

        Raises:
            TypeError: ``paths`` is neither a path nor an iterable of paths.
            FileNotFoundError: a given path does not exist.
            kb.errors.FingerprintMismatch: the index holds vectors of another model.
            kb.ingest.report.IngestInterrupted: Ctrl-C, with the report of what was committed.
        """
        paths = path_list(paths)
        service, problem = self.embedding_service()
        if service is not None:
            mismatch = self._embedding.check(service)
            if mismatch:
                raise mismatch
            self.claim_fingerprint(service)
        with self._lock:
            report = ingest_paths(self.store, paths, chunk=self.config.chunk, service=service,
                                  sync=sync, on_progress=on_progress,
                                  no_vectors_reason=problem or "no embedder configured",
                                  llm=self.ingest_llm, vision=self.vision,
                                  extract_timeout_s=self.config.extract_timeout_s,
                                  allow_empty=allow_empty,
                                  ignore=(*self.config.ingest_ignore, *ignore), on_file=on_file,
                                  inside=Path(inside).expanduser().resolve() if inside else None,
                                  named=None if named is None else [Path(n) for n in named],
                                  on_outcomes=on_outcomes)
            if service is not None:  # a store past the threshold written without the bit index
                bitindex.ensure(self.store, service.fingerprint.key)
            return report

    def sync(self, paths: PathArg | Iterable[PathArg], *, allow_empty: bool = False,
             on_progress: ProgressFn | None = None, ignore: Sequence[str] = (),
             on_file: Callable[[str], None] | None = None, inside: PathArg | None = None,
             on_outcomes: Callable[[tuple[FileOutcome, ...]], None] | None = None
             ) -> IngestReport:
        """Ingest folders and remove documents whose files are gone from them.

        A folder that holds no files at all while the index has documents from it keeps them
        and is a ``failed`` outcome naming it (an unmounted drive looks empty), unless
        ``allow_empty`` is set: then they are removed too. A folder gone while the index has
        documents from it keeps them and is a ``failed`` outcome too (``allow_empty`` or not:
        ``remove_under`` removes them). ``ignore``, ``on_file``, ``inside``, ``on_outcomes``:
        as ``ingest``.

        Raises:
            FileNotFoundError: a path given does not exist and the index has no document from
                under it (a typo), before anything is written.
        """
        return self.ingest(paths, sync=True, allow_empty=allow_empty, on_progress=on_progress,
                           ignore=ignore, on_file=on_file, inside=inside,
                           on_outcomes=on_outcomes)

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
        return reembed(self._embedding, service, discard_staged=discard_staged,
                       backfill_lock=self._lock, on_progress=on_progress)

    # Query

    def search(self, query: str, options: SearchOptions | None = None, *,
               cancel: threading.Event | None = None, **kwargs: Any) -> SearchResult:
        """Search; see ``kb.retrieve.pipeline.search``. Keyword arguments build ``SearchOptions``.

        A ``top_k`` given as a keyword asks for that many references (``fill``: those the
        judge does not pass come last, flagged weak); without it, only what passes is handed
        out (at most ``TOP_K``).

        Never raises for search-time failures (the result carries the reason). Set ``cancel``
        from another thread to stop a long search; it then returns an empty result whose
        ``diagnostics.error`` says it was cancelled.

        Raises:
            TypeError: ``query`` is not a string, ``options`` not a ``SearchOptions``, both
                ``options`` and keyword arguments are given, or an option has the wrong type.
            ValueError: malformed options, or a query longer than
                ``kb.config.MAX_QUERY_CHARS`` code points.
        """
        check_query(query)
        if options is None:
            kwargs.setdefault("fill", "top_k" in kwargs)
            options = SearchOptions(**kwargs)
        elif not isinstance(options, SearchOptions):
            raise TypeError(f"options must be a kb.config.SearchOptions, got "
                            f"{type_name(options)} (or pass top_k=... and the other options "
                            "as keywords)")
        elif kwargs:
            raise TypeError(f"pass either options or keyword options, not both (got options "
                            f"and {', '.join(sorted(kwargs))})")
        service, problem, note = self._embedding.for_search()
        engines = Engines(embedding=service, embedding_problem=problem, llm=self.llm,
                          reranker=self.reranker, settings=self.config.pipeline,
                          cache_dir=self.config.cache_dir)
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

    # Documents

    def documents(self) -> list[Document]:
        """All documents, by source (BM25 only, ``none`` embedder: none ``pending_vectors``)."""
        return [self._as_run(d) for d in self.store.documents()]

    def _as_run(self, doc: Document) -> Document:
        """``doc`` as this run sees it: BM25 only, nothing is pending (as ``status`` counts)."""
        return replace(doc, status="indexed") if (
            doc.status == "pending_vectors" and self.config.embedder == "none") else doc

    def remove(self, ref: str | os.PathLike[str]) -> Document:
        """Delete a document (by id, or source path) with its chunks, FTS rows and vectors.

        Raises:
            kb.errors.DocumentNotFound: nothing matches ``ref``.
        """
        doc = self.find_document(ref)
        self.store.delete_document(doc.source)
        return doc

    def remove_under(self, folder: str) -> list[Document]:
        """Delete every document indexed from under ``folder`` (``~`` expanded, resolved).

        Returns:
            The documents removed, by source; empty when ``folder`` is a file or holds no
            indexed document, or is ``""`` (not the current folder: ``kb rm "$UNSET"``). A
            folder gone (deleted, or a drive not mounted) counts: its documents go.
        """
        root = Path(folder).expanduser().resolve()
        if not folder or (root.exists() and not root.is_dir()):
            return []
        docs = [d for d in self.documents() if Path(d.source).is_relative_to(root)]
        for doc in docs:
            self.store.delete_document(doc.source)
        return docs

    def status(self) -> Status:
        """Counts, embedder, fingerprint state, judge threshold, a re-embed, and integrity.

        ``judge_threshold`` and its source: see ``kb.status.index_status``.
        """
        return index_status(self.store, self._embedding, self.config.embedder)

    # Reading what was cited

    def find_document(self, ref: str | os.PathLike[str]) -> Document:
        """The document with id ``ref`` (digits) or source ``ref`` (a path is resolved).

        Raises:
            TypeError: ``ref`` is neither a ``str`` nor a path.
            kb.errors.DocumentNotFound: nothing matches ``ref``.
        """
        if not isinstance(ref, str | os.PathLike):
            raise TypeError(f"ref must be a str (an id or a source), got {type_name(ref)}")
        ref = os.fspath(ref)  # a Path names a source, as ingest takes it
        doc = (self.store.get_document(doc_id=int(ref))
               if ref.isascii() and ref.isdigit() and int(ref) <= MAX_ROWID else None)
        if doc is None:
            doc = self.store.get_document(source=ref) or self.store.get_document(
                source=str(Path(ref).expanduser().resolve()))
        if doc is None:
            raise DocumentNotFound(ref)
        return self._as_run(doc)

    def get_chunk(self, chunk_id: int, neighbours: int = NEIGHBOURS) -> ChunkInContext:
        """The chunk ``chunk_id`` (a reference's ``chunk_id``) with its document and neighbours.

        Args:
            chunk_id: the chunk's id, >= 1.
            neighbours: chunks to add before and after it, 0 to ``MAX_NEIGHBOURS``.

        Raises:
            TypeError: ``chunk_id`` or ``neighbours`` is not an ``int``.
            ValueError: either is out of range.
            kb.errors.ChunkNotFound: no chunk has this id (re-ingested or removed since).
        """
        check_number(chunk_id, "chunk_id", 1)
        check_number(neighbours, "neighbours", 0, MAX_NEIGHBOURS)
        found = (reading.chunk_in_context(self.store, chunk_id, neighbours)
                 if chunk_id <= MAX_ROWID else None)  # past SQLite's ids: none such
        if found is None:
            raise ChunkNotFound(chunk_id)
        return replace(found, table_header=chunk_table_header(self.store, chunk_id, found.document))

    def get_document(self, doc_id: int) -> DocumentText:
        """The document ``doc_id`` with its extracted text, passages carrying page and headings.

        Raises:
            TypeError: ``doc_id`` is not an ``int``.
            ValueError: ``doc_id`` < 1.
            kb.errors.DocumentNotFound: no document has this id.
        """
        check_number(doc_id, "doc_id", 1)
        found = reading.document_text(self.store, doc_id) if doc_id <= MAX_ROWID else None
        if found is None:
            raise DocumentNotFound(str(doc_id))
        return replace(found, document=self._as_run(found.document))


__all__ = ["KnowledgeBase"]
