"""Run the retrieval pipeline over a BEIR-format golden set and score it per document.

Each corpus document is indexed as one kb document (chunked as kb chunks any text, with the
title as context prefix); a query's ranking of *documents* is the order in which their chunks
first appear in the pipeline's final candidate order (a document scores by its best chunk).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kb.api import KnowledgeBase
from kb.config import DEFAULT_EMBEDDER, Config, PipelineSettings, SearchOptions
from kb.eval.datasets import load_corpus, load_qrels, load_queries
from kb.eval.metrics import evaluate_run
from kb.ingest.embed import backfill_vectors
from kb.ingest.records import ingest_records
from kb.retrieve.pipeline import Engines, ranking

SOURCE_PREFIX = "golden://"
EVAL_DEPTH = 100  # documents ranked per query (recall@100)
FIXED_TIME = datetime(2024, 1, 1, tzinfo=UTC)  # every golden document's created_at


@dataclass(frozen=True, slots=True)
class RunResult:
    """Metrics of one configuration over one set, and its latency per query in ms."""

    metrics: dict[str, float]
    run: dict[str, list[str]]
    latency_ms_p50: float


def open_index(dataset: Path, db_path: Path, *, embedder: str = DEFAULT_EMBEDDER,
               on_progress: Callable[[str, int, int], None] | None = None,
               config: Config | None = None) -> KnowledgeBase:
    """Open (building or completing if needed) the index of a golden set.

    Text goes in first; vectors are then backfilled and cached, so an interrupted build
    resumes where it stopped. ``config`` (the caller's: its embedder with the server address
    and key it needs, its chunk sizes) replaces ``Config(embedder=embedder)``.

    Raises:
        RuntimeError: the embedder failed while the vectors were built (the message says why).
    """
    kb = KnowledgeBase(db_path, config or Config(embedder=embedder))
    corpus = load_corpus(dataset)
    records = ((f"{SOURCE_PREFIX}{d._id}", d.title, d.text) for d in corpus)
    ingest_records(kb.store, records, chunk=kb.config.chunk, created_at=FIXED_TIME)
    service, _ = kb.embedding_service()
    if service is not None:
        kb.claim_fingerprint(service)
        _, error = backfill_vectors(service, on_progress)
        if error:
            raise RuntimeError(error)
    kb.store.refresh_status()
    return kb


def engines_for(kb: KnowledgeBase, settings: PipelineSettings) -> Engines:
    """The engines ``kb`` has (embedder, LLM, reranker) with ``settings`` as the stage switches."""
    service, problem = kb.embedding_service()
    return Engines(embedding=service, embedding_problem=problem, llm=kb.llm,
                   reranker=kb.reranker, settings=settings, cache_dir=kb.config.cache_dir)


def rank_documents(kb: KnowledgeBase, query: str, settings: PipelineSettings, *,
                   depth: int = EVAL_DEPTH) -> list[str]:
    """Corpus ids ranked by the pipeline (``kb.retrieve.pipeline.ranking``, decay off).

    Each document takes its best chunk's place.
    """
    engines = engines_for(kb, settings)
    options = SearchOptions(top_k=20, decay=False)
    result = ranking(kb.store, query, options, engines=engines, now=FIXED_TIME)
    doc_source = _doc_sources(kb)
    ranked: list[str] = []
    seen: set[int] = set()
    for c in result.ordered:
        if c.doc_id not in seen:
            seen.add(c.doc_id)
            ranked.append(doc_source[c.doc_id])
            if len(ranked) >= depth:
                break
    return ranked


_SOURCES: dict[str, dict[int, str]] = {}


def _doc_sources(kb: KnowledgeBase) -> dict[int, str]:
    key = f"{kb.store.path}:{kb.store.generation()}"
    if key not in _SOURCES:
        _SOURCES.clear()
        _SOURCES[key] = {d.id: d.source.removeprefix(SOURCE_PREFIX) for d in kb.documents()}
    return _SOURCES[key]


def evaluate(kb: KnowledgeBase, dataset: Path, settings: PipelineSettings, *,
             limit: int | None = None, ks: Sequence[int] = (1, 3, 5, 10, 100)) -> RunResult:
    """Run every judged query of ``dataset`` and compute recall@k, MRR, nDCG@10, precision@k."""
    qrels = load_qrels(dataset)
    queries = [q for q in load_queries(dataset) if q._id in qrels]
    if limit:
        queries = queries[:limit]
    run: dict[str, list[str]] = {}
    times = []
    for q in queries:
        start = time.perf_counter()
        run[q._id] = rank_documents(kb, q.text, settings)
        times.append((time.perf_counter() - start) * 1e3)
    metrics = evaluate_run(run, {q._id: qrels[q._id] for q in queries}, ks=tuple(ks))
    times.sort()
    return RunResult(metrics, run, times[len(times) // 2] if times else 0.0)
