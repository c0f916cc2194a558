"""Documents and their chunks: what extraction returns, what the store holds, what an ingest did.

Offsets are in characters (Unicode code points) of a document's *extracted text*, which is the
blocks' texts joined by ``BLOCK_SEPARATOR``; a citation's ``text`` equals
``extracted_text[char_start:char_end]``.
"""


from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

BLOCK_SEPARATOR = "\n\n"

SourceType = Literal["txt", "md", "html", "pdf", "docx"]


def source_type_named(value: str) -> str:
    """A source type as a caller may write it, as kb names it: ``".PDF"`` -> ``"pdf"``.

    Any case, a leading dot dropped (a file's suffix); not checked against ``SourceType``.
    """
    return value.lower().lstrip(".")

# indexed: every chunk has a live vector; pending_vectors: some chunk lacks one (kb reembed);
# pending_models: situating sentences or image descriptions unfinished (the next ingest redoes it)
DocumentStatus = Literal["indexed", "pending_vectors", "pending_models", "failed"]


@dataclass(frozen=True, slots=True)
class Block:
    """One structural unit of extracted text (a paragraph run under one heading, a table, a page).

    Attributes:
        text: the block's text; never empty, never contains NUL.
        heading_path: headings enclosing the block, outermost first (may be empty).
        page: 1-based page number for paged formats (PDF), else ``None``.
    """

    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image found in a document, located but not loaded.

    Its bytes are read only when a vision model will describe it.

    Attributes:
        key: how the format's image loader finds it again (PDF: the image XObject's object
            number; DOCX: the image part's name). Unique within the document.
        position: where its description goes: before ``blocks[position]`` of the extracted
            document (``len(blocks)`` = at the end); images at one position keep their order.
        page: 1-based page of its first use (PDF), else ``None``.
        heading_path: headings enclosing it, outermost first (may be empty).
        width_px: pixel width when the format states it without decoding, else ``None``.
        height_px: pixel height likewise.
    """

    key: str
    position: int
    page: int | None = None
    heading_path: tuple[str, ...] = ()
    width_px: int | None = None
    height_px: int | None = None


@dataclass(frozen=True, slots=True)
class ExtractedDocument:
    """What an extractor returns for one file.

    Attributes:
        title: the document's title (metadata, first heading, or file stem); never empty.
        blocks: the text in reading order.
        source_type: the format the text came from.
        warnings: human-readable notes (pages without text layer, images not indexed, ...).
        created_at: the document's own creation time when its metadata has one (timezone-aware).
        images: the images a vision model could describe, in document order.
        image_count: all images in the file, ``images`` included (also ones that cannot be
            placed in the text, e.g. a DOCX header logo).
        tags: the document's own tags (Markdown front matter), in order, without duplicates.
    """

    title: str
    blocks: tuple[Block, ...]
    source_type: SourceType
    warnings: tuple[str, ...] = ()
    created_at: datetime | None = None
    images: tuple[ImageRef, ...] = ()
    image_count: int = 0
    tags: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The extracted text: block texts joined by ``BLOCK_SEPARATOR``."""
        return BLOCK_SEPARATOR.join(b.text for b in self.blocks)


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before it has a database id.

    Attributes:
        text: the raw chunk text, exactly ``extracted_text[char_start:char_end]``.
        context_prefix: title + heading path (+ optional situating sentence), indexed with the
            text but never shown as the citation.
        char_start: start offset (code points) in the extracted text, inclusive.
        char_end: end offset, exclusive.
        page: 1-based page its text starts on, or ``None``.
        heading_path: enclosing headings, outermost first.
        page_end: 1-based page its text ends on (>= ``page``); ``None`` means ``page``.
    """

    text: str
    context_prefix: str
    char_start: int
    char_end: int
    page: int | None = None
    heading_path: tuple[str, ...] = ()
    page_end: int | None = None


def page_span(page: int | None, page_end: int | None, *, short: bool = False) -> str:
    """The pages a text covers, for a reader: ``page 3`` or ``pages 3-4``.

    Args:
        page: 1-based first page, or ``None`` (no pages: the result is empty).
        page_end: 1-based last page; ``None`` or ``page`` itself gives one page.
        short: abbreviated, as in a bracketed location: ``p. 3`` or ``pp. 3-4``.
    """
    if page is None:
        return ""
    if page_end is None or page_end == page:
        return f"p. {page}" if short else f"page {page}"
    return f"pp. {page}-{page_end}" if short else f"pages {page}-{page_end}"


def tag_key(tag: str) -> str:
    """How a tag is matched: NFKC-normalised, case-folded, inner whitespace one space, stripped.

    ``Python``, ``PYTHON`` and `` python `` are one tag; ``python3`` and ``py`` are others.
    An empty or whitespace-only tag gives ``""`` (it never matches).
    """
    return " ".join(unicodedata.normalize("NFKC", tag).casefold().split())


def folder_prefix(source: str) -> str:
    """What every source under the folder ``source`` starts with: it and its separator.

    Whole path segments: ``/notes`` holds ``/notes/a.md``, never ``/notes-private/b.md``; a
    Windows path (backslashes, no slash) ends in a backslash; one ending in a separator is
    kept as it is.
    """
    sep = "\\" if "\\" in source and "/" not in source else "/"
    return source if source.endswith(sep) else source + sep


def unique_tags(tags: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``tags`` with inner whitespace collapsed, without empty ones and without repeats.

    Two tags are one when their ``tag_key`` is the same; the first spelling is kept, in order.
    """
    kept: dict[str, str] = {}
    for tag in tags:
        shown = " ".join(tag.split())
        if tag_key(shown):
            kept.setdefault(tag_key(shown), shown)
    return tuple(kept.values())


