"""The README's walkthrough (issue 13, acceptance 5), run as written in a scratch home folder.

The bash block after ``<!-- walkthrough -->`` runs with ``HOME`` (and the XDG folders) in a
temporary folder and this environment's ``kb`` first on ``PATH``; the MCP configuration after
``<!-- walkthrough-mcp -->`` is started with the MCP SDK's stdio client, which must list kb's
tools and find the walkthrough's notes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 600  # the real embedded model on a loaded 2-core machine; nothing is timed


def _block(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r"\n```\w+\n(.*?)\n```", text, re.DOTALL)
    assert found, f"README has no block after {marker}"
    return found.group(1)


@pytest.mark.slow  # the real model, a watcher process and an MCP server
def test_the_readme_walkthrough_runs_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KB_", "XDG_")) and k != "OLLAMA_HOST"}
    env |= {"HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
            "NO_COLOR": "1"}
    script = "set -euo pipefail\n" + _block("<!-- walkthrough -->")
    done = subprocess.run(["bash", "-c", script], env=env, cwd=home, capture_output=True,
                          text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "Hargrave" in out and "WEAK EVIDENCE: no passage reached the judge's threshold (" in out
    assert "1066" not in out  # the ignored draft was never indexed
    assert str(home / ".local" / "share" / "kb") in out  # kb status: absolute paths, data folder
    assert re.search(r"^\*\s*default", out, re.MULTILINE) and "work" in out

    config = json.loads(_block("<!-- walkthrough-mcp -->"))["mcpServers"]["kb"]
    params = mcp.StdioServerParameters(command=config["command"], args=config["args"],
                                       env=env, cwd=str(home))

    async def session() -> dict[str, Any]:
        async with mcp.stdio_client(params) as (read, write), \
                mcp.ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            found = await s.call_tool("knowledge_search", {"query": "who invented box kites"})
            return {"tools": tools, "found": found.content[0].text}

    got = asyncio.run(asyncio.wait_for(session(), TIMEOUT_S))
    assert {"knowledge_search", "get_chunk", "get_document", "list_documents",
            "status"} <= got["tools"]
    assert "Hargrave" in got["found"]
