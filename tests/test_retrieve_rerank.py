"""Stage 5, rerank: MMR ordering and the near-duplicate / per-document selection."""

import itertools
import math

import numpy as np
import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import MAX_CHUNKS_PER_DOC, Config
from kb.retrieve.rerank import mmr_order, normalise_text, order_by_scores, select
from kb.types import Candidate


def _c(cid, score, doc=None):
    return Candidate(cid, doc if doc is not None else cid, score, None, 0.0, 0.0)


def _unit(*xs):
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# a: (1, 0, 0); b: cos(a, b) = 0.99; c: cos(a, c) = 0.1, cos(b, c) = 0.099
A = _unit(1, 0, 0)
B = _unit(0.99, math.sqrt(1 - 0.99**2), 0)
C = _unit(0.1, 0, math.sqrt(1 - 0.01))


def test_mmr_puts_a_near_duplicate_below_a_diverse_candidate():
    # lambda 0.7, rel = score / best:
    #   pick 1: a (0.7 * 1.0 = 0.7)
    #   b: 0.7 * 0.95 - 0.3 * 0.99 = 0.368 ; c: 0.7 * 0.80 - 0.3 * 0.10 = 0.530 -> c
    cands = [_c(1, 1.0), _c(2, 0.95), _c(3, 0.8)]
    vectors = {1: A, 2: B, 3: C}
    assert [c.chunk_id for c in mmr_order(cands, vectors, {})] == [1, 3, 2]
    # lambda 1.0 keeps the fused order
    assert [c.chunk_id for c in mmr_order(cands, vectors, {}, mmr_lambda=1.0)] == [1, 2, 3]
    # a less diverse c loses: 0.7 * 0.8 - 0.3 * 0.9 = 0.29 < 0.368
    close = _unit(0.9, 0, math.sqrt(1 - 0.81))
    assert [c.chunk_id for c in mmr_order(cands, {1: A, 2: B, 3: close}, {})] == [1, 2, 3]


def test_mmr_uses_token_jaccard_without_vectors():
    # b repeats a's tokens (Jaccard 1.0): 0.7 * 0.95 - 0.3 = 0.365 ; c: 0.7 * 0.8 - 0 = 0.56
    cands = [_c(1, 1.0), _c(2, 0.95), _c(3, 0.8)]
    tokens = {1: frozenset("xyz"), 2: frozenset("xyz"), 3: frozenset("pq")}
    assert [c.chunk_id for c in mmr_order(cands, {}, tokens)] == [1, 3, 2]
    assert mmr_order([], {}, {}) == []


def test_order_by_scores_ties_keep_fused_order():
    cands = [_c(1, 0.3), _c(2, 0.2), _c(3, 0.1)]
    assert [c.chunk_id for c in order_by_scores(cands, [0.5, 0.9, 0.5])] == [2, 1, 3]


def test_select_skips_identical_normalised_text_and_near_duplicate_vectors():
    cands = [_c(1, 0.9), _c(2, 0.8), _c(3, 0.7), _c(4, 0.6)]
    texts = {1: "Hello   World", 2: "  hello world\n", 3: "other", 4: "third"}
    vectors = {1: A, 3: _unit(1, 0.01, 0), 4: C}  # cos(1, 3) = 0.99995 > 0.95
    assert [c.chunk_id for c in select(cands, texts, vectors, k=10, max_per_doc=3)] == [1, 4]
    assert normalise_text("Hello   World") == normalise_text("  hello world\n")


def test_select_caps_chunks_per_document_and_k():
    cands = [_c(i, 1 - i / 100, doc=1 if i <= 5 else i) for i in range(1, 10)]
    texts = {c.chunk_id: f"text {c.chunk_id}" for c in cands}
    taken = select(cands, texts, {}, k=10, max_per_doc=2)
    assert [c.chunk_id for c in taken] == [1, 2, 6, 7, 8, 9]
    assert [c.chunk_id for c in select(cands, texts, {}, k=3, max_per_doc=2)] == [1, 2, 6]


