"""``kb ingest``, ``kb sync`` and ``kb reembed``: the commands that write documents and vectors."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import click

from kb.cli.common import (
    INTERRUPTED_EXIT,
    cli,
    cli_settings,
    counted,
    emit_json,
    errors_as_one_line,
    open_kb,
)
from kb.cli.printable import shown
from kb.cli.progress import ingest_progress
from kb.cli.signals import pipe_errors_raised, terminate_as_interrupt
from kb.ingest.discover import check_given, split_given
from kb.ingest.empty_folders import held_under
from kb.ingest.ignore import ROUTINE_REASONS
from kb.ingest.problems import ProblemLog
from kb.ingest.report import IngestInterrupted
from kb.jsonshape import to_json
from kb.shapes import IngestSummaryJSON
from kb.types import FileOutcome, IngestReport

TERMINATED_EXIT = 143  # 128 + SIGTERM
RESUME_HINT = ("run the same command again to resume: unchanged files are skipped by content "
               "hash and only chunks without vectors are embedded")


def _ignored_line(report: IngestReport) -> str:
    """``IGNORED  5 entries: 2 .gitignore, ...`` or empty when nothing was ignored.

    Counted by reason: what an ignore file or pattern or the file type left out, files a
    user may have expected indexed; the routine exclusions (``ROUTINE_REASONS``: hidden
    entries, ``.git``, ``node_modules``, virtualenvs) are one number after them.
    """
    expected = [(why, n) for why, n in report.ignored if why not in ROUTINE_REASONS]
    total = sum(n for _, n in expected)
    routine = sum(n for why, n in report.ignored if why in ROUTINE_REASONS)
    note = (f"{routine} routine (hidden entries, .git, node_modules, virtualenvs ...)"
            if routine else "")
    if not total:
        return f"IGNORED  {note}" if note else ""
    parts = ", ".join(f"{n} {why}" for why, n in expected)
    return (f"IGNORED  {total} {'entry' if total == 1 else 'entries'}: {parts}"
            + (f"; and {note}" if note else ""))


@contextmanager
def interruption_reported(as_json: bool, terminated: list[bool] | None = None, *,
                          files_shown: list[bool] | None = None) -> Iterator[None]:
    """Turn Ctrl-C into what was committed and how to resume, exit 130 (not ``Aborted!``).

    ``terminated``: from ``terminate_as_interrupt``; when it says SIGTERM stopped the run, the
    same report, exit 143.

    The files that failed or were skipped before the stop are listed (one line each, as in a
    finished run's report, or one ``file`` record each with ``--json``): a failure is
    remembered, and the next run only reports the file SKIPPED until it changes. Not when
    ``files_shown`` says every file's line was printed already (``run_ingest``).
    """
    try:
        yield
    except IngestInterrupted as stop:
        done = stop.report
        counts = ", ".join(f"{done.count(a)} {a}" for a in ("added", "updated", "unchanged",
                                                           "skipped", "failed") if done.count(a))
        what = f"{len(done.outcomes)} files done ({counts or 'none'})"
        if stop.phase == "files":
            # (the one being read when Ctrl-C came is among them: rolled back whole)
            what += f", {stop.files_left} not done (nothing of them written); no chunk " \
                    "embedded yet"
        else:
            what += f", all indexed; {counted(done.vectors_written, 'chunk')} embedded"
        if as_json:
            for o in done.outcomes:
                emit_json({"type": "file", **to_json(o)})
            emit_json({"type": "interrupted", "phase": stop.phase, "files_left": stop.files_left,
                       **to_json(IngestSummaryJSON.of(done))})
        elif not (files_shown and files_shown[0]):  # failed before the stop: the next run
            for o in done.outcomes:  # only says SKIPPED
                if o.action in ("failed", "skipped"):
                    click.echo(_outcome_line(o))
        click.echo(f"kb: interrupted while {'embedding' if stop.phase == 'vectors' else 'indexing'}"
                   f": {what}; all of it is committed (each document whole)", err=True)
        click.echo(f"kb: {RESUME_HINT}", err=True)
        sys.exit(_stop_exit(terminated))
    except KeyboardInterrupt:
        click.echo("kb: interrupted; what was written is committed (each document whole)",
                   err=True)
        click.echo(f"kb: {RESUME_HINT}", err=True)
        sys.exit(_stop_exit(terminated))


def _stop_exit(terminated: list[bool] | None) -> int:
    """143 when SIGTERM stopped the run, else 130 (Ctrl-C)."""
    return TERMINATED_EXIT if terminated and terminated[0] else INTERRUPTED_EXIT


def run_ingest(as_json: bool, call: Callable[..., IngestReport], *, progress: bool = True,
               files_shown: list[bool] | None = None,
               before: Sequence[FileOutcome] = ()) -> IngestReport:
    """``call(on_progress=..., on_file=...[, on_outcomes=...])``, progress shown, Ctrl-C said.

    No progress with ``as_json`` or without ``progress`` (``kb sync --check``: cron mails it).
    With ``files_shown`` (a one-item list) and progress shown, each file's line is printed
    once every outcome is known, ``before``'s first (``print_files``), before the embedding
    (a trial's FAILED line came after eight minutes of it), the progress bar paused meanwhile,
    and ``files_shown`` is set ``[True]``: ``print_report`` then prints the rest. A closed
    standard output (``kb ingest | head``) loses the lines, never the embedding.
    """
    shown_flag = files_shown if files_shown is not None else [False]
    with terminate_as_interrupt() as terminated, \
            interruption_reported(as_json, terminated, files_shown=shown_flag), \
            ingest_progress(progress and not as_json) as shown:
        if shown is None:
            return call()
        bar = shown

        def on_outcomes(outcomes: tuple[FileOutcome, ...]) -> None:
            try:
                with bar.paused(), pipe_errors_raised():
                    print_files(IngestReport(outcomes=(*before, *outcomes)))
            except OSError:  # no reader left: the ingest goes on to embed
                return
            shown_flag[0] = True

        return call(on_progress=shown.on_progress, on_file=shown.on_file,
                    **({"on_outcomes": on_outcomes} if files_shown is not None else {}))


ADDED_NAMED_MAX = 20  # files added in one batch that are named one per line (more: counted)


def print_report(report: IngestReport, as_json: bool, *, name_changes: bool = False,
                 files_shown: bool = False) -> None:
    """Print a batch's report: one line per file with something to say, then the summary.

    The files' lines are ``print_files``'s, unless ``files_shown`` says they were printed
    before the embedding (``run_ingest``); then the removed documents, the batch's warnings
    and the summary.
    """
    if as_json:
        for o in report.outcomes:
            emit_json({"type": "file", **to_json(o)})
        emit_json({"type": "summary", **to_json(IngestSummaryJSON.of(report))})
        return
    if not files_shown:
        print_files(report, name_changes=name_changes)
    for src in report.removed:
        click.echo(f"REMOVED  {shown(src)}")
    for w in report.warnings:
        click.echo(f"WARN     {w}")
    if _ignored_line(report):
        click.echo(_ignored_line(report))
    click.echo(summary_line(report))


def print_files(report: IngestReport, *, name_changes: bool = False) -> None:
    """One line per file with something to say, and its warnings.

    A file updated (read again: it changed) has its line (``UPDATED  path``), as a removed
    one does (``REMOVED``, ``print_report``): a trial saw "2 updated" and could not tell
    which. So has each file added (``ADDED``) when the batch adds at most
    ``ADDED_NAMED_MAX`` (a sync that found a new note names it), or always with
    ``name_changes`` (``kb watch``'s batches); a first ingest of a large folder only counts
    them.
    """
    name_added = name_changes or report.count("added") <= ADDED_NAMED_MAX
    named = ("failed", "skipped", "updated", *(("added",) if name_added else ()))
    for o in report.outcomes:
        if o.action in named:
            click.echo(_outcome_line(o))
        for w in o.warnings:
            click.echo(f"WARN     {shown(o.path)}: {w}")
    if not name_added and (added := report.count("added")):
        click.echo(f"ADDED    {added} files (more than {ADDED_NAMED_MAX}: --json lists each)")


def _outcome_line(o: FileOutcome) -> str:
    """``FAILED   path: reason`` (and SKIPPED), or ``ADDED    path`` (and UPDATED)."""
    line = f"{o.action.upper():8} {shown(o.path)}"
    return f"{line}: {o.reason}" if o.action in ("failed", "skipped") else line


def summary_line(report: IngestReport) -> str:
    """A batch's counts in one line: files by outcome, documents removed, chunks, vectors.

    A batch that only removed documents (``kb watch``) embedded nothing: its line names the
    embedder without counting vectors.
    """
    files = ", ".join(f"{report.count(a)} {a}"
                      for a in ("added", "updated", "unchanged", "skipped", "failed"))
    files += f", {len(report.removed)} removed" if report.removed else ""
    vectors = ("vectors off (embedder none, BM25 only)" if report.embedder == "none" else
               f"embedder: {report.embedder}" if not report.outcomes else
               f"{counted(report.vectors_written, 'chunk')} embedded; "
               f"{counted(report.vectors_pending, 'chunk')} waiting for vectors; "
               f"embedder: {report.embedder}")
    return f"{files}; {counted(report.chunks, 'chunk')} written, {vectors}"


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False))
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: one line per file, then a summary.")
@click.pass_context
@errors_as_one_line
def ingest(ctx: click.Context, paths: tuple[str, ...], as_json: bool) -> None:
    """Ingest files and folders (recursively) into the knowledge base.

    A path that does not exist is reported FAILED and the others are indexed (exit 1); when
    none exists, nothing is created.
    """
    found, missing = split_given(paths)
    if not found:
        check_given(paths)  # raises: a mistyped path stops before the index file is created
    files_shown = [False]
    with open_kb(ctx, create=True) as kb:
        report = run_ingest(as_json, lambda **shown: kb.ingest(found, **shown),
                            files_shown=files_shown, before=missing)
    indexed = report.outcomes  # what the paths that exist held
    report = replace(report, outcomes=(*missing, *report.outcomes))
    print_report(report, as_json, files_shown=files_shown[0])
    if not indexed and not as_json:  # an empty folder, or only ignored entries
        click.echo("note: no file to index was found in the paths given", err=True)
    # Non-zero when any file failed, so scripts notice; the others are indexed regardless.
    sys.exit(1 if report.count("failed") else 0)


def ingest_roots(ctx: click.Context, given: tuple[str, ...]) -> tuple[str, ...]:
    """The folders given, else the config file's ``[ingest] roots`` (``~`` expanded)."""
    return given or tuple(str(Path(r).expanduser()) for r in cli_settings(ctx).roots)


def project_of_roots(ctx: click.Context, given: tuple[str, ...]) -> Path | None:
    """The project folder when the folders are a project config file's roots, else ``None``.

    A project folder may come from anyone (a cloned repository): its roots are synced without
    following a symlink out of the project (a link to ``~/.ssh/id_rsa``; ``KnowledgeBase.sync``
    ``inside``). Folders the user names, or the user's own roots, follow links.
    """
    roots = next(e for e in cli_settings(ctx).entries if e.key == "ingest.roots")
    if given or roots.source != "project file":
        return None
    return Path(roots.origin).parent.parent  # <project>/.kb/config.toml


def folders_or_roots(ctx: click.Context, given: tuple[str, ...]) -> tuple[str, ...]:
    """``ingest_roots``; a usage error when there are none (`kb sync`, `kb watch`)."""
    if not (folders := ingest_roots(ctx, given)):
        raise click.UsageError("name the folders, or set roots in a config file's [ingest] "
                               "table (`kb config` shows where the files are)")
    return folders


@cli.command()
@click.argument("folders", nargs=-1, type=click.Path(readable=False))
@click.option("--json", "as_json", is_flag=True, help="JSON Lines output.")
@click.option("--allow-empty", is_flag=True,
              help="A folder that holds no files is really empty: remove its documents too "
                   "(without it they are kept and the folder fails: an unmounted drive looks "
                   "empty), and so for a subfolder a drive was mounted on.")
@click.option("--check", is_flag=True,
              help="For cron: exit 1 only on new problems (a file or folder failing that no "
                   "earlier sync reported), with the report; else exit 0 and print nothing "
                   "(--json still prints).")
@click.pass_context
@errors_as_one_line
def sync(ctx: click.Context, folders: tuple[str, ...], as_json: bool, allow_empty: bool,
         check: bool) -> None:
    """Ingest folders and remove documents whose files are gone from them.

    A folder that holds no files at all while the index has documents from it keeps them and
    is reported FAILED (exit 1): an unmounted drive or share looks like an empty folder. Pass
    --allow-empty when it really is empty. So does a subfolder a drive or share was mounted
    on (its documents were on another file system). A folder gone keeps its documents and
    fails too;
    one that never held any stops the sync (a typo). A file that failed is remembered: later
    syncs skip it with its reason (exit 0) until it changes. With --check, a folder failing again
    exits 0 too: only new problems exit 1. Without FOLDERS: the config file's ingest roots
    (one not there fails alone, whether it held documents or not: a drive not plugged in).
    """
    inside = project_of_roots(ctx, folders)
    typed, folders = bool(folders), folders_or_roots(ctx, folders)
    if typed and not cli_settings(ctx).db.exists():
        check_given(folders)  # a mistyped folder stops before the index file is created
    with open_kb(ctx, create=True) as kb:  # a gone folder it has documents from fails alone
        sources = [] if typed else [d.source for d in kb.documents()]
        absent = tuple(FileOutcome(f, "failed", reason="no such folder (an ingest root of the "
                                   "config file; nothing indexed from it)") for f in folders
                       if not typed and not os.path.lexists(f)
                       and not held_under(sources, f))
        files_shown = [False]  # not with --check: it prints only new problems, at the end
        report = run_ingest(as_json, lambda **shown: kb.sync(  # --check: cron mails stderr
            [f for f in folders if all(o.path != f for o in absent)], allow_empty=allow_empty,
            inside=inside, **shown), progress=not check,
            files_shown=None if check else files_shown, before=absent)
        known = ProblemLog(kb.store, set())  # new once for --check, as a folder the sync fails
        for outcome in absent:
            known.folder_failed(outcome)
        known.save([])  # (a root back forgets its record: its sync did not meet it)
        report = replace(report, outcomes=(*absent, *report.outcomes),
                         new_problems=(*known.new, *report.new_problems))
    if check and not report.new_problems and not as_json:
        sys.exit(0)  # cron mails whatever a job prints: nothing new, nothing said
    print_report(report, as_json, files_shown=files_shown[0])
    if check:
        sys.exit(1 if report.new_problems else 0)
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
    with open_kb(ctx) as kb, ingest_progress(not as_json) as shown:  # a pipe: a few lines
        report = kb.reembed(discard_staged=discard_staged,
                            on_progress=shown.on_progress if shown else None)
    if as_json:
        emit_json({**to_json(report), "complete": report.complete})
    else:
        for w in report.warnings:
            click.echo(f"WARN     {w}")
        if report.discarded:
            click.echo(f"discarded {report.discarded} staged vectors")
        if report.mode == "backfill":
            click.echo(f"{counted(report.embedded, 'vector')} written; {report.pending} of "
                       f"{counted(report.chunks, 'chunk')} waiting for vectors; "
                       f"embedder: {report.embedder}")
        elif report.switched:
            click.echo(f"switched from {report.previous} to {report.embedder}: all "
                       f"{counted(report.chunks - report.pending, 'chunk')} re-embedded "
                       f"({report.embedded} in this run)")
        else:
            click.echo(f"re-embed to {report.embedder} incomplete: {report.pending} of "
                       f"{counted(report.chunks, 'chunk')} still to embed; search keeps using "
                       f"{report.previous}; run `kb reembed` again to resume")
    sys.exit(0 if report.complete else 1)
