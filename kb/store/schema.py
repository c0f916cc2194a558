"""Numbered, append-only schema migrations (never edit one that has shipped).

Each migration runs in its own transaction and is recorded in ``migrations``;
``PRAGMA user_version`` follows the latest applied number. Modelled on
sqlite-utils' migrations (https://github.com/simonw/sqlite-utils).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from kb.errors import SchemaError
from kb.store import bitbuild
from kb.store.connection import run_once
from kb.store.upkeep import upkeep

Migration = Callable[[sqlite3.Connection], None]


def _run(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction first; run statements one by one.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def _m001_initial(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL UNIQUE,
            source_type TEXT NOT NULL,
            title TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            created_at TEXT NOT NULL,
            ingested_at TEXT NOT NULL,
            status TEXT NOT NULL,
            warnings TEXT NOT NULL DEFAULT '[]'
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            chunk_index INTEGER NOT NULL,
            text TEXT NOT NULL CHECK (length(trim(text)) > 0 AND instr(text, char(0)) = 0),
            context_prefix TEXT NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL,
            page INTEGER,
            heading_path TEXT NOT NULL DEFAULT '[]',
            embedding BLOB,
            embedding_fingerprint TEXT,
            UNIQUE (doc_id, chunk_index)
        );
        CREATE INDEX chunks_doc ON chunks(doc_id);
        CREATE INDEX chunks_fingerprint ON chunks(embedding_fingerprint);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            body, tokenize = 'unicode61 remove_diacritics 0'
        );
        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            completion TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE embedding_cache (key TEXT PRIMARY KEY, vector BLOB NOT NULL);
        """
    )


def _m002_vector_staging(conn: sqlite3.Connection) -> None:
    """Staging area for ``kb reembed``: vectors of the next model, built beside the live ones.

    One row per chunk (the re-embed target's fingerprint is recorded with each vector); rows go
    with their chunk (``ON DELETE CASCADE``). ``kb.store.vectors.switch`` moves them into
    ``chunks.embedding`` in one transaction once every chunk has one, then empties the table.
    """
    _run(
        conn,
        """
        CREATE TABLE chunk_vectors_staging (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            fingerprint TEXT NOT NULL,
            embedding BLOB NOT NULL
        )
        """
    )


def _m003_fts_keeps_marks(conn: sqlite3.Connection) -> None:
    """FTS5 keeps combining marks inside tokens (Thai, Lao, Khmer, Myanmar vowels and tones).

    ``unicode61`` takes only categories ``L* N* Co`` as token characters by default
    (https://www.sqlite.org/fts5.html#unicode61_tokenizer), so it cut kb's Thai tokens at every
    vowel sign. The table is made anew, empty, and the tokenizer fingerprint is forgotten:
    ``kb.store.Store`` then indexes every chunk again at open (one transaction).
    """
    _run(
        conn,
        """
        DROP TABLE chunks_vocab;
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            body, tokenize = 'unicode61 remove_diacritics 0 categories ''L* N* Co M*'''
        );
        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        DELETE FROM meta WHERE key = 'tokenizer_fingerprint'
        """
    )


def _m004_models_pending_column(conn: sqlite3.Connection) -> None:
    """Unfinished model stages become a column, ``documents.models_pending`` (0 or 1).

    Until now the marker was the suffix ``+pending`` on ``documents.content_hash`` (so the next
    ingest saw a changed file and redid it); the suffix is moved into the column and removed
    from the hash, which is the file's SHA-256 again.
    """
    _run(
        conn,
        """
        ALTER TABLE documents ADD COLUMN models_pending INTEGER NOT NULL DEFAULT 0
            CHECK (models_pending IN (0, 1));
        UPDATE documents SET models_pending = 1,
            content_hash = substr(content_hash, 1, length(content_hash) - length('+pending'))
            WHERE substr(content_hash, -length('+pending')) = '+pending'
        """
    )


def _m005_file_problems(conn: sqlite3.Connection) -> None:
    """Files (and folders) an ingest could not index, remembered until they change.

    One row per source: its size and modification time when the problem was met (-1 and 0
    for a folder), and the reason reported. ``kb.store.problems`` reads and writes it.
    """
    _run(
        conn,
        """
        CREATE TABLE file_problems (
            source TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            reason TEXT NOT NULL,
            reported_at TEXT NOT NULL
        )
        """
    )


