"""A PDF's outline (bookmarks) as its heading path (``kb.ingest.extract.pdf_outline``).

A PDF was one block per page with no heading path, so a chunk could hold the end of one
section and the start of the next, and its citation said only "page 2". The pure functions
are checked on hand-made text; then real PDFs (pdflatex's, and ones reportlab writes with
bookmarks) go through the real extractor and the real ``kb`` command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.ingest.extract import extract
from kb.ingest.extract.pdf_outline import OutlineEntry, page_blocks, title_at

canvas = pytest.importorskip("reportlab.pdfgen.canvas")

PDF = Path(__file__).parent / "fixtures" / "docs" / "pdf"


@pytest.mark.parametrize(("text", "title", "at"), [
    ("Intro.\nFire safety\nKeep exits clear.", "Fire safety", 7),
    ("Intro.\nFIRE  SAFETY\n", "Fire safety", 7),  # case and spaces aside
    ("前言\n第二章安装\n", "第二章 安装", 3),
    ("Intro.\n1.2 Wiring\n", "Wiring", 7),  # LaTeX numbers the heading, not the bookmark
    ("Intro.\nIV. Results\n", "Results", 7),
    ("Intro.\nInterventions to improve\ncoping by shift workers\nStress.", (
        "Interventions to improve coping by shift workers"), 7),  # wrapped over two lines
    ("Intro.\nResults were mixed.\n", "Results", None),  # a body line opening with it
    ("Intro.\nA Results table\n", "Results table", None),  # a capital is no section number
    ("See the Wiring section.", "Wiring", None),  # not at a line's start
    ("Intro.", "   ", None),
    ("Results.\nDiscussion\nWe think.", "4 Discussion", 9),  # the bookmark numbers it
])
def test_title_at(text: str, title: str, at: int | None) -> None:
    assert title_at(text, title) == at


def test_a_page_is_cut_where_its_sections_titles_are_written() -> None:
    text = "end of the preface.\n1 Setup\nPlug it in.\n1.1 Wiring\nRed to red.\n"
    entries = [OutlineEntry(0, "1 Setup", 3), OutlineEntry(1, "1.1 Wiring", 3)]
    blocks, path = page_blocks(text, 3, entries, ("Preface",))
    assert [(b.text, b.heading_path, b.page) for b in blocks] == [
        ("end of the preface.", ("Preface",), 3),  # before the first title: the path in force
        ("1 Setup\nPlug it in.", ("1 Setup",), 3),
        ("1.1 Wiring\nRed to red.", ("1 Setup", "1.1 Wiring"), 3)]
    assert path == ("1 Setup", "1.1 Wiring")  # in force on the next page
    # a page with no entry keeps the path; an entry whose title the page never writes opens
    # its section at the page's start (one at the same place as another: the deepest path)
    (block,), kept = page_blocks("More wiring.", 4, [], path)
    assert (block.text, block.heading_path, kept) == ("More wiring.", path, path)
    blocks, path = page_blocks("Tables.", 5, [OutlineEntry(0, "Appendix", 5),
                                              OutlineEntry(1, "Tables", 5)], path)
    assert [(b.text, b.heading_path) for b in blocks] == [("Tables.", ("Appendix", "Tables"))]
    # an entry the page does not write, after one it does: it takes nothing from the section
    # before it (a review: the Results text was labelled "4 Discussion") and holds from the
    # next page
    blocks, path = page_blocks("Results\nIt worked.", 6, [OutlineEntry(0, "Results", 6),
                                                          OutlineEntry(0, "Conclusions", 6)], ())
    assert [(b.text, b.heading_path) for b in blocks] == [("Results\nIt worked.", ("Results",))]
    assert path == ("Conclusions",)


def test_a_latex_pdfs_sections_are_its_blocks() -> None:
    doc = extract(PDF / "pdflatex-outline.pdf")  # nine sections, Foo, Bar, Baz three times
    assert [b.heading_path for b in doc.blocks[:5]] == [
        (), ("Foo",), ("Bar",), ("Baz",), ("Foo",)]
    assert doc.blocks[2].text.startswith("2 Bar\n") and doc.blocks[2].page == 2
    # a section running onto the next page keeps its heading there
    assert doc.blocks[5].page == 3 and doc.blocks[5].heading_path == ("Foo",)


def _bookmarked(path: Path) -> Path:
    """A two-page PDF whose outline nests "Wiring" under "Installation" (reportlab)."""
    pdf = canvas.Canvas(str(path))
    pdf.setTitle("Kestrel heat pump manual")
    lines = [(720, "Safety"), (700, "Keep the unit 30 cm from walls and fences."),
             (686, "Never open the casing while the unit is switched on."),
             (660, "Installation"), (640, "Mount the outdoor unit on the wall bracket."),
             (626, "Leave a gap of 50 cm above it for the air to leave.")]
    for y, line in lines:
        pdf.drawString(72, y, line)
    pdf.bookmarkPage("safety", fit="XYZ", top=730)
    pdf.addOutlineEntry("Safety", "safety", level=0)
    pdf.bookmarkPage("install", fit="XYZ", top=670)
    pdf.addOutlineEntry("Installation", "install", level=0)
    pdf.showPage()
    pdf.drawString(72, 720, "Wiring")
    pdf.drawString(72, 700, "Connect the brown wire to terminal L2 with a 16 A breaker.")
    pdf.drawString(72, 686, "The blue wire goes to terminal N, the green one to earth.")
    pdf.bookmarkPage("wiring", fit="XYZ", top=730)
    pdf.addOutlineEntry("Wiring", "wiring", level=1)
    pdf.showPage()
    pdf.save()
    return path


def test_bookmarks_a_pdf_writer_makes_are_headings(tmp_path: Path) -> None:
    doc = extract(_bookmarked(tmp_path / "manual.pdf"))
    assert [(b.heading_path, b.page) for b in doc.blocks] == [
        (("Safety",), 1), (("Installation",), 1), (("Installation", "Wiring"), 2)]
    assert doc.blocks[1].text == ("Installation\nMount the outdoor unit on the wall bracket.\n"
                                  "Leave a gap of 50 cm above it for the air to leave.")


def test_a_citation_names_the_pdf_section(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _bookmarked(docs.mkdir() or docs / "manual.pdf")
    db = str(tmp_path / "kb.db")
    env = {"KB_EMBEDDER": "none", "KB_LLM": ""}
    assert CliRunner().invoke(cli, ["--db", db, "ingest", str(docs)], env=env).exit_code == 0
    r = CliRunner().invoke(cli, ["--db", db, "search", "Which breaker does the wiring need?",
                                 "--json"], env=env)
    assert r.exit_code == 0, r.output
    first = json.loads(r.stdout)["references"][0]
    assert "16 A breaker" in first["text"]
    assert first["heading_path"] == ["Installation", "Wiring"] and first["page"] == 2
