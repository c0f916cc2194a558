"""PDF extraction with pypdf on real files and on PDFs generated here with reportlab/pypdf."""

from __future__ import annotations

import io
import re
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import reread_once
from pypdf import PdfReader, PdfWriter

from kb.errors import CorruptError, EmptyDocumentError, EncryptedError, ExtractError
from kb.ingest.extract import extract

PDF = Path(__file__).parent / "fixtures" / "docs" / "pdf"
LIGATURES = "".join(chr(c) for c in range(0xFB00, 0xFB07))  # ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ


def test_multi_page_pdf_keeps_pages() -> None:
    doc = extract(PDF / "pdflatex-4-pages.pdf")
    assert doc.source_type == "pdf"
    assert [b.page for b in doc.blocks] == [1, 2, 3, 4]
    assert doc.blocks[0].text.startswith("Hello, here is some text without a meaning.")
    assert all(len(b.text) > 2000 for b in doc.blocks)
    assert doc.title == "pdflatex-4-pages"  # no /Title in the metadata
    # manifest: "creation_date": "2022-04-03T19:59:45+02:00"
    assert doc.created_at == datetime(2022, 4, 3, 19, 59, 45, tzinfo=timezone(timedelta(hours=2)))


@pytest.mark.slow  # pdfminer's layout analysis of a whole PDF
def test_ligatures_are_nfkc_normalised() -> None:
    raw = PdfReader(PDF / "pdfplumber-issue-316-example.pdf").pages[0].extract_text()
    assert "efﬁcacy" in raw  # the file really carries U+FB01 in its text layer
    doc = extract(PDF / "pdfplumber-issue-316-example.pdf")
    assert len(doc.blocks) == 17
    assert not any(ch in doc.text for ch in LIGATURES)
    assert "investigate the efficacy of family involvement" in doc.blocks[0].text
    assert "work-family conflict" in doc.blocks[0].text
    assert doc.text == unicodedata.normalize("NFKC", doc.text)
    # /Title is "88300 162..177" (a print-job id, no letters): the stem is used instead.
    assert doc.title == "pdfplumber-issue-316-example"


@pytest.mark.slow  # a 22-page PDF
def test_chinese_pdf_pages() -> None:
    doc = extract(PDF / "pdfplumber-issue-67-example.pdf")
    pages = [b.page for b in doc.blocks]
    assert sorted(set(pages)) == list(range(1, 23)) and pages == sorted(pages)
    second = next(b for b in doc.blocks if b.page == 2)
    assert "东北电气发展股份有限公司" in second.text and "第一节 重要提示" in second.text
    # no outline: its numbered sections (一、 ...), set apart from the body, are its headings
    assert ("一、主要会计数据和财务指标",) in {b.heading_path for b in doc.blocks}


def test_metadata_title_and_image_warning() -> None:
    doc = extract(PDF / "google-doc-document.pdf")
    assert doc.title == "PDF Example Document"
    assert "1 images not indexed (no vision model configured)" in doc.warnings
    assert doc.created_at is None  # manifest: "creation_date": null


@pytest.mark.parametrize(
    "name", ["libreoffice-writer-password.pdf", "pdfplumber-password-example.pdf"]
)
def test_user_password_pdf_is_encrypted_error(name: str) -> None:
    with pytest.raises(EncryptedError, match="encrypted with a user password") as caught:
        extract(PDF / name)
    assert caught.value.path == PDF / name
    assert caught.value.kind == "encrypted"


def test_user_password_is_really_needed() -> None:
    # Sanity check of the fixture: the documented password opens it.
    reader = PdfReader(PDF / "libreoffice-writer-password.pdf")
    assert reader.decrypt("openpassword")
    assert "Lorem ipsum" in reader.pages[0].extract_text()