def _m006_document_tags(conn: sqlite3.Connection) -> None:
    """A document's tags (Markdown front matter), one row per tag, for display and for scope.

    ``tag`` is the spelling the document uses, ``tag_key`` its ``kb.types.tag_key`` (case-folded:
    what a search's ``tags`` filter compares), ``position`` its place in the document's list.
    The key ``(doc_id, tag_key)`` keeps a tag once per document and orders a document's rows
    together; the index ``(tag_key, doc_id)`` answers a filter's
    ``d.id IN (SELECT doc_id FROM document_tags WHERE tag_key IN (...))`` by a range read per
    tag: at 100,000 documents of 3 tags each, a two-tag filter took 0.12 ms with it, 66 ms
    without it, and 233 ms with the tags as a JSON column of ``documents`` read by
    ``json_each`` (``bench/tag_filter.py``). Rows go with their document (``ON DELETE
    CASCADE``; ``Store`` also deletes them when it replaces or deletes a document). Markdown
    documents indexed before this migration lose their ``content_hash`` (an empty string no
    file hashes to), so the next ingest reads them again and records their tags (their chunks'
    vectors come back from the embedding cache); other documents carry no tags.
    """
    _run(
        conn,
        """
        CREATE TABLE document_tags (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            tag_key TEXT NOT NULL CHECK (length(tag_key) > 0),
            tag TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (doc_id, tag_key)
        ) WITHOUT ROWID;
        CREATE INDEX document_tags_key ON document_tags(tag_key, doc_id);
        UPDATE documents SET content_hash = '' WHERE source_type = 'md'
        """
    )


def _m007_chunk_bits(conn: sqlite3.Connection) -> None:
    """The bit index of stores past the exact scan (``kb.store.bitindex``): one row per chunk.

    ``bits`` are the sign bits of the chunk's live vector minus the index's centring mean,
    ``grp`` its baseline group and ``doc_id`` its document, so loading the index never reads
    the chunks table's text or float32 vectors. A row leaves with its chunk, and with its
    vector when the vector changes (triggers); the writers of vectors write the new bits in
    the same transaction.
    """
    _run(conn, "CREATE TABLE chunk_bits (chunk_id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, "
               "grp INTEGER NOT NULL, bits BLOB NOT NULL)")
    # a trigger's body holds semicolons, so each runs alone (``_run`` splits on them)
    conn.execute("CREATE TRIGGER chunk_bits_chunk_deleted AFTER DELETE ON chunks BEGIN "
                 "DELETE FROM chunk_bits WHERE chunk_id = old.id; END")
    conn.execute("CREATE TRIGGER chunk_bits_vector_changed AFTER UPDATE OF embedding ON chunks "
                 "WHEN new.embedding IS NOT old.embedding BEGIN "
                 "DELETE FROM chunk_bits WHERE chunk_id = new.id; END")


def _m008_chunk_codes(conn: sqlite3.Connection) -> None:
    """Int8 codes beside the bits (``kb.store.bitindex``): ``chunk_bits.codes``, one per row.

    A bit index built before this migration has no codes and no int8 scales: it is rebuilt
    here, for the fingerprint its stamp in ``meta`` names (``kb.store.bitbuild.rebuild``, in
    this migration's transaction: about 9 s at 1M vectors, ``bench/README.md``), so a store
    past the exact scan keeps its index rather than scanning 1.5 GB of float32 until the next
    ingest. The stamp says an index existed, which is what the threshold (a setting of the
    process, unknown here) decided when it was built; an index is kept below it too. The
    rebuild is this kb's: a later migration that changes ``chunk_bits`` must make this one
    drop the index instead (``kb.store.bitindex.ensure`` then rebuilds it at the next ingest).

    A kb process that opened the file before this migration (an old ``kb serve``) would go on
    writing rows without codes, which no search could load: trigger ``chunk_bits_need_codes``
    refuses them, so that process's write transaction fails with the reason and rolls back
    whole (its vectors with it; nothing is lost: the next ingest of a current kb writes them).
    """
    stamp = conn.execute("SELECT value FROM meta WHERE key = 'bits_mean'").fetchone()
    conn.execute("ALTER TABLE chunk_bits ADD COLUMN codes BLOB")
    conn.execute("DELETE FROM chunk_bits")
    conn.execute("DELETE FROM meta WHERE key = 'bits_mean'")
    conn.execute("CREATE TRIGGER chunk_bits_need_codes BEFORE INSERT ON chunk_bits "
                 "WHEN new.codes IS NULL BEGIN SELECT RAISE(ABORT, 'chunk_bits: a row without "
                 "int8 codes, written by a kb process older than schema 8 (opened before the "
                 "upgrade); stop it and start the current kb'); END")
    if stamp is not None:
        bitbuild.rebuild(conn, json.loads(stamp[0])["fingerprint"])


