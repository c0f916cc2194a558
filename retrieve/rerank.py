"""Stage 5, rerank: order the top candidates and keep near-duplicates out of the top k.

Policy (DESIGN 4.5): a cross-encoder ``Reranker`` when configured, else the LLM as reranker,
else Maximal Marginal Relevance (Carbonell & Goldstein, SIGIR 1998)::

    MMR = argmax_{d in R - S} [ lambda * rel(d) - (1 - lambda) * max_{s in S} sim(d, s) ]

with ``lambda = 0.7``, ``rel`` the fused score scaled to [0, 1] by the best candidate, and
``sim`` the cosine of stored vectors (token-set Jaccard when a chunk has no vector).

Whatever the ordering, ``select`` then walks it and skips a chunk that is a near-duplicate of
one already taken (identical normalised text, or cosine > 0.95) or whose document already has
``max_per_doc`` chunks taken.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from kb.config import MMR_LAMBDA, NEAR_DUPLICATE_COSINE
from kb.types import Candidate

_SPACE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Case-folded text with whitespace collapsed (near-duplicate key)."""
    return _SPACE.sub(" ", text).strip().casefold()


def _similarity(a: int, b: int, vectors: Mapping[int, np.ndarray],
                tokens: Mapping[int, frozenset[str]]) -> float:
    if a in vectors and b in vectors:
        return float(vectors[a] @ vectors[b])
    ta, tb = tokens.get(a, frozenset()), tokens.get(b, frozenset())
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def mmr_order(candidates: Sequence[Candidate], vectors: Mapping[int, np.ndarray],
              tokens: Mapping[int, frozenset[str]], *, mmr_lambda: float = MMR_LAMBDA
              ) -> list[Candidate]:
    """Reorder candidates by Maximal Marginal Relevance (see module docstring).

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
    best = max(c.score for c in candidates) or 1.0
    rest = list(candidates)
    chosen: list[Candidate] = []
    max_sim = {c.chunk_id: 0.0 for c in rest}
    while rest:
        pick = max(rest, key=lambda c: (mmr_lambda * c.score / best
                                        - (1 - mmr_lambda) * max_sim[c.chunk_id],
                                        -c.chunk_id))
        rest.remove(pick)
        chosen.append(pick)
        for c in rest:
            sim = _similarity(c.chunk_id, pick.chunk_id, vectors, tokens)
            max_sim[c.chunk_id] = max(max_sim[c.chunk_id], sim)
    return chosen


def order_by_scores(candidates: Sequence[Candidate], scores: Sequence[float]
                    ) -> list[Candidate]:
    """Reorder by external relevance scores (cross-encoder or LLM), ties by fused order."""
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [candidates[i] for i in ranked]


def select(ordered: Sequence[Candidate], texts: Mapping[int, str],
           vectors: Mapping[int, np.ndarray], *, k: int, max_per_doc: int,
           near_duplicate_cosine: float = NEAR_DUPLICATE_COSINE) -> list[Candidate]:
    """Take up to ``k`` candidates in order, skipping near-duplicates and over-cap documents."""
    taken: list[Candidate] = []
    keys: set[str] = set()
    per_doc: dict[int, int] = {}
    for c in ordered:
        if len(taken) >= k:
            break
        key = normalise_text(texts.get(c.chunk_id, ""))
        if key in keys or per_doc.get(c.doc_id, 0) >= max_per_doc:
            continue
        v = vectors.get(c.chunk_id)
        if v is not None and any(
            t.chunk_id in vectors and float(v @ vectors[t.chunk_id]) > near_duplicate_cosine
            for t in taken
        ):
            continue
        taken.append(c)
        keys.add(key)
        per_doc[c.doc_id] = per_doc.get(c.doc_id, 0) + 1
    return taken
