"""The README's interface examples run as written (python blocks) or match (tool schema)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli

DOC = Path(__file__).parent.parent / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(DOC.read_text(encoding="utf-8"))]


@pytest.mark.slow  # runs every Python example of the document
def test_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")  # the MCP example uses the SDK's client
    monkeypatch.chdir(tmp_path)
    sources = [code for lang, code in blocks() if lang == "python"]
    assert len(sources) == 4
    for i, code in enumerate(sources):
        exec(compile(code, f"{DOC.name}:python-block-{i + 1}", "exec"), {"__name__": "__doc__"})


def test_tool_schema_example_matches_the_command() -> None:
    found = blocks()
    checked = 0
    for (lang, code), nxt in zip(found, found[1:], strict=False):
        if lang != "console" or not code.startswith("$ kb tool-schema"):
            continue
        argv = shlex.split(code.splitlines()[0])[2:]
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 0, result.output
        assert nxt[0] == "json"
        assert json.loads(result.output) == json.loads(nxt[1])
        assert result.output.strip() == nxt[1].strip()  # byte for byte, as the user sees it
        checked += 1
    assert checked == 1


def test_json_blocks_parse() -> None:
    for lang, code in blocks():
        if lang == "json":
            json.loads(code)
