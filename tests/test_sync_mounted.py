"""`kb sync` of a folder with a drive mounted inside it (``~/notes/usb``): a real tmpfs mount.

Unmounted, the drive leaves an empty folder of the outer file system; its documents are kept
and the folder fails, while notes moved or deleted on one file system are synced as before.
Mounting needs privileges: without them the mount tests are skipped (the moves still run).
"""

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import write

from kb.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env={"KB_EMBEDDER": "none"})


def _mount(point: Path) -> None:
    point.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(point)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


def _umount(point: Path) -> None:
    subprocess.run(["umount", str(point)], check=True)


def _drive_notes(point: Path) -> None:
    write(point / "trip.md", "# Trip\n\nThe ferry to Skye leaves at nine in the morning.\n")
    write(point / "sub" / "boat.md", "# Boat\n\nThe dinghy's outboard takes two-stroke fuel.\n")


def _count(db: str) -> int:
    return int(json.loads(run("--db", db, "status", "--json").output)["documents"])


def _synced_with_a_drive(tmp_path: Path) -> tuple[Path, str, Path]:
    """notes/ (home.md) with a tmpfs at notes/usb holding two notes, synced, then unmounted."""
    notes, db = tmp_path / "notes", str(tmp_path / "kb.db")
    write(notes / "home.md", "# Home\n\nThe boiler is serviced every October.\n")
    usb = notes / "usb"
    _mount(usb)
    try:
        _drive_notes(usb)
        assert run("--db", db, "sync", str(notes)).exit_code == 0
        assert _count(db) == 3
    finally:
        _umount(usb)
    return notes, db, usb


def test_an_unmounted_drive_inside_a_synced_folder_keeps_its_documents(tmp_path: Path) -> None:
    notes, db, usb = _synced_with_a_drive(tmp_path)
    r = run("--db", db, "sync", str(notes))  # the mount point is an empty folder now
    assert r.exit_code == 1, r.output
    assert f"FAILED   {usb.resolve()}: 2 documents indexed from here, on another file system" \
        in r.output
    assert f"`kb rm {usb.resolve()}/` or `kb sync --allow-empty {notes.resolve()}`" in r.output
    assert "REMOVED" not in r.output and _count(db) == 3
    # the drive back: synced as before, nothing failed
    _mount(usb)
    try:
        _drive_notes(usb)
        r = run("--db", db, "sync", str(notes))
        assert r.exit_code == 0 and "FAILED" not in r.output, r.output
        assert _count(db) == 3
    finally:
        _umount(usb)
    # the user says it is gone for good
    r = run("--db", db, "sync", "--allow-empty", str(notes))
    assert r.exit_code == 0 and r.output.count("REMOVED") == 2, r.output
    assert _count(db) == 1


def test_the_mount_point_itself_removed_names_it(tmp_path: Path) -> None:
    notes, db, usb = _synced_with_a_drive(tmp_path)
    usb.rmdir()  # an automounter removes its mount point
    r = run("--db", db, "sync", str(notes))
    assert r.exit_code == 1 and f"FAILED   {usb.resolve()}: 2 documents" in r.output, r.output
    assert _count(db) == 3


def test_notes_moved_or_deleted_on_one_file_system_are_synced(tmp_path: Path) -> None:
    # the review's cases against the reverted guard: a move between subfolders and a routine
    # `rm drafts/*` are no drive gone (the same file system), whatever the counts
    notes, db = tmp_path / "notes", str(tmp_path / "kb.db")
    drafts = [write(notes / "drafts" / f"d{i}.md", f"# Draft {i}\n\nGannets, draft {i}.\n")
              for i in range(4)]
    old = [write(notes / "a" / f"n{i}.md", f"# Note {i}\n\nPuffins nest in burrows, {i}.\n")
           for i in range(3)]
    assert run("--db", db, "sync", str(notes)).exit_code == 0
    (notes / "b").mkdir()
    for f in old:
        f.rename(notes / "b" / f.name)
    for f in drafts:
        f.unlink()
    r = run("--db", db, "sync", str(notes))
    assert r.exit_code == 0 and "FAILED" not in r.output, r.output
    assert r.output.count("REMOVED") == 7 and _count(db) == 3


def test_a_drive_back_under_another_device_number_is_synced_as_usual(tmp_path: Path) -> None:
    # a review: device numbers change across mounts (another USB slot, NFS, tmpfs); a note
    # deleted from the drive meanwhile was kept, and the sync failed, for good
    notes, db, usb = _synced_with_a_drive(tmp_path)
    other = tmp_path / "other"
    _mount(other)  # takes the device number the drive had
    try:
        _mount(usb)
        try:
            _drive_notes(usb)
            (usb / "sub" / "boat.md").unlink()  # deleted by the user meanwhile
            r = run("--db", db, "sync", str(notes))
            assert r.exit_code == 0 and "FAILED" not in r.output, r.output
            assert r.output.count("REMOVED") == 1 and "boat.md" in r.output
        finally:
            _umount(usb)
    finally:
        _umount(other)


def test_a_root_that_is_a_drive_back_under_another_number_is_synced_as_usual(
        tmp_path: Path) -> None:
    # a review: with the folder synced the drive itself, a file deleted from its top was
    # "kept" and removed in one report, the file named as a folder
    drive, db, other = tmp_path / "drive", str(tmp_path / "kb.db"), tmp_path / "other"
    _mount(drive)
    try:
        _drive_notes(drive)
        write(drive / "n3.md", "# N3\n\nThe tide tables are in the kitchen drawer.\n")
        assert run("--db", db, "sync", str(drive)).exit_code == 0
    finally:
        _umount(drive)
    _mount(other)
    try:
        _mount(drive)
        try:
            _drive_notes(drive)  # written again without n3.md; sub/boat.md deleted too
            (drive / "sub" / "boat.md").unlink()
            r = run("--db", db, "sync", str(drive))
            assert r.exit_code == 0 and "FAILED" not in r.output, r.output
            assert r.output.count("REMOVED") == 2
        finally:
            _umount(drive)
    finally:
        _umount(other)
