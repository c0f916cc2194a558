"""PDF tables read as rows of cells (``kb.ingest.extract.pdf_tables``).

pdfminer read a ruled table cell by cell: the demo's 东北电气 report gave its revenue row as
four lines and its change column forty lines further down, so no chunk held a figure beside
what it measures. The pure functions are checked on hand-made data; then PDFs made by
reportlab (a real PDF writer) go through the real extractor and the real ``kb`` command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import reread_once
from pdfminer.layout import LTLine, LTPage, LTRect

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.ingest.extract import extract
from kb.ingest.extract.pdf_tables import (
    COLUMN_SLACK_PT,
    LINES_BETWEEN,
    MIN_RULINGS,
    PageTable,
    cell_text,
    continued,
    holds_its_text,
    rows_text,
    rulings,
)

platypus = pytest.importorskip("reportlab.platypus")
colors = pytest.importorskip("reportlab.lib.colors")
styles = pytest.importorskip("reportlab.lib.styles")

DEMO_REPORT = Path(__file__).parents[1] / "golden" / "demo" / "docs" / (
    "dongbei-electric-2018-q1-report.pdf")


def test_a_cells_wrapped_lines_are_one_line() -> None:
    assert cell_text("归属于上市公司股东的扣除非经常性损\n益的净利润（元）") == (
        "归属于上市公司股东的扣除非经常性损益的净利润（元）")
    assert cell_text("net\nincome") == "net income"
    assert cell_text("  Total   (EUR) ") == "Total (EUR)"
    assert cell_text("第1\nQuarter") == "第1 Quarter"  # a digit is no CJK character: a space
    assert cell_text(None) == "" and cell_text("\n") == ""
    assert cell_text("(cid:3)(cid:4)") == ""  # glyphs without a Unicode map are no text


def test_rows_are_a_markdown_table_and_a_frame_is_no_table() -> None:
    rows = [["", "2018", "2017"], ["Revenue", "4,755", None], [None, None, None],
            ["Net\nloss", "-4,649", "-15,564"]]
    assert rows_text(rows) == ("|  | 2018 | 2017 |\n| --- | --- | --- |\n| Revenue | 4,755 |  |\n"
                               "| Net loss | -4,649 | -15,564 |")
    assert rows_text([["a|b", "c"], ["1", "2"]]) == "| a\\|b | c |\n| --- | --- |\n| 1 | 2 |"
    assert rows_text([["A framed paragraph."]]) == ""  # one cell
    assert rows_text([["Only one row", "of two cells"]]) == ""  # one row
    assert rows_text([["Item"], ["Apples"], ["Pears"]]) == ""  # one column: a list
    assert rows_text([["Item", None], ["Apples", None]]) == ""  # its second column is empty


def test_rulings_count_level_and_plumb_sides() -> None:
    page = LTPage(1, (0, 0, 600, 800))
    assert rulings(page) == (0, 0)
    page.add(LTRect(1, (50, 100, 250, 300)))  # a frame: two sides of each
    assert rulings(page) == (2, 2)
    page.add(LTLine(1, (50, 200), (250, 200)))  # a rule across
    page.add(LTLine(1, (150, 100), (150, 300)))  # and one down: a grid of two by two
    assert rulings(page) == (3, 3) and min(rulings(page)) >= MIN_RULINGS
    page.add(LTLine(1, (0, 0), (100, 100)))  # a diagonal is neither
    assert rulings(page) == (3, 3)


def _page_table(rows: list[tuple[str, ...]], edges: tuple[float, ...] = (50, 150, 250),
                above: int = 0, below: int = 0,
                box: tuple[float, float, float, float] = (50, 100, 250, 700)) -> PageTable:
    """A table on an 800-point page, from 100 to 700 points up (near both edges)."""
    return PageTable(box, rows_text(rows), tuple(rows), edges, above, below, 800.0)


def test_a_table_continued_on_the_next_page_is_given_its_header() -> None:
    before = _page_table([("Berth", "Fee (EUR)"), ("B28", "496"), ("B29", "503")], below=1)
    rest = _page_table([("B30", "510"), ("B31", "517")])
    got = continued(before, rest)
    assert got.rows == (("Berth", "Fee (EUR)"), ("B30", "510"), ("B31", "517"))
    assert got.text == "| Berth | Fee (EUR) |\n| --- | --- |\n| B30 | 510 |\n| B31 | 517 |"
    # a header repeated on the next page is left as it is
    repeated = _page_table([("Berth", "Fee (EUR)"), ("B30", "510")])
    assert continued(before, repeated) == repeated
    # a first row of the header's kinds, not the last row's, is a table's own header
    own = _page_table([("Berth", "Boat"), ("B30", "510")])
    assert continued(before, own) == own
    # cells of one kind in header and rows alike: where the columns stand decides
    names = _page_table([("Role", "Name"), ("Lead", "Mirela Dobos")], below=1)
    assert continued(names, _page_table([("Pilot", "Tomas Reyes")])).rows[0] == ("Role", "Name")
    # columns elsewhere, another count of columns, or text between: another table
    moved = (50, 150 + COLUMN_SLACK_PT + 1, 250)
    assert continued(before, _page_table(list(rest.rows), moved)) == rest._replace(edges=moved)
    three = _page_table([("B30", "510", "x")], (50, 100, 150, 250))
    assert continued(before, three) == three
    far = _page_table(list(rest.rows), above=LINES_BETWEEN)  # with before's one line below
    assert continued(before, far) == far
    assert continued(before, _page_table(list(rest.rows), above=LINES_BETWEEN - 1)).rows[0] == (
        "Berth", "Fee (EUR)")
    # a table ending mid-page is done, and one starting mid-page is new (a review: a glossary
    # and the next page's acronyms, in columns of the same widths, were read as one)
    mid = _page_table(list(before.rows), below=1, box=(50, 400, 250, 700))
    assert continued(mid, rest) == rest
    low = _page_table(list(rest.rows), box=(50, 100, 250, 500))
    assert continued(before, low) == low
    # a title row spanning the columns is no header: the first row with every cell filled is
    titled = _page_table([("Stock count Q3", ""), ("Berth", "Fee (EUR)"), ("B29", "503")])
    assert continued(titled, rest).rows[0] == ("Berth", "Fee (EUR)")


def test_a_real_pdfs_table_over_two_pages_keeps_its_header(tmp_path: Path) -> None:
    # reportlab splits a long table across pages; without repeatRows it draws no header on
    # the second page, whose first data row was read as the table's header
    rows = [["Berth", "Boat", "Owner", "Fee (EUR)"],
            *([f"B{i:02d}", f"Boat {i}", f"Owner {i}", str(300 + i * 7)] for i in range(1, 71))]
    header = "| Berth | Boat | Owner | Fee (EUR) |"
    for repeat in (0, 1):
        path = tmp_path / f"berths-{repeat}.pdf"
        normal = styles.getSampleStyleSheet()["Normal"]
        platypus.SimpleDocTemplate(str(path)).build([
            platypus.Paragraph("Marina berth list.", normal),
            platypus.Table(rows, style=[("GRID", (0, 0), (-1, -1), 0.5, colors.black)],
                           repeatRows=repeat),
            platypus.Paragraph("A second list follows.", normal),
            platypus.Table([["Name", "Role"], ["Ana Reis", "harbour master"]],
                           style=[("GRID", (0, 0), (-1, -1), 0.5, colors.black)])])
        document = extract(path)
        pages = [block.text.splitlines() for block in document.blocks]
        assert len(pages) == 2
        assert pages[0].count(header) == pages[1].count(header) == 1
        second = pages[1][pages[1].index(header) + 2]
        assert second.startswith("| B") and second != pages[0][pages[0].index(header) + 2]
        assert "| Name | Role |" in pages[1]  # a table of its own keeps its own header


def _table_pdf(path: Path, rows: list[list[str]], *, grid: bool, before: str = "",
               after: str = "") -> Path:
    """A real PDF with a paragraph, a table (ruled when ``grid``) and a paragraph."""
    normal = styles.getSampleStyleSheet()["Normal"]
    style = [("GRID", (0, 0), (-1, -1), 0.5, colors.black)] if grid else []
    flow = [*([platypus.Paragraph(before, normal)] if before else []),
            platypus.Table(rows, style=style),
            *([platypus.Paragraph(after, normal)] if after else [])]
    platypus.SimpleDocTemplate(str(path)).build(flow)
    return path


ROWS = [["Role", "Name", "Phone"],
        ["Field lead", "Mirela Dobos", "+44 20 7946 0123"],
        ["Security lead", "Hana Kovac", "TBC"],
        ["Drone pilot", "Tomas Reyes", "+44 20 7946 0456"]]


def test_a_ruled_tables_rows_stand_in_place_of_its_cells(tmp_path: Path) -> None:
    path = _table_pdf(tmp_path / "contacts.pdf", ROWS, grid=True,
                      before="Contacts for the survey season.", after="Call before 9 am.")
    lines = extract(path).text.splitlines()
    rows = ["| " + " | ".join(row) + " |" for row in ROWS]
    at = lines.index(rows[0])
    # every row on its line, in order, the header over its rule
    assert lines[at:at + 5] == [rows[0], "| --- | --- | --- |", *rows[1:]]
    assert lines.index("Contacts for the survey season.") < at
    assert lines.index("Call before 9 am.") > at + 4
    assert "Mirela Dobos" not in lines  # no cell stands alone any more


def test_a_table_drawn_without_lines_is_read_as_before(tmp_path: Path) -> None:
    path = _table_pdf(tmp_path / "contacts.pdf", ROWS, grid=False)
    text = extract(path).text
    assert "|" not in text  # no ruling: no table found, pdfminer's text stands
    assert "Mirela Dobos" in text and "Hana Kovac" in text


def test_text_over_a_grid_or_a_frame_of_prose_is_no_table(tmp_path: Path) -> None:
    # a review: graph paper's 5 mm grid cut "Measurement" into cells ("| Me | asur | eme |"),
    # and a newsletter's frame with a column rule made each column's prose one cell
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    grid = Canvas(str(tmp_path / "graph.pdf"))
    for i in range(40):
        grid.line(i * 5 * mm, 0, i * 5 * mm, 842)
        grid.line(0, i * 5 * mm, 595, i * 5 * mm)
    for i in range(20):
        grid.drawString(30, 800 - i * 12, f"Measurement {i}: station {i % 5} reads {i * 7 % 13}")
    grid.save()
    text = extract(tmp_path / "graph.pdf").text
    assert "|" not in text and "Measurement 3: station 3 reads 8" in text
    frame = Canvas(str(tmp_path / "news.pdf"))
    frame.rect(40, 300, 515, 500)
    frame.line(297, 300, 297, 800)
    frame.line(40, 760, 555, 760)
    frame.drawString(50, 775, "Parish newsletter, spring issue")
    for i in range(25):
        frame.drawString(50, 740 - i * 14, f"The bake sale raised {400 + i} pounds for the fund.")
        frame.drawString(305, 740 - i * 14, f"The choir meets on Thursday {i} at seven.")
    frame.save()
    text = extract(tmp_path / "news.pdf").text
    assert "| " not in text and "The bake sale raised 412 pounds for the fund." in text
    assert holds_its_text([["Me", "asur"], ["eme", "nt 0"]], ["Measurement 0"]) is False
    assert holds_its_text([["Revenue", "4,755"], ["Net loss", "-4,649"]],
                          ["Revenue 4,755", "Net loss -4,649"]) is True


@pytest.mark.slow  # a 22-page PDF
def test_a_real_reports_revenue_row_holds_its_change() -> None:
    lines = extract(DEMO_REPORT).text.splitlines()
    assert "| 营业收入（元） | 4,755,785.11 | 5,699,227.63 | -16.55% |" in lines
    assert "| 总资产（元） | 298,608,889.04 | 306,236,911.04 | -2.49% |" in lines
    assert "-16.55%" not in lines  # the change column no longer stands apart


def _kb(*args: str) -> dict:
    r = CliRunner().invoke(cli, list(args), env={"KB_EMBEDDER": "none", "KB_LLM": ""})
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout) if "--json" in args else {}


def test_a_pdf_tables_row_is_cited_whole_and_its_tbc_cell_refused(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _table_pdf(docs / "contacts.pdf", ROWS, grid=True, before="Fairweather lab contacts.")
    db = str(tmp_path / "kb.db")
    _kb("--db", db, "ingest", str(docs))
    found = _kb("--db", db, "search", "What is the phone number of Mirela Dobos?", "--json")
    assert not found["insufficient_evidence"]
    assert "| Field lead | Mirela Dobos | +44 20 7946 0123 |" in found["references"][0]["text"]
    # the table says the security lead's phone is not known yet (kb.retrieve.tables)
    unknown = _kb("--db", db, "search", "What is the phone number of Hana Kovac?", "--json")
    assert unknown["insufficient_evidence"]


# the upkeep steps reading PDFs again at the next ingest, other documents not: PDFs indexed
# cell by cell ("pdf-structure-reread": which hold a ruled table is not known unread), and
# numbered headings, continued tables and cuts at sentence-ending lines ("pdf-sections-reread")
@pytest.mark.parametrize("step", ["pdf-structure-reread", "pdf-sections-reread"])
def test_an_index_made_before_a_pdf_reading_step_reads_its_pdfs_again(tmp_path: Path,
                                                                       step: str) -> None:
    docs, db = tmp_path / "docs", tmp_path / "kb.db"
    docs.mkdir()
    _table_pdf(docs / "contacts.pdf", ROWS, grid=True)
    (docs / "note.md").write_text("# Note\n\nThe kiln is loaded at seven.\n", encoding="utf-8")
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([docs])
    reread_once(db, docs, step, "contacts.pdf", "note.md")
