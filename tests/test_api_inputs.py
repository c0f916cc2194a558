"""The Python API takes one path as one path, and names a wrong type in its error."""

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config, SearchOptions
from kb.errors import StoreError


def test_ingest_and_sync_take_one_path_as_a_str_or_a_pathlike(tmp_path, kb_bm25, monkeypatch):
    folder = tmp_path / "notes"
    note = write(folder / "kites.md", "# Box kites\n\nHargrave invented the box kite.\n")
    monkeypatch.chdir(tmp_path)  # the README's `kb.ingest("notes")`, relative to the cwd
    report = kb_bm25.ingest("notes")
    assert report.count("added") == 1
    assert kb_bm25.ingest(folder).count("unchanged") == 1
    assert kb_bm25.sync(str(folder)).count("unchanged") == 1
    assert [d.source for d in kb_bm25.documents()] == [str(note.resolve())]


@pytest.mark.parametrize(("paths", "message"), [
    (None, "paths must be a path (str or os.PathLike) or a list of paths, got None"),
    (7, "paths must be a path (str or os.PathLike) or a list of paths, got int"),
    (b"notes", "paths must be a path (str or os.PathLike) or a list of paths, got bytes"),
    (["notes", None], "paths[1] must be a str or os.PathLike, got None"),
])
def test_ingest_names_a_wrong_type(kb_bm25, paths, message):
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        kb_bm25.ingest(paths)


@pytest.mark.parametrize(("query", "message"), [
    (None, "query must be a string, got None"),
    (42, "query must be a string, got int"),
    (b"kites", "query must be a string, got bytes (decode it first)"),
    (["kites"], "query must be a string, got list"),
])
def test_search_names_a_query_of_the_wrong_type(kb_bm25, query, message):
    for call in (kb_bm25.search, kb_bm25.context):
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            call(query)


def test_search_names_wrong_options(kb_bm25):
    with pytest.raises(TypeError, match="options must be a kb.config.SearchOptions, got int"):
        kb_bm25.search("kites", 5)
    with pytest.raises(TypeError, match="not both .got options and top_k"):
        kb_bm25.search("kites", SearchOptions(), top_k=3)
    with pytest.raises(TypeError, match="^top_k must be an integer, got str$"):
        kb_bm25.search("kites", top_k="3")
    with pytest.raises(TypeError, match="^sources must be a string or a list of strings"):
        kb_bm25.search("kites", sources=[None])


def test_one_string_is_one_source_and_one_type(tmp_path, kb_bm25):
    write(tmp_path / "a" / "kites.md", "# Box kites\n\nHargrave invented the box kite.\n")
    write(tmp_path / "b" / "kites.txt", "Box kites fly in steady wind, said Hargrave.")
    kb_bm25.ingest([tmp_path / "a", tmp_path / "b"])
    assert SearchOptions(sources="/x", source_types="md").sources == ("/x",)
    result = kb_bm25.search("box kites", source_types="md", top_k=5)
    assert [r.source_type for r in result.references] == ["md"]
    result = kb_bm25.search("box kites", sources=str((tmp_path / "b").resolve()), top_k=5)
    assert [r.source_type for r in result.references] == ["txt"]


def test_a_folder_source_keeps_what_lies_under_it_not_a_sibling_sharing_its_name(
        tmp_path, kb_bm25):
    # an interfaces trial: sources=[".../notes"] handed out ".../notes-private/payroll.md"
    notes = write(tmp_path / "notes" / "kites.md", "# Box kites\n\nThe kite salary is low.\n")
    write(tmp_path / "notes-private" / "payroll.md", "# Payroll\n\nThe CEO salary is high.\n")
    kb_bm25.ingest([tmp_path / "notes", tmp_path / "notes-private"])
    folder = str((tmp_path / "notes").resolve())
    for scope in (folder, folder + "/", str(notes.resolve())):
        result = kb_bm25.search("salary", sources=scope, top_k=5)
        assert {r.source for r in result.references} == {str(notes.resolve())}, scope
    result = kb_bm25.search("salary", sources=str(tmp_path.resolve()), top_k=5)
    assert len({r.source for r in result.references}) == 2  # the parent holds both
    result = kb_bm25.search("salary", sources=folder[:-1], top_k=5)  # ".../note": no folder
    assert result.references == () or list(result.references) == []
    assert result.diagnostics.notes == (f"no document's source is or lies under {folder[:-1]!r}",)


