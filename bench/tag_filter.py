"""The cost of the tag filter (``Filters.tag_keys``) at 100,000 documents: why an indexed table.

Builds a kb schema with the real migrations (``kb.store.schema.migrate``) in a temporary file,
fills ``documents`` and migration 6's ``document_tags`` (each document 3 tags drawn from
``--vocabulary`` tags), and times, each the best of ``--repeat`` runs, the documents a filter of
two tags keeps, with the WHERE fragment the searches use (``kb.store.search.Filters.sql``):
with the index ``document_tags_key``, without it, and with the tags kept as a JSON column of
``documents`` read by ``json_each`` (the shape not chosen).

Usage: python bench/tag_filter.py [--documents 100000] [--vocabulary 2000] [--repeat 10]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from kb.store.schema import migrate
from kb.store.search import Filters

NOW = "2026-12-01T00:00:00+00:00"


def best_ms(conn: sqlite3.Connection, sql: str, params: list[str], repeat: int
            ) -> tuple[float, int]:
    """The fastest of ``repeat`` runs in milliseconds, and the number of rows returned."""
    best, rows = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        rows = len(conn.execute(sql, params).fetchall())
        best = min(best, time.perf_counter() - start)
    return best * 1000, rows


def main() -> None:
    """Build the index, time the three shapes, print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--vocabulary", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(1)
    vocabulary = [f"tag{i}" for i in range(args.vocabulary)]
    with tempfile.TemporaryDirectory() as folder:
        conn = sqlite3.connect(Path(folder) / "tags.db", isolation_level=None)
        migrate(conn)
        conn.execute("ALTER TABLE documents ADD COLUMN tags_json TEXT")  # the shape not chosen
        docs, tags = [], []
        for doc_id in range(1, args.documents + 1):
            drawn = rng.sample(vocabulary, 3)
            docs.append((doc_id, f"/notes/{doc_id}.md", "md", "t", "h", 1, 0.0, NOW, NOW,
                         "indexed", json.dumps(drawn)))
            tags += [(doc_id, tag, tag, i) for i, tag in enumerate(drawn)]
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO documents (id, source, source_type, title, content_hash, "
                         "size, mtime, created_at, ingested_at, status, tags_json) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?)", docs)
        conn.executemany("INSERT INTO document_tags VALUES (?,?,?,?)", tags)
        conn.execute("COMMIT")
        where, params = Filters(tag_keys=("tag7", "tag1234")).sql()
        query = f"SELECT d.id FROM documents d WHERE {where}"
        indexed = best_ms(conn, query, params, args.repeat)
        conn.execute("DROP INDEX document_tags_key")
        unindexed = best_ms(conn, query, params, args.repeat)
        as_json = best_ms(conn, "SELECT d.id FROM documents d WHERE EXISTS (SELECT 1 FROM "
                          "json_each(d.tags_json) WHERE value IN (?, ?))", params, args.repeat)
        conn.close()
    print(json.dumps({"documents": args.documents, "kept": indexed[1],
                      "indexed_ms": round(indexed[0], 2), "no_index_ms": round(unindexed[0], 2),
                      "json_column_ms": round(as_json[0], 2)}))


if __name__ == "__main__":
    main()
