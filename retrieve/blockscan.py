"""The exact vector scan in row blocks, which the search's caller thread helps score.

A hybrid search runs its vector side (the query embedding, then the scan) on a worker thread and
BM25 on the caller's (``kb.retrieve.hybrid``). At 100k chunks BM25 is usually done first (12.5
ms p50 against 22.5 ms for the embedding alone, a quiet 2-core machine, 2026-12-01), and the
caller then only waited while the worker scanned 100k x 384 float32 rows on one core. Now the
worker publishes each scan in a ``ScanShare``; the caller, its keyword lists done, claims row
blocks of it too (numpy releases the GIL in the product). No thread is added: the helper is the
search's own caller, which would otherwise block, so a search keeps at most two threads busy
however many run at once, and a caller still busy with BM25 simply leaves every block to the
worker.

Scores are bit for bit those of one ``matrix @ query`` (OpenBLAS 0.3.31 with one thread, as
the scan runs, ``kb.retrieve.threadlimits``; checked on the 100k latency store and on random
matrices of 2,512 to 131,075 rows): a row's product does not depend on the rows computed with
it, except in a one-row block, which numpy computes as a dot product summed in another order,
so no block is left one row long.
"""

from __future__ import annotations

import threading

import numpy as np

from kb.errors import SearchCancelled

# Rows per block: 16,384 x 384 float32 is 25 MB, about 1 ms on one core here, so the caller can
# join a 100k scan already under way; it is also the granularity of cancellation checks.
SCAN_BLOCK_ROWS = 16_384


class BlockScan:
    """``matrix @ query`` computed block by block by any threads that call ``work``.

    Args:
        matrix: shape (n, dim), float32.
        query: shape (dim,), float32.
        cancel: checked before each block; set, the scan stops (``result`` raises).
        block_rows: rows per block (>= 1).
    """

    def __init__(self, matrix: np.ndarray, query: np.ndarray,
                 cancel: threading.Event | None = None,
                 block_rows: int = SCAN_BLOCK_ROWS) -> None:
        self._matrix = matrix
        self._query = query
        self._cancel = cancel
        self._block_rows = max(1, block_rows)
        self.scores = np.empty(matrix.shape[0], dtype=np.float32)
        self._next_row = 0  # the first row no thread has claimed
        self._rows_done = 0
        self._error: BaseException | None = None
        self._done = threading.Condition()

    def work(self) -> None:
        """Score unclaimed blocks until none is left (from any thread)."""
        n = self._matrix.shape[0]
        while True:
            with self._done:
                start = self._next_row
                if start >= n or self._error is not None:
                    return
                if self._cancel is not None and self._cancel.is_set():
                    self._error = SearchCancelled("search cancelled by the caller")
                    self._done.notify_all()
                    return
                stop = min(n, start + self._block_rows)
                if n - stop == 1:  # a one-row product is a dot product, summed in another order
                    stop = n
                self._next_row = stop
            try:
                np.matmul(self._matrix[start:stop], self._query, out=self.scores[start:stop])
            except BaseException as exc:  # handed to the thread that waits for the result
                with self._done:
                    self._error = exc
                    self._done.notify_all()
                if not isinstance(exc, Exception):
                    raise  # KeyboardInterrupt, SystemExit: the waiter is told, then it goes on
                return
            with self._done:
                self._rows_done += stop - start
                if self._rows_done == n:
                    self._done.notify_all()

    def result(self) -> np.ndarray:
        """Work, then wait for the blocks other threads claimed; the scores, shape (n,).

        Raises:
            kb.errors.SearchCancelled: ``cancel`` was set during the scan.
            Exception: whatever a block's product raised, in any thread.
        """
        self.work()
        with self._done:
            self._done.wait_for(lambda: self._error is not None
                                or self._rows_done == self._matrix.shape[0])
            if self._error is not None:
                raise self._error
        return self.scores


class ScanShare:
    """Where a search's worker publishes its scans and its caller helps with them."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._scan: BlockScan | None = None
        self._closed = False

    def publish(self, scan: BlockScan) -> None:
        """Offer ``scan`` to the caller (the worker, before it works on it)."""
        with self._changed:
            self._scan = scan
            self._changed.notify_all()

    def close(self) -> None:
        """No more scans will come (the worker's job has ended, however it ended)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def assist(self) -> None:
        """Score blocks of each scan published until ``close`` (the caller thread).

        A block's failure is left to the worker, which raises it from ``BlockScan.result``.
        """
        helped: BlockScan | None = None
        while True:
            with self._changed:
                while not self._closed and self._scan is helped:
                    self._changed.wait()
                if self._scan is helped:
                    return
                helped = self._scan
            if helped is not None:
                helped.work()
