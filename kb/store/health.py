"""Integrity at open: SQLite's quick_check, the full-text index's health, orphan rows.

``Store.repair`` (``kb.store``) runs these at every open, in this order: ``quick_check``
(damaged b-trees: the file is refused), ``fts_problem`` (a damaged full-text index: rebuilt by
``rebuild_fts`` where the file can be written), ``orphans_found`` (rows a crash of an old kb
could leave: removed by ``fix_orphans``).

SQLite's ``quick_check`` sees damaged b-trees, not a damaged FTS5 index: its shadow tables
(``chunks_fts_data``, ``_idx``, ``_docsize``, ``_content``, ``_config``) are ordinary tables
whose rows FTS5 decodes itself. A row deleted or overwritten there makes searches fail
("database disk image is malformed") or, worse, find nothing at all.

``fts_problem`` reads the whole index once through ``chunks_vocab`` (every term and doclist:
0.15-0.19 s at 100,000 chunks here, against 0.46-0.65 s for FTS5's ``integrity-check``, which
also tokenizes every row again) and checks it against the totals FTS5 keeps: the number of
rows in the totals record (``chunks_fts_data`` id 1), ``_docsize`` and ``_content`` must agree,
and the tokens counted in the doclists must equal the total in the totals record. It does not
compare the index with the text of every row (that is ``integrity-check``, run by ``kb status``).

``rebuild_fts`` drops the index and indexes every chunk again, inside the caller's write
transaction; an index too damaged for FTS5 to load (its configuration or structure record gone)
is first given those of a new, empty one, so that it can be dropped.
"""

from __future__ import annotations

import sqlite3

from kb.store.meta import MetaKey
from kb.store.textindex import TOKENIZER_FINGERPRINT, index_body

# The tables of migration 3 (kb.store.schema): the index, and its vocabulary (term -> chunks).
FTS_TABLE_SQL = ("CREATE VIRTUAL TABLE chunks_fts USING fts5(body, tokenize = "
                 "'unicode61 remove_diacritics 0 categories ''L* N* Co M*''')")
VOCAB_TABLE_SQL = "CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row')"
_SHADOWS = ("config", "data", "idx", "docsize", "content")
_ORPHANS_SQL = """
SELECT EXISTS (SELECT 1 FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents))
    OR EXISTS (SELECT 1 FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks))
    OR EXISTS (SELECT 1 FROM chunks WHERE id NOT IN (SELECT rowid FROM chunks_fts))
    OR EXISTS (SELECT 1 FROM chunk_vectors_staging WHERE chunk_id NOT IN (SELECT id FROM chunks))
"""
_TOTALS_ROWID = 1  # FTS5_AVERAGES_ROWID (sqlite ext/fts5/fts5Int.h): rows and tokens per column


def _varints(blob: bytes) -> list[int]:
    """The SQLite varints (big-endian, 7 bits a byte, 9th byte whole) in ``blob``."""
    out: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def fts_row_count(conn: sqlite3.Connection) -> int:
    """Rows in the full-text index as FTS5's ``bm25()`` counts them: its totals record (one read).

    Raises:
        sqlite3.DatabaseError: the index cannot be read.
    """
    totals = conn.execute("SELECT block FROM chunks_fts_data WHERE id = ?",
                          (_TOTALS_ROWID,)).fetchone()
    return (_varints(bytes(totals[0])) + [0])[0] if totals and totals[0] is not None else 0


def fts_problem(conn: sqlite3.Connection) -> str | None:
    """What is wrong with the full-text index, or ``None`` when it reads whole (only reads).

    Returns:
        One line, e.g. ``its doclists hold 0 tokens where its totals record 600``.
    """
    try:
        docsize = conn.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0]
        content = conn.execute("SELECT count(*) FROM chunks_fts_content").fetchone()[0]
        totals = conn.execute("SELECT block FROM chunks_fts_data WHERE id = ?",
                              (_TOTALS_ROWID,)).fetchone()
        tokens = conn.execute("SELECT coalesce(sum(cnt), 0) FROM chunks_vocab").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return f"it cannot be read ({exc})"
    if totals is None or totals[0] is None:
        return "its totals record is missing"
    rows, total = (_varints(bytes(totals[0])) + [0, 0])[:2]  # a new index: an empty record
    if not rows == docsize == content:
        return (f"its parts disagree on the number of rows (totals {rows}, sizes {docsize}, "
                f"texts {content})")
    if tokens != total:
        return f"its doclists hold {tokens} tokens where its totals record {total}"
    return None


