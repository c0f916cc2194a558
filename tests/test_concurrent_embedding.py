"""Two `kb ingest` processes into one index embed each chunk once (the embedding turn).

A new-user trial ran two ingests of one index at the same time: both embedded the chunks the
other had written too, so the two processes did the model's work twice (on 2 cores at 15
chunks/s, minutes). ``kb.ingest.embed.backfill_vectors`` now takes the index's embedding turn
(a lock file beside the database): the second process waits, and the first one's pass, which
reads missing vectors by ascending chunk id, also embeds the chunks the second committed
meanwhile. The model is the in-process OpenAI-compatible double (tests/http_doubles.py), made
slow so that the two ingests overlap; the processes are real ``kb`` processes.
"""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import write

E5 = "intfloat/multilingual-e5-small"
MARKER = "lighthouse"  # in every chunk's text: tells chunk embeddings from a model probe


def _ingest(db: Path, folder: Path, url: str) -> subprocess.Popen[str]:
    env = {**os.environ, "KB_EMBEDDER": f"openai:{url}/v1#{E5}", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "kb", "--db", str(db), "ingest", "--json",
                             str(folder)], env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _embedded_texts(srv) -> list[str]:
    with srv.lock:
        bodies = [b for p, b in srv.requests if p == "/v1/embeddings"]
    texts = [t for b in bodies for t in (b["input"] if isinstance(b["input"], list)
                                         else [b["input"]])]
    return [t for t in texts if MARKER in t]


def test_two_ingests_at_once_embed_every_chunk_once(tmp_path, srv):
    for side in ("north", "south"):
        for i in range(3):
            write(tmp_path / side / f"{side}{i}.md",
                  f"# The {side} {MARKER} {i}\n\nThe {side} {MARKER} number {i} was lit in "
                  f"{1850 + i} and stands on the {side} cape.\n")
    db = tmp_path / "kb.db"
    srv.embed_delay_s = 1.5  # every embedding request takes 1.5 s: the two ingests overlap
    first = _ingest(db, tmp_path / "north", srv.url)
    time.sleep(0.5)
    second = _ingest(db, tmp_path / "south", srv.url)
    outs = [p.communicate(timeout=240) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outs
    with sqlite3.connect(db) as conn:
        chunks, vectors = conn.execute(
            "SELECT count(*), count(embedding) FROM chunks").fetchone()
    assert chunks == 6 and vectors == 6  # every chunk has its vector ...
    texts = _embedded_texts(srv)
    assert len(texts) == chunks, texts  # ... embedded once, by one process or the other
    assert len(set(texts)) == len(texts)


def test_the_turn_reports_its_wait_and_is_reentrant_in_one_thread(tmp_path):
    import threading

    from kb.ingest.embed import WAITING, embedding_turn

    db = tmp_path / "kb.db"
    holding, may_release = threading.Event(), threading.Event()

    def holder() -> None:
        with embedding_turn(db):
            holding.set()
            may_release.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(30)
    seen: list[tuple[str, int, int]] = []

    def on_progress(phase: str, done: int, total: int) -> None:
        seen.append((phase, done, total))
        may_release.set()  # the wait has begun: let the holder go

    with embedding_turn(db, on_progress), embedding_turn(db):  # the same thread twice: no wait
        assert seen == [(WAITING, 0, 0), (WAITING, 1, 1)]
    thread.join(30)
    with embedding_turn(db, on_progress):  # free: no report
        pass
    assert len(seen) == 2


def test_a_lock_the_file_system_cannot_give_is_not_waited_for(tmp_path, srv):
    # a folder where the lock file should be (as a read-only folder or a file system without
    # flock): the ingest embeds as before, without the turn
    write(tmp_path / "notes" / "a.md", f"# The {MARKER}\n\nThe {MARKER} was lit in 1850.\n")
    db = tmp_path / "kb.db"
    (tmp_path / "kb.db.embed-lock").mkdir()
    p = _ingest(db, tmp_path / "notes", srv.url)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*), count(embedding) FROM chunks").fetchone() == (1, 1)


def test_an_ingest_with_nothing_to_embed_takes_no_turn_and_leaves_no_lock_file(tmp_path, srv):
    (tmp_path / "empty").mkdir()  # a new user's first try: a folder with nothing to index
    db = tmp_path / "kb.db"
    p = _ingest(db, tmp_path / "empty", srv.url)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert not Path(f"{db}.embed-lock").exists()
