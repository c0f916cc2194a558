"""Unpaired UTF-16 surrogates in a query: every entry point answers, with valid UTF-8.

JSON's ``"\\ud800"`` escape and a command-line argument with undecodable bytes (Python's
``surrogateescape``) both put lone surrogates in a ``str``; ``kb.retrieve.pipeline.search``
replaces them with U+FFFD before anything else reads the query. (HTTP is covered in
tests/test_http_server.py, which also checks the server's encoder on its own.)
"""

import json

import pytest
from click.testing import CliRunner
from conftest import write

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.retrieve.pipeline import well_formed
from kb.server.tool import knowledge_search


@pytest.mark.parametrize(("text", "expected"), [
    ("\ud800", "\ufffd"), ("a\udfffb", "a\ufffdb"), ("\udcff kites", "\ufffd kites"),
    ("\ud83e\ude81", "\U0001fa81"),  # a pair given as two code points is one character
    ("kites \U0001fa81 ok", "kites \U0001fa81 ok"), ("", ""),
])
def test_well_formed_replaces_only_unpaired_surrogates(text, expected):
    assert well_formed(text) == expected
    well_formed(text).encode("utf-8")  # never raises


@pytest.fixture
def db(tmp_path):
    write(tmp_path / "notes" / "kites.md",
          "# Box kites\n\nBox kites were invented by Lawrence Hargrave in 1893.\n")
    path = tmp_path / "kb.db"
    with KnowledgeBase(path, Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "notes"])
    return path


@pytest.mark.parametrize("query", ["\ud800 box kites", "box kites \udfff", "\udcffbox kites"])
def test_python_api_and_tool_answer_and_echo_valid_utf8(db, query):
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        result = kb.search(query)
        assert result.diagnostics.error is None and result.references
        assert "\ufffd" in result.query and result.query == well_formed(query)
        json.dumps(result.diagnostics.queries, ensure_ascii=False).encode("utf-8")
        data = knowledge_search(kb, {"query": query})
        assert data["error"] is None and data["references"]
        json.dumps(data, ensure_ascii=False).encode("utf-8")  # what a host sends on: no raise


def test_a_lone_surrogate_alone_is_an_ordinary_empty_answer(db):
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        result = kb.search("\ud800")
    assert result.query == "\ufffd" and result.insufficient_evidence
    assert result.diagnostics.error is None


def test_cli_argument_with_undecodable_bytes(db):
    # `kb search $'\xff box kites'` reaches Python as '\udcff box kites' (surrogateescape).
    r = CliRunner().invoke(cli, ["--db", str(db), "search", "--json", "\udcff box kites"],
                           env={"KB_EMBEDDER": "none"})
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["query"] == "\ufffd box kites" and data["references"]


def test_an_invalid_tool_call_echoes_its_query_as_valid_utf8(tmp_path):
    from kb.server.tool import knowledge_search

    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        out = knowledge_search(kb, {"query": "\ud800 kites", "top_k": 99})
    assert out["error"]["type"] == "invalid_arguments"
    assert out["query"] == "\ufffd kites"
    out["query"].encode("utf-8")


def test_a_lone_surrogate_in_a_source_filter_is_not_a_failure(tmp_path):
    write(tmp_path / "d" / "kites.txt", "Lawrence Hargrave invented the box kite in 1893.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "d"])
        out = knowledge_search(kb, {"query": "box kite", "sources": ["/tmp/\ud800"]})
    assert out["error"] is None and out["references"] == []  # scoped to nothing, not failed
