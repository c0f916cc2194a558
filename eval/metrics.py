"""Ranking metrics as pure functions, defined exactly as trec_eval computes them.

Inputs are plain data:

- a *ranked list* ``ranked``: document ids, best first. Only the first occurrence of an id counts:
  later repeats are dropped before cutting at ``k`` (so a ranking of chunk hits mapped to their
  documents is read as the documents' ranking by their best chunk);
- *judgements* ``relevant``: document id -> integer grade; a grade > 0 means relevant (higher is
  more relevant), a grade <= 0 or an absent id means not relevant.

Every metric is in [0, 1], higher is better. A query with no relevant document scores 0.0 (as in
trec_eval); ``evaluate_run`` leaves such queries out of its averages.

Ties: trec_eval reads a run of *scores* and orders each query's documents by score descending,
ties broken by document id descending (``strcmp`` on docno, checked against pytrec_eval). Here a
run is already a ranked list, so there are no ties; to reproduce trec_eval from scored output,
sort by ``(-score, docid)`` with docid compared descending before calling these functions.

References:
    trec_eval 9.0 (usnistgov/trec_eval): ``P``, ``recall``, ``recip_rank``, ``ndcg_cut``.
    K. Järvelin & J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4), 2002 (nDCG). E. Voorhees, "The TREC-8 Question Answering Track Report",
    TREC 1999 (mean reciprocal rank).

"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial

DEFAULT_KS = (1, 3, 5, 10, 100)  # BEIR reports @1,3,5,10,100 (Thakur et al., 2021)

PerQueryMetric = Callable[[Sequence[str], Mapping[str, int]], float]
"""A per-query metric already bound to its cut-off: ``(ranked, relevant) -> score in [0, 1]``."""


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents that appear in the top ``k`` (trec_eval ``recall_k``).

    ``recall@k = |top_k(ranked) ∩ R| / |R|`` where ``R = {d : relevant[d] > 0}``; grades above 1
    count as 1.

    Args:
        ranked: document ids, best first (repeats count once, at the first occurrence).
        relevant: document id -> grade; grade > 0 is relevant.
        k: cut-off, a positive result count.

    Returns:
        Recall in [0, 1]; 0.0 when no document is relevant.

    Raises:
        ValueError: ``k`` is not a positive integer.

    """
    rel = _relevant_ids(relevant)
    if not rel:
        return 0.0
    hits = sum(1 for doc_id in _top(ranked, k) if doc_id in rel)
    return hits / len(rel)


