"""A read-only session leaves ``-wal``/``-shm`` files that must not break the next writer.

From a new-user trial: ``chmod 444 k.db``, ``kb search`` (read-only: it works, and SQLite
creates ``k.db-wal`` and ``k.db-shm`` with the file's mode, 444), ``chmod 644 k.db``; then
``kb status`` said the full-text index was damaged and ``kb ingest`` failed with "attempt to
write a readonly database", though the index was whole (the ``-shm`` was read-only). File
modes do not stop root, so the real scenario runs ``kb`` as root without the capabilities
that let it ignore them (``setpriv``), as the trial did.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kb.api import KnowledgeBase
from kb.config import Config
from kb.store.connection import open_mode
from tests.conftest import write


def _indexed(tmp_path: Path) -> Path:
    db = tmp_path / "k.db"
    write(tmp_path / "docs" / "otters.md", "# Otters\n\nSea otters hold hands while asleep.\n")
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "docs"])
    return db


def test_sidecars_left_read_only_get_the_files_mode_back(tmp_path: Path) -> None:
    db = _indexed(tmp_path)
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    for side in (wal, shm):  # as a read-only session leaves them
        side.write_bytes(b"")
        side.chmod(0o444)
    db.chmod(0o644)
    assert open_mode(db) == "rw"
    assert [stat.S_IMODE(s.stat().st_mode) for s in (wal, shm)] == [0o644, 0o644]
    # a file that is itself read-only leaves them as they are
    for side in (wal, shm):
        side.chmod(0o444)
    db.chmod(0o444)
    open_mode(db)
    assert [stat.S_IMODE(s.stat().st_mode) for s in (wal, shm)] == [0o444, 0o444]
    db.chmod(0o644)


ROOT_OBEYING_MODES = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run kb as root that obeys file modes")
def test_a_read_only_search_then_chmod_back_leaves_a_working_index(tmp_path: Path) -> None:
    db = _indexed(tmp_path)

    def kb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*ROOT_OBEYING_MODES, sys.executable, "-m", "kb", "--db", str(db),
                               "--embedder", "none", *args], capture_output=True, text=True,
                              timeout=120)

    db.chmod(0o444)
    found = kb("search", "sea otters")
    assert found.returncode == 0 and "Otters" in found.stdout, found.stderr
    assert stat.S_IMODE(Path(f"{db}-shm").stat().st_mode) == 0o444  # the trial's state
    db.chmod(0o644)
    status = kb("status")
    assert status.returncode == 0, status.stderr
    assert "damaged" not in status.stdout + status.stderr
    write(tmp_path / "more" / "seals.md", "# Seals\n\nSeals sleep in the water.\n")
    added = kb("ingest", str(tmp_path / "more"))
    assert added.returncode == 0 and "1 added" in added.stdout, added.stderr


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run kb as root that obeys file modes")
def test_a_wal_that_cannot_be_read_is_an_error_not_an_empty_index(tmp_path: Path) -> None:
    # a trial: a copy of the file with its -wal (writes not checkpointed) but no -shm, in a
    # read-only folder, was opened immutable, which ignores the -wal: "the knowledge base is
    # empty", exit 0
    db = _indexed(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    with KnowledgeBase(db, Config(embedder="none")) as kb:  # a writer holds its -wal open
        write(tmp_path / "more" / "seals.md", "# Seals\n\nSeals sleep in the water.\n")
        kb.store.conn.execute("PRAGMA wal_autocheckpoint = 0")
        kb.ingest([tmp_path / "more"])
        for suffix in ("", "-wal"):
            shutil.copyfile(f"{db}{suffix}", copy / f"k.db{suffix}")
    assert (copy / "k.db-wal").stat().st_size > 0 and not (copy / "k.db-shm").exists()
    for f in copy.iterdir():
        f.chmod(0o444)
    copy.chmod(0o555)
    try:
        r = subprocess.run([*ROOT_OBEYING_MODES, sys.executable, "-m", "kb", "--db",
                            str(copy / "k.db"), "--embedder", "none", "search", "seals"],
                           capture_output=True, text=True, timeout=120)
    finally:
        copy.chmod(0o755)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "k.db-wal holds writes not yet in the file" in r.stderr
    assert "empty" not in r.stdout


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run kb as root that obeys file modes")
def test_an_unreadable_file_or_folder_named_directly_fails_alone(tmp_path: Path) -> None:
    # a new-user trial: `kb ingest two.md noread.md` stopped with click's "Path 'noread.md' is
    # not readable" (exit 2) and indexed nothing; an unreadable folder named directly crashed
    # while looking for its .git
    write(tmp_path / "two.md", "# Kites\n\nKites fly high in spring.\n")
    write(tmp_path / "noread.md", "# Secret\n\nNot for you.\n")
    write(tmp_path / "sub" / "a.md", "# A\n\nText.\n")
    (tmp_path / "noread.md").chmod(0o000)
    (tmp_path / "sub").chmod(0o000)
    try:
        r = subprocess.run([*ROOT_OBEYING_MODES, sys.executable, "-m", "kb", "--db",
                            str(tmp_path / "k.db"), "--embedder", "none", "ingest",
                            str(tmp_path / "two.md"), str(tmp_path / "noread.md"),
                            str(tmp_path / "sub")], capture_output=True, text=True, timeout=120)
    finally:
        (tmp_path / "noread.md").chmod(0o644)
        (tmp_path / "sub").chmod(0o755)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert f"FAILED   {tmp_path / 'noread.md'}: cannot read: Permission denied" in r.stdout
    assert f"FAILED   {tmp_path / 'sub'}: cannot read folder: Permission denied" in r.stdout
    assert "1 added" in r.stdout and "2 failed" in r.stdout



@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run kb as root that obeys file modes")
def test_a_sync_of_a_folder_that_cannot_be_read_keeps_its_documents(tmp_path: Path) -> None:
    # a review: an unreadable folder that is its own repository, inside another whose
    # .gitignore says build/, had its build/ notes removed by the outer rules; a mode-000
    # folder crashed the sync in the ignore rules
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    write(outer / ".gitignore", "build/\n")
    proj = outer / "proj"
    (proj / ".git").mkdir(parents=True)
    write(proj / "build" / "notes.md", "# Build notes\n\nThe build runs nightly.\n")
    write(proj / "readme.md", "# Readme\n\nHow to start.\n")
    db = str(tmp_path / "k.db")

    def sync() -> subprocess.CompletedProcess[str]:
        return subprocess.run([*ROOT_OBEYING_MODES, sys.executable, "-m", "kb", "--db", db,
                               "--embedder", "none", "sync", str(proj)], capture_output=True,
                              text=True, timeout=120)

    first = sync()
    assert first.returncode == 0 and "2 added" in first.stdout, first.stdout + first.stderr
    proj.chmod(0o000)
    try:
        again = sync()
    finally:
        proj.chmod(0o755)
    assert "Traceback" not in again.stderr, again.stderr
    assert "REMOVED" not in again.stdout, again.stdout
    assert f"FAILED   {proj}: cannot read folder: Permission denied" in again.stdout
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        assert len(kb.documents()) == 2
