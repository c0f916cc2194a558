"""Stage 5's ordering of the top candidates: a cross-encoder, else the LLM, else MMR.

``order_top`` asks the configured judging model (``Reranker`` cross-encoder when given and
``rerank`` is ``auto``, else the chat model as LLM reranker) for relevance scores in [0, 1] and
orders by them; a failing model is a degraded note and MMR orders instead (``kb.retrieve.rerank``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kb.backends import LLM, Reranker
from kb.config import PipelineSettings
from kb.retrieve import rerank
from kb.retrieve.llm_rerank import LLM_RERANK_MAX, llm_grades
from kb.retrieve.trace import Trace
from kb.store import Store
from kb.store.textindex import tokenize
from kb.types import Candidate


def order_top(store: Store, query: str, top: Sequence[Candidate], *, reranker: Reranker | None,
              llm: LLM | None, settings: PipelineSettings, vectors: Mapping[int, np.ndarray],
              texts: Mapping[int, str], trace: Trace
              ) -> tuple[list[Candidate], dict[int, float] | None]:
    """Order ``top`` (best first by fused score).

    Args:
        store: the open store (the LLM's replies are cached there).
        query: the user's question.
        top: the candidates to order.
        reranker: a cross-encoder, or ``None``.
        llm: the chat model, or ``None``.
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
            return (rerank.order_by_scores(top, scores),
                    {c.chunk_id: float(s) for c, s in zip(top, scores, strict=True)})
        except Exception as exc:
            trace.degraded.append(f"rerank: cross-encoder failed ({exc}); MMR used")
    elif llm is not None and settings.rerank == "auto":
        head = top[:LLM_RERANK_MAX]
        try:
            grades = llm_grades(store, llm, query, passages[:LLM_RERANK_MAX],
                                timeout_s=settings.helper_timeout_s)
            return (rerank.order_by_scores(head, grades) + top[LLM_RERANK_MAX:],
                    {c.chunk_id: g for c, g in zip(head, grades, strict=True)})
        except Exception as exc:
            trace.degraded.append(f"rerank: LLM reranker failed ({exc}); MMR used")
    tokens = {cid: frozenset(tokenize(t)) for cid, t in texts.items() if cid not in vectors}
    return rerank.mmr_order(top, vectors, tokens, mmr_lambda=settings.mmr_lambda), None
