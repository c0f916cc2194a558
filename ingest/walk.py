"""The folder walk shared by ingest and root confinement, so both see the same files.

Used by ``kb.ingest.discover`` (what ``kb ingest`` reads) and ``kb.server.roots.confine`` (what
the tool and HTTP ingest may read). What the walk cannot follow is never dropped in silence: each
unreadable folder, symlink loop and dangling symlink is handed to the caller's ``on_error``
as a ``WalkError``, and the caller decides how to report it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from kb.ingest.ignore import IgnoreRules

NOT_REGULAR = "not a regular file (a pipe, socket or device)"  # never read: a pipe would block
LINKED_FOLDER = "symlinked folder (not followed)"
MAX_NAMED_LINKS = 3  # symlinked folders named one by one in a report's warnings; the rest counted

WalkErrorKind = Literal["unreadable_folder", "unreadable_file", "symlink_loop",
                        "dangling_symlink"]


@dataclass(frozen=True, slots=True)
class WalkError:
    """An entry the walk met but could not read or follow.

    Attributes:
        path: the folder or symlink, as found (unresolved).
        kind: ``unreadable_folder`` (its listing failed), ``unreadable_file`` (a symlink
            whose target cannot be examined, e.g. inside a folder kb may not search),
            ``symlink_loop`` or ``dangling_symlink`` (its target does not exist).
        reason: one line for a report, e.g. ``cannot read folder: Permission denied``.
    """

    path: Path
    kind: WalkErrorKind
    reason: str


def link_error(path: Path, exc: OSError) -> WalkError:
    """Classify why following the symlink ``path`` failed with ``exc``.

    Args:
        path: the symlink.
        exc: the error of ``os.stat(path)`` (which follows links).
    """
    if exc.errno == errno.ELOOP:
        return WalkError(path, "symlink_loop", "symlink loop")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return WalkError(path, "dangling_symlink", "dangling symlink")
    return WalkError(path, "unreadable_file", f"cannot read: {exc.strerror or exc}")


def walk_files(top: Path, suffixes: frozenset[str], *,
               on_error: Callable[[WalkError], None], ignore: IgnoreRules | None = None,
               on_ignored: Callable[[Path, str], None] | None = None) -> Iterator[Path]:
    """Yield the files under folder ``top`` whose suffix is in ``suffixes``, unresolved.

    Without ``ignore``, hidden files and folders (name starting with ``.``) are skipped; with
    it, what ``ignore.reason`` names (built-in excludes, virtualenvs, hidden entries, ignore
    files: ``kb.ingest.ignore``) is, and an ignored folder is not entered. Symlinked folders are not
    followed (no loops); each folder yields its files in sorted order, then its subfolders are
    walked in sorted order, so the walk is deterministic. A yielded path may be a symlink to a
    regular file (the caller resolves and checks it). Other entries (FIFOs, sockets, devices)
    are not files to read and are passed over, reported to ``on_ignored``.

    Reported to ``on_error`` instead of being yielded, whatever their suffix (a broken link
    does not show what it was meant to be): a folder whose listing fails (``top`` included),
    a symlink loop, a dangling symlink, and a symlink whose target cannot be examined.

    Args:
        top: the folder to walk.
        suffixes: file suffixes to keep, lower case with the dot (``.md``).
        on_error: called with each ``WalkError`` as the walk meets it; the walk goes on.
        ignore: the folder's ignore rules, or ``None`` to skip hidden entries only.
        on_ignored: called with (entry, reason) for each entry left out: an ignored file or
            folder (a folder once, its content never looked at), as ``unsupported type
            .org`` (or ``no file extension``) a file whose suffix is not in ``suffixes``, as
            ``NOT_REGULAR`` a FIFO, socket or device (or a link to one), and as
            ``LINKED_FOLDER`` a symlink to a folder.
    """
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            on_error(WalkError(folder, "unreadable_folder",
                               f"cannot read folder: {exc.strerror or exc}"))
            continue
        subfolders: list[Path] = []
        for entry in entries:
            path = Path(entry.path)
            if ignore is None and entry.name.startswith("."):
                continue
            if ignore is not None:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                why = ignore.reason(path, is_dir=is_dir)
                if why is not None:
                    if on_ignored is not None:
                        on_ignored(path, why)
                    continue
            try:
                if entry.is_symlink():
                    try:
                        mode = os.stat(path).st_mode
                    except OSError as exc:
                        on_error(link_error(path, exc))
                        continue
                    regular = stat.S_ISREG(mode)  # a link to a folder is not followed
                    other = LINKED_FOLDER if stat.S_ISDIR(mode) else NOT_REGULAR
                elif entry.is_dir(follow_symlinks=False):
                    subfolders.append(path)
                    continue
                else:
                    regular, other = entry.is_file(follow_symlinks=False), NOT_REGULAR
            except OSError as exc:  # the entry's type needed a stat, and it failed
                on_error(WalkError(path, "unreadable_file", f"cannot read: {exc.strerror or exc}"))
                continue
            if regular and path.suffix.lower() in suffixes:
                yield path
            elif regular and on_ignored is not None:
                on_ignored(path, f"unsupported type {path.suffix.lower()}" if path.suffix
                           else "no file extension")
            elif not regular and on_ignored is not None:  # reading a pipe would wait forever
                on_ignored(path, other)
        stack.extend(reversed(subfolders))


def unfollowed_notes(links: Sequence[Path], roots: Sequence[Path]) -> list[str]:
    """Warnings naming the symlinked folders walks did not follow, with the folder to ingest.

    A link into one of the resolved ``roots`` is left out (its target is indexed there); the
    first ``MAX_NAMED_LINKS`` others are named, the rest counted.
    """
    outside = [link for link in links
               if not any(Path(os.path.realpath(link)).is_relative_to(r) for r in roots)]
    notes = [f"{link}: a symlinked folder, not followed (ingest {os.path.realpath(link)} to "
             "index what it holds)" for link in outside[:MAX_NAMED_LINKS]]
    if len(outside) > MAX_NAMED_LINKS:
        notes.append(f"and {len(outside) - MAX_NAMED_LINKS} more symlinked folders, not followed")
    return notes