@dataclass(frozen=True, slots=True)
class Document:
    """A stored document row.

    Attributes:
        id: the document's id in this index.
        source: its absolute file path or URI.
        source_type: the format its text came from (``md``, ``pdf``, ...).
        title: its title (metadata, first heading, or file stem).
        content_hash: SHA-256 of the file's bytes, hex.
        size: the file's size in bytes.
        mtime: the file's modification time, seconds since the Unix epoch.
        created_at: its creation time (front matter or metadata, else the file time).
        ingested_at: when this version was indexed.
        status: ``indexed``, ``pending_vectors``, ``pending_models`` or ``failed``.
        warnings: notes from extraction and indexing.
        chunk_count: chunks stored.
        tags: its tags (Markdown front matter) as written, in order; a search's ``tags``
            filter matches them case-insensitively (``tag_key``).
    """

    id: int
    source: str
    source_type: str
    title: str
    content_hash: str
    size: int
    mtime: float
    created_at: datetime
    ingested_at: datetime
    status: DocumentStatus
    warnings: tuple[str, ...] = ()
    chunk_count: int = 0
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """Fields of a document to insert (ids and timestamps are the store's).

    ``tags`` are the document's own (front matter); the store keeps them once per ``tag_key``.
    """

    source: str
    source_type: str
    title: str
    content_hash: str
    size: int
    mtime: float
    created_at: datetime
    warnings: tuple[str, ...] = ()
    models_pending: bool = False  # model stages unfinished: status ``pending_models``
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A stored chunk row (embedding excluded).

    ``page`` is the 1-based page its text starts on and ``page_end`` the one it ends on
    (equal for a one-page chunk, both ``None`` without pages).
    """

    id: int
    doc_id: int
    chunk_index: int
    text: str
    context_prefix: str
    char_start: int
    char_end: int
    page: int | None
    heading_path: tuple[str, ...]
    has_embedding: bool = False
    page_end: int | None = None  # last, defaulted: positional construction keeps working


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file in an ingest batch.

    Attributes:
        path: the file.
        action: ``added``, ``updated``, ``unchanged``, ``failed`` or ``skipped``.
        chunks: chunks written (0 when unchanged, failed or skipped).
        reason: why it failed or was skipped, else empty.
        warnings: per-document warnings (pages without text, vectors pending, ...).
    """

    path: str
    action: Literal["added", "updated", "unchanged", "failed", "skipped"]
    chunks: int = 0
    reason: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IngestReport:
    """Summary of one ingest or sync batch.

    Attributes:
        outcomes: one per file (or folder) met, in walk order.
        removed: sources of the documents removed (files gone from the folders given).
        vectors_pending: chunks waiting for vectors after the batch.
        embedder: the embedder used.
        warnings: notes on the batch as a whole.
        ignored: (reason, entries) pairs, most first: what folder walks left out by rule
            (``built-in exclude``, ``virtualenv``, ``hidden``, ``.gitignore``, ``.kbignore``,
            ``ignore pattern``, ``unsupported type .org``, ``no file extension``, ``not a
            regular file (a pipe, socket or device)``, ``symlinked folder (not followed)``);
            an ignored folder counts once, its content unseen.
        vectors_written: chunks embedded and committed in this batch (also those of files
            an earlier, interrupted run indexed, or that another ingest wrote while this one
            held the embedding turn: ``kb.ingest.embed.embedding_turn``).
        new_problems: paths of the ``failed`` outcomes not reported by an earlier batch.
    """

    outcomes: tuple[FileOutcome, ...] = ()
    removed: tuple[str, ...] = ()
    vectors_pending: int = 0
    embedder: str = ""
    warnings: tuple[str, ...] = field(default=())
    ignored: tuple[tuple[str, int], ...] = ()
    vectors_written: int = 0
    new_problems: tuple[str, ...] = ()

    def count(self, action: str) -> int:
        """Number of files whose outcome is ``action``."""
        return sum(1 for o in self.outcomes if o.action == action)

    @property
    def chunks(self) -> int:
        """Chunks written in this batch."""
        return sum(o.chunks for o in self.outcomes)


