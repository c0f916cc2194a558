"""Reader connections, one per thread, closed once their thread has ended.

A long-running server (``kb serve``: a thread per request) would otherwise keep one SQLite
connection, and its file descriptors, for every request it ever answered. Each time a thread
opens its reader, the readers of threads that have ended are closed first, so the pool never
holds more connections than there are live threads that have read (plus the new one).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

from kb.errors import StoreError

CLOSED = "this knowledge base is closed (open the file again to use it)"


class ReaderPool:
    """This thread's reading connection, made by ``connect`` on the thread's first read.

    Args:
        connect: opens a new connection (usable from any thread, for the pruning).
        name: the database file, named in the error once the pool is closed.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection], name: str = "") -> None:
        self._connect = connect
        self._name = name  # the database file, for messages
        self._local = threading.local()
        self._lock = threading.Lock()  # only the pool's: a reader never waits for a writer
        self._open: dict[threading.Thread, sqlite3.Connection] = {}
        self._closed = False

    def connection(self) -> sqlite3.Connection:
        """The calling thread's connection, opened (after pruning ended threads') if new.

        Raises:
            kb.errors.StoreError: the pool was closed (``CLOSED``).
        """
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and not self._closed:
            return conn
        with self._lock:  # checked and registered together: close() cannot slip between
            if self._closed:
                raise StoreError(f"{self._name}: {CLOSED}", path=self._name)
            conn = self._connect()
            self._local.conn = conn
            for thread in [t for t in self._open if not t.is_alive()]:
                self._open.pop(thread).close()
            self._open[threading.current_thread()] = conn
        return conn

    def close(self) -> None:
        """Close the reader connections, refusing any further read (``CLOSED``).

        A connection another live thread holds is left to that thread: it may be in the middle
        of a query, and closing a SQLite connection under a running statement can crash the
        process. Such a thread gets ``StoreError`` at its next read, and its connection closes
        with the thread (its thread-local storage is freed).
        """
        with self._lock:
            self._closed = True
            me = threading.current_thread()
            for thread, conn in list(self._open.items()):
                if thread is me or not thread.is_alive():
                    conn.close()
            self._open.clear()
