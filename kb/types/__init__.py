"""Domain types shared by every layer: frozen dataclasses with slots.

``kb.types.documents``: documents and chunks, from extraction to the store and an ingest's
report; ``kb.types.search``: recall lists, candidates, references and a search's result;
``kb.types.reading``: a cited chunk with its neighbours and a document's text. All are
importable from here.
"""

from collections.abc import Callable

from kb.types.documents import (
    BLOCK_SEPARATOR,
    Block,
    Chunk,
    ChunkDraft,
    Document,
    DocumentRow,
    DocumentStatus,
    ExtractedDocument,
    FileOutcome,
    ImageRef,
    IngestReport,
    SourceType,
    Status,
    folder_prefix,
    page_span,
    source_type_named,
    tag_key,
    unique_tags,
)
from kb.types.reading import ChunkInContext, DocumentText, Passage
from kb.types.search import (
    Candidate,
    Diagnostics,
    Hit,
    JudgeRecord,
    ListKind,
    RecallList,
    Reference,
    SearchResult,
    StageTrace,
)

# Progress of a long run: called with (phase, done, total) after each step; a CLI draws a bar.
ProgressFn = Callable[[str, int, int], None]
# The phase of a process waiting for another's embedding turn (kb.ingest.embed.embedding_turn):
# (0, 0) when the wait begins, (1, 1) when it ends.
WAITING = "waiting"

__all__ = [
    "BLOCK_SEPARATOR", "Block", "Candidate", "Chunk", "ChunkDraft", "ChunkInContext",
    "Diagnostics", "Document", "DocumentRow", "DocumentStatus", "DocumentText",
    "ExtractedDocument", "FileOutcome", "Hit", "ImageRef", "IngestReport", "JudgeRecord",
    "ListKind", "Passage", "ProgressFn", "RecallList", "Reference", "SearchResult", "SourceType",
    "StageTrace", "Status", "WAITING", "folder_prefix", "page_span", "source_type_named",
    "tag_key", "unique_tags",
]
