"""Storage faults (issue 11, item 3): a full disk during ingest, a database on read-only media.

The faults are real: each scenario runs ``kb`` in a private mount namespace (``unshare -m``,
root or a user namespace) on a small tmpfs that really runs out of space (ENOSPC, which SQLite
reports as SQLITE_FULL "database or disk is full"), or on a read-only bind mount of a folder
(EROFS, which stops root as well as anyone, unlike file modes). SQLite's ``max_page_count``
pragma was not used: it is a per-connection setting, so it would need a hook into kb's own
connection, and it never exercises the WAL file running out of space.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kb.api import KnowledgeBase
from kb.config import Config

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("alpha beta gamma delta river mountain signal harbour lantern orchard copper violet "
         "meadow").split()


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


pytestmark = [pytest.mark.slow,  # runs kb in mount namespaces on a full tmpfs and read-only media
              pytest.mark.skipif(not _namespaces_work(),
                                 reason="needs unshare and mount (root or user namespaces)")]


def _text(seed: int, paragraphs: int) -> str:
    import random

    rng = random.Random(seed)
    return "\n\n".join(" ".join(f"{rng.choice(WORDS)}{rng.randint(0, 9999)}" for _ in range(60))
                       + "." for _ in range(paragraphs))


def _in_namespace(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec", script],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def _kb(db: Path, *args: str) -> str:
    return shlex.join([sys.executable, "-m", "kb", "--db", str(db), "--embedder", "none", *args])


def _consistent(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
        orphans = conn.execute(
            "SELECT (SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents))"
            " + (SELECT count(*) FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks))"
            " + (SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM chunks_fts))"
        ).fetchone()[0]
        assert orphans == 0
    finally:
        conn.close()


def test_disk_full_during_ingest_is_one_line_and_the_database_stays_consistent(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a1", "a2", "a3", "z1", "z2"):
        (docs / f"{name}.txt").write_text(f"Note {name} about box kites.\n\n{_text(len(name), 5)}")
    (docs / "m_big.txt").write_text(_text(7, 3000))  # ~2 MB: does not fit in the 1 MiB disk
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    db = mnt / "kb.db"
    result = _in_namespace(
        f"mount -t tmpfs -o size=1m tmpfs {mnt}\n"
        f"set +e; {_kb(db, 'ingest', str(docs))} > {out}/stdout 2> {out}/stderr; "
        f"echo $? > {out}/rc; set -e\n"
        f"{_kb(db, 'search', 'box kites', '--json')} > {out}/search.json\n"
        f"cp {mnt}/kb.db* {out}/")
    assert result.returncode == 0, result.stderr
    stdout, stderr = (out / "stdout").read_text(), (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "1"
    assert "Traceback" not in stderr and "cannot rollback" not in stdout + stderr
    full = [line for line in (stdout + stderr).splitlines() if "database or disk is full" in line]
    assert len(full) == 1, stdout + stderr
    assert str(docs / "m_big.txt") in full[0]
    # The report says what was committed: the three files before the big one.
    assert "3 added" in stdout, stdout
    assert "not attempted" in stdout and "z1.txt" in stdout
    # The database holds exactly those, complete and consistent, and can be searched.
    _consistent(out / "kb.db")
    conn = sqlite3.connect(out / "kb.db")
    sources = [Path(r[0]).name for r in conn.execute("SELECT source FROM documents ORDER BY 1")]
    conn.close()
    assert sources == ["a1.txt", "a2.txt", "a3.txt"]
    found = json.loads((out / "search.json").read_text())
    assert {Path(r["source"]).name for r in found["references"]} <= set(sources)
    assert found["references"]


def _make_kb(folder: Path) -> Path:
    docs = folder / "docs"
    docs.mkdir(parents=True)
    (docs / "kites.md").write_text("# Box kites\n\nBox kites were invented by Lawrence "
                                   "Hargrave in 1893.\n")
    (docs / "tea.md").write_text("# Tea\n\nGreen tea is steeped at 80 degrees.\n")
    db = folder / "media" / "kb.db"
    db.parent.mkdir()
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([docs])
    return db


def test_wal_database_on_read_only_media_can_be_searched_and_ingest_is_one_line(tmp_path):
    db = _make_kb(tmp_path)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert not (db.parent / "kb.db-wal").exists()  # closed cleanly: no -wal, no -shm
    new = tmp_path / "new.md"
    new.write_text("# Kayaks\n\nA kayak is paddled with a double-bladed paddle.\n")
    out = tmp_path / "out"
    out.mkdir()
    media = db.parent
    result = _in_namespace(
        f"mount --bind {media} {media}\nmount -o remount,bind,ro {media}\n"
        f"{_kb(db, 'search', 'who invented the box kite', '--json')} > {out}/search.json "
        f"2> {out}/search.err\n"
        f"{_kb(db, 'docs', '--json')} > {out}/docs.json\n"
        f"{_kb(db, 'status')} > {out}/status.txt\n"
        f"set +e; {_kb(db, 'ingest', str(new))} > {out}/stdout 2> {out}/stderr; "
        f"echo $? > {out}/rc")
    assert result.returncode == 0, result.stderr + (out / "search.err").read_text()
    found = json.loads((out / "search.json").read_text())
    assert found["references"][0]["title"] == "Box kites"
    assert len((out / "docs.json").read_text().splitlines()) == 2
    status = (out / "status.txt").read_text()
    assert "FAILED" not in status and "ok (read-only file" in status
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "1"
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "read-only" in stderr and str(db) in stderr
    assert not (media / "kb.db-wal").exists()


def test_read_only_media_with_an_unmerged_wal_still_serves_its_latest_commits(tmp_path):
    db = _make_kb(tmp_path)
    writer = sqlite3.connect(db)  # an open connection keeps the -wal and -shm files
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        extra = tmp_path / "docs" / "kayaks.md"
        extra.write_text("# Kayaks\n\nA kayak is paddled with a double-bladed paddle.\n")
        kb.ingest([extra])
        copy = tmp_path / "copy"
        copy.mkdir()
        for part in ("kb.db", "kb.db-wal", "kb.db-shm"):  # a snapshot as a backup tool takes it
            shutil.copy(db.parent / part, copy / part)
    writer.close()
    assert (copy / "kb.db-wal").stat().st_size > 0
    out = tmp_path / "out"
    out.mkdir()
    result = _in_namespace(
        f"mount --bind {copy} {copy}\nmount -o remount,bind,ro {copy}\n"
        f"{_kb(copy / 'kb.db', 'search', 'kayak paddle', '--json')} > {out}/search.json")
    assert result.returncode == 0, result.stderr
    found = json.loads((out / "search.json").read_text())
    assert found["references"][0]["title"] == "Kayaks"
