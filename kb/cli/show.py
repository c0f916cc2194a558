"""``kb show`` and ``kb open``: read what was cited.

A reference is a chunk id, as ``kb search --json`` prints it (``chunk_id``: ``kb show 1234``),
or a document: ``doc:ID`` with the id ``kb docs`` and ``doc_id`` give (``kb show doc:12``) or
``doc:PATH`` with its source path (``kb show doc:notes/kites.md``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from kb.api import KnowledgeBase
from kb.cli.common import DOC_PREFIX, cli, emit_json, errors_as_one_line, open_kb
from kb.cli.printable import shown, spellings
from kb.errors import DocumentNotFound, KbError
from kb.shapes import ChunkInContextJSON, DocumentTextJSON
from kb.types import ChunkInContext, Document, Passage, page_span
from kb.types.reading import MAX_NEIGHBOURS, NEIGHBOURS, location, render_document

OPENER_TIMEOUT_S = 30.0  # xdg-open and open hand the file to an application and return
REF_HELP = "REF is a chunk id (a reference's chunk_id) or doc:ID / doc:PATH for a document."


@dataclass(frozen=True, slots=True)
class Target:
    """What ``kb open`` opens: a document's source, at a page when the reference has one.

    ``page`` is where it opens, the first page of the cited text; ``page_end`` its last
    (``page`` itself unless the text runs across a page break).
    """

    source: str
    page: int | None
    page_end: int | None = None


def find_document(kb: KnowledgeBase, ref: str) -> Document:
    """``kb.find_document(ref)``, else the source ``kb docs`` printed as ``ref`` (escaped).

    Raises:
        kb.errors.DocumentNotFound: neither matches (named as given).
    """
    for name in spellings(ref):
        try:
            return kb.find_document(name)
        except DocumentNotFound:
            continue
    raise DocumentNotFound(ref)


def parse_ref(ref: str) -> tuple[str, str]:
    """``("chunk", "1234")`` or ``("doc", "12" or a path)`` for a reference as typed.

    Raises:
        ValueError: neither a chunk id nor ``doc:ID-or-PATH``.
    """
    if ref.startswith(DOC_PREFIX) and ref[len(DOC_PREFIX):].strip():
        return "doc", ref[len(DOC_PREFIX):].strip()
    if ref.isascii() and ref.isdigit() and int(ref) > 0:
        return "chunk", ref
    raise ValueError(f"{ref!r} is not a reference: give a chunk id (a reference's chunk_id, "
                     "e.g. 1234) or doc:ID / doc:PATH for a whole document (e.g. doc:12)")


def _header(doc: Document, chunk: Passage | None = None) -> str:
    """``Title (chunk 7 of doc 2)  [p. 3 · Heading]``, the source, and ``tags: a, b`` if any."""
    what = f"chunk {chunk.chunk_id} of doc {doc.id}" if chunk else f"doc {doc.id}"
    where = location(chunk.page, chunk.heading_path, chunk.page_end) if chunk else ""
    tags = f"\ntags: {', '.join(doc.tags)}" if doc.tags else ""
    return (f"{shown(doc.title)} ({what})" + (f"  [{where}]" if where else "")
            + f"\n{shown(doc.source)}{tags}")


def render_chunk(found: ChunkInContext) -> str:
    """The cited chunk between its neighbours, each of its lines marked ``> ``.

    Neighbours are cut where they overlap the chunk, so no text shows twice.
    """
    chunk = found.chunk
    lines = [_header(found.document, chunk), ""]
    before = [p for p in (b.within(0, chunk.char_start) for b in found.before) if p]
    after = [p for p in (a.within(chunk.char_end) for a in found.after) if p]
    lines += [_dedup_text(before)] if before else []
    # a chunk of a long table's rows: its columns' names, as a search prints them
    lines += [f"table columns: {found.table_header}"] if found.table_header else []
    lines += ["> " + line for line in chunk.text.splitlines()]
    lines += [_dedup_text(after)] if after else []
    return "\n".join(lines) + "\n"


def _dedup_text(passages: list[Passage]) -> str:
    out, end = "", 0
    for p in passages:
        part = p.within(end)
        if part is not None:
            out, end = out + part.text, part.char_end
    return out


def resolve(kb: KnowledgeBase, ref: str) -> Target:
    """The source and page ``ref`` points at.

    Raises:
        ValueError: ``ref`` is malformed.
        kb.errors.DocumentNotFound: nothing in the index matches it.
    """
    kind, value = parse_ref(ref)
    if kind == "chunk":
        found = kb.get_chunk(int(value), neighbours=0)
        return Target(found.document.source, found.chunk.page, found.chunk.page_end)
    return Target(find_document(kb, value).source, None)


def launch(target: Target) -> str | None:
    """Open ``target`` with the platform's opener; ``None`` when done, else why it was not.

    Linux and the BSDs use ``xdg-open`` with a ``file://`` URI, ``#page=N`` for a PDF page
    (honoured by browsers and viewers that read PDF open parameters); macOS ``open`` and
    Windows ``os.startfile`` open the file at its start.
    """
    path = Path(target.source)
    if sys.platform == "win32":
        os.startfile(path)  # type: ignore[attr-defined]  # noqa: S606 - the user's own file
        return None
    name = "open" if sys.platform == "darwin" else "xdg-open"
    opener = shutil.which(name)
    if opener is None:
        return f"no {name} on this machine"
    arg = str(path)
    if name == "xdg-open" and target.page is not None and path.suffix.lower() == ".pdf":
        arg = f"{path.as_uri()}#page={target.page}"
    try:
        done = subprocess.run([opener, arg], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=OPENER_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{name} failed ({exc})"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return f"{name} failed ({why})"
    return None


@cli.command(epilog=REF_HELP)
@click.argument("ref")
@click.option("-C", "--neighbours", type=click.IntRange(0, MAX_NEIGHBOURS), default=NEIGHBOURS,
              show_default=True, help="Chunks to show before and after a cited chunk.")
@click.option("--json", "as_json", is_flag=True,
              help="JSON: the chunk with its neighbours, or the document with its text.")
@click.pass_context
@errors_as_one_line
def show(ctx: click.Context, ref: str, neighbours: int, as_json: bool) -> None:
    """Print a cited chunk with its neighbours, or a document's whole extracted text.

    The page and heading path of the text are shown as [p. 3 · Heading > Sub] lines.
    """
    kind, value = parse_ref(ref)
    with open_kb(ctx) as kb:
        if kind == "chunk":
            found = kb.get_chunk(int(value), neighbours)
            if as_json:
                emit_json(ChunkInContextJSON.of(found))
            else:
                click.echo(render_chunk(found), nl=False)
            return
        text = kb.get_document(find_document(kb, value).id)
    if as_json:
        emit_json(DocumentTextJSON.of(text))
        return
    click.echo(_header(text.document) + "\n")
    click.echo(render_document(text), nl=False)


@cli.command("open", epilog=REF_HELP)
@click.argument("ref")
@click.option("--print", "print_only", is_flag=True,
              help="Print the path and page instead of opening the file.")
@click.option("--json", "as_json", is_flag=True,
              help="JSON: path, page, page_end and whether it opened.")
@click.pass_context
@errors_as_one_line
def open_command(ctx: click.Context, ref: str, print_only: bool, as_json: bool) -> None:
    """Open the file behind a reference, at the cited page where the platform allows.

    Without an opener (xdg-open, open) it prints the path and page and exits 0 with a note.
    """
    with open_kb(ctx) as kb:
        target = resolve(kb, ref)
    if not Path(target.source).is_file():
        raise KbError(f"{target.source}: not a file on this machine (gone, or not a path)")
    problem = "--print given" if print_only else launch(target)
    pages = page_span(target.page, target.page_end)
    if as_json:
        emit_json({"path": target.source, "page": target.page, "page_end": target.page_end,
                   "opened": problem is None})
    elif problem is None:
        click.echo(f"kb: opened {shown(target.source)}" + (f" at {pages}" if pages else ""),
                   err=True)
    else:
        click.echo(shown(target.source) + (f"\t{pages}" if pages else ""))
    if problem is not None and not print_only:
        click.echo(f"kb: note: not opened: {problem}; the path is printed instead", err=True)
