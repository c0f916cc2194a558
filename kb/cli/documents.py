"""``kb docs``, ``kb rm`` and ``kb status``: the documents in the knowledge base and its state."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click

from kb.cli.common import DOC_PREFIX, cli, counted, emit_json, errors_as_one_line, open_kb
from kb.cli.printable import shown, spellings
from kb.errors import DocumentNotFound, KbError, StoreError
from kb.ingest.empty_folders import held_under
from kb.store.compact import compact as compact_index
from kb.store.problems import (
    FOLDER_SIZE,
    Problem,
    all_problems,
    forget_problems,
    problems_under,
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON Lines, one document per line.")
@click.option("--failed", is_flag=True,
              help="List the files and folders ingests could not index instead, with why.")
@click.pass_context
@errors_as_one_line
def docs(ctx: click.Context, as_json: bool, failed: bool) -> None:
    """List the documents in the knowledge base (``--failed``: what could not be indexed).

    A file that failed is remembered until it changes (later ingests skip it: `SKIPPED`); a
    note on stderr counts them after the documents. One deleted since, its folder still
    there, is not listed (the next sync of its folder forgets it); one whose folder is gone
    too is (an unmounted drive looks so), as is a folder gone with documents kept.
    """
    with open_kb(ctx) as kb:
        documents = [] if failed else kb.documents()
        sources = [d.source for d in (documents or kb.documents())]
        problems = [p for p in all_problems(kb.store) if _still_listed(p, sources)]
    if failed:
        if not problems and not as_json:  # said on stderr: stdout stays the (empty) listing
            click.echo("no file or folder failed to index", err=True)
        for p in problems:
            if as_json:
                emit_json({"source": p.source, "reason": p.reason,
                           "reported_at": p.reported_at.isoformat()})
            else:
                click.echo(f"FAILED  {shown(p.source)}: {p.reason} "
                           f"(reported {p.reported_at:%Y-%m-%d})")
        return
    if not documents and not as_json:  # said on stderr: stdout stays the (empty) listing
        click.echo("no documents indexed yet: `kb ingest PATH` adds some", err=True)
    if problems and not as_json:
        click.echo(f"{counted(len(problems), 'path')} could not be indexed: `kb docs --failed` "
                   "lists them and why", err=True)
    for d in documents:
        if as_json:
            emit_json(d)
        else:
            n = len(d.warnings)
            warn = f"  ({counted(n, 'warning')})" if n else ""
            chunks = "chunk" if d.chunk_count == 1 else "chunks"  # the counts stay aligned
            tags = f"  [tags: {', '.join(d.tags)}]" if d.tags else ""
            click.echo(f"{d.id:5d}  {d.source_type:4}  {d.chunk_count:5d} {chunks:6}  "
                       f"{d.status:15}  {shown(d.title[:50])}  {shown(d.source)}{tags}{warn}")


def _still_there(source: str) -> bool:
    """Whether anything is at ``source`` (``True`` when that cannot be told: a folder unread)."""
    try:
        os.lstat(source)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _still_listed(problem: Problem, sources: list[str]) -> bool:
    """Whether ``kb docs --failed`` lists ``problem``: not a file deleted from its folder.

    A file is listed while it is there, or while its folder is gone too and the index still
    has documents from the outermost folder gone (a drive not mounted; a folder deleted with
    all its documents synced away is no longer listed); a folder while it is there, or the
    index still has documents from it (``sources``: kept as an unmounted drive's).
    """
    if _still_there(problem.source):
        return True
    gone = problem.source.rstrip("/")
    if problem.size != FOLDER_SIZE:
        gone = os.path.dirname(gone)
        if _still_there(gone):
            return False  # a file deleted from a folder that is there
        while (parent := os.path.dirname(gone)) != gone and not _still_there(parent):
            gone = parent
    return held_under(sources, gone) > 0


@cli.command()
@click.argument("refs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines of removed documents (and failures forgotten).")
@click.pass_context
@errors_as_one_line
def rm(ctx: click.Context, refs: tuple[str, ...], as_json: bool) -> None:
    r"""Remove documents with their chunks, FTS rows and vectors.

    REFS are ids (as `kb docs` shows them, also written doc:ID), source paths (doc:PATH, as
    given or as `kb docs` prints them: a newline in a name as \n) or folders (every document
    indexed from under it; the failures `kb docs --failed` lists under it are forgotten too).
    Each is removed on its own: one that matches nothing is named at the end (exit 1) and the
    others are still removed.
    """
    roots = [r for r in refs if r.removeprefix(DOC_PREFIX)
             and Path(r.removeprefix(DOC_PREFIX)).expanduser().resolve() == Path("/")]
    if roots:  # `kb rm "$UNSET/"` is `kb rm /`: every document, in silence
        raise ValueError(f"refusing to remove every document under {roots[0]!r} (an "
                         "unset variable?); name the folder, or `kb rm` each document")
    unmatched: list[str] = []
    gone: list[str] = []  # folders no longer there: a sync naming one now stops (a typo)
    with open_kb(ctx) as kb:
        for ref in refs:
            ref = ref.removeprefix(DOC_PREFIX)
            docs, is_folder = [], False
            forgot: list[str] = []
            for name in spellings(ref):  # as given, then as `kb docs` shows it
                try:
                    docs = [kb.remove(name)]
                except DocumentNotFound:
                    docs, is_folder = kb.remove_under(name), True
                    # its files' failures go with it (`kb docs --failed` listed them on);
                    # "" names no folder (`kb rm "$UNSET"`), not the current one
                    forgot = problems_under(kb.store, str(Path(name).expanduser().resolve())
                                            ) if name else []
                    forget_problems(kb.store, forgot)
                if docs or forgot:
                    break
            if forgot and as_json:
                for source in forgot:
                    emit_json({"forgot_failure": source})
            elif forgot:
                click.echo(f"forgot {counted(len(forgot), 'failure')} under {shown(ref)}")
            if not docs and not forgot:
                unmatched.append(ref)
            elif is_folder and not os.path.lexists(Path(ref).expanduser()):
                gone.append(ref)
            for doc in docs:
                if as_json:
                    emit_json({"removed": doc.source, "id": doc.id})
                else:
                    click.echo(f"removed {shown(doc.source)}")
    for folder in gone if not as_json else ():
        click.echo(f"note: {folder} is gone and the index has nothing from it now: take it out "
                   "of the `kb sync` and `kb watch` commands that name it (they stop on it as "
                   "on a mistyped folder) and of a config file's roots", err=True)
    if unmatched:
        raise DocumentNotFound(", ".join(unmatched)) if len(unmatched) == 1 else KbError(
            f"no document matches {', '.join(map(repr, unmatched))}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
@click.pass_context
@errors_as_one_line
def status(ctx: click.Context, as_json: bool) -> None:
    """Show counts, embedder, an unfinished re-embed and integrity of the knowledge base.

    Exits 1 when the full-text index fails its integrity check.
    """
    with open_kb(ctx) as kb:  # refuses a missing file
        info = kb.status()
    if as_json:
        emit_json(info)
    else:
        names = [f.name for f in dataclasses.fields(info)]
        width = max(map(len, names)) + 1
        for name in names:
            value = getattr(info, name)
            if name == "warnings":
                for warning in value:
                    click.echo(f"warning: {warning}", err=True)
            elif name == "vectors_pending" and not info.vectors_enabled:
                click.echo(f"{name:{width}}- (vectors off: embedder none, BM25 only)")
            elif name != "vectors_enabled":
                click.echo(f"{name:{width}}{'-' if value is None else value}")  # "-": not set
    if info.fts_integrity.startswith("FAILED"):
        raise StoreError(f"{info.path}: the full-text index is damaged: {info.fts_integrity}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON output: bytes before and after.")
@click.pass_context
@errors_as_one_line
def compact(ctx: click.Context, as_json: bool) -> None:
    """Give the space of removed documents back: rewrite the index file without it.

    The file keeps the space a removal frees for later writes (it never shrinks by itself),
    and the vectors computed for removed texts (kept to embed an unchanged text once): both
    go.
    Exits 1 when the file is read-only or another kb process keeps it busy; nothing changes
    then.
    """
    with open_kb(ctx) as kb:  # refuses a missing file
        before, after, dropped = compact_index(kb.store)
    if as_json:
        emit_json({"path": str(kb.store.path), "bytes_before": before, "bytes_after": after,
                   "cached_vectors_dropped": dropped})
    else:
        click.echo(f"compacted {kb.store.path}: {before / 1e6:,.1f} MB -> {after / 1e6:,.1f} MB"
                   + (f" ({dropped:,} cached vectors of texts no chunk holds dropped)"
                      if dropped else ""))