def rebuild_fts(c: sqlite3.Connection) -> int:
    """Drop the full-text index and index every chunk again (inside a write transaction).

    Also records the tokenizer fingerprint the new index was built with.

    Returns:
        The chunks indexed.
    """
    try:
        c.execute("DROP TABLE IF EXISTS chunks_vocab")
        c.execute("DROP TABLE IF EXISTS chunks_fts")
    except sqlite3.DatabaseError:  # FTS5 cannot load it: give it a blank one's records first
        c.execute("CREATE VIRTUAL TABLE temp.kb_fts_blank USING fts5(body)")
        for part in _SHADOWS:
            c.execute(f"CREATE TABLE IF NOT EXISTS chunks_fts_{part} AS "
                      f"SELECT * FROM temp.kb_fts_blank_{part} WHERE 0")
        c.execute("INSERT OR REPLACE INTO chunks_fts_config SELECT * FROM temp.kb_fts_blank_config")
        c.execute("INSERT OR REPLACE INTO chunks_fts_data SELECT * FROM temp.kb_fts_blank_data")
        c.execute("DROP TABLE temp.kb_fts_blank")
        c.execute("DROP TABLE chunks_fts")
    c.execute(FTS_TABLE_SQL)
    c.execute(VOCAB_TABLE_SQL)
    n = c.executemany("INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)", (
        (cid, index_body(prefix, text)) for cid, prefix, text in
        c.execute("SELECT id, context_prefix, text FROM chunks"))).rowcount
    c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
              (MetaKey.TOKENIZER_FINGERPRINT, TOKENIZER_FINGERPRINT))
    return max(n, 0)


def quick_check(conn: sqlite3.Connection) -> str | None:
    """SQLite's ``PRAGMA quick_check``: ``None`` when it passes, else its first findings."""
    problems = [line for r in conn.execute("PRAGMA quick_check")
                for line in str(r[0]).splitlines() if line.strip() and "***" not in line]
    if problems == ["ok"]:
        return None
    return "; ".join(problems[:2]) + (f" (+{len(problems) - 2} more)" if len(problems) > 2
                                      else "")


def orphans_found(conn: sqlite3.Connection) -> bool:
    """Whether any chunk lacks its document or FTS row, or an FTS row or staged vector its chunk."""
    return bool(conn.execute(_ORPHANS_SQL).fetchone()[0])


def fix_orphans(c: sqlite3.Connection) -> dict[str, int]:
    """Remove orphan chunks, FTS rows and staged vectors; index chunks missing from FTS.

    Runs inside the caller's write transaction.

    Returns:
        Rows fixed per kind: ``orphan_chunks``, ``orphan_fts``, ``orphan_staged``,
        ``missing_fts``.
    """
    fixed = {"orphan_chunks": c.execute(
        "DELETE FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)").rowcount}
    fixed["orphan_fts"] = c.execute(
        "DELETE FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks)").rowcount
    fixed["orphan_staged"] = c.execute(
        "DELETE FROM chunk_vectors_staging WHERE chunk_id NOT IN (SELECT id FROM chunks)").rowcount
    missing = c.execute("SELECT id, context_prefix, text FROM chunks "
                        "WHERE id NOT IN (SELECT rowid FROM chunks_fts)").fetchall()
    c.executemany("INSERT INTO chunks_fts(rowid, body) VALUES (?, ?)",
                  [(cid, index_body(prefix, text)) for cid, prefix, text in missing])
    fixed["missing_fts"] = len(missing)
    return fixed


def integrity_ok(conn: sqlite3.Connection) -> bool:
    """FTS5's own ``integrity-check`` passes: the index held against every row's text.

    Every row is tokenized again (0.65 s at 100,000 chunks); an INSERT command, so not on a
    read-only file.
    """
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    except sqlite3.DatabaseError:
        return False
    return True
