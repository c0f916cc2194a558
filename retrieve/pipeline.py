"""The retrieval orchestrator: six stages that find candidates, then say "no" to weak ones.

0. **Scope** (``kb.retrieve.scope``): sources, source types and the documents created inside
   the date range, applied inside both searches.
1. **Expand** (``kb.retrieve.expand``, LLM only): the original query plus up to 3 paraphrases and 1
   HyDE passage, at most 5 queries; skipped with a reason when no LLM is configured.
2. **Recall** (``kb.retrieve.hybrid`` over ``kb.retrieve.recall``), per query: exact cosine vector
   search and BM25 side by side, pool ``max(50, 3 x top_k)`` each, scope filters applied
   inside both; an FTS failure or an empty CJK result falls back to a LIKE scan; a missing
   embedder closes the vector lists.
3. **Fuse** (``kb.retrieve.fuse``): score-weighted RRF, k = 60; then **decay**
   (``kb.retrieve.decay``): ``0.5 ** (age_days / 30)`` unless switched off.
4. **Floor** (``kb.retrieve.floor``): drop weak vector-only candidates; relax and flag if all
   would go. Then the files behind the top 50 are looked at (``kb.retrieve.freshness``, one
   ``stat`` each): a gone file's passages are dropped (``Diagnostics.gone``), a changed file's
   flagged ``stale``.
5. **Rerank** (``kb.retrieve.reorder`` over ``kb.retrieve.rerank``) the top 50: cross-encoder, else
   LLM, else MMR; a judging reranker's rejects are cut (``rerank.judge_cut``).
6. **Judge** (``kb.retrieve.judge``, when no cross-encoder or LLM judged): the offline
   answerability judge scores the ``JUDGE_TOP_N`` best matches before time decay; then
   ``kb.retrieve.handout`` selects the top k of the passages it passed, without near-duplicates
   and with at most ``max_chunks_per_doc`` per document, and says "insufficient" when none
   passed. **Cite** (``kb.retrieve.cite``): references and the context block.

Every stage is timed and traced in ``Diagnostics``. A search reads one snapshot of the file
(``Store.snapshot``): what other writers commit meanwhile reaches it whole or not at all.
``search`` never raises for a search-time failure: the caller gets an empty result whose
diagnostics carry the reason.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from kb.backends import LLM, Reranker
from kb.config import (
    CANDIDATE_POOL_MIN,
    NEAR_DUPLICATE_COSINE,
    RERANK_TOP_N,
    PipelineSettings,
    SearchOptions,
)
from kb.embedding.service import EmbeddingService
from kb.errors import SearchCancelled
from kb.retrieve import cite
from kb.retrieve.calibration import (
    GENERIC,
    Calibration,
    load_calibration,
    load_judge_model,
    near_duplicate_cosine,
)
from kb.retrieve.decay import apply_decay
from kb.retrieve.evidence import judge_candidates
from kb.retrieve.expand import UNUSABLE, try_expand
from kb.retrieve.floor import apply_floor
from kb.retrieve.freshness import check_files
from kb.retrieve.fuse import fuse
from kb.retrieve.handout import hand_out
from kb.retrieve.hybrid import recall_lists
from kb.retrieve.judge import JUDGE_TOP_N, Verdict
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.lexicon import crosses_languages, shared_lexicon
from kb.retrieve.ranked import Ranking
from kb.retrieve.recall import interruptible
from kb.retrieve.reorder import order_top
from kb.retrieve.scope import scope
from kb.retrieve.terms import Term, content_terms, translation_tokens
from kb.retrieve.trace import Trace
from kb.store import Store
from kb.store.search import Filters
from kb.store.textindex import has_search_text
from kb.types import Diagnostics, RecallList, SearchResult

log = logging.getLogger(__name__)
NOTHING_TO_SEARCH = "nothing to search for: the query holds no letter, digit or symbol"


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
    """

    embedding: EmbeddingService | None = None
    embedding_problem: str | None = None
    llm: LLM | None = None
    reranker: Reranker | None = None
    settings: PipelineSettings = field(default_factory=PipelineSettings)
    judge_model: JudgeModel | None = None