def precision_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Share of the top ``k`` positions that hold a relevant document (trec_eval ``P_k``).

    ``precision@k = |top_k(ranked) ∩ R| / k``: the denominator is ``k`` even when fewer than
    ``k`` documents were ranked, as in trec_eval.

    Args:
        ranked: document ids, best first (repeats count once, at the first occurrence).
        relevant: document id -> grade; grade > 0 is relevant.
        k: cut-off, a positive result count.

    Returns:
        Precision in [0, 1].

    Raises:
        ValueError: ``k`` is not a positive integer.

    """
    rel = _relevant_ids(relevant)
    hits = sum(1 for doc_id in _top(ranked, k) if doc_id in rel)
    return hits / k


def reciprocal_rank(
    ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None
) -> float:
    """Reciprocal of the 1-based rank of the first relevant document (trec_eval ``recip_rank``).

    This is the per-query term of MRR. With ``k`` the ranking is cut first, so a first relevant
    document below rank ``k`` scores 0 (MRR@k, e.g. MS MARCO's MRR@10); trec_eval has no cut for
    this measure, which equals ``k=None``.

    Args:
        ranked: document ids, best first (repeats count once, at the first occurrence).
        relevant: document id -> grade; grade > 0 is relevant.
        k: optional cut-off, a positive result count; ``None`` reads the whole ranking.

    Returns:
        ``1 / rank`` in (0, 1], or 0.0 when no relevant document is ranked (within ``k``).

    Raises:
        ValueError: ``k`` is given and is not a positive integer.

    """
    rel = _relevant_ids(relevant)
    docs = _dedupe(ranked) if k is None else _top(ranked, k)
    for rank, doc_id in enumerate(docs, start=1):
        if doc_id in rel:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain at ``k`` (trec_eval ``ndcg_cut_k``).

    ``DCG@k = sum_{i=1..k} gain(d_i) / log2(i + 1)`` over the top ``k`` ranked documents, with the
    linear gain ``gain(d) = relevant[d]`` when that grade is > 0, else 0 (Järvelin & Kekäläinen's
    gain, as in trec_eval and pytrec_eval; not Burges' ``2^rel - 1``). ``IDCG@k`` is the DCG@k of
    the ideal ranking: every relevant judged document sorted by grade, descending, whether or not
    it was retrieved. ``nDCG@k = DCG@k / IDCG@k``.

    Args:
        ranked: document ids, best first (repeats count once, at the first occurrence).
        relevant: document id -> grade; grade > 0 is relevant and is the gain.
        k: cut-off, a positive result count.

    Returns:
        nDCG in [0, 1]; 0.0 when no document is relevant.

    Raises:
        ValueError: ``k`` is not a positive integer.

    """
    top = _top(ranked, k)
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    if not ideal:
        return 0.0
    dcg = sum(_gain(relevant, d) / math.log2(i + 1) for i, d in enumerate(top, start=1))
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg


def judged_queries(qrels: Mapping[str, Mapping[str, int]]) -> list[str]:
    """List the queries that have at least one relevant document (grade > 0), sorted by id.

    Args:
        qrels: query id -> document id -> grade.

    Returns:
        The query ids that the averages in this module run over.

    """
    return sorted(q for q, judgements in qrels.items() if any(g > 0 for g in judgements.values()))


def average(
    metric: PerQueryMetric,
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
) -> float:
    """Macro-average a per-query metric over the judged queries.

    The average runs over ``judged_queries(qrels)``: every query with at least one relevant
    document, each weighted equally. A judged query missing from ``run`` counts as an empty
    ranking (score 0), as with ``trec_eval -c``; queries in ``run`` without a relevant judged
    document are ignored. (pytrec_eval by default averages only queries present in both.)

    Args:
        metric: the per-query metric bound to its cut-off, e.g.
            ``lambda ranked, rel: ndcg_at_k(ranked, rel, 10)``.
        run: query id -> ranked document ids, best first.
        qrels: query id -> document id -> grade.

    Returns:
        The mean score in [0, 1].

    Raises:
        ValueError: no query in ``qrels`` has a relevant document.

    """
    queries = judged_queries(qrels)
    if not queries:
        raise ValueError("qrels has no query with a relevant document (grade > 0)")
    return _mean(metric(run.get(q, ()), qrels[q]) for q in queries)


def evaluate_run(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    ks: Sequence[int] = DEFAULT_KS,
) -> dict[str, float]:
    """Compute the standard ranking metrics of a run, macro-averaged over the judged queries.

    Averages follow ``average``: every query with at least one relevant document counts equally;
    a judged query absent from ``run`` scores 0.

    Args:
        run: query id -> ranked document ids, best first.
        qrels: query id -> document id -> grade (> 0 relevant).
        ks: the cut-offs, positive result counts.

    Returns:
        Scores in [0, 1], keyed ``"ndcg@k"``, ``"recall@k"``, ``"precision@k"`` and ``"mrr@k"`` for
        each ``k`` in ``ks`` (in that order, grouped by metric), then ``"mrr"`` with no cut.

    Raises:
        ValueError: a ``k`` is not a positive integer, or no query has a relevant document.

    """
    for k in ks:
        _check_k(k)
    metrics: dict[str, Callable[..., float]] = {
        "ndcg": ndcg_at_k,
        "recall": recall_at_k,
        "precision": precision_at_k,
        "mrr": reciprocal_rank,
    }
    results: dict[str, float] = {}
    for name, metric in metrics.items():
        for k in ks:
            results[f"{name}@{k}"] = average(partial(metric, k=k), run, qrels)
    results["mrr"] = average(reciprocal_rank, run, qrels)
    return results


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")


def _dedupe(ranked: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def _top(ranked: Sequence[str], k: int) -> list[str]:
    _check_k(k)
    return _dedupe(ranked)[:k]


def _relevant_ids(relevant: Mapping[str, int]) -> set[str]:
    return {doc_id for doc_id, grade in relevant.items() if grade > 0}


def _gain(relevant: Mapping[str, int], doc_id: str) -> int:
    return max(relevant.get(doc_id, 0), 0)


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return math.fsum(items) / len(items)
