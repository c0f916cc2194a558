"""A failed search is an error, never "the documents do not hold the answer" (issue 11, item 2).

The damage is real: rows of the FTS5 shadow tables deleted or overwritten through SQLite, as a
stray tool or bit rot would leave them; SQLite's quick_check sees none of it. At open the index
is checked (``kb.store.health.fts_problem``) and rebuilt from the chunks. Damage done while a
knowledge base is open (a server), or in a file kb cannot write, makes searches fail: every
interface then says so as an error (non-zero exit, ``error`` set, HTTP 500), with
``insufficient_evidence`` false and a context block that says the search failed.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from conftest import serving, write
from http_doubles import ModelServer
from test_storage_faults import _in_namespace, _namespaces_work

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.errors import SearchFailed
from kb.server.http import ServeSettings
from kb.server.tool import knowledge_search
from kb.store.health import fts_problem

DAMAGE = {
    "leaf pages deleted": "DELETE FROM chunks_fts_data WHERE id > 10",
    "leaf pages zeroed": "UPDATE chunks_fts_data SET block = zeroblob(length(block)) "
                         "WHERE id > 10",
    "leaf pages overwritten": "UPDATE chunks_fts_data SET block = randomblob(length(block)) "
                              "WHERE id > 10",
    "structure record deleted": "DELETE FROM chunks_fts_data WHERE id = 10",
    "sizes deleted": "DELETE FROM chunks_fts_docsize",
    "texts deleted": "DELETE FROM chunks_fts_content",
    "configuration deleted": "DELETE FROM chunks_fts_config",
}
QUERY = "when are cider apples pressed"
ANSWER = "cider.md"


def _notes(folder: Path) -> None:
    write(folder / "cider.md", "# Cider\n\nCider apples are pressed in late October, after the "
          "first frost has sweetened them.\n")
    write(folder / "kites.md", "# Box kites\n\nBox kites were invented by Lawrence Hargrave "
          "in 1893.\n")
    write(folder / "bread.txt", "Sourdough rises because wild yeast ferments the flour.\n")
    write(folder / "tides.txt", "Spring tides follow the new and the full moon.\n")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    _notes(tmp_path / "notes")
    path = tmp_path / "kb.db"
    with KnowledgeBase(path, Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "notes"])
    return path


def _damage(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(sql)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # SQLite sees nothing
    conn.close()


@pytest.mark.parametrize("sql", DAMAGE.values(), ids=DAMAGE.keys())
def test_a_damaged_index_is_found_at_open_and_rebuilt_from_the_chunks(db, sql):
    _damage(db, sql)
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        assert kb.store.fts_rebuilt is not None
        result = kb.search(QUERY)
        assert result.diagnostics.error is None
        assert result.references and result.references[0].source.endswith(ANSWER)
        assert kb.status().fts_integrity.startswith("ok (rebuilt at open")
        assert fts_problem(kb.store.conn) is None
    with KnowledgeBase(db, Config(embedder="none")) as kb:  # once rebuilt, left alone
        assert kb.store.fts_rebuilt is None and kb.status().fts_integrity == "ok"


def test_a_sound_index_passes_the_check_after_many_replacements(tmp_path):
    folder = tmp_path / "notes"
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        for version in range(4):  # each ingest replaces every document: deletes in the index
            for i in range(30):
                write(folder / f"n{i}.txt", f"Note {i} version {version}: the ferry leaves "
                      f"the harbour at {i % 12} o'clock" + " and returns" * (version + i % 3))
            kb.ingest([folder])
        assert fts_problem(kb.store.conn) is None and kb.store.fts_integrity_ok()


def test_damage_after_open_is_an_error_on_the_api_tool_and_ask(db):
    asked: list[str] = []

    def chat(model: str, prompt: str) -> str:
        asked.append(prompt)
        return "no comment"

    with ModelServer(chat=chat) as server, KnowledgeBase(
            db, Config(embedder="none", llm=f"openai:{server.url}/v1#m")) as kb:
        assert kb.search(QUERY).references
        _damage(db, DAMAGE["leaf pages deleted"])
        result = kb.search(QUERY)
        assert result.diagnostics.error and result.diagnostics.error.startswith("search failed")
        assert not result.insufficient_evidence and result.references == ()
        assert "could not be searched" in result.context
        assert "does not have enough information" not in result.context
        out = knowledge_search(kb, {"query": QUERY})
        assert out["error"]["type"] == "failed" and not out["insufficient_evidence"]
        assert "search failed" in out["note"]
        asked.clear()
        with pytest.raises(SearchFailed, match="search failed"):
            kb.ask(QUERY)
        assert not [p for p in asked if "Question:" in p]  # the model was never asked to answer


def test_damage_after_open_is_http_500_on_search_and_context(db):
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        with serving(kb, ServeSettings(port=0)) as server:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                assert client.post("/search", json={"query": QUERY}).status_code == 200
                _damage(db, DAMAGE["leaf pages deleted"])
                for path in ("/search", "/context"):
                    r = client.post(path, json={"query": QUERY})
                    assert r.status_code == 500, (path, r.text)
                    data = r.json()
                    assert data["error"]["type"] == "failed"
                    assert "search failed" in data["error"]["message"]
                    assert data["insufficient_evidence"] is False


def _cli(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", *args])


def test_status_exits_non_zero_when_the_integrity_check_fails(db):
    # Texts changed behind the index's back: the index reads whole, FTS5's own check fails.
    _damage(db, "UPDATE chunks_fts_content SET c0 = 'hello world' WHERE id = 1")
    r = _cli(db, "status")
    assert r.exit_code == 1
    assert "fts_integrity" in r.stdout and "FAILED" in r.stdout
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]  # one line
    assert "full-text index is damaged" in r.stderr


@pytest.mark.slow  # kb processes in a mount namespace
@pytest.mark.skipif(not _namespaces_work(), reason="needs unshare and mount")
def test_a_damaged_index_on_read_only_media_is_an_error_on_the_cli(db, tmp_path):
    media, out = tmp_path / "media", tmp_path / "out"
    media.mkdir()
    out.mkdir()
    db = Path(shutil.copy(db, media / "kb.db"))  # closed cleanly: no -wal to take along
    _damage(db, DAMAGE["leaf pages zeroed"])  # the worst kind: searches silently find nothing

    def kb(*args: str) -> str:
        return shlex.join([sys.executable, "-m", "kb", "--db", str(db), "--embedder", "none",
                           *args])

    steps = [("search", kb("search", QUERY)), ("json", kb("search", QUERY, "--json")),
             ("context", kb("context", QUERY)), ("context_json", kb("context", QUERY, "--json")),
             ("status", kb("status"))]
    script = f"mount --bind {media} {media}\nmount -o remount,bind,ro {media}\nset +e\n"
    script += "".join(f"{cmd} > {out}/{name}.out 2> {out}/{name}.err; echo $? > {out}/{name}.rc\n"
                      for name, cmd in steps)
    done = _in_namespace(script)
    assert done.returncode == 0, done.stderr

    def read(name: str) -> tuple[int, str, str]:
        return (int((out / f"{name}.rc").read_text()), (out / f"{name}.out").read_text(),
                (out / f"{name}.err").read_text())

    for name in ("search", "context"):
        rc, stdout, stderr = read(name)
        assert rc == 1, (name, stdout, stderr)
        assert "does not hold" not in stdout and "not have enough information" not in stdout
        assert stderr.startswith("kb: error: search failed: the full-text index is damaged")
        assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    for name in ("json", "context_json"):
        rc, stdout, _ = read(name)
        data = json.loads(stdout)
        assert rc == 1 and data["insufficient_evidence"] is False
        error = data["error"] if name == "context_json" else data["diagnostics"]["error"]
        assert "full-text index is damaged" in json.dumps(error)
    rc, stdout, stderr = read("status")
    assert rc == 1 and "FAILED" in stdout and "full-text index is damaged" in stderr
