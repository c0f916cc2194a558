"""Plain text in bounded pieces: read, decode, chunk and write without holding the file.

A 100 MB text file read, decoded, chunked and written whole peaked at 1.5 GB RSS; streamed it
stays near the process's idle size (``bench/ingest_memory.py``, ``bench/README.md``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from pathlib import Path

from kb.config import ChunkSettings
from kb.errors import EmptyDocumentError, ExtractError
from kb.ingest.chunk import chunk_stream
from kb.ingest.extract.common import guessed_warning
from kb.ingest.extract.text import (
    EMPTY_DOCUMENT,
    EMPTY_FILE,
    FRONT_MATTER_ONLY,
    TEXT_SUFFIXES,
    DecodedCounts,
    is_blank_text,
    iter_text,
)
from kb.ingest.report import WRITTEN_MEANWHILE
from kb.store import Store
from kb.types import ChunkDraft, DocumentRow, FileOutcome


def write_text_stream(store: Store, path: Path, row: DocumentRow, chunk: ChunkSettings, *,
                    updated: bool) -> FileOutcome:
    """Extract, chunk and write a plain-text file in bounded pieces (pipeline stages 3-5).

    The file is read, decoded, chunked and written piece by piece inside the one transaction
    that replaces the document (``Store.replace_if_changed``), so memory stays bounded whatever
    the file's size, and the old version is replaced atomically: a decoding error half-way
    rolls it all back and the old version stays.

    Args:
        store: the open store.
        path: the ``.txt`` file.
        row: the document's row (its title is the chunks' context prefix).
        chunk: chunk sizes.
        updated: whether a version of the file was indexed before (the outcome's action).

    Returns:
        ``added``/``updated`` with the chunks written (and warnings, also kept with the
        document, when the text holds too many undecodable characters, its encoding was
        guessed, or NUL and control characters were dropped: ``DecodedCounts``), ``skipped``
        ("empty file") for a file
        of whitespace only, or ``failed`` with the reason (the file's own: unreadable,
        undecodable, no text); nothing is written then.

    Raises:
        StoreError: a storage fault (disk full); nothing of the document was written.
    """
    counts = DecodedCounts()
    drafts = chunk_stream(row.title, iter_text(path, counts), chunk)
    written = 0

    def counted(first: ChunkDraft) -> Iterator[ChunkDraft]:
        nonlocal written
        for draft in itertools.chain((first,), drafts):
            written += 1
            yield draft

    def mixed() -> list[str]:  # undecodable bytes, counted once the whole text is read
        notes = [None if counts.guessed else counts.warning(),  # a guess is said first
                 counts.controls_warning()]
        return [n for n in notes if n]

    try:
        first = next(drafts, None)  # detects the encoding, reads up to the first chunk
        if first is None:
            return no_text_outcome(row.source, path, "no text to index")
        if counts.guessed:  # known from the first read: kept with the document (`kb docs`)
            row = dataclasses.replace(row, warnings=(*row.warnings, guessed_warning(
                counts.guessed)))
        if store.replace_if_changed(row, counted(first), mixed) is None:  # another ingest's
            return FileOutcome(row.source, "unchanged", reason=WRITTEN_MEANWHILE)
    except EmptyDocumentError as exc:
        return no_text_outcome(row.source, path, exc.reason)
    except ExtractError as exc:
        return FileOutcome(row.source, "failed", reason=exc.reason)
    # mixed encoding (indexed, with U+FFFD) and control characters dropped: said
    return FileOutcome(row.source, "updated" if updated else "added", chunks=written,
                       warnings=tuple(counts.warnings()))


def no_text_outcome(source: str, path: Path, reason: str) -> FileOutcome:
    """The outcome of a file without text to index.

    ``skipped`` ("empty file") when it is 0 bytes or whitespace only, a note of front matter
    alone or a DOCX without text or images (nothing was meant to be indexed, as for a broken
    symlink); otherwise ``failed``
    with ``reason`` (a scanned PDF, a page of markup only: content kb could not read).
    """
    if reason in (FRONT_MATTER_ONLY, EMPTY_DOCUMENT):  # a blank Word file: nothing meant
        return FileOutcome(source, "skipped", reason=reason)
    if path.suffix.lower() in TEXT_SUFFIXES and is_blank_text(path):
        return FileOutcome(source, "skipped", reason=EMPTY_FILE)
    return FileOutcome(source, "failed", reason=reason)

