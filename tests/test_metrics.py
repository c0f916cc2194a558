"""Ranking metrics: hand-computed cases, then agreement with trec_eval (pytrec_eval) and ranx.

The reference implementations are optional dev dependencies (pytest.importorskip): the
hand-computed cases always run.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from kb.eval.datasets import dataset_dir, load_corpus, load_qrels, load_queries
from kb.eval.metrics import (
    average,
    evaluate_run,
    judged_queries,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

# One ranking, four judgements: d2 (grade 1) at rank 2, d4 (grade 2) at rank 4, d9 (grade 3) never
# retrieved, d3 judged non-relevant (grade 0) at rank 3.
RANKED = ["d1", "d2", "d3", "d4", "d5"]
RELEVANT = {"d2": 1, "d4": 2, "d9": 3, "d3": 0}  # |R| = 3 (d2, d4, d9)


# --- recall@k = |top_k ∩ R| / |R| -------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0.0),  # top 1 = {d1}: 0 / 3
        (2, 1 / 3),  # top 2 = {d1, d2}: 1 / 3
        (3, 1 / 3),  # d3 has grade 0: still 1 / 3
        (4, 2 / 3),  # {d2, d4}: 2 / 3
        (100, 2 / 3),  # the list has 5 docs; d9 is never retrieved: 2 / 3
    ],
)
def test_recall_hand_computed(k: int, expected: float) -> None:
    assert recall_at_k(RANKED, RELEVANT, k) == pytest.approx(expected)


# --- precision@k = |top_k ∩ R| / k (denominator k even past the end of the list) --------------


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0.0),  # 0 / 1
        (2, 0.5),  # d2: 1 / 2
        (4, 0.5),  # d2, d4: 2 / 4
        (5, 0.4),  # 2 / 5
        (10, 0.2),  # only 5 ranked, still divided by 10: 2 / 10
    ],
)
def test_precision_hand_computed(k: int, expected: float) -> None:
    assert precision_at_k(RANKED, RELEVANT, k) == pytest.approx(expected)


# --- reciprocal rank = 1 / rank of the first relevant doc, 0 if none (within k) -----------------


def test_reciprocal_rank_hand_computed() -> None:
    assert reciprocal_rank(RANKED, RELEVANT) == pytest.approx(1 / 2)  # first relevant: d2, rank 2
    assert reciprocal_rank(RANKED, RELEVANT, 2) == pytest.approx(1 / 2)  # rank 2 <= k = 2
    assert reciprocal_rank(RANKED, RELEVANT, 1) == 0.0  # cut at 1: only d1, not relevant
    assert reciprocal_rank(["d4"], RELEVANT) == 1.0  # relevant at rank 1
    assert reciprocal_rank(["d3", "d5"], RELEVANT) == 0.0  # grade 0 is not relevant


# --- nDCG@k: linear gain = grade, discount log2(rank + 1), ideal from all judged relevant docs --


def test_ndcg_hand_computed() -> None:
    # DCG@5  = 1/log2(2+1) + 2/log2(4+1)                  (d2 at rank 2, d4 at rank 4)
    #        = 0.630930 + 0.861353 = 1.492283
    # IDCG@5 = 3/log2(2) + 2/log2(3) + 1/log2(4)          (ideal order d9, d4, d2)
    #        = 3 + 1.261860 + 0.5 = 4.761860
    # nDCG@5 = 1.492283 / 4.761860 = 0.313382
    dcg = 1 / math.log2(3) + 2 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(RANKED, RELEVANT, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKED, RELEVANT, 5) == pytest.approx(0.313382, abs=1e-6)


def test_ndcg_cut_applies_to_ideal_too() -> None:
    # k = 2: DCG@2 = 1/log2(3) = 0.630930; IDCG@2 = 3/1 + 2/log2(3) = 4.261860
    # nDCG@2 = 0.630930 / 4.261860 = 0.148041
    assert ndcg_at_k(RANKED, RELEVANT, 2) == pytest.approx(0.148041, abs=1e-6)
    # k = 1: d1 is not relevant -> 0
    assert ndcg_at_k(RANKED, RELEVANT, 1) == 0.0


def test_ndcg_ideal_ranking_scores_one() -> None:
    assert ndcg_at_k(["d9", "d4", "d2"], RELEVANT, 3) == pytest.approx(1.0)
    assert ndcg_at_k(["d9", "d4", "d2", "d1"], RELEVANT, 10) == pytest.approx(1.0)


def test_ndcg_uses_linear_not_exponential_gain() -> None:
    # relevant {a: 2, b: 1}, ranking [b, a]:
    # linear:      DCG = 1/1 + 2/log2(3) = 2.261860; IDCG = 2/1 + 1/log2(3) = 2.630930 -> 0.859719
    # exponential: DCG = 1 + 3/log2(3) = 2.892789;   IDCG = 3 + 1/log2(3) = 3.630930  -> 0.796708
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 10) == pytest.approx(0.859719, abs=1e-6)


# --- duplicates: only the first occurrence counts; later repeats are dropped before the cut -----


def test_duplicates_count_once_at_first_occurrence() -> None:
    ranked = ["a", "a", "b", "a", "c"]  # read as [a, b, c]
    relevant = {"b": 1, "c": 1}
    assert reciprocal_rank(ranked, relevant) == pytest.approx(1 / 2)  # b at rank 2, not 3
    assert precision_at_k(ranked, relevant, 2) == pytest.approx(1 / 2)  # [a, b]: 1 / 2
    assert recall_at_k(ranked, relevant, 3) == pytest.approx(1.0)  # [a, b, c]: 2 / 2
    # nDCG@3 = (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3)) = 1.130930 / 1.630930 = 0.693426
    assert ndcg_at_k(ranked, relevant, 3) == pytest.approx(0.693426, abs=1e-6)
    # a relevant duplicate gains once: [b, b] -> DCG = 1, IDCG = 1 + 1/log2(3) -> 0.613147
    assert ndcg_at_k(["b", "b"], relevant, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


# --- edge cases -----------------------------------------------------------------------------


def test_empty_ranking_and_no_relevant_docs_score_zero() -> None:
    for score in (
        recall_at_k([], RELEVANT, 10),
        precision_at_k([], RELEVANT, 10),
        reciprocal_rank([], RELEVANT),
        ndcg_at_k([], RELEVANT, 10),
        recall_at_k(RANKED, {"d1": 0}, 10),  # nothing relevant: 0 (trec_eval's convention)
        ndcg_at_k(RANKED, {}, 10),
    ):
        assert score == 0.0


@pytest.mark.parametrize("k", [0, -1, True, 2.5, "10"])
def test_bad_k_raises(k: object) -> None:
    for metric in (recall_at_k, precision_at_k, ndcg_at_k, reciprocal_rank):
        with pytest.raises(ValueError, match="k must be a positive integer"):
            metric(RANKED, RELEVANT, k)  # type: ignore[arg-type]


# --- averaging over queries -------------------------------------------------------------------

QRELS = {
    "q1": {"a": 1, "b": 2},
    "q2": {"c": 1},
    "q3": {"x": 0},  # no relevant doc: left out of every average
    "q4": {"e": 1},  # judged but missing from the run: counts as an empty ranking
}
RUN = {
    "q1": ["b", "z", "a"],
    "q2": ["y", "c"],
    "q3": ["x"],
    "q5": ["a"],  # not in qrels: ignored
}


def test_judged_queries() -> None:
    assert judged_queries(QRELS) == ["q1", "q2", "q4"]


def test_average_hand_computed() -> None:
    # RR: q1 = 1 (b at 1), q2 = 1/2 (c at 2), q4 = 0 -> (1 + 0.5 + 0) / 3 = 0.5
    assert average(reciprocal_rank, RUN, QRELS) == pytest.approx(0.5)


def test_evaluate_run_hand_computed() -> None:
    scores = evaluate_run(RUN, QRELS, ks=(1, 3))
    assert list(scores) == [
        "ndcg@1", "ndcg@3", "recall@1", "recall@3",
        "precision@1", "precision@3", "mrr@1", "mrr@3", "mrr",
    ]  # fmt: skip
    # recall@1: q1 = 1/2 (b), q2 = 0, q4 = 0 -> 1/6
    assert scores["recall@1"] == pytest.approx(1 / 6)
    # recall@3: q1 = 2/2, q2 = 1/1, q4 = 0 -> 2/3
    assert scores["recall@3"] == pytest.approx(2 / 3)
    # precision@3: q1 = 2/3, q2 = 1/3, q4 = 0 -> 1/3
    assert scores["precision@3"] == pytest.approx(1 / 3)
    # mrr@1: q1 = 1, q2 = 0 (c at rank 2), q4 = 0 -> 1/3
    assert scores["mrr@1"] == pytest.approx(1 / 3)
    assert scores["mrr"] == pytest.approx(0.5)
    # ndcg@3: q1 = (2 + 1/log2(4)) / (2 + 1/log2(3)) = 2.5 / 2.630930 = 0.950235
    #         q2 = (1/log2(3)) / 1 = 0.630930; q4 = 0 -> 1.581165 / 3 = 0.527055
    assert scores["ndcg@3"] == pytest.approx(0.527055, abs=1e-6)


def test_evaluate_run_without_judged_queries_raises() -> None:
    with pytest.raises(ValueError, match="no query with a relevant document"):
        evaluate_run(RUN, {"q3": {"x": 0}})


def test_evaluate_run_bad_k_raises() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        evaluate_run(RUN, QRELS, ks=(10, 0))


# --- cross-check against reference implementations on a real run -------------------------------
#
# The run: a deterministic TF-IDF ranking (log-scaled tf, smoothed idf, cosine) of each query
# against the corpus, top 100, ties broken by doc id. Two real public sets: SciFact (binary grades)
# and Cranfield (grades 1-4, which exercises nDCG's graded gain).

TOP_N = 100
RealRun = tuple[dict[str, list[str]], dict[str, dict[str, int]]]  # (run, qrels)
TOKEN = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def _tfidf_run(dataset: str) -> RealRun:
    directory = dataset_dir(dataset)
    docs = load_corpus(directory)
    term_counts = {d._id: Counter(_tokens(f"{d.title} {d.text}")) for d in docs}
    df: Counter[str] = Counter()
    for counts in term_counts.values():
        df.update(counts.keys())
    n_docs = len(docs)
    idf = {t: math.log((1 + n_docs) / (1 + n)) + 1 for t, n in df.items()}

    def weigh(counts: Mapping[str, int]) -> dict[str, float]:
        w = {t: (1 + math.log(c)) * idf[t] for t, c in counts.items() if t in idf}
        norm = math.sqrt(sum(x * x for x in w.values())) or 1.0
        return {t: x / norm for t, x in w.items()}

    postings: dict[str, list[tuple[str, float]]] = {}
    for doc_id, counts in term_counts.items():
        for t, x in weigh(counts).items():
            postings.setdefault(t, []).append((doc_id, x))
    run: dict[str, list[str]] = {}
    for query in load_queries(directory):
        scores: dict[str, float] = {}
        for t, q in weigh(Counter(_tokens(query.text))).items():
            for doc_id, x in postings[t]:
                scores[doc_id] = scores.get(doc_id, 0.0) + q * x
        ranked = sorted(scores, key=lambda d: (-scores[d], d))[:TOP_N]
        run[query._id] = ranked
    return run, load_qrels(directory)


@pytest.fixture(scope="module", params=["scifact-small", "cranfield"])
def real_run(request: pytest.FixtureRequest) -> RealRun:
    return _tfidf_run(request.param)


def _as_scores(
    run: Mapping[str, Sequence[str]], cut: int | None = None
) -> dict[str, dict[str, float]]:
    """Ranked lists -> strictly decreasing scores (no ties, so every tool keeps our order)."""
    return {
        q: {doc_id: float(len(ranked) - i) for i, doc_id in enumerate(ranked[:cut])}
        for q, ranked in run.items()
    }


def test_real_run_is_a_real_ranking(real_run: RealRun) -> None:
    run, qrels = real_run
    # a lexical ranking is far better than chance on both sets (SciFact BM25 ~0.66 nDCG@10)
    assert evaluate_run(run, qrels)["ndcg@10"] > 0.3


def test_agrees_with_pytrec_eval(real_run: RealRun) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = real_run
    judged = judged_queries(qrels)
    assert set(judged) <= set(run)  # pytrec_eval averages only queries present in the run
    measures = {"ndcg_cut.10", "ndcg_cut.5", "recall.100", "recall.10", "P.5", "recip_rank"}
    full = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(_as_scores(run))
    # MRR@10: trec_eval's recip_rank has no cut, so it reads the run truncated to 10
    at10 = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(_as_scores(run, 10))
    for q in judged:
        ranked, rel = run[q], qrels[q]
        assert ndcg_at_k(ranked, rel, 10) == pytest.approx(full[q]["ndcg_cut_10"], abs=1e-9)
        assert ndcg_at_k(ranked, rel, 5) == pytest.approx(full[q]["ndcg_cut_5"], abs=1e-9)
        assert recall_at_k(ranked, rel, 100) == pytest.approx(full[q]["recall_100"], abs=1e-9)
        assert recall_at_k(ranked, rel, 10) == pytest.approx(full[q]["recall_10"], abs=1e-9)
        assert precision_at_k(ranked, rel, 5) == pytest.approx(full[q]["P_5"], abs=1e-9)
        assert reciprocal_rank(ranked, rel) == pytest.approx(full[q]["recip_rank"], abs=1e-9)
        assert reciprocal_rank(ranked, rel, 10) == pytest.approx(at10[q]["recip_rank"], abs=1e-9)
    ours = evaluate_run(run, qrels)
    for name, measure, table in [
        ("ndcg@10", "ndcg_cut_10", full),
        ("recall@100", "recall_100", full),
        ("mrr@10", "recip_rank", at10),
    ]:
        theirs = math.fsum(table[q][measure] for q in judged) / len(judged)
        assert round(ours[name], 4) == round(theirs, 4), name


def test_agrees_with_ranx(real_run: RealRun) -> None:
    ranx = pytest.importorskip("ranx")
    run, qrels = real_run
    judged = judged_queries(qrels)
    scores = _as_scores({q: run[q] for q in judged})
    theirs = ranx.evaluate(
        ranx.Qrels({q: qrels[q] for q in judged}),
        ranx.Run(scores),
        ["ndcg@10", "recall@100", "mrr@10", "precision@5"],
    )
    ours = evaluate_run(run, qrels)
    for name in ("ndcg@10", "recall@100", "mrr@10", "precision@5"):
        assert ours[name] == pytest.approx(theirs[name], abs=1e-6), name
