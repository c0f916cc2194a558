"""``kb calibrate`` and ``kb eval``: calibration, release gates and the stage check."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import click

from kb.cli import cli, emit_json, errors_as_one_line, open_kb, progress_bar
from kb.config import Config
from kb.errors import KbError


@cli.command()
@click.option("--set", "set_name", default="precision", show_default=True,
              help="A bundled golden set name, or a folder in BEIR layout (with distractors).")
@click.option("--dry-run", is_flag=True, help="Measure and print, but do not store.")
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
@click.pass_context
@errors_as_one_line
def calibrate(ctx: click.Context, set_name: str, dry_run: bool, as_json: bool) -> None:
    """Calibrate the embedder's score scale and relevance floor on a golden set; store it."""
    import tempfile

    from eval.calibrate import calibrate as run_calibration
    from eval.datasets import dataset_dir
    from eval.retrieval import open_index
    from retrieve.calibration import save_calibration

    folder = Path(set_name) if Path(set_name).is_dir() else dataset_dir(set_name)
    with open_kb(ctx) as kb, tempfile.TemporaryDirectory() as tmp:
        service, problem = kb._embedding()
        if service is None:
            raise KbError(f"cannot calibrate: {problem}")
        with progress_bar(not as_json) as bar:
            index = open_index(folder, Path(tmp) / "calibration.db",
                               embedder=ctx.obj["embedder"], on_progress=bar)
        try:
            report = run_calibration(index, folder)
        finally:
            index.close()
        if not dry_run:
            save_calibration(kb.store, service.fingerprint.key, report.calibration)
    out = {**dataclasses.asdict(report.calibration), "fingerprint": service.fingerprint.key,
           "tpr": round(report.tpr, 4), "fpr": round(report.fpr, 4),
           "queries": len(report.negatives), "stored": not dry_run}
    if as_json:
        emit_json(out)
    else:
        for k, v in out.items():
            click.echo(f"{k:14} {v}")


@cli.command(name="eval")
@click.option("--set", "sets", multiple=True, metavar="NAME",
              help="A bundled golden set or a folder in BEIR layout (repeatable; default: "
              "scifact-small, cmrc2018-small, precision).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON document: metrics per set, stage checks, gate results.")
@click.option("--gate", is_flag=True,
              help="Check the metrics against the thresholds file; exit 1 naming each "
              "failing metric on stderr.")
@click.option("--stages", is_flag=True,
              help="Also measure each optional stage on and off; print the delta per metric.")
@click.option("--thresholds", type=click.Path(dir_okay=False, path_type=Path),
              help="Gate thresholds (TOML) used with --gate  [default: golden/gates.toml].")
@click.option("--stage-setting", "stage_settings", multiple=True, metavar="KEY=VALUE",
              help="Evaluate with a pipeline setting changed, e.g. rerank=off or "
              "relative_floor=0.6 (repeatable).")
@click.pass_context
@errors_as_one_line
def eval_(ctx: click.Context, sets: tuple[str, ...], as_json: bool, gate: bool, stages: bool,
          thresholds: Path | None, stage_settings: tuple[str, ...]) -> None:
    """Measure retrieval quality on golden sets; with --gate, enforce the release thresholds.

    Indexes of the sets are cached in $KB_CACHE_DIR/eval (default ~/.cache/kb/eval), so
    vectors are embedded once per set and embedder.
    """
    from eval.datasets import dataset_dir, golden_dir
    from eval.gates import check_gates, load_thresholds, table_name
    from eval.report import gate_status, render_text, report_json
    from eval.stages import apply_overrides, parse_overrides
    from eval.suite import DEFAULT_SETS, FAITHFULNESS_SKIPPED, cache_path, evaluate_set
    from kb.backends.registry import ollama_host_from_env
    from kb.config import PipelineSettings

    obj = ctx.obj
    embedder = obj["embedder"]
    config = Config(embedder=embedder, llm=obj.get("llm"), reranker=obj.get("reranker"),
                    ollama_host=ollama_host_from_env(), api_key=os.environ.get("KB_API_KEY"))
    settings = apply_overrides(PipelineSettings(), parse_overrides(stage_settings))
    limits = load_thresholds(thresholds or golden_dir() / "gates.toml") if gate else None
    cache_root = os.environ.get("KB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kb")
    cache_dir = Path(cache_root) / "eval"
    chosen = [(Path(n).resolve().name, Path(n)) if Path(n).is_dir() else (n, dataset_dir(n))
              for n in sets or DEFAULT_SETS]
    for set_name, _ in chosen:
        if limits is not None and limits.for_set(embedder, set_name) is None:
            raise ValueError(f"no thresholds for set {set_name!r} with embedder {embedder!r} "
                             f"in {limits.path}: add a {table_name(embedder, set_name)} table "
                             "or pass --thresholds")
    reports = []
    for set_name, folder in chosen:
        with progress_bar(not as_json) as bar:
            reports.append(evaluate_set(
                set_name, folder, cache_path(cache_dir, set_name, folder, embedder),
                config=config, settings=settings, stages=stages, on_progress=bar))
    results = None
    if limits is not None:
        results = check_gates({r.name: r.metrics for r in reports}, limits, embedder=embedder)
    if as_json:
        emit_json(report_json(reports, embedder=embedder, settings=settings,
                              faithfulness=FAITHFULNESS_SKIPPED,
                              gate=None if results is None or limits is None
                              else (limits.path, results)))
    else:
        for line in render_text(reports, embedder=embedder, settings=settings,
                                faithfulness=FAITHFULNESS_SKIPPED):
            click.echo(line)
    if results is None or limits is None:
        return
    failed = [g for g in results if g.status == "failed"]
    for g in failed:
        click.echo(f"kb eval: gate failed: {g.message}", err=True)
    click.echo(f"kb eval: gate {gate_status(results)}: {len(results) - len(failed)} of "
               f"{len(results)} thresholds met ({limits.path}); faithfulness "
               f"{FAITHFULNESS_SKIPPED.status}, not passed", err=True)
    if failed:
        sys.exit(1)


# --- interfaces for assistants: MCP, HTTP, tool schema (issue 6) ---------------------------------
