"""The cost of the integrity checks run when a knowledge base is opened, at 100k chunks.

Uses the index of ``bench/latency.py`` (``bench/cache/latency-<n>.db``, built if missing) and
times, each the best of ``--repeat`` runs on a warm page cache: SQLite's ``quick_check``, the
full-text index check (``kb.store.health.fts_problem``), the orphan check, FTS5's own
``integrity-check`` (what ``kb status`` runs), and a whole ``Store`` open.

Usage: python bench/open_check.py [--chunks 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from latency import build  # noqa: E402  (bench/latency.py)

from kb.config import Config  # noqa: E402
from kb.store import Store  # noqa: E402
from kb.store.health import fts_problem, orphans_found, quick_check  # noqa: E402


def best_ms(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in milliseconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return round(min(times), 1)


def main() -> None:
    """Print the timings as one JSON object."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cache = Path(__file__).parent / "cache"
    cache.mkdir(exist_ok=True)
    path = cache / f"latency-{args.chunks}.db"
    build(path, args.chunks, Config()).close()
    conn = sqlite3.connect(path, isolation_level=None)
    assert fts_problem(conn) is None

    def integrity() -> None:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")

    print(json.dumps({
        "chunks": conn.execute("SELECT count(*) FROM chunks").fetchone()[0],
        "quick_check_ms": best_ms(lambda: quick_check(conn), args.repeat),
        "fts_problem_ms": best_ms(lambda: fts_problem(conn), args.repeat),
        "orphans_found_ms": best_ms(lambda: orphans_found(conn), args.repeat),
        "fts5_integrity_check_ms": best_ms(integrity, args.repeat),
        "store_open_ms": best_ms(lambda: Store(path).close(), args.repeat),
    }))


if __name__ == "__main__":
    main()