@pytest.mark.parametrize("seed", range(5))
def test_select_invariants_on_random_candidates(seed):
    rng = np.random.default_rng(seed)
    n = 60
    base = rng.normal(size=(6, 8))
    vecs = base[rng.integers(0, 6, n)] + rng.normal(scale=0.15, size=(n, 8))  # many near-dups
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    scores = sorted(rng.random(n), reverse=True)
    docs = rng.integers(0, 4, n)
    cands = [_c(i, float(scores[i]), doc=int(docs[i])) for i in range(n)]
    words = ["alpha", "Alpha ", "beta", "gamma", "BETA", "delta", "eps"]
    texts = {i: words[int(rng.integers(0, len(words)))] + (f" {i}" if i % 3 else "")
             for i in range(n)}
    vectors = {i: vecs[i].astype(np.float32) for i in range(n) if i % 4}  # some lack vectors
    taken = select(cands, texts, vectors, k=10, max_per_doc=2)
    assert 0 < len(taken) <= 10
    ids = [c.chunk_id for c in taken]
    assert ids == sorted(ids)  # a subsequence of the given order
    assert len({normalise_text(texts[i]) for i in ids}) == len(ids)
    for a, b in itertools.combinations(ids, 2):
        if a in vectors and b in vectors:
            assert float(vectors[a] @ vectors[b]) <= 0.95
    per_doc = {}
    for c in taken:
        per_doc[c.doc_id] = per_doc.get(c.doc_id, 0) + 1
    assert max(per_doc.values()) <= 2


def _sections(n):
    steps = ["mix flour and water", "wait one day", "discard half", "add rye flour",
             "keep it warm", "stir twice", "watch for bubbles", "use a glass jar",
             "mark the level", "smell for acidity"]
    return "\n\n".join(f"## Day {i + 1}\n\nSourdough starter feeding, day {i + 1}: "
                       f"{steps[i]}. Note the temperature and the rise." for i in range(n))


def test_a_document_with_ten_matching_chunks_fills_at_most_three_of_the_top_ten(tmp_path):
    write(tmp_path / "d" / "starter.md", "# Starter diary\n\n" + _sections(10) + "\n")
    for i, topic in enumerate(["rye bread", "baguettes", "pizza dough", "brioche"]):
        write(tmp_path / "d" / f"other{i}.txt", f"Feeding a sourdough starter before baking "
              f"{topic} takes planning.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "d"])
        diary = kb.store.get_document(source=str((tmp_path / "d" / "starter.md").resolve()))
        assert diary.chunk_count >= 10
        capped = kb.search("sourdough starter feeding", top_k=10, decay=False)
        raised = kb.search("sourdough starter feeding", top_k=10, decay=False,
                           max_chunks_per_doc=10)
    from_diary = [r for r in capped.references if r.title == "Starter diary"]
    assert len(from_diary) == MAX_CHUNKS_PER_DOC == 3
    assert sum(r.title == "Starter diary" for r in raised.references) > 3  # more did match


def test_hybrid_search_also_caps_chunks_per_document(tmp_path):
    write(tmp_path / "d" / "starter.md", "# Starter diary\n\n" + _sections(10) + "\n")
    write(tmp_path / "d" / "rye.txt", "Feeding a sourdough starter before baking rye bread.")
    with KnowledgeBase(tmp_path / "kb.db") as kb:
        kb.ingest([tmp_path / "d"])
        result = kb.search("sourdough starter feeding", top_k=10, decay=False)
    assert result.references
    assert sum(r.title == "Starter diary" for r in result.references) <= 3
    assert "rye" in {r.title for r in result.references}


def test_judge_cut_counts_only_the_candidates_it_was_offered():
    from kb.retrieve.rerank import judge_cut

    cands = [Candidate(i, i, 1.0 / i, None, 0.0, 0.5) for i in (1, 2, 3)]
    judged = {1: 0.9, 2: 0.1, 3: 0.2, 4: 0.0, 5: 0.0}  # 4, 5: cut earlier (relative floor)
    cut = judge_cut(cands, judged, min_score=0.5, relax_keep=3)
    assert [c.chunk_id for c in cut.kept] == [1] and cut.judged_out == 2 and not cut.rejected_all
    none = judge_cut(cands, {1: 0.1, 2: 0.3}, min_score=0.5, relax_keep=1)
    assert [c.chunk_id for c in none.kept] == [1] and none.judged_out == 2 and none.rejected_all
    assert judge_cut(cands, None, min_score=0.5, relax_keep=3).kept == tuple(cands)
    assert judge_cut(cands, judged, min_score=0.0, relax_keep=3).judged_out == 0
