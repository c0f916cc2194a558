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
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._local = threading.local()
        self._lock = threading.Lock()  # only the pool's: a reader never waits for a writer
        self._open: dict[threading.Thread, sqlite3.Connection] = {}
        self._closed = False

    def connection(self) -> sqlite3.Connection:
        """The calling thread's connection, opened (after pruning ended threads') if new.

        Raises:
            kb.errors.StoreError: the pool was closed (``CLOSED``).
        """
        if self._closed:
            raise StoreError(CLOSED)
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                for thread in [t for t in self._open if not t.is_alive()]:
                    self._open.pop(thread).close()
                self._open[threading.current_thread()] = conn
        return conn

    def close(self) -> None:
        """Close every reader connection."""
        with self._lock:
            self._closed = True
            for conn in self._open.values():
                conn.close()
            self._open.clear()
