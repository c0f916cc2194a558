"""Build ``squad2-normans/corpus.jsonl``: the article "Normans" as one document.

SQuAD 2.0 gives the article as 39 paragraphs (``paragraphs.jsonl``); a user's knowledge base
would hold it as one document, so the paragraphs are joined with blank lines (kb's chunker
cuts at paragraphs first). ``eval.answerability`` finds each question's paragraph in the joined
text by these offsets. Standard library only: ``python golden/answerability/make_squad_part.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent / "squad2-normans"
SEPARATOR = "\n\n"


def main() -> None:
    """Write the one-document corpus."""
    with (HERE / "paragraphs.jsonl").open(encoding="utf-8") as f:
        paragraphs = [json.loads(line) for line in f if line.strip()]
    row = {"_id": "normans", "title": paragraphs[0]["title"],
           "text": SEPARATOR.join(p["text"] for p in paragraphs)}
    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"1 document, {len(paragraphs)} paragraphs, {len(row['text'])} characters")


if __name__ == "__main__":
    main()
