"""A batch's problems, each reported once: what failed is remembered until it changes.

A file that failed for a reason of its own (an encrypted PDF, a DOCX without text, an
extraction over its time budget, a file over the size budget) is recorded in the store
(``kb.store.problems``) with its size and modification time. Later batches skip it, without
reading it, as ``skipped`` with the remembered reason, until either changes: a sync over a
folder with such a file exits 0 from the second run on. One over its time budget is read
again by a batch with a larger budget (the reason says to raise it). A file given directly
(``kb ingest FILE``) is always read again. A file kb may not read (``cannot read: ...``,
which a ``chmod`` fixes without touching the file), or one kb crashed on (``unexpected ...``:
kb's bug), is read, and fails, every time, but its record makes it new only the first
time; a storage fault and the files it left unattempted are not recorded.

A folder the walk could not read and a folder kept because it looks unmounted fail every time
(their documents are at stake), and are recorded too, so that ``new`` tells a problem first
met in this batch from one reported before (``kb sync --check`` exits 1 only on new ones).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from kb.store import Store
from kb.store.problems import (
    FOLDER_SIZE,
    Problem,
    forget_problems,
    get_problem,
    problems_under,
    remember_problems,
)
from kb.types import FileOutcome, folder_prefix

NOT_REMEMBERED = "not attempted"  # a storage fault's files: not recorded
# recorded (new once for `kb sync --check`), yet read every run: a chmod fixes the first, and
# the second is kb's own crash on a file (its bug, not the file's: a new kb may read it)
RETRIED = ("cannot read", "unexpected ")
# an extraction over its time budget (kb.ingest.worker): read again under a larger budget, as
# its reason advises ("--extract-timeout-s raises it")
_TIMED_OUT = re.compile(r"extraction exceeded (\d+(?:\.\d+)?(?:e[+-]?\d+)?) s\b")


def storable(source: str) -> bool:
    """Whether ``source`` can be stored (a file name the file system gave as bytes cannot)."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def not_utf8(path: Path) -> FileOutcome | None:
    """The failed outcome of a path that is not valid UTF-8, naming the part to rename.

    The outermost folder whose name is not UTF-8, else the file's name. Returns ``None`` for a
    storable path. The path is shown with each undecodable byte as U+FFFD, so the outcome
    prints and serialises.
    """
    if storable(str(path)):
        return None
    folder = next((p for p in reversed(path.parents) if not storable(p.name)), None)
    if folder is None:
        why = "the file name is not valid UTF-8 (rename the file to index it)"
    else:  # the outermost one first: renaming the file alone would not do
        why = (f"the name of its folder '{shown(str(folder))}' is not valid UTF-8 (rename "
               "the folder to index its files)")
    return FileOutcome(shown(str(path)), "failed", reason=why)


def shown(name: str) -> str:
    """A name the file system decoded with surrogateescape, undecodable bytes as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _key(path: Path | str) -> str:
    """The source a problem of ``path`` is remembered under.

    Its path; for a name that is not UTF-8, the path shown (``shown``) with a closing "/" no
    file's path has, so a file renamed to the name shown is not taken for it, and a misnamed
    file is reported new once, not on every run.
    """
    source = str(path)
    return source if storable(source) else shown(source) + "/"


def _unchanged(path: Path, before: Problem) -> bool:
    """Whether ``path`` has the size and modification time ``before`` recorded."""
    try:
        stat = path.stat()
    except OSError:
        return False
    return (stat.st_size, stat.st_mtime) == (before.size, before.mtime)


class ProblemLog:
    """The problems of one batch against those remembered in ``store``.

    Args:
        store: the open store.
        given: the resolved paths given directly (their files are always read again).
    """

    def __init__(self, store: Store, given: set[Path], *, timeout_s: float | None = None) -> None:
        self.store = store
        self.given = given
        self.timeout_s = timeout_s
        self.started = datetime.now(UTC)  # a record's date: a file indexed since came after it
        self.new: list[str] = []  # failed sources not reported before, in batch order
        self._met: set[str] = set()  # sources with a problem in this batch
        self._remember: list[tuple[str, int, float, str]] = []
        self._forget: list[str] = []

    def known(self, path: Path) -> FileOutcome | None:
        """``path``'s outcome when it failed before and is unchanged since, else ``None``.

        The outcome is ``skipped`` with the remembered reason and the date it was reported.
        """
        if path in self.given or not storable(str(path)):  # a misnamed one fails each time
            return None
        problem = get_problem(self.store, str(path))
        if (problem is None or problem.size == FOLDER_SIZE or problem.reason.startswith(RETRIED)
                or self._budget_raised(problem.reason) or not _unchanged(path, problem)):
            return None
        self._met.add(problem.source)
        return FileOutcome(problem.source, "skipped", reason=(
            f"{problem.reason} (reported {problem.reported_at:%Y-%m-%d}; skipped until the "
            "file changes)"))

    def _budget_raised(self, reason: str) -> bool:
        """Whether a file that ran out of time ran out of a smaller budget than this batch's."""
        spent = _TIMED_OUT.match(reason)
        return bool(spent and self.timeout_s is not None and self.timeout_s > float(spent[1]))

    def file_done(self, path: Path, outcome: FileOutcome, *, remember: bool = True) -> None:
        """Note ``outcome`` of the file ``path``: a failure is remembered, a success forgets.

        Args:
            path: the file.
            outcome: its outcome in this batch (not one ``known`` gave).
            remember: whether a failure may be recorded (false after a storage fault).
        """
        source = _key(path)
        if outcome.action != "failed":
            self._forget.append(source)
            return
        before = get_problem(self.store, source)
        if storable(str(path)) and not outcome.reason.startswith(RETRIED):
            # read again (given by name, or changed): new unless the same file failed so before
            if before is None or before.reason != outcome.reason or not _unchanged(path, before):
                self.new.append(outcome.path)
        else:  # failing every run (``known``), new only when first met or for a new reason
            if before is None or before.reason != outcome.reason:
                self.new.append(outcome.path)
            outcome = dataclasses.replace(outcome, path=source)
        if remember and outcome.path == source and not outcome.reason.startswith(
                NOT_REMEMBERED):
            try:
                stat = path.stat()
            except OSError:
                return
            self._met.add(source)
            self._remember.append((source, stat.st_size, stat.st_mtime, outcome.reason))

    def folder_failed(self, outcome: FileOutcome) -> None:
        """Note a ``failed`` outcome of a folder (unreadable, or kept as looking unmounted)."""
        source = _key(outcome.path).rstrip("/")
        before = get_problem(self.store, source)
        if before is None or before.reason != outcome.reason:
            self.new.append(shown(outcome.path))
        self._met.add(source)
        self._remember.append((source, FOLDER_SIZE, 0.0, outcome.reason))

    def save(self, folders: list[Path], keep: Iterable[str] = ()) -> None:
        """Write what the batch learnt; records under ``folders`` not met again are dropped.

        Those under ``keep`` stay: folders kept as looking unmounted, their files unseen.
        """
        remember_problems(self.store, self._remember, at=self.started)
        kept = tuple(folder_prefix(k) for k in keep)
        stale = [s for f in folders for s in problems_under(self.store, shown(str(f)).rstrip("/"))
                 if s not in self._met and not s.startswith(kept)]
        forget_problems(self.store, [*self._forget, *stale])
