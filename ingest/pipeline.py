"""The ingest orchestrator.

Stages, per file (each one call into one module):

1. **Discover** files under the given paths (``ingest.discover``).
2. **Hash** the bytes; an unchanged file (same source, same content hash) is skipped.
3. **Extract** text with structure (``ingest.extract``); a failure is that file's alone.
4. **Chunk** structure-first with a recursive fallback (``ingest.chunk``), each chunk with its
   context prefix (title + heading path).
5. **Write text first**: document, chunks and FTS rows replace any older version in one
   transaction (``kb.store.Store.replace_document``).

Then, once for the batch:

6. **Embed** every chunk without a current vector, outside any transaction
   (``ingest.embed``); a failure leaves NULL vectors and a warning, and ``kb reembed`` backfills.
7. **Sync** (optional): documents under a synced folder whose file is gone are removed with their
   chunks, FTS rows and vectors.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from ingest.chunk import chunk_document
from ingest.discover import MAX_FILE_BYTES, discover
from ingest.embed import backfill_vectors
from ingest.extract import SUPPORTED_SUFFIXES, extract
from kb.backends.embedding import EmbeddingService
from kb.config import ChunkSettings
from kb.errors import ExtractError
from kb.store import DocumentRow, Store
from kb.types import Block, ExtractedDocument, FileOutcome, IngestReport

log = logging.getLogger(__name__)

ProgressFn = Callable[[str, int, int], None]  # (phase, done, total)


def _write_document(store: Store, source: str, doc: ExtractedDocument, *, digest: str,
                    size: int, mtime: float, created_at: datetime, chunk: ChunkSettings) -> int:
    """Chunk ``doc`` and replace any stored version with it; returns the chunks written.

    Nothing is written when the document yields no chunk (the caller reports why).
    """
    drafts = chunk_document(doc, chunk)
    if drafts:
        store.replace_document(
            DocumentRow(source=source, source_type=doc.source_type, title=doc.title,
                        content_hash=digest, size=size, mtime=mtime, created_at=created_at,
                        warnings=doc.warnings),
            drafts)
    return len(drafts)


def _ingest_file(store: Store, path: Path, chunk: ChunkSettings) -> FileOutcome:
    source = str(path)
    try:
        stat = path.stat()
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            return FileOutcome(source, "skipped", reason=f"unsupported file type {path.suffix!r}")
        if stat.st_size > MAX_FILE_BYTES:
            return FileOutcome(source, "failed",
                               reason=f"larger than the {MAX_FILE_BYTES // 2**20} MiB budget")
        data = path.read_bytes()
    except OSError as exc:
        return FileOutcome(source, "failed", reason=f"cannot read: {exc.strerror or exc}")
    digest = hashlib.sha256(data).hexdigest()
    old = store.get_document(source=source)
    if old is not None and old.content_hash == digest:
        return FileOutcome(source, "unchanged")
    try:
        doc = extract(path)
    except ExtractError as exc:
        return FileOutcome(source, "failed", reason=exc.reason)
    except Exception as exc:  # an extractor bug must not abort the batch
        log.exception("extractor crashed on %s", path)
        return FileOutcome(source, "failed", reason=f"unexpected {type(exc).__name__}: {exc}")
    written = _write_document(
        store, source, doc, digest=digest, size=stat.st_size, mtime=stat.st_mtime,
        created_at=doc.created_at or datetime.fromtimestamp(stat.st_mtime, UTC), chunk=chunk)
    if not written:
        return FileOutcome(source, "failed", reason="no text to index")
    return FileOutcome(source, "updated" if old else "added", chunks=written,
                       warnings=doc.warnings)


def ingest_paths(store: Store, paths: Iterable[Path | str], *, chunk: ChunkSettings,
                 service: EmbeddingService | None, sync: bool = False,
                 on_progress: ProgressFn | None = None,
                 no_vectors_reason: str = "no embedder configured") -> IngestReport:
    """Ingest files and folders into ``store``.

    Args:
        store: the open store.
        paths: files and/or folders (walked recursively).
        chunk: chunk sizes.
        service: the embedding service, or ``None`` to store text only (BM25).
        sync: also remove documents under the given folders whose files are gone.
        on_progress: called with (phase, done, total) for ``files`` and ``vectors``.
        no_vectors_reason: why ``service`` is ``None``, for the report's warning.

    Returns:
        The batch report; a failed file is an outcome, never an exception.

    Raises:
        FileNotFoundError: a given path does not exist (before anything is written).
    """
    roots = [Path(p) for p in paths]
    files = list(discover(roots, SUPPORTED_SUFFIXES))
    outcomes = []
    for i, path in enumerate(files):
        outcomes.append(_ingest_file(store, path, chunk))
        if on_progress:
            on_progress("files", i + 1, len(files))
    removed = remove_missing(store, roots) if sync else ()
    warnings: list[str] = []
    pending = 0
    if service is not None:
        _, error = backfill_vectors(service, on_progress)
        if error:
            warnings.append(error)
        pending = store.count_needing_vectors(service.fingerprint.key)
    else:
        warnings.append(f"{no_vectors_reason}: text indexed for BM25 only")
        counts = store.counts()
        pending = counts["chunks"] - counts["vectors"]
    store.refresh_status()
    return IngestReport(outcomes=tuple(outcomes), removed=removed, vectors_pending=pending,
                        embedder=service.fingerprint.description if service else "none",
                        warnings=tuple(warnings))


def ingest_records(store: Store, records: Iterable[tuple[str, str, str]], *,
                   chunk: ChunkSettings, created_at: datetime | None = None) -> int:
    """Index in-memory texts (e.g. an evaluation corpus) as plain-text documents.

    Args:
        store: the open store.
        records: (source, title, text) triples; the source must be unique.
        chunk: chunk sizes.
        created_at: creation time for every record (default: now).

    Returns:
        The number of documents written (unchanged ones are skipped by content hash).
    """
    written = 0
    created = created_at or datetime.now(UTC)
    for source, title, text in records:
        digest = hashlib.sha256(f"{title}\0{text}".encode()).hexdigest()
        old = store.get_document(source=source)
        if old is not None and old.content_hash == digest:
            continue
        body = text.replace("\x00", "").strip()
        if not body:
            continue
        doc = ExtractedDocument(title=title.strip() or source, blocks=(Block(body),),
                                source_type="txt")
        if _write_document(store, source, doc, digest=digest, size=len(text.encode()),
                           mtime=created.timestamp(), created_at=created, chunk=chunk):
            written += 1
    return written


def remove_missing(store: Store, roots: Iterable[Path]) -> tuple[str, ...]:
    """Delete documents stored under any folder in ``roots`` whose file no longer exists.

    Returns:
        The removed sources.
    """
    folders = [str(p.resolve()) for p in roots if p.is_dir()]
    removed = []
    for doc in store.documents():
        inside = any(doc.source.startswith(f.rstrip("/") + "/") for f in folders)
        if inside and not Path(doc.source).is_file():
            store.delete_document(doc.source)
            removed.append(doc.source)
    return tuple(removed)
