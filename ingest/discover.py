"""Find the files an ingest should read: files given directly, and folders walked recursively."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from kb.walk import walk_files

MAX_FILE_BYTES = 200 * 1024 * 1024  # size budget per file; larger files fail alone


def discover(paths: Iterable[Path | str], suffixes: frozenset[str]) -> Iterator[Path]:
    """Yield resolved files under ``paths`` whose suffix is supported, each once, sorted per folder.

    Folders are walked by ``kb.walk.walk_files`` (hidden entries skipped, symlinked folders
    not followed). A path given directly is yielded whatever
    its suffix, so an unsupported file is reported rather than silently ignored.

    Raises:
        FileNotFoundError: a given path does not exist.
    """
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"{raw}: no such file or folder")
        path = path.resolve()
        if path.is_file():
            if path not in seen:
                seen.add(path)
                yield path
            continue
        for found in walk_files(path, suffixes):
            try:
                f = found.resolve(strict=True)
            except (OSError, RuntimeError):  # dangling link or symlink loop: skip it
                continue
            if f.is_file() and f not in seen:
                seen.add(f)
                yield f
