"""What reading a citation returns: a chunk with its neighbours, or a document's whole text.

A ``Passage`` is a span of a document's extracted text with the page and headings it sits
under. ``ChunkInContext`` is one cited chunk with the chunks before and after it;
``DocumentText`` is a document's extracted text put back together from its chunks, as
non-overlapping passages in reading order (chunks overlap by up to the chunker's overlap; each
passage keeps only what the previous one did not hold).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kb.types.documents import Chunk, Document, page_span

PASSAGE_GAP = "\n\n"  # between passages whose spans do not touch (text the chunker left out)
NEIGHBOURS = 1  # chunks shown on each side of a cited one: about 400 characters of context each
MAX_NEIGHBOURS = 20  # 20 x ~400 characters each side: a few pages, still one tool answer


@dataclass(frozen=True, slots=True)
class Passage:
    """A span of a document's extracted text.

    Attributes:
        chunk_id: the chunk it comes from (``kb show CHUNK_ID``).
        chunk_index: that chunk's 0-based position in its document.
        text: the span, exactly ``extracted_text[char_start:char_end]``.
        char_start: start offset in the document's extracted text (code points), inclusive.
        char_end: end offset, exclusive.
        page: 1-based page (PDF) the span's chunk starts on, or null.
        page_end: 1-based page that chunk ends on: ``page`` itself unless it runs across a
            page break; null when ``page`` is.
        heading_path: the headings enclosing the span, outermost first.
    """

    chunk_id: int
    chunk_index: int
    text: str
    char_start: int
    char_end: int
    page: int | None
    heading_path: tuple[str, ...]
    page_end: int | None = None  # last, defaulted: positional construction keeps working

    @classmethod
    def of(cls, chunk: Chunk) -> Passage:
        """The whole of a stored chunk (its raw text, without the context prefix)."""
        return cls(chunk_id=chunk.id, chunk_index=chunk.chunk_index, text=chunk.text,
                   char_start=chunk.char_start, char_end=chunk.char_end, page=chunk.page,
                   page_end=chunk.page_end, heading_path=chunk.heading_path)

    def within(self, start: int, end: int | None = None) -> Passage | None:
        """The part of this passage inside ``[start, end)`` (``end`` None: to its end), or None."""
        s, e = max(self.char_start, start), self.char_end if end is None else min(
            self.char_end, end)
        if s >= e:
            return None
        return replace(self, text=self.text[s - self.char_start:e - self.char_start],
                       char_start=s, char_end=e)


@dataclass(frozen=True, slots=True)
class ChunkInContext:
    """A cited chunk with its neighbours in the same document.

    Attributes:
        document: the document the chunk belongs to.
        chunk: the chunk itself.
        before: up to ``neighbours`` chunks before it, in reading order.
        after: up to ``neighbours`` chunks after it, in reading order.
        table_header: the header row of the table the chunk opens inside, when it continues
            one past its header (as a search's ``Reference.table_header``), else ``None``.
    """

    document: Document
    chunk: Passage
    before: tuple[Passage, ...]
    after: tuple[Passage, ...]
    table_header: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentText:
    """A document's extracted text, rebuilt from its chunks.

    Attributes:
        document: the document.
        passages: non-overlapping spans in reading order; together they hold every character
            any chunk holds (text the chunker dropped between chunks, such as blank lines, is
            not stored).
    """

    document: Document
    passages: tuple[Passage, ...]

    @property
    def text(self) -> str:
        """The passages joined: directly where spans touch, else with ``PASSAGE_GAP``."""
        parts: list[str] = []
        end: int | None = None
        for p in self.passages:
            if end is not None and p.char_start > end:
                parts.append(PASSAGE_GAP)
            parts.append(p.text)
            end = p.char_end
        return "".join(parts)

    @classmethod
    def of(cls, document: Document, chunks: list[Chunk]) -> DocumentText:
        """Rebuild the text from ``chunks`` (any order), dropping overlaps between them."""
        passages: list[Passage] = []
        end = 0
        for chunk in sorted(chunks, key=lambda c: (c.char_start, c.chunk_index)):
            part = Passage.of(chunk).within(end)
            if part is not None:
                passages.append(part)
                end = part.char_end
        return cls(document=document, passages=tuple(passages))


def check_number(value: object, name: str, low: int, high: int | None = None) -> int:
    """``value`` when it is an ``int`` (not a ``bool``) in ``[low, high]`` (``high`` None: no cap).

    Raises:
        TypeError: ``value`` is not an ``int``.
        ValueError: it is out of range (the message names ``name`` and the range).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        shown = "None" if value is None else type(value).__name__
        raise TypeError(f"{name} must be an integer, got {shown}")
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value}")
    return value


def location(page: int | None, heading_path: tuple[str, ...], page_end: int | None = None
             ) -> str:
    """Where a passage sits, for a reader: ``p. 3 · Setup > Keys``; empty when unknown.

    A passage running across a page break (``page_end`` after ``page``) reads ``pp. 3-4``.
    """
    parts = ([page_span(page, page_end, short=True)] if page is not None else []) + (
        [" > ".join(heading_path)] if heading_path else [])
    return " · ".join(parts)


def render_document(doc: DocumentText) -> str:
    """The document's text with a ``[p. 3 · Heading > Sub]`` line wherever the place changes."""
    out: list[str] = []
    place: tuple[int | None, tuple[str, ...], int | None] | None = None
    end: int | None = None
    for p in doc.passages:
        here = (p.page, p.heading_path, p.page_end)
        if here != place and location(*here):
            if out and not out[-1].endswith("\n"):
                out.append("\n")
            out.append(f"{'' if not out else chr(10)}[{location(*here)}]\n")
        elif end is not None and p.char_start > end:
            out.append(PASSAGE_GAP)
        place, end = here, p.char_end
        out.append(p.text)
    return "".join(out).rstrip("\n") + "\n"


__all__ = ["MAX_NEIGHBOURS", "NEIGHBOURS", "PASSAGE_GAP", "ChunkInContext", "DocumentText",
           "Passage", "check_number", "location", "render_document"]
