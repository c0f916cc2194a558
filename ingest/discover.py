"""Find the files an ingest should read: files given directly, and folders walked recursively.

What a walk cannot read or follow becomes an outcome for the report rather than vanishing:

- an unreadable folder is ``failed`` ("cannot read folder: Permission denied"): files kb was
  asked to read are missing from the index, so ``kb ingest`` exits 1, as for an unreadable file;
- a symlink loop or a dangling symlink is ``skipped`` ("symlink loop", "dangling symlink"):
  there is nothing behind it to read, and, like a file of an unsupported type, it does not
  make the batch fail.

A path given directly that does not exist, is a dangling symlink or a symlink loop is a caller
mistake and raises before anything is read.

A file a folder's walk reaches through a symlink that leads out of the folder is read (its
source is its real path) and handed to ``on_link``, so the caller can report it and remember
where it came from.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path

from kb.config import type_name
from kb.ingest.ignore import IgnoreRules
from kb.ingest.problems import shown
from kb.ingest.walk import WalkError, link_error, walk_files
from kb.types import FileOutcome

MAX_FILE_BYTES = 200 * 1024 * 1024  # size budget per file; larger files fail alone


def _unread_rules(errors: list[WalkError], file: Path, why: str) -> None:
    """An ignore file a walk could not read: reported failed, as an unreadable file is."""
    errors.append(WalkError(file, "unreadable_file", why))


def walk_outcome(error: WalkError) -> FileOutcome:
    """The report's outcome for an entry a walk could not read or follow.

    Broken links are ``skipped``; unreadable folders and files are ``failed``.
    """
    broken = error.kind in ("symlink_loop", "dangling_symlink")
    return FileOutcome(shown(str(error.path)), "skipped" if broken else "failed",
                       reason=error.reason)


PathArg = str | os.PathLike[str]


def path_list(paths: PathArg | Iterable[PathArg]) -> list[Path | str]:
    """``paths`` as a list: one ``str`` or ``os.PathLike`` is one path, not its characters.

    Raises:
        TypeError: ``paths`` is neither a path nor an iterable of paths (the message names
            the first item that is not one).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    elif isinstance(paths, bytes | bytearray) or not isinstance(paths, Iterable):
        raise TypeError(f"paths must be a path (str or os.PathLike) or a list of paths, got "
                        f"{type_name(paths)}")
    items = list(paths)
    for i, item in enumerate(items):
        if not isinstance(item, str | os.PathLike):
            raise TypeError(f"paths[{i}] must be a str or os.PathLike, got {type_name(item)}")
    return [item if isinstance(item, str) else Path(item) for item in items]


EMPTY_PATH = "''"  # how an empty path given is named
MAX_NAMED = 5  # missing paths named in one error (a glob's typo may give a thousand)


def _given(raw: Path | str) -> Path:
    """The real path of a path given directly.

    Raises:
        FileNotFoundError: it does not exist, is a dangling symlink or a symlink loop, or
            cannot be looked at (a folder above it is not searchable); or it is empty, as
            for ``ls ""`` (``Path("")`` is the current folder: a script's unset variable
            would ingest or sync it).
    """
    if isinstance(raw, str) and not raw:
        raise FileNotFoundError(f"{EMPTY_PATH}: no such file or folder (an empty path; '.' "
                                "is the current folder)")
    path = Path(raw).expanduser()
    try:
        os.stat(path)  # follows links
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the path itself, or a link above it
            raise FileNotFoundError(f"{raw}: symlink loop") from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            what = "dangling symlink" if os.path.islink(path) else "no such file or folder"
            raise FileNotFoundError(f"{raw}: {what}") from None
        raise FileNotFoundError(f"{raw}: cannot read: {exc.strerror or exc}") from None
    return path.resolve()


def check_given(paths: Iterable[Path | str]) -> None:
    """Check that each path given directly exists, before anything is opened or written.

    ``kb ingest`` and ``kb sync`` call it before they open (and would create) the index, so a
    mistyped path leaves no empty index file behind.

    Raises:
        FileNotFoundError: a path does not exist, is a dangling symlink or a symlink loop, or
            cannot be looked at; the message names each such path (what is wrong with it, as
            ``discover`` says), in the order given.
    """
    problems = []
    for raw in paths:
        try:
            _given(raw)
        except FileNotFoundError as exc:
            problems.append(str(exc))
    named = list(dict.fromkeys(problems))  # a path given twice: once
    if named:
        more = f"; and {len(named) - MAX_NAMED} more" if len(named) > MAX_NAMED else ""
        raise FileNotFoundError("; ".join(named[:MAX_NAMED]) + more)


