"""`kb sync` on a folder that holds no files (an unmounted drive) keeps its documents."""

import json
import os
import shutil

import pytest
from click.testing import CliRunner
from conftest import write, write_pdf

from kb.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"KB_EMBEDDER": "none"})


def _notes(folder, n=5):
    return [write(folder / f"note{i}.md", f"# Note {i}\n\nGannets dive for fish, note {i}.\n")
            for i in range(n)]


def _synced_then_emptied(db, folder, n=5):
    """``n`` notes written in ``folder`` and synced, then each deleted (a drive unmounted)."""
    files = _notes(folder, n)
    assert run("--db", db, "sync", str(folder)).exit_code == 0
    for f in files:
        f.unlink()
    return files


def test_sync_of_an_emptied_folder_keeps_its_documents_and_fails_naming_it(tmp_path):
    db, folder = str(tmp_path / "kb.db"), tmp_path / "drive"
    _synced_then_emptied(db, folder)  # the drive is unmounted: its mount point is empty
    r = run("--db", db, "sync", str(folder))
    assert r.exit_code == 1, r.output
    assert (f"FAILED   {folder.resolve()}: the folder holds no files, but the index has 5 "
            "documents from it: kept") in r.output
    # the hint names the folder (a trial ran `kb sync --allow-empty` alone: the config roots)
    assert f"`kb sync --allow-empty {folder.resolve()}` removes them" in r.output
    assert "REMOVED" not in r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 5
    r = run("--db", db, "sync", str(folder), "--json")
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert r.exit_code == 1 and lines[0]["action"] == "failed"
    assert lines[0]["path"] == str(folder.resolve()) and lines[-1]["removed"] == []
    r = run("--db", db, "sync", str(folder), "--allow-empty")
    assert r.exit_code == 0, r.output
    assert r.output.count("REMOVED") == 5
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 0


def test_a_folder_with_a_file_left_is_synced_as_before(tmp_path, kb_bm25):
    folder = tmp_path / "notes"
    files = _notes(folder, 3)
    kb_bm25.sync([folder])
    for f in files[1:]:
        f.unlink()
    report = kb_bm25.sync([folder])
    assert report.count("failed") == 0 and len(report.removed) == 2


def test_the_api_keeps_an_emptied_folder_unless_allowed(tmp_path, kb_bm25):
    keep, other = tmp_path / "drive", tmp_path / "other"
    files = _notes(keep, 2)
    gone = _notes(other, 2)
    kb_bm25.sync([keep, other])
    for f in files + gone[:1]:
        f.unlink()
    report = kb_bm25.sync([keep, other])  # the other folder is synced as usual
    assert [(o.path, o.action) for o in report.outcomes if o.action == "failed"] == [
        (str(keep.resolve()), "failed")]
    assert report.removed == (str(gone[0].resolve()),)
    assert len(kb_bm25.documents()) == 3
    report = kb_bm25.sync([keep], allow_empty=True)
    assert report.count("failed") == 0 and len(report.removed) == 2
    assert [d.source for d in kb_bm25.documents()] == [str(gone[1].resolve())]


def test_a_folder_that_cannot_be_listed_is_reported_once_and_kept(tmp_path, kb_bm25):
    folder = tmp_path / "locked"
    _notes(folder, 2)
    kb_bm25.sync([folder])
    folder.chmod(0o000)
    try:
        if os.access(folder, os.R_OK | os.X_OK):
            pytest.skip("the permission bypass reads a mode-000 folder (root with "
                        "CAP_DAC_OVERRIDE); run without it to test this")
        report = kb_bm25.sync([folder])
    finally:
        folder.chmod(0o755)
    assert [(o.path, o.reason) for o in report.outcomes] == [
        (str(folder.resolve()), "cannot read folder: Permission denied")]
    assert report.removed == () and len(kb_bm25.documents()) == 2


def test_a_gone_folder_keeps_its_documents_and_the_others_are_synced(tmp_path):
    db, drive, notes = str(tmp_path / "kb.db"), tmp_path / "drive", tmp_path / "notes"
    _notes(drive, 3)
    kept = _notes(notes, 2)
    assert run("--db", db, "sync", str(drive), str(notes)).exit_code == 0
    os.rename(drive, tmp_path / "away")  # unmounted: its mount point removed
    kept[0].unlink()
    r = run("--db", db, "sync", str(drive), str(notes))
    assert r.exit_code == 1, r.output
    assert (f"FAILED   {drive}: no such file or folder, but the index has 3 documents from "
            f"it: kept (is a drive or share not mounted?); `kb rm {drive}/` removes them"
            ) in r.output
    assert f"REMOVED  {kept[0]}" in r.output and r.output.count("REMOVED") == 1
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 4
    # cron: the same gone folder is no new problem; nothing else changed
    assert run("--db", db, "sync", "--check", str(drive), str(notes)).exit_code == 0
    assert run("--db", db, "sync", "--check", str(drive)).exit_code == 0
    r = run("--db", db, "docs", "--failed")  # listed while its documents are kept
    assert r.stdout.startswith(f"FAILED  {drive}: no such file or folder, but"), r.output
    # `kb rm` names a folder gone too
    r = run("--db", db, "rm", f"{drive}/")
    assert r.exit_code == 0 and r.stdout.count("removed ") == 3, r.output
    # a trial: the sync naming it stopped every run after, as on a typo; say so at `kb rm`
    assert r.stderr.startswith(f"note: {drive}/ is gone and the index has nothing from "
                               "it now: take it out of the `kb sync` and `kb watch`"), r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 1
    assert run("--db", db, "docs", "--failed").stdout == ""  # nothing kept: not listed
    r = run("--db", db, "rm", str(notes / "note1.md"))  # a file: no note
    assert r.exit_code == 0 and r.stderr == "", r.output


