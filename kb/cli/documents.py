"""``kb docs``, ``kb rm`` and ``kb status``: the documents in the knowledge base and its state."""

from __future__ import annotations

import click

from kb.cli.common import cli, emit_json, errors_as_one_line, open_kb
from kb.errors import StoreError
from kb.shapes import StatusJSON


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON Lines, one document per line.")
@click.pass_context
@errors_as_one_line
def docs(ctx: click.Context, as_json: bool) -> None:
    """List the documents in the knowledge base."""
    with open_kb(ctx) as kb:
        documents = kb.documents()
    for d in documents:
        if as_json:
            emit_json(d)
        else:
            n = len(d.warnings)
            warn = f"  ({n} warning{'' if n == 1 else 's'})" if n else ""
            click.echo(f"{d.id:5d}  {d.source_type:4}  {d.chunk_count:5d} chunks  {d.status:15}  "
                       f"{d.title[:50]}  {d.source}{warn}")


@cli.command()
@click.argument("refs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="JSON Lines of removed documents.")
@click.pass_context
@errors_as_one_line
def rm(ctx: click.Context, refs: tuple[str, ...], as_json: bool) -> None:
    """Remove documents (by id or source path) with their chunks, FTS rows and vectors."""
    with open_kb(ctx) as kb:
        for ref in refs:
            doc = kb.remove(ref)
            if as_json:
                emit_json({"removed": doc.source, "id": doc.id})
            else:
                click.echo(f"removed {doc.source}")


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
        emit_json(StatusJSON.of(info))
    else:
        width = max(len(k) for k in info) + 1
        for k, v in info.items():
            if k == "warnings":
                for warning in v:
                    click.echo(f"warning: {warning}", err=True)
            else:
                click.echo(f"{k:{width}}{'-' if v is None else v}")  # "-": not set
    if str(info["fts_integrity"]).startswith("FAILED"):
        raise StoreError(f"{info['path']}: the full-text index is damaged: "
                         f"{info['fts_integrity']}")