def split_given(paths: Iterable[Path | str]) -> tuple[list[Path | str], list[FileOutcome]]:
    """The paths given directly that exist, and a ``failed`` outcome for each that does not.

    ``kb ingest`` indexes the ones that exist and reports the others as failed (as ``cp``
    does), so one mistyped path among several loses nothing; with none existing it stops
    before the index file is created (``check_given``).
    """
    found: list[Path | str] = []
    missing: list[FileOutcome] = []
    for raw in paths:
        try:
            _given(raw)
        except FileNotFoundError as exc:
            name = shown(str(Path(raw).expanduser().absolute())) if raw != "" else EMPTY_PATH
            if all(o.path != name for o in missing):  # one line for a path given twice
                missing.append(FileOutcome(name, "failed",
                                           reason=str(exc).removeprefix(f"{raw or EMPTY_PATH}: ")))
        else:
            found.append(raw)
    return found, missing


LinkOut = Callable[[Path, Path, Path], None]  # (symlink as found, its real file, the folder)


def discover(paths: Iterable[Path | str], suffixes: frozenset[str], *,
             on_link: LinkOut | None = None, ignore: Sequence[str] = (),
             on_ignored: Callable[[Path, str], None] | None = None,
             inside: Path | None = None) -> Iterator[Path | FileOutcome]:
    """Yield resolved files under ``paths`` whose suffix is supported, each once, sorted per folder.

    Folders are walked by ``kb.ingest.walk.walk_files`` under ``kb.ingest.ignore`` rules
    (built-in excludes, hidden entries, ``.gitignore`` and ``.kbignore``, the ``ignore``
    patterns), symlinked folders not followed. A path given directly is yielded whatever its
    suffix and ignore rules, so an unsupported file is reported rather than silently ignored.
    What a walk cannot read or follow is yielded where the walk met it as a ``FileOutcome``
    (see the module docstring).

    Args:
        paths: files and folders.
        suffixes: the suffixes to keep in folders, lower case with the dot.
        on_link: called with (symlink, its real file, the folder walked) for each file reached
            through a symlink whose real file lies outside the folder (before the file is
            yielded, or instead of it when the file was yielded already).
        ignore: extra gitignore patterns, each relative to the folder walked.
        on_ignored: called with (entry, reason) for each entry a folder's walk left out
            (see ``kb.ingest.walk.walk_files``).
        inside: a file whose real path lies outside this resolved folder (a symlink leading
            out of it, found in a walk or given) is a ``skipped`` outcome, not yielded: the
            folders of a project's config file, which may come from anyone (a link to
            ``~/.ssh/id_rsa``). ``None``: links are followed.

    Raises:
        FileNotFoundError: a given path does not exist, is a dangling symlink or a symlink
            loop (the message says which).
    """
    seen: set[Path] = set()
    reported: set[str] = set()  # a folder given twice reports its problems once

    def report(error: WalkError) -> Iterator[FileOutcome]:
        if str(error.path) not in reported:
            reported.add(str(error.path))
            yield walk_outcome(error)

    def outside(given: Path | str, real: Path) -> FileOutcome | None:
        if inside is None or real.is_relative_to(inside):
            return None
        return FileOutcome(shown(str(Path(given).expanduser().absolute())), "skipped", reason=(
            f"a symlink to {real}, outside {inside}: a project's config roots follow none"))

    for raw in paths:
        path = _given(raw)
        if path.is_file():
            if (refused := outside(raw, path)) is not None:
                yield refused
            elif path not in seen:
                seen.add(path)
                yield path
            continue
        if not path.is_dir():  # a pipe, a socket or a device given directly
            yield FileOutcome(shown(str(path)), "failed",
                              reason="not a regular file or folder (a pipe, socket or device)")
            continue
        errors: list[WalkError] = []
        rules = IgnoreRules(path, ignore, on_unread=partial(_unread_rules, errors))
        for found in walk_files(path, suffixes, on_error=errors.append, ignore=rules,
                                on_ignored=on_ignored):
            for error in errors:  # met before ``found``: reported in walk order
                yield from report(error)
            errors.clear()
            try:
                f = found.resolve(strict=True)
            except RuntimeError:  # a link swapped for a loop since the walk looked at it
                yield from report(WalkError(found, "symlink_loop", "symlink loop"))
                continue
            except OSError as exc:  # e.g. a folder listed but not searchable (mode r--)
                if exc.errno not in (errno.ENOENT, errno.ENOTDIR):  # else gone since the walk
                    yield from report(link_error(found, exc))
                continue
            if not f.is_file():
                continue
            if (refused := outside(found, f)) is not None:
                yield refused
                continue
            if on_link is not None and not f.is_relative_to(path):
                on_link(found, f, path)
            if f not in seen:
                seen.add(f)
                yield f
        for error in errors:
            yield from report(error)
