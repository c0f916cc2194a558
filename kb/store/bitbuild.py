"""The bit index's rows: codes of vectors, the build, and keeping them in step with writes.

Plain connections, no ``Store``: the writers of vectors (``kb.store.vectors``) and migration 8
(``kb.store.schema``) call them inside their own write transactions. What the rows are and
when an index is built: ``kb.store.bitindex``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from kb.store.meta import MetaKey
from kb.store.search import BASELINE_GROUP_SQL

BUILD_BLOCK_ROWS = 20_000  # rows read per step of a build (30 MB of float32 at 384-d)
_LIVE_SQL = "FROM chunks WHERE embedding_fingerprint = ? AND embedding IS NOT NULL"
CODED_SQL = "FROM chunk_bits WHERE codes IS NOT NULL"  # rows a search can use (migration 8)
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
        vectors_at_build: live vectors the build saw (0 in a stamp from before it was
            recorded): ``keep_in_step`` rebuilds once as many were coded since.
    """

    mean: np.ndarray
    scale: np.ndarray
    vectors_at_build: int


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
                    np.array(stamp["scale"], dtype=np.float32),
                    int(stamp.get("vectors_at_build", 0)))


def put_bits(c: sqlite3.Connection, rows: Sequence[tuple[int, str, str, bytes]],
             fingerprint: str, centring: Centring) -> None:
    """Write the bits and codes of vectors just written (chunk id, prefix, text, float32 BLOB).

    Inside the caller's write transaction; a row is written only where the chunk still holds
    that prefix, text and the live ``fingerprint`` (the vector's own condition), and counted
    in ``MetaKey.BITS_CODED_SINCE_BUILD``.
    """
    if not rows:
        return
    m = np.frombuffer(b"".join(r[3] for r in rows), "<f4").reshape(len(rows), -1)
    bits, codes = sign_bits(m, centring.mean), int8_codes(m, centring)
    written = c.executemany(_PUT_BITS_SQL, [
        (b.tobytes(), q.tobytes(), cid, prefix, text, fingerprint)
        for (cid, prefix, text, _), b, q in zip(rows, bits, codes, strict=True)]).rowcount
    c.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
              "value = CAST(value AS INTEGER) + excluded.value",
              (MetaKey.BITS_CODED_SINCE_BUILD, written))


def rebuild(c: sqlite3.Connection, fingerprint: str) -> int:
    """Recompute the centring and every chunk's bits and codes for ``fingerprint``.

    In ``c``'s transaction. Streams the vectors in blocks (two passes: the mean and each
    dimension's range, then the bits and codes), never holding them all. Returns the vectors
    indexed.
    """
    c.execute("DELETE FROM chunk_bits")
    c.execute("DELETE FROM meta WHERE key = ?", (MetaKey.BITS_CODED_SINCE_BUILD,))
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
    centring = Centring(mean, scale, n)
    stamp = json.dumps({"fingerprint": fingerprint, "mean": [float(x) for x in mean],
                        "scale": [float(x) for x in scale], "vectors_at_build": n})
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
                         (fingerprint, after, BUILD_BLOCK_ROWS)).fetchall()
        if not rows:
            return
        after = rows[-1][0]
        yield ([r[0] for r in rows], [(r[1], r[2]) for r in rows],
               np.frombuffer(b"".join(r[3] for r in rows), "<f4").reshape(len(rows), -1))


def keep_in_step(c: sqlite3.Connection, rows: Sequence[tuple[int, str, str, bytes]],
                 fingerprint: str, exact_scan_max_vectors: int) -> None:
    """After live vectors were written in ``c``'s transaction: write their bits, or build.

    With an index of ``fingerprint``, the rows' bits and codes are written, or the index is
    rebuilt (new scales: see ``kb.store.bitindex``) when with them as many vectors were coded
    since its build (new or rewritten) as it saw; without one, the index is built when the
    live vectors now number more than ``exact_scan_max_vectors``.
    """
    centring = stored_centring(c, fingerprint)
    if centring is None:
        if count_live(c, fingerprint) > exact_scan_max_vectors:
            rebuild(c, fingerprint)
        return
    row = c.execute("SELECT value FROM meta WHERE key = ?",
                    (MetaKey.BITS_CODED_SINCE_BUILD,)).fetchone()
    if (0 if row is None else int(row[0])) + len(rows) >= centring.vectors_at_build:
        rebuild(c, fingerprint)
    else:
        put_bits(c, rows, fingerprint, centring)


def count_live(conn: sqlite3.Connection, fingerprint: str) -> int:
    """How many chunks hold a vector of ``fingerprint`` (the fingerprint index alone)."""
    return int(conn.execute("SELECT count(*) FROM chunks WHERE embedding_fingerprint = ?",
                            (fingerprint,)).fetchone()[0])


def in_step(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Whether a bit index of ``fingerprint`` is built with one row of bits per live vector."""
    return stored_centring(conn, fingerprint) is not None and int(conn.execute(
        f"SELECT count(*) {CODED_SQL}").fetchone()[0]) == count_live(conn, fingerprint)
