"""CLI and API options: dates, empty ranges, and commands that must not create a database."""

import pytest
from click.testing import CliRunner
from conftest import write

from kb.cli import cli
from kb.config import SearchOptions


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"KB_EMBEDDER": "none"})


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "kb.db")
    write(tmp_path / "d" / "note.txt", "The lighthouse keeper lit the lamp at dusk.\n")
    assert run("--db", path, "ingest", str(tmp_path / "d")).exit_code == 0
    return path


@pytest.mark.parametrize("option", ["--after", "--before"])
def test_cli_names_its_own_option_for_a_malformed_date(db, option):
    r = run("--db", db, "search", "lamp", option, "last tuesday")
    assert r.exit_code == 2
    assert f"'{option}'" in r.output and "RFC 3339" in r.output
    assert "created_" not in r.output  # the API's field names stay out of the CLI's errors


@pytest.mark.parametrize("after, before", [("2025-01-01", "2024-01-01"),
                                           ("2024-06-01T00:00:00Z", "2024-06-01")])
def test_cli_refuses_an_empty_date_range(db, after, before):
    r = run("--db", db, "search", "lamp", "--after", after, "--before", before)
    assert r.exit_code == 2 and "--after must be earlier than --before" in r.output


def test_cli_accepts_a_real_range(db):
    r = run("--db", db, "search", "lamp", "--after", "2000-01-01", "--before", "2999-01-01")
    assert r.exit_code == 0 and "[1]" in r.output


def test_api_refuses_an_empty_range_naming_both_fields():
    with pytest.raises(ValueError, match="created_after must be earlier than created_before"):
        SearchOptions(created_after="2024-02-01T00:00:00+01:00",
                      created_before="2024-01-31T23:00:00Z")  # the same instant: empty range
    SearchOptions(created_after="2024-01-31", created_before="2024-02-01")  # one day: fine


def test_a_fraction_of_a_second_of_any_length_is_read_to_the_microsecond():
    # an interfaces trial: RFC 3339 allows any number of fraction digits; nine were refused
    options = SearchOptions(created_after="2026-12-06T07:00:00.123456789Z")
    assert options.created_after == "2026-12-06T07:00:00.123456+00:00"


@pytest.mark.parametrize("value", ["20260101", "2026-01-31T0800", "2026-W05", "2026-01-31 8:00",
                                   "2026-01-31T08:00:00.Z"])
def test_cli_api_and_tool_share_one_strict_rfc3339_parser(value):
    from kb.server.arguments import parse_search_arguments

    with pytest.raises(ValueError, match="created_after must be an RFC 3339"):
        SearchOptions(created_after=value)
    with pytest.raises(ValueError, match="created_after must be an RFC 3339"):
        parse_search_arguments({"query": "q", "created_after": value})


@pytest.mark.parametrize("argv", [["search", "lamp"], ["context", "lamp"], ["docs"],
                                  ["rm", "1"], ["reembed"], ["status"]])
def test_commands_that_only_read_refuse_a_missing_database(tmp_path, argv):
    db = tmp_path / "elsewhere" / "kb.db"
    r = run("--db", str(db), *argv)
    assert r.exit_code == 1 and "no knowledge base here" in r.output
    assert not db.exists() and not db.parent.exists()  # nothing created on the way


@pytest.mark.parametrize(("command", "given"), [("ingest", ["typo"]),
                                                ("sync", ["real", "typo"]),
                                                ("ingest", ["typo", "typo2", "typo"])])
def test_a_mistyped_path_creates_no_index(tmp_path, command, given):
    db = tmp_path / "new" / "kb.db"
    write(tmp_path / "real" / "a.txt", "The lighthouse keeper logs the lamp.")
    r = run("--db", str(db), command, *(str(tmp_path / g) for g in given))
    assert r.exit_code == 1 and "typo: no such file or folder" in r.output
    assert not db.exists() and not db.parent.exists()  # nothing created, nothing half-read
    # each mistyped path is named, once (a new-user trial: only the first was), five at most
    assert r.output.count("no such file or folder") == len({g for g in given if "typo" in g})


def test_many_mistyped_paths_are_one_line_naming_five(tmp_path):
    r = run("--db", str(tmp_path / "kb.db"), "sync", *(str(tmp_path / f"t{i}") for i in range(9)))
    assert r.exit_code == 1 and r.output.count("\n") == 1, r.output
    assert r.output.count("no such file or folder") == 5 and r.output.endswith("; and 4 more\n")


