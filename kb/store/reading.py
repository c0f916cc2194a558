"""Reading what was cited: a chunk with its neighbours, a document's chunks in order.

Each function reads one snapshot (``Store.snapshot``), so a document replaced by an ingest
meanwhile is read whole, before or after, never half of each.
"""

from __future__ import annotations

import json
from typing import Any

from kb.store import Store
from kb.types import Chunk, ChunkInContext, Document, DocumentText, Passage

# a chunk written before migration 9 has no page_end: it covers one page
_CHUNK_COLUMNS = ("id, doc_id, chunk_index, text, context_prefix, char_start, char_end, page, "
                  "heading_path, embedding IS NOT NULL, COALESCE(page_end, page)")


def _chunk(r: Any) -> Chunk:
    return Chunk(id=r[0], doc_id=r[1], chunk_index=r[2], text=r[3], context_prefix=r[4],
                 char_start=r[5], char_end=r[6], page=r[7], page_end=r[10],
                 heading_path=tuple(json.loads(r[8])), has_embedding=bool(r[9]))


def chunk_in_context(store: Store, chunk_id: int, neighbours: int) -> ChunkInContext | None:
    """The chunk ``chunk_id`` with up to ``neighbours`` chunks on each side, or ``None``.

    Args:
        store: the store.
        chunk_id: a chunk id (a reference's ``chunk_id``).
        neighbours: chunks to include before and after it, >= 0.
    """
    with store.snapshot():
        rows = store.conn.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = "
            "(SELECT doc_id FROM chunks WHERE id = ?1) AND chunk_index BETWEEN "
            "(SELECT chunk_index FROM chunks WHERE id = ?1) - ?2 AND "
            "(SELECT chunk_index FROM chunks WHERE id = ?1) + ?2 ORDER BY chunk_index",
            (chunk_id, neighbours)).fetchall()
        if not rows:
            return None
        chunks = [_chunk(r) for r in rows]
        document = store.get_document(doc_id=chunks[0].doc_id)
    if document is None:  # unreachable inside one snapshot (chunks cascade with documents)
        return None
    at = next(i for i, c in enumerate(chunks) if c.id == chunk_id)
    return ChunkInContext(document=document, chunk=Passage.of(chunks[at]),
                          before=tuple(Passage.of(c) for c in chunks[:at]),
                          after=tuple(Passage.of(c) for c in chunks[at + 1:]))


def document_text(store: Store, doc_id: int) -> DocumentText | None:
    """The document ``doc_id`` with its text rebuilt from its chunks, or ``None``."""
    with store.snapshot():
        document: Document | None = store.get_document(doc_id=doc_id)
        if document is None:
            return None
        rows = store.conn.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY chunk_index",
            (doc_id,)).fetchall()
    return DocumentText.of(document, [_chunk(r) for r in rows])


def text_before(store: Store, chunk: Chunk, max_chars: int, max_chunks: int) -> tuple[str, bool]:
    """The document text just before ``chunk``, rebuilt from the chunks before it.

    Read in the caller's snapshot, through the (document, chunk index) index: at most
    ``max_chunks`` chunks. Overlaps between chunks are dropped. Whitespace the chunker
    stripped between two chunks is not stored: a gap of two characters or more comes back
    as a blank line (where the chunker cuts, at a paragraph break, most often), a gap of
    one as a line break (a cut at a space inside a line reads as a line break too).

    Args:
        store: the store.
        chunk: a chunk row.
        max_chars: how far back to read (code points), > 0; the text may start up to a
            chunk earlier.
        max_chunks: at most this many chunks read, > 0.

    Returns:
        The text up to the chunk's start, and whether it begins with the document's first
        chunk (nothing before it is left out).
    """
    rows = store.conn.execute(
        f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? AND chunk_index < ? AND "
        "chunk_index >= ?", (chunk.doc_id, chunk.chunk_index, chunk.chunk_index - max_chunks))
    before = sorted((c for c in map(_chunk, rows) if chunk.char_start - max_chars < c.char_end
                     and c.char_start < chunk.char_start),
                    key=lambda c: (c.char_start, c.chunk_index))
    parts: list[str] = []
    end: int | None = None
    for c in before:  # overlaps dropped, and what runs into the chunk itself
        part = Passage.of(c).within(end or 0, chunk.char_start)
        if part is None:
            continue
        if end is not None and part.char_start > end:
            parts.append(_gap(part.char_start - end))
        parts.append(part.text)
        end = part.char_end
    if end is not None and chunk.char_start > end:
        parts.append(_gap(chunk.char_start - end))
    first = before[0].chunk_index if before else chunk.chunk_index
    return "".join(parts), first == 0


def _gap(chars: int) -> str:
    """What stands for ``chars`` stripped characters between two chunks (see ``text_before``)."""
    return "\n\n" if chars >= 2 else "\n"


__all__ = ["chunk_in_context", "document_text", "text_before"]
