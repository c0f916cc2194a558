"""BM25's top hits by document-frequency tiers: the single OR query's hits, fewer chunks scored.

FTS5 computes ``bm25()`` for every chunk matching any alternative of an OR query before it keeps
the best ``limit`` (it has no early termination), so one common word costs its whole posting
list: at 100k SciFact chunks a query's terms match 29% of the index (median), and scoring them
is most of BM25's time. ``tiered_search`` returns the single query's hits (up to near-ties)
while scoring far fewer chunks, the idea of MaxScore (Turtle & Flood, "Query evaluation:
strategies and optimizations", IP&M 1995) expressed as FTS5 queries.

The query's alternatives (each term or phrase of each clause, duplicates kept) are put into
tiers by the share of chunks holding them (``TIER_EDGES``; a phrase goes into the rarest tier).
The chunks of tier ``i`` are those matching one of its alternatives and none of a rarer tier's,
found by two queries::

    (T_i NOT (T_0 OR ... T_i-1)) AND (T_i+1 OR ...)   the ones also holding a commoner alternative
    T_i NOT (every other tier)                       the ones holding none

Each query names every alternative of the single query once, so ``bm25()`` gives each chunk
the single query's score: it sums over the expression's phrases, a phrase absent from the chunk
adding 0, and a phrase's idf depends on the index alone. After tier ``i``, a chunk not yet seen
holds only commoner alternatives, and its score is below ``(k1 + 1) * sum of their idfs``
(``unseen_bound``: a term adds ``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``,
less than ``idf * (k1 + 1)`` for any frequency and length). Once ``limit`` hits score at least
that, no unseen chunk can enter the top ``limit`` and the search stops; in the worst case every
tier runs and the hits are still the single query's. Scores agree with it to rounding (the sum
runs over the phrases in another order): 1e-14 on SciFact. So two chunks whose scores differ by
about that much (a near-tie) may come back in the other order, and at the ``limit`` cut one
may take the other's place: 2 swaps in 4,800 ranks on a synthetic Zipf index (review, session
5), none on SciFact, CMRC 2018 or Cranfield (hits identical).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from kb.store import Store
from kb.store.search import Filters, FtsRow
from kb.store.textindex import (
    KeywordQuery,
    match_expression,
    matched_tokens,
    phrase_expression,
)

BM25_K1 = 1.2  # FTS5's bm25() constants (https://www.sqlite.org/fts5.html#the_bm25_function)
FTS5_MIN_IDF = 1e-6  # FTS5 clamps non-positive idf to this (sqlite ext/fts5/fts5_aux.c)
# Tier boundaries as shares of chunks holding a term: under 5%, 5-20%, 20% and over. Measured at
# 100k SciFact chunks (100 queries, CPU ms of the BM25 query, p50/p95): one query 18.7/37.9;
# edges (0.05, 0.2) 11.0/40.0; (0.05) 10.6/43.1; (0.1) 14.0/31.2; (0.02, 0.1) 16.6/41.9.
TIER_EDGES = (0.05, 0.2)
# Below this many postings in the commoner tiers one query is as fast as the tiers' extra
# queries (each about 1 ms: bm25() counts every phrase's chunks for its idf). At 10k SciFact
# chunks, 2,000 took BM25's p95 from 6.5 to 9.4 ms; 10,000 leaves 10k as it was (p50 4.0,
# p95 7.0 against 3.9 / 6.8) and 100k at p50 13.1 against 21.6 for one query.
TIER_MIN_POSTINGS = 10_000

Alternative = tuple[str, ...]  # index tokens; one token is a term, several a phrase


def fts5_idf(n: int, n_chunks: int) -> float:
    """FTS5's idf of a phrase held by ``n`` of ``n_chunks`` chunks, >= 1e-6."""
    return max(math.log((n_chunks - n + 0.5) / (n + 0.5)), FTS5_MIN_IDF)


