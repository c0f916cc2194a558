"""Ignore rules for folder walks (issue 13, item 4): .gitignore, .kbignore, built-in excludes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import write

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.ingest.changes import plan_changes
from kb.ingest.extract import SUPPORTED_SUFFIXES
from kb.ingest.ignore import IgnoreRules

NOTE = "# Note\n\nPelicans fish in the estuary at dawn.\n"


def _tree(root: Path) -> None:
    write(root / "keep.md", NOTE)
    write(root / ".gitignore", "secret.md\ndrafts/\n*.log.md\n")
    write(root / "secret.md", NOTE)
    write(root / "drafts" / "a.md", NOTE)
    write(root / "sub" / "run.log.md", NOTE)
    write(root / "sub" / ".gitignore", "!run.log.md\nlocal.md\n")  # deeper file overrides
    write(root / "sub" / "local.md", NOTE)
    write(root / "sub" / ".kbignore", "private/\n")
    write(root / "sub" / "private" / "p.md", NOTE)
    write(root / "node_modules" / "pkg" / "README.md", NOTE)
    write(root / "env" / "pyvenv.cfg", "home = /usr/bin\n")
    write(root / "env" / "lib" / "site.md", NOTE)
    write(root / "__pycache__" / "x.md", NOTE)
    write(root / ".hidden.md", NOTE)
    write(root / "notes.org", "* Pelicans\n")


def _sources(kb: KnowledgeBase, root: Path) -> set[str]:
    return {str(Path(d.source).relative_to(root)) for d in kb.documents()}


def test_ignored_files_are_never_indexed_and_counted_by_reason(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    _tree(root)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        report = kb.ingest([root])
        assert _sources(kb, root) == {"keep.md", "sub/run.log.md"}
    assert dict(report.ignored) == {
        ".gitignore": 3,  # secret.md, drafts/ (once, never entered), sub/local.md
        ".kbignore": 1, "built-in exclude": 2, "virtualenv": 1,
        "hidden": 4,  # .hidden.md and the three ignore files
        "unsupported type .org": 1}


def test_extra_patterns_are_relative_to_the_folder_walked(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    write(root / "a.md", NOTE)
    write(root / "archive" / "b.md", NOTE)
    write(root / "c.txt", "Cormorants dry their wings.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        report = kb.ingest([root], ignore=("/archive/", "*.txt"))
        assert _sources(kb, root) == {"a.md"}
    assert dict(report.ignored) == {"ignore pattern": 2}


def test_a_gitignore_above_the_folder_counts_inside_its_repository(tmp_path: Path) -> None:
    repo = (tmp_path / "repo").resolve()
    (repo / ".git").mkdir(parents=True)
    write(repo / ".gitignore", "docs/generated/\n")
    write(repo / "docs" / "guide.md", NOTE)
    write(repo / "docs" / "generated" / "api.md", NOTE)
    rules = IgnoreRules(repo / "docs")
    assert rules.reason_under(repo / "docs" / "generated" / "api.md") == ".gitignore"
    assert rules.reason_under(repo / "docs" / "guide.md") is None
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([repo / "docs"])
        assert _sources(kb, repo) == {"docs/guide.md"}


def test_a_file_given_directly_is_read_whatever_the_rules(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    _tree(root)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        report = kb.ingest([root / "secret.md"])
        assert report.count("added") == 1 and not report.ignored


def test_the_cli_summary_says_what_was_ignored_and_why(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    _tree(root)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                 "sync", str(root)])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("IGNORED"))
    # what a user may have expected indexed, by reason; the routine exclusions (the 3 ignore
    # files and .hidden.md, node_modules, __pycache__, the virtualenv) as one number after
    assert line == ("IGNORED  5 entries: 3 .gitignore, 1 unsupported type .org, 1 .kbignore; "
                    "and 7 routine (hidden entries, .git, node_modules, virtualenvs ...)"), line
    assert "2 chunks written, vectors off (embedder none, BM25 only)" in r.output


def test_watch_changes_are_filtered_by_the_same_rules(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    _tree(root)
    changes = [("modified", root / "keep.md"), ("added", root / "secret.md"),
               ("added", root / "node_modules" / "pkg" / "README.md"),
               ("modified", root / "notes.org"), ("deleted", root / "gone.md"),
               ("added", root / "kb.db-wal")]
    plan = plan_changes(changes, [root], SUPPORTED_SUFFIXES)  # type: ignore[arg-type]
    assert plan.ingest == (root / "keep.md",) and plan.remove == (root / "gone.md",)
    assert not plan.resync
    assert plan_changes([("modified", root / "sub" / ".kbignore")], [root],
                        SUPPORTED_SUFFIXES).resync
    assert plan_changes([("added", root / "drafts")], [root], SUPPORTED_SUFFIXES) == type(plan)()
    write(root / "new" / "x.md", NOTE)
    assert plan_changes([("added", root / "new")], [root], SUPPORTED_SUFFIXES).resync


def test_documents_a_rule_now_leaves_out_are_removed(tmp_path: Path) -> None:
    root = (tmp_path / "notes").resolve()
    write(root / "a.md", NOTE)
    write(root / "node_modules" / "pkg" / "README.md", NOTE)
    write(root / "old" / "b.md", NOTE)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([root / "node_modules" / "pkg" / "README.md", root / "a.md", root / "old"])
        assert len(kb.documents()) == 3  # given by name: read whatever the rules
        write(root / ".kbignore", "old/\n")
        report = kb.sync([root])
        assert _sources(kb, root) == {"a.md"}
    assert sorted(report.removed) == [str(root / "node_modules" / "pkg" / "README.md"),
                                      str(root / "old" / "b.md")]


def test_ignore_patterns_of_the_config_file_keep_files_out(tmp_path, monkeypatch):
    """`[ingest] ignore = [...]` in a project's .kb/config.toml reaches every folder walk."""
    root = tmp_path / "proj"
    write(root / "keep.md", NOTE)
    write(root / "scratch" / "s.md", NOTE)
    write(root / "old.draft.md", NOTE)
    write(root / ".kb" / "config.toml", '[ingest]\nignore = ["scratch/", "*.draft.md"]\n')
    monkeypatch.chdir(root / "scratch")  # the project (.kb/) is found from a subfolder
    r = CliRunner().invoke(cli, ["--embedder", "none", "ingest", str(root)],
                           env={"KB_DB": None, "KB_COLLECTION": None}, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with KnowledgeBase(root / ".kb" / "kb.db", Config(embedder="none")) as kb:
        assert _sources(kb, root) == {"keep.md"}


def test_a_plain_ingest_keeps_a_file_added_by_hand_under_an_ignored_path(tmp_path):
    root = tmp_path / "repo"
    write(root / "keep.md", NOTE)
    write(root / ".gitignore", "build/\n")
    write(root / "build" / "report.md", NOTE)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest(root / "build" / "report.md")  # named: read whatever the rules say
        report = kb.ingest(root)
        assert _sources(kb, root) == {"keep.md", "build/report.md"}
        # kept, and said so: a trial wrote a .kbignore rule and still found the file cited
        [warning] = [w for w in report.warnings if "ignore rules" in w]
        assert warning.startswith("1 document(s) indexed before")
        assert warning.endswith(f"`kb sync` of the folder removes them: "
                                f"{(root / 'build' / 'report.md').resolve()}")
        # the same file given by name in the batch: no warning (a review)
        named = kb.ingest([root, root / "build" / "report.md"])
        assert not [w for w in named.warnings if "ignore rules" in w]
        report = kb.sync(root)  # a sync mirrors the folder under its rules
        assert _sources(kb, root) == {"keep.md"}
        assert str((root / "build" / "report.md").resolve()) in report.removed


def test_a_folder_with_only_routine_exclusions_says_so_in_one_number(tmp_path: Path) -> None:
    root = (tmp_path / "repo").resolve()
    write(root / "guide.md", NOTE)
    write(root / ".git" / "HEAD", "ref: refs/heads/main\n")
    write(root / ".github" / "workflow.md", NOTE)
    write(root / "node_modules" / "pkg" / "README.md", NOTE)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                 "ingest", str(root)])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("IGNORED"))
    assert line == "IGNORED  3 routine (hidden entries, .git, node_modules, virtualenvs ...)"


