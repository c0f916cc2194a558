"""DOCX extraction on python-docx and node-word-extractor test documents."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

import docx
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.errors import CorruptError, EmptyDocumentError
from kb.ingest.extract import extract

DOCX = Path(__file__).parent / "fixtures" / "docs" / "docx"


def test_paragraphs_and_nested_tables_in_document_order() -> None:
    doc = extract(DOCX / "python-docx-blk-paras-and-tables.docx")
    assert doc.source_type == "docx"
    body = [(b.heading_path, b.text) for b in doc.blocks]
    assert body == [
        ((), "Lorem ipsum dolor sit amet, consectetur adipiscing elit."),
        # one outer cell: a paragraph, a nested 2-row table, a paragraph
        ((), "Text before [Table; Between] Text after"),
        ((), "Donec semper facilisis metus finibus malesuada."),
        (("Header",), "Left-side | Right-side"),
        (("Footer",), "Copyright | Page-number"),
    ]


def test_table_rows_and_core_title() -> None:
    doc = extract(DOCX / "word-extractor-test03.docx")
    assert doc.title == "GPL Compatible License List"
    assert doc.blocks[0].text == "Each license name is hyperlinked to its location."
    table = doc.blocks[1].text.split("\n")
    assert table[0] == "License | GPL v3.0 | LGPL v3.0 | BSD | MIT (X11) | Apache v2.0"
    assert table[1].startswith("Can You Release Commercial Works? | Yes, but ALL source code")
    assert doc.created_at == datetime(2021, 5, 9, 21, 19, tzinfo=UTC)


def test_empty_cells_keep_their_column() -> None:
    doc = extract(DOCX / "word-extractor-test12.docx")
    assert [b.text for b in doc.blocks] == [
        "This is a simple paragraph",
        "Row 1, cell 1 | Row 1, cell 2 | Row 1, cell 3\nRow 2, cell 1 |  | Row 2, cell 3",
        "And a second paragraph",
    ]


def test_headers_and_footers_deduplicated_after_body() -> None:
    doc = extract(DOCX / "word-extractor-test04.docx")
    headers = [b.text for b in doc.blocks if b.heading_path == ("Header",)]
    footers = [b.text for b in doc.blocks if b.heading_path == ("Footer",)]
    assert headers == ["This is a simple header, with a € euro symbol in it."]
    assert footers == ["The footer, with Molière, has Unicode in it."]
    assert "L'Avare ou l'École du mensonge" in doc.text
    assert "GBP - £\nEUR - €" in doc.text


def test_odd_even_and_first_page_headers_from_all_sections() -> None:
    odd_even = extract(DOCX / "python-docx-doc-odd-even-hdrs.docx")
    assert {b.text for b in odd_even.blocks if b.heading_path == ("Header",)} == {
        "Even page header.",
        "Odd page header.",
    }
    first = extract(DOCX / "python-docx-sct-first-page-hdrftr.docx")
    assert {b.text for b in first.blocks if b.heading_path == ("Header",)} == {
        "Default (odd, primary) Header",
        "First Page Header (section 2)",
    }
    sections = extract(DOCX / "python-docx-hdr-header-footer.docx")
    assert [(b.heading_path, b.text) for b in sections.blocks[1:]] == [
        (("Header",), "Header for section-1"),
        (("Footer",), "Footer for section 1"),
    ]


def test_footnotes_and_endnotes_without_separators() -> None:
    doc = extract(DOCX / "word-extractor-test13.docx")
    assert [(b.heading_path, b.text) for b in doc.blocks] == [
        ((), "Endnotes and footnotes test\nParagraph 1\nParagraph 2"),
        (("Footnotes",), "This is a footnote"),
        (("Endnotes",), "This is an endnote"),
    ]


def test_asian_text() -> None:
    doc = extract(DOCX / "word-extractor-test11.docx")
    assert "这是一个用来测试nodejs解析Word文档" in doc.text
    assert "This is a test for parsing the Word file in node." in doc.text


def test_tracked_changes_keep_insertions_and_drop_deletions() -> None:
    # node-word-extractor reads this file despite its odd XML (mc:Ignorable with a junk
    # prefix); so do we. The expected body is theirs.
    doc = extract(DOCX / "word-extractor-bad-xml.docx")
    assert "A second test of reviewing, but with Unicode characters in" in doc.text
    assert "This text has been inserted, ✻and should be included" in doc.text
    assert "deleted" not in doc.text


def test_heading_styles_give_heading_paths() -> None:
    doc = extract(DOCX / "python-docx-par-known-styles.docx")
    assert doc.blocks[0].heading_path == ()
    assert doc.blocks[1].heading_path == ("Heading 1",)
    assert doc.blocks[1].text == "Heading 1\nBody Text"
    assert doc.title == "Heading 1"  # no core title: the first heading


def test_generated_document_structure(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = ""
    document.add_heading("Handbook", level=0)
    document.add_paragraph("Preface text.")
    document.add_heading("Chapter One", level=1)
    document.add_paragraph("First chapter text.")
    document.add_heading("Section A", level=2)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Key"
    table.cell(0, 1).text = "Value"
    table.cell(1, 0).text = "Outer"
    inner = table.cell(1, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "in-a"
    inner.cell(0, 1).text = "in-b"
    document.add_paragraph("After the table.")
    document.add_heading("Chapter Two", level=1)
    document.add_paragraph("Second chapter text.")
    path = tmp_path / "handbook.docx"
    document.save(str(path))

    doc = extract(path)
    assert doc.title == "Handbook"
    assert [(b.heading_path, b.text) for b in doc.blocks] == [
        (("Handbook",), "Handbook\nPreface text."),
        (("Handbook", "Chapter One"), "Chapter One\nFirst chapter text."),
        (("Handbook", "Chapter One", "Section A"), "Section A"),
        (("Handbook", "Chapter One", "Section A"), "Key | Value\nOuter | [in-a | in-b]"),
        (("Handbook", "Chapter One", "Section A"), "After the table."),
        (("Handbook", "Chapter Two"), "Chapter Two\nSecond chapter text."),
    ]


def test_images_are_reported() -> None:
    doc = extract(DOCX / "word-extractor-test06.docx")
    assert "2 images not indexed (no vision model configured)" in doc.warnings
    with pytest.raises(EmptyDocumentError, match="3 images not indexed"):
        extract(DOCX / "python-docx-having-images.docx")


def test_document_with_only_empty_tables_is_empty() -> None:
    with pytest.raises(EmptyDocumentError, match=r"empty document \(no text, no images\)"):
        extract(DOCX / "python-docx-tbl-having-tables.docx")


def test_a_blank_word_file_is_skipped_as_empty_one_of_images_fails(tmp_path: Path) -> None:
    # a trial: a new, blank Word file in a notes folder made the first sync exit 1, where an
    # empty text file is skipped
    docx.Document().save(str(tmp_path / "blank.docx"))
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "ingest", str(tmp_path)],
                           env={"KB_EMBEDDER": "none"})
    assert r.exit_code == 0, r.output
    assert f"SKIPPED  {(tmp_path / 'blank.docx').resolve()}: empty document (no text, no " \
           "images)" in r.output
    # images and no text: content kb cannot read without a vision model, a failure
    with pytest.raises(EmptyDocumentError, match="no text in the document; 3 images"):
        extract(DOCX / "python-docx-having-images.docx")


def test_not_a_zip_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "fake.docx"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    with pytest.raises(CorruptError, match="not a valid DOCX file") as caught:
        extract(path)
    assert caught.value.kind == "corrupt"


def _rewrite(source: Path, target: Path, replace: dict[str, bytes | None]) -> Path:
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for item in src.infolist():
            if item.filename in replace:
                data = replace[item.filename]
                if data is not None:
                    dst.writestr(item, data)
            else:
                dst.writestr(item, src.read(item.filename))
    return target


def test_truncated_document_xml_is_corrupt(tmp_path: Path) -> None:
    source = DOCX / "word-extractor-test11.docx"
    with zipfile.ZipFile(source) as z:
        xml = z.read("word/document.xml")
    path = _rewrite(source, tmp_path / "bad-xml.docx", {"word/document.xml": xml[: len(xml) // 2]})
    with pytest.raises(CorruptError, match="not a valid DOCX file"):
        extract(path)


def test_missing_document_part_is_corrupt(tmp_path: Path) -> None:
    source = DOCX / "word-extractor-test11.docx"
    path = _rewrite(source, tmp_path / "hollow.docx", {"word/document.xml": None})
    with pytest.raises(CorruptError):
        extract(path)


def test_truncated_zip_is_corrupt(tmp_path: Path) -> None:
    data = (DOCX / "word-extractor-test04.docx").read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptError) as err:
        extract(path)
    # a trial's message had said "not a ZIP archive: the bytes are a Word (DOCX) file; rename
    # it to .docx" of a file named .docx
    assert "a ZIP archive missing its end record: the file looks cut short" in str(err.value)
    assert "rename" not in str(err.value)


# the first bytes of a Word 97-2003 file: the OLE compound-file signature, then its header
OLE_HEADER = bytes.fromhex("d0cf11e0a1b11ae1") + bytes(16) + bytes.fromhex("3e000300feff0900")


@pytest.mark.parametrize(("content", "reason"), [
    (b"this is not a zip file at all, just text", "not a ZIP archive"),
    ({"a.txt": "hello"}, "missing part [Content_Types].xml"),
    (OLE_HEADER + bytes(488), "not a ZIP archive but an OLE file: a Word 97-2003 .doc renamed "
     ".docx? Save it as .docx"),
    ({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": "<x/>"},
     "an OpenDocument file (application/vnd.oasis.opendocument.text) renamed .docx? Save it "
     "as .docx"),
    # a content-types part without its namespace: python-docx's own AttributeError was shown
    ({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"},
     "a package part is not what Word writes: [Content_Types].xml's root <Types> is not the "
     "OPC <Types> (namespace http://schemas.openxmlformats.org/package/2006/content-types)"),
])
def test_a_corrupt_docx_says_so_in_the_ingest_report(tmp_path: Path,
                                                      content: bytes | dict[str, str],
                                                      reason: str) -> None:
    path = tmp_path / "notes" / "broken.docx"
    path.parent.mkdir()
    if isinstance(content, dict):  # a ZIP archive, but not a Word package
        with zipfile.ZipFile(path, "w") as z:
            for name, text in content.items():
                z.writestr(name, text)
    else:
        path.write_bytes(content)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                 "ingest", str(path.parent)])
    assert r.exit_code == 1
    assert f"FAILED   {path}: not a valid DOCX file ({reason})\n" in r.output, r.output


def test_a_damaged_entry_while_naming_the_package_is_still_a_corrupt_docx(tmp_path: Path) -> None:
    path = tmp_path / "damaged.docx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
    data = bytearray(path.read_bytes())
    at = data.index(b"application/vnd")
    data[at:at + 11] = b"XXXXXXXXXXX"  # the stored bytes no longer match their CRC
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptError, match="not a valid DOCX file"):
        extract(path)


def test_a_python_docx_files_template_date_is_no_creation_date(tmp_path: Path) -> None:
    # a trial: a DOCX a script wrote today carried python-docx's blank template's date
    # (2013-12-23) and dropped out of `kb search --after 2026-01-01` without a word
    path = tmp_path / "lab-wiki.docx"
    made = docx.Document()
    made.add_paragraph("Lab meetings are on Tuesdays at ten in room 4.12.")
    made.save(str(path))
    assert made.core_properties.created == datetime(2013, 12, 23, 23, 15, tzinfo=UTC)
    assert extract(path).created_at is None  # the caller takes the file's time instead
    db = str(tmp_path / "kb.db")
    env = {"KB_EMBEDDER": "none"}
    assert CliRunner().invoke(cli, ["--db", db, "ingest", str(path)], env=env).exit_code == 0
    r = CliRunner().invoke(cli, ["--db", db, "search", "--after", "2020-01-01", "--json",
                                 "lab meetings Tuesdays"], env=env)
    assert r.exit_code == 0 and "lab-wiki.docx" in r.output
    # an author set by the script changes nothing (a review); a date the tool set is kept
    made.core_properties.author = "Alice Chen"
    made.save(str(path))
    assert extract(path).created_at is None
    made.core_properties.created = datetime(2019, 3, 4, 5, 6, tzinfo=UTC)
    made.save(str(path))
    assert extract(path).created_at == datetime(2019, 3, 4, 5, 6, tzinfo=UTC)


def test_a_generators_placeholder_title_is_no_title(tmp_path: Path) -> None:
    # a trial: a DOCX without core properties was titled "Word Document" (python-docx's
    # default), and "search word document" passed it
    import re

    made = tmp_path / "made.docx"
    document = docx.Document()
    document.add_paragraph("Gannets dive from thirty metres.")
    document.save(str(made))
    bare = tmp_path / "ferry-notes.docx"
    with zipfile.ZipFile(made) as z, zipfile.ZipFile(bare, "w") as out:
        for item in z.infolist():
            if item.filename != "docProps/core.xml":
                data = z.read(item.filename)
                if item.filename == "_rels/.rels":  # its relationship goes with it
                    data = re.sub(rb"<Relationship [^>]*core-properties[^>]*/>", b"", data)
                out.writestr(item, data)
    assert docx.Document(str(bare)).core_properties.title == "Word Document"
    assert extract(bare).title == "ferry-notes"


def test_a_metadata_date_in_the_future_is_said_and_a_zero_date_is_none(tmp_path: Path) -> None:
    # a trial: a DOCX dated 2035 outranked the note that replaced it, without a warning (a
    # front matter's date in the future has one); Windows' zero date 1601-01-01 was a date
    for created, kept, said in ((datetime(2035, 1, 1, tzinfo=UTC), True, "in the future"),
                                (datetime(1601, 1, 1, tzinfo=UTC), False, "is no date"),
                                (datetime(2021, 6, 1, tzinfo=UTC), True, None)):
        path = tmp_path / f"gate-{created.year}.docx"
        made = docx.Document()
        made.add_paragraph("The marina gate code is 4412.")
        made.core_properties.created = created
        made.save(str(path))
        doc = extract(path)
        assert doc.created_at == (created if kept else None), created
        notes = [w for w in doc.warnings if "creation date" in w]
        if said is None:
            assert notes == []
        else:
            assert len(notes) == 1 and created.date().isoformat() in notes[0], notes
            assert said in notes[0]


def test_an_index_dated_by_the_template_reads_such_documents_again(tmp_path: Path) -> None:
    # the upkeep step "docx-template-date-reread": indexed before, such a DOCX kept 2013
    import sqlite3
    from contextlib import closing

    from kb.api import KnowledgeBase
    from kb.config import Config

    (tmp_path / "docs").mkdir()
    made = docx.Document()
    made.add_paragraph("Lab meetings are on Tuesdays.")
    made.save(str(tmp_path / "docs" / "lab.docx"))
    db = tmp_path / "kb.db"
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "docs"])
    with closing(sqlite3.connect(db)) as conn, conn:  # as a kb before the fix left it
        conn.execute("UPDATE documents SET created_at = '2013-12-23T23:15:00+00:00'")
        conn.execute("DELETE FROM meta WHERE key = 'upkeep:docx-template-date-reread'")
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        assert [d.content_hash for d in kb.documents()] == [""]
        assert [o.action for o in kb.ingest([tmp_path / "docs"]).outcomes] == ["updated"]
        assert kb.documents()[0].created_at.year >= 2026
