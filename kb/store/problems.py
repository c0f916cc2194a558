"""Files and folders an ingest could not index, remembered so each is reported once.

A file that failed (an encrypted PDF, a DOCX without text, an extraction that ran out of
time) is recorded with its size and modification time; while both stay the same, later
ingests skip it with the remembered reason instead of reading it again, and a sync does not
fail on it. A folder the walk could not read is recorded with size -1. A record goes when the
file is indexed, changes, or is no longer met under the folder synced. Records change no
search result: writing them does not bump the index generation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from kb.store import Store
from kb.store.meta import keys_under

FOLDER_SIZE = -1  # the size recorded for a folder's problem


@dataclass(frozen=True, slots=True)
class Problem:
    """A remembered problem.

    Attributes:
        source: the file's or folder's path.
        size: the file's size in bytes when it was met, ``FOLDER_SIZE`` for a folder.
        mtime: its modification time (Unix seconds), 0 for a folder.
        reason: the reason reported then.
        reported_at: when it was first reported (UTC).
    """

    source: str
    size: int
    mtime: float
    reason: str
    reported_at: datetime


_SELECT = "SELECT source, size, mtime, reason, reported_at FROM file_problems"


def _problem(row: tuple[str, int, float, str, str]) -> Problem:
    return Problem(row[0], row[1], row[2], row[3], datetime.fromisoformat(row[4]))


def get_problem(store: Store, source: str) -> Problem | None:
    """The problem remembered for ``source``, or ``None``."""
    row = store.conn.execute(f"{_SELECT} WHERE source = ?", (source,)).fetchone()
    return None if row is None else _problem(row)


def all_problems(store: Store) -> list[Problem]:
    """Every problem remembered, by source."""
    return [_problem(r) for r in store.conn.execute(f"{_SELECT} ORDER BY source")]


def remember_problems(store: Store, problems: Iterable[tuple[str, int, float, str]],
                      at: datetime | None = None) -> None:
    """Record (source, size, mtime, reason) problems; an unchanged record keeps its date.

    ``at``: when they were met (the batch's start, UTC; default now).
    """
    now = (at or datetime.now(UTC)).isoformat()
    rows = [(source, size, mtime, reason, now) for source, size, mtime, reason in problems]
    if rows:
        with store.write(bump=False) as c:
            c.executemany(
                "INSERT INTO file_problems (source, size, mtime, reason, reported_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(source) DO UPDATE SET size = excluded.size, "
                "mtime = excluded.mtime, reason = excluded.reason, reported_at = CASE WHEN "
                "file_problems.size = excluded.size AND file_problems.mtime = excluded.mtime "
                "AND file_problems.reason = excluded.reason THEN file_problems.reported_at "
                "ELSE excluded.reported_at END", rows)


def forget_problems(store: Store, sources: Iterable[str]) -> None:
    """Drop the records of these sources (absent ones are ignored)."""
    keys = [(s,) for s in sources]
    if keys:
        with store.write(bump=False) as c:
            c.executemany("DELETE FROM file_problems WHERE source = ?", keys)


def problems_under(store: Store, folder: str) -> list[str]:
    """The sources with a record at or under the absolute ``folder`` (no trailing separator)."""
    low, high = keys_under(folder)
    return [str(r[0]) for r in store.conn.execute(
        "SELECT source FROM file_problems WHERE source = ? OR (source >= ? AND source < ?)",
        (folder, low, high))]
