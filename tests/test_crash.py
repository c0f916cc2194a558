"""A SIGKILL in the middle of an ingest leaves a database that opens, checks, and resumes."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from kb.api import KnowledgeBase
from kb.config import Config

pytestmark = pytest.mark.slow  # kills an ingesting process and reopens the database


def test_sigkill_mid_ingest_leaves_a_consistent_database(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i in range(400):
        words = " ".join(f"term{i}x{j}" for j in range(300))
        (folder / f"doc{i:03d}.txt").write_text(f"Document {i}. {words}\n")
    db = tmp_path / "kb.db"
    env = {**os.environ, "KB_EMBEDDER": "none"}
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--db", str(db), "ingest", str(folder)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    written = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if db.exists():
            try:
                conn = sqlite3.connect(db, timeout=0.1)
                written = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
                conn.close()
            except sqlite3.Error:
                continue
            if written >= 20:
                break
    assert proc.poll() is None, "ingest finished before it could be killed; make the corpus bigger"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        c = kb.store.counts()
        assert 0 < c["documents"] < 400
        assert c["fts_rows"] == c["chunks"]
        assert kb.store.fts_integrity_ok()
        orphan = kb.store.conn.execute(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)").fetchone()[0]
        assert orphan == 0  # a document is never visible without its chunks
        report = kb.ingest([folder])
        assert report.count("failed") == 0
        c2 = kb.store.counts()
        assert c2["documents"] == 400 and c2["fts_rows"] == c2["chunks"]
        dupes = kb.store.conn.execute(
            "SELECT count(*) FROM (SELECT source FROM documents GROUP BY source "
            "HAVING count(*) > 1)").fetchone()[0]
        assert dupes == 0
        assert kb.store.fts_integrity_ok()
