"""A home for the index: the default collection, named collections, a project's .kb/, --db.

Every test runs the real ``kb`` command (click's runner) on real files in tmp folders; the
user's data and config folders are tmp folders too (conftest: XDG_DATA_HOME,
XDG_CONFIG_HOME), and each test gets fresh ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import write

from kb.cli import cli

KITES = "# Kites\n\nBox kites were invented by Lawrence Hargrave in 1893.\n"
FERRIES = "# Ferries\n\nThe harbour ferries cross the bay every twenty minutes.\n"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fresh user data and config folders; the current folder a plain one under tmp."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("KB_EMBEDDER", "none")
    for name in ("KB_DB", "KB_COLLECTION", "KB_LLM", "KB_HELPER_TIMEOUT_S", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return tmp_path


def kb(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def sources(*args: str) -> list[str]:
    r = kb(*args, "--json")
    assert r.exit_code == 0, r.output
    return [ref["source"] for ref in json.loads(r.output)["references"]]


def test_an_index_ingested_from_one_folder_is_searched_from_another(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = write(home / "notes" / "kites.md", KITES)
    monkeypatch.chdir(home / "notes")
    assert kb("ingest", ".").exit_code == 0
    monkeypatch.chdir(home / "elsewhere")
    assert sources("search", "who", "invented", "box", "kites") == [str(doc)]
    index = home / "data" / "kb" / "collections" / "default.db"
    assert index.is_file() and not (home / "notes" / "kb.db").exists()
    status = json.loads(kb("status", "--json").output)
    assert status["path"] == str(index) and status["documents"] == 1


def test_two_collections_stay_apart(home: Path) -> None:
    kites = write(home / "a" / "kites.md", KITES)
    ferries = write(home / "b" / "ferries.md", FERRIES)
    assert kb("--collection", "work", "ingest", str(kites.parent)).exit_code == 0
    assert kb("ingest", str(ferries.parent), "--collection", "home").exit_code == 0
    assert sources("--collection", "work", "search", "box kites", "-n", "5") == [str(kites)]
    assert sources("search", "box kites", "-n", "5", "--collection", "home") == []
    assert sources("search", "bay ferries", "-n", "5", "--collection", "home") == [str(ferries)]
    assert sources("--collection", "work", "search", "bay ferries", "-n", "5") == []
    r = kb("collections", "--json")
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert [row["name"] for row in rows] == ["home", "work"]
    assert not any(row["in_use"] for row in rows)  # the default collection is in use
    assert kb("collections", "path", "work").output.strip() == rows[1]["path"]
    lock = Path(rows[1]["path"] + ".embed-lock")  # left by an ingest that embedded
    lock.touch()
    r = kb("collections", "remove", "work", "--yes")
    assert r.exit_code == 0 and not Path(rows[1]["path"]).exists() and not lock.exists()
    r = kb("--collection", "work", "search", "box kites")
    assert r.exit_code == 1 and "no knowledge base here (--collection work)" in r.output


def test_collections_create_refuses_a_bad_or_taken_name() -> None:
    r = kb("collections")  # none yet: said, not an empty screen
    assert r.exit_code == 0 and "no collections yet" in r.stderr and r.stdout == ""
    assert kb("collections", "--json").stdout == ""  # JSON lines: none is no line
    assert kb("collections", "create", "papers").exit_code == 0
    r = kb("collections", "create", "papers")
    assert r.exit_code == 1 and "exists" in r.output
    r = kb("collections", "create", "../escape")
    assert r.exit_code == 2 and "collection name '../escape'" in r.output
    r = kb("collections", "remove", "nothing", "--yes")
    assert r.exit_code == 1 and "no collection 'nothing'" in r.output
    r = CliRunner().invoke(cli, ["collections", "remove", "papers"], input="n\n")
    assert r.exit_code == 1 and "Aborted" in r.output
    assert kb("collections", "path", "papers").output.strip().endswith("papers.db")
    assert Path(kb("collections", "path", "papers").output.strip()).is_file()


def test_a_project_index_is_found_from_its_subfolders_and_wins(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = home / "project"
    (project / ".kb").mkdir(parents=True)
    doc = write(project / "docs" / "kites.md", KITES)
    write(home / "other" / "ferries.md", FERRIES)
    assert kb("ingest", str(home / "other")).exit_code == 0  # the default collection
    monkeypatch.chdir(project / "docs")
    assert kb("ingest", ".").exit_code == 0
    assert (project / ".kb" / "kb.db").is_file()
    (project / "docs" / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(project / "docs" / "deep" / "er")
    assert sources("search", "box kites", "-n", "5") == [str(doc)]
    r = kb("config", "--json")
    assert json.loads(r.output)["index"]["origin"] == f"project {project / '.kb'}"
    # an explicit choice wins over the project
    assert "ferries.md" in sources("search", "ferries", "--collection", "default")[0]


def test_db_still_works_relative_paths_become_absolute(home: Path) -> None:
    write(home / "elsewhere" / "d" / "kites.md", KITES)
    assert kb("--db", "mine.db", "ingest", "d").exit_code == 0
    status = json.loads(kb("status", "--db", "mine.db", "--json").output)
    assert status["path"] == str(home / "elsewhere" / "mine.db")
    r = kb("status", "--db", "mine.db")
    assert f"path                     {home / 'elsewhere' / 'mine.db'}" in r.output
    r = kb("--db", "x.db", "--collection", "c", "status")
    assert r.exit_code == 2 and "--db and --collection both name an index" in r.output


def test_a_missing_index_names_the_file_and_an_old_local_kb_db(home: Path) -> None:
    write(home / "elsewhere" / "kb.db", "")
    r = kb("search", "kites")
    assert r.exit_code == 1
    default = home / "data" / "kb" / "collections" / "default.db"
    assert r.output == (f"kb: error: {default}: no knowledge base here (collection default); "
                        "run `kb ingest PATH` first, or pass --db PATH / --collection NAME; "
                        "kb.db here is an index: pass --db kb.db\n")
    # a path the user named: a typo, or an index not made yet (a trial: "pass --db kb.db"
    # read as if --db had not been given)
    missing = home / "no such" / "kb.db"
    r = kb("--db", str(missing), "search", "kites")
    assert r.exit_code == 1
    assert r.output == (f"kb: error: {missing}: no knowledge base here (--db); check the path, "
                        f"or make it with `kb --db '{missing}' ingest PATH`; kb.db in this "
                        "folder is an index (--db kb.db)\n")
