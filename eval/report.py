"""Format ``kb eval`` results: one JSON document, or plain-text tables.

Pure functions from the measured ``SetReport``s (``kb.eval.suite``) and gate results
(``kb.eval.gates``) to plain data or lines of text; the CLI prints them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kb.config import PipelineSettings
from kb.eval.answer_gate import AnswerGateReport
from kb.eval.gates import GateResult
from kb.eval.stages import VERDICT_METRICS, describe_settings
from kb.eval.suite import Faithfulness, SetReport, StageCheck

# Columns of the text tables: (metric name, header). The JSON holds every metric.
TABLE_COLUMNS = (
    ("ndcg@10", "nDCG@10"),
    ("recall@10", "R@10"),
    ("recall@100", "R@100"),
    ("mrr", "MRR"),
    ("precision@3", "P@3"),
    ("reference_precision@3", "refP@3"),
    ("distractor_pass_through", "distract"),
    ("refusal_rate", "refusal"),
    ("false_refusal_rate", "false ref."),
    ("search_p50_ms", "p50 ms"),
)
ANSWER_COLUMNS = (
    ("faithfulness", "faithful"),
    ("answer_relevance", "ans.rel"),
    ("context_relevance", "ctx.rel"),
)
STAGE_COLUMNS = (
    ("ndcg@10", "nDCG@10"),
    ("recall@100", "R@100"),
    ("mrr", "MRR"),
    ("reference_precision@3", "refP@3"),
    ("distractor_pass_through", "distract"),
    ("refusal_rate", "refusal"),
    ("false_refusal_rate", "false ref."),
    ("rank_p50_ms", "rank ms"),
)


def report_json(reports: Sequence[SetReport], *, embedder: str, settings: PipelineSettings,
                faithfulness: Faithfulness,
                gate: tuple[Path, Sequence[GateResult]] | None = None) -> dict[str, Any]:
    """The whole evaluation as one JSON-ready object.

    Shape: ``{"embedder", "settings", "settings_changed", "sets": [...], "faithfulness":
    {"status", "reason", "answerer", "judge", "sets": [...]}, "gate": {...}}`` where each set
    is ``{"name", "dataset", "queries", "precision_queries", "metrics", "stage_p50_ms",
    "notes", "index", "stages"}`` (``stages``: ``{"baseline", "comparisons", "skipped"}`` or
    ``None``), each judged set under ``faithfulness`` is ``{"name", "questions", "available",
    "refused", "metrics", "notes", "unsupported", "errors", "items"}`` (see
    ``kb.eval.answer_gate``) and ``gate`` (present only when gating) is ``{"thresholds",
    "status", "results": [...]}``. Metrics are rounded to 4 decimals, times (``*_ms``) to
    0.1 ms.
    """
    out: dict[str, Any] = {
        "embedder": embedder,
        "settings": dataclasses.asdict(settings),
        "settings_changed": describe_settings(settings),
        "sets": [_set_json(r) for r in reports],
        "faithfulness": {"status": faithfulness.status, "reason": faithfulness.reason,
                         "answerer": faithfulness.answerer, "judge": faithfulness.judge,
                         "sets": [_answers_json(r.name, r.answers) for r in reports
                                  if r.answers is not None]},
    }
    if gate is not None:
        path, results = gate
        out["gate"] = {
            "thresholds": str(path),
            "status": gate_status(results),
            "results": [{"set": g.set_name, "metric": g.metric,
                         "value": None if g.value is None else round(g.value, 4),
                         "min": g.bound.min if g.bound else None,
                         "max": g.bound.max if g.bound else None,
                         "status": g.status, "message": g.message} for g in results],
        }
    return out


def gate_status(results: Sequence[GateResult]) -> str:
    """``failed`` when any result failed, else ``passed``."""
    return "failed" if any(g.status == "failed" for g in results) else "passed"


def render_text(reports: Sequence[SetReport], *, embedder: str, settings: PipelineSettings,
                faithfulness: Faithfulness) -> list[str]:
    """The metrics table, per-stage latencies, notes, faithfulness and any stage checks.

    Returns:
        Lines of text without trailing newlines.

    """
    lines = [f"embedder: {embedder}   pipeline settings: {describe_settings(settings)}   "
             "judge threshold: shipped (each set's own index; `kb calibrate` applies to yours)",
             ""]
    headers = ["set", "queries"] + [h for _, h in TABLE_COLUMNS]
    rows = [[r.name, str(r.queries)] + [_fmt(r.metrics.get(m), m) for m, _ in TABLE_COLUMNS]
            for r in reports]
    lines += _table(headers, rows)
    for r in reports:
        lines += _answerability_lines(r)
    lines.append("")
    lines.append("ranking over the judged queries, per document: R = recall, P = precision;")
    lines.append("references handed out (sets with distractors.tsv): refP@3 = precision, "
                 "distract = distractor pass-through, refusal = refusal rate on unanswerable; "
                 "p50 ms = full search.")
    for r in reports:
        if r.stage_p50_ms:
            stages = ", ".join(f"{k} {v:.1f}" for k, v in r.stage_p50_ms.items())
            lines.append(f"stage p50 ms  {r.name}: {stages}")
    for r in reports:
        if r.index.vectors_embedded or r.index.rebuilt:
            lines.append(f"index  {r.name}: {'rebuilt, ' if r.index.rebuilt else ''}"
                         f"{r.index.vectors_embedded} vectors embedded ({r.index.path})")
        for note in r.notes:
            lines.append(f"note   {r.name}: {note}")
    lines.append(f"faithfulness: {faithfulness.status} ({faithfulness.reason})")
    lines += render_answers(reports, faithfulness)
    for r in reports:
        if r.stages is not None:
            lines += [""] + render_stage_check(r, r.stages)
    return lines


def _answerability_lines(report: SetReport) -> list[str]:
    """Per-part judge figures of an answerability set (metrics ``<part>_auc`` and rates)."""
    parts = sorted(m[:-len("_auc")] for m in report.metrics if m.endswith("_auc"))
    if not parts:
        return []
    rows = [[part] + [_fmt(report.metrics.get(f"{part}{suffix}"), suffix) for suffix in
                      ("_auc", "_refusal_rate", "_false_refusal_rate")] for part in parts]
    lines = ["", f"{report.name} (judge AUC over questions; refusal of unanswerable and "
             "false refusal of answerable ones):"]
    lines += _table(["part", "AUC", "refusal", "false ref."], rows)
    extra = {m: v for m, v in report.metrics.items()
             if not any(m.startswith(p + "_") for p in parts) and m.endswith("_rate")}
    lines += [f"{m}: {_fmt(v, m)}" for m, v in sorted(extra.items())]
    return lines


def render_stage_check(report: SetReport, check: StageCheck) -> list[str]:
    """One set's stage check: the configured values, then each variant's deltas and verdict."""
    lines = [f"stage check: {report.name} (each row toggles one stage; deltas are variant minus "
             f"configured; lower is better for distract and ms)"]
    headers = ["stage", "change"] + [h for _, h in STAGE_COLUMNS] + ["verdict"]
    rows = [["configured", "-"] + [_fmt(check.baseline.get(m), m) for m, _ in STAGE_COLUMNS]
            + ["-"]]
    for c in check.comparisons:
        rows.append([c.variant.stage, c.variant.change]
                    + [_fmt(c.deltas.get(m), m, signed=True) for m, _ in STAGE_COLUMNS]
                    + [c.verdict])
    lines += _table(headers, rows)
    weighed = ", ".join(VERDICT_METRICS)
    lines.append(f"verdict weighs {weighed}: better = some improve and none worsen with the "
                 "variant; a stage whose `off` row is better hurts on this set.")
    for s in check.skipped:
        lines.append(f"skipped  {s.stage}: {s.reason}")
    return lines


def render_answers(reports: Sequence[SetReport], faithfulness: Faithfulness) -> list[str]:
    """The faithfulness gate's table, unsupported statements and failures (empty if skipped)."""
    judged = [(r.name, r.answers) for r in reports if r.answers is not None]
    if not judged:
        return []
    lines = [f"answers by {faithfulness.answerer}, judged by {faithfulness.judge}"]
    headers = ["set", "questions"] + [h for _, h in ANSWER_COLUMNS] + ["refused", "errors"]
    rows = []
    for name, a in judged:
        (yes, no), (ref_yes, ref_no) = _kinds(a), a.refused()
        rows.append([name, str(len(a.items))]
                    + [_fmt(a.metrics.get(m), m) for m, _ in ANSWER_COLUMNS]
                    + [f"{ref_no}/{no} unanswerable, {ref_yes}/{yes} answerable",
                       str(len([i for i in a.items if i.error]))])
    lines += _table(headers, rows)
    lines.append("faithful = supported statements / statements (a refusal scores 1.0); ans.rel "
                 "= mean cosine of the question to questions the judge wrote from the answer; "
                 "ctx.rel = share of references the judge finds useful (both: refusals not "
                 "scored).")
    for name, a in judged:
        for note in a.notes:
            lines.append(f"note   {name}: {note}")
        for item in a.items:
            for statement in item.unsupported:
                lines.append(f"unsupported  {name} {item.query_id}: {statement}  "
                             f"(question: {item.question})")
        for item in a.items:
            if item.error:
                lines.append(f"error  {name} {item.query_id}: {item.error}")
    return lines


