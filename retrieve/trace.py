"""The per-search trace: stage timings and statuses, degraded rungs, cancellation.

Every stage of ``kb.retrieve.pipeline`` runs through ``Trace.run``, which times it, records it as
``ran`` or ``failed`` in ``Diagnostics.stages``, and first checks whether the caller cancelled.

A *degraded rung* (``Trace.degraded``) is a part of the design that could not do its job (an
embedder down, an FTS query failing, an LLM that did not answer): the result is worse than it
would be. A *note* (``Trace.note``) says how a stage did its job when it took a designed path
the caller may want to know about (a short CJK query found by scanning the text); it becomes
part of that stage's reason in ``Diagnostics.stages``, never a degraded rung.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from kb.errors import SearchCancelled
from kb.types import StageTrace

T = TypeVar("T")


@dataclass
class Trace:
    """What one search did, filled in as its stages run (not thread-safe: the caller's thread).

    Attributes:
        stages: one trace per stage, in order.
        degraded: degradation rungs taken, as sentences.
        explain: per-stage candidate traces (``--explain``).
        cancel: the caller's cancellation event, or ``None``.
        notes: notes of the stage running now (``note``), added to its reason when it ends.
    """

    stages: list[StageTrace] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    explain: list[tuple[str, tuple[tuple[int, float], ...]]] = field(default_factory=list)
    cancel: threading.Event | None = None
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Add an informational note to the stage running now (see the module docstring)."""
        if text not in self.notes:
            self.notes.append(text)

    def check(self) -> None:
        """Raise ``SearchCancelled`` when the caller has cancelled the search."""
        if self.cancel is not None and self.cancel.is_set():
            raise SearchCancelled("search cancelled by the caller")

    def run(self, stage: str, fn: Callable[[], T], note: str = "") -> T:
        """Run one stage: check for cancellation, time it, record ``ran`` or ``failed``.

        The recorded reason of a stage that ran is ``note`` followed by the notes the stage
        added (``Trace.note``), joined with "; ".

        Raises:
            kb.errors.SearchCancelled: the caller cancelled before the stage started.
            Exception: whatever the stage raised (recorded as ``failed`` first).
        """
        self.check()
        start = time.perf_counter()
        self.notes.clear()
        try:
            out = fn()
        except Exception as exc:
            self.stages.append(StageTrace(stage, "failed", f"{type(exc).__name__}: {exc}",
                                          (time.perf_counter() - start) * 1e3))
            raise
        reason = "; ".join(n for n in (note, *self.notes) if n)
        self.notes.clear()
        self.stages.append(StageTrace(stage, "ran", reason, (time.perf_counter() - start) * 1e3))
        return out

    def list_scores(self, stage: str, scored: Iterable[tuple[int, float]]) -> None:
        """Record a stage's (chunk id, score) order for ``--explain``.

        Scores keep 6 significant digits: decayed scores of old documents are far below 1e-6,
        and rounding to decimal places would print them all as 0.
        """
        self.explain.append((stage, tuple((cid, float(f"{score:.6g}")) for cid, score in scored)))

    def skip(self, stage: str, reason: str) -> None:
        """Record a stage that did not run, with the reason."""
        self.stages.append(StageTrace(stage, "skipped", reason))
