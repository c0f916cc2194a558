"""`kb compact`: the space of removed documents given back, nothing else changed.

A trial: a 15,947-chunk document removed left its index at 36 MB for 7 chunks. Real SQLite
files through the real ``kb`` command (BM25 only).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import write

from kb.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["--embedder", "none", *args])


def _chunks(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()


def test_compact_gives_back_the_space_of_a_removed_document(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    note = write(tmp_path / "notes" / "kites.md", "# Kites\n\nBox kites were invented by "
                                                  "Lawrence Hargrave in 1893.\n")
    words = "alpha beta gamma delta river stone lantern meadow".split()
    big = write(tmp_path / "notes" / "big.txt",
                " ".join(words[(i * 7) % len(words)] + str(i % 97) for i in range(150_000)))
    assert run("--db", str(db), "ingest", str(tmp_path / "notes")).exit_code == 0
    assert run("--db", str(db), "rm", str(big)).exit_code == 0
    kept = _chunks(db)
    r = run("--db", str(db), "compact", "--json")
    assert r.exit_code == 0, r.output
    sizes = json.loads(r.output)
    assert sizes["bytes_after"] < sizes["bytes_before"] / 3, sizes
    assert sizes["cached_vectors_dropped"] == 0  # BM25 only: no vector was computed
    assert db.stat().st_size == sizes["bytes_after"]
    assert _chunks(db) == kept  # ids and text as they were
    found = json.loads(run("--db", str(db), "search", "who invented the box kite", "--json")
                       .output)
    assert [ref["source"] for ref in found["references"]][:1] == [str(note.resolve())]
    assert run("--db", str(db), "status").exit_code == 0  # full-text integrity holds
    r = run("--db", str(db), "compact")
    assert r.exit_code == 0 and r.output.startswith(f"compacted {db}: "), r.output


def test_compact_of_a_missing_index_is_one_line(tmp_path: Path) -> None:
    r = run("--db", str(tmp_path / "none.db"), "compact")
    assert r.exit_code != 0 and r.output.count("\n") == 1 and "Traceback" not in r.output
    assert not (tmp_path / "none.db").exists()


@pytest.mark.slow  # waits out the 10 s busy timeout
def test_compact_while_another_process_writes_fails_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    write(tmp_path / "notes" / "kites.md", "# Kites\n\nBox kites fly.\n")
    assert run("--db", str(db), "ingest", str(tmp_path / "notes")).exit_code == 0
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another kb process in the middle of a write
        r = run("--db", str(db), "compact")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert r.exit_code == 1 and r.output.count("\n") == 1, r.output
    assert f"{db}: cannot compact: database is locked" in r.output
    assert len(_chunks(db)) == 1


def test_compact_drops_the_cached_vectors_of_removed_texts_only(tmp_path: Path) -> None:
    # a trial: `kb rm` and `kb compact` of a 15,000-chunk file left its 15,177 cached vectors
    # (31 MB) in embedding_cache; the vectors of chunks still held stay (they are the live ones)
    db = tmp_path / "kb.db"
    write(tmp_path / "notes" / "kites.md", "# Kites\n\nBox kites were invented by Lawrence "
          "Hargrave in 1893.\n")
    gone = write(tmp_path / "notes" / "bees.md", "# Bees\n\nHoneybees dance to show where "
                 "the food is.\n")
    r = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(tmp_path / "notes")])
    assert r.exit_code == 0, r.output

    def cache() -> int:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT count(*) FROM embedding_cache").fetchone()[0]

    kept = cache()
    assert kept == len(_chunks(db)) == 2
    assert run("--db", str(db), "rm", str(gone)).exit_code == 0
    assert cache() == 2  # kept for a text ingested again
    r = run("--db", str(db), "compact", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["cached_vectors_dropped"] == 1 and cache() == 1
    with sqlite3.connect(db) as conn:  # the one left is the kite chunk's own vector
        assert conn.execute("SELECT count(*) FROM embedding_cache WHERE vector IN "
                            "(SELECT embedding FROM chunks)").fetchone()[0] == 1
    r = run("--db", str(db), "compact")
    assert r.exit_code == 0 and "cached vectors" not in r.output  # nothing more to drop