def _encrypted_copy(tmp_path: Path, *, user_password: str) -> Path:
    writer = PdfWriter(clone_from=PdfReader(PDF / "minimal-document.pdf"))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    path = tmp_path / f"encrypted-{'user' if user_password else 'owner'}.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def test_owner_only_encryption_opens_with_empty_password(tmp_path: Path) -> None:
    path = _encrypted_copy(tmp_path, user_password="")
    assert PdfReader(path).is_encrypted
    doc = extract(path)
    assert doc.blocks[0].text.startswith("Lorem ipsum dolor sit amet")
    assert doc.blocks[0].page == 1


def test_generated_user_password_is_encrypted_error(tmp_path: Path) -> None:
    with pytest.raises(EncryptedError):
        extract(_encrypted_copy(tmp_path, user_password="let-me-in"))


def test_scanned_pdf_without_text_layer() -> None:
    with pytest.raises(EmptyDocumentError, match=r"no text layer on any page \(scanned PDF\?\)"):
        extract(PDF / "ocrmypdf-linn.pdf")


def test_empty_file() -> None:
    with pytest.raises(EmptyDocumentError, match="empty file"):
        extract(PDF / "pdfplumber-empty.pdf")


def test_invalid_pdf_is_corrupt_with_pypdf_reason() -> None:
    with pytest.raises(CorruptError, match="startxref") as caught:
        extract(PDF / "ocrmypdf-invalid.pdf")
    assert str(caught.value).startswith(str(PDF / "ocrmypdf-invalid.pdf"))


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9])
def test_truncated_pdf_never_escapes_as_another_exception(tmp_path: Path, cut: float) -> None:
    data = (PDF / "pdflatex-4-pages.pdf").read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: int(len(data) * cut)])
    try:
        doc = extract(path)
    except ExtractError as exc:
        # a new user: "Stream has ended unexpectedly" did not say the file was cut short
        assert "the file looks cut short (no %%EOF at its end)" in exc.reason
    else:
        assert doc.blocks and all(b.text.strip() for b in doc.blocks)


def test_garbage_with_pdf_suffix(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("this is not a PDF at all\n", encoding="utf-8")
    with pytest.raises(CorruptError, match=r"not a valid PDF file \(no %PDF header\)"):
        extract(path)


def _reportlab_pdf(path: Path) -> None:
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    pil_image = pytest.importorskip("PIL.Image")
    from reportlab.lib.utils import ImageReader

    pdf = canvas.Canvas(str(path))
    pdf.setTitle("Quarterly Report on Widgets")
    pdf.drawString(72, 720, "Widget sales rose by 12 percent in the third quarter.")
    pdf.drawString(72, 700, "Page one ends here.")
    pdf.showPage()
    pdf.showPage()  # page 2: nothing drawn, no text layer
    buffer = io.BytesIO()
    pil_image.new("RGB", (8, 8), (200, 30, 30)).save(buffer, format="PNG")
    pdf.drawImage(ImageReader(io.BytesIO(buffer.getvalue())), 72, 500, width=50, height=50)
    pdf.drawString(72, 720, "Third page: the outlook for gadgets is stable.")
    pdf.showPage()
    pdf.save()


def test_reportlab_pdf_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    _reportlab_pdf(path)
    doc = extract(path)
    assert doc.title == "Quarterly Report on Widgets"
    assert [b.page for b in doc.blocks] == [1, 3]
    assert doc.blocks[0].text == (
        "Widget sales rose by 12 percent in the third quarter.\nPage one ends here."
    )
    assert doc.blocks[1].text == "Third page: the outlook for gadgets is stable."
    assert "page 2 has no text layer (scanned image?); not indexed" in doc.warnings
    assert "1 images not indexed (no vision model configured)" in doc.warnings
    assert doc.created_at is not None and doc.created_at.tzinfo is not None
    assert abs(datetime.now(tz=doc.created_at.tzinfo) - doc.created_at) < timedelta(days=2)


def _stream(content: bytes, filters: bytes = b"") -> bytes:
    return b"<< /Length %d%s >>\nstream\n" % (len(content), filters) + content + b"\nendstream"


def _hand_made_pdf(*streams: bytes) -> bytes:
    """A PDF with one page per content-stream object in ``streams`` (Helvetica as /F1)."""
    pages = len(streams)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, stream in enumerate(streams):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * i)
        )
        objects.append(stream)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_nul_in_text_layer_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "nul.pdf"
    path.write_bytes(_hand_made_pdf(_stream(b"BT /F1 12 Tf 72 720 Td (before\\000after) Tj ET")))
    assert PdfReader(path).pages[0].extract_text() == "before\x00after"  # pypdf keeps the NUL
    doc = extract(path)
    assert doc.text == "beforeafter"
    assert doc.title == "nul"


