"""Signals around a command's run: SIGTERM as Ctrl-C, SIGPIPE as an error for a while.

``terminate_as_interrupt``: a service manager's SIGTERM stops an ingest, a watch or a server
as Ctrl-C does (what was committed is said, the run exits 143). ``pipe_errors_raised``: lines
printed before the work is done (an ingest's files, before its embedding) must not end kb
when their reader is gone, as ``kb.cli.main``'s SIGPIPE default would.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def terminate_as_interrupt() -> Iterator[list[bool]]:
    """SIGTERM (``kill``, a service manager stopping kb) stops the run as Ctrl-C does.

    Yields a one-item list, set ``[True]`` once SIGTERM arrived. Outside the main thread (a
    library caller's worker thread) no handler can be set and nothing changes.
    """
    seen = [False]
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        seen[0] = True
        signal.default_int_handler(signum, frame)  # raises KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield seen
    finally:  # None: a handler set outside Python, which cannot be put back
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


@contextmanager
def pipe_errors_raised() -> Iterator[None]:
    """SIGPIPE ignored meanwhile, so a reader gone raises ``BrokenPipeError`` (an ``OSError``).

    ``kb.cli.main`` lets SIGPIPE end kb quietly, which is right for a report printed last,
    not for lines printed before the embedding. Outside the main thread nothing changes.
    """
    if not hasattr(signal, "SIGPIPE") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGPIPE, previous)
