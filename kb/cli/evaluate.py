"""``kb calibrate`` and ``kb eval``: calibration, release gates and the stage check."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from kb.cli.calibration_reset import remove_calibrations
from kb.cli.common import (
    cli,
    cli_settings,
    emit_json,
    errors_as_one_line,
    open_kb,
    progress_bar,
)
from kb.cli.settings import Settings
from kb.config import Config
from kb.errors import KbError

T = TypeVar("T")

BUNDLED_SETS_HINT = ("the bundled golden sets ship with a checkout of kb's repository, not "
                     "with an installed package: pass your own set with --set FOLDER (BEIR "
                     "layout: corpus.jsonl, queries.jsonl, qrels.tsv)")


def bundled(locate: Callable[..., T], *args: str) -> T:
    """A bundled golden set's location, or an error saying they need a checkout.

    Raises:
        ValueError: the sets are not here (an installed package); the message says how to
            use one's own golden files instead.
    """
    try:
        return locate(*args)
    except FileNotFoundError:
        raise ValueError(BUNDLED_SETS_HINT) from None


def checked_set(set_name: str) -> Path:
    """The folder of a ``--set`` value, its files checked (``kb.eval.datasets.check_qrels_ids``).

    Raises:
        ValueError: a path that is no folder, an unknown bundled name, a missing or malformed
            file, or qrels rows naming ids the set lacks (the caller's input: exit 2).
    """
    from kb.eval.datasets import check_qrels_ids, dataset_dir

    try:
        if not Path(set_name).is_dir() and ("/" in set_name or set_name.startswith(".")):
            what = (f"a file: give the folder holding it ({Path(set_name).parent})"
                    if Path(set_name).is_file() else "no such folder")
            raise ValueError(f"{set_name}: {what} (--set takes a bundled set's name or a "
                             "folder in BEIR layout)")
        folder = (Path(set_name) if Path(set_name).is_dir()
                  else bundled(dataset_dir, set_name))
        check_qrels_ids(folder)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    return folder


@cli.command()
@click.option("--set", "set_name", default="precision", show_default=True,
              help="A folder in BEIR layout (your own golden set), or the name of a set bundled "
                   "with a checkout of kb's repository.")
@click.option("--dry-run", is_flag=True, help="Measure and print, but do not store.")
@click.option("--reset", is_flag=True,
              help="Remove every calibration stored in the index (floors and judge "
                   "thresholds): searches use the shipped defaults again.")
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
@click.pass_context
@errors_as_one_line
def calibrate(ctx: click.Context, set_name: str, dry_run: bool, reset: bool,
              as_json: bool) -> None:
    """Calibrate the score scale, relevance floor and judge threshold on a golden set; store them.

    The judge threshold is fitted on the set's questions: those without a qrels row count as
    unanswerable (see ``kb.eval.calibrate``). `kb status` shows the threshold in use and its
    source; --reset returns to the shipped defaults.

    Works on your own golden set after a plain install: --set FOLDER in BEIR layout
    (corpus.jsonl, queries.jsonl, qrels.tsv). The bundled sets need a checkout of kb.

    With --embedder none it fits the judge threshold of BM25-only searches alone (no vector
    scale to calibrate). The set is measured on a scratch index first: a calibration that
    cannot run leaves your index as it was (and does not create one); --dry-run never opens it.

    Output (--json: one object): the vector scale and floor stored (cos_unrelated, span,
    floor, source, tpr, fpr, queries), or with --embedder none vector_calibration "skipped";
    then fingerprint (the model's key, or "lexical"), judge_threshold, judge_source,
    judge_threshold_shipped (the one searches use without a calibration), the answerable and
    unanswerable questions counted, judge_refusal_rate and judge_false_refusal_rate at the
    threshold fitted (on the questions it was fitted on: they flatter it), the same with
    each question judged by a threshold fitted without it (..._held_out, 10-fold
    cross-validation: what to expect on new questions) and at the shipped threshold
    (..._shipped), judge_threshold_no_better (true when the fitted threshold refuses no more
    held out than the shipped one and no fewer answerable questions: a warning on stderr
    names --reset), and stored. A new index file is made to hold the calibration (said on
    stderr).

    Exit codes: 2 when the set cannot be used (an unknown set, a missing or malformed file,
    qrels rows naming a query or corpus id the set does not hold, no answerable question,
    fewer than 20 answerable questions without --dry-run),
    as for click's usage errors; 1 when kb cannot run the calibration (an embedder
    configured that does not load or fails, an index it cannot write).
    """
    if reset:
        if dry_run or ctx.get_parameter_source("set_name") != click.core.ParameterSource.DEFAULT:
            raise click.UsageError("--reset takes no --set or --dry-run: it removes the stored "
                                   "calibrations")
        remove_calibrations(ctx, as_json)
        return
    import tempfile

    from kb.eval.calibrate import calibrate as run_calibration
    from kb.eval.calibrate import calibrate_judge, check_set_size, no_better
    from kb.eval.retrieval import open_index
    from kb.retrieve.calibration import save_calibration, save_judge_threshold
    from kb.retrieve.judge_model import shipped_model

    folder = checked_set(set_name)
    if not dry_run:
        check_set_size(folder)
    settings = cli_settings(ctx)
    config = settings.config
    lexical = config.embedder == "none"  # BM25 only: the judge threshold alone (no vectors)
    if not dry_run:
        _check_storable(settings)
    # measured on a scratch index of the set first, so that a calibration that cannot run
    # (an embedder that does not load, no answerable question passing the gate) leaves the
    # user's index untouched, or uncreated; a dry run never opens it
    with tempfile.TemporaryDirectory() as tmp:
        with progress_bar(not as_json) as bar:
            try:
                # the user's embedder with its server and key, and no chat model: the
                # offline judge is what is calibrated (an LLM would expand and grade instead)
                scratch = dataclasses.replace(config, llm=None, reranker=None, vision=None)
                index = open_index(folder, Path(tmp) / "calibration.db", config=scratch,
                                   on_progress=bar)
            except RuntimeError as exc:  # the embedder failed while embedding the set
                raise KbError(f"cannot calibrate: {exc}") from None
        try:
            service, problem = index.embedding_service()
            if service is None and not lexical:
                raise KbError(f"cannot calibrate: {problem} (--embedder none calibrates the "
                              "judge threshold of BM25-only searches)")
            report = None if lexical else run_calibration(index, folder)
            judged = calibrate_judge(index, folder)
        finally:
            index.close()
    fingerprint = service.fingerprint.key if service is not None else None
    shipped = shipped_model(service.embedder.model_id if service is not None else None)
    at_shipped = judged.rates_at(shipped.threshold)
    no_gain = no_better(judged.held_out(), at_shipped)  # said: the user may --reset
    if not dry_run:
        created = not settings.db.exists()
        with open_kb(ctx, create=True, announce=False) as kb:
            if report is not None and fingerprint is not None:
                save_calibration(kb.store, fingerprint, report.calibration)
            save_judge_threshold(kb.store, fingerprint, judged.threshold, judged.source)
        if created:
            click.echo(f"kb: note: created {settings.db}, an index holding only this "
                       "calibration (ingest your documents into it)", err=True)
    vector: dict[str, object] = ({**dataclasses.asdict(report.calibration),
                                  "tpr": round(report.tpr, 4), "fpr": round(report.fpr, 4),
                                  "queries": len(report.negatives)} if report is not None
                                 else {"vector_calibration": "skipped (BM25 only: no embedder)"})
    out = {**vector, "fingerprint": fingerprint or "lexical",
           "judge_threshold": judged.threshold, "judge_source": judged.source,
           "judge_threshold_shipped": shipped.threshold,
           "answerable": judged.answerable, "unanswerable": judged.unanswerable,
           "judge_refusal_rate": (None if judged.refusal_rate is None
                                  else round(judged.refusal_rate, 4)),
           "judge_false_refusal_rate": round(judged.false_refusal_rate, 4),
           **_rates("held_out", judged.held_out()),
           **_rates("shipped", at_shipped), "judge_threshold_no_better": no_gain,
           "stored": not dry_run}
    if no_gain:
        click.echo("kb: warning: the judge threshold fitted does no better than the shipped "
                   "one on questions it was not fitted on (..._held_out against ..._shipped)"
                   + ("; `kb calibrate --reset` goes back to the shipped one" if not dry_run
                      else ""), err=True)
    if as_json:
        emit_json(out)
    else:
        width = max(len(k) for k in out) + 1
        shown = {None: "n/a (no unanswerable question)", True: "yes", False: "no"}
        for k, v in out.items():
            click.echo(f"{k:{width}}{shown.get(v, v) if isinstance(v, bool) or v is None else v}")


def _rates(suffix: str, rates: tuple[float | None, float]) -> dict[str, float | None]:
    """``judge_refusal_rate_SUFFIX`` and ``judge_false_refusal_rate_SUFFIX``, rounded."""
    refusal, false_refusal = rates
    return {f"judge_refusal_rate_{suffix}": None if refusal is None else round(refusal, 4),
            f"judge_false_refusal_rate_{suffix}": round(false_refusal, 4)}


def _check_storable(settings: Settings) -> None:
    """Refuse, before minutes of embedding, an index the calibration could not be stored in.

    Raises:
        kb.errors.KbError: the index (or, for a new one, its folder) is not writable, or its
            folder does not exist and is not kb's to make (``Settings.folder_missing``).
    """
    db, folder = settings.db, settings.db.parent
    if db.exists() and not db.is_file():
        raise KbError(f"{db}: not a file (a folder?): no index can be stored there")
    if problem := settings.folder_missing():
        raise KbError(problem)
    while not folder.is_dir():  # a collection's folders are made when the index is
        folder = folder.parent
    if not os.access(db if db.exists() else folder, os.W_OK) or not os.access(folder, os.W_OK):
        raise KbError(f"{db}: cannot store a calibration: the index or its folder is not "
                      "writable (--dry-run measures without storing)")


@cli.command(name="eval")
@click.option("--set", "sets", multiple=True, metavar="NAME",
              help="A folder in BEIR layout (your own golden set) or a set bundled with a "
              "checkout of kb (repeatable; default: scifact-small, cmrc2018-small, precision, "
              "answerability, which need a checkout).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON document: metrics per set, stage checks, gate results.")
@click.option("--gate", is_flag=True,
              help="Check the metrics against the thresholds file; exit 1 naming each "
              "failing metric on stderr.")
@click.option("--stages", is_flag=True,
              help="Also measure each optional stage on and off; print the delta per metric.")
@click.option("--thresholds", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Gate thresholds (TOML) used with --gate  [default: golden/gates.toml].")
@click.option("--stage-setting", "stage_settings", multiple=True, metavar="KEY=VALUE",
              help="Evaluate with a pipeline setting changed, e.g. rerank=off or "
              "judge=false (repeatable).")
@click.option("--judge", metavar="SPEC",
              help="Judge model of the faithfulness gate: ollama:MODEL or openai:URL#MODEL "
              "(default: the --llm model).")
@click.option("--judge-backend", type=click.Choice(["kb", "ragas"]), default="kb",
              show_default=True,
              help="kb's own RAGAS-style judges, or the ragas package's metrics (the ragas "
              "extra; needs an openai:URL#MODEL judge).")
@click.option("--faithfulness-limit", type=click.IntRange(min=1), metavar="N",
              help="Answer and judge at most N questions per set (spread over the set; a local "
              "LLM is slow)  [default: all].")
@click.pass_context
@errors_as_one_line
def eval_(ctx: click.Context, sets: tuple[str, ...], as_json: bool, gate: bool, stages: bool,
          thresholds: Path | None, stage_settings: tuple[str, ...], judge: str | None,
          judge_backend: str, faithfulness_limit: int | None) -> None:
    """Measure retrieval quality on golden sets; with --gate, enforce the release thresholds.

    With --llm, the faithfulness gate also runs on the sets with distractors.tsv (precision):
    each question is answered from its references and the answer judged (faithfulness, answer
    relevance, context relevance, unsupported statements). Without an LLM it is reported
    skipped, never passed.

    Works on your own golden files after a plain install: --set FOLDER (BEIR layout), and
    --thresholds FILE with --gate; the bundled sets and golden/gates.toml need a checkout.

    Indexes of the sets are cached in the cache folder's eval/ (KB_CACHE_DIR or config
    cache_dir; default ~/.cache/kb on Linux), so vectors are embedded once per set and
    embedder; model replies are cached with them.
    """
    from kb.backends.registry import make_llm, parse_spec
    from kb.config import PipelineSettings
    from kb.eval.answer_gate import AnswerGateConfig
    from kb.eval.answerability_gate import evaluate_answerability
    from kb.eval.datasets import dataset_dir, golden_dir
    from kb.eval.gates import check_faithfulness, check_gates, load_thresholds, table_name
    from kb.eval.precision import load_distractors
    from kb.eval.report import gate_status, render_text, report_json
    from kb.eval.stages import apply_overrides, parse_overrides
    from kb.eval.suite import (
        ANSWERABILITY,
        DEFAULT_SETS,
        cache_path,
        evaluate_set,
        faithfulness_outcome,
    )

    loaded = cli_settings(ctx)
    embedder = loaded.config.embedder
    # the golden sets are measured with kb's own settings; the models and the helper cap
    # are the user's
    config = Config(embedder=embedder, llm=loaded.config.llm, reranker=loaded.config.reranker,
                    ollama_host=loaded.config.ollama_host, api_key=loaded.config.api_key)
    base = PipelineSettings(helper_timeout_s=loaded.config.pipeline.helper_timeout_s)
    settings = apply_overrides(base, parse_overrides(stage_settings))
    limits = load_thresholds(thresholds or bundled(golden_dir) / "gates.toml") if gate else None
    cache_dir = loaded.cache_dir / "eval"
    for given in sets:  # a folder of the caller's: checked as kb calibrate checks it
        if Path(given).is_dir() or "/" in given or given.startswith("."):
            checked_set(given)
    chosen = [(Path(n).resolve().name, Path(n)) if Path(n).is_dir()
              else (n, bundled(golden_dir) / n) if n == ANSWERABILITY
              else (n, bundled(dataset_dir, n)) for n in sets or DEFAULT_SETS]
    for set_name, _ in chosen:
        if limits is not None and limits.for_set(embedder, set_name) is None:
            raise ValueError(f"no thresholds for set {set_name!r} with embedder {embedder!r} "
                             f"in {limits.path}: add a {table_name(embedder, set_name)} table "
                             "or pass --thresholds")
    answers = None
    if judge_backend == "ragas" and not config.llm:
        raise ValueError("--judge-backend ragas needs --llm: the faithfulness gate judges the "
                         "answers of the --llm model")
    if judge and not config.llm:
        raise ValueError("--judge needs --llm: the faithfulness gate judges the answers of the "
                         "--llm model")
    if config.llm:
        # a malformed spec or a missing client fails here, before anything is measured
        probe = make_llm(config.llm, ollama_host=config.ollama_host, api_key=config.api_key)
        getattr(probe, "close", lambda: None)()
        ragas = None
        if judge_backend == "ragas":
            spec = parse_spec(judge or config.llm)
            if spec.provider != "openai" or spec.base_url is None:
                raise ValueError("--judge-backend ragas needs an OpenAI-compatible judge: "
                                 "--judge openai:URL#MODEL (or such an --llm)")
            ragas = (spec.base_url, spec.model, config.api_key)
            from kb.eval.ragas_judge import check_installed

            check_installed()  # before answering anything with a slow model
        answers = AnswerGateConfig(
            judge=make_llm(judge, ollama_host=config.ollama_host, api_key=config.api_key)
            if judge else None, limit=faithfulness_limit, ragas=ragas)
        judged_sets = [n for n, folder in chosen if load_distractors(folder)]
        if limits is not None and judged_sets and limits.faithfulness is None:
            raise ValueError(f"no [faithfulness] table in {limits.path}: the faithfulness gate "
                             f"runs on {', '.join(judged_sets)} with --llm; add one or pass "
                             "--thresholds")
    reports = []
    for number, (set_name, folder) in enumerate(chosen, start=1):
        if not as_json and not sys.stderr.isatty():  # a log: minutes of silence otherwise
            click.echo(f"kb: eval: {set_name} ({number} of {len(chosen)})", err=True)
        with progress_bar(not as_json) as bar:
            if set_name == ANSWERABILITY:
                reports.append(evaluate_answerability(set_name, folder, cache_dir,
                                                      config=config, settings=settings,
                                                      on_progress=bar))
                continue
            reports.append(evaluate_set(
                set_name, folder, cache_path(cache_dir, set_name, folder, embedder),
                config=config, settings=settings, stages=stages, answers=answers,
                on_progress=bar))
    faithfulness = faithfulness_outcome(reports, llm=config.llm)
    results = None
    if limits is not None:
        results = check_gates({r.name: r.metrics for r in reports}, limits, embedder=embedder)
        results += check_faithfulness({r.name: r.answers.metrics for r in reports
                                       if r.answers is not None}, limits)
    if as_json:
        emit_json(report_json(reports, embedder=embedder, settings=settings,
                              faithfulness=faithfulness,
                              gate=None if results is None or limits is None
                              else (limits.path, results)))
    else:
        for line in render_text(reports, embedder=embedder, settings=settings,
                                faithfulness=faithfulness):
            click.echo(line)
    if results is None or limits is None:
        return
    failed = [g for g in results if g.status == "failed"]
    for g in failed:
        click.echo(f"kb eval: gate failed: {g.message}", err=True)
    judged = ("faithfulness skipped, not passed" if faithfulness.status == "skipped"
              else f"faithfulness measured ({faithfulness.reason})")
    click.echo(f"kb eval: gate {gate_status(results)}: {len(results) - len(failed)} of "
               f"{len(results)} thresholds met ({limits.path}); {judged}", err=True)
    if failed:
        sys.exit(1)
