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
