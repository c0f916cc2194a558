"""The one store read the judge needs: candidate passages and index statistics.

``gather`` turns the candidates stage 5 judges into plain data (``kb.retrieve.judge.Passage``,
``kb.retrieve.judge.IndexStats``) so that the judge itself is a pure function: the chunk rows and
vectors the orchestrator already fetched, the document frequencies of the query terms (and of
their translations) from FTS5's vocabulary, and per document the number of chunks and of
chunks holding each term (what makes a term a *topic* term of that document).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

from kb.retrieve.judge import IndexStats, Passage, Verdict, judge
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.terms import Term, index_tokens, phrase_tokens
from kb.store import Store
from kb.store.textindex import phrase_expression
from kb.types import Candidate, Chunk


def gather(store: Store, terms: Sequence[Term], candidates: Sequence[Candidate],
           chunks: Mapping[int, Chunk]) -> tuple[list[Passage], IndexStats, str | None]:
    """The judge's inputs for ``candidates`` (those without a chunk row are left out).

    Args:
        store: the open store (read only).
        terms: the query's content terms.
        candidates: the candidates to judge, best first.
        chunks: chunk id -> chunk row (fetched by the orchestrator).

    Returns:
        The passages, the statistics, and why the FTS5 statistics are missing when its
        index failed (then every term counts as found in no chunk, and none as a topic
        term by frequency); ``None`` when they are complete.

    Raises:
        sqlite3.OperationalError: a statement was interrupted (the search is cancelled).
    """
    passages = [Passage(c.chunk_id, c.doc_id, chunks[c.chunk_id].text,
                        # title and heading path: an LLM's situating sentence follows them
                        chunks[c.chunk_id].context_prefix.split("\n", 1)[0], c.cosine,
                        c.vector, c.keyword, c.evidence)
                for c in candidates if c.chunk_id in chunks]
    docs = [p.doc_id for p in passages]
    tokens = [t for term in terms for t in index_tokens(term)]
    n_chunks, doc_chunks = store.counts_chunks(), store.doc_chunk_counts(docs)
    try:
        df = store.token_chunk_counts(tokens)
        doc_term = store.phrase_chunks_by_doc(
            {t.text: phrase_expression(phrase_tokens(t)) for t in terms}, docs)
    except sqlite3.OperationalError as exc:
        if "interrupt" in str(exc):
            raise
        return passages, IndexStats(n_chunks, {}, doc_chunks, {}, complete=False), str(exc)
    return passages, IndexStats(n_chunks, df, doc_chunks, doc_term), None


def judge_candidates(store: Store, query: str, terms: Sequence[Term],
                     candidates: Sequence[Candidate], chunks: Mapping[int, Chunk],
                     model: JudgeModel) -> tuple[dict[int, Verdict], str | None]:
    """Verdicts on ``candidates`` (best match first), and why index statistics are missing.

    The evidence is read once (``gather``), then the pure ``kb.retrieve.judge.judge`` decides.

    Raises:
        sqlite3.OperationalError: a statement was interrupted (the search is cancelled).
    """
    passages, stats, problem = gather(store, terms, candidates, chunks)
    return {v.chunk_id: v for v in judge(query, terms, passages, stats, model)}, problem