def _kinds(a: AnswerGateReport) -> tuple[int, int]:
    yes = sum(i.answerable for i in a.items)
    return yes, len(a.items) - yes


def _answers_json(name: str, a: AnswerGateReport) -> dict[str, Any]:
    (yes, no), (ref_yes, ref_no) = _kinds(a), a.refused()
    return {
        "name": name,
        "questions": len(a.items),
        "available": {"answerable": a.available[0], "unanswerable": a.available[1]},
        "refused": {"answerable": ref_yes, "of_answerable": yes, "unanswerable": ref_no,
                    "of_unanswerable": no},
        "metrics": {k: _round(k, v) for k, v in a.metrics.items()},
        "notes": list(a.notes),
        "unsupported": [{"query_id": i.query_id, "question": i.question, "statement": st}
                        for i in a.items for st in i.unsupported],
        "errors": [{"query_id": i.query_id, "question": i.question, "error": i.error}
                   for i in a.items if i.error],
        "items": [{k: _round(k, v) if isinstance(v, float) else v
                   for k, v in dataclasses.asdict(i).items()} for i in a.items],
    }


def _set_json(r: SetReport) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": r.name,
        "dataset": r.dataset,
        "queries": r.queries,
        "precision_queries": None if r.precision_queries is None else {
            "answerable": r.precision_queries[0], "unanswerable": r.precision_queries[1]},
        "metrics": {k: _round(k, v) for k, v in r.metrics.items()},
        "stage_p50_ms": {k: round(v, 1) for k, v in r.stage_p50_ms.items()},
        "notes": list(r.notes),
        "index": dataclasses.asdict(r.index),
        "stages": None,
    }
    if r.stages is not None:
        out["stages"] = {
            "baseline": {k: _round(k, v) for k, v in r.stages.baseline.items()},
            "comparisons": [{
                "stage": c.variant.stage,
                "change": c.variant.change,
                "settings_changed": describe_settings(c.variant.settings),
                "verdict": c.verdict,
                "deltas": c.deltas,
                "metrics": {k: _round(k, v) for k, v in c.metrics.items()},
            } for c in r.stages.comparisons],
            "skipped": [{"stage": s.stage, "reason": s.reason} for s in r.stages.skipped],
        }
    return out


def _round(name: str, value: float) -> float:
    return round(value, 1 if name.endswith("_ms") else 4)


def _fmt(value: float | None, name: str, *, signed: bool = False) -> str:
    if value is None:
        return "-"
    spec = ".1f" if name.endswith("_ms") else ".4f"
    return format(value, ("+" if signed else "") + spec)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()
    return [line(headers), *(line(r) for r in rows)]
