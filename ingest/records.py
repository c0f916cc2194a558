"""Index in-memory texts (an evaluation corpus, a benchmark's records) as plain-text documents."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

from kb.config import ChunkSettings
from kb.ingest.chunk import chunk_document
from kb.ingest.pipeline import write_document
from kb.store import Store
from kb.types import Block, DocumentRow, ExtractedDocument


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
        # One-line titles keep plain prefixes one line (see kb.ingest.contextualize).
        doc = ExtractedDocument(title=" ".join(title.split()) or source, blocks=(Block(body),),
                                source_type="txt")
        row = DocumentRow(source=source, source_type=doc.source_type, title=doc.title,
                          content_hash=digest, size=len(text.encode()),
                          mtime=created.timestamp(), created_at=created)
        if write_document(store, row, chunk_document(doc, chunk)):
            written += 1
    return written


__all__ = ["ingest_records"]
