"""Data upkeep: steps a new kb takes once on an index it can write, changing no schema.

A migration (``kb.store.schema``) changes the schema and its version, so a read-only index
or an older kb can no longer open the file; a step that only marks data to be read again
(documents an extractor now reads better) needs neither. Each step runs once per index, at
its first writable open by a kb that has it (``kb.store.schema.migrate`` calls ``upkeep``),
and is recorded in ``meta`` under ``upkeep:<name>``; never rename one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from kb.store.connection import run_once
from kb.store.meta import MetaKey


def _cjk_pdf_reread(conn: sqlite3.Connection) -> None:
    r"""Chinese and Japanese PDFs are read again: their wrapped lines are joined now.

    ``kb.ingest.extract.pdf`` joins a CJK paragraph's lines without the line break that split
    its words ("织\n造"), and keeps full-width punctuation. A PDF document with Han or kana
    text loses its ``content_hash`` (as in migration 9), so the next ingest of its folder reads
    it again; vectors of chunks whose text is unchanged come back from the embedding cache.
    Only PDF documents' chunks are read, each document's up to its first CJK one.
    """
    conn.execute(
        "UPDATE documents SET content_hash = '' WHERE source_type = 'pdf' AND EXISTS "
        "(SELECT 1 FROM chunks WHERE chunks.doc_id = documents.id AND "
        "(text GLOB '*[一-鿿]*' OR text GLOB '*[぀-ヿ]*'))")


def _docx_template_date_reread(conn: sqlite3.Connection) -> None:
    """DOCX documents dated by python-docx's blank template are read again.

    Their ``created_at`` (2013-12-23 23:15 UTC, ``kb.ingest.extract.dates.TEMPLATE_STAMPS``)
    is no date; read again, they take their file's time.
    """
    conn.execute("UPDATE documents SET content_hash = '' WHERE source_type = 'docx' AND "
                 "created_at LIKE '2013-12-23T23:15:00%'")


def _pdf_structure_reread(conn: sqlite3.Connection) -> None:
    """PDF documents are read again: their tables and sections are read now.

    ``kb.ingest.extract.pdf_tables`` writes a ruled table's row on one line ("营业收入（元） |
    4,755,785.11 | 5,699,227.63 | -16.55%") where pdfminer had a line per cell, and
    ``kb.ingest.extract.pdf_outline`` cuts a bookmarked PDF's pages into its sections, each
    under its heading path. Which PDFs hold either is not known without reading them, so
    every PDF document loses its ``content_hash``; those with neither come back with the same
    chunks, their vectors from the embedding cache.
    """
    conn.execute("UPDATE documents SET content_hash = '' WHERE source_type = 'pdf'")


def _pdf_sections_reread(conn: sqlite3.Connection) -> None:
    """PDF documents are read again: their numbered sections, continued tables and lines.

    A PDF without an outline is cut at its numbered headings set apart from its body
    (``kb.ingest.extract.pdf_headings``); a table continued on the next page gets its header
    there (``kb.ingest.extract.pdf_tables.continued``); its chunks are cut where a line ends
    a sentence (``kb.ingest.chunk``). Every PDF document loses its ``content_hash``; chunks
    whose text is unchanged keep their vectors (the embedding cache), but the new cuts move
    most of a long PDF's chunks, so its chunks are mostly embedded again, once.
    """
    conn.execute("UPDATE documents SET content_hash = '' WHERE source_type = 'pdf'")


UPKEEP: tuple[tuple[str, Callable[[sqlite3.Connection], None]], ...] = (
    ("cjk-pdf-reread", _cjk_pdf_reread),
    ("docx-template-date-reread", _docx_template_date_reread),
    ("pdf-structure-reread", _pdf_structure_reread),
    ("pdf-sections-reread", _pdf_sections_reread),
)
UPKEEP_PREFIX = MetaKey.UPKEEP.value


def upkeep(conn: sqlite3.Connection) -> list[str]:
    """Run each ``UPKEEP`` step not yet recorded, each in its own transaction.

    Args:
        conn: an autocommit connection (``isolation_level=None``) to a migrated file.

    Returns:
        The names of the steps run now.
    """
    ran = []
    for name, step in UPKEEP:
        key = UPKEEP_PREFIX + name
        done: tuple[str, tuple[object, ...]] = ("SELECT 1 FROM meta WHERE key = ?", (key,))

        def record(key: str = key) -> None:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)",
                         (key, datetime.now(UTC).isoformat()))

        if not conn.execute(*done).fetchone() and run_once(conn, step, record, done=done):
            ran.append(name)
    return ran
