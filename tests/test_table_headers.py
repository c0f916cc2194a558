"""A passage continuing a long table carries the table's header row (``kb.retrieve.tables``):
hand-worked cases of the pure function, then real Markdown and DOCX files through ingest and
search (BM25 only), the CLI and the context block."""

from __future__ import annotations

import json
from pathlib import Path

import docx
import pytest
from click.testing import CliRunner

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.retrieve.cite import TABLE_MARK
from kb.retrieve.tables import continued_header, opens_with_row

MD_TABLE = "Intro.\n\n| Item | Budget | Actual |\n| --- | --- | --- |\n| Wiring | 1 | 2 |\n"


@pytest.mark.parametrize(("before", "text", "from_start", "header"), [
    # a Markdown table cut after a row: the header over its rule
    (MD_TABLE, "| Tiles | 16 | 17 |", True, "| Item | Budget | Actual |"),
    # the passage opens mid-row (an overlap starting at a word): the whole line is a row
    (MD_TABLE + "| Tiles | 16 ", "| 17 |\n| Doors | 9 | 9 |", True, "| Item | Budget | Actual |"),
    # DOCX and HTML rows: cells joined by " | ", the first row is the header
    ("Specs\nPart | Value\nCPU | 8 cores\n", "RAM | 16 GB", True, "Part | Value"),
    # the passage starts the table: its header is in it
    ("Intro.\n\n", "| Item | Budget |\n| --- | --- |\n| Wiring | 1 |", True, None),
    # no table at all, or a line with one cell
    ("Intro.\n", "Plain text | no", True, None),
    ("Intro.\n", "Just prose.", True, None),
    # the rows run back to the start of text that was cut short: the header is unknown
    ("| Tiles | 16 | 17 |\n", "| Doors | 9 | 9 |", False, None),
    # ... and to the start of the document: its first row is the header
    ("| Item | Budget |\n| --- | --- |\n| Tiles | 16 |\n", "| Doors | 9 |", True,
     "| Item | Budget |"),
    # a prose line between two tables ends the run
    ("| A | B |\n| --- | --- |\n| 1 | 2 |\nBetween.\n| C | D |\n", "| 3 | 4 |", True, "| C | D |"),
])
def test_continued_header(before: str, text: str, from_start: bool, header: str | None) -> None:
    assert continued_header(before, text, from_start=from_start) == header


def test_only_a_first_line_with_a_cell_separator_may_continue_a_table() -> None:
    assert opens_with_row("  | a | b |\nmore")
    assert opens_with_row("a | b")
    assert not opens_with_row("prose\n| a | b |")


ROWS = [(f"Room {i}", f"Tenant{i:02d}", f"{400 + 10 * i} EUR") for i in range(40)]


def _markdown(tmp_path: Path) -> Path:
    lines = ["# Flats", "", "Rents for the year.", "", "| Flat | Tenant | Rent |",
             "| --- | --- | --- |", *(f"| {a} | {b} | {c} |" for a, b, c in ROWS)]
    path = tmp_path / "flats.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _docx(tmp_path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Flats", level=1)
    table = document.add_table(rows=len(ROWS) + 1, cols=3)
    for j, name in enumerate(("Flat", "Tenant", "Rent")):
        table.cell(0, j).text = name
    for i, row in enumerate(ROWS, start=1):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    path = tmp_path / "flats.docx"
    document.save(str(path))
    return path


@pytest.mark.parametrize(("make", "header"), [
    (_markdown, "| Flat | Tenant | Rent |"),
    (_docx, "Flat | Tenant | Rent"),
])
def test_a_later_chunk_of_a_long_table_is_cited_with_its_header(tmp_path: Path, make,
                                                                header: str) -> None:
    path = make(tmp_path)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        assert kb.ingest([path]).outcomes[0].chunks > 3  # the table is cut into chunks
        late = kb.search("Tenant37", top_k=3)
        early = kb.search("Tenant01", top_k=3)
    ref = next(r for r in late.references if "Tenant37" in r.text)
    assert header not in ref.text  # the header row is in an earlier chunk ...
    assert ref.table_header == header  # ... and comes with the passage
    assert f'{TABLE_MARK}\n"""\n{header}\n{ref.text}\n"""' in late.context
    first = next(r for r in early.references if "Tenant01" in r.text)
    assert header in first.text and first.table_header is None
    assert f'"""\n{first.text}\n"""' in early.context


def test_the_cli_shows_the_columns_and_json_carries_them(tmp_path: Path) -> None:
    path = _markdown(tmp_path)
    db = str(tmp_path / "kb.db")
    runner = CliRunner()
    ingested = runner.invoke(cli, ["--db", db, "--embedder", "none", "ingest", str(path)])
    assert ingested.exit_code == 0, ingested.output
    shown = runner.invoke(cli, ["--db", db, "--embedder", "none", "search", "Tenant37"])
    assert "table columns: | Flat | Tenant | Rent |" in shown.stdout
    found = json.loads(runner.invoke(cli, ["--db", db, "--embedder", "none", "search",
                                           "Tenant37", "--json"]).stdout)
    refs = [r for r in found["references"] if "Tenant37" in r["text"]]
    assert refs and refs[0]["table_header"] == "| Flat | Tenant | Rent |"


def test_the_judge_reads_the_header_row_with_the_rows(tmp_path: Path) -> None:
    path = _markdown(tmp_path)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([path])
        result = kb.search("Which Tenant pays the Rent of Room 37?", top_k=3)
    ref = next(r for r in result.references if "Tenant37" in r.text)
    assert "Rent" not in ref.text  # only the header row names the column
    record = next(j for j in result.diagnostics.judge if j.number == ref.number)
    assert "Rent" in record.focus_found
