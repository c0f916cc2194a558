"""Which entries of a folder an ingest leaves out, and why: built-in excludes and ignore files.

A folder walk (``kb.ingest.walk.walk_files``) asks ``IgnoreRules.reason`` about each entry, and
``kb watch`` and the sync's prune ask ``IgnoreRules.reason_under`` about any path below the
folder. In order, the first that applies gives the reason:

1. ``built-in exclude``: a folder named ``node_modules``, ``.git``, ``.hg``, ``.svn``,
   ``__pycache__``, ``.venv`` or ``.tox`` (``BUILTIN_EXCLUDES``);
2. ``virtualenv``: a folder holding ``pyvenv.cfg`` (a Python virtual environment, whatever
   its name);
3. ``hidden``: any other name starting with ``.``;
4. ``.gitignore``, ``.kbignore`` or ``ignore pattern``: gitignore patterns, read with
   ``pathspec`` (``GitIgnoreSpec``, git's own rules: ``!`` re-includes, a trailing ``/``
   matches folders only, a pattern with a ``/`` is anchored to its file's folder). Like git,
   each folder's ``.gitignore`` and ``.kbignore`` apply below it, a deeper file's patterns
   override a shallower one's, ``.kbignore`` overrides ``.gitignore`` in the same folder, and
   the extra patterns (``Config.ingest_ignore``, anchored at the folder walked) come last.
   ``.gitignore`` files of the folders above the one walked count too, up to the repository
   root (the nearest folder above that holds ``.git``), as git reads them. A file inside an
   ignored folder cannot be included again (the folder is never entered).

An ignore file that exists but cannot be read (mode 000, an I/O error) fails closed: every
entry of its folder and below is left out (``cannot read .kbignore``; a folder walk reports
the file as failed, ``on_unread``), since what it keeps out is unknown; the documents already
indexed there stay (``is_unread_rules``: the sync's prune and ``kb watch`` keep them) until it
can be read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from kb.ingest.extract.common import BOMS

log = logging.getLogger(__name__)

BUILTIN_EXCLUDES = frozenset({"node_modules", ".git", ".hg", ".svn", "__pycache__", ".venv",
                              ".tox"})
IGNORE_FILES = (".gitignore", ".kbignore")  # in this order: the later one overrides
EXTRA_PATTERNS = "ignore pattern"  # the reason for a path matched by the extra patterns
# Reasons no one expects indexed (.git, node_modules, the ignore files themselves): the ingest
# summary counts them apart from what an ignore file or pattern or the type left out.
ROUTINE_REASONS = frozenset({"built-in exclude", "virtualenv", "hidden"})
UNREAD_RULES = "cannot read "  # + the ignore file's name: the reason when it fails closed


@dataclass(frozen=True, slots=True)
class _Spec:
    base: Path  # the folder the patterns are relative to
    spec: GitIgnoreSpec
    origin: str  # ``.gitignore``, ``.kbignore`` or ``EXTRA_PATTERNS``
    unread: bool = False  # the file exists but could not be read: it leaves everything out


def _read_spec(folder: Path, name: str,
               on_unread: Callable[[Path, str], None] | None = None) -> _Spec | None:
    path = folder / name
    try:  # a byte-order mark (Notepad's, PowerShell's UTF-16) says how to read, as for text
        data = path.read_bytes()
        bom, encoding = next(((b, e) for b, e in BOMS if data.startswith(b)), (b"", "utf-8"))
        text = data[len(bom):].decode(encoding, errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None  # no ignore file here (a folder of that name is none either)
    except OSError as exc:
        why = (f"cannot read: {exc.strerror or exc}; nothing in its folder is indexed until it "
               "can be read (what is indexed there stays)")
        if on_unread is not None:  # the walk reports it as a problem
            on_unread(path, why)
        elif path not in _WARNED_UNREAD:  # else said once: kb watch reads the rules every wake
            _WARNED_UNREAD.add(path)
            log.warning("%s: %s", path, why)
        return _Spec(folder, GitIgnoreSpec.from_lines([]), name, unread=True)
    _WARNED_UNREAD.discard(path)
    spec = _lenient_spec(text.splitlines(), path)
    return _Spec(folder, spec, name) if len(spec) else None


def _lenient_spec(lines: list[str], path: Path) -> GitIgnoreSpec:
    """The patterns of an ignore file, less the lines git cannot read either ("!").

    Each is skipped with a warning naming the file and line, as git skips it: one bad line
    stops no ingest.
    """
    kept = []
    for number, line in enumerate(lines, 1):
        try:
            GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error) as exc:  # "!", "[z-a]"
            if (path, number, line) not in _WARNED:  # once: kb watch reads them every wake
                _WARNED.add((path, number, line))
                log.warning("%s:%d: %s; the line is skipped", path, number, exc)
            continue
        kept.append(line)
    return GitIgnoreSpec.from_lines(kept)


_WARNED: set[tuple[Path, int, str]] = set()  # the lines skipped and said, this process
_WARNED_UNREAD: set[Path] = set()  # the ignore files said unreadable and not read since


def is_unread_rules(reason: str | None) -> bool:
    """Whether ``reason`` (from ``IgnoreRules.reason``) is an ignore file that could not be read.

    Such an entry is not indexed, but a document already indexed from it is kept.
    """
    return reason is not None and reason.startswith(UNREAD_RULES)


def _repository_root(top: Path) -> Path | None:
    """The nearest folder at or above ``top`` that holds ``.git``, or ``None``."""
    for folder in (top, *top.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:  # a folder that cannot be searched (mode ---): its walk reports it,
            return None  # and no rule of a repository around it is applied to it
    return None


class IgnoreRules:
    """The ignore rules of one folder walked, with each folder's ignore files read once.

    Args:
        top: the folder walked (absolute).
        patterns: extra gitignore patterns, relative to ``top`` (``Config.ingest_ignore``).
        on_unread: called with (ignore file, reason) for each one that exists but cannot be
            read (its folder is then left out); without it, a warning is logged once.
    """

    def __init__(self, top: Path, patterns: Sequence[str] = (),
                 on_unread: Callable[[Path, str], None] | None = None) -> None:
        self.top = top
        self._on_unread = on_unread
        inherited: list[_Spec] = []
        root = _repository_root(top)
        if root is not None and root != top:
            for folder in reversed(top.parents):
                if folder == root or folder.is_relative_to(root):
                    found = _read_spec(folder, ".gitignore", on_unread)
                    if found is not None:
                        inherited.append(found)
        extra = GitIgnoreSpec.from_lines(list(patterns))
        self._extra = _Spec(top, extra, EXTRA_PATTERNS) if len(extra) else None
        self._specs: dict[Path, tuple[_Spec, ...]] = {}
        self._above = tuple(inherited)

    def _specs_of(self, folder: Path) -> tuple[_Spec, ...]:
        """The pattern sets that apply to entries of ``folder`` (under ``top``), outermost first."""
        cached = self._specs.get(folder)
        if cached is not None:
            return cached
        outer = self._above if folder == self.top else self._specs_of(folder.parent)
        own = tuple(s for s in (_read_spec(folder, name, self._on_unread)
                                for name in IGNORE_FILES) if s)
        self._specs[folder] = specs = (*outer, *own)
        return specs

    def reason(self, path: Path, *, is_dir: bool) -> str | None:
        """Why the entry ``path`` (a child of a folder under ``top``) is left out, or ``None``.

        Args:
            path: the entry, ``top`` or a folder under it being its parent.
            is_dir: whether it is a folder (not followed through a symlink).

        Returns:
            ``built-in exclude``, ``virtualenv``, ``hidden``, ``.gitignore``, ``.kbignore``,
            ``ignore pattern``, ``cannot read .gitignore`` or ``cannot read .kbignore`` (an
            ignore file above it exists but cannot be read), or ``None`` when it is kept.
        """
        name = path.name
        if is_dir and name in BUILTIN_EXCLUDES:
            return "built-in exclude"
        if is_dir and _is_virtualenv(path):
            return "virtualenv"
        if name.startswith("."):
            return "hidden"
        specs = self._specs_of(path.parent)
        if self._extra is not None:
            specs = (*specs, self._extra)
        decision: str | None = None
        for s in specs:
            if s.unread:
                return UNREAD_RULES + s.origin
            relative = path.relative_to(s.base).as_posix() + ("/" if is_dir else "")
            include = s.spec.check_file(relative).include
            if include is not None:
                decision = s.origin if include else None
        return decision

    def reason_under(self, path: Path) -> str | None:
        """Why ``path``, anywhere under ``top``, is left out (by it or a folder above it).

        Returns:
            As ``reason``, for the first component from ``top`` down that is left out;
            ``None`` when none is, or when ``path`` is not under ``top``.
        """
        try:
            parts = path.relative_to(self.top).parts
        except ValueError:
            return None
        current = self.top
        for i, part in enumerate(parts):
            current = current / part
            try:
                is_dir = i < len(parts) - 1 or current.is_dir()
            except OSError:  # under a folder that cannot be searched: nothing is decided
                return None
            why = self.reason(current, is_dir=is_dir)
            if why is not None:
                return why
        return None


def _is_virtualenv(folder: Path) -> bool:
    """Whether ``folder`` holds a ``pyvenv.cfg``; ``False`` when it cannot be searched.

    The walk then reports such a folder as one it cannot read.
    """
    try:
        return (folder / "pyvenv.cfg").exists()
    except OSError:  # e.g. mode 000: Path.exists raises PermissionError
        return False
