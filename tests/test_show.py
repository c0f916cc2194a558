"""Reading what was cited (issue 13, item 3; acceptance 2) and caller mistakes (item 8).

A real PDF (reportlab) and a Markdown file with headings are ingested into a real index; the
cited text comes back with its page or heading through the Python API, ``kb show``/``kb open``,
the official MCP SDK's client (in-memory transport) and real HTTP (the in-process server).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from click.testing import CliRunner
from conftest import serving

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.errors import ChunkNotFound, DocumentNotFound
from kb.server.http import KbHTTPServer
from tests.conftest import write, write_pdf

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

MARKDOWN = """# Kite handbook

Kites have flown for two thousand years, first in China and later over every coast of Europe.

## Box kites

Box kites were invented by Lawrence Hargrave in 1893. {filler}

## Safety

Never fly a kite near power lines or in a thunderstorm. {filler}
"""
FILLER = "Hargrave tested many cells and frames on the beach near Stanwell Park. " * 8
# each page at least kb.ingest.chunk.MIN_CHUNK_CHARS long, so no page merges with another
PAGES = ["The ferry timetable starts on the next page.",
         "The harbour ferry leaves Circular Quay at 7:15 every weekday morning.",
         "Weekend ferries run every half hour from 8:00."]
TAILS = ["Fares are listed after the timetables, by zone.",
         "It calls at Milsons Point and reaches Manly at 7:45.",
         "On public holidays the weekend timetable applies."]


def make_pdf(path: Path) -> Path:
    return write_pdf(path, zip(PAGES, TAILS, strict=True), "Harbour ferries")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(root / "kites.md", MARKDOWN.format(filler=FILLER))
    make_pdf(root / "ferries.pdf")
    return root


@pytest.fixture
def kb(tmp_path: Path, corpus: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as opened:
        report = opened.ingest([corpus])
        assert report.count("added") == 2
        yield opened


def cited(kb: KnowledgeBase, query: str) -> tuple[int, int]:
    """The chunk id and document id of the first reference for ``query``."""
    ref = kb.search(query, top_k=1).references[0]
    return ref.chunk_id, ref.doc_id


def test_the_api_reads_a_cited_pdf_chunk_with_its_page_and_neighbours(
        kb: KnowledgeBase) -> None:
    chunk_id, doc_id = cited(kb, "when does the harbour ferry leave Circular Quay")
    found = kb.get_chunk(chunk_id)
    assert found.document.id == doc_id and found.document.title == "Harbour ferries"
    assert found.chunk.page == 2 and "7:15" in found.chunk.text
    assert [p.page for p in found.before] == [1] and [p.page for p in found.after] == [3]
    alone = kb.get_chunk(chunk_id, neighbours=0)
    assert alone.before == () and alone.after == () and alone.chunk == found.chunk

    text = kb.get_document(doc_id)
    assert [p.page for p in text.passages] == [1, 2, 3]
    assert all(line in text.text for line in PAGES)


def test_the_api_rebuilds_a_markdown_document_without_overlap(kb: KnowledgeBase) -> None:
    chunk_id, doc_id = cited(kb, "who invented box kites")
    found = kb.get_chunk(chunk_id)
    assert found.chunk.heading_path == ("Kite handbook", "Box kites")
    text = kb.get_document(doc_id)
    assert text.document.chunk_count > len({p.heading_path for p in text.passages}) >= 3
    # overlapping chunks are cut: each sentence of the filler appears as often as written
    assert text.text.count("Stanwell Park") == 16
    spans = [(p.char_start, p.char_end) for p in text.passages]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert {p.heading_path[-1] for p in text.passages} >= {"Box kites", "Safety"}


def test_a_chunk_of_a_long_tables_rows_is_read_with_its_header(tmp_path: Path) -> None:
    # a trial: `kb show` of a cited table chunk gave its rows' cells without column names,
    # which the search had printed ("table columns: ...")
    rows = "\n".join(f"| BR-{1000 + i} | item {i} | bin {i % 9} | {i * 7} |" for i in range(80))
    write(tmp_path / "docs" / "stock.md",
          f"# Stock count\n\n| SKU | Item | Bin | Qty |\n| --- | --- | --- | --- |\n{rows}\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as opened:
        opened.ingest([tmp_path / "docs"])
        ref = opened.search("How many of BR-1077 are on hand?", top_k=1).references[0]
        assert "BR-1077" in ref.text and ref.table_header == "| SKU | Item | Bin | Qty |"
        found = opened.get_chunk(ref.chunk_id, neighbours=0)
        assert found.table_header == ref.table_header
        first = opened.get_document(ref.doc_id).passages[0].chunk_id
        assert opened.get_chunk(first).table_header is None  # it holds the header itself
    shown = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "show",
                                     str(ref.chunk_id), "-C", "0"])
    assert shown.exit_code == 0
    assert "table columns: | SKU | Item | Bin | Qty |" in shown.output
    as_json = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "show",
                                       str(ref.chunk_id), "--json"])
    assert json.loads(as_json.output)["table_header"] == "| SKU | Item | Bin | Qty |"


def test_the_api_refuses_caller_mistakes_and_missing_ids(kb: KnowledgeBase) -> None:
    with pytest.raises(ChunkNotFound, match="no chunk 99999"):
        kb.get_chunk(99999)
    with pytest.raises(DocumentNotFound):
        kb.get_document(99999)
    # past SQLite's largest id (an interfaces trial: OverflowError, a 500 over HTTP)
    with pytest.raises(ChunkNotFound):
        kb.get_chunk(2**63)
    with pytest.raises(DocumentNotFound):
        kb.get_document(10**20)
    with pytest.raises(DocumentNotFound):
        kb.find_document("9" * 30)
    with pytest.raises(TypeError, match="chunk_id must be an integer, got str"):
        kb.get_chunk("1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="neighbours must be an integer from 0 to 20"):
        kb.get_chunk(1, neighbours=21)
    with pytest.raises(TypeError):
        kb.get_document(True)  # type: ignore[arg-type]


def run(db: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", *args], env=env)


def test_kb_show_prints_the_chunk_with_its_page_and_the_document_with_headings(
        kb: KnowledgeBase) -> None:
    db = kb.store.path
    chunk_id, doc_id = cited(kb, "when does the harbour ferry leave Circular Quay")
    r = run(db, "show", str(chunk_id))
    assert r.exit_code == 0, r.output
    head, source = r.output.splitlines()[:2]
    assert head == f"Harbour ferries (chunk {chunk_id} of doc {doc_id})  [p. 2]"
    assert source.endswith("ferries.pdf")
    assert f"> {PAGES[1]}" in r.output and PAGES[0] in r.output and PAGES[2] in r.output
    r = run(db, "show", str(chunk_id), "--json", "-C", "0")
    data = json.loads(r.output)
    assert data["chunk"]["page"] == 2 and data["before"] == [] and data["after"] == []

    _, md_id = cited(kb, "who invented box kites")
    r = run(db, "show", f"doc:{md_id}")
    assert r.exit_code == 0 and "[Kite handbook > Box kites]\n" in r.output
    assert "[Kite handbook > Safety]\n" in r.output
    by_path = run(db, "show", f"doc:{kb.get_document(md_id).document.source}", "--json")
    assert json.loads(by_path.output)["document"]["id"] == md_id


def test_kb_show_errors_are_one_line(kb: KnowledgeBase) -> None:
    r = run(kb.store.path, "show", "draft", "--json")
    assert r.exit_code == 2
    assert json.loads(r.stdout)["error"]["type"] == "invalid_arguments"
    r = run(kb.store.path, "show", "99999", "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["error"]["type"] == "not_found"


def test_kb_open_without_an_opener_prints_the_path_and_page(kb: KnowledgeBase,
                                                            tmp_path: Path) -> None:
    chunk_id, _ = cited(kb, "when does the harbour ferry leave Circular Quay")
    empty = tmp_path / "no-tools"
    empty.mkdir()
    r = run(kb.store.path, "open", str(chunk_id), env={"PATH": str(empty)})
    assert r.exit_code == 0, r.output
    assert r.stdout.strip().endswith("ferries.pdf\tpage 2")
    assert "not opened: no xdg-open on this machine" in r.stderr


@pytest.mark.skipif(os.name != "posix" or os.uname().sysname == "Darwin",
                    reason="xdg-open is the opener on Linux and the BSDs")
def test_kb_open_hands_the_pdf_page_to_xdg_open(kb: KnowledgeBase, tmp_path: Path) -> None:
    chunk_id, _ = cited(kb, "when does the harbour ferry leave Circular Quay")
    tools, log = tmp_path / "tools", tmp_path / "opened.txt"
    opener = write(tools / "xdg-open", f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n')
    opener.chmod(opener.stat().st_mode | stat.S_IXUSR)
    r = run(kb.store.path, "open", str(chunk_id), env={"PATH": str(tools)})
    assert r.exit_code == 0, r.output
    uri = log.read_text().strip()
    assert uri.startswith("file:///") and uri.endswith("ferries.pdf#page=2")
    assert "opened" in r.stderr and "page 2" in r.stderr


def mcp_session(kb: KnowledgeBase, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    from kb.server.mcp import build_server

    async def go() -> dict[str, Any]:
        out: dict[str, Any] = {"calls": []}
        async with mcp.Client(build_server(kb)) as client:
            out["tools"] = [t.name for t in (await client.list_tools()).tools]
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                out["calls"].append((result.is_error, json.loads(result.content[0].text)))
            out["resources"] = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            out["templates"] = [t.uri_template for t in templates]
            out["read"] = [(await client.read_resource(r.uri)).contents[0]
                           for r in out["resources"]]
            try:
                await client.read_resource("kb://document/99999")
            except mcp.MCPError as exc:
                out["missing"] = exc
        return out

    return anyio.run(go)


def test_mcp_tools_and_resources_return_the_cited_text_with_page_and_heading(
        kb: KnowledgeBase) -> None:
    chunk_id, pdf_id = cited(kb, "when does the harbour ferry leave Circular Quay")
    _, md_id = cited(kb, "who invented box kites")
    out = mcp_session(kb, [
        ("get_chunk", {"chunk_id": chunk_id}), ("get_document", {"doc_id": md_id}),
        ("list_documents", {}), ("status", {}),
        ("get_document", {"doc_id": 99999}), ("get_document", {"doc_id": 10**20}),
        ("get_chunk", {"chunk_id": chunk_id, "x": 1}),
        ("get_chunk", {"chunk_id": "7"}), ("get_chunk", {"chunk_id": 1, "neighbours": 21}),
    ])
    assert set(out["tools"]) >= {"knowledge_search", "get_chunk", "get_document",
                                 "list_documents", "status"}
    (ok1, chunk), (ok2, doc), (ok3, listed), (ok4, status), *errors = out["calls"]
    assert not (ok1 or ok2 or ok3 or ok4)
    assert chunk["chunk"]["page"] == 2 and "7:15" in chunk["chunk"]["text"]
    assert chunk["document"]["id"] == pdf_id
    assert any(p["heading_path"] == ["Kite handbook", "Box kites"] and "Hargrave" in p["text"]
               for p in doc["passages"])
    assert "Lawrence Hargrave in 1893" in doc["text"]
    assert {d["id"] for d in listed["documents"]} == {pdf_id, md_id}
    assert status["documents"] == 2 and status["fts_integrity"] == "ok"
    kinds = [(is_error, data["error"]["type"]) for is_error, data in errors]
    assert kinds == [(True, "not_found")] * 2 + [(True, "invalid_arguments")] * 3
    assert "unknown argument(s) x" in errors[2][1]["error"]["message"]

    assert {r.uri for r in out["resources"]} == {f"kb://document/{pdf_id}",
                                                 f"kb://document/{md_id}"}
    assert out["templates"] == ["kb://document/{doc_id}"]
    texts = {c.uri: c.text for c in out["read"]}
    assert f"[p. 2]\n{PAGES[1]}" in texts[f"kb://document/{pdf_id}"]
    assert "[Kite handbook > Box kites]\n" in texts[f"kb://document/{md_id}"]
    assert out["missing"].code == -32002 and "99999" in out["missing"].message


def test_mcp_search_mistakes_are_errors_never_insufficient_evidence(kb: KnowledgeBase) -> None:
    out = mcp_session(kb, [
        ("knowledge_search", {"query": "kites", "top_k": 99}),
        ("knowledge_search", {"query": "kites", "created_after": "last tuesday"}),
        ("knowledge_search", {"query": "kites", "source_types": ["xls"]}),
        ("knowledge_search", {"query": "kites", "sources": ["docs"]}),
    ])
    for is_error, data in out["calls"]:
        assert is_error and data["error"]["type"] == "invalid_arguments", data
        assert data["insufficient_evidence"] is False and data["references"] == []
    messages = [data["error"]["message"] for _, data in out["calls"]]
    assert "top_k must be an integer from 1 to 20" in messages[0]
    assert "created_after" in messages[1] and "xls" in messages[2]
    assert "absolute" in messages[3]


@pytest.fixture
def server(kb: KnowledgeBase) -> Iterator[KbHTTPServer]:
    with serving(kb) as srv:
        yield srv


def test_http_reads_chunks_documents_and_status_as_the_openapi_says(
        kb: KnowledgeBase, server: KbHTTPServer) -> None:
    chunk_id, pdf_id = cited(kb, "when does the harbour ferry leave Circular Quay")
    _, md_id = cited(kb, "who invented box kites")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        spec = client.get("/openapi.json").json()
        answers = {
            ("/chunks/{chunk_id}", url): client.get(url) for url in (
                f"/chunks/{chunk_id}", f"/chunks/{chunk_id}?neighbours=0", "/chunks/99999",
                "/chunks/abc", f"/chunks/{chunk_id}?neighbours=50",
                f"/chunks/{chunk_id}?limit=3", "/chunks/9223372036854775808")}
        answers |= {("/documents/{doc_id}", url): client.get(url) for url in (
            f"/documents/{md_id}", "/documents/99999", "/documents/-1",
            "/documents/99999999999999999999999999")}
        answers[("/status", "/status")] = client.get("/status")
        wrong_method = client.post(f"/documents/{md_id}", json={})
    for (path, _url), r in answers.items():
        schema = spec["paths"][path]["get"]["responses"][str(r.status_code)]["content"][
            "application/json"]["schema"]
        jsonschema.Draft202012Validator({**schema, "components": spec["components"]}).validate(
            r.json())
    status = {url: r.status_code for (_, url), r in answers.items()}
    assert status == {
        f"/chunks/{chunk_id}": 200, f"/chunks/{chunk_id}?neighbours=0": 200,
        "/chunks/99999": 404, "/chunks/abc": 400, f"/chunks/{chunk_id}?neighbours=50": 400,
        f"/chunks/{chunk_id}?limit=3": 400, f"/documents/{md_id}": 200,
        "/documents/99999": 404, "/documents/-1": 400, "/status": 200,
        "/chunks/9223372036854775808": 404, "/documents/99999999999999999999999999": 404}
    chunk = answers[("/chunks/{chunk_id}", f"/chunks/{chunk_id}")].json()
    assert chunk["chunk"]["page"] == 2 and [p["page"] for p in chunk["before"]] == [1]
    assert answers[("/chunks/{chunk_id}", f"/chunks/{chunk_id}?neighbours=0")].json()[
        "before"] == []
    doc = answers[("/documents/{doc_id}", f"/documents/{md_id}")].json()
    assert any(p["heading_path"][-1] == "Safety" and "power lines" in p["text"]
               for p in doc["passages"])
    assert doc["document"]["id"] == md_id
    assert answers[("/status", "/status")].json()["documents"] == 2
    assert wrong_method.status_code == 405 and wrong_method.headers["Allow"] == "GET"
    assert pdf_id in {d["id"] for d in httpx.get(server.url + "/documents").json()["documents"]}
    # a query parameter an endpoint does not take is refused by name (a trial: /documents
    # ignored ?limit=3, as the README says no endpoint does)
    for url in ("/documents?limit=3", f"/documents/{md_id}?full=1", "/status?verbose",
                "/health?x=1", f"/chunks/{chunk_id}?neighbors=2",
                f"/chunks/{chunk_id}?chunk_id=3"):
        r = httpx.get(server.url + url)
        assert r.status_code == 400, (url, r.text)
        assert r.json()["error"]["type"] == "invalid_arguments"
        assert "unknown query parameter(s)" in r.json()["error"]["message"]
    # a trial: "?neighbors" named chunk_id as allowed; "neighbours" twice took the last
    r = httpx.get(server.url + f"/chunks/{chunk_id}?neighbors=2")
    assert r.json()["error"]["message"] == ("unknown query parameter(s) neighbors: "
                                            "/chunks/{chunk_id} takes neighbours")
    r = httpx.get(server.url + f"/chunks/{chunk_id}?neighbours=1&neighbours=2")
    assert r.status_code == 400 and "more than once" in r.json()["error"]["message"]


def test_http_search_mistakes_are_400_never_insufficient_evidence(
        server: KbHTTPServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for path in ("/search", "/context"):
            for body in ({"query": "kites", "top_k": 99},
                         {"query": "kites", "created_before": "2024-02-30"},
                         {"query": "kites", "source_types": ["xls"]},
                         {"query": "kites", "sources": ["docs/kites.md"]}):
                r = client.post(path, json=body)
                assert r.status_code == 400, (path, body, r.text)
                data = r.json()
                assert data["error"]["type"] == "invalid_arguments" and data["error"]["message"]
                assert data.get("insufficient_evidence", False) is False
