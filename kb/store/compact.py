"""Give the space of removed documents back to the file system (``kb compact``).

SQLite keeps the pages a delete frees inside the file for later writes: an index that held a
huge document keeps its size after ``kb rm`` (a trial: 36 MB for 7 chunks). ``VACUUM``
rewrites the file without them (SQLite's documentation, "VACUUM"); every table kb keeps a
row id of has an explicit ``INTEGER PRIMARY KEY``, which ``VACUUM`` preserves, so chunk ids,
full-text rows and vectors stay as they were.

The vectors ``kb.store.embedding_cache`` keeps of texts no chunk holds any more (a removed
document's, an old model's) go first: a trial's 5 MB one-line file left 31 MB of them behind
``kb rm``. A document ingested again after that is embedded again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kb.errors import StoreError
from kb.store import Store
from kb.store.connection import connect

# cached vectors equal to no chunk's vector, live or staged (a removed text's, an old model's)
_UNUSED_CACHE = ("DELETE FROM embedding_cache WHERE vector NOT IN (SELECT embedding FROM chunks "
                 "WHERE embedding IS NOT NULL UNION ALL SELECT embedding FROM "
                 "chunk_vectors_staging)")


def file_bytes(path: Path) -> int:
    """The bytes of the index file and its ``-wal`` file (0 for one not there)."""
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal"))
               if p.exists())


def compact(store: Store) -> tuple[int, int, int]:
    """Rewrite the index file without its free pages.

    Drops the cached vectors that no chunk's live or staged vector equals, then rewrites.
    Runs on its own connection, outside any transaction (``VACUUM`` needs one alone), and
    folds the write-ahead log into the file before and after.

    Returns:
        (bytes before, bytes after, cached vectors dropped).

    Raises:
        StoreError: the file is read-only, or another connection (a ``kb watch`` or ``kb
            serve`` on the same index) kept it busy past the busy timeout; nothing changed,
            unless the busy connection came after the unused cached vectors were dropped
            (they are then gone, the file not yet rewritten: the next run finishes it).
    """
    if store.read_only:
        raise StoreError(f"{store.path}: read-only (the file or its folder cannot be written): "
                         "cannot compact", path=store.path)
    before = file_bytes(store.path)
    conn = connect(store.path, "rw")
    try:
        with conn:  # one transaction: a busy index changes nothing
            dropped = conn.execute(_UNUSED_CACHE).rowcount
        for sql in ("PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
            conn.execute(sql)
    except sqlite3.OperationalError as exc:
        raise StoreError(f"{store.path}: cannot compact: {exc} (is a `kb watch` or `kb serve` "
                         "using this index? stop it and run again)", path=store.path) from None
    finally:
        conn.close()
    return before, file_bytes(store.path), dropped


__all__ = ["compact", "file_bytes"]
