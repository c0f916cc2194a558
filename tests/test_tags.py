"""Front-matter tags: stored with their document, shown, and a search filter (issue 13, item 5).

Real Markdown files (YAML and TOML front matter) go through the real ingest path into real
SQLite files. A filter by tag keeps documents carrying any of the tags, compared
case-insensitively; that it is applied before the candidates are cut (k references whenever k
exist, the tagged document outside the unfiltered top 50) is ``test_filtered_fill``'s ``tags``
case. The version-5 fixture was written by kb before tags were stored
(``tests/fixtures/db/README.md``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from conftest import serving

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config, SearchOptions
from kb.server.tool import knowledge_search
from kb.store.schema import SCHEMA_VERSION
from tests.conftest import FIXTURES, write

KITES = ("---\ntitle: Box kites\ntags: [Aviation, history, AVIATION]\n---\n# Box kites\n\n"
         "Box kites were invented by Lawrence Hargrave in 1893 in Australia.\n")
BREAD = ('+++\ntags = ["Baking"]\n+++\n# Bread\n\nSourdough bread rises because wild yeast '
         "ferments the flour; kites of dough are not a thing.\n")
PLAIN = "# Kite safety\n\nNever fly box kites near power lines.\n"
NOTES = "Box kites and sourdough bread: notes without any front matter.\n"
QUERY = "box kites sourdough bread"
V5_TEXTS = {  # the files the version-5 fixture indexed
    "kites.md": "---\ntitle: Box kites\ntags: [Aviation, History]\n---\n# Box kites\n\n"
                "Box kites were invented by Lawrence Hargrave in 1893 in Australia.\n",
    "bees.txt": "Honey bees cluster in winter to keep the queen warm.\n"}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(root / "kites.md", KITES)
    write(root / "bread.md", BREAD)
    write(root / "safety.md", PLAIN)
    write(root / "notes.txt", NOTES)
    return root.resolve()


@pytest.fixture
def kb(kb_bm25: KnowledgeBase, corpus: Path) -> KnowledgeBase:
    kb_bm25.ingest([corpus])
    return kb_bm25


def names(references: Any) -> set[str]:
    return {Path(r["source"] if isinstance(r, dict) else r.source).name for r in references}


def tag_rows(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM document_tags").fetchone()[0])


def test_tags_are_stored_once_as_first_written_and_shown(kb: KnowledgeBase, corpus: Path
                                                         ) -> None:
    tags = {Path(d.source).name: d.tags for d in kb.documents()}
    assert tags == {"kites.md": ("Aviation", "history"), "bread.md": ("Baking",),
                    "safety.md": (), "notes.txt": ()}
    kites = kb.store.get_document(source=str(corpus / "kites.md"))
    assert kites is not None and kb.get_document(kites.id).document.tags == ("Aviation", "history")
    db = str(kb.store.path)
    listed = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "docs", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = [json.loads(line) for line in listed.output.splitlines()]
    assert {Path(r["source"]).name: r["tags"] for r in rows}["kites.md"] == ["Aviation", "history"]
    shown = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "show", f"doc:{kites.id}"])
    assert shown.exit_code == 0 and "tags: Aviation, history" in shown.output, shown.output


def test_a_search_keeps_documents_with_any_of_the_tags_in_any_case(kb: KnowledgeBase) -> None:
    unfiltered = kb.search(QUERY, top_k=20)
    assert names(unfiltered.references) == {"kites.md", "bread.md", "safety.md", "notes.txt"}
    assert names(kb.search(QUERY, top_k=20, tags=("HISTORY",)).references) == {"kites.md"}
    both = kb.search(QUERY, top_k=20, tags=("aviation", "baking"))
    assert names(both.references) == {"kites.md", "bread.md"}


def test_an_unknown_tag_matches_nothing_as_an_empty_scope_does(kb: KnowledgeBase) -> None:
    by_tag = kb.search(QUERY, tags=("no-such-tag",))
    by_source = kb.search(QUERY, sources=("/no/such/folder",))
    assert by_tag.references == () and by_tag.diagnostics.error is None
    assert by_tag.insufficient_evidence is by_source.insufficient_evidence is True
    assert by_tag.context == by_source.context


def test_search_options_take_tags_like_sources() -> None:
    assert SearchOptions(tags="Aviation").tags == ("Aviation",)
    assert SearchOptions(tags=["Aviation", " aviation ", "Big  kites"]).tags == (
        "Aviation", "Big kites")
    assert SearchOptions(tags=["x"]).scoped and not SearchOptions().scoped
    with pytest.raises(ValueError, match="tags must be non-empty"):
        SearchOptions(tags=["ok", "  "])
    with pytest.raises(TypeError, match="tags must be a string or a list of strings"):
        SearchOptions(tags=[1])  # type: ignore[list-item]


def test_a_changed_file_replaces_its_tags_and_a_removed_one_drops_them(kb: KnowledgeBase,
                                                                     corpus: Path) -> None:
    kites = corpus / "kites.md"
    write(kites, KITES.replace("[Aviation, history, AVIATION]", "[Toys]"))
    report = kb.ingest([corpus])
    assert [o.action for o in report.outcomes if o.path == str(kites)] == ["updated"]
    assert kb.store.get_document(source=str(kites)).tags == ("Toys",)  # type: ignore[union-attr]
    assert kb.search(QUERY, top_k=20, tags=("aviation",)).references == ()
    assert names(kb.search(QUERY, top_k=20, tags=("toys",)).references) == {"kites.md"}
    write(kites, KITES.replace("tags: [Aviation, history, AVIATION]\n", ""))
    kb.ingest([corpus])
    assert kb.store.get_document(source=str(kites)).tags == ()  # type: ignore[union-attr]
    assert tag_rows(kb.store.path) == 1  # bread.md's
    (corpus / "bread.md").unlink()
    assert "bread.md" in {Path(s).name for s in kb.ingest([corpus]).removed}
    assert tag_rows(kb.store.path) == 0


def test_the_tool_and_cli_filter_by_tag(kb: KnowledgeBase) -> None:
    data = knowledge_search(kb, {"query": QUERY, "top_k": 20, "tags": ["Baking"]})
    assert data["error"] is None and names(data["references"]) == {"bread.md"}
    for bad in ([""], "Baking", [3]):
        wrong = knowledge_search(kb, {"query": QUERY, "tags": bad})
        assert wrong["error"]["type"] == "invalid_arguments"
        assert "tags must be an array of non-empty strings" in wrong["error"]["message"]
    db = str(kb.store.path)
    found = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "search", *QUERY.split(),
                                     "-n", "20", "--tag", "HISTORY", "--tag", "baking", "--json"])
    assert found.exit_code == 0, found.output
    assert names(json.loads(found.output)["references"]) == {"kites.md", "bread.md"}
    context = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "context", "box",
                                       "kites", "--tag", "nothing-tagged-so"])
    assert context.exit_code == 0 and "No reference in the knowledge base" in context.output
    blank = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "search", "kites",
                                     "--tag", " "])
    assert blank.exit_code == 2 and "--tag must be non-empty" in blank.output


def test_http_search_filters_by_tag(kb: KnowledgeBase) -> None:
    with serving(kb) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        data = client.post("/search", json={"query": QUERY, "top_k": 20,
                                            "tags": ["aviation"]}).json()
        refused = client.post("/search", json={"query": QUERY, "tags": [""]})
        documents = client.get("/documents").json()
    assert data["error"] is None and names(data["references"]) == {"kites.md"}
    assert refused.status_code == 400
    assert {Path(d["source"]).name: d["tags"] for d in documents["documents"]}["bread.md"] == [
        "Baking"]


def test_the_mcp_tool_takes_tags_and_list_documents_shows_them(kb: KnowledgeBase) -> None:
    mcp = pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    from kb.server.mcp import build_server

    async def session() -> tuple[dict[str, Any], dict[str, Any]]:
        async with mcp.Client(build_server(kb)) as client:
            found = await client.call_tool("knowledge_search", {
                "query": QUERY, "top_k": 20, "tags": ["AVIATION", "baking"]})
            listed = await client.call_tool("list_documents", {})
            return json.loads(found.content[0].text), json.loads(listed.content[0].text)

    found, listed = anyio.run(session)
    assert found["error"] is None and names(found["references"]) == {"kites.md", "bread.md"}
    assert {Path(d["source"]).name: d["tags"] for d in listed["documents"]}["kites.md"] == [
        "Aviation", "history"]


def test_a_version_5_file_upgrades_in_place_its_documents_untagged(tmp_path: Path) -> None:
    db = tmp_path / "v5.db"
    shutil.copyfile(FIXTURES / "db" / "kb-v5-front-matter.sqlite", db)
    docs = tmp_path / "docs"
    with closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
        for doc_id, source in conn.execute("SELECT id, source FROM documents").fetchall():
            path = write(docs / Path(source).name, V5_TEXTS[Path(source).name])
            conn.execute("UPDATE documents SET source = ? WHERE id = ?", (str(path), doc_id))
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        conn = kb.store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert "document_tags_key" in {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert [(Path(d.source).name, d.tags) for d in kb.documents()] == [
            ("bees.txt", ()), ("kites.md", ())]
        assert names(kb.search("box kite inventor").references) == {"kites.md"}
        assert kb.search("box kite inventor", tags=("aviation",)).references == ()
        # the migration marks Markdown files to be read again: the next ingest records tags
        assert [o.action for o in kb.ingest([docs]).outcomes] == ["unchanged", "updated"]
        assert kb.documents()[1].tags == ("Aviation", "History")
        assert {o.action for o in kb.ingest([docs]).outcomes} == {"unchanged"}
        assert names(kb.search("box kite inventor", tags=("aviation",)).references) == {
            "kites.md"}
