"""The JSON of what was cited, read back: a chunk with its neighbours, a document's text.

``kb show ID --json``, ``GET /chunks/{chunk_id}`` and the MCP ``get_chunk`` tool give
``ChunkInContextJSON``; ``kb show doc:ID --json``, ``GET /documents/{doc_id}`` and
``get_document`` give ``DocumentTextJSON``. Passages are written as they are (``kb.types``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.types import ChunkInContext, Document, DocumentText, Passage


@dataclass(frozen=True, slots=True)
class ChunkInContextJSON:
    """A cited chunk with its document and the chunks around it.

    Attributes:
        document: the document the chunk belongs to.
        chunk: the chunk (its raw text, page and heading path).
        before: the chunks before it, in reading order (overlapping it by up to 80 characters).
        after: the chunks after it, in reading order.
        table_header: the header row of the table the chunk opens inside (a chunk of a long
            table's rows), as a search reference's; null when it opens inside none.
    """

    document: Document
    chunk: Passage
    before: tuple[Passage, ...]
    after: tuple[Passage, ...]
    table_header: str | None

    @classmethod
    def of(cls, found: ChunkInContext) -> ChunkInContextJSON:
        """The JSON of a ``ChunkInContext``."""
        return cls(found.document, found.chunk, found.before, found.after, found.table_header)


@dataclass(frozen=True, slots=True)
class DocumentTextJSON:
    """A document with its extracted text (rebuilt from its chunks).

    Attributes:
        document: the document.
        text: its extracted text, passages joined (a blank line where text was not stored).
        passages: the text as non-overlapping spans in reading order, each with its page and
            heading path and the chunk it comes from.
    """

    document: Document
    text: str
    passages: tuple[Passage, ...]

    @classmethod
    def of(cls, found: DocumentText) -> DocumentTextJSON:
        """The JSON of a ``DocumentText``."""
        return cls(found.document, found.text, found.passages)


__all__ = ["ChunkInContextJSON", "DocumentTextJSON"]