def test_the_commands_a_kept_folder_names_are_quoted_for_the_shell(tmp_path):
    # a review: the hints named a folder with a space unquoted (copied, it was two arguments)
    db, drive = str(tmp_path / "kb.db"), tmp_path / "my drive"
    _synced_then_emptied(db, drive, 3)
    r = run("--db", db, "sync", str(drive))
    assert f"`kb sync --allow-empty '{drive.resolve()}'` removes them" in r.output, r.output
    os.rename(drive, tmp_path / "away")
    r = run("--db", db, "sync", str(drive))
    assert f"`kb rm '{drive}/'` removes them" in r.output, r.output


def test_a_failed_file_on_a_drive_gone_is_still_listed(tmp_path):
    # a review: `kb docs --failed` hid a failure whose path did not exist, so an unmounted
    # drive's failures vanished from the list as deleted files' do
    db, drive = str(tmp_path / "kb.db"), tmp_path / "drive"
    _notes(drive, 1)
    (broken := drive / "sub" / "broken.pdf").parent.mkdir()
    broken.write_bytes(b"%PDF-1.4 truncated")
    assert run("--db", db, "sync", str(drive)).exit_code == 1
    os.rename(drive, tmp_path / "away")
    r = run("--db", db, "docs", "--failed")
    assert r.stdout.startswith(f"FAILED  {broken}: "), r.output
    os.rename(tmp_path / "away", drive)
    broken.unlink()  # deleted from a folder still there: not listed
    assert run("--db", db, "docs", "--failed").stdout == ""
    # a review: a folder that held only failed files, deleted whole, was listed for ever (it
    # has no documents to keep: no drive to wait for)
    (bad := tmp_path / "t2" / "bad" / "y.pdf").parent.mkdir(parents=True)
    bad.write_bytes(b"%PDF-1.4 x")
    assert run("--db", db, "sync", str(tmp_path / "t2")).exit_code == 1
    assert run("--db", db, "docs", "--failed").stdout.startswith(f"FAILED  {bad}: ")
    shutil.rmtree(tmp_path / "t2")
    assert run("--db", db, "docs", "--failed").stdout == ""


def test_a_gone_folder_is_a_new_problem_once_and_forgotten_when_back(tmp_path):
    db, drive = str(tmp_path / "kb.db"), tmp_path / "drive"
    _notes(drive, 2)
    assert run("--db", db, "sync", str(drive)).exit_code == 0
    os.rename(drive, tmp_path / "away")
    r = run("--db", db, "sync", "--check", "--json", str(drive))
    assert r.exit_code == 1 and json.loads(r.output.splitlines()[-1])["new_problems"] == [
        str(drive)]
    assert run("--db", db, "sync", "--check", str(drive)).exit_code == 0
    os.rename(tmp_path / "away", drive)  # mounted again: synced, its record forgotten
    r = run("--db", db, "sync", "--check", str(drive))
    assert r.exit_code == 0 and "FAILED" not in r.output, r.output
    os.rename(drive, tmp_path / "away")  # gone again: new again
    assert run("--db", db, "sync", "--check", str(drive)).exit_code == 1


def test_a_typo_among_the_folders_still_stops_the_sync_before_any_write(tmp_path):
    db, notes = str(tmp_path / "kb.db"), tmp_path / "notes"
    _notes(notes, 2)
    assert run("--db", db, "sync", str(notes)).exit_code == 0
    files = _notes(notes, 3)  # a third note written since
    typo = tmp_path / "notse"
    for args in (("sync", str(notes), str(typo)), ("sync", "--check", str(typo))):
        r = run("--db", db, *args)
        assert r.exit_code == 1 and f"{typo}: no such file or folder" in r.output, r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 2
    assert files[2].exists()


def test_a_dangling_link_to_a_gone_drive_keeps_what_it_led_to(tmp_path, kb_bm25):
    drive, link = tmp_path / "drive", tmp_path / "notes"
    _notes(drive, 2)
    link.symlink_to(drive)
    kb_bm25.sync([link])
    os.rename(drive, tmp_path / "away")
    report = kb_bm25.sync([link])
    (failed,) = report.outcomes
    assert failed.action == "failed" and failed.path == str(link)
    assert "2 documents from it: kept" in failed.reason and f"`kb rm {drive}/`" in failed.reason
    assert len(kb_bm25.documents()) == 2 and not report.removed


