"""Stage 1, query expansion with an LLM: paraphrases and a HyDE passage.

HyDE: Gao, Ma, Lin & Callan, "Precise Zero-Shot Dense Retrieval without Relevance Labels"
(arXiv:2212.10496, 2022). The original query is always kept first; at most ``MAX_QUERIES``
(5) in all, deduplicated; completions are cached in ``llm_cache`` so runs are reproducible.
A failing LLM yields the original query alone.
"""

from __future__ import annotations

import hashlib
import json
import logging

from kb.backends import LLM
from kb.config import MAX_QUERIES
from kb.store import Store, now_utc

log = logging.getLogger(__name__)

EXPANSION_TIMEOUT_S = 2.5  # DESIGN 5: helper model calls at query time are capped
PROMPT = (
    "Rewrite the search query below in up to 3 different ways (same language as the query), "
    "then write one short passage (2-3 sentences) that would answer it. Reply with JSON only: "
    '{{"paraphrases": ["..."], "passage": "..."}}\n\nQuery: {query}'
)


def cached_complete(store: Store, llm: LLM, prompt: str, *, timeout_s: float) -> str:
    """The LLM's completion of ``prompt``, from ``llm_cache`` when present."""
    key = hashlib.sha256(f"{llm.model_id}\0{prompt}".encode()).hexdigest()
    row = store.conn.execute("SELECT completion FROM llm_cache WHERE key = ?", (key,)).fetchone()
    if row:
        return str(row[0])
    completion = llm.complete(prompt, timeout_s=timeout_s)
    with store.write() as c:
        c.execute("INSERT OR REPLACE INTO llm_cache(key, model, completion, created_at) "
                  "VALUES (?, ?, ?, ?)", (key, llm.model_id, completion, now_utc().isoformat()))
    return completion


def parse_expansion(completion: str) -> list[str]:
    """Paraphrases then the HyDE passage from the model's JSON reply (tolerant of fences)."""
    text = completion.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return []
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return []
    out = [p for p in data.get("paraphrases", []) if isinstance(p, str)][:3]
    if isinstance(data.get("passage"), str):
        out.append(data["passage"])
    return out


def expand_queries(store: Store, llm: LLM, query: str) -> list[str]:
    """The original query followed by up to 4 distinct expansions (at most 5 in all)."""
    return try_expand(store, llm, query)[0]


def try_expand(store: Store, llm: LLM, query: str) -> tuple[list[str], str | None]:
    """Like ``expand_queries``, also returning why the LLM failed (``None`` when it did not)."""
    error = None
    try:
        extra = parse_expansion(cached_complete(store, llm, PROMPT.format(query=query),
                                                timeout_s=EXPANSION_TIMEOUT_S))
    except Exception as exc:
        log.warning("query expansion failed: %s", exc)
        extra, error = [], f"{type(exc).__name__}: {exc}"
    seen = {query.strip().casefold()}
    queries = [query]
    for q in extra:
        key = q.strip().casefold()
        if q.strip() and key not in seen:
            seen.add(key)
            queries.append(q.strip())
    return queries[:MAX_QUERIES], error
