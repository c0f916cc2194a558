"""Stage 5, judge/rerank: order the top candidates, judge them; keep near-duplicates out.

``rerank`` is the stage: it orders the candidates ``kb.retrieve.evidence`` gathered, then, when
no model judged them, lets the offline judge (``kb.retrieve.judge``) score its passages.

Ordering policy (DESIGN 4.5): a cross-encoder ``Reranker`` when configured (and ``rerank`` is
``auto``), else the LLM as reranker (``kb.retrieve.llm_rerank``), each giving relevance scores in
[0, 1]; a failing model is a degraded note and Maximal Marginal Relevance (Carbonell &
Goldstein, SIGIR 1998) orders instead, as it does when neither is configured::

    MMR = argmax_{d in R - S} [ lambda * rel(d) - (1 - lambda) * max_{s in S} sim(d, s) ]

with ``lambda = 0.7``, ``rel`` the fused score scaled to [0, 1] by the best candidate, and
``sim`` the cosine of stored vectors (token-set Jaccard when a chunk has no vector).

Whatever the ordering, ``select`` then walks it and skips a chunk that is a near-duplicate of
one already taken, in this document or another (identical normalised text; character 5-gram
Jaccard resemblance >= 0.8 between chunks of 200 characters or more, e.g. a mail disclaimer
differing by one word; or cosine above the model's near-duplicate threshold), or whose
document already has ``max_per_doc`` chunks taken.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kb.backends import Reranker
from kb.config import (
    MMR_LAMBDA,
    NEAR_DUPLICATE_COSINE,
    NEAR_DUPLICATE_JACCARD,
    NEAR_DUPLICATE_MIN_CHARS,
    SHINGLE_CHARS,
    PipelineSettings,
)
from kb.errors import SearchCancelled
from kb.retrieve.evidence import Evidence
from kb.retrieve.judge import judge
from kb.retrieve.judge_data import Verdict
from kb.retrieve.llm_rerank import LLM_RERANK_MAX, llm_grades
from kb.retrieve.terms import Term
from kb.retrieve.trace import Trace
from kb.store.llm_cache import CachedLLM
from kb.store.textindex import tokenize
from kb.types import Candidate

log = logging.getLogger(__name__)

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Reordered:
    """Stage 5's result.

    Attributes:
        ordered: the gathered top candidates in their new order.
        judged: chunk id -> relevance in [0, 1] from a judging reranker (cross-encoder or
            LLM) for the candidates it scored, or ``None`` when MMR (or nothing) ordered them.
        verdicts: chunk id -> the offline judge's verdict for the candidates it judged, or
            ``None`` when it did not run.
    """

    ordered: tuple[Candidate, ...]
    judged: dict[int, float] | None
    verdicts: dict[int, Verdict] | None


def rerank(query: str, evidence: Evidence, terms: Sequence[Term], *,
           reranker: Reranker | None, llm: CachedLLM | None, settings: PipelineSettings,
           explain: bool, trace: Trace) -> Reordered:
    """Order ``evidence.top``, then judge it unless a model already did (module docstring).

    Args:
        query: the user's question.
        evidence: the candidates and what was read about them.
        terms: the query's content terms.
        reranker: a cross-encoder, or ``None``.
        llm: the (caching) chat model, or ``None`` (also when expansion found it failing).
        settings: ``rerank``, ``judge``, ``helper_timeout_s`` and ``mmr_lambda``.
        explain: record the new order in ``trace.explain``.
        trace: times the ``rerank`` and ``judge`` stages; receives degraded notes.
    """
    ordered: Sequence[Candidate] = evidence.top
    judged: dict[int, float] | None = None
    verdicts: dict[int, Verdict] | None = None
    if settings.rerank == "off":
        trace.skip("rerank", "switched off by settings")
    else:
        ordered, judged = trace.run("rerank", lambda: order_top(
            query, evidence.top, reranker=reranker, llm=llm, settings=settings,
            vectors=evidence.vectors,
            texts={cid: ch.text for cid, ch in evidence.chunks.items()}, trace=trace))
    inputs = evidence.judge
    if judged is not None:
        trace.skip("judge", "a cross-encoder or the LLM judged the candidates")
    elif not settings.judge:
        trace.skip("judge", "switched off by settings")
    elif inputs is not None:
        # the ranking keeps the fused order: reordered by answer_p it lost nDCG@10 on every
        # bundled set; the judge decides what is handed out, and in which order (cite)
        try:
            verdicts = trace.run("judge", lambda: {v.chunk_id: v for v in judge(
                query, terms, inputs.passages, inputs.stats, inputs.model)})
        except SearchCancelled:
            raise
        except Exception as exc:  # a fault in one of its rules: say no, and say why
            log.exception("the offline judge failed on %r", query)
            verdicts = {}  # nothing passed: the closest passages are listed, flagged weak
            trace.degraded.append(f"judge: failed ({type(exc).__name__}: {exc}); no passage "
                                  "was judged to answer, the closest are listed as weak")
        if inputs.problem:
            trace.degraded.append(f"judge: index statistics unavailable ({inputs.problem}); "
                                  "every term counts as rare")
    if explain:
        trace.list_scores("rerank", ((c.chunk_id, c.score) for c in ordered))
    return Reordered(tuple(ordered), judged, verdicts)


def order_top(query: str, top: Sequence[Candidate], *, reranker: Reranker | None,
              llm: CachedLLM | None, settings: PipelineSettings,
              vectors: Mapping[int, np.ndarray], texts: Mapping[int, str], trace: Trace
              ) -> tuple[list[Candidate], dict[int, float] | None]:
    """Order ``top`` (best first by fused score): a cross-encoder, else the LLM, else MMR.

    Args:
        query: the user's question.
        top: the candidates to order.
        reranker: a cross-encoder, or ``None``.
        llm: the (caching) chat model, or ``None``.
        settings: ``rerank``, ``helper_timeout_s`` and ``mmr_lambda``.
        vectors: chunk id -> stored vector (MMR's similarity).
        texts: chunk id -> raw chunk text.
        trace: receives a degraded note when a model fails.

    Returns:
        All of ``top`` in the new order, and, when a model judged them, its relevance in
        [0, 1] by chunk id (``None`` after MMR).
    """
    top = list(top)
    passages = [texts.get(c.chunk_id, "") for c in top]
    if reranker is not None and settings.rerank == "auto":
        try:
            scores = reranker.score(query, passages)
            return (order_by_scores(top, scores),
                    {c.chunk_id: float(s) for c, s in zip(top, scores, strict=True)})
        except Exception as exc:
            trace.degraded.append(f"rerank: cross-encoder failed ({exc}); MMR used")
    elif llm is not None and settings.rerank == "auto":
        head = top[:LLM_RERANK_MAX]
        try:
            grades = llm_grades(llm, query, passages[:LLM_RERANK_MAX],
                                timeout_s=settings.helper_timeout_s)
            return (order_by_scores(head, grades) + top[LLM_RERANK_MAX:],
                    {c.chunk_id: g for c, g in zip(head, grades, strict=True)})
        except Exception as exc:
            trace.degraded.append(f"rerank: LLM reranker failed ({exc}); MMR used")
    tokens = {cid: frozenset(tokenize(t)) for cid, t in texts.items() if cid not in vectors}
    return mmr_order(top, vectors, tokens, mmr_lambda=settings.mmr_lambda), None


def normalise_text(text: str) -> str:
    """Case-folded text with whitespace collapsed (near-duplicate key)."""
    return _SPACE.sub(" ", text).strip().casefold()


def shingles(text: str, n: int = SHINGLE_CHARS) -> frozenset[str]:
    """The character ``n``-grams of ``text`` after ``normalise_text``.

    A text shorter than ``n`` is one shingle, itself.
    """
    key = normalise_text(text)
    return frozenset(key[i:i + n] for i in range(max(1, len(key) - n + 1)))


def resemblance(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard resemblance of two shingle sets, in [0, 1] (0.0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _similarity_matrix(ids: Sequence[int], vectors: Mapping[int, np.ndarray],
                       tokens: Mapping[int, frozenset[str]]) -> np.ndarray:
    """Pairwise similarity of candidates, shape (n, n), float64, symmetric.

    Cosine of the stored vectors where both chunks have one, else token-set Jaccard (0.0 when
    either set is empty).
    """
    n = len(ids)
    sim = np.zeros((n, n), dtype=np.float64)
    with_vector = [i for i, cid in enumerate(ids) if cid in vectors]
    if with_vector:
        m = np.stack([vectors[ids[i]] for i in with_vector]).astype(np.float32)
        sim[np.ix_(with_vector, with_vector)] = m @ m.T
    has = set(with_vector)
    for a in range(n):
        for b in range(a + 1, n):
            if a in has and b in has:
                continue
            ta, tb = tokens.get(ids[a], frozenset()), tokens.get(ids[b], frozenset())
            sim[a, b] = sim[b, a] = len(ta & tb) / len(ta | tb) if ta and tb else 0.0
    return sim


def mmr_order(candidates: Sequence[Candidate], vectors: Mapping[int, np.ndarray],
              tokens: Mapping[int, frozenset[str]], *, mmr_lambda: float = MMR_LAMBDA
              ) -> list[Candidate]:
    """Reorder candidates by Maximal Marginal Relevance (see module docstring).

    Ties (equal MMR value) go to the smaller chunk id, so the order is deterministic.

    Args:
        candidates: best first by fused score.
        vectors: chunk id -> L2-normalised vector (may miss some).
        tokens: chunk id -> token set, used when a vector is missing.
        mmr_lambda: relevance weight in [0, 1]; 1.0 keeps the fused order.

    Returns:
        All candidates, in MMR order.
    """
    if not candidates:
        return []
    ids = [c.chunk_id for c in candidates]
    sim = _similarity_matrix(ids, vectors, tokens)
    best = max(c.score for c in candidates) or 1.0
    relevance = mmr_lambda * np.array([c.score for c in candidates], dtype=np.float64) / best
    chunk_ids = np.array(ids, dtype=np.int64)
    max_sim = np.zeros(len(candidates), dtype=np.float64)
    open_ = np.ones(len(candidates), dtype=bool)
    chosen: list[Candidate] = []
    for _ in range(len(candidates)):
        value = np.where(open_, relevance - (1 - mmr_lambda) * max_sim, -np.inf)
        tied = np.flatnonzero(value == value.max())
        pick = int(tied[np.argmin(chunk_ids[tied])])
        open_[pick] = False
        chosen.append(candidates[pick])
        np.maximum(max_sim, sim[pick], out=max_sim)
    return chosen


def order_by_scores(candidates: Sequence[Candidate], scores: Sequence[float]
                    ) -> list[Candidate]:
    """Reorder by external relevance scores (cross-encoder or LLM), ties by fused order."""
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [candidates[i] for i in ranked]


@dataclass(frozen=True, slots=True)
class JudgeCut:
    """What a judging reranker let through.

    Attributes:
        kept: the candidates handed on, order preserved.
        judged_out: candidates among those offered that the judge scored below the bar.
        rejected_all: the judge rejected every candidate; ``kept`` then holds the best few it
            judged, to be flagged as weak evidence.
    """

    kept: tuple[Candidate, ...]
    judged_out: int
    rejected_all: bool


def judge_cut(candidates: Sequence[Candidate], judged: Mapping[int, float] | None, *,
              min_score: float, relax_keep: int) -> JudgeCut:
    """Keep what a cross-encoder or the LLM judged relevant enough: a stage that says "no".

    Args:
        candidates: in final order.
        judged: chunk id -> the judge's relevance in [0, 1] (higher is better), or ``None``
            when nothing judged them (MMR): then everything is kept.
        min_score: the bar in [0, 1]; 0 keeps everything. A candidate the judge did not score
            (beyond its batch) counts as below the bar.
        relax_keep: how many judged candidates stay when the judge rejects them all.
    """
    if judged is None or min_score <= 0:
        return JudgeCut(tuple(candidates), 0, False)
    passing = tuple(c for c in candidates if judged.get(c.chunk_id, -1.0) >= min_score)
    judged_out = sum(1 for c in candidates
                     if c.chunk_id in judged and judged[c.chunk_id] < min_score)
    if passing:
        return JudgeCut(passing, judged_out, False)
    return JudgeCut(tuple(c for c in candidates if c.chunk_id in judged)[:relax_keep],
                    judged_out, True)


def select(ordered: Sequence[Candidate], texts: Mapping[int, str],
           vectors: Mapping[int, np.ndarray], *, k: int, max_per_doc: int,
           near_duplicate_cosine: float = NEAR_DUPLICATE_COSINE,
           near_duplicate_jaccard: float = NEAR_DUPLICATE_JACCARD) -> list[Candidate]:
    """Take up to ``k`` candidates in order, skipping near-duplicates and over-cap documents.

    A candidate is a near-duplicate of one taken before it when their normalised texts are
    equal, their shingle sets' resemblance is at least ``near_duplicate_jaccard`` (both texts
    at least ``NEAR_DUPLICATE_MIN_CHARS`` long after normalising), or their vectors' cosine
    exceeds ``near_duplicate_cosine``.
    """
    taken: list[Candidate] = []
    keys: set[str] = set()
    taken_shingles: list[frozenset[str]] = []  # of the taken chunks long enough to compare
    per_doc: dict[int, int] = {}
    for c in ordered:
        if len(taken) >= k:
            break
        text = texts.get(c.chunk_id, "")
        key = normalise_text(text)
        if key in keys or per_doc.get(c.doc_id, 0) >= max_per_doc:
            continue
        grams = shingles(text) if len(key) >= NEAR_DUPLICATE_MIN_CHARS else None
        if grams is not None and any(resemblance(grams, t) >= near_duplicate_jaccard
                                     for t in taken_shingles):
            continue
        v = vectors.get(c.chunk_id)
        if v is not None and any(
            t.chunk_id in vectors and float(v @ vectors[t.chunk_id]) > near_duplicate_cosine
            for t in taken
        ):
            continue
        taken.append(c)
        keys.add(key)
        if grams is not None:
            taken_shingles.append(grams)
        per_doc[c.doc_id] = per_doc.get(c.doc_id, 0) + 1
    return taken
