"""Stage 3, fusion: score-weighted RRF checked against hand-computed reference cases."""

import pytest

from kb.retrieve.fuse import fuse
from kb.types import Hit, RecallList


def _list(name, kind, weight, *hits):
    """A recall list from (chunk_id, s_norm[, raw score]) tuples, ranked in the given order."""
    return RecallList(name, kind, weight, tuple(
        Hit(h[0], 100 + h[0], rank, h[2] if len(h) > 2 else h[1], h[1])
        for rank, h in enumerate(hits, start=1)))


BM25 = _list("bm25:0", "bm25", 1.0, (1, 0.8), (2, 0.5))
VECTOR = _list("vector:0", "vector", 1.0, (2, 0.9, 0.91), (3, 0.6, 0.88), (1, 0.3, 0.84))
EXPANDED = _list("bm25:1", "bm25", 0.5, (3, 1.0))


def test_weighted_rrf_matches_hand_computation_for_three_lists():
    # contribution = w * s_norm / (60 + rank)
    # chunk 1: bm25 rank 1: 1.0*0.8/61 = 0.0131148 ; vector rank 3: 1.0*0.3/63 = 0.0047619
    #          total 0.0178767
    # chunk 2: bm25 rank 2: 1.0*0.5/62 = 0.0080645 ; vector rank 1: 1.0*0.9/61 = 0.0147541
    #          total 0.0228186
    # chunk 3: vector rank 2: 1.0*0.6/62 = 0.0096774 ; expanded bm25 rank 1: 0.5*1.0/61 =
    #          0.0081967 ; total 0.0178741  (just below chunk 1: 0.0178767)
    out = fuse([BM25, VECTOR, EXPANDED])
    assert [c.chunk_id for c in out] == [2, 1, 3]
    expected = {1: 0.8 / 61 + 0.3 / 63, 2: 0.5 / 62 + 0.9 / 61, 3: 0.6 / 62 + 0.5 / 61}
    for c in out:
        assert c.score == pytest.approx(expected[c.chunk_id], abs=1e-12)
    assert out[1].score == pytest.approx(0.0178767, abs=1e-7)
    assert out[2].score == pytest.approx(0.0178741, abs=1e-7)
    by_id = {c.chunk_id: c for c in out}
    # evidence carried to the floor: best raw cosine and vector s_norm, best keyword s_norm
    assert (by_id[1].cosine, by_id[1].vector, by_id[1].keyword) == (0.84, 0.3, 0.8)
    assert (by_id[3].cosine, by_id[3].vector, by_id[3].keyword) == (0.88, 0.6, 1.0)
    assert by_id[1].doc_id == 101
    assert by_id[3].lists == ("vector:0", "bm25:1")


def test_two_lists_hand_computed():
    # chunk 7: 1.0*0.4/61 + 1.0*0.2/62 = 0.0065574 + 0.0032258 = 0.0097832
    # chunk 8: 1.0*0.6/62                                      = 0.0096774
    a = _list("bm25:0", "bm25", 1.0, (7, 0.4), (8, 0.6))
    b = _list("vector:0", "vector", 1.0, (9, 0.0), (7, 0.2))
    out = fuse([a, b])
    assert [(c.chunk_id, round(c.score, 7)) for c in out] == [
        (7, 0.0097832), (8, 0.0096774), (9, 0.0)]


def test_plain_rrf_is_the_sum_of_reciprocal_ranks():
    # chunk 1: 1/61 + 1/63 = 0.0322664 ; chunk 2: 1/62 + 1/61 = 0.0325225 ;
    # chunk 3: 1/62 + 1/61 = 0.0325225 (tie with chunk 2, broken by chunk id)
    out = fuse([BM25, VECTOR, EXPANDED], weighted=False)
    assert [c.chunk_id for c in out] == [2, 3, 1]
    expected = {1: 1 / 61 + 1 / 63, 2: 1 / 62 + 1 / 61, 3: 1 / 62 + 1 / 61}
    for c in out:
        assert c.score == pytest.approx(expected[c.chunk_id], abs=1e-12)


def test_rrf_k_is_the_constant_in_the_denominator():
    # rrf_k = 10: chunk 1: 0.8/11 + 0.3/13 = 0.0727273 + 0.0230769 = 0.0958042
    out = {c.chunk_id: c.score for c in fuse([BM25, VECTOR], rrf_k=10)}
    assert out[1] == pytest.approx(0.8 / 11 + 0.3 / 13)


def test_lone_weak_keyword_match_at_rank_one_does_not_outrank_a_strong_vector_match():
    # weak: bm25 rank 1, s_norm 0.05 -> 0.05/61 = 0.00082 ; strong: vector rank 3, s_norm 0.9
    # -> 0.9/63 = 0.01429. Plain RRF would put the weak one first (1/61 > 1/63).
    weak = _list("bm25:0", "bm25", 1.0, (5, 0.05))
    vec = _list("vector:0", "vector", 1.0, (11, 0.2), (12, 0.15), (6, 0.9))
    out = fuse([weak, vec])
    assert out[0].chunk_id == 6
    ranks = [c.chunk_id for c in out]
    assert ranks.index(6) < ranks.index(5)
    assert {c.chunk_id: c.score for c in out}[5] == pytest.approx(0.05 / 61)
    plain = fuse([weak, vec], weighted=False)
    # plain RRF: 5 -> 1/61, 11 -> 1/61 (tie, lower id first), 6 -> 1/63: the weak match wins
    assert [c.chunk_id for c in plain] == [5, 11, 12, 6]


def test_ties_are_broken_by_chunk_id_whatever_the_list_order():
    a = _list("bm25:0", "bm25", 1.0, (9, 0.5))
    b = _list("vector:0", "vector", 1.0, (4, 0.5))
    c = _list("bm25:1", "bm25", 1.0, (6, 0.5))
    for lists in ([a, b, c], [c, b, a], [b, c, a]):
        out = fuse(lists)
        assert [x.chunk_id for x in out] == [4, 6, 9]
        assert len({x.score for x in out}) == 1


def test_empty_and_weightless_inputs():
    assert fuse([]) == []
    assert fuse([RecallList("bm25:0", "bm25", 1.0, ())]) == []
    zero = fuse([_list("vector:0", "vector", 0.0, (1, 0.9))])
    assert [(c.chunk_id, c.score) for c in zero] == [(1, 0.0)]
