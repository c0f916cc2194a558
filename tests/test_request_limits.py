"""Malformed requests are caller mistakes (HTTP 400, a one-line error), and every interface
caps the query at one length (``kb.config.MAX_QUERY_CHARS``)."""

from __future__ import annotations

import logging
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from conftest import serving

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import MAX_QUERY_CHARS
from kb.server.arguments import INPUT_SCHEMA
from kb.server.http import KbHTTPServer
from kb.server.tool import knowledge_search
from tests.conftest import write

pytestmark = pytest.mark.slow  # a server and an index per case, about 40 cases


JSON = {"Content-Type": "application/json"}


@pytest.fixture
def server(kb_bm25: KnowledgeBase, tmp_path: Path) -> Iterator[KbHTTPServer]:
    write(tmp_path / "notes" / "kites.md", "# Box kites\n\nBox kites were invented in 1893.\n")
    kb_bm25.ingest([tmp_path / "notes"])
    with serving(kb_bm25) as srv:
        yield srv


@pytest.fixture
def client(server: KbHTTPServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def _nested(depth: int) -> bytes:
    return b'{"query": "kites", "sources": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("path", ["/search", "/context", "/ingest"])
@pytest.mark.parametrize("body", [
    _nested(100_000),                                     # nesting deeper than the parser
    b'{"query": "kites", "top_k": ' + b"7" * 5000 + b"}",  # past Python's int digit limit
    b'{"query": "kites", "top_k": ' + b"1" * 4000 + b"}",  # a valid, huge integer
    b'{"query": "kites", "top_k": NaN}',                   # not JSON (RFC 8259)
    b'{"query": "kites", "top_k": -Infinity}',
    b'{"query": "kites", "top_k": 1e999}',
    b'{"paths": [' + b"[" * 50_000 + b"]" * 50_000 + b"]}",
])
def test_malformed_json_is_a_400_with_a_json_error(client: httpx.Client, path: str,
                                                   body: bytes) -> None:
    r = client.post(path, content=body, headers=JSON)
    assert r.status_code == 400, (r.status_code, r.text[:200])
    error = r.json()["error"]
    assert error["type"] == "invalid_arguments"
    assert "\n" not in error["message"] and len(error["message"]) < 300


@pytest.mark.parametrize(("path", "example"), [("/search", '{"query": "..."}'),
                                             ("/context", '{"query": "..."}'),
                                             ("/ingest", '{"paths": [...]}')])
@pytest.mark.parametrize("body", [b"", b" \r\n"])
def test_an_empty_body_is_a_400_saying_so(client: httpx.Client, path: str, example: str,
                                           body: bytes) -> None:
    r = client.post(path, content=body, headers=JSON)
    assert r.status_code == 400
    assert r.json() == {"error": {"type": "invalid_arguments", "message": (
        f"the request body is empty: send a JSON object, e.g. {example} (see /openapi.json)")}}


@pytest.mark.parametrize(("body", "kind"), [(b"null", "null"), (b"[]", "array"),
                                            (b'"kites"', "string"), (b"7", "number"),
                                            (b"true", "boolean")])
def test_a_body_that_is_not_an_object_is_named_by_its_json_type(client: httpx.Client,
                                                                 body: bytes, kind: str) -> None:
    for path in ("/search", "/context"):
        r = client.post(path, content=body, headers=JSON)
        assert r.status_code == 400
        assert r.json()["error"]["message"] == f"arguments must be a JSON object, got {kind}"


def test_the_server_still_answers_after_malformed_bodies(client: httpx.Client) -> None:
    client.post("/search", content=_nested(100_000), headers=JSON)
    r = client.post("/search", json={"query": "box kites"})
    assert r.status_code == 200 and r.json()["references"]


def test_the_schema_states_the_one_cap() -> None:
    assert INPUT_SCHEMA["properties"]["query"]["maxLength"] == MAX_QUERY_CHARS == 2000


@pytest.mark.parametrize("path", ["/search", "/context"])
def test_http_caps_the_query(client: httpx.Client, path: str) -> None:
    assert client.post(path, json={"query": "k" * MAX_QUERY_CHARS}).status_code == 200
    r = client.post(path, json={"query": "k" * (MAX_QUERY_CHARS + 1)})
    assert r.status_code == 400
    assert f"{MAX_QUERY_CHARS:,}" in r.json()["error"]["message"]


def test_python_api_caps_the_query(kb_bm25: KnowledgeBase) -> None:
    kb_bm25.search("k" * MAX_QUERY_CHARS)  # at the cap: searched
    too_long = "box kites " * 100_000  # 1 MB
    for call in (kb_bm25.search, kb_bm25.context):
        with pytest.raises(ValueError, match=f"at most {MAX_QUERY_CHARS:,}"):
            call(too_long)


def test_tool_caps_the_query(kb_bm25: KnowledgeBase) -> None:
    out = knowledge_search(kb_bm25, {"query": "k" * (MAX_QUERY_CHARS + 1)})
    assert out["error"]["type"] == "invalid_arguments"


@pytest.mark.parametrize("command", ["search", "context"])
def test_cli_caps_the_query(kb_bm25: KnowledgeBase, command: str) -> None:
    db = str(kb_bm25.store.path)
    runner = CliRunner()
    r = runner.invoke(cli, ["--db", db, "--embedder", "none", command,
                            "k" * (MAX_QUERY_CHARS + 1)])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and f"at most {MAX_QUERY_CHARS:,}" in lines[0]
    ok = runner.invoke(cli, ["--db", db, "--embedder", "none", command, "k" * MAX_QUERY_CHARS])
    assert ok.exit_code == 0, ok.output


def _reset(url: str, request: bytes) -> None:
    """Send ``request`` and close the socket with a TCP reset (SO_LINGER 0), unread."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.sendall(request)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.parametrize("request_bytes", [
    b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{\"qu",                 # gone in the middle of its body
    b"GET /status HTTP/1.1\r\nHost: 127.0",           # gone in the middle of its headers
    b"GET /documents?limit=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # gone before a 400
])
def test_a_client_that_resets_its_connection_leaves_no_traceback(
        server: KbHTTPServer, client: httpx.Client, request_bytes: bytes,
        caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    """A trial: a client closing mid-request logged three tracebacks and a failed 500."""
    caplog.set_level(logging.INFO, logger="kb.server.http")
    for _ in range(5):
        _reset(server.url, request_bytes)
    time.sleep(0.5)
    assert client.get("/status").status_code == 200  # the server goes on answering
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]
    assert "Traceback" not in capfd.readouterr().err
