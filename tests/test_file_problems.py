"""Files kb cannot index are reported once and remembered (issue 13, item 4; acceptance 3)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import DOCS, write

from kb.cli import cli

ENCRYPTED = DOCS / "pdf" / "libreoffice-writer-password.pdf"  # needs a user password
GOOD_PDF = DOCS / "pdf" / "minimal-document.pdf"


def _sync(db: Path, folder: Path, *extra: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", "sync", *extra,
                                    str(folder)])


def _folder(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = (tmp_path / "docs").resolve()
    write(folder / "good.md", "# Good\n\nGannets dive from thirty metres.\n")
    pdf = folder / "locked.pdf"
    shutil.copy(ENCRYPTED, pdf)
    empty = folder / "images.docx"  # images and no text: kb cannot read it (no vision model)
    shutil.copy(DOCS / "docx" / "python-docx-having-images.docx", empty)
    return folder, pdf, empty


def test_a_second_sync_skips_known_problems_and_exits_0(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    folder, pdf, empty = _folder(tmp_path)
    first = _sync(db, folder)
    assert first.exit_code == 1, first.output
    assert f"FAILED   {pdf}: encrypted" in first.output
    assert f"FAILED   {empty}: " in first.output
    second = _sync(db, folder)
    assert second.exit_code == 0, second.output
    assert f"SKIPPED  {pdf}: encrypted" in second.output
    assert "skipped until the file changes" in second.output
    assert "0 failed" in second.output
    quiet = _sync(db, folder, "--check")
    # a trial: cron mails whatever a job prints, so the report came every run
    assert quiet.exit_code == 0 and quiet.output == "", quiet.output


@pytest.mark.slow  # embeds 1,001 small notes with the real model (about 10 s)
def test_check_says_nothing_of_a_long_embedding_either(tmp_path: Path) -> None:
    # a review: cron mails stderr too, and --check still printed the long embedding's
    # progress lines there
    from kb.cli.progress import LONG_EMBED_CHUNKS

    folder = tmp_path / "many"
    for i in range(LONG_EMBED_CHUNKS + 1):
        write(folder / f"n{i}.md", f"# Note {i}\n\nword{i} gannet\n")
    db = str(tmp_path / "kb.db")
    r = CliRunner().invoke(cli, ["--db", db, "sync", "--check", str(folder)])
    # the one line: the index did not exist before (said once, as every command says it)
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr == f"kb: note: created {db}, a new index (--db)\n", r.stderr
    write(folder / "n0.md", "# Note 0\n\nword0 gannet, edited\n")
    r = CliRunner().invoke(cli, ["--db", db, "sync", str(folder)])  # a plain sync reports
    assert r.exit_code == 0 and "1 updated" in r.stdout, r.output


def test_a_changed_file_is_read_again_and_a_fixed_one_forgotten(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    folder, pdf, empty = _folder(tmp_path)
    _sync(db, folder)
    os.utime(pdf, (1_000_000_000, 1_000_000_000))  # changed, as far as kb can tell cheaply
    again = _sync(db, folder, "--check")
    assert again.exit_code == 1 and f"FAILED   {pdf}: encrypted" in again.output, again.output
    shutil.copy(GOOD_PDF, pdf)
    fixed = _sync(db, folder)
    assert fixed.exit_code == 0 and "1 added" in fixed.output, fixed.output
    with sqlite3.connect(db) as conn:
        remembered = {r[0] for r in conn.execute("SELECT source FROM file_problems")}
    assert remembered == {str(empty)}
    empty.unlink()
    _sync(db, folder)
    with sqlite3.connect(db) as conn:
        assert not conn.execute("SELECT count(*) FROM file_problems").fetchone()[0]


def test_a_file_given_directly_is_always_read_again(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    folder, pdf, _ = _folder(tmp_path)
    _sync(db, folder)
    r = CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", "ingest", str(pdf)])
    assert r.exit_code == 1 and f"FAILED   {pdf}: encrypted" in r.output, r.output


def test_check_on_a_file_given_by_name_is_new_once(tmp_path: Path) -> None:
    # a trial: `kb sync --check FILE` read the file again, as a file given is, and called the
    # same failure new on every run (exit 1 every time)
    db = tmp_path / "kb.db"
    _, pdf, _ = _folder(tmp_path)
    assert [_sync(db, pdf, "--check").exit_code for _ in range(3)] == [1, 0, 0]
    assert f"FAILED   {pdf}: encrypted" in _sync(db, pdf).output  # still read, still said
    os.utime(pdf, (1_000_000_000, 1_000_000_000))  # changed: new again
    assert _sync(db, pdf, "--check").exit_code == 1


def test_check_exits_1_only_on_new_problems_of_folders_too(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    folder = (tmp_path / "mount").resolve()
    note = write(folder / "a.md", "# A\n\nPuffins burrow.\n")
    assert _sync(db, folder).exit_code == 0
    note.unlink()  # looks like an unmounted drive: documents kept, the folder fails
    assert _sync(db, folder, "--check").exit_code == 1
    assert _sync(db, folder, "--check").exit_code == 0  # reported before
    plain = _sync(db, folder)
    assert plain.exit_code == 1 and "the folder holds no files" in plain.output
    write(folder / "a.md", "# A\n\nPuffins burrow.\n")
    assert _sync(db, folder).exit_code == 0
    note.unlink()
    assert _sync(db, folder, "--check").exit_code == 1  # it went away, so it is new again


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run kb as root that obeys file modes")
def test_check_exits_1_once_for_a_file_kb_may_not_read(tmp_path: Path) -> None:
    # a new-user trial: `kb sync --check` exited 1 on every run for one unreadable file
    db = tmp_path / "kb.db"
    folder = (tmp_path / "docs").resolve()
    write(folder / "good.md", "# Good\n\nGannets dive from thirty metres.\n")
    secret = write(folder / "secret.md", "# Secret\n\nThe key is under the mat.\n")
    secret.chmod(0o000)

    def sync(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                               sys.executable, "-m", "kb", "--db", str(db), "--embedder", "none",
                               "sync", *extra, str(folder)], capture_output=True, text=True,
                              timeout=120)

    try:
        first = sync("--check")
        assert first.returncode == 1 and f"{secret}: cannot read" in first.stdout, first.stdout
        again = sync("--check")  # read again, failing again, but reported before: silent
        assert again.returncode == 0 and again.stdout == "", again.stdout
        assert sync().returncode == 1  # a plain sync says it fails, every run
    finally:
        secret.chmod(0o644)
    fixed = sync()
    assert fixed.returncode == 0 and "1 added" in fixed.stdout, fixed.stdout
    with sqlite3.connect(db) as conn:
        assert not conn.execute("SELECT count(*) FROM file_problems").fetchone()[0]
