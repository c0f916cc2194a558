"""Every committed document fixture: the expected outcome, and the ExtractedDocument invariants."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.errors import ExtractError
from kb.ingest.extract import SUPPORTED_SUFFIXES, extract

DOCS = Path(__file__).parent / "fixtures" / "docs"

# Fixture -> the ExtractError kind it must raise; any file not listed must extract.
EXPECTED_FAILURES = {
    "pdf/libreoffice-writer-password.pdf": "encrypted",
    "pdf/pdfplumber-password-example.pdf": "encrypted",
    "pdf/ocrmypdf-linn.pdf": "empty",
    "pdf/pdfplumber-empty.pdf": "empty",
    "pdf/reportlab-unmapped-font-cjk.pdf": "empty",  # fonts without a Unicode map
    "pdf/reportlab-unmapped-font-latin.pdf": "empty",
    "pdf/ocrmypdf-invalid.pdf": "corrupt",
    "docx/python-docx-having-images.docx": "empty",
    "docx/python-docx-tbl-having-tables.docx": "empty",
}
FIXTURES = sorted(
    str(p.relative_to(DOCS)) for p in DOCS.rglob("*") if p.suffix.lower() in SUPPORTED_SUFFIXES
)


def test_fixture_set_is_complete() -> None:
    assert len(FIXTURES) >= 30
    assert set(EXPECTED_FAILURES) <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_outcome_and_invariants(name: str) -> None:
    path = DOCS / name
    if name in EXPECTED_FAILURES:
        with pytest.raises(ExtractError) as caught:
            extract(path)
        assert caught.value.kind == EXPECTED_FAILURES[name]
        assert caught.value.path == path
        assert caught.value.reason and str(path) in str(caught.value)
        return
    doc = extract(path)
    assert doc.title.strip() == doc.title and doc.title
    assert doc.blocks
    for block in doc.blocks:
        assert block.text.strip(), block
        assert "\x00" not in block.text and "\r" not in block.text
        assert all(h.strip() for h in block.heading_path)
        assert (block.page is not None) == (doc.source_type == "pdf")
    if doc.source_type == "pdf":
        pages = [b.page or 0 for b in doc.blocks]  # a page's sections are blocks in order
        assert pages == sorted(pages) and all(pages)
    if doc.created_at is not None:
        assert doc.created_at.utcoffset() is not None
    assert len(set(doc.warnings)) == len(doc.warnings)