def test_a_folder_whose_virtualenv_check_fails_is_no_virtualenv(tmp_path):
    # a new-user trial: a subfolder of mode 000 made Path.exists raise PermissionError in the
    # virtualenv check, and the whole batch failed with a traceback (the walk reports such a
    # folder as one it cannot read). Root can search any folder, so the same OSError is raised
    # here by a name too long for the file system (ENAMETOOLONG, which Path.exists passes on).
    rules = IgnoreRules(tmp_path)
    assert rules.reason(tmp_path / ("x" * 300), is_dir=True) is None
    venv = tmp_path / "env"
    write(venv / "pyvenv.cfg", "home = /usr/bin\n")
    assert rules.reason(venv, is_dir=True) == "virtualenv"


def test_an_ignore_file_that_cannot_be_read_keeps_its_folder_out_and_loses_nothing(
        tmp_path, caplog):
    # a new-user trial: a .kbignore kb could not read was skipped with a warning, and the
    # private files it named were indexed. A symlink loop cannot be read even by root.
    root = (tmp_path / "notes").resolve()
    write(root / "a.md", NOTE)
    write(root / "sub" / "s.md", NOTE)
    write(root / "sub" / "private.md", NOTE)
    write(root / "sub" / ".kbignore", "private.md\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([root])
        assert _sources(kb, root) == {"a.md", "sub/s.md"}
        (root / "sub" / ".kbignore").unlink()
        (root / "sub" / ".kbignore").symlink_to(root / "sub" / ".kbignore")
        write(root / "sub" / "new.md", NOTE)
        report = kb.sync([root])
        # nothing new comes in under it; what was indexed there stays
        assert _sources(kb, root) == {"a.md", "sub/s.md"} and report.removed == ()
        assert dict(report.ignored)["cannot read .kbignore"] == 3  # s, private, new
        # the ignore file fails, named, so that `kb sync --check` sees a new problem (a review:
        # only a log line said so, exit 0)
        (failed,) = [o for o in report.outcomes if o.action == "failed"]
        assert failed.path == str(root / "sub" / ".kbignore")
        assert failed.reason.startswith("cannot read: ") and failed.reason.endswith(
            "nothing in its folder is indexed until it can be read (what is indexed there "
            "stays)")
        assert report.new_problems == (failed.path,)
        assert kb.sync([root]).new_problems == ()  # known since: no new problem
        # without a walk to report it (the prune, kb watch's changes), a warning, once
        IgnoreRules(root).reason(root / "sub" / "x.md", is_dir=False)
        IgnoreRules(root).reason(root / "sub" / "x.md", is_dir=False)
        assert caplog.text.count(f"{root / 'sub' / '.kbignore'}: cannot read") == 1
        rules = IgnoreRules(root)
        assert rules.reason(root / "sub" / "x.md", is_dir=False) == "cannot read .kbignore"
        assert rules.reason(root / "b.md", is_dir=False) is None  # its folder only
        # kb watch: a new file there is not ingested, a file deleted there is removed
        (root / "sub" / "s.md").unlink()
        plan = plan_changes([("added", root / "sub" / "new.md"),
                             ("deleted", root / "sub" / "s.md")], [root], SUPPORTED_SUFFIXES)
        assert plan.ingest == () and plan.remove == (root / "sub" / "s.md",)
        (root / "sub" / ".kbignore").unlink()
        write(root / "sub" / ".kbignore", "private.md\n")  # readable again
        kb.sync([root])
        assert _sources(kb, root) == {"a.md", "sub/new.md"}


def test_a_byte_order_mark_is_no_part_of_the_first_pattern(tmp_path):
    # a review: Notepad's BOM kept "private.md" from matching, and the file was indexed (git
    # skips the mark)
    root = (tmp_path / "notes").resolve()
    write(root / "a.md", NOTE)
    write(root / "private.md", NOTE)
    (root / ".kbignore").write_bytes(b"\xef\xbb\xbfprivate.md\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([root])
        assert _sources(kb, root) == {"a.md"}
    # UTF-16 with its mark, as PowerShell's `echo private.md > .kbignore` writes (a second
    # trial: read as UTF-8, no pattern matched, in silence)
    for encoding in ("utf-16", "utf-16-be"):
        data = "private.md\r\n".encode(encoding)
        (root / ".kbignore").write_bytes(data if encoding == "utf-16" else b"\xfe\xff" + data)
        assert IgnoreRules(root).reason(root / "private.md", is_dir=False) == ".kbignore"
