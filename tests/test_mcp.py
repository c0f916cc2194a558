"""``kb mcp`` with the official MCP SDK's real client over stdio (kb.server.mcp)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.errors import KbError
from kb.server.arguments import INPUT_SCHEMA
from kb.server.mcp import InFlight
from tests.conftest import write
from tests.test_tool import make_corpus

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

READING_TOOLS = ["get_chunk", "get_document", "list_documents", "status"]
TIMEOUT_S = 60.0  # per request; the machine may be busy


def payload(result: Any) -> dict[str, Any]:
    """The tool's JSON result from a CallToolResult (text content and structured content)."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    data: dict[str, Any] = json.loads(result.content[0].text)
    assert result.structured_content == data
    assert result.is_error == (data["error"] is not None)
    return data


@pytest.mark.slow  # a kb MCP server process
def test_stdio_session_lists_tools_and_filters_hold(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "root").resolve()
    secret = write(tmp_path / "outside" / "secret.md", "Box kites secret plans.\n")
    (root / "notes" / "escape.md").symlink_to(secret)
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_"))}
    params = mcp.StdioServerParameters(
        command=sys.executable, env=env, cwd=str(tmp_path),
        args=["-m", "kb", "--db", str(tmp_path / "kb.db"), "--embedder", "none", "mcp",
              "--root", str(root)])

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with mcp.stdio_client(params) as (read, write_), \
                mcp.ClientSession(read, write_, read_timeout_seconds=TIMEOUT_S) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            out["tools"] = tools

            async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
                return payload(await s.call_tool(name, args))

            out["outside"] = await call("knowledge_ingest", {"paths": [str(secret)]})
            out["dotdot"] = await call("knowledge_ingest", {"paths": ["../outside/secret.md"]})
            out["inside"] = await call("knowledge_ingest", {"paths": [str(root)]})
            out["by_source_type"] = await call("knowledge_search", {
                "query": "box kites", "top_k": 20, "sources": [str(root / "notes")],
                "source_types": ["md"]})
            out["by_date"] = await call("knowledge_search", {
                "query": "box kites", "top_k": 20, "created_after": "2020-01-01T00:00:00Z"})
            out["secret"] = await call("knowledge_search", {"query": "secret plans"})
            out["invalid"] = await call("knowledge_search", {"query": "kites", "top_k": 50})
            out["unknown"] = await call("rm_rf", {})
        return out

    out = anyio.run(session)
    assert set(out["tools"]) == {"knowledge_search", "knowledge_ingest", *READING_TOOLS}
    assert out["tools"]["knowledge_search"].input_schema == INPUT_SCHEMA
    assert out["tools"]["knowledge_search"].annotations.read_only_hint is True

    # acceptance 3: outside the roots refused, inside succeeds, symlink out left out
    for key in ("outside", "dotdot"):
        assert out[key]["error"]["type"] == "refused", out[key]
    assert out["inside"]["error"] is None and out["inside"]["summary"]["added"] == 3
    assert out["inside"]["refused"] == [{"path": str(root / "notes" / "escape.md"),
                                         "reason": "resolves outside the ingest roots (symlink)"}]

    # acceptance 1: every returned source satisfies the filters
    refs = out["by_source_type"]["references"]
    assert [Path(r["source"]).name for r in refs] == ["kites.md"]
    assert all(r["source"].startswith(str(root / "notes")) and r["source_type"] == "md"
               for r in refs)
    refs = out["by_date"]["references"]
    assert {Path(r["source"]).name for r in refs} == {"kites.md", "safety.md"}
    assert all(datetime.fromisoformat(r["created_at"]) >= datetime(2020, 1, 1, tzinfo=UTC)
               for r in refs)
    assert out["secret"]["references"] == []  # nothing from outside the root was read
    assert out["invalid"]["error"]["type"] == "invalid_arguments"
    assert "top_k" in out["invalid"]["error"]["message"]
    assert "unknown tool 'rm_rf'" in out["unknown"]["error"]["message"]


