"""Vector recall over the bit index (stores past ``Store.exact_scan_max_vectors``), issue 14.

Two steps, split so the worker thread never reads the database (``kb.retrieve.hybrid``):

1. ``bit_candidates`` (worker, pure): the chunks to score exactly, by a cascade over the
   index held in RAM. Of the chunks searched (all, or in a scoped search those of the
   documents inside the scope, read with SQL by the caller), the nearest by Hamming distance
   between sign bits (``kb.store.bitbuild.sign_bits``) are kept, ``HAMMING_DEPTH`` or
   ``HAMMING_SHARE`` of them whichever is more, when there are more; of those, the
   ``RESCORE_COUNT`` best by their int8 codes scored against the float32 query
   (``int8_scores``), when there are more. Every candidate is inside the scope,
   so a scoped search returns ``min(pool, matching)`` hits. A scope of at most
   ``RESCORE_COUNT`` chunks (200, or ``pool`` if larger) is rescored whole, so its hits are
   exact; a larger one is approximate, as a whole-store search is (the int8 stage keeps 200).
2. ``rescored`` (in the search's snapshot): the candidates' float32 vectors read by id, exact
   cosines, the top ``pool`` by cosine then chunk id (as the exact scan orders them). The worker
   runs it itself when its own snapshot has the caller's generation (``rescore_if_same``), so
   the read overlaps BM25; else the caller runs it after BM25.

``s_norm`` follows ``kb.retrieve.recall.vector_recall``, with each baseline group's median
cosine taken over the index's float32 sample (``BitIndex.sample``, up to 2,048 chunks a group)
rather than over every chunk; a group of fewer than ``MIN_GROUP_CHUNKS`` chunks uses the
model's calibrated ``cos_unrelated``, as in the exact scan.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from kb.errors import SearchCancelled
from kb.retrieve.recall import MIN_GROUP_CHUNKS
from kb.store import Store
from kb.store.bitbuild import sign_bits
from kb.store.bitindex import BitIndex, vectors_by_id
from kb.types import Hit, RecallList

# bench/README.md, "The int8 cascade" (scale.py, 1M vectors): Hamming's nearest 20,000 (2%),
# int8's best 200 rescored, gave recall@10 0.993 against the exact scan (50,000: 0.997); the
# int8 codes rank as the exact cosines do (all 1M scored by int8, best 200 rescored: recall@50
# 1.000), so 200 are rescored in float32 (read by id from SQLite, about 15 us a row).
HAMMING_DEPTH = 20_000
HAMMING_SHARE = 0.02  # of the chunks searched, when more than HAMMING_DEPTH
RESCORE_COUNT = 200
INT8_BLOCK_ROWS = 16_384  # codes converted to float32 per step (24 MB at 384-d)
BASELINE_GROUPS = 4  # kb.store.search.BASELINE_GROUP_SQL: two bits, groups 0-3


@dataclass(frozen=True, slots=True)
class PendingRescore:
    """A vector list waiting for its exact rescoring (``rescored``).

    Attributes:
        name: the list's name.
        weight: its fusion weight.
        query_vector: shape (dim,), float32, L2-normalised.
        positions: rows of the ``BitIndex`` to rescore, ascending, int64.
        baselines: shape (4,), float32: each baseline group's baseline cosine.
        span: cosine rise above the baseline that maps to s_norm 1.
        pool: maximum hits.
    """

    name: str
    weight: float
    query_vector: np.ndarray
    positions: np.ndarray
    baselines: np.ndarray
    span: float
    pool: int


def scope_positions(index: BitIndex, allowed_docs: np.ndarray | None) -> np.ndarray | None:
    """Rows of ``index`` whose document is in ``allowed_docs`` (ascending), or ``None`` for all."""
    return None if allowed_docs is None else np.flatnonzero(np.isin(index.doc_ids, allowed_docs))


def sample_baselines(index: BitIndex, query_vector: np.ndarray, cos_unrelated: float
                     ) -> np.ndarray:
    """Each baseline group's median cosine over the sample, shape (4,), float32.

    ``cos_unrelated`` for groups of fewer than ``MIN_GROUP_CHUNKS`` chunks in the index.
    """
    out = np.full(BASELINE_GROUPS, cos_unrelated, dtype=np.float32)
    scores = index.sample @ query_vector
    for g in np.unique(index.sample_groups):
        if index.group_counts[g] >= MIN_GROUP_CHUNKS:
            out[g] = float(np.median(scores[index.sample_groups == g]))
    return out


def hamming(bits: np.ndarray, query_bits: np.ndarray) -> np.ndarray:
    """Hamming distances, shape (n,) uint16, of ``bits`` (words, n) to ``query_bits`` (words,)."""
    distance = np.bitwise_count(bits[0] ^ query_bits[0]).astype(np.uint16)
    for word in range(1, len(query_bits)):
        distance += np.bitwise_count(bits[word] ^ query_bits[word])
    return distance


def int8_scores(index: BitIndex, rows: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
    """``codes[rows] . (query / scale)``, shape (len(rows),), float32, in blocks.

    As ``vector ~ mean + code / scale``, this is ``query . vector`` less the constant
    ``query . mean``: it ranks the rows as their cosines do, up to the codes' rounding.
    """
    q_scaled = (query_vector / index.scale).astype(np.float32)
    out = np.empty(len(rows), np.float32)
    for start in range(0, len(rows), INT8_BLOCK_ROWS):
        part = rows[start:start + INT8_BLOCK_ROWS]
        out[start:start + len(part)] = index.codes[part].astype(np.float32) @ q_scaled
    return out


def bit_candidates(index: BitIndex, query_vector: np.ndarray, *, pool: int,
                   positions: np.ndarray | None, name: str, weight: float,
                   cos_unrelated: float, span: float, cancel: threading.Event | None = None,
                   hamming_depth: int | None = None,
                   rescore_count: int = RESCORE_COUNT) -> PendingRescore:
    """The chunks to rescore for one query (step 1 of the module docstring; pure).

    Args:
        index: the bit index, read in the search's snapshot.
        query_vector: shape (dim,), L2-normalised.
        pool: maximum hits; at least this many candidates are kept.
        positions: the rows inside the scope (``scope_positions``), or ``None`` for all.
        name: the list's name.
        weight: the list's fusion weight.
        cos_unrelated: baseline cosine for small groups.
        span: cosine rise above the baseline that maps to s_norm 1.
        cancel: checked before the Hamming scan and before the int8 scoring.
        hamming_depth: candidates kept by Hamming distance (at least ``rescore_count``);
            ``None``: the larger of ``HAMMING_DEPTH`` and ``HAMMING_SHARE`` of the chunks
            searched.
        rescore_count: candidates kept by int8 score, to rescore (at least ``pool``).

    Raises:
        kb.errors.SearchCancelled: ``cancel`` was set.
    """
    q = query_vector.astype(np.float32)
    baselines = sample_baselines(index, q, cos_unrelated)
    rescore_count = max(rescore_count, pool)
    rows = np.arange(len(index.chunk_ids)) if positions is None else positions
    if hamming_depth is None:
        hamming_depth = max(HAMMING_DEPTH, int(HAMMING_SHARE * len(rows)))
    hamming_depth = max(hamming_depth, rescore_count)
    if len(rows) > hamming_depth:
        if cancel is not None and cancel.is_set():
            raise SearchCancelled("search cancelled by the caller")
        bits = index.bits if positions is None else index.bits[:, positions]
        near = np.argpartition(hamming(bits, sign_bits(q, index.mean)[0]), hamming_depth - 1)
        rows = np.sort(rows[near[:hamming_depth]])
    if len(rows) > rescore_count:
        if cancel is not None and cancel.is_set():
            raise SearchCancelled("search cancelled by the caller")
        best = np.argpartition(-int8_scores(index, rows, q), rescore_count - 1)[:rescore_count]
        rows = np.sort(rows[best])
    return PendingRescore(name, weight, q, rows, baselines, span, pool)


def rescored(store: Store, index: BitIndex, pending: PendingRescore, fingerprint: str
             ) -> RecallList:
    """The list of ``pending`` (step 2): exact cosines of its candidates, best ``pool``.

    Reads the candidates' vectors through ``store.conn``: call it in the search's snapshot.
    """
    ids, matrix = vectors_by_id(store.conn, index.chunk_ids[pending.positions].tolist(),
                                fingerprint)
    if len(ids) == 0:
        return RecallList(pending.name, "vector", pending.weight, ())
    rows = np.searchsorted(index.chunk_ids, ids)
    scores = matrix @ pending.query_vector
    n = min(pending.pool, len(ids))
    top = np.argpartition(-scores, n - 1)[:n]
    top = top[np.lexsort((ids[top], -scores[top]))]
    span = max(pending.span, 1e-6)
    baseline = pending.baselines[index.groups[rows]]
    hits = tuple(
        Hit(int(ids[i]), int(index.doc_ids[rows[i]]), rank, float(scores[i]),
            float(min(1.0, max(0.0, (scores[i] - baseline[i]) / span))))
        for rank, i in enumerate(top, start=1))
    return RecallList(pending.name, "vector", pending.weight, hits)


def rescore_if_same(store: Store, generation: int, index: BitIndex,
                    items: list[RecallList | PendingRescore], fingerprint: str
                    ) -> list[RecallList | PendingRescore]:
    """``items`` with each ``PendingRescore`` rescored on this thread, in its own snapshot.

    Only when that snapshot's generation is ``generation`` (the caller's: every write a search
    reads bumps it, so both snapshots hold the same chunks and vectors); else ``items``
    unchanged, for the caller to rescore in its snapshot.
    """
    with store.snapshot():
        if store.generation() != generation:
            return items
        return [rescored(store, index, item, fingerprint) if isinstance(item, PendingRescore)
                else item for item in items]
