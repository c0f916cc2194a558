"""A write transaction an interrupt left open is undone by the next write (kb.store.connection).

A Ctrl-C landing between a ``BEGIN IMMEDIATE`` and the body that writes left the writer
connection in a transaction: the ingest's own report of what was committed then failed with
"cannot start a transaction within a transaction" and a traceback (a fresh clone's suite caught
it, once in several runs). Real SQLite files throughout.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kb.store.connection import immediate


def test_a_transaction_left_open_is_rolled_back_before_the_next(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("BEGIN IMMEDIATE")  # interrupted here: its body never ran to COMMIT
    conn.execute("INSERT INTO notes VALUES ('half-written')")
    with immediate(conn, path) as c:
        c.execute("INSERT INTO notes VALUES ('whole')")
    assert not conn.in_transaction
    other = sqlite3.connect(path)  # what another reader sees: only the committed row
    assert other.execute("SELECT text FROM notes").fetchall() == [("whole",)]


def test_keys_under_bound_whole_path_segments():
    from kb.store.meta import keys_under

    low, high = keys_under("/notes", "device:")
    inside = ["device:/notes/a", "device:/notes/sub/b.md", "device:/notes/~x"]
    outside = ["device:/notes", "device:/notes-private/b.md", "device:/notes0", "device:/note"]
    assert all(low <= k < high for k in inside)
    assert not any(low <= k < high for k in outside)
    assert keys_under("/n") == ("/n/", "/n0")
