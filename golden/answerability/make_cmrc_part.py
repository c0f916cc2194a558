"""Build ``cmrc/``: Chinese near-topic answerability from CMRC 2018 dev (``golden/cmrc2018``).

CMRC 2018 questions all have an answer in their passage. To get questions that are on topic but
unanswerable, two in three of the chosen passages are *cut*: only the sentences before the one
closest to the middle are indexed, and a question of that passage whose every gold answer string
lies outside the kept part becomes unanswerable (the index still holds the same article's other
half, the near-topic text that tempts a retriever). Questions whose answer is in the kept part,
and every question of an uncut passage, stay answerable.

Deterministic, standard library only: ``python golden/answerability/make_cmrc_part.py``.
Passages of the CI subset (``cmrc2018-small``) and of ``golden/precision`` are never used, so
no gate set shares text with the answerability set.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent
EVERY = 3  # take every 3rd eligible passage (about 245 passages)
_SENTENCE_END = re.compile(r"(?<=[。！？；])")


def _load(name: str) -> list[dict]:
    path = GOLDEN / "cmrc2018" / name
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _excluded() -> set[str]:
    small = {row["_id"] for row in _load_small()}
    with (GOLDEN / "precision" / "corpus.jsonl").open(encoding="utf-8") as f:
        precision = {"cmrc-" + json.loads(line)["source"].split(":", 1)[1]
                     for line in f if '"cmrc:' in line}
    return small | precision


def _load_small() -> list[dict]:
    with gzip.open(GOLDEN / "cmrc2018-small" / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def cut_in_half(text: str) -> str:
    """The sentences of ``text`` before the sentence boundary closest to its middle."""
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    if len(sentences) < 2:
        return ""
    ends, total = [], 0
    for s in sentences[:-1]:
        total += len(s)
        ends.append(total)
    cut = min(ends, key=lambda e: abs(e - len(text) / 2))
    return text[:cut]


def main() -> None:
    """Write ``cmrc/corpus.jsonl`` and ``cmrc/questions.jsonl``."""
    excluded = _excluded()
    corpus = [p for p in _load("corpus.jsonl.gz") if p["_id"] not in excluded]
    chosen = corpus[::EVERY]
    answers = {a["_id"]: a["answers"] for a in _load("answers.jsonl")}
    queries: dict[str, list[dict]] = {}
    for q in _load("queries.jsonl"):
        queries.setdefault(q["_id"].rsplit("_QUERY_", 1)[0], []).append(q)
    rows, questions = [], []
    for i, p in enumerate(chosen):
        split = "test" if i % 4 == 3 else "train"  # a fixed quarter of the passages
        text, cut = p["text"], False
        if i % 3 != 1:  # two passages in three are cut
            head = cut_in_half(p["text"])
            if len(head) >= 80:
                text, cut = head, True
        rows.append({"_id": p["_id"], "title": p["title"], "text": text, "split": split,
                     "cut": cut})
        for q in queries.get(p["_id"], []):
            golds = [a for a in answers.get(q["_id"], []) if a.strip()]
            if not golds:
                continue
            answerable = any(a in text for a in golds)
            questions.append({
                "_id": q["_id"], "doc": p["_id"], "text": q["text"], "lang": "zh",
                "answerable": answerable, "answers": golds if answerable else [],
                "withheld_answers": [] if answerable else golds, "split": split})
    with (HERE / "cmrc" / "corpus.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    with (HERE / "cmrc" / "questions.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
    n_un = sum(not q["answerable"] for q in questions)
    print(f"{len(rows)} passages ({sum(r['cut'] for r in rows)} cut), {len(questions)} "
          f"questions, {n_un} unanswerable")


if __name__ == "__main__":
    main()
