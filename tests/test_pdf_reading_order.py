"""Multi-column PDFs are read column by column (issue 11, item 6).

Fixtures: two pages made with reportlab (``bench/pdf_reading_order.py``, ``make_columns``)
whose content streams draw a two- and a three-column page *row by row* (left line, right
line, ...), with the sentences they hold in reading order; a two-column DOCX section written
with python-docx and converted to PDF by LibreOffice (``make_libreoffice_columns``); and
py-pdf/sample-files 026, a two-column LaTeX article, with passages copied by hand from its
page image.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from kb.config import ChunkSettings
from kb.ingest.chunk import chunk_document
from kb.ingest.extract import extract

PDF = Path(__file__).parent / "fixtures" / "docs" / "pdf"
EXPECTED = json.loads((PDF / "reportlab-columns-row-by-row.expected.json").read_text())


def fold(text: str) -> str:
    text = re.sub(r"(?<=[a-z])-\s+(?=[a-z])", "", text)  # line-end hyphenation
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_page_drawn_row_by_row_is_read_column_by_column(name):
    sentences = EXPECTED[name]
    raw = fold(PdfReader(PDF / name).pages[0].extract_text())
    assert not any(s in raw for s in sentences[:5])  # the stream really runs across the gutter
    text = fold(extract(PDF / name).text)
    assert [s for s in sentences if s not in text] == []
    positions = [text.index(s) for s in sentences]
    assert positions == sorted(positions)


def test_no_chunk_holds_a_sentence_that_never_existed():
    sentences = EXPECTED["reportlab-two-columns-row-by-row.pdf"]
    doc = extract(PDF / "reportlab-two-columns-row-by-row.pdf")
    for chunk in chunk_document(doc, ChunkSettings()):
        for piece in re.split(r"(?<=\.)\s+", fold(chunk.text)):
            # every sentence in a chunk is a (possibly cut) sentence of the page
            assert any(piece in s or s in piece for s in sentences), piece


def test_a_two_column_libreoffice_page_keeps_its_sentences_in_order():
    sentences = json.loads((PDF / "libreoffice-two-columns.expected.json").read_text())
    text = fold(extract(PDF / "libreoffice-two-columns.pdf").blocks[0].text)
    assert [s for s in sentences if s not in text] == []
    positions = [text.index(s) for s in sentences]
    assert positions == sorted(positions)


def test_a_two_column_latex_article_keeps_its_sentences():
    text = fold(extract(PDF / "multicolumn.pdf").blocks[0].text)
    for passage in ("This is a sample document with two columns filled with Lorem Ipsum text.",
                    "Phasellus eu tellus sit amet tortor gravida placerat.",
                    "Nam dui ligula, fringilla a, euismod sodales, sollicitudin vel, wisi.",
                    "Quisque ullamcorper placerat ipsum.",
                    "Vestibulum luctus nibh at lectus."):
        assert passage in text
    assert text.index("Nulla malesuada porttitor diam.") < text.index("Quisque ullamcorper")
