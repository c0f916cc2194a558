"""Peak RSS of `kb ingest` of one large plain-text file, BM25 only (issue 11, item 4).

Writes a text file of SIZE MB (default 100) of random dictionary-like words in paragraphs to
bench/cache/, ingests it with `kb --embedder none ingest` into a fresh database and prints
the process's peak RSS (GNU time's "Maximum resident set size"), wall time and chunks.

    python bench/ingest_memory.py [SIZE_MB]
"""

from __future__ import annotations

import json
import random
import re
import string
import subprocess
import sys
from pathlib import Path

CACHE = Path(__file__).parent / "cache"


def make_text(path: Path, megabytes: int) -> None:
    rng = random.Random(3)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 10)))
             for _ in range(20_000)]
    size = 0
    with path.open("w", encoding="utf-8") as fh:
        while size < megabytes * 2**20:
            para = " ".join(rng.choice(words) for _ in range(rng.randint(20, 120)))
            para = para[0].upper() + para[1:] + ".\n\n"
            fh.write(para)
            size += len(para)


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    CACHE.mkdir(exist_ok=True)
    text = CACHE / f"ingest-memory-{megabytes}mb.txt"
    if not text.exists():
        make_text(text, megabytes)
    db = CACHE / f"ingest-memory-{megabytes}mb.db"
    for old in CACHE.glob(db.name + "*"):
        old.unlink()
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "kb", "--db", str(db),
                           "--embedder", "none", "ingest", str(text)],
                          capture_output=True, text=True, check=True)
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)[1]
    chunks = int(re.search(r"(\d+) chunks written", done.stdout)[1])
    print(json.dumps({"file_mb": megabytes, "peak_rss_mib": round(peak_kib / 1024),
                      "wall": wall, "chunks": chunks}))


if __name__ == "__main__":
    main()
