"""Cost of extracting in a worker process (kb.ingest.worker) against extracting in-process.

Extracts every PDF, DOCX and HTML file under FOLDER (any folder of documents)
in this process, through one reused ExtractionWorker, and through a new worker per file, and
prints the start-up cost (first file, worker start included) and the mean extra cost per file.

    python bench/extract_worker.py FOLDER
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from kb.ingest.extract import extract
from kb.ingest.worker import RISKY_SUFFIXES, ExtractionWorker


def _run(extract_one, files):
    start = time.perf_counter()
    for path in files:
        try:
            extract_one(path)
        except Exception:  # failures cost time too, and are part of a real batch
            pass
    return time.perf_counter() - start


def main() -> None:
    logging.disable(logging.CRITICAL)
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/extract_worker.py FOLDER")
    folder = Path(sys.argv[1])
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in RISKY_SUFFIXES)
    _run(extract, files)  # warm the page cache and imports
    in_process = _run(extract, files)
    with ExtractionWorker() as worker:
        start = time.perf_counter()
        _run(worker.extract, files[:1])
        first = time.perf_counter() - start
        rest = _run(worker.extract, files[1:])
    extra_ms = (first + rest - in_process) / len(files) * 1000
    print(f"{len(files)} files: in-process {in_process:.2f} s, worker {first + rest:.2f} s "
          f"(first file incl. worker start {first:.2f} s); extra per file {extra_ms:.1f} ms")

    def fresh(path: Path) -> None:  # the alternative: a new process for every file
        with ExtractionWorker() as one:
            one.extract(path)

    per_file = _run(fresh, files)
    print(f"a new worker per file instead: {per_file:.2f} s, extra per file "
          f"{(per_file - in_process) / len(files) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
