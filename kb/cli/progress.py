"""Progress of an ingest on a terminal: n/N files with the current one, then chunks/s and ETA.

Drawn with rich on stderr, only when stderr is a terminal (pipes and ``--json`` get nothing).
One line per phase: ``files`` (done/total, the file being read) and ``embedding`` (chunks
done/total, chunks per second, time left), with a line saying so while another process
embeds the same index (``kb.ingest.embed.embedding_turn``); a phase appears at its first
report, so embedding shows at once, not after its first page of vectors.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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

    def on_file(self, path: str) -> None:
        """The file about to be read (its name is shown beside the files' count)."""
        if "files" not in self.tasks:
            self.tasks["files"] = self.bar.add_task("files", total=None, unit="files", item="")
        name = Path(path).name
        if len(name) > FILE_NAME_CHARS:
            name = name[:FILE_NAME_CHARS - 1] + "…"
        self.bar.update(self.tasks["files"], item=name)


@contextmanager
def ingest_progress(enabled: bool) -> Iterator[IngestProgress | None]:
    """An ``IngestProgress`` drawing on stderr when ``enabled`` and it is a terminal, else None."""
    if not (enabled and sys.stderr.isatty()):
        yield None
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
