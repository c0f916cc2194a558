"""Extraction in a worker process, within a time and a memory budget per file.

A parser can spend minutes on one small hostile or malformed file (an 8 KB PDF whose pages
all draw one stream that inflates to millions of text operators kept pypdf busy 150 s), and
such a loop cannot be interrupted from inside Python. So the formats whose parsers can be led
astray (``RISKY_SUFFIXES``: PDF, DOCX, HTML) are extracted in a separate process: one per
batch, reused file after file, started on the first such file. A file that runs past the time
budget has its worker killed (a new one serves the next file) and fails alone with
"extraction exceeded N s"; on Linux the worker's address space is capped too
(``RLIMIT_AS``), so a file that would exhaust memory fails with "extraction exceeded the N MiB
memory budget" instead of swapping the machine. Plain text and Markdown are decoded and split
in the ingesting process (linear work, and streamed for large files).

Cost (``bench/extract_worker.py``, 2-core machine): starting the worker is paid once per batch
and again after each kill; each file then costs one round trip of its path and its extracted
text through a pipe. Figures are in ``bench/README.md``.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kb.config import EXTRACT_MEMORY_MIB, EXTRACT_TIMEOUT_S
from kb.errors import (
    BudgetExceededError,
    CorruptError,
    EmptyDocumentError,
    EncryptedError,
    ExtractError,
    UnsupportedTypeError,
)
from kb.types import ExtractedDocument

RISKY_SUFFIXES = frozenset({".pdf", ".docx", ".html", ".htm"})
_ERRORS: dict[str, type[ExtractError]] = {cls.__name__: cls for cls in (
    ExtractError, CorruptError, EmptyDocumentError, EncryptedError, UnsupportedTypeError)}


def _serve(conn: multiprocessing.connection.Connection, memory_mib: int | None) -> None:
    """The worker's loop: extract each path received, answer with a picklable tuple.

    Parsers' log records are dropped: they narrate recoveries from broken files, and the
    reply (the report) already says what failed and why. Ctrl-C is the parent's to handle
    (it stops the worker): a worker killed by it would look like a file that crashed it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger().addHandler(logging.NullHandler())
    logging.getLogger().setLevel(logging.CRITICAL)
    limit = None
    if memory_mib is not None and sys.platform == "linux":
        import resource

        limit = memory_mib * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from kb.ingest.extract import extract

    while True:
        try:
            path = conn.recv()
        except EOFError:  # the parent closed its end
            return
        reply: tuple[Any, ...]
        try:
            reply = ("ok", extract(Path(path)))
        except MemoryError:
            reply = ("memory",)
        except ExtractError as exc:
            reply = ("memory",) if _hit(limit) else ("error", type(exc).__name__, exc.reason)
        except Exception as exc:  # an extractor bug must not kill the batch
            reply = ("memory",) if _hit(limit) else ("crash", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError):  # the parent stopped (Ctrl-C): nobody to answer
            return


def _hit(limit: int | None) -> bool:
    """Whether this process's peak address space came within 5% of ``limit`` bytes.

    A parser in C (lxml, zlib) reports a failed allocation as its own error ("XMLSyntaxError:
    unknown error"), not as ``MemoryError``; the peak tells the real reason.
    """
    if limit is None:
        return False
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmPeak"))
    except (OSError, StopIteration, ValueError):
        return False
    return peak_kib * 1024 >= 0.95 * limit


@contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Hide the caller's main module from multiprocessing while a worker starts.

    forkserver and spawn import the parent's ``__main__`` again in the child (found by its
    ``__spec__`` or ``__file__``), so a user's script that ingests at its top level, without an
    ``if __name__ == "__main__":`` guard, would run again in the worker and fail. The worker
    needs nothing of the caller's script, so for the start the two attributes are taken away.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {k: main.__dict__[k] for k in ("__spec__", "__file__")
                             if k in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None  # read unconditionally by multiprocessing
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


class ExtractionWorker:
    """Extracts files in a child process, one at a time, each within the budget.

    Use as a context manager (or call ``close``); the process starts on the first
    ``extract`` call and is replaced after a file that was stopped.

    Args:
        timeout_s: wall-clock budget per file, in seconds (> 0).
        memory_mib: address-space budget of the worker in MiB (Linux only), or ``None``.

    Raises:
        ValueError: ``timeout_s`` is not positive.
    """

    def __init__(self, *, timeout_s: float = EXTRACT_TIMEOUT_S,
                 memory_mib: int | None = EXTRACT_MEMORY_MIB) -> None:
        if not timeout_s > 0:
            raise ValueError("timeout_s must be positive")
        self.timeout_s = timeout_s
        self.memory_mib = memory_mib
        self.started = 0  # worker processes started so far (for the benchmark)
        methods = multiprocessing.get_all_start_methods()
        # forkserver: no fork of this (possibly threaded) process, yet cheap restarts.
        self._context = multiprocessing.get_context(
            "forkserver" if "forkserver" in methods else "spawn")
        if "forkserver" in methods:  # workers fork with the parsers already imported
            self._context.set_forkserver_preload(["kb.ingest.extract"])
        self._process: Any = None
        self._conn: multiprocessing.connection.Connection | None = None

    def __enter__(self) -> ExtractionWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> multiprocessing.connection.Connection:
        if self._conn is None:
            parent, child = self._context.Pipe()
            self._process = self._context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(child, self.memory_mib), daemon=True, name="kb-extract")
            with _main_module_hidden():
                self._process.start()
            child.close()
            self._conn = parent
            self.started += 1
        return self._conn

    def extract(self, path: Path) -> ExtractedDocument:
        """Extract ``path`` in the worker (see ``kb.ingest.extract.extract``).

        Raises:
            BudgetExceededError: the file ran past the time or memory budget (the worker
                is replaced).
            ExtractError: what ``kb.ingest.extract.extract`` raises, or a worker that died
                or crashed (``CorruptError`` with the reason).
        """
        conn = self._start()
        conn.send(str(path))
        if not conn.poll(self.timeout_s):
            self._kill()
            raise BudgetExceededError(path, f"extraction exceeded {self.timeout_s:g} s "
                                      "(the per-file budget; --extract-timeout-s raises it)")
        try:
            reply = conn.recv()
        except (EOFError, OSError):
            code = self._kill()
            raise CorruptError(path, f"the extraction worker died (exit code {code})") from None
        if reply[0] == "ok":
            doc: ExtractedDocument = reply[1]
            return doc
        if reply[0] == "error":
            raise _ERRORS.get(reply[1], ExtractError)(path, reply[2])
        if reply[0] == "memory":
            self._kill()  # a MemoryError can leave the worker in any state
            raise BudgetExceededError(path, f"extraction exceeded the {self.memory_mib} MiB "
                                      "memory budget")
        raise CorruptError(path, f"unexpected {reply[1]}")  # an extractor bug

    def _kill(self) -> int | None:
        """Stop the worker at once; the next ``extract`` starts a new one."""
        process, self._process = self._process, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if process is None:
            return None
        process.kill()
        process.join()
        code: int | None = process.exitcode
        return code

    def close(self) -> None:
        """Stop the worker (it is idle between files, so nothing is lost)."""
        if self._conn is not None:
            self._conn.close()  # the worker's recv() ends with EOFError and it returns
            self._conn = None
        process, self._process = self._process, None
        if process is not None:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
