"""A server's fixed scope (kb.scoped): ``kb serve`` / ``kb mcp`` with --source, --type, --tag.

Real SQLite files, real HTTP on loopback, the MCP SDK's in-process client; BM25 only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from conftest import serving

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config, SearchOptions
from kb.errors import ChunkNotFound, DocumentNotFound
from kb.retrieve.scope import OUT_OF_SCOPE_NOTE, scope
from kb.scoped import DocumentScope, ScopedKnowledgeBase
from kb.server.roots import check_ingest_roots
from tests.conftest import write


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """``public/`` (a tagged Markdown note, a text note) and ``private/`` (one note)."""
    write(tmp_path / "public" / "kites.md", "---\ntags: [Shared]\n---\n# Box kites\n\n"
          "Box kites were invented by Lawrence Hargrave in 1893.\n")
    write(tmp_path / "public" / "bread.txt", "Sourdough rises because wild yeast ferments "
          "the flour.\n")
    write(tmp_path / "private" / "salaries.md", "# Salaries\n\nThe box kite team's salaries "
          "rose by 4 percent in 2024; Hargrave Ltd pays its kite designers 70,000 euros.\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "public", tmp_path / "private"])
    return tmp_path


def scoped(root: Path, **scope: Any) -> ScopedKnowledgeBase:
    return ScopedKnowledgeBase(root / "kb.db", Config(embedder="none"),
                               scope=DocumentScope(**scope))


def sources(result: Any) -> set[str]:
    return {Path(r.source).name for r in result.references}


def test_search_sees_only_the_scope_and_caller_filters_narrow_it(folders: Path) -> None:
    with KnowledgeBase(folders / "kb.db", Config(embedder="none")) as whole:
        assert "salaries.md" in sources(whole.search("box kite salaries", top_k=5))
    with scoped(folders, sources=(f"{folders / 'public'}/",)) as kb:
        assert "salaries.md" not in sources(kb.search("box kite salaries", top_k=5))
        found = sources(kb.search("who invented box kites", top_k=5))
        assert "kites.md" in found and found <= {"kites.md", "bread.txt"}
        # a caller's own source outside the scope widens nothing: nothing is found
        outside = kb.search("salaries", top_k=5, sources=str(folders / "private"))
        assert outside.references == ()
        assert outside.diagnostics.notes == (
            f"no document's source is or lies under '{folders / 'private'}'",)
        # ... and one inside narrows it
        inside = kb.search("box kites sourdough", top_k=5, source_types="txt")
        assert sources(inside) == {"bread.txt"}


def test_the_judge_tells_nothing_of_words_written_only_outside(tmp_path: Path) -> None:
    # a review: the unknown-name check counted the whole index, so a question naming a word
    # written only in a hidden document passed where one naming a word written nowhere failed
    write(tmp_path / "public" / "handbook.md", "# Handbook\n\nOffice hours are 9:00 to 17:00. "
          "The cafeteria serves lunch from 12:00.\n")
    write(tmp_path / "private" / "secret.md", "Only the CFO Marta Quill may open the vault.\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "public", tmp_path / "private"])
    with scoped(tmp_path, sources=(f"{tmp_path / 'public'}/",)) as kb:
        seen = {name: kb.search(f"When does {name} serve lunch in the cafeteria?")
                for name in ("Quill", "Quibble")}
    # the same decision (the percentages may differ: term statistics are the whole index's,
    # as the README says)
    assert seen["Quill"].insufficient_evidence == seen["Quibble"].insufficient_evidence


def test_tag_and_type_scopes(folders: Path) -> None:
    with scoped(folders, tags=("shared",)) as kb:  # any case
        assert [Path(d.source).name for d in kb.documents()] == ["kites.md"]
        assert sources(kb.search("sourdough yeast flour", top_k=5)) == set()
    with scoped(folders, source_types=("md",)) as kb:
        assert {Path(d.source).name for d in kb.documents()} == {"kites.md", "salaries.md"}
        # a tag only a document outside the scope could carry is carried by none in it
        result = kb.search("sourdough", tags="nothing-here")
        assert result.diagnostics.notes == ("no document carries tag 'nothing-here'",)


def test_reads_outside_the_scope_are_not_found(folders: Path) -> None:
    with KnowledgeBase(folders / "kb.db", Config(embedder="none")) as whole:
        private = next(d for d in whole.documents() if d.source.endswith("salaries.md"))
        chunk_id = whole.search("salaries", top_k=1).references[0].chunk_id
        public = next(d for d in whole.documents() if d.source.endswith("kites.md"))
    with scoped(folders, sources=(f"{folders / 'public'}/",)) as kb:
        with pytest.raises(DocumentNotFound):
            kb.get_document(private.id)
        with pytest.raises(DocumentNotFound):
            kb.find_document(private.source)
        with pytest.raises(ChunkNotFound):
            kb.get_chunk(chunk_id)
        assert kb.get_document(public.id).document.id == public.id
        assert kb.find_document(str(public.id)).source == public.source
        assert kb.remove_under(str(folders / "private")) == []  # removes nothing it cannot see
    with KnowledgeBase(folders / "kb.db", Config(embedder="none")) as whole:
        assert len(whole.documents()) == 3


def test_the_scope_is_read_at_each_call(folders: Path) -> None:
    with scoped(folders, sources=(f"{folders / 'public'}/",)) as kb:
        assert len(kb.documents()) == 2
        write(folders / "public" / "tea.md", "# Tea\n\nOolong is partly oxidised.\n")
        kb.ingest([folders / "public"])
        assert len(kb.documents()) == 3
        assert sources(kb.search("oolong oxidised", top_k=3)) == {"tea.md"}


def test_an_empty_scope_says_so(folders: Path) -> None:
    with scoped(folders, sources=(str(folders / "nowhere"),)) as kb:
        result = kb.search("box kites")
        assert result.references == () and result.insufficient_evidence
        assert result.diagnostics.notes == (OUT_OF_SCOPE_NOTE,)


def test_doc_ids_option_checked_and_intersected_with_dates() -> None:
    with pytest.raises(TypeError, match="doc_ids"):
        SearchOptions(doc_ids=("1",))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="doc_ids"):
        SearchOptions(doc_ids=(True,))
    with pytest.raises(ValueError, match="doc_ids"):
        SearchOptions(doc_ids=[0])  # type: ignore[arg-type]
    assert SearchOptions(doc_ids=[3, 1, 3]).doc_ids == (1, 3)  # type: ignore[arg-type]
    assert SearchOptions(doc_ids=()).scoped
    created = {1: datetime(2020, 1, 1, tzinfo=UTC), 2: datetime(2022, 1, 1, tzinfo=UTC),
               3: datetime(2023, 1, 1, tzinfo=UTC)}
    assert scope(SearchOptions(doc_ids=(1, 2)), created).doc_ids == (1, 2)
    # after 2021: documents 2 and 3; within doc_ids 1 and 2: only 2
    assert scope(SearchOptions(doc_ids=(1, 2), created_after="2021-01-01T00:00:00Z"),
                 created).doc_ids == (2,)
    assert scope(SearchOptions(), created).doc_ids is None


def test_scope_values_are_checked() -> None:
    with pytest.raises(ValueError, match="source_types"):
        DocumentScope(source_types=("exe",))
    with pytest.raises(ValueError, match="absolute"):
        DocumentScope(sources=("notes",))
    assert not DocumentScope().active and DocumentScope().describe() == "the whole index"
    assert DocumentScope(tags=("A", "a")).describe() == "tags A"


@pytest.fixture
def client(folders: Path) -> Iterator[httpx.Client]:
    with scoped(folders, sources=(f"{folders / 'public'}/",)) as kb, serving(kb) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as c:
        yield c


def test_http_server_hands_out_only_the_scope(client: httpx.Client, folders: Path) -> None:
    docs = client.get("/documents").json()["documents"]
    assert {Path(d["source"]).name for d in docs} == {"kites.md", "bread.txt"}
    r = client.post("/search", json={"query": "box kite salaries", "top_k": 5})
    assert r.status_code == 200
    assert all("public" in ref["source"] for ref in r.json()["references"])
    with KnowledgeBase(folders / "kb.db", Config(embedder="none")) as whole:
        private = next(d for d in whole.documents() if d.source.endswith("salaries.md"))
        chunk_id = whole.search("salaries", top_k=1).references[0].chunk_id
    assert client.get(f"/documents/{private.id}").status_code == 404
    r = client.get(f"/chunks/{chunk_id}")
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found"


def test_mcp_tools_see_only_the_scope(folders: Path) -> None:
    mcp = pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    from kb.server.mcp import build_server

    with scoped(folders, tags=("shared",)) as kb:
        async def session() -> tuple[Any, Any, list[str]]:
            async with mcp.Client(build_server(kb)) as c:
                found = await c.call_tool("knowledge_search", {"query": "sourdough yeast",
                                                               "top_k": 5})
                listed = await c.call_tool("list_documents", {})
                resources = [str(r.uri) for r in (await c.list_resources()).resources]
                return (json.loads(found.content[0].text), json.loads(listed.content[0].text),
                        resources)

        found, listed, resources = anyio.run(session)
    assert found["references"] == []
    assert [Path(d["source"]).name for d in listed["documents"]] == ["kites.md"]
    assert len(resources) == 1


def test_cli_refuses_a_bad_scope_before_serving(folders: Path) -> None:
    r = CliRunner().invoke(cli, ["--db", str(folders / "kb.db"), "--embedder", "none", "serve",
                                 "--type", "exe", "--port", "0"])
    assert r.exit_code == 2 and "'exe' is not one of 'txt', 'md', 'html', 'pdf', 'docx'" in r.output
    # a file's suffix is read as its type (a review: --type .pdf had been served before)
    r = CliRunner().invoke(cli, ["--db", str(folders / "kb.db"), "--embedder", "none", "search",
                                 "--type", ".MD", "--json", "kites"])
    assert r.exit_code == 0, r.output


def test_ingest_roots_must_lie_inside_the_scope(folders: Path) -> None:
    # a review: an ingest report names the files it read and quotes their warnings (a front
    # matter value), so a root outside the scope showed callers what lies outside it
    public, private = folders / "public", folders / "private"
    scope = DocumentScope(sources=(f"{public}/",))
    check_ingest_roots(scope, [public])
    check_ingest_roots(scope, [public / "sub"])
    check_ingest_roots(DocumentScope(), [private])  # no scope: any root
    with pytest.raises(ValueError, match="lies outside every --source"):
        check_ingest_roots(scope, [private])
    with pytest.raises(ValueError, match="lies outside every --source"):
        check_ingest_roots(DocumentScope(sources=(str(public),)), [folders / "public-2"])
    with pytest.raises(ValueError, match="--root with --type or --tag"):
        check_ingest_roots(DocumentScope(tags=("shared",)), [public])
    r = CliRunner().invoke(cli, ["--db", str(folders / "kb.db"), "--embedder", "none", "serve",
                                 "--source", str(public), "--root", str(private), "--port", "0"])
    assert r.exit_code == 2 and "lies outside every --source" in r.output, r.output
