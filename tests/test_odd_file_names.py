"""A file name holding a newline (new-user trial 5): one row per document, one-line titles.

Its stem had become a title with a newline, which ``Store.situated_documents`` read as an
LLM's situating sentence ("prefixes are mixed ... ingested with an LLM" on every later
ingest), and ``kb docs`` printed the raw newline, splitting one row into two.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kb.cli import cli
from kb.cli.printable import shown, unshown
from tests.conftest import write


def _kb(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "none", *args])


def test_a_newline_in_a_file_name(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes / "new\nline.txt", "Puffins nest in burrows on the cliff top.\n")
    write(notes / "tab\tbed.md", "Kittiwakes nest on narrow ledges.\n")
    write(notes / "plain.md", "# Plain\n\nGannets dive from thirty metres.\n")
    db = tmp_path / "kb.db"
    first = _kb(db, "ingest", str(notes))
    assert first.exit_code == 0, first.output
    again = _kb(db, "ingest", str(notes))
    assert again.exit_code == 0 and "prefixes are mixed" not in again.output, again.output
    docs = _kb(db, "docs")
    rows = docs.output.strip().splitlines()
    assert len(rows) == 3, docs.output  # one row per document
    assert any("new line" in row and "new\\nline.txt" in row for row in rows)
    found = _kb(db, "search", "puffins burrows")
    assert "new\\nline.txt" in found.output and "new\nline" not in found.output


def test_a_title_with_a_right_to_left_override_is_printed_escaped(tmp_path: Path) -> None:
    write(tmp_path / "notes" / "rlo.md", "# Invoice \u202egpj.exe\n\nPuffins nest in burrows.\n")
    db = tmp_path / "kb.db"
    assert _kb(db, "ingest", str(tmp_path / "notes")).exit_code == 0
    found = _kb(db, "search", "puffins burrows", "--color", "never")
    assert "Invoice \\u202egpj.exe" in found.output and "\u202e" not in found.output


def test_shown_escapes_only_what_does_not_print() -> None:
    assert shown("notes/新建 文件.md") == "notes/新建 文件.md"
    assert shown("a\nb\tc\x1b[31m") == "a\\nb\\tc\\x1b[31m"


def test_kb_show_and_rm_take_a_name_as_kb_docs_printed_it(tmp_path: Path) -> None:
    """A second trial pasted ``kb docs``'s escaped name into ``kb rm``: "no document matches"."""
    notes = tmp_path / "notes"
    write(notes / "new\nline.txt", "Puffins nest in burrows on the cliff top.\n")
    write(notes / "new\\nline.txt", "A real backslash: gannets dive from thirty metres.\n")
    db = tmp_path / "kb.db"
    assert _kb(db, "ingest", str(notes)).exit_code == 0
    printed = f"doc:{notes}/new\\nline.txt"  # as kb docs shows the newline's name
    shown_doc = _kb(db, "show", printed)
    assert shown_doc.exit_code == 0 and "gannets" in shown_doc.output, shown_doc.output  # as given
    assert _kb(db, "rm", printed).exit_code == 0  # the name as given wins: the backslash file
    left = _kb(db, "docs").output
    assert "Puffins" not in left and "new\\nline.txt" in left  # the newline's file is left
    assert _kb(db, "show", printed).exit_code == 0  # now the escaped name finds the newline file
    assert "Puffins" in _kb(db, "show", printed).output
    assert _kb(db, "rm", printed).exit_code == 0
    gone = _kb(db, "rm", printed)
    assert gone.exit_code == 1 and "no document matches" in gone.output
    assert _kb(db, "docs").stdout.strip() == ""  # (stderr says none is left)


def test_unshown_reverses_shown() -> None:
    for name in ("a\nb\tc\x1b[31m", "rlo \u202egpj", "tag \U000e0041", "新建 文件.md"):
        assert unshown(shown(name)) == name
    assert unshown("x\\x41") == "x\\x41"  # shown never writes a printable character's escape
