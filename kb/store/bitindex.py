"""The bit index: sign bits and int8 codes of the mean-centred live vectors, past the exact scan.

Issue 14 measured the candidates (``bench/scale.py``, ``bench/README.md`` "Vector index at
scale"). Up to ``Store.exact_scan_max_vectors`` live vectors (``kb.config.EXACT_SCAN_MAX_VECTORS``,
100,000) searches keep the exact float32 scan of ``Store.vector_matrix``. Above, no float32
matrix is held: each chunk's vector is held as the signs of ``vector - mean`` (48 bytes at 384
dimensions) and as int8 codes of ``(vector - mean) * scale`` (one byte a dimension, ``scale``
per dimension mapping the largest centred component seen at the build to 127). A search ranks
every chunk in scope by Hamming distance to the query's bits, scores the nearest tens of
thousands with the int8 codes against the float32 query and rescores the best few hundred
exactly, their float32 vectors read by id (``vectors_by_id``; ``kb.retrieve.bitrecall``).

Where they live: table ``chunk_bits`` (migrations 7 and 8), one row per live vector with its
document and baseline group, so loading the index reads neither text nor float32 vectors. The
centring mean and the scales are fixed per index build (meta ``MetaKey.BITS_MEAN``: the
fingerprint, the mean, the scales and the live vectors counted at the build, as JSON) and
recomputed only when the index is rebuilt: by the first write that takes the live vectors past
the threshold (``keep_in_step``), by the write that takes the vectors coded since the build to
as many as the build saw, by a model switch, or by migration 8 (an index built without codes);
the code that builds the rows and keeps them in step is ``kb.store.bitbuild``. Once it exists,
every write of a live vector writes its bits and codes in the same transaction
(``kb.store.vectors.put_live``; a component past the build's largest is clipped to +-127), and
a chunk's row leaves with the chunk or its old vector (triggers), so a SIGKILL never leaves the
two out of step. The index is kept while the store shrinks below the threshold (searches then
scan exactly), so crossing back up needs no rebuild.

Why rebuild as vectors are written: the scales map the largest centred component seen at the
build to 127, so a store that grows far past its build clips more and more components of the
vectors written since, and their int8 scores drift from their cosines. Rebuilding once as many
vectors were coded since the build (new or rewritten: ``MetaKey.BITS_CODED_SINCE_BUILD``) as
it saw keeps at most about half the index coded with scales it did not contribute to; for a
store that only grows, that is at twice its size at the build. The write that reaches it waits
for a rebuild of every vector in its transaction (9.2 s at 1M, ``bench/README.md``); the
rebuilds of a store grown from n to N sum to under 2N vectors. A counter, not a count of the
live vectors, decides: counting them is 58 ms at 1M, on every write of vectors.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kb.store import Store
from kb.store.bitbuild import (
    BUILD_BLOCK_ROWS,
    CODED_SQL,
    count_live,
    in_step,
    rebuild,
    stored_centring,
)
from kb.store.search import VectorMatrix

log = logging.getLogger(__name__)

BASELINE_SAMPLE_PER_GROUP = 2048  # float32 vectors kept per baseline group for the medians


@dataclass(frozen=True, slots=True)
class BitIndex:
    """The live vectors of one fingerprint as sign bits and int8 codes, with a float32 sample.

    Attributes:
        chunk_ids: shape (n,), int64, ascending.
        doc_ids: shape (n,), int64.
        groups: shape (n,), int8: each chunk's baseline group (``BASELINE_GROUP_SQL``).
        bits: shape (words, n), uint64: sign bits of ``vector - mean``, zero-padded; one
            row per 64 dimensions, so a Hamming scan XORs contiguous words (20x faster at 100k
            than the (n, words) layout: 1.3 ms against 27 ms, loaded machine).
        mean: shape (dim,), float32: the centring mean of this index build.
        codes: shape (n, dim), int8: ``int8_codes`` of each vector (row i is chunk_ids[i]).
        scale: shape (dim,), float32: the int8 scale of this index build (``Centring``).
        group_counts: shape (4,), int64: chunks per baseline group.
        sample: shape (s, dim), float32: up to ``BASELINE_SAMPLE_PER_GROUP`` vectors per group,
            evenly spread over the group's chunk ids (the per-group median cosines).
        sample_groups: shape (s,), int8.
    """

    chunk_ids: np.ndarray
    doc_ids: np.ndarray
    groups: np.ndarray
    bits: np.ndarray
    mean: np.ndarray
    codes: np.ndarray
    scale: np.ndarray
    group_counts: np.ndarray
    sample: np.ndarray
    sample_groups: np.ndarray


def load(conn: sqlite3.Connection, fingerprint: str) -> BitIndex | None:
    """The bit index of ``fingerprint`` as stored, or ``None`` when it is absent or not in step."""
    centring = stored_centring(conn, fingerprint)
    if centring is None:
        return None
    n, dim = count_live(conn, fingerprint), len(centring.mean)
    dim_words = (dim + 63) // 64
    chunk_ids, doc_ids = np.empty(n, np.int64), np.empty(n, np.int64)
    groups, bits = np.empty(n, np.int8), np.empty((dim_words, n), np.uint64)
    codes = np.empty((n, dim), np.int8)
    cursor = conn.execute(f"SELECT chunk_id, doc_id, grp, bits, codes {CODED_SQL} "
                          "ORDER BY chunk_id")
    at = 0
    while rows := cursor.fetchmany(BUILD_BLOCK_ROWS):  # in blocks: no list of n rows
        if at + len(rows) > n:
            return None
        part = slice(at, at + len(rows))
        chunk_ids[part] = [r[0] for r in rows]
        doc_ids[part] = [r[1] for r in rows]
        groups[part] = [r[2] for r in rows]
        bits[:, part] = np.frombuffer(b"".join(r[3] for r in rows), np.uint64).reshape(
            len(rows), dim_words).T
        codes[part] = np.frombuffer(b"".join(r[4] for r in rows), np.int8).reshape(len(rows), dim)
        at += len(rows)
    if at != n or n == 0:
        return None
    picks = []
    for g in np.unique(groups):
        where = np.flatnonzero(groups == g)
        step = max(1, len(where) // BASELINE_SAMPLE_PER_GROUP)
        picks.append(where[::step][:BASELINE_SAMPLE_PER_GROUP])
    sampled = np.sort(np.concatenate(picks))
    got_ids, sample = vectors_by_id(conn, chunk_ids[sampled].tolist(), fingerprint)
    return BitIndex(chunk_ids, doc_ids, groups, bits, centring.mean, codes, centring.scale,
                    np.bincount(groups, minlength=4).astype(np.int64), sample,
                    groups[np.searchsorted(chunk_ids, got_ids)])


def vectors_by_id(conn: sqlite3.Connection, chunk_ids: Sequence[int], fingerprint: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The float32 vectors of ``fingerprint`` of the chunks given, by ascending id.

    Returns:
        (chunk ids found, shape (m,) int64; their vectors, shape (m, dim) float32); chunks
        without such a vector are left out.
    """
    ids: list[int] = []
    blobs: list[bytes] = []
    wanted = sorted(set(chunk_ids))
    for start in range(0, len(wanted), 10_000):
        part = wanted[start:start + 10_000]
        for cid, blob in conn.execute(
                # by rowid alone: "+" keeps SQLite off the fingerprint index (2x slower here)
                "SELECT id, embedding FROM chunks WHERE id IN (SELECT value FROM json_each(?)) "
                "AND +embedding_fingerprint = ? ORDER BY id", (json.dumps(part), fingerprint)):
            ids.append(int(cid))
            blobs.append(blob)
    matrix = (np.frombuffer(b"".join(blobs), "<f4").reshape(len(blobs), -1) if blobs
              else np.zeros((0, 0), dtype=np.float32))
    return np.array(ids, dtype=np.int64), matrix


