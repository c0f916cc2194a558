"""The folder walk shared by ingest and root confinement, so both see the same files.

Used by ``ingest.discover`` (what ``kb ingest`` reads) and ``kb.roots.confine`` (what the tool
and HTTP ingest may read).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


def walk_files(top: Path, suffixes: frozenset[str]) -> Iterator[Path]:
    """Yield the files under folder ``top`` whose suffix is in ``suffixes``, unresolved.

    Hidden files and folders (name starting with ``.``) are skipped; symlinked folders are not
    followed (no loops); folders and names are visited in sorted order, so the walk is
    deterministic. A yielded path may still be a symlink (the caller resolves and checks it).

    Args:
        top: the folder to walk.
        suffixes: file suffixes to keep, lower case with the dot (``.md``).
    """
    for folder, dirs, names in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith(".") and Path(name).suffix.lower() in suffixes:
                yield Path(folder, name)
