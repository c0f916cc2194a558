"""Reader connections of threads that have ended are closed, so a long-running server does not
collect one open SQLite file per request it ever answered.

Open connections are counted as this process' file descriptors on the database file
(``/proc/self/fd``): the writer, one per live reader, and the one descriptor SQLite's unix VFS
keeps for reuse after a connection closes while another holds locks on the file.
"""

import os
import sys
import threading
from pathlib import Path

import httpx
import pytest
from conftest import serving, write

from kb.api import KnowledgeBase
from kb.config import Config

ROUNDS = 50
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="counts file descriptors in /proc/self/fd")


def open_fds(path: Path) -> int:
    """How many of this process' file descriptors are open on ``path``."""
    target, count = str(path.resolve()), 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}") == target
        except OSError:  # closed since it was listed
            pass
    return count


@pytest.fixture
def kb(tmp_path):
    write(tmp_path / "d" / "kites.md", "# Box kites\n\nBox kites were invented by Lawrence "
          "Hargrave in 1893.\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as k:
        k.ingest([tmp_path / "d"])
        k.search("box kites")  # this thread's reader is open before counting
        yield k


def test_short_lived_threads_do_not_keep_their_readers(kb):
    before = open_fds(kb.store.path)
    results = []
    for _ in range(ROUNDS):
        t = threading.Thread(target=lambda: results.append(kb.search("box kites")))
        t.start()
        t.join()
    assert len(results) == ROUNDS and all(r.references for r in results)
    # the last thread's reader (closed when the next one opens) and SQLite's spare descriptor
    assert open_fds(kb.store.path) <= before + 2
    kb.close()
    assert open_fds(kb.store.path) == 0


@pytest.mark.slow  # a kb serve process and many requests
def test_kb_serve_does_not_grow_open_files_with_requests(kb):
    with serving(kb) as server:
        before = open_fds(kb.store.path)
        for _ in range(ROUNDS):  # a new connection each time: a new server thread each time
            r = httpx.post(f"{server.url}/search", json={"query": "box kites"}, timeout=30)
            assert r.status_code == 200 and r.json()["references"]
        # only threads still finishing their response keep a reader; never one per request
        assert open_fds(kb.store.path) <= before + 5
