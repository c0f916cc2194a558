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
from kb.config import ChunkSettings, Config
from kb.ingest.extract import extract
from kb.retrieve.cite import TABLE_MARK
from kb.retrieve.tables import (
    LOOKBACK_CHARS,
    LOOKBACK_CHUNKS,
    continued_header,
    opens_with_row,
)
from kb.store.reading import text_before

MD_TABLE = "Intro.\n\n| Item | Budget | Actual |\n| --- | --- | --- |\n| Wiring | 1 | 2 |\n"


@pytest.mark.parametrize(("before", "text", "from_start", "kind", "header"), [
    # a Markdown table cut after a row: the header over its rule
    (MD_TABLE, "| Tiles | 16 | 17 |", True, "md", "| Item | Budget | Actual |"),
    # the passage opens mid-row (an overlap starting at a word): the whole line is a row
    (MD_TABLE + "| Tiles | 16 ", "| 17 |\n| Doors | 9 | 9 |", True, "md",
     "| Item | Budget | Actual |"),
    # DOCX and HTML rows: cells joined by " | ", the first row is the header
    ("Specs\nPart | Value\nCPU | 8 cores\n", "RAM | 16 GB", True, "docx", "Part | Value"),
    ("Specs\nPart | Value\nCPU | 8 cores\n", "RAM | 16 GB", True, "html", "Part | Value"),
    # ... but in a text or Markdown file pipes without a rule are no table (a shell pipeline)
    ("```sh\ncat a.log | grep ERROR | tail\n", "cat b.log | grep WARN | tail", True, "md",
     None),
    # and a PDF's page footer and header are no rows ...
    ("text.\nConfidential | Page 1 of 4\n", "Acme Ltd | Annual report", True, "pdf", None),
    # ... its tables are Markdown ones (kb.ingest.extract.pdf_tables writes them so)
    (MD_TABLE, "| Tiles | 16 | 17 |", True, "pdf", "| Item | Budget | Actual |"),
    # the passage starts the table: its header is in it
    ("Intro.\n\n", "| Item | Budget |\n| --- | --- |\n| Wiring | 1 |", True, "md", None),
    # a new table right after another, across a blank line (a review: the first table's
    # header was given to the second)
    (MD_TABLE + "\n", "| Flat | Tenant |\n| --- | --- |\n| 3A | Ruiz |", True, "md", None),
    # ... and when the text before ends at the new table's header row
    (MD_TABLE + "\n| Flat | Tenant |\n", "| --- | --- |\n| 3A | Ruiz |", True, "md", None),
    # no table at all, or a line with one cell
    ("Intro.\n", "Plain text | no", True, "md", None),
    ("Intro.\n", "Just prose.", True, "md", None),
    # the rows run back to the start of text that was cut short: the header is unknown
    ("| Tiles | 16 | 17 |\n", "| Doors | 9 | 9 |", False, "md", None),
    # ... and to the start of the document: the header over the rule
    ("| Item | Budget |\n| --- | --- |\n| Tiles | 16 |\n", "| Doors | 9 |", True, "md",
     "| Item | Budget |"),
    # a prose line between two tables ends the run
    ("| A | B |\n| --- | --- |\n| 1 | 2 |\nBetween.\n| C | D |\n| --- | --- |\n", "| 3 | 4 |",
     True, "md", "| C | D |"),
    # a header of another width is not this row's
    ("| A | B | C |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n", "| 4 | 5 |", True, "md", None),
])
def test_continued_header(before: str, text: str, from_start: bool, kind: str,
                          header: str | None) -> None:
    assert continued_header(before, text, from_start=from_start, source_type=kind) == header


def test_a_cell_separator_in_the_first_two_lines_may_continue_a_table() -> None:
    assert opens_with_row("  | a | b |\nmore")
    assert opens_with_row("a | b")
    assert opens_with_row("411\nRoom 38 | Tenant38 | 780 EUR")  # a DOCX row's last cell
    assert not opens_with_row("prose\nmore prose\n| a | b |")


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
    row = (ref.table_row_start or "") + ref.text
    assert f'{TABLE_MARK}\n"""\n{header}\n{row}\n"""' in late.context
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


def test_text_before_rebuilds_the_extracted_text(tmp_path: Path) -> None:
    path = _markdown(tmp_path)
    text = extract(path).text
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none",
                                                  chunk=ChunkSettings(target_chars=120,
                                                                      overlap_chars=20))) as kb:
        kb.ingest([path])
        ids = [r[0] for r in kb.store.conn.execute("SELECT id FROM chunks ORDER BY chunk_index")]
        chunks = kb.store.chunks(ids)
        assert len(chunks) > 10
        for cid in ids:
            ch = chunks[cid]
            before, from_start = text_before(kb.store, ch, 10**6, 10**6)
            assert from_start
            # every character, in order; stripped whitespace comes back as line breaks
            assert " ".join(before.split()) == " ".join(text[:ch.char_start].split())
            cut, _ = text_before(kb.store, ch, 300, 10**6)
            assert len(cut) <= 300 + 120  # from about 300 back: a chunk earlier at most


def test_a_table_right_after_another_gets_its_own_header(tmp_path: Path) -> None:
    first = ["| Item | Code | Price |", "| --- | --- | --- |",
             *(f"| Part{i} | C{i} | {i} EUR |" for i in range(25))]
    second = ["| Flat | Tenant | Rent |", "| --- | --- | --- |",
              *(f"| Room {i} | Tenant{i:02d} | {400 + i} EUR |" for i in range(30))]
    path = tmp_path / "two.md"
    path.write_text("# Two tables\n\n" + "\n".join(first) + "\n\n" + "\n".join(second) + "\n",
                    encoding="utf-8")
    text = extract(path).text
    rows_of = {**{row: first[0] for row in first[2:]}, **{row: second[0] for row in second[2:]}}
    seen = set()
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([path])
        for ch in kb.store.chunks([r[0] for r in kb.store.conn.execute("SELECT id FROM chunks")
                                   ]).values():
            before, from_start = text_before(kb.store, ch, LOOKBACK_CHARS, LOOKBACK_CHUNKS)
            header = continued_header(before, ch.text, from_start=from_start, source_type="md")
            start = text.rfind("\n", 0, ch.char_start) + 1  # the line the chunk opens in
            line = text[start:text.find("\n", ch.char_start)]
            assert header == rows_of.get(line), ch.text[:80]  # a data row's own table's
            seen.add(header)
    assert seen >= {first[0], second[0]}  # both tables were cut: later chunks of each


def test_a_passage_opening_mid_row_is_cited_from_the_row_start(tmp_path: Path) -> None:
    # a new user: continuation passages began "dealer | Ordered |", quoted under the header
    # as a row of two cells
    path = _markdown(tmp_path)
    rows = {f"| {a} | {b} | {c} |" for a, b, c in ROWS}
    small = ChunkSettings(target_chars=120, overlap_chars=20)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none", chunk=small)) as kb:
        kb.ingest([path])
        cut = []
        for i in range(5, 40):
            result = kb.search(f"Tenant{i:02d}", top_k=3)
            cut += [(r, result.context) for r in result.references if r.table_row_start]
    assert cut  # small chunks open mid-row
    for ref, context in cut:
        first = (ref.table_row_start + ref.text).split("\n", 1)[0]
        assert first in rows  # the row whole again
        assert f"{ref.table_header}\n{ref.table_row_start}{ref.text}" in context
