"""Writing one document's rows: the document, its tags, chunks and FTS rows, or deleting them.

Both run inside the caller's write transaction (``Store.write()``), so that a document and its
chunks and FTS rows (``chunks_fts.rowid = chunks.id``) appear and go together.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from kb.store.meta import MetaKey, keys_under
from kb.store.textindex import index_body
from kb.types import ChunkDraft, DocumentRow, tag_key, unique_tags

MAX_ID = 2**62  # a recorded last id at or past this is a hand-edited row, not a count


def insert_document(c: sqlite3.Connection, doc: DocumentRow, chunks: Iterable[ChunkDraft],
                    warnings_after: Callable[[], Iterable[str]] | None = None) -> int:
    """Replace any document of ``doc.source`` with ``doc`` and ``chunks``; its id.

    ``warnings_after``, called once every chunk is written, gives warnings only the whole
    text tells (a streamed file's undecodable bytes); they are stored after ``doc.warnings``.

    A new version keeps the id of the one it replaces; its chunks get new ids. No id is ever
    given twice: a new document's and every chunk's id lie above the highest one given before
    (``MetaKey.LAST_IDS``), so a citation of a removed or replaced chunk is "not found", never
    another text (SQLite alone gives the highest id again once its row is deleted). ``chunks``
    may be a generator producing them as they are written.
    """
    old_id = delete_source(c, doc.source)  # which keeps its ids among those given
    last = _last_ids(c)
    if old_id is None:
        old_id = last["documents"] = last["documents"] + 1
    cur = c.execute(  # a new version keeps the document's id: `kb show doc:12` stays valid
        "INSERT INTO documents (id, source, source_type, title, content_hash, size, mtime, "
        "created_at, ingested_at, status, warnings, models_pending) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (old_id, doc.source, doc.source_type, doc.title,
         doc.content_hash, doc.size, doc.mtime,
         doc.created_at.isoformat(), datetime.now(UTC).isoformat(),
         "pending_models" if doc.models_pending else "pending_vectors",
         json.dumps(list(doc.warnings), ensure_ascii=False), int(doc.models_pending)))
    doc_id = int(cur.lastrowid or 0)
    c.executemany("INSERT INTO document_tags (doc_id, tag_key, tag, position) "
                  "VALUES (?,?,?,?)", [(doc_id, tag_key(t), t, i)
                                       for i, t in enumerate(unique_tags(doc.tags))])
    for i, ch in enumerate(chunks):
        last["chunks"] += 1
        c.execute(
            "INSERT INTO chunks (id, doc_id, chunk_index, text, context_prefix, char_start, "
            "char_end, page, page_end, heading_path) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (last["chunks"], doc_id, i, ch.text, ch.context_prefix, ch.char_start, ch.char_end,
             ch.page, ch.page if ch.page_end is None else ch.page_end,
             json.dumps(list(ch.heading_path), ensure_ascii=False)))
        c.execute("INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)",
                  (last["chunks"], index_body(ch.context_prefix, ch.text)))
    _save_last_ids(c, last)
    if late := list(warnings_after() if warnings_after else ()):
        c.execute("UPDATE documents SET warnings = ? WHERE id = ?",
                  (json.dumps([*doc.warnings, *late], ensure_ascii=False), doc_id))
    return doc_id


def _save_last_ids(c: sqlite3.Connection, last: dict[str, int]) -> None:
    c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
              (MetaKey.LAST_IDS, json.dumps(last)))


def _last_ids(c: sqlite3.Connection) -> dict[str, int]:
    """The highest document and chunk ids given so far: those recorded, or the rows' own."""
    row = c.execute("SELECT value FROM meta WHERE key = ?", (MetaKey.LAST_IDS,)).fetchone()
    try:
        kept = json.loads(row[0]) if row else {}
        kept = {k: int(kept[k]) for k in ("documents", "chunks")}
        if not all(0 <= v < MAX_ID for v in kept.values()):
            raise ValueError(kept)
    except (ValueError, TypeError, KeyError, OverflowError):  # none yet (an index from
        kept = {"documents": 0, "chunks": 0}  # before), or a hand-edited row: the rows' own
    rows = c.execute("SELECT (SELECT coalesce(max(id), 0) FROM documents), "
                     "(SELECT coalesce(max(id), 0) FROM chunks)").fetchone()
    return {"documents": max(kept["documents"], rows[0]), "chunks": max(kept["chunks"], rows[1])}


def delete_source(c: sqlite3.Connection, source: str) -> int | None:
    """Delete the document of ``source`` with its chunks, FTS rows and tags; its id, or ``None``.

    (Its vectors live in its chunks' rows and go with them.)
    """
    row = c.execute("SELECT id FROM documents WHERE source = ?", (source,)).fetchone()
    if row is None:
        return None
    _save_last_ids(c, _last_ids(c))  # its ids, if the highest, are never given again
    c.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)",
              (row[0],))
    c.execute("DELETE FROM chunks WHERE doc_id = ?", (row[0],))
    c.execute("DELETE FROM document_tags WHERE doc_id = ?", (row[0],))
    c.execute("DELETE FROM documents WHERE id = ?", (row[0],))
    return int(row[0])


def sources_under(c: sqlite3.Connection, folders: Iterable[str]) -> list[str]:
    """The sources of the documents under any of the absolute ``folders``, sorted, distinct.

    Reads each folder's range of the ``documents.source`` index alone
    (``kb.store.meta.keys_under``): no chunk count or tags, as ``Store.documents`` reads for
    each document.
    """
    found: set[str] = set()
    for folder in folders:
        low, high = keys_under(folder.rstrip("/"))
        found.update(r[0] for r in c.execute(
            "SELECT source FROM documents WHERE source >= ? AND source < ?", (low, high)))
    return sorted(found)