def test_whitespace_only_text_layer_is_no_text(tmp_path: Path) -> None:
    path = tmp_path / "spaces.pdf"
    path.write_bytes(_hand_made_pdf(_stream(b"BT /F1 12 Tf 72 720 Td (   ) Tj ET")))
    with pytest.raises(EmptyDocumentError, match="no text layer"):
        extract(path)


def test_a_page_that_fails_to_extract_does_not_lose_the_others(tmp_path: Path) -> None:
    good = _stream(b"BT /F1 12 Tf 72 720 Td (Readable page) Tj ET")
    broken = _stream(b"abcde", b" /Filter /NoSuchFilter")
    path = tmp_path / "partly-broken.pdf"
    path.write_bytes(_hand_made_pdf(good, broken, good))
    doc = extract(path)
    assert [(b.page, b.text) for b in doc.blocks] == [(1, "Readable page"), (3, "Readable page")]
    assert any(w.startswith("text extraction failed on page(s) 2:") for w in doc.warnings)
    assert not any("no text layer" in w for w in doc.warnings)

    only_broken = tmp_path / "all-broken.pdf"
    only_broken.write_bytes(_hand_made_pdf(broken))
    with pytest.raises(CorruptError, match="NoSuchFilter"):
        extract(only_broken)


def _chinese_pdf(path: Path) -> Path:
    """A reportlab page: a heading, a paragraph wrapped over four lines, a short last line."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    body = ParagraphStyle("body", fontName="STSong-Light", fontSize=12, leading=18,
                          wordWrap="CJK")
    head = ParagraphStyle("head", parent=body, fontSize=16, leading=24)
    paragraph = ("本展区的核心展品是一台按原尺寸复原的清代花楼织机。这台织机高四米二、长五米六，"
                 "织造时需要两个人配合：一人坐在高处的花楼上提拉经线，另一人在下方投梭打纬。"
                 "一天只能织出几厘米的复杂花纹。研究会的老织工每天在这里进行现场织造演示，"
                 "每场约三十分钟，观众可以近距离观看。")
    SimpleDocTemplate(str(path), pagesize=A4).build(
        [Paragraph("第二展区：织机", head), Paragraph(paragraph, body),
         Paragraph("第三展区：纹样", head), Paragraph("纹样展区陈列了历代丝织品。", body)])
    return path


def test_a_chinese_paragraphs_wrapped_lines_are_joined(tmp_path: Path) -> None:
    # a trial: "织\n造" in a reportlab PDF's text: 织造 unfound, its sentence cut in two
    path = _chinese_pdf(tmp_path / "guide.pdf")
    raw = PdfReader(path).pages[0].extract_text()
    assert raw.count("\n") >= 5  # the paragraph really wraps on the page
    text = extract(path).text
    lines = text.splitlines()
    assert "第二展区：织机" in lines and "第三展区：纹样" in lines  # headings keep their breaks
    # full-width punctuation as written (NFKC folded it to ASCII: quotes were not verbatim)
    para = next(x for x in lines if x.startswith("本展区"))
    assert para.endswith("观众可以近距离观看。")  # one line, the whole paragraph
    assert "织造时需要两个人配合：一人坐在高处" in para


@pytest.mark.slow  # a 22-page PDF
def test_a_real_chinese_reports_paragraphs_join_and_its_table_cells_do_not() -> None:
    text = extract(PDF / "pdfplumber-issue-67-example.pdf").text
    # a paragraph wrapped at 《上 / 市公司收购管理办法》
    assert "也不属于《上市公司收购管理办法》规定的一致行动人。" in text
    assert "于2018年1月16日上午开市起复牌" in text  # a digit before the break
    lines = text.splitlines()
    # the page header stays its own line, above the centred title and the section heading
    assert lines[:2] == ["东北电气发展股份有限公司 2018 年第一季度报告全文",
                         "东北电气发展股份有限公司"]
    assert "第一节 重要提示" in lines
    assert "单位：元" in lines  # a table's unit line is no paragraph of the next cell
    # a review: the shareholder table's rows and a column of dates were glued together
    assert not [x for x in lines if x.count("人民币普通股") > 1 or x.count("日2") > 0]


def test_an_index_made_before_the_join_reads_its_chinese_pdfs_again(tmp_path: Path) -> None:
    # the upkeep step "cjk-pdf-reread": indexed before the join, a Chinese PDF's chunks kept
    # "织\n造" until its file changed; it is read again at the next ingest, other PDFs are
    # not. No schema version changes: a read-only index, or an older kb, opens it as before
    import sqlite3
    from contextlib import closing

    from reportlab.pdfgen.canvas import Canvas

    from kb.api import KnowledgeBase
    from kb.config import Config
    from kb.store.schema import SCHEMA_VERSION

    docs, db = tmp_path / "docs", tmp_path / "kb.db"
    docs.mkdir()
    _chinese_pdf(docs / "guide.pdf")
    page = Canvas(str(docs / "kites.pdf"))
    page.drawString(72, 720, "Lawrence Hargrave invented the box kite in 1893.")
    page.save()
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([docs])
    with closing(sqlite3.connect(db)) as conn:  # the step changes no schema version
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    reread_once(db, docs, "cjk-pdf-reread", "guide.pdf", "kites.pdf")


def test_reportlabs_placeholder_title_is_no_title(tmp_path: Path) -> None:
    # a trial: every reportlab PDF was titled "(anonymous)" and "who is anonymous" passed it
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    path = tmp_path / "gannets.pdf"
    SimpleDocTemplate(str(path)).build(
        [Paragraph("Gannets dive from thirty metres.", getSampleStyleSheet()["Normal"])])
    assert PdfReader(path).metadata.title == "(anonymous)"
    assert extract(path).title == "gannets"


def _drawn(path: Path, lines: list[tuple[float, float, str]]) -> Path:
    """A page of ``(x, y, text)`` strings drawn where given (no layout of reportlab's)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    page = Canvas(str(path))
    for x, y, text in lines:
        page.setFont("STSong-Light", 12)
        page.drawString(x, y, text)
    page.save()
    return path


@pytest.mark.parametrize(("name", "lines", "expected"), [
    # a review's cases: lines of one width, one below another, are no paragraph
    ("toc", [(72, 720, "目录"), (72, 700, "第一章 总则"), (72, 684, "第二章 组织")],
     "目录\n第一章 总则\n第二章 组织"),
    ("table", [(72, 720, "城市"), (200, 720, "人口"), (72, 700, "北京市"), (200, 700, "2189万"),
               (72, 684, "上海市"), (200, 684, "2487万")],
     "城市\n北京市\n上海市\n人口\n2189万\n2487万"),
    ("list", [(72, 720, "参会人员名单"), (72, 700, "1. 张伟 研发部"), (72, 684, "2. 李娜 市场部")],
     "参会人员名单\n1. 张伟 研发部\n2. 李娜 市场部"),
    # an English line ending with a Chinese name keeps its break (a space between words)
    ("mixed", [(72, 720, "The company was founded in Shenzhen by 张伟"),
               (72, 704, "and two partners in the spring of 2009, and it"), (72, 688, "grew.")],
     "The company was founded in Shenzhen by 张伟\nand two partners in the spring of 2009, "
     "and it\ngrew."),
    # an indented first line joins its continuation; the next indented line opens a paragraph
    ("quote", [(96, 720, "他站起来说道：“我们明天一早就出发去"),
               (72, 704, "北京，路上大概要走三个小时才能到。”"),
               (96, 688, "第二天早上，大家都按时到了车站集合。")],
     "他站起来说道：“我们明天一早就出发去北京，路上大概要走三个小时才能到。”\n"
     "第二天早上，大家都按时到了车站集合。"),
    # two columns: each column's paragraph joined, the columns apart
    ("columns", [(72, 720, "左栏第一行的文字内容在这里继续写"), (72, 704, "左栏第二行结束。"),
                 (300, 720, "右栏第一行的文字内容在这里继续写"), (300, 704, "右栏第二行结束。")],
     "左栏第一行的文字内容在这里继续写左栏第二行结束。\n右栏第一行的文字内容在这里继续写右栏第二行结束。"),
])
def test_only_a_paragraphs_wrapped_lines_are_joined(
        tmp_path: Path, name: str, lines: list[tuple[float, float, str]], expected: str) -> None:
    assert extract(_drawn(tmp_path / f"{name}.pdf", lines)).text == expected


def test_a_page_whose_content_stream_is_lost_is_no_scanned_page(tmp_path: Path) -> None:
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    path = tmp_path / "damaged.pdf"
    pdf = canvas.Canvas(str(path))
    pdf.drawString(72, 720, "Page one: the pump was serviced in March.")
    pdf.showPage()
    pdf.drawString(72, 720, "Page two: the filter was replaced in April.")
    pdf.showPage()
    pdf.save()
    data = path.read_bytes()
    refs = re.findall(rb"/Contents (\d+) 0 R", data)
    assert len(refs) == 2
    # an object number of the same length (the cross-reference offsets still hold) that no
    # object has: 0 is the free list's head, never an object
    lost = next(n for n in (b"0" * len(refs[1]), b"9" * len(refs[1]))
                if n not in re.findall(rb"(\d+) 0 obj", data))
    path.write_bytes(data.replace(b"/Contents " + refs[1] + b" 0 R",
                                  b"/Contents " + lost + b" 0 R"))
    doc = extract(path)
    assert [b.page for b in doc.blocks] == [1]
    # a trial's damaged page was reported "no text layer (scanned image?)"
    assert not any("no text layer" in w for w in doc.warnings)
    assert "text extraction failed on page(s) 2: its content stream is missing (the file is " \
           "damaged)" in doc.warnings
    # a direct null is legal, a blank page as one without /Contents (a review)
    path.write_bytes(data.replace(b"/Contents " + refs[1] + b" 0 R",
                                  b"/Contents null" + b" " * len(refs[1])))
    assert "page 2 has no text layer (scanned image?); not indexed" in extract(path).warnings


def test_a_page_whose_compressed_content_is_corrupt_is_no_scanned_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    from reportlab import rl_config

    monkeypatch.setattr(rl_config, "useA85", 0)  # reportlab's setting: plain Flate streams
    path = tmp_path / "corrupt.pdf"
    pdf = canvas.Canvas(str(path), pageCompression=1)
    for n in (1, 2):
        pdf.drawString(72, 720, f"Page {n}: the pump was serviced in March of year {n}.")
        pdf.showPage()
    pdf.save()
    data = path.read_bytes()
    # page 2's content stream: the second "stream" of a page's /Contents, its bytes garbled
    starts = [m.end() for m in re.finditer(rb"(?<!end)stream\r?\n", data)]
    ends = [data.index(b"endstream", s) for s in starts]
    refs = re.findall(rb"/Contents (\d+) 0 R", data)
    obj = data.index(refs[1] + b" 0 obj")
    start, end = next((s, e) for s, e in zip(starts, ends, strict=True) if s > obj)
    garbled = bytes(b ^ 0x5A for b in data[start + 2:end - 4])  # past zlib's header
    path.write_bytes(data[:start + 2] + garbled + data[end - 4:])
    doc = extract(path)
    assert [b.page for b in doc.blocks] == [1]
    # a new-user check: pypdf logs a failed inflate and returns no data, no error
    assert not any("no text layer" in w for w in doc.warnings), doc.warnings
    assert any(w.startswith("text extraction failed on page(s) 2: its content stream") and
               "(the file is damaged)" in w for w in doc.warnings), doc.warnings
