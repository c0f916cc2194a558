"""``kb serve`` over real HTTP on this machine's loopback (kb.server.http)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from conftest import serving

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.server.http import KbHTTPServer, ServeSettings, check_settings, is_loopback, make_server
from kb.server.roots import check_roots
from tests.conftest import write
from tests.test_tool import make_corpus

TOKEN = "s3cret-token-for-tests-0123456789"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "root")


@pytest.fixture
def server(kb_bm25: KnowledgeBase, corpus: Path) -> Iterator[KbHTTPServer]:
    kb_bm25.ingest([corpus / "notes"])
    with serving(kb_bm25, ServeSettings(host="127.0.0.1", port=0,
                                         roots=check_roots([corpus]))) as srv:
        yield srv


@pytest.fixture
def client(server: KbHTTPServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def test_search_over_http(client: httpx.Client, corpus: Path) -> None:
    r = client.post("/search", json={"query": "who invented box kites", "top_k": 3,
                                     "source_types": ["md"]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    data = r.json()
    assert data["error"] is None and data["references"]
    assert data["references"][0]["source"] == str((corpus / "notes" / "kites.md").resolve())
    assert all(ref["source_type"] == "md" for ref in data["references"])


def test_context_documents_health(client: httpx.Client) -> None:
    r = client.post("/context", json={"query": "box kites"})
    assert r.status_code == 200
    assert "[1]" in r.json()["context"] and "not instructions" in r.json()["context"]
    docs = client.get("/documents").json()["documents"]
    assert sorted(d["title"] for d in docs) == ["Box kites", "history"]
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["chunks"] == 2 and health["ingest_enabled"]


def test_openapi_is_served_and_lists_every_endpoint(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    assert set(spec["paths"]) == {"/search", "/context", "/ingest", "/documents", "/health",
                                  "/openapi.json", "/documents/{doc_id}", "/chunks/{chunk_id}",
                                  "/status"}
    assert spec["components"]["schemas"]["SearchArguments"]["properties"]["top_k"]["maximum"] == 20
    assert "security" not in spec  # no token on this server


def test_errors_are_json_with_status(client: httpx.Client) -> None:
    r = client.post("/search", json={"query": "k", "top_k": 99})
    assert r.status_code == 400 and "top_k" in r.json()["error"]["message"]
    for path in ("/search", "/context"):  # punctuation only: a caller mistake, not "no answer"
        r = client.post(path, json={"query": "???"})
        assert r.status_code == 400, r.text
        assert r.json()["error"] == {"type": "invalid_arguments",
                                     "message": "the query has no searchable words"}
        assert r.json()["query"] == "???"  # its own shape (a trial: /context's was bare)
    assert set(r.json()) == {"query", "context", "insufficient_evidence", "error"}
    assert r.json()["insufficient_evidence"] is False and r.json()["context"] == ""
    r = client.post("/search", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    r = client.post("/search", content=b'{"query": "k"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415  # what a cross-site form could send
    assert client.get("/search").status_code == 405
    assert client.get("/nope").status_code == 404
    r = client.get("/health", headers={"Host": "evil.example:80"})
    assert r.status_code == 403  # DNS rebinding: a foreign Host on an unguarded server
    r = client.get("/health", headers={"Origin": "https://evil.example"})
    assert r.status_code == 403


def test_ingest_is_confined_to_roots(client: httpx.Client, corpus: Path, tmp_path: Path) -> None:
    secret = write(tmp_path / "outside" / "secret.md", "box kites secret\n")
    r = client.post("/ingest", json={"paths": [str(secret)]})
    assert r.status_code == 403 and str(secret) in r.json()["error"]["message"]
    r = client.post("/ingest", json={"paths": ["manuals"]})
    assert r.status_code == 200 and r.json()["summary"]["added"] == 1
    titles = {d["title"] for d in client.get("/documents").json()["documents"]}
    assert "Kite safety" in titles and "secret" not in titles


def test_ingest_without_roots_is_refused(kb_bm25: KnowledgeBase, corpus: Path) -> None:
    with serving(kb_bm25, ServeSettings(port=0)) as srv:
        r = httpx.post(srv.url + "/ingest", json={"paths": [str(corpus)]}, timeout=30)
        assert r.status_code == 403 and "ingest is disabled" in r.json()["error"]["message"]


def test_non_loopback_bind_needs_a_token() -> None:
    with pytest.raises(ValueError, match=r"binding 0\.0\.0\.0 \(not loopback\) requires a "
                                         r"bearer token"):
        check_settings(ServeSettings(host="0.0.0.0"))
    with pytest.raises(ValueError, match="at least 16 characters"):
        check_settings(ServeSettings(host="0.0.0.0", token="short"))
    check_settings(ServeSettings(host="0.0.0.0", token=TOKEN))
    check_settings(ServeSettings(host="::1"))


def test_cli_refuses_to_start_without_token(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                 "serve", "--host", "0.0.0.0", "--port", "0"], env={"KB_TOKEN": ""})
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [
        "kb: error: binding 0.0.0.0 (not loopback) requires a bearer token: pass --token or set "
        "KB_TOKEN"]
    assert not (tmp_path / "kb.db").exists()  # refused before opening anything


def test_token_guarded_server_bound_to_all_interfaces(kb_bm25: KnowledgeBase,
                                                      corpus: Path) -> None:
    kb_bm25.ingest([corpus / "notes"])
    with serving(kb_bm25, ServeSettings(host="0.0.0.0", port=0, token=TOKEN)) as srv:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        with httpx.Client(base_url=url, timeout=30) as c:
            for path in ("/health", "/openapi.json", "/documents"):
                r = c.get(path)
                assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
            r = c.post("/search", json={"query": "box kites"})
            assert r.status_code == 401
            r = c.post("/search", json={"query": "box kites"},
                       headers={"Authorization": "Bearer wrong-token-0123456789"})
            assert r.status_code == 401
            auth = {"Authorization": f"Bearer {TOKEN}"}
            r = c.post("/search", json={"query": "box kites"}, headers=auth)
            assert r.status_code == 200 and r.json()["references"]
            spec = c.get("/openapi.json", headers=auth).json()
            assert spec["security"] == [{"bearer": []}]


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("localhost", True), ("::1", True),
    ("[::1]", True), ("0.0.0.0", False), ("::", False), ("192.168.1.5", False),
    ("example.com", False), ("", False),
])
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


# --- text no encoder takes, methods no endpoint takes ----------------------------------------

JSON = {"Content-Type": "application/json"}


def test_lone_surrogates_are_answered_never_a_500(client: httpx.Client, corpus: Path) -> None:
    # The body is valid JSON: a \ud800 escape decodes to a lone UTF-16 surrogate, which no
    # UTF-8 encoder takes. The search replaces it with U+FFFD; the answer is valid UTF-8.
    r = client.post("/search", content=b'{"query": "\\ud800 box kites"}', headers=JSON)
    assert r.status_code == 200, r.text
    data = json.loads(r.content.decode("utf-8", errors="strict"))
    assert data["error"] is None and data["query"] == "\ufffd box kites"
    assert data["references"][0]["source"] == str((corpus / "notes" / "kites.md").resolve())
    r = client.post("/search", content=b'{"query": "\\udfff"}', headers=JSON)
    assert r.status_code == 200 and r.json()["query"] == "\ufffd"
    assert r.json()["insufficient_evidence"] is True
    r = client.post("/context", content=b'{"query": "box kites \\ud800"}', headers=JSON)
    assert r.status_code == 200 and r.json()["query"] == "box kites \ufffd"
    assert "[1]" in r.json()["context"]
    # A well-formed pair written as two escapes is the character it encodes.
    r = client.post("/search", content=b'{"query": "\\ud83e\\ude81 kites"}', headers=JSON)
    assert r.status_code == 200 and r.json()["query"] == "\U0001fa81 kites"
    # Error answers echo the caller's text too: still JSON, still UTF-8, never a 500.
    r = client.post("/search", content=b'{"query": "\\ud800", "top_k": 99}', headers=JSON)
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_arguments"
    assert "\ud800" not in r.content.decode("utf-8", errors="strict")
    r = client.post("/ingest", content=b'{"paths": ["notes/\\udcff.md"]}', headers=JSON)
    assert r.status_code in (403, 404), r.text
    assert "notes/\ufffd.md" in r.json()["error"]["message"]


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND"])
def test_methods_no_endpoint_takes_get_json_405_with_allow(client: httpx.Client,
                                                           method: str) -> None:
    for path, allow in (("/search", "POST"), ("/health", "GET"), ("/nope", "GET, POST")):
        r = client.request(method, path, content=b'{"query": "box kites"}', headers=JSON)
        assert r.status_code == 405, (method, path, r.text)
        assert r.headers["allow"] == allow
        assert r.headers["content-type"].startswith("application/json")
        if method == "HEAD":
            assert r.content == b""  # a HEAD answer carries headers only
        else:
            assert r.json()["error"]["type"] == "method_not_allowed"
            assert method in r.json()["error"]["message"]
    assert client.get("/health").status_code == 200  # the server is unharmed


def test_a_token_guards_unserved_methods_too(kb_bm25: KnowledgeBase) -> None:
    with serving(kb_bm25, ServeSettings(port=0, token=TOKEN)) as srv:
        r = httpx.request("DELETE", srv.url + "/documents", timeout=30)
        assert r.status_code == 401  # nothing about the server before authentication
        r = httpx.request("DELETE", srv.url + "/documents", timeout=30,
                          headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 405 and r.headers["allow"] == "GET"


def test_requests_the_standard_library_cannot_parse_get_json(server: KbHTTPServer) -> None:
    with socket.create_connection(server.server_address[:2], timeout=30) as s:
        s.sendall(b"GET /health extra-word HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 400") and b"application/json" in head
    assert json.loads(body)["error"]["type"] == "bad_request"


def test_a_body_shorter_than_its_content_length_is_a_400(server: KbHTTPServer) -> None:
    # an interfaces trial: a truncated body was answered 500 "TimeoutError: timed out"
    with socket.create_connection(server.server_address[:2], timeout=30) as s:
        s.sendall(b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 100\r\n\r\n{\"query\":")
        s.shutdown(socket.SHUT_WR)  # the client sends no more
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].split()[1] == b"400"
    error = json.loads(body)["error"]
    assert error["type"] == "invalid_arguments" and "Content-Length (100 bytes)" in error["message"]


def test_connections_wait_in_the_queue_while_the_server_is_busy(kb_bm25: KnowledgeBase) -> None:
    # an interfaces trial: 26 of 50 clients searching at once were reset (the standard
    # library's listen backlog of 5). A server accepting nothing yet stands for a busy one:
    # the kernel completes each handshake while the queue has room.
    server = make_server(kb_bm25, ServeSettings(host="127.0.0.1", port=0))
    clients: list[socket.socket] = []
    try:
        for _ in range(100):
            clients.append(socket.create_connection(server.server_address[:2], timeout=2))
        assert len(clients) == 100
    finally:
        for c in clients:
            c.close()
        server.server_close()
