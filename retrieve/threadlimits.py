"""Thread limits for the vector side of recall: one OpenMP thread, one BLAS thread.

On two cores the query embedding and the vector scan run on a worker thread while BM25 runs on
the caller's (``kb.retrieve.hybrid``), which then helps with the scan's row blocks
(``kb.retrieve.blockscan``); each side keeps one core only if the model and numpy's BLAS do
not start threads of their own. Uses threadpoolctl
(https://github.com/joblib/threadpoolctl).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

log = logging.getLogger(__name__)

_thread_state = threading.local()


def one_openmp_thread() -> None:
    """Limit OpenMP to one thread for the calling (worker) thread, once.

    OpenMP's thread count is per calling thread (``omp_set_num_threads`` sets the caller's
    nthreads-var ICV), so ingest batches on other threads keep every core. One short query
    gains nothing from a second thread, and leaving the second core free lets BM25 run beside
    it. Uses threadpoolctl (https://github.com/joblib/threadpoolctl).
    """
    if getattr(_thread_state, "limited", False):
        return
    _thread_state.limited = True
    try:
        ThreadpoolController().limit(limits=1, user_api="openmp")
    except Exception:  # an unusual OpenMP runtime only costs speed
        log.debug("could not limit OpenMP threads", exc_info=True)


_blas_lock = threading.Lock()
_blas_users = 0
_blas_restore: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread for the vector scans while any search holds it, restored by the last.

    Held by the worker around its scans and by the search's caller from the end of its BM25
    side to the end of the vector side (``kb.retrieve.hybrid``: it helps the scan), so for
    most of every hybrid search.

    The scan is a matrix-vector product bound by memory bandwidth: a second OpenBLAS thread
    does not speed it up, but it competes with BM25 for the second core (and OpenBLAS threads
    spin-wait after a call). Measured at 100k chunks on 2 cores: search p50 61 ms with two BLAS
    threads, 47 ms with one. OpenBLAS's thread count is process-wide, so overlapping searches
    share one reference-counted limit (the first sets it, the last restores it), and other
    threads' BLAS calls meanwhile also run on one thread.
    """
    global _blas_users, _blas_restore
    with _blas_lock:
        _blas_users += 1
        if _blas_users == 1:
            try:
                # a fresh controller (0.2 ms) sees every BLAS library loaded by now
                _blas_restore = ThreadpoolController().limit(limits=1, user_api="blas")
            except Exception:  # an unusual BLAS only costs speed
                log.debug("could not limit BLAS threads", exc_info=True)
                _blas_restore = None
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0 and _blas_restore is not None:
                _blas_restore.restore_original_limits()
                _blas_restore = None