_cache: weakref.WeakKeyDictionary[Store, tuple[int, str, VectorMatrix | BitIndex]] = (
    weakref.WeakKeyDictionary())
_load_locks: weakref.WeakKeyDictionary[Store, threading.Lock] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()  # guards both dictionaries; held for lookups only, never a load


def vector_index(store: Store, fingerprint: str) -> VectorMatrix | BitIndex:
    """What a search of ``fingerprint``'s vectors scans, read in the caller's snapshot.

    The exact matrix (``Store.vector_matrix``) up to ``store.exact_scan_max_vectors`` live
    vectors, else the bit index; an index that is missing or out of step (e.g. the threshold
    was lowered on a store written without one) falls back to the exact matrix, with a
    warning in the log. Cached per store until the next write. One thread at a time loads for
    a store (about 0.5 GB at 1M vectors): searches arriving together after a write wait for
    the first one's load and share it. A search in a snapshot older than the cached index
    loads its own and leaves the cache as it is.
    """
    with store.snapshot():  # joins the caller's: the generation and the load agree
        gen = store.generation()
        with _cache_lock:
            cached = _cache.get(store)
            if cached is not None and cached[0] == gen and cached[1] == fingerprint:
                return cached[2]
            lock = _load_locks.setdefault(store, threading.Lock())
        del cached
        with lock:
            with _cache_lock:
                cached = _cache.get(store)
                if cached is not None and cached[0] == gen and cached[1] == fingerprint:
                    return cached[2]  # loaded while this one waited
                if cached is not None and cached[0] < gen:
                    # let go of the stale index before reading the new one: both at once would
                    # double the peak (about 0.5 GB each at 1M vectors)
                    _cache.pop(store, None)
            del cached
            index = _load(store, fingerprint)
            with _cache_lock:
                newest = _cache.get(store)
                if newest is None or newest[0] <= gen:  # never an older snapshot's over a newer
                    _cache[store] = (gen, fingerprint, index)
            return index


def _load(store: Store, fingerprint: str) -> VectorMatrix | BitIndex:
    """The bit index past the threshold when in step, else the exact matrix (uncached)."""
    found: VectorMatrix | BitIndex | None = None
    if count_live(store.conn, fingerprint) > store.exact_scan_max_vectors:
        found = load(store.conn, fingerprint)
        if found is None:
            log.warning("%s: no bit index in step with the live vectors; scanning them exactly "
                        "(the next write of vectors builds it)", store.path)
    return found if found is not None else store.vector_matrix(fingerprint)


def ensure(store: Store, fingerprint: str) -> bool:
    """Build the bit index of ``fingerprint`` if searches need it and none is in step.

    For a store past ``store.exact_scan_max_vectors`` written without one (by a kb before
    migration 7, or under a higher threshold); writes otherwise build it themselves
    (``keep_in_step``). One write transaction, streamed (``rebuild``).

    Returns:
        Whether it built the index.

    Raises:
        kb.errors.StoreError: the file is read-only, or a storage fault ended the write.
    """
    if count_live(store.conn, fingerprint) <= store.exact_scan_max_vectors or in_step(
            store.conn, fingerprint):
        return False
    with store.write() as c:
        rebuild(c, fingerprint)
    return True
