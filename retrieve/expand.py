"""Stage 1, query expansion with an LLM: paraphrases and a HyDE passage (``expand``).

HyDE: Gao, Ma, Lin & Callan, "Precise Zero-Shot Dense Retrieval without Relevance Labels"
(arXiv:2212.10496, 2022). The original query is always kept first; at most ``MAX_QUERIES``
(5) in all, deduplicated; completions are cached in ``llm_cache`` (``kb.store.llm_cache``) so
runs are reproducible. The reply's JSON object is read with
``kb.retrieve.jsonreply.json_object`` (prose and code fences around it do not matter). A
failing LLM yields the original query alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from kb.config import HELPER_TIMEOUT_S, MAX_QUERIES
from kb.retrieve.jsonreply import json_object
from kb.retrieve.trace import Trace
from kb.store.llm_cache import CachedLLM

log = logging.getLogger(__name__)

UNUSABLE = "the reply held no usable paraphrase or passage"
PROMPT = (
    "Rewrite the search query below in up to 3 different ways (same language as the query), "
    "then write one short passage (2-3 sentences) that would answer it. Reply with JSON only: "
    '{{"paraphrases": ["..."], "passage": "..."}}\n\nQuery: {query}'
)


@dataclass(frozen=True, slots=True)
class Expansion:
    """Stage 1's result.

    Attributes:
        queries: the original query first, then its expansions (at most ``MAX_QUERIES``).
        llm_failed: the model call failed or timed out; the LLM reranker is skipped for this
            search too (one stalled helper call per search is the most a user waits for).
    """

    queries: tuple[str, ...]
    llm_failed: bool = False


def expand(llm: CachedLLM | None, query: str, *, enabled: bool, timeout_s: float,
           trace: Trace) -> Expansion:
    """Stage 1: the queries to search, the original one alone without a (working) LLM.

    Args:
        llm: the caching chat model, or ``None`` (skipped: "no LLM configured").
        query: the user's question.
        enabled: the ``expand`` setting (skipped when off).
        timeout_s: the model call's time limit.
        trace: times the ``expand`` stage; a failing or unusable reply is a degraded note.
    """
    if llm is None:
        trace.skip("expand", "no LLM configured")
        return Expansion((query,))
    if not enabled:
        trace.skip("expand", "switched off by settings")
        return Expansion((query,))
    queries, error = trace.run("expand", lambda: try_expand(llm, query, timeout_s=timeout_s))
    if error == UNUSABLE:  # the model answered: the reranker may still use it
        trace.degraded.append(f"expand: {UNUSABLE}; original query only")
    elif error:
        trace.degraded.append(f"expand: LLM failed ({error}); original query only, "
                              "LLM rerank skipped")
        return Expansion(tuple(queries), llm_failed=True)
    return Expansion(tuple(queries))


def parse_expansion(completion: str) -> list[str]:
    """Paraphrases (at most 3) then the HyDE passage from the model's JSON reply.

    Tolerant of fences and prose around the object; a field of the wrong type is ignored.
    """
    data = json_object(completion)
    if data is None:
        return []
    paraphrases = data.get("paraphrases")
    if not isinstance(paraphrases, list):
        paraphrases = []
    out = [p for p in paraphrases if isinstance(p, str)][:3]
    passage = data.get("passage")
    if isinstance(passage, str):
        out.append(passage)
    return out


def expand_queries(llm: CachedLLM, query: str, *,
                   timeout_s: float = HELPER_TIMEOUT_S) -> list[str]:
    """The original query followed by up to 4 distinct expansions (at most 5 in all)."""
    return try_expand(llm, query, timeout_s=timeout_s)[0]


def try_expand(llm: CachedLLM, query: str, *,
               timeout_s: float = HELPER_TIMEOUT_S) -> tuple[list[str], str | None]:
    """Like ``expand_queries``, also returning why the LLM failed (``None`` when it did not).

    A reply without a usable paraphrase or passage is not cached (the next search asks again)
    and is reported as ``UNUSABLE``.
    """
    error = None
    try:
        extra = parse_expansion(llm.complete(
            PROMPT.format(query=query), timeout_s=timeout_s,
            accept=lambda reply: bool(parse_expansion(reply))))
        if not extra:
            error = UNUSABLE
    except Exception as exc:
        # INFO: the result's diagnostics carry the failure as a degraded rung already.
        log.info("query expansion failed: %s", exc)
        extra, error = [], f"{type(exc).__name__}: {exc}"
    seen = {query.strip().casefold()}
    queries = [query]
    for q in extra:
        key = q.strip().casefold()
        if q.strip() and key not in seen:
            seen.add(key)
            queries.append(q.strip())
    return queries[:MAX_QUERIES], error