@dataclass(frozen=True, slots=True)
class Status:
    """The state of a knowledge base (``KnowledgeBase.status()``; ``kb status --json``).

    Attributes:
        path: the database file, absolute.
        documents: documents stored.
        chunks: chunks stored.
        fts_rows: rows of the full-text index (one per chunk).
        vectors: chunks with a live vector.
        vectors_pending: chunks waiting for one (``kb reembed`` adds them); 0 when vectors
            are off.
        vectors_enabled: whether the configured embedder makes vectors (false for ``none``:
            BM25 only, nothing is waiting for vectors).
        documents_pending_models: documents whose model stages are unfinished.
        embedder_configured: the configured embedder spec.
        embedder_stored: the model of the stored vectors, or null.
        judge_threshold: the judge's threshold in use, in [0, 1].
        judge_threshold_source: ``shipped (...)`` or ``kb calibrate <date> on <set>``.
        reembed_target: the model of an unfinished re-embed, or null.
        reembed_staged: chunks it has staged.
        fts_integrity: ``ok`` or ``FAILED``, with a note.
        vector_index: what a search of the stored vectors scans: ``exact scan`` (up to
            ``Config.exact_scan_max_vectors`` live vectors), ``bit index`` (above), ``exact
            scan, bit index due`` (above, with no bit index in step: the next ingest builds
            it) or ``none`` (no vectors, or vectors off), with the counts.
        warnings: notes on the index (e.g. a bit index that is due).
    """

    path: str
    documents: int
    chunks: int
    fts_rows: int
    vectors: int
    vectors_pending: int
    vectors_enabled: bool
    documents_pending_models: int
    embedder_configured: str
    embedder_stored: str | None
    judge_threshold: float
    judge_threshold_source: str
    reembed_target: str | None
    reembed_staged: int
    fts_integrity: str
    vector_index: str
    warnings: tuple[str, ...]
