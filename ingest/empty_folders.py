"""A sync's guard against a folder that only looks emptied, such as an unmounted drive.

``kb sync DIR`` removes the documents whose files are gone from ``DIR``. When ``DIR`` holds no
file kb would read at all while the index holds documents from it, the likelier story is a
drive or share that is not mounted (its mount point is an empty folder) than a user who deleted
every file. The documents are then kept and the folder becomes a ``failed`` outcome naming it,
so the command exits 1, unless the caller says the folder really is empty (``allow_empty``;
``kb sync --allow-empty``). The same holds when none of ``ALL_GONE_MIN`` or more documents
is left though the folder holds other files (a mount point with a placeholder file), and
for a folder given that is gone (``split_gone``).

Inside a folder synced, a subfolder is kept the same way when the documents gone from it were
on another file system than the folder now there (``unmounted_folders``): a drive mounted at
``~/notes/usb`` and now unmounted leaves an empty folder of the outer file system, where notes
moved or deleted leave their folder's own. Each ingest records the file system of the folders
it read files in (``record_folder_devices``, ``kb.store.devices``).
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from kb.ingest.discover import check_given, split_given
from kb.ingest.extract import SUPPORTED_SUFFIXES
from kb.ingest.problems import storable
from kb.ingest.prune import file_gone
from kb.ingest.walk import WalkError, walk_files
from kb.store import Store
from kb.store.devices import devices_under, record_devices
from kb.store.problems import FOLDER_SIZE, get_problem
from kb.types import Document, FileOutcome, folder_prefix

# a folder whose every indexed document (this many at least) is gone, though it holds other
# files, looks unmounted too: a mount point with a placeholder file ("NOT_MOUNTED.txt")
ALL_GONE_MIN = 3


def held_under(sources: list[str], folder: str) -> int:
    """How many of ``sources`` (stored documents' sources) lie under the folder ``folder``."""
    prefix = folder_prefix(folder)
    return sum(1 for s in sources if s.startswith(prefix))


def split_gone(store: Store, paths: Iterable[Path | str]
               ) -> tuple[list[Path | str], list[FileOutcome]]:
    """The paths given to a sync that exist, and a ``failed`` outcome for each folder gone.

    A folder gone (an unmounted drive's mount point removed, a share not there) keeps the
    documents the index has from it, as an emptied one does: its reason counts them and names
    the way to remove them. A path that does not exist and never held a document is a typo.

    Args:
        store: the open store.
        paths: the paths given, as ``kb.ingest.discover.split_given`` takes them.

    Raises:
        FileNotFoundError: a path does not exist and the index has no document from under
            it (as ``kb.ingest.discover.check_given`` says), before anything is written.
    """
    sources = [d.source for d in store.documents()]
    found: list[Path | str] = []
    gone: dict[str, FileOutcome] = {}
    typos = []
    for raw in paths:
        there, missing = split_given([raw])
        found += there
        for o in missing:
            real = os.path.realpath(o.path)  # a dangling link: where it led
            if not (held := held_under(sources, real)):
                typos.append(raw)
                continue
            noun = "document" if held == 1 else "documents"
            gone[o.path] = FileOutcome(o.path, "failed", reason=(
                f"{o.reason}, but the index has {held} {noun} from it: kept (is a drive or "
                f"share not mounted?); `kb rm {shlex.quote(real + '/')}` removes them"))
    check_given(typos)
    return found, list(gone.values())


def _moved(gone: list[Document], docs: list[Document]) -> bool:
    """Whether one of the documents ``gone`` is indexed again from a file that is there.

    The same bytes under another name: notes moved into a subfolder or renamed, no drive gone.
    An empty hash is no content (a document an upkeep step marked to be read again: every
    PDF after ``pdf-structure-reread``), so two of them are not the same bytes.
    """
    left = {g.source for g in gone}
    there = {d.content_hash for d in docs if d.source not in left and not file_gone(Path(d.source))}
    return any(d.content_hash and d.content_hash in there for d in gone)


def holds_no_files(folder: Path, suffixes: frozenset[str]) -> bool:
    """Whether a walk of ``folder`` finds no file with one of ``suffixes`` (stops at the first).

    What the walk cannot read inside it (a subfolder, a broken link) is not a file: a folder
    that holds only such entries holds no files. A folder that cannot be listed at all is not
    known to hold none (the walk reports it as failed, and its documents stay anyway).
    """
    unlisted: list[WalkError] = []

    def on_error(error: WalkError) -> None:
        if error.path == folder:
            unlisted.append(error)

    return next(walk_files(folder, suffixes, on_error=on_error), None) is None and not unlisted


def kept_empty_folders(store: Store, roots: Iterable[Path], suffixes: frozenset[str],
                       added: Iterable[str] = ()) -> list[FileOutcome]:
    """The folders among ``roots`` a sync must not empty, each as a ``failed`` outcome.

    A folder qualifies when it holds no file with one of ``suffixes`` while the index holds
    documents under it (see the module docstring), or when none of the ``ALL_GONE_MIN`` or
    more documents the index has from it is there any more, though it holds other files.

    Args:
        store: the open store.
        roots: the paths given to the sync; files among them are ignored.
        suffixes: the file suffixes kb reads, lower case with the dot.
        added: the sources this batch added (the placeholder file is no document of the drive).

    Returns:
        One outcome per such folder, in the order given: its resolved path, action
        ``failed``, and a reason counting the documents kept and naming the way to remove
        them.
    """
    folders = [p.expanduser().resolve() for p in roots]
    folders = list(dict.fromkeys(f for f in folders if f.is_dir()))
    if not folders:
        return []
    new = set(added)
    docs = store.documents()
    outcomes = []
    for folder in folders:
        # while kept, files that came since (the placeholder) are none of the drive's
        kept = get_problem(store, str(folder)) if storable(str(folder)) else None  # not UTF-8
        since = kept.reported_at if kept is not None and kept.size == FOLDER_SIZE else None
        prefix = folder_prefix(str(folder))
        under = [d for d in docs if d.source.startswith(prefix)
                 and d.source not in new and (since is None or d.ingested_at < since)]
        noun = "document" if len(under) == 1 else "documents"
        if under and holds_no_files(folder, suffixes):
            why = f"the folder holds no files, but the index has {len(under)} {noun} from it"
        elif len(under) >= ALL_GONE_MIN and all(file_gone(Path(d.source)) for d in under) and (
                not _moved(under, docs)):
            why = (f"none of the {len(under)} {noun} the index has from it is there any more "
                   "(the folder holds other files)")
        else:  # a drive mounted inside it (~/notes/usb) and not now
            outcomes += unmounted_folders(store, folder, docs)
            continue
        outcomes.append(FileOutcome(str(folder), "failed", reason=(
            f"{why}: kept (is a drive or share not mounted?); `kb sync --allow-empty "
            f"{shlex.quote(str(folder))}` removes them")))
    return outcomes


def guard_folders(store: Store, roots: Iterable[Path], found: Iterable[Path | FileOutcome], *,
                  allow_empty: bool, added: Iterable[str] = ()) -> list[FileOutcome]:
    """The folders a sync keeps (``kept_empty_folders``; none with ``allow_empty``).

    Then the file systems of the folders holding the files ``found`` are recorded for the
    next sync (``record_folder_devices``).
    """
    roots = list(roots)
    kept = [] if allow_empty else kept_empty_folders(store, roots, SUPPORTED_SUFFIXES, added)
    record_folder_devices(store, found)
    return kept


def record_folder_devices(store: Store, found: Iterable[Path | FileOutcome]) -> None:
    """Record the file system of each folder holding one of the files ``found``.

    Call it after ``kept_empty_folders``, which compares with what the last batch recorded (a
    placeholder file in an unmounted drive's mount point would record the outer one first).
    """
    devices = {}
    for folder in {p.parent for p in found if isinstance(p, Path)}:
        try:
            if storable(str(folder)):
                devices[str(folder)] = folder.stat().st_dev
        except OSError:  # gone meanwhile: nothing to record
            continue
    record_devices(store, devices)


def unmounted_folders(store: Store, root: Path, docs: Sequence[Document]) -> list[FileOutcome]:
    """Folders inside ``root`` whose documents are gone with the file system they were on.

    A document whose file is gone, in a subfolder of ``root``, counts when its folder was
    recorded on another file system than the root's, and the nearest folder above it that is
    there is on the root's file system now: the drive mounted there is not (an empty mount
    point, or none). It counts for that folder (or, when that is the root, the root's
    subfolder on its path: the mount point itself went). A drive mounted again, under
    another device number too, puts its folders on another file system than the root's:
    files gone from it are gone. When the root's own file system was recorded under another
    device number than its current one (a drive or share renumbered), nothing is counted.
    Documents indexed before their folder's file system was recorded are not counted.

    Args:
        store: the open store.
        root: a folder synced, resolved.
        docs: the index's documents.

    Returns:
        One ``failed`` outcome per such folder, sorted by path, its reason counting the
        documents kept and naming the ways to remove them.
    """
    if not storable(str(root)):  # a name not UTF-8: no document or record is stored under it
        return []
    recorded = devices_under(store, str(root))
    try:
        outer = root.stat().st_dev
    except OSError:
        return []
    if recorded.pop(str(root), outer) != outer:  # renumbered: the devices say nothing
        return []
    # only a folder recorded on another file system can have been a drive's: the others'
    # files are not looked at (on most syncs, none)
    elsewhere = {folder for folder, device in recorded.items() if device != outer}
    prefix = folder_prefix(str(root))
    gone = [path for d in docs if d.source.startswith(prefix)
            and str((path := Path(d.source)).parent) in elsewhere and file_gone(path)]
    points: Counter[Path] = Counter()
    for path in gone:
        there = path.parent
        while there != root and not there.is_dir():
            there = there.parent
        try:
            if there.stat().st_dev != outer:  # a drive there now: its files really went
                continue
        except OSError:
            continue
        points[there if there != root else root / path.relative_to(root).parts[0]] += 1
    return [FileOutcome(str(point), "failed", reason=(
        f"{held} {'document' if held == 1 else 'documents'} indexed from here, on another file "
        f"system than the folder now here, {'is' if held == 1 else 'are'} gone: kept (is a "
        f"drive or share not mounted here?); `kb rm {shlex.quote(str(point) + '/')}` or "
        f"`kb sync --allow-empty {shlex.quote(str(root))}` removes them"))
        for point, held in sorted(points.items())]
