"""Build the DOCX and PDF notes of dev12 from the text files beside this script.

Run: /work/main/.venv/bin/python make_binaries.py (python-docx and reportlab).
"""
from pathlib import Path

from docx import Document
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

HERE = Path(__file__).parent
NOTES = HERE.parent / "notes"


def blocks(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith("## "):
            yield "h2", line[3:]
        elif line.startswith("# "):
            yield "h1", line[2:]
        elif line.startswith("- "):
            yield "li", line[2:]
        else:
            yield "p", line


def make_docx(src: Path, dst: Path) -> None:
    doc = Document()
    for kind, text in blocks(src):
        if kind == "h1":
            doc.add_heading(text, level=1)
        elif kind == "h2":
            doc.add_heading(text, level=2)
        elif kind == "li":
            doc.add_paragraph(text, style="List Bullet")
        else:
            doc.add_paragraph(text)
    doc.core_properties.title = next(t for k, t in blocks(src) if k == "h1")
    doc.save(dst)


def make_pdf(src: Path, dst: Path) -> None:
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    h1 = ParagraphStyle("h1", fontName="STSong-Light", fontSize=18, leading=24, spaceAfter=10)
    h2 = ParagraphStyle("h2", fontName="STSong-Light", fontSize=14, leading=20, spaceBefore=8,
                        spaceAfter=6)
    body = ParagraphStyle("p", fontName="STSong-Light", fontSize=11, leading=17,
                          wordWrap="CJK")
    story = []
    for kind, text in blocks(src):
        style = {"h1": h1, "h2": h2}.get(kind, body)
        story.append(Paragraph(("• " if kind == "li" else "") + text, style))
        story.append(Spacer(1, 3))
    title = next(t for k, t in blocks(src) if k == "h1")
    SimpleDocTemplate(str(dst), pagesize=A4, title=title).build(story)


make_docx(HERE / "fairweather-lab-wiki.txt", NOTES / "fairweather-lab-wiki.docx")
make_pdf(HERE / "云溪丝绸博物馆特展导览.txt", NOTES / "云溪丝绸博物馆特展导览.pdf")
