"""``kb eval``: measure one golden set end to end with one pipeline configuration.

For each set the steps are:

1. **Index** (``kb.eval.cached_index.open_cached_index``): build or reuse the set's index in a
   cache directory, ``<cache_dir>/<set>-<embedder>.db``; vectors are embedded once and reused
   while the corpus, the embedder and the chunk settings are unchanged (a digest of the three is
   stored in the index; a mismatch rebuilds it).
2. **Ranking** (``kb.eval.retrieval.evaluate``): every judged query ranked by the pipeline (stages
   1-5), scored per document: recall@k, precision@k, nDCG@k, MRR@k and MRR, plus the ranking
   latency p50 (``rank_p50_ms``).
3. **Precision gate** (``kb.eval.precision.evaluate_precision``), for sets with ``distractors.tsv``
   or unanswerable questions (no relevant document; the distractor shares need the file):
   ``reference_precision@3`` (relevant share of the references handed out), ``distractor_
   pass_through`` (share of references that are planted distractors, lower is better) and
   ``refusal_rate`` (share of unanswerable queries answered with insufficient evidence) and
   ``false_refusal_rate`` (share of answerable ones flagged so, lower is better).
4. **Latency** (``measure_latency``, run before step 2 while no query embedding is cached): the
   full search (``kb.retrieve.pipeline.search``) over the first ``LATENCY_QUERIES`` queries after
   one warm-up search: ``search_p50_ms``, ``search_p95_ms`` and each stage's p50 from the
   diagnostics (the query embedding is part of ``recall``).
5. **Faithfulness gate** (``kb.eval.answer_gate``, DESIGN 7.3), with an LLM and for sets with
   ``distractors.tsv``: every question (or ``--faithfulness-limit`` of them) answered from its
   references and judged: faithfulness, answer relevance, context relevance, refusals and the
   unsupported statements. Without an LLM it is reported ``skipped``, never passed.

With an LLM or reranker configured, their replies are cached in the set's index as in any kb
index, so a later run (and every pass after the first in one run) times the cache, not the model.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kb.api import KnowledgeBase
from kb.config import Config, PipelineSettings, SearchOptions
from kb.eval.answer_gate import AnswerGateConfig, AnswerGateReport, judge_dataset
from kb.eval.cached_index import (
    IndexInfo,
    ProgressFn,
    cache_path,
    index_digest,
    open_cached_index,
)
from kb.eval.datasets import load_qrels, load_queries
from kb.eval.precision import evaluate_precision, load_distractors
from kb.eval.retrieval import FIXED_TIME, engines_for, evaluate
from kb.eval.stages import (
    Comparison,
    SkippedStage,
    compare,
    skipped_stages,
    stage_variants,
)
from kb.retrieve.pipeline import search as run_search

ANSWERABILITY = "answerability"  # golden/answerability: the judge's set (answerability_gate)
DEFAULT_SETS = ("scifact-small", "cmrc2018-small", "precision", ANSWERABILITY)  # CI-sized sets
LATENCY_QUERIES = 50  # queries timed through the full search per set (after one warm-up)
WARM_UP_QUERY = "warm-up search, not timed"  # not a set query: its embedding must not be cached
PRECISION_K = 3  # references judged by the precision gate (DESIGN 7.2)


@dataclass(frozen=True, slots=True)
class Faithfulness:
    """The faithfulness gate's outcome: ``skipped`` unless a judge LLM measured it.

    The measurements themselves are in each ``SetReport.answers``; the gate's bounds are
    checked by ``kb.eval.gates.check_faithfulness``.

    Attributes:
        status: ``measured``, or ``skipped`` (never ``passed`` without a measurement).
        reason: what was measured, or why not, in one sentence.
        answerer: the model that answered (``model_id``), when measured.
        judge: the model that judged, when measured.
    """

    status: Literal["skipped", "measured"]
    reason: str
    answerer: str | None = None
    judge: str | None = None


FAITHFULNESS_SKIPPED = Faithfulness(
    "skipped", "no judge LLM configured; faithfulness, answer relevance and context relevance "
    "were not measured (pass --llm to run the faithfulness gate)")


@dataclass(frozen=True, slots=True)
class StageCheck:
    """The stage check of one set.

    Attributes:
        baseline: the configured settings' metrics, measured with the variants.
        comparisons: each measured variant against the configured settings.
        skipped: stages that could not be measured, with the reason.
    """

    baseline: dict[str, float]
    comparisons: tuple[Comparison, ...]
    skipped: tuple[SkippedStage, ...]


@dataclass(frozen=True, slots=True)
class SetReport:
    """Everything measured on one set.

    Attributes:
        name: the set name (a bundled golden set, or a folder's name).
        dataset: the set's directory.
        queries: judged queries ranked.
        precision_queries: (answerable, unanswerable) queries of the precision gate, or
            ``None`` when the set has no ``distractors.tsv`` and no unanswerable question.
        metrics: metric name -> value; ranking metrics and precision-gate metrics in [0, 1],
            latencies in ms (names ending ``_ms``). These are the names ``gates.toml`` uses.
        stage_p50_ms: pipeline stage -> p50 time in ms over the timed searches.
        notes: degraded-mode notes the searches reported (e.g. BM25 only), deduplicated.
        index: the index measured.
        stages: the stage check, when requested.
        answers: the faithfulness gate on this set, when measured.
    """

    name: str
    dataset: str
    queries: int
    precision_queries: tuple[int, int] | None
    metrics: dict[str, float]
    stage_p50_ms: dict[str, float]
    notes: tuple[str, ...]
    index: IndexInfo
    stages: StageCheck | None = None
    answers: AnswerGateReport | None = None


def measure_quality(kb: KnowledgeBase, dataset: Path,
                    settings: PipelineSettings) -> tuple[dict[str, float], int,
                                                         tuple[int, int] | None]:
    """Ranking metrics and, when the set allows it, the precision gate's metrics.

    The gate runs with ``distractors.tsv``, or with unanswerable questions: those a top-level
    ``qrels.tsv`` names none of the documents of.

    Returns:
        (metrics, judged queries ranked, (answerable, unanswerable) or ``None``); metrics as in
        ``SetReport.metrics`` except the full-search latencies.

    """
    ranking = evaluate(kb, dataset, settings)
    metrics = dict(ranking.metrics)
    metrics["rank_p50_ms"] = ranking.latency_ms_p50
    counts = None
    planted = bool(load_distractors(dataset))
    qrels = load_qrels(dataset)  # or, in kb's own layout (qrels.tsv: BEIR's qrels/test.tsv
    if planted or (dataset / "qrels.tsv").is_file() and any(  # leaves other splits' queries
            q._id not in qrels for q in load_queries(dataset)):  # unjudged), unanswerable ones
        gate = evaluate_precision(kb, dataset, k=PRECISION_K, engines=engines_for(kb, settings))
        counts = (gate.answerable, gate.unanswerable)
        if gate.answerable:
            metrics[f"reference_precision@{PRECISION_K}"] = gate.precision_at_k
            metrics["false_refusal_rate"] = gate.false_refusal_rate
        if planted:
            metrics["distractor_pass_through"] = gate.distractor_pass_through
            metrics["distractor_evidence_rate"] = gate.distractor_evidence_rate
        if gate.unanswerable:
            metrics["refusal_rate"] = gate.refusal_rate
    return metrics, len(ranking.run), counts


def measure_latency(kb: KnowledgeBase, dataset: Path, settings: PipelineSettings, *,
                    queries: int = LATENCY_QUERIES
                    ) -> tuple[dict[str, float], dict[str, float], tuple[str, ...]]:
    """Time the full search over the set's first ``queries`` queries, after one warm-up.

    Returns:
        ({"search_p50_ms", "search_p95_ms"}, stage -> p50 ms over the searches where the stage
        ran, degraded-mode notes seen), all times in milliseconds.

    """
    texts = [q.text for q in load_queries(dataset)][:queries]
    engines = engines_for(kb, settings)
    options = SearchOptions(decay=False)
    notes: dict[str, None] = {}
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    for i, text in enumerate([WARM_UP_QUERY, *texts]):
        start = time.perf_counter()
        result = run_search(kb.store, text, options, engines=engines, now=FIXED_TIME)
        elapsed = (time.perf_counter() - start) * 1e3
        if i == 0:  # warm-up: model load, matrix and tokenizer caches
            continue
        totals.append(elapsed)
        notes.update(dict.fromkeys(result.diagnostics.degraded))
        if result.diagnostics.error:
            notes[result.diagnostics.error] = None
        for s in result.diagnostics.stages:
            if s.status == "ran":
                stages.setdefault(s.stage, []).append(s.ms)
    if not totals:
        return {}, {}, ()
    search = {"search_p50_ms": statistics.median(totals),
              "search_p95_ms": _percentile(totals, 95)}
    return search, {k: statistics.median(v) for k, v in stages.items()}, tuple(notes)


def evaluate_set(name: str, dataset: Path, db_path: Path, *, config: Config,
                 settings: PipelineSettings, stages: bool = False,
                 answers: AnswerGateConfig | None = None,
                 on_progress: ProgressFn | None = None) -> SetReport:
    """Measure one set (steps 1-5 of the module docstring), and optionally its stage check.

    Args:
        name: the set's name, as it appears in reports and ``gates.toml``.
        dataset: the set's directory.
        db_path: its cached index file (see ``cache_path``).
        config: the backends (embedder, LLM, reranker) to measure with.
        settings: the pipeline configuration measured (and the stage check's reference).
        stages: also run the stage check.
        answers: run the faithfulness gate with this configuration (when ``config`` has an
            LLM and the set has ``distractors.tsv``).
        on_progress: index-build and answering progress callback.

    Returns:
        The set's report.

    Raises:
        FileNotFoundError: a file of the set is missing.
        ValueError: the set is malformed, or no query has a relevant document.

    """
    kb, info = open_cached_index(dataset, db_path, config, on_progress=on_progress)
    try:  # latency first, while the in-process query-embedding cache is cold
        search, stage_ms, notes = measure_latency(kb, dataset, settings)
        metrics, queries, counts = measure_quality(kb, dataset, settings)
        metrics.update(search)
        judged = None
        if answers is not None and kb.llm is not None and counts is not None:
            judged = judge_dataset(kb, dataset, settings=settings, config=answers,
                                   on_progress=on_progress)
        check = stage_check(kb, dataset, settings) if stages else None
    finally:
        kb.close()
    notes = tuple(dict.fromkeys([*kb.problems, *notes]))
    return SetReport(name, str(dataset), queries, counts, metrics, stage_ms, notes, info, check,
                     judged)


def faithfulness_outcome(reports: Sequence[SetReport], *, llm: str | None) -> Faithfulness:
    """The faithfulness gate's status for a run: ``measured`` when some set was judged.

    Args:
        reports: the sets measured.
        llm: the answering LLM's spec, ``None`` when none was configured.

    """
    if llm is None:
        return FAITHFULNESS_SKIPPED
    answered = [r.answers for r in reports if r.answers is not None]
    if not answered:
        return Faithfulness("skipped", "no evaluated set has answerable and unanswerable "
                            "questions (distractors.tsv), or the LLM could not be set up; "
                            "evaluate --set precision")
    names = ", ".join(r.name for r in reports if r.answers is not None)
    questions = sum(len(a.items) for a in answered)
    return Faithfulness("measured", f"{questions} questions of {names} answered and judged",
                        answered[0].answerer, answered[0].judge)


def stage_check(kb: KnowledgeBase, dataset: Path, settings: PipelineSettings) -> StageCheck:
    """Measure ``settings`` and each of its stage variants on the set, and compare them.

    The configured settings are measured again here, right before the variants, so that every
    ranking latency in the comparison is taken in the same cache state.

    Args:
        kb: the set's open index.
        dataset: the set's directory.
        settings: the configured settings.

    Returns:
        The baseline, the comparisons in ``stage_variants`` order, and the stages that could
        not be measured.

    """
    service, _ = kb.embedding_service()
    has_vectors = service is not None and kb.store.counts()["vectors"] > 0
    baseline, _, _ = measure_quality(kb, dataset, settings)
    comparisons = []
    for variant in stage_variants(settings, llm_configured=kb.llm is not None,
                                  reranker_configured=kb.reranker is not None):
        if variant.needs_vectors and not has_vectors:
            continue
        metrics, _, _ = measure_quality(kb, dataset, variant.settings)
        comparisons.append(compare(variant, baseline, metrics))
    skipped = skipped_stages(
        llm_configured=kb.llm is not None, reranker_configured=kb.reranker is not None,
        created_at_distinct=len(set(kb.store.created_at_map().values())),
        has_vectors=has_vectors)
    return StageCheck(baseline, tuple(comparisons), tuple(skipped))


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # nearest-rank percentile
    return ordered[int(rank) - 1]


__all__ = [  # the cached index's names are kb.eval.cached_index's, re-exported
    "ANSWERABILITY", "DEFAULT_SETS", "FAITHFULNESS_SKIPPED", "LATENCY_QUERIES", "PRECISION_K",
    "WARM_UP_QUERY", "Faithfulness", "IndexInfo", "ProgressFn", "SetReport", "StageCheck",
    "cache_path", "evaluate_set", "faithfulness_outcome", "index_digest", "measure_latency",
    "measure_quality", "open_cached_index", "stage_check",
]
