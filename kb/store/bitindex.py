"""The bit index: sign bits and int8 codes of the mean-centred live vectors, past the exact scan.

Issue 14 measured the candidates (``bench/scale.py``, ``bench/README.md`` "Vector index at
scale"). Up to ``Store.exact_scan_max_vectors`` live vectors (``kb.config.EXACT_SCAN_MAX_VECTORS``,
100,000) searches keep the exact float32 scan of ``Store.vector_matrix``. Above, no float32
matrix is held: each chunk's vector is held as the signs of ``vector - mean`` (48 bytes at 384
dimensions) and as int8 codes of ``(vector - mean) * scale`` (one byte a dimension, ``scale``
per dimension mapping the largest centred component seen at the build to 127). A search ranks
every chunk by Hamming distance to the query's bits, scores the nearest tens of thousands with
the int8 codes against the float32 query and rescores the best few hundred exactly, their
float32 vectors read by id (``vectors_by_id``; ``kb.retrieve.bitrecall``).

Where they live: table ``chunk_bits`` (migrations 7 and 8), one row per live vector with its
document and baseline group, so loading the index reads neither text nor float32 vectors. The
centring mean and the scales are fixed per index build (meta ``MetaKey.BITS_MEAN``: the
fingerprint, the mean and the scales as JSON) and recomputed only when the index is rebuilt: by
the first write that takes the live vectors past the threshold (``keep_in_step``) or by a model
switch. Once it exists, every write of a live vector writes its bits and codes in the same
transaction (``kb.store.vectors.put_live``; a component past the build's largest is clipped to
+-127), and a chunk's row leaves with the chunk or its old vector (triggers), so a SIGKILL never
leaves the two out of step. The index is kept while the store shrinks below the threshold
(searches then scan exactly), so crossing back up needs no rebuild.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from kb.store import Store
from kb.store.meta import MetaKey
from kb.store.search import BASELINE_GROUP_SQL, VectorMatrix

log = logging.getLogger(__name__)

BASELINE_SAMPLE_PER_GROUP = 2048  # float32 vectors kept per baseline group for the medians
_BUILD_BLOCK_ROWS = 20_000  # rows read per step of a build (30 MB of float32 at 384-d)
_LIVE_SQL = "FROM chunks WHERE embedding_fingerprint = ? AND embedding IS NOT NULL"
_CODED_SQL = "FROM chunk_bits WHERE codes IS NOT NULL"  # rows a search can use (migration 8)
_PUT_BITS_SQL = (  # the row of a chunk whose vector was just written under the same condition
    f"INSERT OR REPLACE INTO chunk_bits(chunk_id, doc_id, grp, bits, codes) SELECT id, doc_id, "
    f"{BASELINE_GROUP_SQL}, ?, ? FROM chunks WHERE id = ? AND context_prefix = ? AND text = ? "
    "AND embedding_fingerprint = ?")


@dataclass(frozen=True, slots=True)
class Centring:
    """What an index build fixes: the centring mean and the int8 scale of each dimension.

    Attributes:
        mean: shape (dim,), float32.
        scale: shape (dim,), float32, > 0: codes are ``rint((vector - mean) * scale)``,
            clipped to [-127, 127].
    """

    mean: np.ndarray
    scale: np.ndarray


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


def sign_bits(vectors: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Sign bits of ``vectors - mean``: shape (rows, ceil(dim / 64)) uint64, zero-padded.

    Args:
        vectors: shape (rows, dim) or (dim,), float32.
        mean: shape (dim,).
    """
    packed = np.packbits(np.atleast_2d(vectors) - mean > 0, axis=1)
    pad = -packed.shape[1] % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


def int8_codes(vectors: np.ndarray, centring: Centring) -> np.ndarray:
    """``rint((vectors - mean) * scale)`` clipped to [-127, 127]: shape (rows, dim), int8.

    Args:
        vectors: shape (rows, dim) or (dim,), float32.
        centring: the index build's mean and scales.
    """
    scaled = (np.atleast_2d(vectors) - centring.mean) * centring.scale
    return np.clip(np.rint(scaled), -127, 127).astype(np.int8)


def stored_centring(c: sqlite3.Connection, fingerprint: str) -> Centring | None:
    """The mean and scales of the index of ``fingerprint``, or ``None`` when none is built."""
    row = c.execute("SELECT value FROM meta WHERE key = ?", (MetaKey.BITS_MEAN,)).fetchone()
    if row is None:
        return None
    stamp = json.loads(row[0])
    if stamp["fingerprint"] != fingerprint or "scale" not in stamp:
        return None
    return Centring(np.array(stamp["mean"], dtype=np.float32),
                    np.array(stamp["scale"], dtype=np.float32))


def put_bits(c: sqlite3.Connection, rows: Sequence[tuple[int, str, str, bytes]],
             fingerprint: str, centring: Centring) -> None:
    """Write the bits and codes of vectors just written (chunk id, prefix, text, float32 BLOB).

    Inside the caller's write transaction; a row is written only where the chunk still holds
    that prefix, text and the live ``fingerprint`` (the vector's own condition).
    """
    if not rows:
        return
    m = np.frombuffer(b"".join(r[3] for r in rows), "<f4").reshape(len(rows), -1)
    bits, codes = sign_bits(m, centring.mean), int8_codes(m, centring)
    c.executemany(_PUT_BITS_SQL, [(b.tobytes(), q.tobytes(), cid, prefix, text, fingerprint)
                                  for (cid, prefix, text, _), b, q
                                  in zip(rows, bits, codes, strict=True)])