def _m009_chunk_page_end(conn: sqlite3.Connection) -> None:
    """The last page a chunk's text covers: ``chunks.page_end`` (nullable, 1-based).

    The chunker joins a short piece at a page's end or start to its neighbour on the next or
    previous page; ``page`` alone then cited one of the two. A chunk written from now on has
    ``page_end`` (equal to ``page`` on one page, NULL without pages); a chunk written before
    has NULL, which reads as ``page`` (one page): the store reads ``COALESCE(page_end, page)``,
    so the store opens without re-indexing. PDF documents lose their ``content_hash`` (an empty
    string no file hashes to), so the next ingest reads them again and records the ranges
    (their chunks' vectors come back from the embedding cache); other formats have no pages.
    """
    _run(
        conn,
        """
        ALTER TABLE chunks ADD COLUMN page_end INTEGER;
        UPDATE documents SET content_hash = '' WHERE source_type = 'pdf'
        """
    )


MIGRATIONS: tuple[tuple[int, str, Migration], ...] = (
    (1, "initial", _m001_initial),
    (2, "vector staging", _m002_vector_staging),
    (3, "fts keeps combining marks", _m003_fts_keeps_marks),
    (4, "models_pending column", _m004_models_pending_column),
    (5, "file problems", _m005_file_problems),
    (6, "document tags", _m006_document_tags),
    (7, "chunk bits", _m007_chunk_bits),
    (8, "chunk codes", _m008_chunk_codes),
    (9, "chunk page end", _m009_chunk_page_end),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]


def check_schema(conn: sqlite3.Connection, *, writable: bool) -> set[int]:
    """Check, without writing, that ``conn``'s file is a kb database this kb can use.

    Args:
        conn: a connection to the file.
        writable: whether pending migrations can be applied; when not (a read-only file),
            a file that needs one is refused.

    Returns:
        The migration numbers already applied (empty for a new, empty file).

    Raises:
        SchemaError: another application's database (tables but no ``migrations``), a file
            written by a newer kb, or (``writable`` false) one that needs migrating.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and "migrations" not in tables:
        shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
        raise SchemaError(f"not a kb database: it already holds other tables ({shown}); "
                          "pass another --db")
    done = ({row[0] for row in conn.execute("SELECT version FROM migrations")}
            if tables else set())
    if done and max(done) > SCHEMA_VERSION:
        raise SchemaError(
            f"database schema version {max(done)} is newer than this kb ({SCHEMA_VERSION}); "
            "upgrade kb"
        )
    if not writable and {version for version, _, _ in MIGRATIONS} - done:
        raise SchemaError("read-only, and it needs a schema upgrade (or is empty): open it "
                          "once where it can be written")
    return done


def migrate(conn: sqlite3.Connection) -> list[int]:
    """Apply every migration not yet recorded, each in its own transaction.

    Args:
        conn: an autocommit connection (``isolation_level=None``).

    Then the data upkeep steps not yet run (``kb.store.upkeep``).

    Returns:
        The numbers of the migrations applied now (empty when up to date).

    Raises:
        SchemaError: the file was written by a newer kb (unknown migration numbers), or is
            another application's database (tables but no ``migrations``); nothing is written.
    """
    done = check_schema(conn, writable=True)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    applied = []
    for version, name, step in MIGRATIONS:
        def record(version: int = version, name: str = name) -> None:
            conn.execute("INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                         (version, name, datetime.now(UTC).isoformat()))
            conn.execute(f"PRAGMA user_version = {version}")

        if version not in done and run_once(conn, step, record, done=(
                "SELECT 1 FROM migrations WHERE version = ?", (version,))):
            applied.append(version)
    upkeep(conn)  # data steps that change no schema: a read-only file opens without them
    return applied
