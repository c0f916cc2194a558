"""What a batch of file-system changes asks of the index (``kb watch``).

``plan_changes`` sorts the changes a watcher reports under the folders watched into files to
ingest, sources to remove, and whether only a full sync of the folders can tell (a folder
created, moved or removed; an ignore file edited). What the ignore rules
(``kb.ingest.ignore``) leave out, and files of types kb does not read, are dropped, so a
change in ``node_modules`` costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kb.ingest.ignore import IGNORE_FILES, IgnoreRules, is_unread_rules

ChangeKind = Literal["added", "modified", "deleted"]


@dataclass(frozen=True, slots=True)
class ChangePlan:
    """What to do about a batch of changes.

    Attributes:
        ingest: files to ingest (they exist, are kept by the ignore rules, and kb reads
            their type), sorted.
        remove: paths gone whose documents, if any, are to be removed, sorted.
        resync: a full sync of the folders is needed (it covers ``ingest`` and ``remove``).
    """

    ingest: tuple[Path, ...] = ()
    remove: tuple[Path, ...] = ()
    resync: bool = False

    def __bool__(self) -> bool:
        return bool(self.ingest or self.remove or self.resync)


def plan_changes(changes: Iterable[tuple[ChangeKind, Path]], folders: Sequence[Path],
                 suffixes: frozenset[str], *, ignore: Sequence[str] = ()) -> ChangePlan:
    """Sort ``changes`` under ``folders`` into a ``ChangePlan``.

    Args:
        changes: (kind, absolute path) pairs, in any order; the last one of a path counts
            only in that a path that exists now is ingested and one that does not removed.
        folders: the folders watched, absolute and resolved.
        suffixes: the file suffixes kb reads, lower case with the dot.
        ignore: extra gitignore patterns, relative to each folder.

    Returns:
        The plan; empty (false) when nothing kb indexes changed.
    """
    rules = {folder: IgnoreRules(folder, ignore) for folder in folders}
    ingest: set[Path] = set()
    remove: set[Path] = set()
    resync = False
    for kind, path in changes:
        folder = next((f for f in folders if path == f or path.is_relative_to(f)), None)
        if folder is None or path == folder:
            continue
        if path.name in IGNORE_FILES and rules[folder].reason_under(path.parent) is None:
            resync = True  # the rules themselves changed
            continue
        why = rules[folder].reason_under(path)
        if why is not None:
            if is_unread_rules(why) and not path.exists() and path.suffix.lower() in suffixes:
                remove.add(path)  # gone is gone, whatever an unreadable ignore file says
            continue
        if path.is_dir():
            resync = True  # a folder moved in, or made: its files may never be reported
        elif path.is_file():
            if path.suffix.lower() in suffixes:
                ingest.add(path)
        elif kind == "deleted" or not path.exists():
            if path.suffix.lower() in suffixes:
                remove.add(path)
            elif not path.suffix:
                resync = True  # perhaps a folder, moved or removed with its files
    return ChangePlan(tuple(sorted(ingest)), tuple(sorted(remove)), resync)