def test_a_drive_back_after_looking_empty_brings_no_new_problem(tmp_path):
    # a trial: an emptied mount point's sync forgot the records of its failed files, so the
    # next `kb sync --check` after the remount reported them as new (a false cron alarm)
    db, drive, away = str(tmp_path / "kb.db"), tmp_path / "drive", tmp_path / "away"
    _notes(drive, 2)
    (drive / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    assert run("--db", db, "sync", str(drive)).exit_code == 1  # the PDF fails, reported
    assert run("--db", db, "sync", "--check", str(drive)).exit_code == 0  # known
    away.mkdir()
    for f in list(drive.iterdir()):  # unmounted: the mount point is an empty folder
        f.rename(away / f.name)
    r = run("--db", db, "sync", "--check", str(drive))
    assert r.exit_code == 1 and "the folder holds no files" in r.output  # new, once
    for f in list(away.iterdir()):  # mounted again
        f.rename(drive / f.name)
    r = run("--db", db, "sync", "--check", "--json", str(drive))
    lines = [json.loads(line) for line in r.output.splitlines()]
    assert r.exit_code == 0 and lines[-1]["new_problems"] == [], r.output
    assert any(o["action"] == "skipped" and o["path"].endswith("broken.pdf")
               for o in lines[:-1]), r.output


def test_a_mount_point_with_a_placeholder_file_keeps_the_drives_documents(tmp_path):
    # a trial: an empty mount point holding "NOT_MOUNTED.txt" got past the guard (the folder
    # held a file), and `kb sync` removed every document of the drive, exit 0
    db, drive = str(tmp_path / "kb.db"), tmp_path / "drive"
    notes = _synced_then_emptied(db, drive, 4)
    write(drive / "NOT_MOUNTED.txt", "The backup drive is not mounted.\n")
    r = run("--db", db, "sync", str(drive))
    assert r.exit_code == 1 and "REMOVED" not in r.output, r.output
    assert (f"FAILED   {drive.resolve()}: none of the 4 documents the index has from it is "
            "there any more (the folder holds other files): kept") in r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 5
    for _ in range(2):  # a review: the next sync counted the placeholder, indexed by the first
        r = run("--db", db, "sync", "--check", "--json", str(drive))
        lines = [json.loads(line) for line in r.output.splitlines()]
        assert r.exit_code == 0 and lines[-1]["removed"] == [], r.output
        assert any("kept" in o["reason"] for o in lines[:-1]), r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 5
    # one note of four left: a user's deletions, synced as before
    write(notes[0], "# Note 0\n\nGannets dive for fish, note 0.\n")
    r = run("--db", db, "sync", str(drive))
    assert r.exit_code == 0 and r.output.count("REMOVED") == 3, r.output


def test_notes_moved_into_a_subfolder_are_a_move_not_a_drive_gone(tmp_path):
    # a review: moving three notes into notes/2024/ was taken for an unmounted drive
    db, notes = str(tmp_path / "kb.db"), tmp_path / "notes"
    files = _notes(notes, 3)
    assert run("--db", db, "sync", str(notes)).exit_code == 0
    for f in files:
        (notes / "2024").mkdir(exist_ok=True)
        f.rename(notes / "2024" / f.name)
    r = run("--db", db, "sync", str(notes))
    assert r.exit_code == 0 and r.output.count("REMOVED") == 3 and "3 added" in r.output, \
        r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 3


def test_documents_marked_to_be_read_again_are_no_move_of_each_other(tmp_path):
    # a review: the upkeep step that reads PDFs again empties their content hashes, and an
    # empty hash matched another: a drive's PDFs, all gone behind a placeholder file, looked
    # moved to the other folder's PDF, and `kb sync` removed them, exit 0
    import sqlite3

    db, drive, other = str(tmp_path / "kb.db"), tmp_path / "drive", tmp_path / "other"
    pdfs = [write_pdf(drive / f"{n}.pdf", [[f"Document {n} about kites."]], n)
            for n in ("one", "two", "three")]
    write_pdf(other / "four.pdf", [["Document four about bees."]], "four")
    assert run("--db", db, "sync", str(drive), str(other)).exit_code == 0
    with sqlite3.connect(db) as conn:  # as the upkeep step leaves them
        conn.execute("UPDATE documents SET content_hash = '' WHERE source_type = 'pdf'")
    for pdf in pdfs:
        pdf.unlink()
    write(drive / "NOT_MOUNTED.txt", "The drive is not mounted.\n")
    r = run("--db", db, "sync", str(drive))
    assert r.exit_code == 1 and "REMOVED" not in r.output, r.output
    assert "kept" in r.output
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 5
