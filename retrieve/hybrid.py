"""Stage 2, recall (``recall``): hybrid recall for every query, BM25 and vectors side by side.

``recall`` decides whether vectors take part (an embedder, vectors of its fingerprint in the
index, ``recall`` not ``bm25``; else BM25 only, with a degraded note), loads the model's
calibration, reads the query's content terms (with dictionary translations when the index holds
text in the other of Chinese and English, adding a translated BM25 list), then builds the lists.

For each query: a BM25 list (``kb.retrieve.recall.bm25_recall``; an FTS failure, or no hit for a
CJK query, falls back to a LIKE scan and says so: a failure as a degraded rung, the designed
CJK fallback as a note on the recall stage) and a vector list
(``kb.retrieve.recall.vector_recall``). The vector side (the query embeddings with one OpenMP
thread, then the scans) runs on a worker thread while BM25 runs on the caller's: the model,
numpy and SQLite all release the GIL, so on two cores a search costs max(vector side, BM25
side), not their sum (DESIGN 8: p50 < 50 ms at 100k chunks). Once its keyword lists are done
the caller helps score the exact scan's row blocks (``kb.retrieve.blockscan``).

The worker never reads the database: its own connection would read another snapshot than the
caller's (``Store.snapshot``), and a document committed in between would reach later stages
from one list and not the other. The caller reads the vector matrix (cached per generation)
and the scope's document ids in its snapshot and hands them to the worker. One exception: over
the bit index the worker reads its candidates' float32 vectors in its own snapshot when that
snapshot's generation is the caller's (every write a search sees bumps it, so both see the same
chunks); otherwise the caller reads them after BM25 (``kb.retrieve.bitrecall``). While it
waits for the worker, the caller reads ahead the offline judge's index statistics in its
snapshot (``kb.retrieve.indexstats``).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from kb.config import PipelineSettings
from kb.embedding import EmbeddingService
from kb.retrieve.bitrecall import (
    PendingRescore,
    bit_candidates,
    rescore_if_same,
    rescored,
    scope_positions,
)
from kb.retrieve.blockscan import ScanShare
from kb.retrieve.calibration import GENERIC, Calibration, load_calibration
from kb.retrieve.indexstats import IndexStatsReader
from kb.retrieve.judge import JUDGE_TOP_N
from kb.retrieve.lexicon import crosses_languages, shared_lexicon
from kb.retrieve.pending import too_few_vectors
from kb.retrieve.recall import (
    TokenCounts,
    bm25_recall,
    like_recall,
    translated_recall,
    vector_recall,
)
from kb.retrieve.terms import Term, content_terms, translation_tokens
from kb.retrieve.threadlimits import one_blas_thread, one_openmp_thread
from kb.retrieve.trace import Trace
from kb.store import Store
from kb.store.bitindex import BitIndex, vector_index
from kb.store.search import Filters, VectorMatrix
from kb.store.textindex import has_cjk, keyword_query, query_terms
from kb.types import RecallList

log = logging.getLogger(__name__)

W_EXPANDED = 0.5  # weight multiplier for lists of expanded queries (paraphrases, HyDE)
W_TRANSLATED = 0.5  # the translated list: dictionary translations are looser than the query
_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")


@dataclass(frozen=True, slots=True)
class Recalled:
    """Stage 2's result.

    Attributes:
        lists: the recall lists, in a stable order (``recall_lists``).
        terms: the original query's content terms (with translations when crossing languages).
        calibration: the score anchors used (generic without vectors).
        service: the embedding service whose vectors were searched, or ``None`` (BM25 only).
    """

    lists: tuple[RecallList, ...]
    terms: tuple[Term, ...]
    calibration: Calibration
    service: EmbeddingService | None

    @property
    def counts(self) -> tuple[tuple[str, int], ...]:
        """Hits per recall list, by list name."""
        return tuple((lst.name, len(lst.hits)) for lst in self.lists)

    @property
    def vectors_used(self) -> bool:
        """Whether any list is a vector list (the floor needs cosine scores)."""
        return any(lst.kind == "vector" for lst in self.lists)


def recall(store: Store, query: str, queries: Sequence[str], *, pool: int, filters: Filters,
           service: EmbeddingService | None, embedding_problem: str | None,
           settings: PipelineSettings, trace: Trace, cache_dir: Path,
           stats: IndexStatsReader | None = None) -> Recalled:
    """Stage 2 (see module docstring).

    Args:
        store: the open store, inside the search's snapshot.
        query: the original question.
        queries: the queries to search, the original first.
        pool: hits per list.
        filters: the scope.
        service: the embedding service, or ``None``.
        embedding_problem: why there is no service, if there is none (a degraded note).
        settings: ``recall`` and the list weights.
        trace: times the ``recall`` stage; receives degraded notes.
        cache_dir: kb's cache folder, where the cross-language lexicon is cached.
        stats: the search's reader of the judge's index statistics
            (``kb.retrieve.indexstats``); BM25 reads its tokens' chunk frequencies through
            it. When the keyword lists are done and the vector side is not, this thread reads
            into it the terms' statistics and those of the documents of the first
            ``JUDGE_TOP_N`` hits of each keyword list: the question's and each expansion's
            (BM25, or LIKE where it stood in; not the translated list, read after). Without
            a vector side, or when it is done first, nothing is read ahead. ``None``: no
            reader; BM25 reads the store.

    Raises:
        kb.errors.SearchCancelled: the caller cancelled.
    """
    calibration = GENERIC
    if settings.recall == "bm25":
        service = None
    elif service is None:
        trace.degraded.append(f"vectors: {embedding_problem or 'no embedder'}; BM25 only")
    elif not store.has_vectors(service.fingerprint.key):
        if store.any_document(Filters()):  # an empty index needs documents, not `kb reembed`
            trace.degraded.append(f"vectors: the index holds none from "
                                  f"{service.embedder.model_id} (run the ingest again, or "
                                  "`kb reembed`); BM25 only")
        service = None
    elif too_few_vectors(store, service, trace):
        service = None
    else:
        calibration = load_calibration(store, service.fingerprint.key,
                                       service.embedder.model_id)

    def lists_and_terms() -> tuple[list[RecallList], list[Term]]:
        try:
            mix = store.script_mix()
        except sqlite3.OperationalError:
            trace.check()  # "interrupted" by a cancellation
            raise
        lexicon = shared_lexicon(cache_dir) if crosses_languages(query, mix) else None
        terms = content_terms(query, lexicon)
        translations = ([translation_tokens(t) for t in terms] if lexicon is not None
                        else None)
        ahead = None if stats is None else (lambda keyword: stats.prefetch(  # likely judged
            terms, [h.doc_id for lst in keyword for h in lst.hits[:JUDGE_TOP_N]]))
        return recall_lists(store, list(queries), pool, filters, service, calibration,
                            settings, trace, translations, ahead,
                            stats.token_counts if stats is not None else None), terms

    lists, terms = trace.run("recall", lists_and_terms)
    return Recalled(tuple(lists), tuple(terms), calibration, service)


def keyword_list(store: Store, q: str, i: int, pool: int, filters: Filters, weight: float,
                  trace: Trace, *, hybrid: bool = False,
                  token_counts: TokenCounts | None = None) -> RecallList:
    """BM25 for one query, phrases as phrases; LIKE when FTS fails or finds no CJK hit.

    ``hybrid``: vector lists are fused with it (one-clause matches are capped,
    ``kb.retrieve.recall.keyword_s_norm``). ``token_counts``: reads the tokens' chunk
    frequencies (``kb.retrieve.recall.single_token_counts``).
    """
    try:  # quoted phrases and hyphenated compounds match as phrases
        bm25 = bm25_recall(store, keyword_query(q), pool=pool, filters=filters,
                           name=f"bm25:{i}", weight=weight, partial_cap=hybrid,
                           token_counts=token_counts)
        if bm25.hits or not has_cjk(q):
            return bm25
        # FTS5 worked: a short CJK query (one character, or words the bigram index cannot
        # match) is found by scanning the text, by design; not a degradation
        trace.note(f"fts: no index hits for this {_which(i)}Chinese/Japanese/Korean query; "
                   "searched the text directly (LIKE)")
    except sqlite3.OperationalError as exc:
        trace.check()  # "interrupted" by a cancellation is not an FTS failure
        trace.degraded.append(f"fts: query {i} failed ({exc}); LIKE scan used")
    # words with surrounding punctuation stripped ("kites?" -> "kites"): a needle keeping it
    # would miss the text it names
    terms = query_terms(q)
    words = [_EDGE_PUNCTUATION.sub("", w) for w in q.split()]
    needles = terms if has_cjk(q) else [w for w in words if w]
    return like_recall(store, needles or terms, pool=pool, filters=filters, name=f"like:{i}",
                       weight=weight)


def _which(i: int) -> str:
    """How a note names query ``i``: the question itself, or an expansion of it."""
    return "" if i == 0 else f"expanded ({i}) "


def recall_lists(store: Store, queries: list[str], pool: int, filters: Filters,
                 service: EmbeddingService | None, calibration: Calibration,
                 settings: PipelineSettings, trace: Trace,
                 translations: list[list[tuple[str, ...]]] | None = None,
                 ahead: Callable[[list[RecallList]], None] | None = None,
                 token_counts: TokenCounts | None = None) -> list[RecallList]:
    """Recall lists for ``queries`` (original first), in a stable order.

    Per query: its BM25 (or LIKE) list, then its vector list; with ``translations`` (per
    content term of the original query, the index tokens of its translations into the
    index's other language), a ``bm25-translated`` list follows the original's. ``ahead`` gets
    the BM25 lists when they are done and the vector side is not: what this thread reads then
    costs the search nothing while a core is free. ``token_counts`` reads the BM25 tokens'
    chunk frequencies (the search's memo; ``None``: the store).

    A failing embedder or vector scan closes the vector lists with a degraded note (BM25
    only), never the search. Raises ``kb.errors.SearchCancelled`` when the caller cancels.
    """
    allowed = store.doc_ids_matching(filters) if filters.active else None
    # The vector side (query embeddings, then the scans) runs on a worker thread while BM25
    # runs here: the model, numpy and SQLite all release the GIL, so on two cores a search
    # costs max(vector side, BM25 side), not their sum (DESIGN 8: p50 < 50 ms at 100k chunks).
    # The matrix is read here, in this search's snapshot (module docstring).
    vector_job = None
    share = ScanShare()  # this thread helps the worker's exact scans once BM25 is done
    if service is not None:
        matrix, problem = _matrix(store, service, trace)
        vector_job = _workers().submit(_vector_lists, matrix, problem, queries, service, pool,
                                       allowed, calibration, settings, trace.cancel,
                                       (store, store.generation()), share)
        vector_job.add_done_callback(lambda _: share.close())  # however the job ends
    keyword: list[RecallList | None] = [None] * len(queries)
    if settings.recall != "vector" or service is None:
        keyword = [keyword_list(store, q, i, pool, filters,
                                 settings.w_bm25 * (1.0 if i == 0 else W_EXPANDED), trace,
                                 hybrid=vector_job is not None, token_counts=token_counts)
                   for i, q in enumerate(queries)]
    vectors: list[RecallList] = []
    if vector_job is not None:
        # this thread scans too (``share``), so it holds the BLAS limit; taking it here, in
        # the wait, leaves the worker's own entry a counter step (a fresh limit costs 0.3 ms,
        # about 1 ms on a loaded machine, at the start of the scan)
        with one_blas_thread():
            if ahead is not None and not vector_job.done():  # else this thread would wait
                try:
                    ahead([kw for kw in keyword if kw is not None])
                except sqlite3.OperationalError:
                    trace.check()  # "interrupted" by a cancellation
                    raise
            share.assist()
        vectors, failure = _rescore(store, service, *vector_job.result())
        trace.check()
        if failure:  # a failing embedder closes the vector lists, never the search
            trace.degraded.append(f"{failure}; BM25 only")
            if settings.recall == "vector":  # the queries left without any list get BM25
                keyword = [keyword_list(store, q, i, pool, filters,
                                         settings.w_bm25 * (1.0 if i == 0 else W_EXPANDED),
                                         trace) if i >= len(vectors) else None
                           for i, q in enumerate(queries)]
    translated = None
    if translations and any(translations) and settings.recall != "vector":
        try:
            translated = translated_recall(store, translations, pool=pool, filters=filters,
                                           name="bm25-translated:0",
                                           weight=settings.w_bm25 * W_TRANSLATED)
        except sqlite3.OperationalError as exc:
            trace.check()
            trace.degraded.append(f"fts: translated query failed ({exc}); skipped")
    lists: list[RecallList] = []
    for i in range(len(queries)):  # per query: BM25 first, then vectors (a stable order)
        kw = keyword[i]
        if kw is not None:
            lists.append(kw)
        if i == 0 and translated is not None:
            lists.append(translated)
        if i < len(vectors):
            lists.append(vectors[i])
    return lists


def _matrix(store: Store, service: EmbeddingService, trace: Trace
            ) -> tuple[VectorMatrix | BitIndex | None, str | None]:
    """The stored vectors of ``service``'s fingerprint (exact or bit index), or why not.

    A row the matrix cannot be built from (e.g. a vector blob of the wrong length) closes the
    vector lists, never the search; a cancellation raises.
    """
    try:
        return vector_index(store, service.fingerprint.key), None
    except Exception as exc:
        trace.check()  # "interrupted" by a cancellation is not a storage problem
        return None, f"vectors: vector search failed ({type(exc).__name__}: {exc})"


def _rescore(store: Store, service: EmbeddingService | None,
             lists: list[RecallList | PendingRescore], failure: str | None,
             index: VectorMatrix | BitIndex | None) -> tuple[list[RecallList], str | None]:
    """The worker's lists with the bit index's candidates rescored here, in the snapshot."""
    done: list[RecallList] = []
    for item in lists:
        if isinstance(item, RecallList):
            done.append(item)
            continue
        try:
            if not isinstance(index, BitIndex) or service is None:
                raise TypeError("a bit-index rescoring without the bit index or its model")
            done.append(rescored(store, index, item, service.fingerprint.key))
        except sqlite3.OperationalError:
            raise  # "interrupted" by a cancellation: the caller checks
        except Exception as exc:
            return done, f"vectors: vector search failed ({type(exc).__name__}: {exc})"
    return done, failure


def _vector_lists(matrix: VectorMatrix | BitIndex | None, problem: str | None,
                  queries: list[str], service: EmbeddingService, pool: int,
                  allowed: np.ndarray | None, calibration: Calibration,
                  settings: PipelineSettings, cancel: threading.Event | None,
                  snapshot: tuple[Store, int] | None = None,
                  share: ScanShare | None = None
                  ) -> tuple[list[RecallList | PendingRescore], str | None,
                             VectorMatrix | BitIndex | None]:
    """Vector lists of ``queries`` in order (runs on a worker thread; reads no database).

    Over a bit index a list is a ``PendingRescore``: its candidates, which the caller
    rescores in its snapshot (``kb.retrieve.bitrecall``).

    Args:
        matrix: the stored vectors, read in the caller's snapshot, or ``None``.
        problem: why ``matrix`` is ``None``.
        queries: the queries, original first.
        service: embeds them.
        pool: hits per list.
        allowed: document ids inside the scope, or ``None`` for all.
        calibration: the model's score anchors.
        settings: the list weights.
        cancel: checked between blocks of the scan.
        snapshot: the store and the caller's generation: bit index candidates are rescored
            here when this thread's snapshot has that generation.
        share: the exact scans are published there for the caller to help with
            (``kb.retrieve.blockscan``).

    Returns:
        The lists computed, the failure that stopped the rest (``None`` when all ran; a
        cancellation also stops them, and the caller checks for it), and ``matrix``.
    """
    one_openmp_thread()
    lists: list[RecallList | PendingRescore] = []
    failing = "embedder"
    try:
        vectors = [service.embed_query(q) for q in queries]
        if matrix is None:
            return lists, problem, matrix
        failing = "vector search"
        positions = scope_positions(matrix, allowed) if isinstance(matrix, BitIndex) else None
        with one_blas_thread():
            for i, qv in enumerate(vectors):
                weight = settings.w_vector * (1.0 if i == 0 else W_EXPANDED)
                lists.append(bit_candidates(
                    matrix, qv, pool=pool, positions=positions, name=f"vector:{i}",
                    weight=weight, cos_unrelated=calibration.cos_unrelated,
                    span=calibration.span, cancel=cancel) if isinstance(matrix, BitIndex)
                    else vector_recall(
                    matrix, qv, pool=pool, allowed_docs=allowed, name=f"vector:{i}",
                    weight=weight, cos_unrelated=calibration.cos_unrelated,
                    span=calibration.span, cancel=cancel, share=share))
        if isinstance(matrix, BitIndex) and snapshot is not None:
            lists = rescore_if_same(*snapshot, matrix, lists, service.fingerprint.key)
    except Exception as exc:
        return lists, f"vectors: {failing} failed ({type(exc).__name__}: {exc})", matrix
    return lists, None, matrix


@lru_cache(maxsize=1)
def _workers() -> ThreadPoolExecutor:
    """The shared worker pool for the vector side of recall (created on first use)."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="kb-vectors")
