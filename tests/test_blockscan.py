"""The exact scan in row blocks: the same scores as one product, whichever thread scores a block."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from kb.errors import SearchCancelled
from kb.retrieve.blockscan import BlockScan, ScanShare
from kb.retrieve.threadlimits import one_blas_thread


def _matrix(rows: int, dim: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((rows, dim)).astype(np.float32)
    return m, rng.standard_normal(dim).astype(np.float32)


@pytest.mark.parametrize("rows", [1, 2, 999, 1000, 1001, 1002, 4097])
def test_block_scores_are_bit_for_bit_one_product(rows):
    m, q = _matrix(rows)
    with one_blas_thread():  # as the scan runs
        whole = m @ q
        blocked = BlockScan(m, q, block_rows=1000).result()
    # 1001 rows: the last row joins the block before it (a one-row product sums differently)
    assert np.array_equal(blocked, whole)


def test_the_caller_scores_blocks_of_a_published_scan_until_the_share_closes():
    m, q = _matrix(5000)
    share = ScanShare()
    scan = BlockScan(m, q, block_rows=512)
    helper = threading.Thread(target=share.assist)
    helper.start()
    with one_blas_thread():
        share.publish(scan)
        scores = scan.result()
        share.close()
        helper.join(timeout=10)
        whole = m @ q
    assert not helper.is_alive()
    assert np.array_equal(scores, whole)


def test_a_caller_that_comes_first_scores_every_block():
    m, q = _matrix(3000)
    share = ScanShare()
    cancel = threading.Event()
    scan = BlockScan(m, q, cancel, block_rows=256)
    share.publish(scan)
    share.close()  # the worker's job ended before the caller looked
    with one_blas_thread():
        share.assist()  # scores all of it in this thread
        cancel.set()  # result() would raise before claiming a block: none must be left
        assert np.array_equal(scan.result(), m @ q)


def test_assist_returns_when_the_job_ends_without_a_scan():
    share = ScanShare()
    threading.Timer(0.05, share.close).start()
    share.assist()  # returns: nothing was published


def test_a_cancelled_scan_raises_for_the_worker():
    m, q = _matrix(3000)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SearchCancelled):
        BlockScan(m, q, cancel, block_rows=256).result()


def test_a_block_that_fails_in_the_helper_raises_in_the_worker():
    m, _ = _matrix(3000)
    share = ScanShare()
    scan = BlockScan(m, np.zeros(7, dtype=np.float32), block_rows=256)  # wrong length
    share.publish(scan)
    share.close()
    share.assist()  # the helper's failure is kept for the worker
    with pytest.raises(ValueError):
        scan.result()
