"""DESIGN 8 at scale: long scans are cancellable; past 100k chunks kb says an ANN is due."""

import threading
from pathlib import Path

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from kb.errors import SearchCancelled
from kb.retrieve.calibration import SHIPPED
from kb.retrieve.recall import vector_recall

pytestmark = pytest.mark.slow  # its index of 40 documents is embedded with the real model


class CancelAfter(threading.Event):
    """An event that reads as set from its ``n``-th check on (a cancel arriving mid-search)."""

    def __init__(self, n):
        super().__init__()
        self.n, self.checks = n, 0

    def is_set(self):
        self.checks += 1
        return self.checks >= self.n


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cancel")
    for i in range(40):
        write(folder / "d" / f"n{i}.txt", f"Note {i}: the lighthouse keeper logs the lamp, the "
              f"tide and the weather at dusk, entry {i}.\n\n" * 6)
    with KnowledgeBase(folder / "kb.db") as kb:  # the packaged embedder: real vectors
        kb.ingest([folder / "d"])
    return folder / "kb.db"


def test_a_search_cancelled_before_it_starts_returns_an_empty_result(kb_path):
    done = threading.Event()
    done.set()
    with KnowledgeBase(kb_path) as kb:
        result = kb.search("lighthouse lamp", cancel=done)
        assert result.references == () and not result.insufficient_evidence  # an error
        assert "cancelled" in (result.diagnostics.error or "")
        assert kb.search("lighthouse lamp").references  # the next search is unaffected


@pytest.mark.parametrize("n", [2, 3, 5, 20, 200])
def test_a_cancel_arriving_mid_search_never_raises_nor_falls_back(kb_path, n):
    with KnowledgeBase(kb_path, Config(embedder="none")) as kb:  # BM25: SQLite progress handler
        result = kb.search("lighthouse keeper lamp tide weather", cancel=CancelAfter(n))
        again = kb.search("lighthouse keeper lamp tide weather")  # handler removed afterwards
    if result.diagnostics.error:
        assert "cancelled" in result.diagnostics.error and result.references == ()
    # an interrupted FTS query is a cancellation, never an "FTS failed; LIKE scan" rung
    assert not any("LIKE" in d for d in result.diagnostics.degraded)
    assert again.references and again.diagnostics.error is None


def test_the_sqlite_progress_handler_interrupts_the_keyword_search(kb_path):
    cancel = CancelAfter(2)  # first check: the recall stage gate; then the handler
    with KnowledgeBase(kb_path, Config(embedder="none")) as kb:
        # a scoped search joins every match with its document: enough VM steps to be checked
        result = kb.search("lighthouse keeper lamp tide weather", cancel=cancel,
                           source_types=("txt",))
    assert "cancelled" in (result.diagnostics.error or "")
    stages = {s.stage: s for s in result.diagnostics.stages}
    # the cancel landed inside recall (the handler interrupted FTS5), not at the next stage gate
    assert stages["recall"].status == "failed" and "SearchCancelled" in stages["recall"].reason
    assert "fuse" not in stages


def test_the_vector_scan_checks_between_blocks(kb_path):
    with KnowledgeBase(kb_path) as kb:
        service, _ = kb.embedding_service()
        qv = service.embed_query("lighthouse lamp")
        args = dict(pool=5, allowed_docs=None, name="v", weight=1.0,
                    cos_unrelated=SHIPPED[service.embedder.model_id].cos_unrelated,
                    span=SHIPPED[service.embedder.model_id].span)
        vm = kb.store.vector_matrix(service.fingerprint.key)
        rows = vm.matrix.shape[0]
        full = vector_recall(vm, qv, **args)
        blocked = vector_recall(vm, qv, block_rows=7, cancel=threading.Event(), **args)
        assert [h.chunk_id for h in blocked.hits] == [h.chunk_id for h in full.hits]
        cancel = CancelAfter(3)
        with pytest.raises(SearchCancelled):
            vector_recall(vm, qv, block_rows=7, cancel=cancel, **args)
        assert cancel.checks == 3 < -(-rows // 7)  # stopped after two of the blocks


def test_a_small_bm25_only_index_has_no_vector_index_and_nothing_to_warn(kb_path):
    with KnowledgeBase(kb_path, Config(embedder="none")) as kb:
        info = kb.status()
        assert info.warnings == ()
        assert info.vector_index.startswith("none")


def test_overlapping_scans_share_one_blas_limit_and_the_last_restores_it():
    # OpenBLAS's thread count is process-wide and other tests' embedders (usem) limit it too,
    # so the check runs in a fresh interpreter where nothing else touches it.
    import subprocess
    import sys

    script = """
import numpy
from threadpoolctl import threadpool_info
from kb.retrieve.threadlimits import one_blas_thread

def blas():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

before = blas()
first, second = one_blas_thread(), one_blas_thread()
first.__enter__()
second.__enter__()
first.__exit__(None, None, None)   # the first search ends while the second still scans
inside = blas()
second.__exit__(None, None, None)
print(before, inside, blas())
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parent.parent).stdout.split("] [")
    before, inside, after = ([int(n) for n in part.strip("[]\n ").split(",")] for part in out)
    assert all(n == 1 for n in inside)
    assert after == before  # not left at one thread for the rest of the process
