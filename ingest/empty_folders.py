"""A sync's guard against a folder that only looks emptied, such as an unmounted drive.

``kb sync DIR`` removes the documents whose files are gone from ``DIR``. When ``DIR`` holds no
file kb would read at all while the index holds documents from it, the likelier story is a
drive or share that is not mounted (its mount point is an empty folder) than a user who deleted
every file. The documents are then kept and the folder becomes a ``failed`` outcome naming it,
so the command exits 1, unless the caller says the folder really is empty (``allow_empty``;
``kb sync --allow-empty``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kb.ingest.walk import WalkError, walk_files
from kb.store import Store
from kb.types import FileOutcome

ALLOW_EMPTY_HINT = "`kb sync --allow-empty` removes them"


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


def kept_empty_folders(store: Store, roots: Iterable[Path], suffixes: frozenset[str]
                       ) -> list[FileOutcome]:
    """The folders among ``roots`` a sync must not empty, each as a ``failed`` outcome.

    A folder qualifies when it holds no file with one of ``suffixes`` while the index holds
    documents under it (see the module docstring).

    Args:
        store: the open store.
        roots: the paths given to the sync; files among them are ignored.
        suffixes: the file suffixes kb reads, lower case with the dot.

    Returns:
        One outcome per such folder, in the order given: its resolved path, action
        ``failed``, and a reason counting the documents kept and naming the way to remove
        them.
    """
    folders = [p.expanduser().resolve() for p in roots]
    folders = list(dict.fromkeys(f for f in folders if f.is_dir()))
    if not folders:
        return []
    sources = [d.source for d in store.documents()]
    outcomes = []
    for folder in folders:
        prefix = str(folder).rstrip("/") + "/"
        held = sum(1 for s in sources if s.startswith(prefix))
        if held and holds_no_files(folder, suffixes):
            noun = "document" if held == 1 else "documents"
            outcomes.append(FileOutcome(str(folder), "failed", reason=(
                f"the folder holds no files, but the index has {held} {noun} from it: kept "
                f"(is a drive or share not mounted?); {ALLOW_EMPTY_HINT}")))
    return outcomes
