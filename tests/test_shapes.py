"""One JSON shape per concept (kb.shapes): every interface gives the same JSON, and the
OpenAPI document, generated from the shapes, describes what the running server answers."""

from __future__ import annotations

import json
import os
import sys
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
from kb.jsonshape import json_schema, to_json
from kb.server.http import KbHTTPServer, ServeSettings
from kb.server.roots import check_roots
from kb.shapes import IngestSummaryJSON, StatusJSON
from tests.conftest import write
from tests.test_tool import make_corpus

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

QUERY = "who invented box kites"
ARGUMENTS = {"query": QUERY, "top_k": 3, "source_types": ["md"]}
CLI_ARGS = ["search", QUERY, "--top-k", "3", "--type", "md", "--json"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "root").resolve()


@pytest.fixture
def db(tmp_path: Path, root: Path) -> Path:
    db = tmp_path / "kb.db"
    r = CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", "ingest",
                                 str(root / "notes")])
    assert r.exit_code == 0, r.output
    return db


@pytest.fixture
def server(db: Path, root: Path) -> Iterator[KbHTTPServer]:
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        with serving(kb, ServeSettings(host="127.0.0.1", port=0,
                                       roots=check_roots([root]))) as srv:
            yield srv


def cli_json(db: Path, *args: str) -> list[Any]:
    r = CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", *args])
    return [json.loads(line) for line in r.stdout.splitlines()]