def test_without_roots_ingest_is_not_listed(kb_bm25: KnowledgeBase) -> None:
    from kb.server.mcp import build_server

    async def tools() -> list[str]:
        async with mcp.Client(build_server(kb_bm25)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("knowledge_ingest", {"paths": ["x"]})
            assert result.is_error
            # a trial: nothing said how to turn it on
            assert "knowledge_ingest is off: start the server with --root FOLDER" in json.loads(
                result.content[0].text)["error"]["message"]
            return names

    assert anyio.run(tools) == ["knowledge_search", *READING_TOOLS]


def test_missing_sdk_is_one_line_naming_the_install(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.server.mcp import require_mcp

    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    hint = r"pip install 'mcp==2.3.0' \(kb's mcp extra; in a checkout of kb: pip install -e"
    with pytest.raises(KbError, match=hint):
        require_mcp()
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none", "mcp"])
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: the MCP server needs")


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"}}}


def _kites_index(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A BM25-only index of one note, and the environment a ``kb mcp`` child runs in."""
    db = str(tmp_path / "kb.db")
    write(tmp_path / "notes" / "kites.md", "# Kites\n\nBox kites fly well.\n")
    assert CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "ingest",
                                    str(tmp_path / "notes")]).exit_code == 0
    return db, {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "PATH"))}


@pytest.mark.slow  # a kb MCP server process
def test_a_line_that_is_no_message_is_answered_with_a_json_rpc_error(tmp_path: Path) -> None:
    # an interfaces trial: "{not json", "[1,2]" and a message without a method got no answer,
    # so a client waiting on id 2 waited forever
    db, env = _kites_index(tmp_path)
    # a UTF-8 byte-order mark first (Windows PowerShell's pipe): skipped (a trial: -32700)
    lines = ["\ufeff" + json.dumps(INITIALIZE), json.dumps({"jsonrpc": "2.0", "method":
                                           "notifications/initialized"}),
             "", "{not json", "[1,2]", '{"jsonrpc":"2.0","id":2}', '{"jsonrpc":"2.0","id":3,'
             '"method":"ping"}',  # an empty line asks nothing and gets no answer
             # another version: answered with its id (a trial: id null, as its first error was
             # of the "jsonrpc" field)
             '{"jsonrpc":"1.0","id":5,"method":"ping"}',
             # a lone surrogate's escape is valid JSON (a trial: answered -32700, id null)
             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                 "name": "knowledge_search", "arguments": {"query": "box kites \ud800"}}}),
             # ids of 1.5, true or an object, or none, on a request method: the SDK read
             # them as notifications and dropped them (a trial); a real notification (a
             # cancel of an id never sent) still gets no answer
             '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":true,"method":"ping"}',
             '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
             '{"jsonrpc":"2.0","method":"tools/list"}',
             '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}',
             # another protocol's notification is no request either (a review: answered)
             '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}',
             '{"jsonrpc":"2.0","id":6,"method":"ping"}']
    assert "\\ud800" in lines[-8]
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb", "--db", db, "--embedder", "none", "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=env, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    by_id: dict[Any, list[dict[str, Any]]] = {}
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()  # stdin stays open: at its end the server stops answering
        timer = threading.Timer(TIMEOUT_S, proc.kill)  # a missing answer fails, never hangs
        timer.start()
        while not ({1, 2, 3, 4, 5, 6} <= by_id.keys() and len(by_id.get(None, [])) >= 6):
            line = proc.stdout.readline()
            if not line:
                break
            answer = json.loads(line)
            by_id.setdefault(answer.get("id"), []).append(answer)
        timer.cancel()
    finally:
        proc.kill()
        proc.wait()
    assert "result" in by_id[1][0] and "result" in by_id[3][0]  # the session goes on
    assert not by_id[4][0]["result"].get("isError"), by_id[4]  # searched, U+FFFD for it
    assert [a["error"]["code"] for a in by_id[None]] == [-32700] + [-32600] * 5
    assert "tools/list needs an id that is a string or an integer" in by_id[None][2]["error"][
        "message"]
    assert by_id[2][0]["error"]["code"] == -32600 and by_id[5][0]["error"]["code"] == -32600
    assert "result" in by_id[6][0] and set(by_id) == {1, 2, 3, 4, 5, 6, None}


@pytest.mark.slow  # a kb MCP server process
def test_requests_written_before_stdin_closes_are_all_answered(tmp_path: Path) -> None:
    # a new-user trial: `printf '...' | kb mcp` answered initialize and ping, but the
    # knowledge_search call still running when stdin ended was dropped without a word
    db, env = _kites_index(tmp_path)
    search = {"name": "knowledge_search", "arguments": {"query": "box kites"}}
    messages = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": search},
        # a request the client cancels may go unanswered: it is not waited for
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": search},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}},
        # ... named by its id as a string: the same request, as the SDK reads it (a review:
        # the drain waited its whole timeout)
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": search},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "6"}},
        {"jsonrpc": "2.0", "id": 5, "method": "ping"}]
    proc = subprocess.run(
        [sys.executable, "-m", "kb", "--db", db, "--embedder", "none", "mcp"],
        input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True,
        text=True, env=env, cwd=tmp_path, timeout=InFlight.DRAIN_TIMEOUT_S - 15)  # no wait out
    assert proc.returncode == 0, proc.stderr
    by_id = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines())}
    assert {1, 2, 3, 5} <= by_id.keys(), proc.stdout
    for call in (by_id[2], by_id[3]):
        assert not call["result"].get("isError") and "Box kites" in json.dumps(call["result"])