def rebuild(c: sqlite3.Connection, fingerprint: str) -> int:
    """Recompute the centring and every chunk's bits and codes for ``fingerprint``.

    In ``c``'s transaction. Streams the vectors in blocks (two passes: the mean and each
    dimension's range, then the bits and codes), never holding them all. Returns the vectors
    indexed.
    """
    c.execute("DELETE FROM chunk_bits")
    total, lo, hi, n = None, None, None, 0
    for _, _, block in _blocks(c, fingerprint):
        total = block.sum(axis=0, dtype=np.float64) + (0 if total is None else total)
        lo = block.min(axis=0) if lo is None else np.minimum(lo, block.min(axis=0))
        hi = block.max(axis=0) if hi is None else np.maximum(hi, block.max(axis=0))
        n += len(block)
    if total is None or lo is None or hi is None:
        c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.BITS_MEAN,))
        return 0
    mean = (total / n).astype(np.float32)
    reach = np.maximum(hi - mean, mean - lo)  # the largest centred component of each dimension
    scale = (127.0 / np.where(reach > 0, reach, 1.0)).astype(np.float32)
    centring = Centring(mean, scale)
    stamp = json.dumps({"fingerprint": fingerprint, "mean": [float(x) for x in mean],
                        "scale": [float(x) for x in scale]})
    c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (MetaKey.BITS_MEAN, stamp))
    for ids, doc_groups, block in _blocks(c, fingerprint):
        bits, codes = sign_bits(block, mean), int8_codes(block, centring)
        c.executemany("INSERT INTO chunk_bits(chunk_id, doc_id, grp, bits, codes) "
                      "VALUES (?, ?, ?, ?, ?)",
                      [(cid, d, g, b.tobytes(), q.tobytes())
                       for cid, (d, g), b, q in zip(ids, doc_groups, bits, codes, strict=True)])
    return n


def _blocks(c: sqlite3.Connection, fingerprint: str
            ) -> Iterator[tuple[list[int], list[tuple[int, int]], np.ndarray]]:
    """(chunk ids, (doc id, group) pairs, float32 block) of the live vectors, by id."""
    after = -1
    while True:
        rows = c.execute(f"SELECT id, doc_id, {BASELINE_GROUP_SQL}, embedding {_LIVE_SQL} "
                         "AND id > ? ORDER BY id LIMIT ?",
                         (fingerprint, after, _BUILD_BLOCK_ROWS)).fetchall()
        if not rows:
            return
        after = rows[-1][0]
        yield ([r[0] for r in rows], [(r[1], r[2]) for r in rows],
               np.frombuffer(b"".join(r[3] for r in rows), "<f4").reshape(len(rows), -1))


def keep_in_step(c: sqlite3.Connection, rows: Sequence[tuple[int, str, str, bytes]],
                 fingerprint: str, exact_scan_max_vectors: int) -> None:
    """After live vectors were written in ``c``'s transaction: write their bits, or build.

    With an index of ``fingerprint``, the rows' bits and codes are written; without one, the
    index is built when the live vectors now number more than ``exact_scan_max_vectors``.
    """
    centring = stored_centring(c, fingerprint)
    if centring is not None:
        put_bits(c, rows, fingerprint, centring)
    elif int(c.execute("SELECT count(*) FROM chunks WHERE embedding_fingerprint = ?",
                       (fingerprint,)).fetchone()[0]) > exact_scan_max_vectors:
        rebuild(c, fingerprint)


def count_live(conn: sqlite3.Connection, fingerprint: str) -> int:
    """How many chunks hold a vector of ``fingerprint`` (the fingerprint index alone)."""
    return int(conn.execute("SELECT count(*) FROM chunks WHERE embedding_fingerprint = ?",
                            (fingerprint,)).fetchone()[0])


def in_step(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Whether a bit index of ``fingerprint`` is built with one row of bits per live vector."""
    return stored_centring(conn, fingerprint) is not None and int(conn.execute(
        f"SELECT count(*) {_CODED_SQL}").fetchone()[0]) == count_live(conn, fingerprint)


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
    cursor = conn.execute(f"SELECT chunk_id, doc_id, grp, bits, codes {_CODED_SQL} "
                          "ORDER BY chunk_id")
    at = 0
    while rows := cursor.fetchmany(_BUILD_BLOCK_ROWS):  # in blocks: no list of n rows
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
_cache_lock = threading.Lock()


def vector_index(store: Store, fingerprint: str) -> VectorMatrix | BitIndex:
    """What a search of ``fingerprint``'s vectors scans, read in the caller's snapshot.

    The exact matrix (``Store.vector_matrix``) up to ``store.exact_scan_max_vectors`` live
    vectors, else the bit index; an index that is missing or out of step (e.g. the threshold
    was lowered on a store written without one) falls back to the exact matrix, with a
    warning in the log. Cached until the next write.
    """
    gen = store.generation()
    with _cache_lock:
        cached = _cache.get(store)
        if cached is not None and cached[0] == gen and cached[1] == fingerprint:
            return cached[2]
        # let go of the stale index before reading the new one: both at once would double
        # the peak (about 0.5 GB each at 1M vectors)
        _cache.pop(store, None)
    del cached
    found: VectorMatrix | BitIndex | None = None
    if count_live(store.conn, fingerprint) > store.exact_scan_max_vectors:
        found = load(store.conn, fingerprint)
        if found is None:
            log.warning("%s: no bit index in step with the live vectors; scanning them exactly "
                        "(the next write of vectors builds it)", store.path)
    index = found if found is not None else store.vector_matrix(fingerprint)
    with _cache_lock:
        _cache[store] = (gen, fingerprint, index)
    return index


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