def mcp_search(db: Path, cwd: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_"))}
    params = mcp.StdioServerParameters(
        command=sys.executable, env=env, cwd=str(cwd),
        args=["-m", "kb", "--db", str(db), "--embedder", "none", "mcp"])

    async def call() -> dict[str, Any]:
        async with mcp.stdio_client(params) as (read, write_), \
                mcp.ClientSession(read, write_, read_timeout_seconds=60.0) as session:
            await session.initialize()
            result = await session.call_tool("knowledge_search", arguments)
            data: dict[str, Any] = json.loads(result.content[0].text)
            assert result.structured_content == data
            return data

    return anyio.run(call)


def test_one_search_gives_the_same_json_on_the_cli_http_and_mcp(
        db: Path, server: KbHTTPServer, tmp_path: Path) -> None:
    (from_cli,) = cli_json(db, *CLI_ARGS)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        from_http = client.post("/search", json=ARGUMENTS).json()
        context_http = client.post("/context", json=ARGUMENTS).json()
        documents_http = client.get("/documents").json()["documents"]
    from_mcp = mcp_search(db, tmp_path, ARGUMENTS)
    assert from_cli["references"] and from_cli["references"][0]["title"] == "Box kites"
    assert from_cli == from_http == from_mcp
    assert set(from_cli) == {"query", "references", "insufficient_evidence", "note",
                             "diagnostics", "error"}
    assert isinstance(from_cli["diagnostics"]["candidates"], dict)  # list name -> hits
    # the context block and the documents: one shape each, too
    (context_cli,) = cli_json(db, "context", QUERY, "--top-k", "3", "--type", "md", "--json")
    assert context_cli == context_http and set(context_cli) == {
        "query", "context", "insufficient_evidence", "error"}
    assert cli_json(db, "docs", "--json") == documents_http
    assert all("chunk_count" in d and "chunks" not in d for d in documents_http)


def test_an_invalid_search_is_the_same_error_on_every_interface(
        db: Path, server: KbHTTPServer, tmp_path: Path) -> None:
    bad = {"query": "kites", "created_after": "2025-01-01", "created_before": "2024-01-01"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        r = client.post("/search", json=bad)
    from_mcp = mcp_search(db, tmp_path, bad)
    assert r.status_code == 400 and r.json() == from_mcp
    assert from_mcp["error"]["type"] == "invalid_arguments" and from_mcp["diagnostics"] is None
    assert "created_after must be earlier than created_before" in from_mcp["error"]["message"]


def validator(spec: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator for one schema of ``spec``, its ``$ref``s resolved inside ``spec``."""
    return jsonschema.Draft202012Validator({**schema, "components": spec["components"]})


def answer_schema(spec: dict[str, Any], path: str, method: str, status: int) -> dict[str, Any]:
    schema: dict[str, Any] = spec["paths"][path][method]["responses"][str(status)]["content"][
        "application/json"]["schema"]
    return schema


def test_the_openapi_document_is_generated_and_holds_for_real_answers(
        server: KbHTTPServer, root: Path) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        spec = client.get("/openapi.json").json()
        schemas = spec["components"]["schemas"]
        for schema in schemas.values():
            jsonschema.Draft202012Validator.check_schema(schema)
        # what drifted when it was written by hand: the context's error, names, candidates
        assert "error" in schemas["Context"]["properties"]
        assert "chunk_count" in schemas["Document"]["properties"]
        assert set(schemas["IngestSummary"]["properties"]) >= {"added", "updated", "removed"}
        assert schemas["Diagnostics"]["properties"]["candidates"]["type"] == "object"
        assert schemas["Reference"]["properties"]["stale"]["description"].startswith(
            "the document's file changed")
        calls = [
            ("/search", "post", ARGUMENTS), ("/search", "post", {"query": "zzqx nothing"}),
            ("/search", "post", {"query": "kites", "top_k": 50}),
            ("/context", "post", ARGUMENTS), ("/context", "post", {"query": ""}),
            ("/ingest", "post", {"paths": [str(root / "notes")]}),
            ("/ingest", "post", {"paths": ["/etc/passwd"]}),
            ("/documents", "get", None), ("/health", "get", None),
        ]
        seen = set()
        for path, method, body in calls:
            r = client.request(method.upper(), path, json=body)
            answer = r.json()
            validator(spec, answer_schema(spec, path, method, r.status_code)).validate(answer)
            seen.add((path, r.status_code))
        assert {("/search", 200), ("/search", 400), ("/context", 400), ("/ingest", 200),
                ("/ingest", 403), ("/health", 200)} <= seen
        # the schema refuses what the server must not answer: a field the shape lacks
        search = answer_schema(spec, "/search", "post", 200)
        good = client.post("/search", json=ARGUMENTS).json()
        assert not validator(spec, search).is_valid({**good, "chunks": 1})
        reference = {**good["references"][0]}
        del reference["stale"]
        assert not validator(spec, search).is_valid({**good, "references": [reference]})


def test_cli_status_and_ingest_summary_follow_their_shapes(db: Path, tmp_path: Path) -> None:
    defs: dict[str, Any] = {}
    for shape in (StatusJSON, IngestSummaryJSON):
        json_schema(shape, defs)
    spec = {"components": {"schemas": defs}}
    (status,) = cli_json(db, "status", "--json")
    validator(spec, {"$ref": "#/components/schemas/Status"}).validate(status)
    extra = write(tmp_path / "more" / "ferries.md", "# Ferries\n\nFerries cross the bay.\n")
    *files, summary = cli_json(db, "ingest", str(extra.parent), "--json")
    assert summary.pop("type") == "summary" and summary["added"] == 1
    validator(spec, {"$ref": "#/components/schemas/IngestSummary"}).validate(summary)
    assert [f["action"] for f in files] == ["added"]


def test_to_json_and_json_schema_agree_on_nested_shapes() -> None:
    defs: dict[str, Any] = {}
    ref = json_schema(IngestSummaryJSON, defs)
    summary = IngestSummaryJSON(added=1, updated=0, unchanged=2, skipped=0, failed=0, chunks=3,
                                removed=("/a",), vectors_pending=0, embedder="none",
                                warnings=())
    validator({"components": {"schemas": defs}}, ref).validate(to_json(summary))
    assert defs["IngestSummary"]["properties"]["removed"] == {
        "type": "array", "items": {"type": "string"},
        "description": "sources of the documents removed (files gone from the folders given)."}