def _failed(query: str, reason: str, trace: Trace | None = None) -> SearchResult:
    """A search that could not run: an error, never "the documents do not hold the answer"."""
    trace = trace or Trace()
    diag = Diagnostics(stages=tuple(trace.stages), degraded=tuple(trace.degraded), error=reason)
    return SearchResult(query, (), cite.failed_block(reason), False, diag)


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
    """Run the six stages (see module docstring).

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
        A ``SearchResult``; empty and ``insufficient_evidence`` with the reason
        ``NOTHING_TO_SEARCH`` on a skipped ``recall`` stage for a query of punctuation
        only (``...``, ``*``); empty with ``diagnostics.error`` set, ``insufficient_evidence``
        false and a context block saying the search failed, for an empty query, a cancelled
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
    if not has_search_text(query):  # "...", "()", "*": not a caller mistake, nothing to find
        trace = Trace()
        trace.skip("recall", NOTHING_TO_SEARCH)
        diag = Diagnostics(stages=tuple(trace.stages))
        return SearchResult(query, (), cite.context_block((), weak=False), True, diag)
    trace = Trace(cancel=cancel)
    try:  # reading the store is search-time: a corrupt row must not raise to the caller
        with store.snapshot(), interruptible(store, cancel):  # one snapshot per search
            created = store.created_at_map()
            filters = scope(options, created)
            return _search(store, query, options, engines, filters, created,
                           now or datetime.now(UTC), trace)
    except SearchCancelled as exc:
        return _failed(query, str(exc), trace)
    except Exception as exc:  # the assistant's turn must never see an exception
        if cancel is not None and cancel.is_set():  # any stage's statement "interrupted"
            return _failed(query, "search cancelled by the caller", trace)
        log.info("search failed", exc_info=True)  # the result says why, in one line
        return _failed(query, f"search failed: {type(exc).__name__}: {exc}", trace)


def ranking(store: Store, query: str, options: SearchOptions, *, engines: Engines,
            now: datetime) -> Ranking:
    """Stages 1-6 without the hand-out (for evaluation): the ranking and the judge's verdicts.

    Args:
        store: the open store.
        query: the question (unpaired surrogates become U+FFFD, as in ``search``).
        options: scope and switches (evaluation passes ``decay=False``).
        engines: available models.
        now: reference time for decay.

    Returns:
        The ``Ranking``: candidates in final order with what each stage saw.

    Unlike ``search`` it raises whatever a stage raises.
    """
    created = store.created_at_map()
    filters = scope(options, created)
    return rank(store, well_formed(query), options, engines, filters, created, now, Trace())


def rank(store: Store, query: str, options: SearchOptions, engines: Engines,
         filters: Filters, created: dict[int, datetime], now: datetime,
         trace: Trace) -> Ranking:
    """Stages 1-6 without the hand-out and citing (shared by ``search`` and the evaluation)."""
    settings = engines.settings
    # 1. expand
    if engines.llm is None:
        queries = [query]
        trace.skip("expand", "no LLM configured")
    elif not settings.expand:
        queries = [query]
        trace.skip("expand", "switched off by settings")
    else:
        llm = engines.llm
        queries, llm_error = trace.run("expand", lambda: try_expand(
            store, llm, query, timeout_s=settings.helper_timeout_s))
        if llm_error == UNUSABLE:  # the model answered: the reranker may still use it
            trace.degraded.append(f"expand: {UNUSABLE}; original query only")
        elif llm_error:
            # One stalled helper call per search is the most a user waits for: the LLM
            # reranker is skipped for this search too.
            trace.degraded.append(f"expand: LLM failed ({llm_error}); original query only, "
                                  "LLM rerank skipped")
            engines = replace(engines, llm=None)
    # 2. recall
    pool = settings.pool or max(CANDIDATE_POOL_MIN, 3 * options.top_k)
    service = engines.embedding if settings.recall != "bm25" else None
    calibration = GENERIC
    if service is not None and not store.has_vectors(service.fingerprint.key):
        trace.degraded.append(f"vectors: the index holds none from {service.embedder.model_id} "
                              "(run `kb reembed`); BM25 only")
        service = None
    elif service is None:
        if settings.recall != "bm25":
            trace.degraded.append(
                f"vectors: {engines.embedding_problem or 'no embedder'}; BM25 only")
    else:
        calibration = load_calibration(store, service.fingerprint.key,
                                       service.embedder.model_id)
    lists, terms = trace.run("recall", lambda: _recall(store, query, queries, pool, filters,
                                                       service, calibration, settings, trace))
    counts = tuple((lst.name, len(lst.hits)) for lst in lists)
    vectors_used = any(lst.kind == "vector" for lst in lists)
    # 3. fuse, decay
    fused = trace.run("fuse", lambda: fuse(lists, rrf_k=settings.rrf_k,
                                           weighted=settings.weighted_fusion))
    if options.decay:
        fused = trace.run("decay", lambda: apply_decay(fused, created, now))
    else:
        trace.skip("decay", "switched off by the request")
    if options.explain:
        trace.explain.append(("fuse", tuple((c.chunk_id, round(c.score, 6)) for c in fused[:50])))
    # 4. floor
    relaxed, dropped, best_below, floor_value = False, 0, None, None
    if vectors_used and settings.floor:
        result = trace.run("floor", lambda: apply_floor(fused, floor=calibration.floor,
                                                           keyword_min=settings.keyword_min))
        kept, relaxed, dropped, best_below = (list(result.kept), result.relaxed, result.dropped,
                                              result.best_below)
        floor_value = calibration.floor
        if relaxed:
            trace.degraded.append("floor: every candidate was below it; best few kept, flagged")
    else:
        kept = fused
        trace.skip("floor", "switched off by settings" if vectors_used
                   else "no vectors: the floor needs cosine scores")
    # the files behind the top N: a gone one is never evidence, a changed one is flagged
    files = check_files(kept, store.documents_by_id, n=RERANK_TOP_N)
    kept = list(files.kept)
    # 5. rerank the top N; 6. judge the best matches whatever their age (decay orders only)
    head = sorted(kept, key=lambda c: (-c.evidence, c.chunk_id))[:JUDGE_TOP_N]
    top = kept[:RERANK_TOP_N]
    late = [c for c in head if c not in top]
    if late:
        files, late = files.extended(late, store.documents_by_id)
        head = [c for c in head if c in top or c in late]
    if files.gone:
        shown = ", ".join(files.gone[:2]) + (", ..." if len(files.gone) > 2 else "")
        trace.degraded.append(f"files: {len(files.gone)} document(s) left out, their files are "
                              f"gone ({shown}); `kb sync` of their folder removes them")
    top += late
    in_top = {c.chunk_id for c in top}
    chunks = store.chunks([c.chunk_id for c in top])
    texts = {cid: ch.text for cid, ch in chunks.items()}
    vectors = (store.vectors_of([c.chunk_id for c in top], service.fingerprint.key)
               if service is not None else {})
    judged: dict[int, float] | None = None
    verdicts: dict[int, Verdict] | None = None
    if settings.rerank == "off":
        ordered = top
        trace.skip("rerank", "switched off by settings")
    else:
        ordered, judged = trace.run("rerank", lambda: order_top(
            store, query, top, reranker=engines.reranker, llm=engines.llm,
            settings=settings, vectors=vectors, texts=texts, trace=trace))
    if judged is not None:
        trace.skip("judge", "a cross-encoder or the LLM judged the candidates")
    elif not settings.judge:
        trace.skip("judge", "switched off by settings")
    elif top:
        model = engines.judge_model or load_judge_model(
            store, service.fingerprint.key if service else None,
            service.embedder.model_id if service else None)
        # the ranking keeps the fused order: reordered by answer_p it lost nDCG@10 on every
        # bundled set; the judge decides what is handed out, and in which order (_search)
        verdicts, problem = trace.run("judge", lambda: judge_candidates(
            store, query, terms, head, chunks, model))
        if problem:
            trace.degraded.append(f"judge: index statistics unavailable ({problem}); every "
                                  "term counts as rare")
    if options.explain:
        trace.explain.append(("rerank", tuple((c.chunk_id, round(c.score, 6))
                                              for c in ordered)))
    return Ranking((*ordered, *(c for c in kept if c.chunk_id not in in_top)), tuple(queries),
                   counts, calibration, floor_value, dropped, best_below, relaxed, vectors, chunks,
                   judged, verdicts, files)


def _recall(store: Store, query: str, queries: list[str], pool: int, filters: Filters,
            service: EmbeddingService | None, calibration: Calibration,
            settings: PipelineSettings, trace: Trace) -> tuple[list[RecallList], list[Term]]:
    """Stage 2: the recall lists, and the original query's content terms for the judge.

    When the index holds text in the other of Chinese and English, the terms carry their
    dictionary translations and a translated BM25 list joins the others.
    """
    try:
        mix = store.script_mix()
    except sqlite3.OperationalError:
        trace.check()  # "interrupted" by a cancellation
        raise
    lexicon = shared_lexicon() if crosses_languages(query, mix) else None
    terms = content_terms(query, lexicon)
    translations = [translation_tokens(t) for t in terms] if lexicon is not None else None
    lists = recall_lists(store, queries, pool, filters, service, calibration, settings, trace,
                         translations)
    return lists, terms


def _search(store: Store, query: str, options: SearchOptions, engines: Engines,
            filters: Filters, created: dict[int, datetime], now: datetime,
            trace: Trace) -> SearchResult:
    r = rank(store, query, options, engines, filters, created, now, trace)
    out = hand_out([c for c in r.ordered if c.chunk_id in r.chunks], options,
                   verdicts=r.verdicts, judged=r.judged, relaxed=r.relaxed,
                   rerank_min_score=engines.settings.rerank_min_score,
                   texts={cid: ch.text for cid, ch in r.chunks.items()}, vectors=r.vectors,
                   near_duplicate_cosine=near_duplicate_cosine(r.calibration,
                                                               NEAR_DUPLICATE_COSINE))
    # 6. hand out (above) and cite, from the chunk and document rows rank() read
    refs = trace.run("cite", lambda: cite.references(out.selected, r.chunks, r.files.documents,
                                                     out.relevance, out.weak, r.files.stale))
    insufficient = out.insufficient or not refs
    diag = Diagnostics(stages=tuple(trace.stages), degraded=tuple(trace.degraded),
                       candidates=r.counts, floor=r.floor, floor_dropped=r.dropped,
                       best_below_floor=r.best_below, queries=r.queries,
                       explain=tuple(trace.explain), judged_out=out.judged_out,
                       gone=r.files.gone, judge=cite.judge_records(refs, r.verdicts),
                       best_answer_p=None if r.verdicts is None else round(max(
                           (v.answer_p for v in r.verdicts.values()), default=0.0), 4))
    return SearchResult(query, tuple(refs), cite.context_block(refs, weak=insufficient),
                        insufficient, diag)

