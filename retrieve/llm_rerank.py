"""The LLM as reranker (DESIGN 4.5, second rung): batched relevance judgments in [0, 1].

One prompt lists the candidate passages (each cut to ``PASSAGE_MAX_CHARS``) and asks for a JSON
array of integer grades 0-10, one per passage: 10 = the passage answers the question, 0 = it
does not. Grades are divided by 10. A reply that cannot be parsed, or has the wrong length,
raises ``ValueError`` so the pipeline falls back to MMR and says why. Completions are cached
in ``llm_cache`` (``retrieve.expand.cached_complete``), so reruns are reproducible.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from kb.backends import LLM
from kb.store import Store
from retrieve.expand import cached_complete

RERANK_TIMEOUT_S = 2.5  # DESIGN 5: helper model calls at query time are capped
PASSAGE_MAX_CHARS = 500  # characters of each passage shown to the judge
LLM_RERANK_MAX = 20  # passages judged in one call (the rest keep their fused order)
PROMPT = (
    "Grade how well each passage answers the question, from 0 (does not answer; merely on "
    "the same topic) to 10 (answers it directly). Reply with a JSON array of {n} integers "
    "only, in passage order.\n\nQuestion: {query}\n\n{passages}"
)
_ARRAY = re.compile(r"\[[^\[\]]*\]")


def parse_grades(completion: str, n: int) -> list[float]:
    """Grades in [0, 1] from the model's reply.

    Raises:
        ValueError: no JSON array of ``n`` numbers in the reply.
    """
    match = _ARRAY.search(completion)
    if match is None:
        raise ValueError("the LLM reranker replied without a JSON array")
    values = json.loads(match.group())
    if len(values) != n or not all(isinstance(v, int | float) for v in values):
        raise ValueError(f"the LLM reranker returned {len(values)} grades for {n} passages")
    return [min(1.0, max(0.0, float(v) / 10.0)) for v in values]


def llm_grades(store: Store, llm: LLM, query: str, passages: Sequence[str], *,
               timeout_s: float = RERANK_TIMEOUT_S) -> list[float]:
    """Relevance of each passage to ``query`` in [0, 1] (higher is better).

    Raises:
        kb.errors.BackendError: the model call failed or timed out.
        ValueError: the reply could not be parsed.
    """
    listed = "\n\n".join(f"[{i + 1}] {p[:PASSAGE_MAX_CHARS]}" for i, p in enumerate(passages))
    prompt = PROMPT.format(n=len(passages), query=query, passages=listed)
    return parse_grades(cached_complete(store, llm, prompt, timeout_s=timeout_s), len(passages))
