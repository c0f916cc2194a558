"""Domain types shared by every layer: frozen dataclasses with slots.

Offsets are in characters (Unicode code points) of a document's *extracted text*, which is the
blocks' texts joined by ``BLOCK_SEPARATOR``; a citation's ``text`` equals
``extracted_text[char_start:char_end]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

BLOCK_SEPARATOR = "\n\n"

SourceType = Literal["txt", "md", "html", "pdf", "docx"]
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
    """

    title: str
    blocks: tuple[Block, ...]
    source_type: SourceType
    warnings: tuple[str, ...] = ()
    created_at: datetime | None = None
    images: tuple[ImageRef, ...] = ()
    image_count: int = 0

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
        page: 1-based page, or ``None``.
        heading_path: enclosing headings, outermost first.
    """

    text: str
    context_prefix: str
    char_start: int
    char_end: int
    page: int | None = None
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Document:
    """A stored document row."""

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


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """Fields of a document to insert (ids and timestamps are the store's)."""

    source: str
    source_type: str
    title: str
    content_hash: str
    size: int
    mtime: float
    created_at: datetime
    warnings: tuple[str, ...] = ()
    models_pending: bool = False  # model stages unfinished: status ``pending_models``


@dataclass(frozen=True, slots=True)
class Chunk:
    """A stored chunk row (embedding excluded)."""

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
    """Summary of one ingest or sync batch."""

    outcomes: tuple[FileOutcome, ...] = ()
    removed: tuple[str, ...] = ()
    vectors_pending: int = 0
    embedder: str = ""
    warnings: tuple[str, ...] = field(default=())

    def count(self, action: str) -> int:
        """Number of files whose outcome is ``action``."""
        return sum(1 for o in self.outcomes if o.action == action)

    @property
    def chunks(self) -> int:
        """Chunks written in this batch."""
        return sum(o.chunks for o in self.outcomes)


# --- retrieval ---------------------------------------------------------------------------------

ListKind = Literal["bm25", "vector", "like"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One entry of one recall list.

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        rank: 1-based rank in its list.
        score: the list's raw score, higher is better (negated FTS5 bm25, cosine, or the share
            of query terms found by the LIKE scan).
        s_norm: the score on the list's absolute per-query scale, in [0, 1].
    """

    chunk_id: int
    doc_id: int
    rank: int
    score: float
    s_norm: float


@dataclass(frozen=True, slots=True)
class RecallList:
    """The hits of one search (one query x one method), best first.

    Attributes:
        name: ``bm25:0``, ``vector:2``... (method and query number; 0 is the original query).
        kind: the method.
        weight: the list's weight in fusion.
        hits: hits, best first.
    """

    name: str
    kind: ListKind
    weight: float
    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A chunk after fusion, with the evidence the later stages judge.

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        score: fused (and possibly time-decayed) score, higher is better, >= 0.
        cosine: best raw cosine to any query over the vector lists, or ``None`` if in none.
        vector: best vector ``s_norm`` (cosine above the query's baseline, see
            ``kb.retrieve.recall``), 0.0 if in no vector list.
        keyword: best BM25/LIKE ``s_norm`` over the keyword lists, 0.0 if in none.
        lists: names of the lists it appeared in.
        fused: the fused score before time decay, or ``None`` when ``score`` is undecayed.
    """

    chunk_id: int
    doc_id: int
    score: float
    cosine: float | None
    vector: float
    keyword: float
    lists: tuple[str, ...] = ()
    fused: float | None = None

    @property
    def evidence(self) -> float:
        """The fused score before time decay: how well the chunk matches, whatever its age."""
        return self.score if self.fused is None else self.fused


@dataclass(frozen=True, slots=True)
class Reference:
    """One cited chunk handed to the model.

    Attributes:
        number: 1-based citation number.
        relevance: ``answer_p`` in percent, 0-100 (higher is better): the judge's calibrated
            probability that this passage holds the answer (a cross-encoder's or the LLM's
            score when one judged instead).
        weak_evidence: ``True`` when the passage did not pass the judge and is listed only so
            the caller sees what came closest (or, to fill a long list, asked with ``fill``).
        text: the raw chunk text (not the context prefix); equals
            ``extracted_text[char_start:char_end]``.
        stale: ``True`` when the document's file has another size or modification time than
            when it was indexed (checked at query time by ``os.stat``, never by hashing): the
            text may no longer be in the file.
    """

    number: int
    chunk_id: int
    doc_id: int
    relevance: int
    title: str
    source: str
    source_type: str
    page: int | None
    heading_path: tuple[str, ...]
    text: str
    char_start: int
    char_end: int
    created_at: str
    weak_evidence: bool = False
    flags: tuple[str, ...] = ()
    stale: bool = False

    @property
    def locator(self) -> str:
        """``page N`` and/or ``Heading > Sub``, comma-separated, or empty."""
        parts = [f"page {self.page}"] if self.page is not None else []
        if self.heading_path:
            parts.append(" > ".join(self.heading_path))
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class StageTrace:
    """What one pipeline stage did.

    Attributes:
        stage: stage name (``expand``, ``recall``, ``fuse``, ``decay``, ``floor``, ``rerank``,
            ``cite``).
        status: ``ran``, ``skipped`` or ``failed``.
        reason: why it was skipped or failed, or a short note.
        ms: wall time in milliseconds.
    """

    stage: str
    status: Literal["ran", "skipped", "failed"]
    reason: str = ""
    ms: float = 0.0


@dataclass(frozen=True, slots=True)
class JudgeRecord:
    """Why the offline judge gave one reference its relevance (``kb.retrieve.judge``).

    Attributes:
        number: the reference's number.
        answer_p: probability in [0, 1] that the passage holds the answer.
        passed: ``answer_p`` reached the calibrated threshold.
        focus_found: the question's focus terms the passage holds.
        focus_missing: the focus terms it lacks.
        best_sentence: the passage's sentence covering the most focus weight.
        answer_type: what the question asks for: ``date``, ``number``, ``person``,
            ``place`` or ``other``.
        type_found: a filler of that type near the best sentence, or ``None``.
    """

    number: int
    answer_p: float
    passed: bool
    focus_found: tuple[str, ...]
    focus_missing: tuple[str, ...]
    best_sentence: str
    answer_type: str
    type_found: str | None


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """How a search went: stages, degraded rungs, pool sizes, floor effect.

    Attributes:
        stages: one trace per stage in order.
        degraded: degradation rungs taken (e.g. ``vectors: embedder unavailable``).
        candidates: per recall list name, the number of hits.
        floor: the relevance floor used (vector s_norm in [0, 1]), or ``None`` when off.
        floor_dropped: candidates the floor removed.
        best_below_floor: best vector s_norm among dropped candidates, or ``None``.
        queries: the queries searched (original first).
        error: the reason when the search failed and returned nothing.
        explain: per-stage candidate traces when asked for (``--explain``), else empty.
        judged_out: candidates judged and not passed: by the offline judge (below its
            threshold) or a judging reranker (cross-encoder or LLM, below
            ``PipelineSettings.rerank_min_score``); 0 when none judged.
        judge: per reference, the offline judge's reasons (empty when it did not run).
        best_answer_p: the best ``answer_p`` among the candidates the offline judge scored
            (0 when none passed its evidence gate), or ``None`` when it did not run.
        gone: sources of documents left out because their files are gone from disk since
            they were indexed (``kb sync`` of their folder removes them).
    """

    stages: tuple[StageTrace, ...] = ()
    degraded: tuple[str, ...] = ()
    candidates: tuple[tuple[str, int], ...] = ()
    floor: float | None = None
    floor_dropped: int = 0
    best_below_floor: float | None = None
    queries: tuple[str, ...] = ()
    error: str | None = None
    explain: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()
    judged_out: int = 0
    judge: tuple[JudgeRecord, ...] = ()
    best_answer_p: float | None = None
    gone: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer of ``search``.

    Attributes:
        query: the query as given.
        references: cited chunks, most relevant first (may be empty).
        context: the context block for a model, ending with the answer-only-from-these
            instruction (when the search failed: that it failed, and not to read that as
            missing evidence).
        insufficient_evidence: ``True`` when the search ran and nothing relevant enough was
            found; ``False`` when it failed (``diagnostics.error`` set): a failure says
            nothing about what the documents hold.
        diagnostics: how the search went.
    """

    query: str
    references: tuple[Reference, ...]
    context: str
    insufficient_evidence: bool
    diagnostics: Diagnostics
