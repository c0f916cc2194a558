"""Main-content extraction of web pages: kept-text precision and recall per page.

The pages are mozilla/readability's test pages (``source.html``, with ``expected.html`` the
main content a reader view keeps), as in the shared data set ``docs/html``.

Metric, token level: a token is a run of letters and digits (lower-cased) or one CJK
character; a page's text is the multiset (bag) of its tokens. With ``kept`` the tokens of the
extractor's text (``ExtractedDocument.text``) and ``expected`` those of ``expected.html``'s
visible text, ``overlap = |kept ∩ expected|`` (multiset intersection, each token counted
the fewer times it appears in either), precision = overlap / |kept|, recall = overlap /
|expected| (1.0 for an empty side). ``headings`` is the share of ``expected.html``'s h1-h6
texts that are the last element of some block's ``heading_path`` (headings kept as
structure, not just as text).

    python bench/html_main_content.py FOLDER

FOLDER holds one folder per page, each with ``source.html`` and ``expected.html`` (the layout
of mozilla/readability's ``test/test-pages``; the 15 pages measured in bench/README.md).

Prints one JSON object per page and extractor, then one per extractor with the means.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from bs4 import BeautifulSoup

from kb.ingest.extract.common import one_line
from kb.ingest.extract.html import extract_html

TOKEN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+")
EXTRACTORS = {"visible-text": False, "main-content": True}  # name -> extract_html(main_content)


def tokens(text: str) -> Counter[str]:
    """The bag of tokens of ``text``: letter/digit runs lower-cased, CJK characters one each."""
    return Counter(m.group().lower() for m in TOKEN_RE.finditer(text))


def precision_recall(kept: str, expected: str) -> tuple[float, float]:
    """Token-level (precision, recall) of ``kept`` against ``expected``, both in [0, 1]."""
    got, want = tokens(kept), tokens(expected)
    overlap = sum((got & want).values())
    total_got, total_want = sum(got.values()), sum(want.values())
    return (overlap / total_got if total_got else 1.0,
            overlap / total_want if total_want else 1.0)


def expected_page(path: Path) -> tuple[str, list[str]]:
    """The visible text of ``expected.html`` and its h1-h6 texts."""
    soup = BeautifulSoup(path.read_text("utf-8"), "lxml")
    for tag in soup(["script", "style"]):
        tag.decompose()
    headings = [one_line(h.get_text(" ")) for h in soup(["h1", "h2", "h3", "h4", "h5", "h6"])]
    return soup.get_text(" "), [h for h in headings if h]


def main(folder: Path) -> None:
    pages = sorted(p for p in folder.iterdir() if (p / "expected.html").is_file())
    if not pages:
        sys.exit(f"{folder}: no <page>/expected.html")
    sums: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in EXTRACTORS}
    for page in pages:
        expected, headings = expected_page(page / "expected.html")
        for name, main_content in EXTRACTORS.items():
            doc = extract_html(page / "source.html", main_content=main_content)
            precision, recall = precision_recall(doc.text, expected)
            kept = {one_line(b.heading_path[-1]) for b in doc.blocks if b.heading_path}
            heading_share = (sum(h in kept for h in headings) / len(headings)
                             if headings else 1.0)
            for i, value in enumerate((precision, recall, heading_share)):
                sums[name][i] += value
            print(json.dumps({"page": page.name, "extractor": name,
                              "precision": round(precision, 3), "recall": round(recall, 3),
                              "headings": round(heading_share, 3),
                              "blocks": len(doc.blocks)}), flush=True)
    for name, (p, r, h) in sums.items():
        print(json.dumps({"extractor": name, "pages": len(pages),
                          "mean_precision": round(p / len(pages), 3),
                          "mean_recall": round(r / len(pages), 3),
                          "mean_headings": round(h / len(pages), 3)}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path,
                        help="one folder per page, each with source.html and expected.html")
    main(parser.parse_args().folder)
