"""Markdown front matter: title, date and tags become metadata; the block leaves the text."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from kb.errors import EmptyDocumentError
from kb.ingest.extract import extract
from tests.conftest import write

BODY = "# Heading in the body\n\nThe note says the ferry leaves at nine.\n"


def test_yaml_front_matter_is_metadata_not_text(tmp_path: Path) -> None:
    path = write(tmp_path / "note.md", "---\ntitle: Ferry times\ndate: 2021-06-30\n"
                 "tags: [travel, ferries, travel]\nauthor: Ann\n---\n" + BODY)
    doc = extract(path)
    assert doc.title == "Ferry times"  # beats the first heading
    assert doc.created_at == datetime(2021, 6, 30, tzinfo=UTC)
    assert doc.tags == ("travel", "ferries")
    assert doc.text == BODY.strip()
    assert "author" not in doc.text and doc.warnings == ()


def test_toml_front_matter_with_a_zoned_time_and_string_tags(tmp_path: Path) -> None:
    path = write(tmp_path / "note.md", '+++\ntitle = "Hugo post"\ndate = 2020-01-02T03:04:05+02:00'
                 '\ntags = "a, b"\n+++\n' + BODY)
    doc = extract(path)
    assert doc.title == "Hugo post"
    assert doc.created_at == datetime(2020, 1, 2, 1, 4, 5, tzinfo=UTC)
    assert doc.tags == ("a", "b")
    assert doc.blocks[0].heading_path == ("Heading in the body",)


def test_without_front_matter_nothing_changes(tmp_path: Path) -> None:
    doc = extract(write(tmp_path / "plain.md", BODY + "\n---\nnot front matter\n---\n"))
    assert doc.title == "Heading in the body"
    assert doc.created_at is None and doc.tags == ()
    assert "not front matter" in doc.text


def test_malformed_front_matter_is_kept_as_text_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.md", "---\ntitle: [unclosed\n---\n" + BODY)
    doc = extract(path)
    assert "title: [unclosed" in doc.text  # nothing is lost
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("YAML front matter not parsed, kept as text: ")
    assert "\n" not in doc.warnings[0]


@pytest.mark.parametrize(("head", "fence"), [
    ("---\ntitle: \"Broken\ndate: 2024-05-01\n", "---"),
    ("+++\ntitle = \"Broken\"\ndate = 2024-05-01\n", "+++")])
def test_front_matter_never_closed_is_kept_as_text_with_a_warning(tmp_path: Path, head: str,
                                                                  fence: str) -> None:
    """A trial: a block whose closing fence was forgotten was indexed without a word."""
    doc = extract(write(tmp_path / "open.md", head + BODY))
    assert "Broken" in doc.text and "ferry leaves at nine" in doc.text  # nothing is lost
    assert doc.warnings == (f"front matter opened by {fence} on the first line is never "
                            f"closed by another {fence}: kept as text",)


@pytest.mark.parametrize("head", ["---\n\n", "---\nNote: draft only.\n\n"])
def test_a_rule_on_the_first_line_is_no_front_matter(tmp_path: Path, head: str) -> None:
    doc = extract(write(tmp_path / "rule.md", head + BODY))
    assert doc.warnings == () and "ferry leaves at nine" in doc.text


def test_front_matter_alone_is_an_empty_document(tmp_path: Path) -> None:
    with pytest.raises(EmptyDocumentError):
        extract(write(tmp_path / "only.md", "---\ntitle: Nothing else\n---\n"))


def test_front_matter_date_is_the_stored_created_at(kb_bm25, tmp_path: Path) -> None:
    # created_at is what time decay measures a document's age from
    write(tmp_path / "docs" / "old.md", "---\ndate: 2001-02-03 04:05:06\n---\n" + BODY)
    kb_bm25.ingest(tmp_path / "docs")
    [doc] = kb_bm25.documents()
    assert doc.created_at == datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC)
    assert doc.title == "Heading in the body"


@pytest.mark.parametrize("value", ["2031-02-30", "2025-13-01", "2025-01-01T25:00:00", "12345"])
def test_an_impossible_date_is_a_warning_and_the_note_is_indexed(kb_bm25, tmp_path: Path,
                                                                 value: str) -> None:
    # PyYAML's safe_load raised ValueError building date(2031, 2, 30): the note failed whole
    note = write(tmp_path / "docs" / "otters.md", f"---\ndate: {value}\ntags: [zoo]\n---\n"
                 "Otters hold hands while they sleep.\n")
    report = kb_bm25.ingest(tmp_path / "docs")
    assert report.count("added") == 1, report
    [doc] = kb_bm25.documents()
    assert doc.tags == ("zoo",)  # the rest of the block is read
    assert doc.created_at == datetime.fromtimestamp(note.stat().st_mtime, UTC)
    assert doc.warnings == (f"YAML front matter: date {value!r} is not a valid date (the "
                            "file's time is used); ignored",)


def test_a_number_title_is_a_title_and_a_list_title_a_warning(tmp_path: Path) -> None:
    # as written: YAML 1.1 would read 12:30 as 750 (base 60), 010 as 8, yes as True
    for title in ("1984", "12:30", "010", "1.10", "yes"):
        path = write(tmp_path / "a.md", f"---\ntitle: {title}\n---\n" + BODY)
        assert extract(path).title == title
    doc = extract(write(tmp_path / "b.md", "---\ntitle: [a, b]\n---\n" + BODY))
    assert doc.title == "Heading in the body"
    assert doc.warnings == ("YAML front matter: title ['a', 'b'] is not text; ignored",)
    doc = extract(write(tmp_path / "c.md", "---\ntags: {a: b}\n---\n" + BODY))
    assert doc.tags == () and doc.warnings == (
        "YAML front matter: tags {'a': 'b'} is not a list of words; ignored",)
    assert extract(write(tmp_path / "d.md", "---\ntags: 5\n---\n" + BODY)).tags == ("5",)


def test_a_note_of_front_matter_alone_is_skipped_as_empty(kb_bm25, tmp_path: Path) -> None:
    write(tmp_path / "docs" / "only.md", "---\ntitle: Nothing else\n---\n\n")
    write(tmp_path / "docs" / "real.md", BODY)
    report = kb_bm25.ingest(tmp_path / "docs")
    skipped = [o for o in report.outcomes if o.action == "skipped"]
    assert [(Path(o.path).name, o.reason) for o in skipped] == [
        ("only.md", "empty file (front matter only)")]
    assert report.count("failed") == 0 and report.count("added") == 1


def test_the_first_date_that_is_one_wins_and_yaml_spaced_times_are_dates(tmp_path: Path) -> None:
    doc = extract(write(tmp_path / "a.md", "---\ndate: TBD\ncreated: 2024-01-05\n---\n" + BODY))
    assert doc.created_at == datetime(2024, 1, 5, tzinfo=UTC) and doc.warnings == ()
    doc = extract(write(tmp_path / "b.md", "---\ndate: 2001-12-14 21:59:43.10 -5\n---\n" + BODY))
    assert doc.created_at == datetime(2001, 12, 15, 2, 59, 43, 100000, tzinfo=UTC)


def test_tags_that_are_no_words_and_a_date_in_the_future_are_said(tmp_path: Path) -> None:
    # a new-user trial: [car, "", null, 7] kept car and 7 without a word, and a year typo
    # (2206) kept a note new for time decay, unsaid
    doc = extract(write(tmp_path / "a.md", '---\ntags: [car, "", null, 7, [x, y]]\n---\n' + BODY))
    assert doc.tags == ("car", "7")
    assert doc.warnings == ("YAML front matter: tags '', None, ['x', 'y']: not words; ignored",)
    doc = extract(write(tmp_path / "b.md", "---\ndate: 2206-12-01\n---\n" + BODY))
    assert doc.created_at == datetime(2206, 12, 1, tzinfo=UTC)  # kept: a planned event's
    assert doc.warnings == ("date '2206-12-01' is in the future: time decay reads the "
                            "document as new until then (a typo?)",)
    assert extract(write(tmp_path / "c.md", "---\ndate: 2025-01-01\n---\n" + BODY)).warnings == ()
