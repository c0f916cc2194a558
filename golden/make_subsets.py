"""Rebuild the small CI subsets (scifact-small, cmrc2018-small) from the full golden sets.

Standard library only; reads golden/scifact and golden/cmrc2018 next to this file and rewrites
golden/scifact-small and golden/cmrc2018-small byte for byte (gzip written with mtime 0), so
running it twice changes nothing. Selection rules are in golden/README.md.

    python golden/make_subsets.py
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent

SCIFACT_QUERIES = 50  # first N queries (file order) that have at least one relevant doc
SCIFACT_DOCS = 500  # total docs: all relevant docs of those queries plus evenly spaced others
CMRC_PASSAGES = 100  # first N passages (file order) and every question judged on them


def read_jsonl(path: Path) -> list[dict[str, object]]:
    """Read a .jsonl or .jsonl.gz file into a list of dicts."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    """Write rows as JSON Lines; .gz paths are gzipped reproducibly (mtime 0, no file name)."""
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    if path.suffix == ".gz":
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
            gz.write(data)
        data = buf.getvalue()
    path.write_bytes(data)


def read_qrels(path: Path) -> list[tuple[str, str, int]]:
    """Read a BEIR qrels TSV (header row first) as (query id, doc id, score) rows in file order."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    return [(q, d, int(s)) for q, d, s in rows[1:]]


def write_qrels(path: Path, rows: list[tuple[str, str, int]]) -> None:
    """Write qrels rows as a BEIR TSV with its header."""
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, d, s in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_scifact_small() -> None:
    """First 50 judged queries, their relevant docs, and evenly spaced other docs up to 500."""
    src, dst = GOLDEN / "scifact", GOLDEN / "scifact-small"
    corpus = read_jsonl(src / "corpus.jsonl.gz")
    queries = read_jsonl(src / "queries.jsonl")
    qrels = read_qrels(src / "qrels.tsv")
    judged = {q for q, _, s in qrels if s > 0}
    chosen_q = [q for q in queries if q["_id"] in judged][:SCIFACT_QUERIES]
    chosen_qids = {str(q["_id"]) for q in chosen_q}
    chosen_qrels = [r for r in qrels if r[0] in chosen_qids]
    relevant = {d for _, d, _ in chosen_qrels}
    others = sorted((str(d["_id"]) for d in corpus if d["_id"] not in relevant), key=int)
    n_others = SCIFACT_DOCS - len(relevant)
    step = len(others) / n_others
    picked = {others[int(i * step)] for i in range(n_others)}
    keep = relevant | picked
    dst.mkdir(exist_ok=True)
    write_jsonl(dst / "corpus.jsonl.gz", [d for d in corpus if d["_id"] in keep])
    write_jsonl(dst / "queries.jsonl", chosen_q)
    write_qrels(dst / "qrels.tsv", chosen_qrels)


def make_cmrc_small() -> None:
    """First 100 passages in file order with every question judged on them and its answers."""
    src, dst = GOLDEN / "cmrc2018", GOLDEN / "cmrc2018-small"
    corpus = read_jsonl(src / "corpus.jsonl.gz")[:CMRC_PASSAGES]
    keep = {str(d["_id"]) for d in corpus}
    qrels = [r for r in read_qrels(src / "qrels.tsv") if r[1] in keep]
    qids = {q for q, _, _ in qrels}
    dst.mkdir(exist_ok=True)
    write_jsonl(dst / "corpus.jsonl.gz", corpus)
    queries = [q for q in read_jsonl(src / "queries.jsonl") if q["_id"] in qids]
    answers = [a for a in read_jsonl(src / "answers.jsonl") if a["_id"] in qids]
    write_jsonl(dst / "queries.jsonl", queries)
    write_jsonl(dst / "answers.jsonl", answers)
    write_qrels(dst / "qrels.tsv", qrels)
    (dst / "LICENCE").write_bytes((src / "LICENCE").read_bytes())


if __name__ == "__main__":
    make_scifact_small()
    make_cmrc_small()
