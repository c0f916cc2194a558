"""The JSON of what a knowledge base holds: its documents, an ingest's result, status, health.

A stored ``Document``, a ``FileOutcome`` and a ``Status`` are written as they are (``kb.types``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from kb.shapes.errors import ErrorDetailJSON, ErrorType
from kb.types import Document, FileOutcome, IngestReport, Status


@dataclass(frozen=True, slots=True)
class IngestSummaryJSON:
    """What one ingest or sync batch did, in numbers.

    Attributes:
        added: files added.
        updated: files whose document was replaced.
        unchanged: files skipped by content hash.
        skipped: files skipped with a reason (empty, a dangling symlink, ...).
        failed: files that failed.
        chunks: chunks written.
        removed: sources of the documents removed (files gone from the folders given).
        vectors_pending: chunks waiting for vectors (``kb reembed`` adds them).
        embedder: the embedder used.
        warnings: notes on the batch as a whole.
        embedded: chunks embedded in this batch (a resumed run counts those an interrupted
            one left without vectors).
        ignored: entries folder walks left out, by reason (``.gitignore``, ``hidden``,
            ``built-in exclude``, ``unsupported type .org``, ...); a folder counts once.
        new_problems: paths of the failed files and folders not reported by an earlier
            batch (``kb sync --check`` exits 1 when there is one).
    """

    added: int
    updated: int
    unchanged: int
    skipped: int
    failed: int
    chunks: int
    removed: tuple[str, ...]
    vectors_pending: int
    embedder: str
    warnings: tuple[str, ...]
    embedded: int = 0
    ignored: dict[str, int] = field(default_factory=dict)
    new_problems: tuple[str, ...] = ()

    @classmethod
    def of(cls, report: IngestReport) -> IngestSummaryJSON:
        """The summary of an ``IngestReport``."""
        return cls(added=report.count("added"), updated=report.count("updated"),
                   unchanged=report.count("unchanged"), skipped=report.count("skipped"),
                   failed=report.count("failed"), chunks=report.chunks, removed=report.removed,
                   vectors_pending=report.vectors_pending, embedder=report.embedder,
                   warnings=report.warnings, embedded=report.vectors_written,
                   ignored=dict(report.ignored), new_problems=report.new_problems)


@dataclass(frozen=True, slots=True)
class RefusedPathJSON:
    """A path an ingest call left out.

    Attributes:
        path: the path.
        reason: why (outside the ingest roots, ...).
    """

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class IngestResultJSON:
    """An ingest call's answer (``POST /ingest``, the ``knowledge_ingest`` tool).

    Attributes:
        files: what happened to each file.
        refused: paths found in a walked folder that resolve outside the ingest roots.
        summary: the batch in numbers, or null when nothing was ingested.
        error: why the call failed, or null.
    """

    files: tuple[FileOutcome, ...]
    refused: tuple[RefusedPathJSON, ...]
    summary: IngestSummaryJSON | None
    error: ErrorDetailJSON | None

    @classmethod
    def of(cls, report: IngestReport,
           refused: tuple[tuple[str, str], ...] = ()) -> IngestResultJSON:
        """The answer for an ``IngestReport`` and the ``(path, reason)`` pairs refused."""
        return cls(files=report.outcomes,
                   refused=tuple(RefusedPathJSON(p, r) for p, r in refused),
                   summary=IngestSummaryJSON.of(report), error=None)

    @classmethod
    def failure(cls, kind: ErrorType, message: str) -> IngestResultJSON:
        """A call that ingested nothing."""
        return cls(files=(), refused=(), summary=None, error=ErrorDetailJSON(kind, message))


@dataclass(frozen=True, slots=True)
class DocumentsJSON:
    """The stored documents (``GET /documents``; ``kb docs --json`` prints one per line).

    Attributes:
        documents: every document, ordered by source.
    """

    documents: tuple[Document, ...]


# ``KnowledgeBase.status()`` returns the shape itself, as ``documents()`` returns ``Document``s.
StatusJSON = Status


@dataclass(frozen=True, slots=True)
class HealthJSON:
    """Liveness (``GET /health``).

    Attributes:
        status: always ``ok``.
        version: the installed kb version.
        chunks: chunks stored.
        ingest_enabled: whether ``POST /ingest`` reads anything (ingest roots configured).
    """

    status: Literal["ok"]
    version: str
    chunks: int
    ingest_enabled: bool


__all__ = ["DocumentsJSON", "HealthJSON", "IngestResultJSON", "IngestSummaryJSON",
           "RefusedPathJSON", "StatusJSON"]
