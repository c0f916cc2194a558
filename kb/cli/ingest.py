"""``kb ingest``, ``kb sync`` and ``kb reembed``: the commands that write documents and vectors."""

from __future__ import annotations

import sys

import click

from kb.cli.common import cli, emit_json, errors_as_one_line, open_kb, progress_bar
from kb.jsonshape import to_json
from kb.shapes import IngestSummaryJSON
from kb.types import IngestReport


def _print_report(report: IngestReport, as_json: bool) -> None:
    if as_json:
        for o in report.outcomes:
            emit_json({"type": "file", **to_json(o)})
        emit_json({"type": "summary", **to_json(IngestSummaryJSON.of(report))})
        return
    for o in report.outcomes:
        if o.action in ("failed", "skipped"):
            click.echo(f"{o.action.upper():8} {o.path}: {o.reason}")
        for w in o.warnings:
            click.echo(f"WARN     {o.path}: {w}")
    for src in report.removed:
        click.echo(f"REMOVED  {src}")
    for w in report.warnings:
        click.echo(f"WARN     {w}")
    click.echo(
        f"{report.count('added')} added, {report.count('updated')} updated, "
        f"{report.count('unchanged')} unchanged, {report.count('skipped')} skipped, "
        f"{report.count('failed')} failed; {report.chunks} chunks written; "
        f"{report.vectors_pending} chunks waiting for vectors; embedder: {report.embedder}")


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: one line per file, then a summary.")
@click.pass_context
@errors_as_one_line
def ingest(ctx: click.Context, paths: tuple[str, ...], as_json: bool) -> None:
    """Ingest files and folders (recursively) into the knowledge base."""
    with open_kb(ctx, create=True) as kb, progress_bar(not as_json) as bar:
        report = kb.ingest(paths, on_progress=bar)
    _print_report(report, as_json)
    # Non-zero when any file failed, so scripts notice; the others are indexed regardless.
    sys.exit(1 if report.count("failed") else 0)


@cli.command()
@click.argument("folders", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="JSON Lines output.")
@click.option("--allow-empty", is_flag=True,
              help="A folder that holds no files is really empty: remove its documents too "
                   "(without it they are kept and the folder fails: an unmounted drive looks "
                   "empty).")
@click.pass_context
@errors_as_one_line
def sync(ctx: click.Context, folders: tuple[str, ...], as_json: bool, allow_empty: bool) -> None:
    """Ingest folders and remove documents whose files are gone from them.

    A folder that holds no files at all while the index has documents from it keeps them and
    is reported FAILED (exit 1): an unmounted drive or share looks like an empty folder. Pass
    --allow-empty when it really is empty.
    """
    with open_kb(ctx, create=True) as kb, progress_bar(not as_json) as bar:
        report = kb.sync(folders, allow_empty=allow_empty, on_progress=bar)
    _print_report(report, as_json)
    # As `kb ingest`: non-zero when any file failed; the rest is indexed and synced.
    sys.exit(1 if report.count("failed") else 0)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON output: the summary.")
@click.option("--discard-staged", is_flag=True,
              help="First drop the vectors staged by an unfinished re-embed (live vectors are "
                   "never touched).")
@click.pass_context
@errors_as_one_line
def reembed(ctx: click.Context, as_json: bool, discard_staged: bool) -> None:
    """Give every chunk a vector of the configured embedder.

    With the stored model: fill in missing vectors. With another model: build its vectors
    beside the stored ones (searches keep using those) and switch when every chunk has one;
    an interrupted run resumes where it stopped. Exits 1 when it stopped early.
    """
    with open_kb(ctx) as kb, progress_bar(not as_json) as bar:
        report = kb.reembed(discard_staged=discard_staged, on_progress=bar)
    if as_json:
        emit_json({**to_json(report), "complete": report.complete})
    else:
        for w in report.warnings:
            click.echo(f"WARN     {w}")
        if report.discarded:
            click.echo(f"discarded {report.discarded} staged vectors")
        if report.mode == "backfill":
            click.echo(f"{report.embedded} vectors written; {report.pending} of {report.chunks} "
                       f"chunks waiting for vectors; embedder: {report.embedder}")
        elif report.switched:
            click.echo(f"switched from {report.previous} to {report.embedder}: all "
                       f"{report.chunks - report.pending} chunks re-embedded "
                       f"({report.embedded} in this run)")
        else:
            click.echo(f"re-embed to {report.embedder} incomplete: {report.pending} of "
                       f"{report.chunks} chunks still to embed; search keeps using "
                       f"{report.previous}; run `kb reembed` again to resume")
    sys.exit(0 if report.complete else 1)
