"""Which PDF text extractor keeps the reading order of multi-column pages (issue 11, item 6).

Candidates: pypdf's default extraction (content-stream order), pypdf's layout mode,
pdfminer.six's layout analysis (LAParams defaults) and poppler's `pdftotext` (where
installed). Inputs:

- two-column pages made here with reportlab whose content stream runs *row by row* (left
  line, right line, ...), and the same text drawn column by column, and a three-column page
  drawn row by row; and, where LibreOffice is installed, a two-column DOCX section (written
  with python-docx) converted to PDF by LibreOffice: the exact text is known;
- real multi-column papers from the shared document set (a LaTeX two-column article, a
  three-column Federal Register page), with passages copied by hand from the page images,
  each spanning several lines of one column.

Score per input and method: the share of ground-truth passages found intact (after folding
whitespace, line-end hyphens and case), the share of consecutive passages found in order, and
the seconds per page.

    python bench/pdf_reading_order.py [--out bench/cache/reading-order] [--real FOLDER]

``--real FOLDER`` adds the real papers: a folder holding ``multicolumn.pdf`` and
``pdfplumber-federal-register-2020-17221.pdf`` (pdfplumber's test files); without it only
the generated pages are scored.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

WORDS = ("river harbour lantern orchard copper meadow signal kite paper string wind tail frame "
         "glue bamboo silk flight height storm cloud valley bridge engine market garden winter "
         "summer stone glass timber canvas thread needle anchor beacon ladder mirror").split()

# Passages copied by hand from the page images (each runs over several lines of one column):
# input name -> (file name under --real, page, passages).
REAL = {
    "latex-2col (multicolumn.pdf p.1)": ("multicolumn.pdf", 1, [
        "This is a sample document with two columns filled with Lorem Ipsum text.",
        "Phasellus eu tellus sit amet tortor gravida placerat.",
        "Nam dui ligula, fringilla a, euismod sodales, sollicitudin vel, wisi.",
        "Nulla malesuada porttitor diam.",
        "Quisque ullamcorper placerat ipsum.",
        "Fusce mauris.",
        "Vestibulum luctus nibh at lectus.",
    ]),
    "federal-register-3col (p.2)": ("pdfplumber-federal-register-2020-17221.pdf", 2, [
        "Investigation of the accident has been completed by the Indonesian authorities "
        "(Komite Nasional Keselamatan Transportasi (KNKT)) with assistance from the National "
        "Transportation Safety Board (NTSB) and the FAA of the United States, the "
        "manufacturer, and the operator.",
        "These effects include stall warning activation, airspeed disagree alert, and",
        "On March 10, 2019, a Boeing Model 737–8 airplane operated by Ethiopian Airlines "
        "(Ethiopian Airlines Flight 302) was involved in an accident after takeoff from "
        "Addis Ababa Bole International Airport in Addis Ababa, Ethiopia, resulting in 157 "
        "fatalities.",
        "To address the unsafe condition, the FAA proposes to require four design changes:",
        "In addition to these four design changes, the FAA also proposes to",
    ]),
}


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return f"Passage {n} " + " ".join(words) + "."


def make_columns(path: Path, *, columns: int, row_by_row: bool, seed: int) -> list[str]:
    """A page of ``columns`` justified-width columns; returns its sentences in reading order."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen import canvas

    rng = random.Random(seed)
    width, height = A4
    margin, gutter, leading = 50, 24, 12
    col_w = (width - 2 * margin - (columns - 1) * gutter) / columns
    sentences, cols = [], []
    n = 1
    for _ in range(columns):
        lines: list[str] = []
        while len(lines) < 52:
            s = _sentence(rng, n)
            n += 1
            sentences.append(s)
            lines.extend(simpleSplit(s, "Helvetica", 9, col_w))
        cols.append(lines)
    # The last sentence of a column may run past the page: keep whole sentences that fit.
    kept: list[str] = []
    for c in range(columns):
        text = " ".join(cols[c][:52])
        kept.extend(s for s in sentences if s in text and s not in kept)
        cols[c] = cols[c][:52]
    page = canvas.Canvas(str(path), pagesize=A4)
    page.setFont("Helvetica", 9)
    order = ([(r, c) for r in range(52) for c in range(columns)] if row_by_row
             else [(r, c) for c in range(columns) for r in range(52)])
    for r, c in order:
        page.drawString(margin + c * (col_w + gutter), height - margin - r * leading, cols[c][r])
    page.save()
    return kept


