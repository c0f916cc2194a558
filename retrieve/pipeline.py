"""The retrieval orchestrator: scope, then six stages that find candidates and refuse weak ones.

Each stage is one call into one module, a function over plain data:

0. **Scope** (``kb.retrieve.scope.scope``): sources, source types, tags and the documents
   created inside the date range, applied inside both searches.
1. **Expand** (``kb.retrieve.expand.expand``, LLM only): the original query plus up to 3
   paraphrases and 1 HyDE passage, at most 5 queries; skipped with a reason when no LLM is
   configured.
2. **Recall** (``kb.retrieve.hybrid.recall``), per query: exact cosine vector search and BM25
   side by side, pool ``max(50, 3 x top_k)`` each, scope filters applied inside both; an FTS
   failure or an empty CJK result falls back to a LIKE scan; a missing embedder closes the
   vector lists. While the vector side runs, the caller's thread reads the judge's index
   statistics of the query terms and the top BM25 hits' documents into the search's
   ``kb.retrieve.indexstats.IndexStatsReader``, which stage 4 completes.
3. **Fuse, decay** (``kb.retrieve.fuse.fuse_and_decay``): score-weighted RRF, k = 60; then
   ``0.5 ** (age_days / 30)`` unless switched off.
4. **Floor** (``kb.retrieve.floor.floor_stage``): drop weak vector-only candidates; relax and
   flag if all would go. Then one read gathers the evidence (``kb.retrieve.evidence.gather``):
   the files behind the top 50 (one ``stat`` each: a gone file's passages are dropped, a
   changed file's flagged ``stale``), the chunk rows and vectors of the candidates to rerank,
   and the offline judge's passages, index statistics and model.
5. **Judge/rerank** (``kb.retrieve.rerank.rerank``) the top 50: cross-encoder, else LLM, else
   MMR; when no model judged, the offline answerability judge scores the ``JUDGE_TOP_N``
   best matches before time decay.
6. **Cite** (``kb.retrieve.cite.cite``): ``kb.retrieve.handout`` selects the top k of the
   passages that passed, without near-duplicates and with at most ``max_chunks_per_doc`` per
   document, and says "insufficient" when none passed; then references, the context block
   and the diagnostics.

Scope and stages 1-5 are ``ranking`` (evaluation ranks with it). Every stage is timed and traced in
``Diagnostics``. A search reads one snapshot of the file (``Store.snapshot``): what other
writers commit meanwhile reaches it whole or not at all. ``search`` never raises for a
search-time failure: the caller gets an empty result whose diagnostics carry the reason.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from kb.backends import LLM, Reranker
from kb.config import CANDIDATE_POOL_MIN, PipelineSettings, SearchOptions, default_cache_dir
from kb.embedding import EmbeddingService
from kb.errors import SearchCancelled
from kb.retrieve.cite import cite, failed_block
from kb.retrieve.evidence import gather
from kb.retrieve.expand import expand
from kb.retrieve.floor import floor_stage
from kb.retrieve.fuse import fuse_and_decay
from kb.retrieve.hybrid import recall
from kb.retrieve.indexstats import IndexStatsReader
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.ranked import Ranking
from kb.retrieve.rerank import rerank
from kb.retrieve.scope import scope, scope_notes
from kb.retrieve.trace import Trace
from kb.store import Store
from kb.store.connection import interruptible
from kb.store.llm_cache import CachedLLM
from kb.store.search import Filters
from kb.store.textindex import NO_SEARCHABLE_WORDS, has_search_text
from kb.types import Diagnostics, SearchResult

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Engines:
    """The models a search may use; any may be absent.

    Attributes:
        embedding: the embedding service, or ``None``.
        embedding_problem: why vectors are unavailable (shown in diagnostics), if they are.
        llm: chat model for expansion and LLM rerank, or ``None``.
        reranker: cross-encoder, or ``None``.
        settings: the stage switches and weights.
        judge_model: the offline judge's model, or ``None`` for the shipped one (with the
            threshold ``kb calibrate`` stored in the index, if any).
        cache_dir: kb's cache folder (``kb.config.Config.cache_dir``), where the
            cross-language lexicon is cached.
    """

    embedding: EmbeddingService | None = None
    embedding_problem: str | None = None
    llm: LLM | None = None
    reranker: Reranker | None = None
    settings: PipelineSettings = field(default_factory=PipelineSettings)
    judge_model: JudgeModel | None = None
    cache_dir: Path = field(default_factory=default_cache_dir)


def _failed(query: str, reason: str, trace: Trace | None = None) -> SearchResult:
    """A search that could not run: an error, never "the documents do not hold the answer"."""
    trace = trace or Trace()
    diag = Diagnostics(stages=tuple(trace.stages), degraded=tuple(trace.degraded), error=reason)
    return SearchResult(query, (), failed_block(reason), False, diag)


def well_formed(text: str) -> str:
    r"""``text`` with every unpaired UTF-16 surrogate replaced by U+FFFD (valid UTF-8 again).

    JSON's ``"\ud800"`` and undecodable bytes in a command line (``surrogateescape``) both
    yield lone surrogates, which SQLite, the tokenizer and every UTF-8 encoder refuse. A
    well-formed pair written as two escapes becomes the one character it encodes.
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def search(store: Store, query: str, options: SearchOptions = SearchOptions(), *,
           engines: Engines = Engines(), now: datetime | None = None,
           cancel: threading.Event | None = None) -> SearchResult:
    """Run the stages (see module docstring): scope, ``ranking`` (1-5), cite.

    Args:
        store: the open store.
        query: the user's question, any text.
        options: scope and switches.
        engines: available models.
        now: reference time for decay (default: the current time).
        cancel: set it (from another thread) to stop the search: SQLite queries are
            interrupted through a progress handler, the vector scan stops between blocks of
            ``SCAN_BLOCK_ROWS`` rows, and no further stage starts (DESIGN 8: long scans are
            cancellable).

    Returns:
        A ``SearchResult``; empty with ``diagnostics.error`` set, ``insufficient_evidence``
        false and a context block saying the search failed, for an empty query or one of
        punctuation only (``...``, ``*``: "the query has no searchable words"), a cancelled
        search, a full-text index found damaged in a read-only file, or when a stage failed
        unexpectedly (e.g. the index was damaged after the file was opened). Never raises:
        ``SearchOptions`` validates itself (a malformed date raises ``ValueError`` when the
        options are built).
        Unpaired surrogates in ``query`` become U+FFFD first (``well_formed``), so the echoed
        ``SearchResult.query`` always encodes as UTF-8.
    """
    query = well_formed(query)
    if any(well_formed(s) != s for s in options.sources):  # a source path from any client
        options = replace(options, sources=tuple(well_formed(s) for s in options.sources))
    if not query or not query.strip():
        return _failed(query, "empty query: nothing to search for")
    if store.fts_problem is not None:  # found at open, in a file kb could not rebuild it in
        return _failed(query, f"search failed: the full-text index is damaged ({store.fts_problem}"
                       ") and the file is read-only: open it once where it can be written")
    if not has_search_text(query):  # "...", "()", "*": a caller mistake, as an empty query
        return _failed(query, f"the query {NO_SEARCHABLE_WORDS}")
    trace = Trace(cancel=cancel)
    try:  # reading the store is search-time: a corrupt row must not raise to the caller
        with store.snapshot(), interruptible(store.conn, cancel):  # one snapshot per search
            created = store.created_at_map()
            filters = scope(options, created)  # 0
            ranked = rank(store, query, options, engines, filters, created,
                          now or datetime.now(UTC), trace)  # 1-5
            return cite(query, ranked, options,  # 6
                        rerank_min_score=engines.settings.rerank_min_score, trace=trace,
                        notes=scope_notes(store, options, filters))
    except SearchCancelled as exc:
        return _failed(query, str(exc), trace)
    except Exception as exc:  # the assistant's turn must never see an exception
        if cancel is not None and cancel.is_set():  # any stage's statement "interrupted"
            return _failed(query, "search cancelled by the caller", trace)
        log.info("search failed", exc_info=True)  # the result says why, in one line
        return _failed(query, f"search failed: {type(exc).__name__}: {exc}", trace)