def test_ingest_indexes_the_paths_that_exist_and_fails_a_mistyped_one(tmp_path):
    """A trial: one missing path among several stopped the whole ingest (kb rm goes on)."""
    db = tmp_path / "kb.db"
    write(tmp_path / "real" / "a.txt", "The lighthouse keeper logs the lamp.")
    r = run("--db", str(db), "ingest", str(tmp_path / "typo.md"), str(tmp_path / "real"))
    assert r.exit_code == 1
    assert f"FAILED   {tmp_path / 'typo.md'}: no such file or folder" in r.output
    assert "1 added, 0 updated, 0 unchanged, 0 skipped, 1 failed" in r.output
    assert "lighthouse" in run("--db", str(db), "search", "lighthouse keeper").output


def test_a_corrupt_database_is_one_clear_line(tmp_path):
    for i in range(30):
        write(tmp_path / "d" / f"n{i}.txt", f"Note {i}: the lighthouse keeper logs the lamp. "
              + "x" * 2000)
    db = tmp_path / "kb.db"
    assert run("--db", str(db), "ingest", str(tmp_path / "d")).exit_code == 0
    with db.open("r+b") as f:  # overwrite a page in the middle of the file
        f.seek(4096 * 5)
        f.write(b"\xff" * 3000)
    r = run("--db", str(db), "search", "lamp")
    assert r.exit_code == 1 and r.output.count("\n") == 1
    assert "the database is corrupt" in r.output and "restore a backup" in r.output


@pytest.mark.parametrize("argv", [["serve", "--port", "0"], ["mcp"]])
def test_a_server_that_cannot_ingest_refuses_a_missing_database(tmp_path, argv):
    db = tmp_path / "typo.db"
    r = run("--db", str(db), *argv)
    assert r.exit_code == 1 and "no knowledge base here" in r.output and not db.exists()


def test_the_ragas_judge_backend_needs_an_llm(tmp_path):
    r = run("eval", "--set", "precision", "--judge-backend", "ragas")
    assert r.exit_code != 0 and "--judge-backend ragas needs --llm" in r.output


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path):
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    before = other.read_bytes()
    write(tmp_path / "d" / "a.txt", "The lighthouse keeper lit the lamp.")
    for argv in (["search", "lamp"], ["ingest", str(tmp_path / "d")]):
        r = run("--db", str(other), *argv)
        assert r.exit_code == 1 and "not a kb database" in r.output and "users" in r.output
        assert r.output.count("\n") == 1
    assert other.read_bytes() == before  # no kb table, no WAL switch


def test_a_new_index_goes_only_into_a_folder_that_exists(tmp_path):
    write(tmp_path / "real.txt", "The lighthouse keeper logs the lamp.")
    db = tmp_path / "no" / "such" / "kb.db"
    r = run("--db", str(db), "ingest", str(tmp_path / "real.txt"))
    assert r.exit_code == 1
    assert f"the folder {db.parent} does not exist; create it first" in r.output
    assert not (tmp_path / "no").exists()  # a mistyped --db makes no folders
    db.parent.mkdir(parents=True)
    assert run("--db", str(db), "ingest", str(tmp_path / "real.txt")).exit_code == 0
    kb_db = tmp_path / "typo" / "kb.db"  # the same through KB_DB
    r = CliRunner().invoke(cli, ["ingest", str(tmp_path / "real.txt")],
                           env={"KB_EMBEDDER": "none", "KB_DB": str(kb_db)})
    assert r.exit_code == 1 and "does not exist; create it first" in r.output
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("argv", [["status"], ["docs"], ["search", "kites"]])
def test_a_read_command_writes_nothing_into_an_empty_file(tmp_path, argv):
    """A trial: `: > zero.db; kb --db zero.db status` wrote a whole schema into the file."""
    db = tmp_path / "zero.db"
    db.write_bytes(b"")
    r = run("--db", str(db), *argv)
    assert r.exit_code == 1 and "the file is empty, no kb index" in r.output
    assert db.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["zero.db"]
    note = write(tmp_path / "k.md", "Kites fly.")
    assert run("--db", str(db), "ingest", str(note)).exit_code == 0  # ingest makes it one
