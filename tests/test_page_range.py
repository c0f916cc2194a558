"""A chunk whose text runs across a page break cites both pages (migration 9, ``page_end``).

A real four-page PDF (reportlab) is ingested into a real index: pages 1 to 3 are each one
chunk; page 4 holds one short line (under ``kb.ingest.chunk.MIN_CHUNK_CHARS``), which the
chunker joins to page 3's chunk, so that chunk's text sits on pages 3 and 4. Every interface
that gives a reference's page is read: the Python API, ``kb search`` (text and ``--json``),
``kb context``, ``kb show``, ``kb open``, HTTP and the MCP tools. A store written by kb at
schema 8 (``tests/fixtures/db/kb-v8-pdf-pages.sqlite``, the same PDF) opens, reads its chunks
as one page each, and gets the range from its next ingest.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner
from conftest import serving, write_pdf

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.ingest.chunk import MIN_CHUNK_CHARS
from kb.store.schema import SCHEMA_VERSION
from kb.types import page_span

mcp = pytest.importorskip("mcp")

# Each page's lines; pages 1-3 are 80-400 characters (one chunk each), page 4 is one short line.
PAGES = [
    ["Lawrence Hargrave was born in Greenwich in 1850 and sailed to",
     "Australia with his family, where he later worked as an engineer."],
    ["From 1883 he gave his time to flying machines, and he built",
     "rotary engines that ran on compressed air to drive his models."],
    ["His box kites were tested on the beach at Stanwell Park, where",
     "he linked four of them together in one train of cells and frames."],
    ["The train lifted him sixteen feet on 12 November 1894."],
]
FIXTURE = Path(__file__).parent / "fixtures" / "db" / "kb-v8-pdf-pages.sqlite"


def make_pdf(path: Path) -> Path:
    """``PAGES`` as a four-page PDF (reportlab), one line of text per drawn string."""
    return write_pdf(path, PAGES, "Hargrave's kites")


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    make_pdf(tmp_path / "docs" / "hargrave.pdf")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as opened:
        assert opened.ingest([tmp_path / "docs"]).count("added") == 1
        yield opened


def run(db: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", *args])


ACROSS = "how high did the train of kites lift Hargrave in November 1894"
ONE_PAGE = "where was Lawrence Hargrave born"


def test_the_pdf_gives_one_chunk_per_page_but_the_short_last_page_joins_page_3() -> None:
    assert all(80 <= len(" ".join(lines)) < 400 for lines in PAGES[:3])
    assert len(PAGES[3][0]) < MIN_CHUNK_CHARS


def test_a_chunk_across_a_page_break_cites_both_pages_and_a_one_page_chunk_one(
        kb: KnowledgeBase) -> None:
    chunks = kb.get_document(kb.documents()[0].id).passages
    assert [(p.page, p.page_end) for p in chunks] == [(1, 1), (2, 2), (3, 4)]
    assert PAGES[2][0] in chunks[2].text and PAGES[3][0] in chunks[2].text

    across = kb.search(ACROSS, top_k=1).references[0]
    assert PAGES[3][0] in across.text
    assert (across.page, across.page_end, across.locator) == (3, 4, "pages 3-4")
    assert "(pages 3-4)" in kb.search(ACROSS, top_k=1).context
    one = kb.search(ONE_PAGE, top_k=1).references[0]
    assert PAGES[0][0] in one.text
    assert (one.page, one.page_end, one.locator) == (1, 1, "page 1")


def test_page_span_reads_one_page_a_range_and_no_page() -> None:
    assert page_span(3, 4) == "pages 3-4" and page_span(3, 4, short=True) == "pp. 3-4"
    assert page_span(3, 3) == page_span(3, None) == "page 3"
    assert page_span(3, None, short=True) == "p. 3"
    assert page_span(None, None) == page_span(None, None, short=True) == ""


def test_the_cli_prints_and_serialises_the_range(kb: KnowledgeBase) -> None:
    db = kb.store.path
    text = run(db, "search", ACROSS, "-k", "1")
    assert text.exit_code == 0, text.output
    assert "Hargrave's kites  (pages 3-4)" in text.output
    data = json.loads(run(db, "search", ACROSS, "-k", "1", "--json").output)
    assert (data["references"][0]["page"], data["references"][0]["page_end"]) == (3, 4)
    data = json.loads(run(db, "search", ONE_PAGE, "-k", "1", "--json").output)
    assert (data["references"][0]["page"], data["references"][0]["page_end"]) == (1, 1)
    assert "(pages 3-4)" in run(db, "context", ACROSS, "-k", "1").output
    assert "(pages 3-4)" in json.loads(run(db, "context", ACROSS, "-k", "1", "--json").output
                                       )["context"]

    chunk_id = kb.search(ACROSS, top_k=1).references[0].chunk_id
    shown = run(db, "show", str(chunk_id))
    assert shown.exit_code == 0 and shown.output.splitlines()[0].endswith("  [pp. 3-4]")
    shown = json.loads(run(db, "show", str(chunk_id), "--json").output)
    assert (shown["chunk"]["page"], shown["chunk"]["page_end"]) == (3, 4)
    assert [(p["page"], p["page_end"]) for p in shown["before"]] == [(2, 2)]
    whole = run(db, "show", f"doc:{shown['document']['id']}").output
    assert "[p. 2]\n" in whole and f"[pp. 3-4]\n{PAGES[2][0]}" in whole
    printed = run(db, "open", str(chunk_id), "--print")
    assert printed.stdout.strip().endswith("hargrave.pdf\tpages 3-4")
    opened = json.loads(run(db, "open", str(chunk_id), "--print", "--json").output)
    assert (opened["page"], opened["page_end"]) == (3, 4)


def test_http_and_mcp_give_page_end(kb: KnowledgeBase) -> None:
    with serving(kb) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        ref = client.post("/search", json={"query": ACROSS, "top_k": 1}).json()["references"][0]
        assert (ref["page"], ref["page_end"]) == (3, 4)
        assert "(pages 3-4)" in client.post("/context", json={"query": ACROSS, "top_k": 1}
                                            ).json()["context"]
        chunk = client.get(f"/chunks/{ref['chunk_id']}").json()["chunk"]
        assert (chunk["page"], chunk["page_end"]) == (3, 4)
        schema = client.get("/openapi.json").json()["components"]["schemas"]
        assert schema["Reference"]["properties"]["page_end"]["type"] == ["integer", "null"]

    from kb.server.mcp import build_server

    async def go() -> list[Any]:
        async with mcp.Client(build_server(kb)) as session:
            found = await session.call_tool("knowledge_search", {"query": ACROSS, "top_k": 1})
            ref = json.loads(found.content[0].text)["references"][0]
            chunk = await session.call_tool("get_chunk", {"chunk_id": ref["chunk_id"]})
            return [ref, json.loads(chunk.content[0].text)["chunk"]]

    for item in anyio.run(go):
        assert (item["page"], item["page_end"]) == (3, 4)


def test_a_schema_8_store_opens_reads_one_page_per_chunk_and_the_next_ingest_adds_ranges(
        tmp_path: Path) -> None:
    db, docs = tmp_path / "v8.db", tmp_path / "docs"
    shutil.copyfile(FIXTURE, db)
    make_pdf(docs / "hargrave.pdf")
    with closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 8
        assert "page_end" not in {r[1] for r in conn.execute("PRAGMA table_info(chunks)")}
        conn.execute("UPDATE documents SET source = ?", (str(docs / "hargrave.pdf"),))
        pages = conn.execute("SELECT page FROM chunks ORDER BY chunk_index").fetchall()
    assert pages == [(1,), (2,), (3,)]  # kb at schema 8 gave the joined chunk its longer part
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        conn = kb.store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert conn.execute("SELECT count(*) FROM chunks WHERE page_end IS NULL"
                            ).fetchone()[0] == 3
        [doc] = kb.documents()
        assert doc.content_hash == "" and doc.chunk_count == 3
        passages = kb.get_document(doc.id).passages
        assert [(p.page, p.page_end) for p in passages] == [(1, 1), (2, 2), (3, 3)]
        old = kb.search(ACROSS, top_k=1).references[0]
        assert (old.page, old.page_end, old.locator) == (3, 3, "page 3")

        assert [o.action for o in kb.ingest([docs]).outcomes] == ["updated"]
        new = kb.search(ACROSS, top_k=1).references[0]
        assert (new.page, new.page_end, new.locator) == (3, 4, "pages 3-4")
        assert [o.action for o in kb.ingest([docs]).outcomes] == ["unchanged"]
