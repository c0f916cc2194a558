"""The LLM as reranker (DESIGN 4.5, second rung): batched relevance judgments in [0, 1].

One prompt lists the candidate passages (each cut to ``PASSAGE_MAX_CHARS``) and asks for a JSON
array of integer grades 0-10, one per passage: 10 = the passage answers the question, 0 = it
does not. Grades are divided by 10. The reply is read with ``kb.retrieve.jsonreply.json_array``: the
longest array of ``n`` items anywhere in it, so prose around the grades ("Passage [1]
answers it best.") does not matter. A reply without one raises ``ValueError`` so the pipeline
falls back to MMR and says why. Parsable completions are cached in ``llm_cache``
(``kb.store.llm_cache``), so reruns are reproducible; an unparsable one is not, so the next search
asks again.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.config import HELPER_TIMEOUT_S
from kb.retrieve.jsonreply import json_array
from kb.store.llm_cache import CachedLLM

PASSAGE_MAX_CHARS = 500  # characters of each passage shown to the judge
LLM_RERANK_MAX = 20  # passages judged in one call (the rest keep their fused order)
PROMPT = (
    "Grade how well each passage answers the question, from 0 (does not answer; merely on "
    "the same topic) to 10 (answers it directly). Reply with a JSON array of {n} integers "
    "only, in passage order.\n\nQuestion: {query}\n\n{passages}"
)


def parse_grades(completion: str, n: int) -> list[float]:
    """Grades in [0, 1] from the model's reply.

    Args:
        completion: the model's reply.
        n: the number of passages graded.

    Returns:
        ``n`` grades in passage order, each the model's 0-10 grade divided by 10 and clamped
        to [0, 1].

    Raises:
        ValueError: no JSON array of ``n`` numbers in the reply (the message says how many
            grades it found).
    """
    values = json_array(completion, length=n, replier="the LLM reranker")
    grades = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(values) != n or len(grades) != n:
        raise ValueError(f"the LLM reranker returned {len(grades)} grades for {n} passages")
    return [min(1.0, max(0.0, g / 10.0)) for g in grades]


def llm_grades(llm: CachedLLM, query: str, passages: Sequence[str], *,
               timeout_s: float = HELPER_TIMEOUT_S) -> list[float]:
    """Relevance of each passage to ``query`` in [0, 1] (higher is better).

    Raises:
        kb.errors.BackendError: the model call failed or timed out.
        ValueError: the reply could not be parsed.
    """
    listed = "\n\n".join(f"[{i + 1}] {p[:PASSAGE_MAX_CHARS]}" for i, p in enumerate(passages))
    prompt = PROMPT.format(n=len(passages), query=query, passages=listed)
    return parse_grades(llm.complete(prompt, timeout_s=timeout_s,
                                     accept=lambda reply: _parses(reply, len(passages))),
                        len(passages))


def _parses(reply: str, n: int) -> bool:
    """Whether ``reply`` holds ``n`` grades (an unparsable reply is not cached)."""
    try:
        parse_grades(reply, n)
    except ValueError:
        return False
    return True