def tiers(alternatives: Sequence[Alternative], df: Mapping[str, int], n_chunks: int,
          edges: Sequence[float] | None = None) -> list[list[Alternative]]:
    """The alternatives by tier, rarest first; empty tiers left out.

    Args:
        alternatives: every alternative of the query in order (duplicates kept: FTS5 scores
            a repeated phrase twice, and so must the tiers).
        df: chunks holding each token (absent: none).
        n_chunks: chunks in the index, > 0.
        edges: ascending shares of chunks in (0, 1) that start each commoner tier
            (``TIER_EDGES`` when ``None``).

    Returns:
        Non-empty lists; an alternative of one token goes into the tier of its share, a phrase
        into the rarest (it is at most as common as its rarest token).
    """
    edges = TIER_EDGES if edges is None else edges
    out: list[list[Alternative]] = [[] for _ in range(len(edges) + 1)]
    for alt in alternatives:
        share = df.get(alt[0], 0) / n_chunks if len(alt) == 1 else 0.0
        out[sum(share >= e for e in edges)].append(alt)
    return [t for t in out if t]


def unseen_bound(commoner: Sequence[Alternative], df: Mapping[str, int], n_chunks: int
                 ) -> float:
    """An upper bound (exclusive) on the bm25() score of a chunk holding only ``commoner``."""
    return (BM25_K1 + 1) * sum(fts5_idf(df.get(alt[0], 0), n_chunks) for alt in commoner)


def tier_expressions(levels: Sequence[Sequence[Alternative]], i: int) -> list[str]:
    """The MATCH expressions finding tier ``i``'s chunks (module docstring), 1 or 2 of them."""

    def any_of(alts: Sequence[Alternative]) -> str:
        return "(" + " OR ".join(phrase_expression(a) for a in alts) + ")"

    rarer = [a for level in levels[:i] for a in level]
    commoner = [a for level in levels[i + 1:] for a in level]
    own = any_of(levels[i])
    head = f"({own} NOT {any_of(rarer)})" if rarer else own
    if not commoner:
        return [head]
    return [f"{head} AND {any_of(commoner)}", f"{own} NOT {any_of(rarer + commoner)}"]


def best(rows: Sequence[FtsRow], limit: int) -> list[FtsRow]:
    """The ``limit`` best rows, as FTS5 orders them: score descending, then chunk id."""
    return sorted(rows, key=lambda r: (-r.score, r.chunk_id))[:limit]


def tiered_search(store: Store, query: KeywordQuery, df: Mapping[str, int], limit: int,
                  filters: Filters = Filters(), *, matched: bool = False,
                  edges: Sequence[float] | None = None,
                  min_postings: int = TIER_MIN_POSTINGS) -> list[FtsRow]:
    """``store.fts_search(match_expression(query), ...)``'s hits, scoring fewer chunks.

    Args:
        store: the open store.
        query: the clauses (at least one).
        df: chunks holding each of the query's single-token alternatives
            (``Store.token_chunk_counts``).
        limit: maximum hits, > 0.
        filters: scope applied inside each query.
        matched: also return each hit's matched tokens (what ``highlight()`` marks, read
            from the hits' index bodies: ``kb.store.textindex.matched_tokens``).
        edges: the tier boundaries (``TIER_EDGES`` when ``None``).
        min_postings: one query when the commoner tiers hold fewer postings than this.

    Returns:
        Hits best first, as one query returns them up to near-ties (module docstring).

    Raises:
        sqlite3.OperationalError: FTS5 rejected an expression.
    """
    n_chunks = store.fts_rows()
    alternatives = [alt for clause in query.clauses for alt in clause]
    levels = tiers(alternatives, df, n_chunks, edges) if n_chunks else []
    commonest = [a for level in levels[1:] for a in level]
    if len(levels) < 2 or sum(df.get(a[0], 0) for a in commonest) < min_postings:
        rows = store.fts_search(match_expression(query) or "", limit, filters)
    else:
        rows = []
        for i in range(len(levels)):
            for match in tier_expressions(levels, i):
                rows.extend(store.fts_search(match, limit, filters))
            rows = best(rows, limit)
            commoner = [a for level in levels[i + 1:] for a in level]
            if len(rows) == limit and rows[-1].score >= unseen_bound(commoner, df, n_chunks):
                break
    if not matched:
        return rows
    bodies = store.fts_bodies([r.chunk_id for r in rows])
    return [r._replace(matched=matched_tokens(bodies.get(r.chunk_id, ""), alternatives))
            for r in rows]
