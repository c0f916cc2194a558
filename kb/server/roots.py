"""Confine ingest requests from tools and the HTTP API to configured root folders.

A path is allowed when its *real* path (every symlink followed) lies inside the real path of a
root. Refused, with ``PathRefused`` naming the path:

- any path while no root is configured (ingest through a tool is off by default);
- a path with a ``..`` component (never needed by an honest caller);
- an absolute path outside every root (one message whether or not it exists, so a refusal
  reveals nothing about the file system out there);
- a path inside a root that resolves outside every root through a symlink;
- a symlink loop (``Path.resolve`` detects it; nothing hangs).

A relative path is looked up under each root in turn; the first root holding it wins.
Folders are walked without following symlinked folders, and each file found is checked like a
given path, so a symlinked file pointing out of the root is refused too. A folder the walk
cannot read, a symlink loop and a dangling symlink met on the way are listed as refused with
their reason, never dropped in silence.

The check and the later read are two steps: a local user who can swap a file for a symlink in
between can still race it. Roots are for keeping a remote caller (an agent, an HTTP client)
inside the folders its owner chose, not a sandbox against local users.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kb.errors import PathRefused
from kb.ingest.walk import WalkError, walk_files
from kb.scoped import DocumentScope


@dataclass(frozen=True, slots=True)
class ConfinedFiles:
    """Files an ingest may read, after confinement.

    Attributes:
        files: resolved files inside the roots, in walk order, each once.
        refused: ``(path, reason)`` for what a walked folder held that was left out: files
            resolving outside the roots, and what the walk could not read or follow
            (``cannot read folder: ...``, ``symlink loop``, ``dangling symlink``).
        named: those of ``files`` given by name, not found in a folder (the ingest reads
            them again even when they failed before; a walked folder's known-bad files are
            skipped until they change, as ``kb ingest FOLDER`` skips them).
    """

    files: tuple[Path, ...]
    refused: tuple[tuple[str, str], ...] = ()
    named: tuple[Path, ...] = ()


def check_roots(roots: Iterable[Path | str]) -> tuple[Path, ...]:
    """Resolve configured roots (at start-up), each once.

    Args:
        roots: folders, as given on the command line.

    Returns:
        Their real paths, in the given order.

    Raises:
        ValueError: a root does not exist, is not a folder or is ``""``.
    """
    out: list[Path] = []
    for raw in roots:
        if isinstance(raw, str) and not raw:  # Path("") is "." : an unset variable
            raise ValueError("ingest root '': an empty path (write '.' for the current folder)")
        try:
            root = Path(raw).expanduser().resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise ValueError(f"ingest root {raw}: not an existing folder ({exc})") from exc
        if not root.is_dir():
            raise ValueError(f"ingest root {raw}: not a folder")
        if root not in out:
            out.append(root)
    return tuple(out)


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _real(path: Path, shown: Path | str) -> Path | None:
    """The real path of ``path``, ``None`` when it does not exist.

    Raises:
        PathRefused: a symlink loop.
    """
    try:
        return path.resolve(strict=True)
    except FileNotFoundError:
        return None
    except RuntimeError as exc:  # Python < 3.13 reports a symlink loop this way
        raise PathRefused(shown, "symlink loop") from exc
    except OSError as exc:  # ELOOP on 3.13+, or a permission problem
        raise PathRefused(shown, f"cannot resolve ({exc.strerror or exc})") from exc


def resolve_under_roots(path: Path | str, roots: Sequence[Path | str]) -> Path:
    """The real path of ``path`` when it lies inside one of ``roots``.

    Args:
        path: a file or folder; relative paths are looked up under each root in turn.
        roots: allowed folders (``check_roots`` output; resolved again here, cheaply).

    Returns:
        The resolved path (symlinks followed), inside a root.

    Raises:
        PathRefused: no root is configured, the path contains ``..``, lies outside every root
            (directly or through a symlink), or is a symlink loop.
        FileNotFoundError: the path is inside a root but does not exist.
    """
    if not roots:
        raise PathRefused(path, "ingest is disabled: no ingest root is configured "
                                "(start the server with --root FOLDER)")
    if not str(path).strip():
        raise PathRefused(path, "empty path")
    given = Path(path).expanduser()
    if ".." in given.parts:
        raise PathRefused(path, "'..' is not allowed in ingest paths")
    real_roots = [Path(r).resolve() for r in roots]
    if given.is_absolute():
        # A path lexically outside every root passes only if it resolves inside one (a root
        # reached through a symlink); else it gets one answer whether it exists or not.
        outside = not _inside(Path(os.path.abspath(given)), real_roots)
        try:
            real = _real(given, path)
        except PathRefused:
            if outside:
                raise PathRefused(path, "outside the ingest roots") from None
            raise
        if real is not None and _inside(real, real_roots):
            return real
        if outside:
            raise PathRefused(path, "outside the ingest roots")
        if real is not None:
            raise PathRefused(path, "resolves outside the ingest roots (symlink)")
        raise FileNotFoundError(f"{path}: no such file or folder under the ingest roots")
    for root in real_roots:
        real = _real(root / given, path)
        if real is None:
            continue
        if not _inside(real, real_roots):
            raise PathRefused(path, "resolves outside the ingest roots (symlink)")
        return real
    shown = ", ".join(str(r) for r in real_roots[:3]) + (", ..." if len(real_roots) > 3 else "")
    raise FileNotFoundError(f"{path}: no such file or folder under the ingest roots (a relative "
                            f"path is read from each root: {shown})")


def confine(paths: Iterable[Path | str], roots: Sequence[Path | str], *,
            suffixes: frozenset[str]) -> ConfinedFiles:
    """Expand files and folders into the files an ingest may read.

    Each given path must pass ``resolve_under_roots`` (else the whole request is refused).
    Folders are walked by ``kb.ingest.walk.walk_files``, as ``kb.ingest.discover`` walks them
    (hidden entries skipped, symlinked folders not followed, only ``suffixes``); each file found is
    resolved and checked again. What the walk cannot read or follow is listed as refused.

    Args:
        paths: files and folders, as a caller gave them.
        roots: allowed folders.
        suffixes: file suffixes to keep in walked folders (lower case, with the dot).

    Returns:
        The allowed files and the refused ones found while walking.

    Raises:
        PathRefused: a given path is refused (see ``resolve_under_roots``).
        FileNotFoundError: a given path does not exist.
    """
    real_roots = [Path(r).resolve() for r in roots]
    resolved = [resolve_under_roots(p, roots) for p in paths]  # all checked before any walk
    files: list[Path] = []
    seen: set[Path] = set()
    refused: list[tuple[str, str]] = []

    def add(f: Path) -> None:
        if f not in seen:
            seen.add(f)
            files.append(f)

    def left_out(error: WalkError) -> None:
        refused.append((str(error.path), error.reason))

    named: list[Path] = []
    for top in resolved:
        if not top.is_dir():
            add(top)
            named.append(top)
            continue
        for found in walk_files(top, suffixes, on_error=left_out):
            try:
                real = _real(found, found)
            except PathRefused as exc:
                refused.append((str(found), exc.reason))
                continue
            if real is None or not real.is_file():
                continue  # gone or changed since the walk looked at it
            if not _inside(real, real_roots):
                refused.append((str(found), "resolves outside the ingest roots (symlink)"))
                continue
            add(real)
    return ConfinedFiles(tuple(files), tuple(refused), tuple(named))


def check_ingest_roots(scope: DocumentScope, roots: Sequence[Path]) -> None:
    """Refuse ingest roots through which a scoped server's callers would see past its scope.

    An ingest report names every file it read and quotes a file's warnings (a front matter
    value, a parser's message): a root must lie inside one of the scope's sources, and a
    scope by type or tag, which a file may not meet, takes no root at all.

    Raises:
        ValueError: a root outside every source, or a root with ``--type`` / ``--tag``.
    """
    if not scope.active or not roots:
        return
    if scope.source_types or scope.tags:
        raise ValueError("--root with --type or --tag: an ingest report would name and quote "
                         "files outside the scope; serve ingest roots inside --source folders "
                         "only, or run a second server for ingest")
    sources = [Path(s) for s in scope.sources]
    outside = [str(r) for r in roots if not _inside(r, sources)]
    if outside:
        raise ValueError(f"ingest root {outside[0]} lies outside every --source: an ingest "
                         "report would name and quote files outside the scope")


__all__ = ["ConfinedFiles", "PathRefused", "check_ingest_roots", "check_roots", "confine",
           "resolve_under_roots"]