def ranking(store: Store, query: str, options: SearchOptions, *, engines: Engines,
            now: datetime) -> Ranking:
    """Stages 0-5 without citing (for evaluation): the ranking and what each stage saw.

    Args:
        store: the open store.
        query: the question (unpaired surrogates become U+FFFD, as in ``search``).
        options: scope and switches (evaluation passes ``decay=False``).
        engines: available models.
        now: reference time for decay.

    Returns:
        The ``Ranking``: candidates in final order with each stage's record.

    Unlike ``search`` it raises whatever a stage raises.
    """
    created = store.created_at_map()
    filters = scope(options, created)
    return rank(store, well_formed(query), options, engines, filters, created, now, Trace())


def rank(store: Store, query: str, options: SearchOptions, engines: Engines,
         filters: Filters, created: dict[int, datetime], now: datetime,
         trace: Trace) -> Ranking:
    """Stages 1-5 (shared by ``search`` and ``ranking``); raises what a stage raises."""
    settings, service = engines.settings, engines.embedding
    llm = CachedLLM(store, engines.llm) if engines.llm is not None else None
    expansion = expand(llm, query, enabled=settings.expand,  # 1
                       timeout_s=settings.helper_timeout_s, trace=trace)
    stats = IndexStatsReader(store) if settings.judge else None  # read ahead by recall
    recalled = recall(store, query, expansion.queries,  # 2
                      pool=settings.pool or max(CANDIDATE_POOL_MIN, 3 * options.top_k),
                      filters=filters, service=service,
                      embedding_problem=engines.embedding_problem, settings=settings,
                      trace=trace, cache_dir=engines.cache_dir, stats=stats)
    fused = fuse_and_decay(recalled.lists, created, now, settings=settings,  # 3
                           decay=options.decay, explain=options.explain, trace=trace)
    floored = floor_stage(fused, floor=recalled.calibration.floor,  # 4
                          vectors_used=recalled.vectors_used, settings=settings, trace=trace)
    used = recalled.service
    evidence = gather(store, floored.kept, fingerprint=used.fingerprint.key if used else None,
                      model_id=used.embedder.model_id if used else None, terms=recalled.terms,
                      judge=settings.judge, judge_model=engines.judge_model, trace=trace,
                      stats=stats, confined=options.doc_ids is not None)
    order = rerank(query, evidence, recalled.terms, reranker=engines.reranker,  # 5
                   llm=None if expansion.llm_failed else llm, settings=settings,
                   explain=options.explain, trace=trace)
    return Ranking.of(expansion, recalled, floored, evidence, order)