def make_libreoffice_columns(path: Path, *, seed: int) -> list[str]:
    """A two-column page written with python-docx and converted to PDF by LibreOffice.

    Returns the sentences in reading order. Needs ``soffice`` (LibreOffice) on the PATH.
    """
    import tempfile

    from docx import Document
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    rng = random.Random(seed)
    sentences = [_sentence(rng, n) for n in range(1, 61)]
    document = Document()
    for start in range(0, len(sentences), 4):
        document.add_paragraph(" ".join(sentences[start:start + 4]))
    cols = OxmlElement("w:cols")
    cols.set(qn("w:num"), "2")
    cols.set(qn("w:space"), "454")
    document.sections[0]._sectPr.append(cols)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / (path.stem + ".docx")
        document.save(str(source))
        subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", tmp,
                        str(source)], capture_output=True, check=True, timeout=300)
        shutil.copy(Path(tmp) / (path.stem + ".pdf"), path)
    from pypdf import PdfReader

    first_page = fold(PdfReader(path).pages[0].extract_text() or "")
    # Keep the sentences that begin and end on page 1 (a page holds about 30).
    return [s for s in sentences if fold(s)[:25] in first_page and fold(s)[-20:] in first_page]


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(?<=[a-z])-\s+(?=[a-z])", "", text)  # line-end hyphenation
    return " ".join(text.lower().split())


def pypdf_plain(path: Path, page: int) -> str:
    from pypdf import PdfReader
    return PdfReader(path).pages[page - 1].extract_text()


def pypdf_layout(path: Path, page: int) -> str:
    from pypdf import PdfReader
    return PdfReader(path).pages[page - 1].extract_text(extraction_mode="layout")


def pdfminer(path: Path, page: int) -> str:
    from pdfminer.high_level import extract_text
    return extract_text(str(path), page_numbers=[page - 1])


def pdftotext(path: Path, page: int) -> str:
    return subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout


def score(text: str, passages: list[str]) -> tuple[float, float]:
    folded = fold(text)
    where = [folded.find(fold(p)) for p in passages]
    intact = sum(w >= 0 for w in where) / len(passages)
    found = [w for w in where if w >= 0]
    pairs = list(zip(found, found[1:], strict=False))
    ordered = sum(a < b for a, b in pairs) / len(pairs) if pairs else 0.0
    return intact, ordered


def main() -> None:
    logging.disable(logging.CRITICAL)
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("bench/cache/reading-order"))
    parser.add_argument("--real", type=Path, help="folder holding the real papers of REAL")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    inputs: dict[str, tuple[Path, int, list[str]]] = {}
    for name, columns, rows in (("reportlab-2col row-by-row", 2, True),
                                ("reportlab-2col column-by-column", 2, False),
                                ("reportlab-3col row-by-row", 3, True)):
        path = out / (name.replace(" ", "_") + ".pdf")
        inputs[name] = (path, 1, make_columns(path, columns=columns, row_by_row=rows, seed=7))
    if shutil.which("soffice"):
        path = out / "libreoffice-2col.pdf"
        inputs["libreoffice-2col (python-docx + soffice)"] = (
            path, 1, make_libreoffice_columns(path, seed=8))
    if args.real is not None:
        inputs.update({name: (args.real / file, page, passages)
                       for name, (file, page, passages) in REAL.items()})
    methods: dict[str, Callable[[Path, int], str]] = {
        "pypdf": pypdf_plain, "pypdf layout": pypdf_layout, "pdfminer.six": pdfminer}
    if shutil.which("pdftotext"):
        methods["pdftotext"] = pdftotext
    for name, (path, page, passages) in inputs.items():
        for method, run in methods.items():
            start = time.perf_counter()
            text = run(path, page)
            seconds = time.perf_counter() - start
            intact, ordered = score(text, passages)
            print(json.dumps({"input": name, "method": method, "passages": len(passages),
                              "intact": round(intact, 3), "in_order": round(ordered, 3),
                              "s_per_page": round(seconds, 3)}))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
