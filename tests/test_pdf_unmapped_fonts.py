"""PDF fonts without a Unicode map are refused or warned about, never indexed as gibberish.

Issue 11, item 7. Fixtures made by ``tests/fixtures/docs/pdf/make_unmapped_fonts.py``:
reportlab subsets (codes in order of first use) whose ToUnicode maps were removed with pypdf.
pypdf reads them as control characters and shifted punctuation; before this check the Latin
and CJK files were indexed as that gibberish.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader

from kb.api import KnowledgeBase
from kb.config import Config
from kb.errors import EmptyDocumentError
from kb.ingest.extract import extract
from kb.ingest.extract.quality import control_codes, unmapped, unmapped_share

PDF = Path(__file__).parent / "fixtures" / "docs" / "pdf"
REASON = "its fonts have no Unicode map (no ToUnicode)"


@pytest.mark.parametrize("script", ["latin", "cjk"])
def test_a_pdf_whose_font_has_no_unicode_map_is_refused_with_that_reason(script):
    path = PDF / f"reportlab-unmapped-font-{script}.pdf"
    raw = PdfReader(path).pages[0].extract_text()
    assert control_codes(raw) > 20  # the fixture really is glyph codes to pypdf
    with pytest.raises(EmptyDocumentError) as caught:
        extract(path)
    assert caught.value.reason.startswith(REASON)
    assert "no text layer" not in caught.value.reason


def test_only_the_unmapped_page_is_left_out_with_a_warning():
    doc = extract(PDF / "reportlab-unmapped-font-page-2.pdf")
    assert [b.page for b in doc.blocks] == [1]
    assert doc.blocks[0].text.startswith("Tea is steeped in water")
    assert ("page 2: fonts without a Unicode map (the text is glyph codes); not indexed"
            in doc.warnings)


def test_the_ingest_report_gives_the_reason(tmp_path):
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        report = kb.ingest([PDF / "reportlab-unmapped-font-cjk.pdf",
                            PDF / "reportlab-unmapped-font-page-2.pdf"])
        cjk, mixed = report.outcomes
        assert cjk.action == "failed" and cjk.reason.startswith(REASON)
        assert mixed.action == "added"
        assert [d.title for d in kb.documents()] == ["reportlab-unmapped-font-page-2"]


def test_the_share_counts_glyphs_not_whitespace():
    assert unmapped_share(0, "") == 0.0
    assert unmapped_share(3, "ab c") == 0.5
    assert unmapped_share(0, "\x01\x02 ab") == 0.0  # control codes are not mapped glyphs
    assert not unmapped(1, "a few symbols in a long line of ordinary words")  # a bullet
    assert unmapped(10, "ab")
