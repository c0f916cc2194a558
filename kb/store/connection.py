"""Opening a kb SQLite file: read-write where it can be written, else read-only; storage faults.

A file on read-only media, or whose file or folder this process cannot write, is opened
read-only: ``mode=ro``, or ``mode=ro&immutable=1`` when SQLite can neither find nor create the
WAL index (``-shm``) beside it. SQLite needs that index to read a WAL database unless the file
is declared immutable (https://sqlite.org/wal.html#readonly); it is absent and uncreatable only
when no process is writing the file now (a writer keeps it), which is the case on read-only
media. A process that starts writing the file later, from an account that may write where this
one may not, is not seen by an immutable reader.

A storage fault is a write that fails for want of space or by an I/O error (SQLITE_FULL
"database or disk is full", SQLITE_IOERR), or on a read-only file (SQLITE_READONLY).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal
from urllib.request import pathname2url

from kb.errors import StoreError
from kb.store.readers import CLOSED

OpenMode = Literal["rw", "ro", "immutable"]
BUSY_TIMEOUT_MS = 10_000  # a connection waits this long for a lock (the writer: WRITE_WAIT_S)
# the writer waits this long for another process's write transaction (a large document's
# chunks are written in one) before failing with a one-line StoreError
WRITE_WAIT_S = 60.0
BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED: another connection holds the lock
# SQLite primary result codes of a storage fault (https://sqlite.org/rescode.html).
STORAGE_FAULT_CODES = frozenset({8, 10, 13})  # SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
PROGRESS_OPCODES = 1_000  # SQLite VM steps between two cancellation checks


def open_mode(path: Path) -> OpenMode:
    """How ``path`` can be opened: ``rw``, else ``ro``, else ``immutable``.

    ``rw`` when the file and its folder can be written (or the file does not exist yet: it is
    created there, and an unwritable folder then fails with SQLite's reason).

    Raises:
        StoreError: only ``immutable`` is possible and a ``-wal`` beside the file holds
            writes: an immutable reader would not see them (an index read as empty).
    """
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists() or (os.access(path, os.W_OK) and os.access(folder, os.W_OK)):
        return "rw" if _sidecars_writable(path) else "ro"
    probe = sqlite3.connect(uri(path, "ro"), uri=True)
    try:
        probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return "ro"
    except sqlite3.OperationalError:  # "unable to open database file": no -shm possible
        pass
    finally:
        probe.close()
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:  # an immutable reader would not see it
        raise StoreError(f"{path}: its {wal.name} holds writes not yet in the file, and "
                         f"SQLite cannot read them here ({folder} cannot be written, and "
                         f"{path.name}-shm is missing): copy the file with its -wal to a "
                         "writable folder, or open it once where it can be written",
                         path=path)
    return "immutable"


def _sidecars_writable(path: Path) -> bool:
    """Whether the ``-wal`` and ``-shm`` beside ``path`` can be written (or do not exist).

    A read-only session (the file was ``chmod 444``) in a writable folder leaves them behind
    with the file's mode then; once the file is writable again, a writer would fail on them
    ("attempt to write a readonly database", or an FTS integrity check failing as if the
    index were damaged). Those this process owns get the file's mode back; another owner's
    leave the file read-only.
    """
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    for side in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            info = side.stat()
        except FileNotFoundError:
            continue
        if mode is not None and info.st_uid == getattr(os, "geteuid", lambda: -1)() and \
                stat.S_IMODE(info.st_mode) & mode != mode:
            try:
                os.chmod(side, stat.S_IMODE(info.st_mode) | mode)
            except OSError:
                pass  # then os.access says whether it can be written
        if not os.access(side, os.W_OK):
            return False
    return True


def uri(path: Path, mode: OpenMode) -> str:
    """The SQLite URI filename opening ``path`` in ``mode``."""
    query = {"rw": "", "ro": "?mode=ro", "immutable": "?mode=ro&immutable=1"}[mode]
    return f"file:{pathname2url(str(path.absolute()))}{query}"


def connect(path: Path, mode: OpenMode) -> sqlite3.Connection:
    """An autocommit connection to ``path`` in ``mode``, usable from any thread."""
    conn = sqlite3.connect(uri(path, mode), isolation_level=None, check_same_thread=False,
                           timeout=BUSY_TIMEOUT_MS / 1000, uri=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def storage_fault(exc: BaseException, path: Path) -> StoreError | None:
    """A one-line ``StoreError`` carrying SQLite's reason when ``exc`` is a storage fault."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.Error) or code is None or code & 0xFF not in \
            STORAGE_FAULT_CODES:
        return None
    return StoreError(f"{path}: cannot write: {exc}", path=path)


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already done so.

    After SQLITE_FULL or SQLITE_IOERR SQLite may roll back by itself; a ROLLBACK then fails
    with "cannot rollback - no transaction is active", which must not mask the real reason.
    """
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:  # the error being raised says more
            pass


@contextmanager
def immediate(conn: sqlite3.Connection, path: Path, wait_s: float = WRITE_WAIT_S
              ) -> Iterator[sqlite3.Connection]:
    """An IMMEDIATE transaction on ``conn``, committed at the end, rolled back on any error.

    ``wait_s`` is how long ``conn`` waits for another writer (its ``busy_timeout``), for the
    message only.

    Raises:
        StoreError: a storage fault began or ended the transaction (SQLite's reason, one
            line), another process held the write lock past ``wait_s``, or ``conn`` is
            closed; nothing of it was written. Other errors propagate as they are.
    """
    try:
        if conn.in_transaction:  # left open by a Ctrl-C between a BEGIN and its body: undo
            rollback(conn)  # (its writes were never committed) before this one begins
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.ProgrammingError as exc:  # "Cannot operate on a closed database."
        raise StoreError(f"{path}: {CLOSED}", path=path) from exc
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in BUSY_CODES:
            raise StoreError(f"{path}: another process is writing this index and did not "
                             f"finish within {wait_s:g} s (a large ingest?); nothing was "
                             "written: try again when it is done", path=path) from exc
        fault = storage_fault(exc, path)
        if fault is None:
            raise
        raise fault from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        rollback(conn)
        fault = storage_fault(exc, path)
        if fault is not None:
            raise fault from exc
        raise


@contextmanager
def interruptible(conn: sqlite3.Connection, cancel: threading.Event | None) -> Iterator[None]:
    """Let ``cancel`` interrupt the queries on ``conn`` while the block runs.

    Uses SQLite's progress handler (https://www.sqlite.org/c3ref/progress_handler.html): every
    ``PROGRESS_OPCODES`` virtual-machine steps it checks ``cancel``; once set, the running
    statement fails with ``sqlite3.OperationalError("interrupted")``. ``None``: nothing is set.
    """
    if cancel is None:
        yield
        return
    conn.set_progress_handler(cancel.is_set, PROGRESS_OPCODES)
    try:
        yield
    finally:
        conn.set_progress_handler(None, 0)


def run_once(conn: sqlite3.Connection, step: Callable[[sqlite3.Connection], None],
             record: Callable[[], object], *, done: tuple[str, tuple[object, ...]]) -> bool:
    """Run ``step`` and ``record`` in one write transaction, unless ``done`` finds a row.

    ``done`` (a query and its parameters) is asked again under the write lock: another
    process may have run the step while this one waited. Returns whether it ran here.
    """
    conn.execute("BEGIN IMMEDIATE")
    if conn.execute(*done).fetchone():
        conn.execute("COMMIT")  # another process ran it while this one waited
        return False
    try:
        step(conn)
        record()
        conn.execute("COMMIT")
    except BaseException:  # Ctrl-C may land after the COMMIT: nothing is left to roll back
        rollback(conn)
        raise
    return True