def test_a_relative_source_is_a_caller_mistake(kb_bm25):
    # an interfaces trial: kb.search(q, sources=("notes",)) said only "no evidence", while
    # the tool and HTTP refused it; a document's source is its absolute path
    for call in (lambda: kb_bm25.search("kites", sources=("notes",)),
                 lambda: SearchOptions(sources=["/notes", "notes/kites.md"])):
        with pytest.raises(ValueError, match="^sources must be absolute paths or URIs .*"
                                             "got 'notes"):
            call()
    assert SearchOptions(sources=("/notes", "C:\\notes", "\\\\host\\share",
                                  "https://example.org/a")).sources[3] == "https://example.org/a"


def test_a_windows_folder_keeps_what_lies_under_it():
    # a review: appending "/" to C:\notes kept only the file named C:\notes itself
    from kb.types import folder_prefix

    assert folder_prefix("C:\\notes") == "C:\\notes\\"
    assert folder_prefix("\\\\host\\share\\") == "\\\\host\\share\\"
    assert folder_prefix("/notes") == "/notes/" and folder_prefix("/notes/") == "/notes/"
    assert folder_prefix("https://example.org/docs") == "https://example.org/docs/"


def test_misuse_of_the_api_is_named_not_an_internal_error(tmp_path):
    # a new-user trial: each of these was an AttributeError or sqlite3's ProgrammingError
    with pytest.raises(TypeError, match=r"^config must be a kb.config.Config, got dict"):
        KnowledgeBase(tmp_path / "a.db", config={"embedder": "none"})
    with pytest.raises(ValueError, match="^path is empty"):
        KnowledgeBase("")
    kb = KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"))
    write(tmp_path / "notes" / "kites.md", "# Box kites\n\nHargrave invented the box kite.\n")
    kb.ingest(tmp_path / "notes")
    with pytest.raises(TypeError, match=r"^ref must be a str \(an id or a source\), got None$"):
        kb.remove(None)
    # a Path names a source, as ingest takes it (a review)
    assert kb.find_document(tmp_path / "notes" / "kites.md").title == "Box kites"
    kb.close()
    for call in (lambda: kb.search("kites"), kb.documents, kb.status,
                 lambda: kb.ingest(tmp_path / "notes"), lambda: kb.remove("1")):
        with pytest.raises(StoreError, match="this knowledge base is closed"):
            call()
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as again:
        assert len(again.documents()) == 1  # nothing lost


def test_a_date_filter_takes_a_datetime_or_a_date(kb_bm25):
    aware = datetime(2020, 1, 1, 8, tzinfo=timezone(timedelta(hours=2)))
    assert SearchOptions(created_after=aware).created_after == "2020-01-01T08:00:00+02:00"
    # naive: local time, as Python reads datetime.now() (a review: UTC put a UTC+10 user's
    # filter ten hours off)
    naive = datetime(2020, 1, 1)
    assert SearchOptions(created_after=naive).created_after == naive.astimezone().isoformat()
    assert SearchOptions(created_before=date(2021, 3, 4)).created_before == (
        "2021-03-04T00:00:00+00:00")
    assert not kb_bm25.search("kites", created_after=date(2020, 1, 1)).diagnostics.error
    with pytest.raises(TypeError, match="^created_after must be an RFC 3339 string, a datetime "
                                        "or a date, got int$"):
        SearchOptions(created_after=2020)
    with pytest.raises(ValueError, match="must be earlier"):
        SearchOptions(created_after=date(2021, 1, 1), created_before=date(2020, 1, 1))


def test_closing_while_other_threads_search_stops_them_with_a_clear_error(tmp_path):
    # a review: close() closed other threads' connections under their running queries (a
    # segfault), and a thread could open a reader after close() and read on
    import threading

    for i in range(12):
        write(tmp_path / "notes" / f"n{i}.md", f"# Note {i}\n\nKites fly over dune {i}.\n")
    kb = KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"))
    kb.ingest(tmp_path / "notes")
    started = threading.Barrier(4)
    errors: list[BaseException] = []

    def search_until_closed() -> None:
        kb.search("kites dune")
        started.wait()
        try:
            while True:
                kb.search("kites dune")
                kb.documents()
        except BaseException as exc:  # noqa: BLE001 - the test reads what stopped it
            errors.append(exc)

    threads = [threading.Thread(target=search_until_closed) for _ in range(3)]
    for t in threads:
        t.start()
    started.wait()
    kb.close()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert len(errors) == 3 and all(isinstance(e, StoreError) for e in errors), errors
    assert all(str(e) == f"{tmp_path / 'kb.db'}: this knowledge base is closed (open the file "
               "again to use it)" for e in errors)
