"""Formatting of `kb eval` results: JSON shape and text tables, from hand-made reports."""

import json

from kb.config import PipelineSettings
from kb.eval.gates import Bound, GateResult
from kb.eval.report import render_text, report_json
from kb.eval.stages import SkippedStage, compare, stage_variants
from kb.eval.suite import FAITHFULNESS_SKIPPED, IndexInfo, SetReport, StageCheck

METRICS = {"ndcg@10": 0.91234, "recall@10": 0.9, "recall@100": 0.95, "mrr": 0.8,
           "precision@3": 0.33333, "rank_p50_ms": 12.345, "search_p50_ms": 20.06}


def make_report(stages=None):
    return SetReport(
        name="demo", dataset="/x/demo", queries=10, precision_queries=None, metrics=METRICS,
        stage_p50_ms={"recall": 10.04, "rerank": 2.0},
        notes=("vectors: no embedder configured; BM25 only",),
        index=IndexInfo("/c/demo.db", 5, 9, 0, 0, False), stages=stages)


def test_json_rounds_and_keeps_every_metric():
    gate = [GateResult("demo", "mrr", 0.8, Bound(min=0.9), "failed", "demo mrr 0.8000 < min")]
    data = report_json([make_report()], embedder="none", settings=PipelineSettings(rerank="off"),
                       faithfulness=FAITHFULNESS_SKIPPED, gate=("/g.toml", gate))
    json.dumps(data)  # serialisable as is
    (s,) = data["sets"]
    assert s["metrics"]["ndcg@10"] == 0.9123 and s["metrics"]["rank_p50_ms"] == 12.3
    assert s["stage_p50_ms"] == {"recall": 10.0, "rerank": 2.0}
    assert s["precision_queries"] is None and s["stages"] is None
    assert data["settings"]["rerank"] == "off" and data["settings_changed"] == "rerank=off"
    assert data["faithfulness"]["status"] == "skipped"
    assert data["gate"] == {"thresholds": "/g.toml", "status": "failed", "results": [
        {"set": "demo", "metric": "mrr", "value": 0.8, "min": 0.9, "max": None,
         "status": "failed", "message": "demo mrr 0.8000 < min"}]}
    assert "gate" not in report_json([make_report()], embedder="none",
                                     settings=PipelineSettings(),
                                     faithfulness=FAITHFULNESS_SKIPPED)


def test_text_table_with_stage_check():
    variant = stage_variants(PipelineSettings())[2]  # rerank off
    worse = compare(variant, METRICS, {**METRICS, "ndcg@10": 0.9, "rank_p50_ms": 10.0})
    check = StageCheck(dict(METRICS), (worse,), (SkippedStage("decay", "same created_at"),))
    lines = render_text([make_report(check)], embedder="none", settings=PipelineSettings(),
                        faithfulness=FAITHFULNESS_SKIPPED)
    text = "\n".join(lines)
    # a trial: `kb eval --set mine` after `kb calibrate --set mine` showed the shipped
    # threshold's figures without saying so
    assert lines[0] == ("embedder: none   pipeline settings: defaults   judge threshold: "
                        "shipped (each set's own index; `kb calibrate` applies to yours)")
    header = lines[2].split()
    assert header[:4] == ["set", "queries", "nDCG@10", "R@10"]
    row = lines[3].split()
    assert row[:3] == ["demo", "10", "0.9123"] and row[-1] == "20.1"
    assert row.count("-") == 4  # refP@3, distract, refusal, false ref.: no distractors.tsv
    assert "stage p50 ms  demo: recall 10.0, rerank 2.0" in text
    assert "note   demo: vectors: no embedder configured; BM25 only" in text
    assert "faithfulness: skipped (no judge LLM configured" in text
    assert "stage check: demo" in text
    rerank_row = next(line for line in lines if line.startswith("rerank"))
    assert rerank_row.split() == ["rerank", "off", "-0.0123", "+0.0000", "+0.0000", "-", "-",
                                  "-", "-", "-2.3", "worse"]
    assert "skipped  decay: same created_at" in text
