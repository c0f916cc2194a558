"""Build ``own/corpus.jsonl``: the text kb extracts from real public documents (run once).

Usage: ``python golden/answerability/make_own_corpus.py DATA_DIR`` where ``DATA_DIR`` holds the
public test documents listed in ``DOCS`` (the ``docs/`` folder of the project's shared data;
see README.md here for where each file comes from and its licence). The texts are stored so
that the set never depends on those files again, and so that a later change of kb's extractors
does not move the answers the questions were checked against.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from kb.ingest.extract import extract

# (_id, path under DATA_DIR, language, split, pages) -- split by document: no test document's
# text is ever seen by fitting. ``pages`` keeps a page range of a long PDF (1-based, inclusive).
DOCS = [
    ("google-sre", "html/google-sre-book-1/source.html", "en", "train", None),
    ("shift-work", "pdf/pdfplumber-issue-316-example.pdf", "en", "train", None),
    ("lwn-weekly", "html/lwn-1/source.html", "en", "train", None),
    ("federal-register", "pdf/pdfplumber-federal-register-2020-17221.pdf", "en", "train", None),
    ("guardian-maori", "html/guardian-1/source.html", "en", "train", None),
    ("licences-table", "docx/word-extractor-test03.docx", "en", "train", None),
    ("dongbei-q1-a", "pdf/pdfplumber-issue-67-example.pdf", "zh", "train", (1, 11)),
    ("wikipedia-mozilla", "html/wikipedia/source.html", "en", "test", None),
    ("bbc-gun-laws", "html/bbc-1/source.html", "en", "test", None),
    ("nytimes-sudan", "html/nytimes-1/source.html", "en", "test", None),
    ("medium-journalism", "html/medium-1/source.html", "en", "test", None),
    ("factorio-fff", "html/keep-tabular-data/source.html", "en", "test", None),
    ("zen-of-python", "pdf/google-doc-document.pdf", "en", "test", None),
    ("firefox-page", "html/mozilla-1/source.html", "en", "test", None),
    ("qq-deepmind", "html/qq/source.html", "zh", "test", None),
    ("lab-report-zh", "pdf/pdfplumber-issue-461-example.pdf", "zh", "test", None),
    ("dongbei-q1-b", "pdf/pdfplumber-issue-67-example.pdf", "zh", "test", (12, 22)),
]

TITLES = {
    "shift-work": "Shift-work interventions and work-family conflict",
    "federal-register": "Federal Register 2020-17221",
    "dongbei-q1-a": "东北电气发展股份有限公司 2018 年第一季度报告",
    "dongbei-q1-b": "东北电气发展股份有限公司 2018 年第一季度报告",
    "lab-report-zh": "检验报告",
    "zen-of-python": "The Zen of Python",
}


def main(data_dir: Path) -> None:
    """Extract every document of ``DOCS`` and write ``own/corpus.jsonl`` next to this file."""
    logging.disable(logging.WARNING)  # pypdf's font notes
    out = Path(__file__).with_name("own") / "corpus.jsonl"
    out.parent.mkdir(exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for doc_id, rel, lang, split, pages in DOCS:
            doc = extract(data_dir / rel)
            blocks = [b for b in doc.blocks
                      if pages is None or (b.page is not None and pages[0] <= b.page <= pages[1])]
            text = "\n\n".join(b.text for b in blocks)
            title = TITLES.get(doc_id, doc.title)  # a file stem is no title
            row = {"_id": doc_id, "title": title, "text": text, "lang": lang,
                   "split": split, "origin": rel}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{doc_id:20s} {split:5s} {lang} {len(text):6d} chars")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
